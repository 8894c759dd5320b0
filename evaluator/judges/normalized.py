"""A deterministic, rule-based judge: normalised string and number matching.

It needs no model and is fast (a few microseconds per request), so it is the
default for tests, for the website and for a first pass. Its results are always
labelled "normalized-match" so nobody mistakes them for an LLM judge's grades:
it misses paraphrases, synonyms and spelled-out numbers that an LLM would accept.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Sequence

from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, Judgement, JudgeRequest

# --- text normalisation -------------------------------------------------------

_ARTICLES = frozenset({"a", "an", "the"})
_APOSTROPHES = re.compile(r"['\u2018\u2019`]")  # NFKC keeps curly quotes; "don't" -> "dont"
_NON_WORD = re.compile(r"[^\w\s]|_")


def _fold(text: str) -> str:
    """NFKC + casefold; the common first step for text and number rules."""
    return unicodedata.normalize("NFKC", text).casefold()


def _tokens(folded: str) -> list[str]:
    """Words of folded text with punctuation removed (articles still in)."""
    return _NON_WORD.sub(" ", _APOSTROPHES.sub("", folded)).split()


def _drop_articles(tokens: list[str]) -> str:
    # A final "a" is kept: in "vitamin a" or "type a" it is the answer, not an article.
    last = len(tokens) - 1
    return " ".join(t for i, t in enumerate(tokens) if i == last or t not in _ARTICLES)


def normalize_text(text: str) -> str:
    """NFKC, casefold, punctuation to spaces (apostrophes dropped), articles removed, spaces collapsed."""
    return _drop_articles(_tokens(_fold(text)))


# --- phrase lists (matched on word boundaries of the folded, punctuation-free text) ---

_REFUSAL = re.compile(
    r"\b(?:dont know|do not know|not sure|unsure|no idea|unknown|n a|unable to|"
    r"(?:cannot|can not|cant|impossible to|not possible to) "
    r"(?:be )?(?:determined?|tell|identify|answer|say|know|see|confirm)|"
    r"no information|not enough information|insufficient information|no answer|"
    r"not provided|not specified|not mentioned|not visible|not shown|unclear|not clear)\b"
)
# Negations and alternatives make a prediction that merely contains the gold wrong:
# "not paris", "paris or lyon".
_NEGATION_OR_ALTERNATIVE = frozenset({"not", "no", "never", "nor", "neither", "isnt", "wasnt", "or", "either"})

# Vague numeric answers are not answers (SimpleQA: "more than 100" is NOT_ATTEMPTED).
# Matched on folded text with punctuation kept, because of < > + and decades like 1990s.
_BOUND = re.compile(
    r"\b(?:more|less|fewer|greater|higher|lower) than\b|\bat (?:least|most)\b|"
    r"\b(?:over|under|above|below|nearly|almost|up to|upwards of|in excess of|between|or so)\b|"
    r"[<>\u2264\u2265]|\d\+|\d0s\b"
)
# Approximate markers are fine when the number itself is right ("about 1994"),
# and make a wrong number vague rather than wrong ("around 1990").
_APPROX = re.compile(r"\b(?:around|about|approximately|approx|roughly|circa|ca|some|estimated)\b|[~\u2248]")
# Several numbers offered as alternatives: "1994 or 1995", "1994/95", "1993-1995".
_ALTERNATIVE = re.compile(r"\bor\b|\beither\b|\d\s*[/\u2013\u2014-]\s*\d")

# --- numbers -----------------------------------------------------------------

_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER = re.compile(
    r"(?P<neg>(?:^|(?<=[\s(]))[-\u2212])?"
    r"(?<![\d.,])(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?"
    r"(?:\s*(?P<scale>thousand|million|billion|trillion)\b)?"
)
_WORD_NUMBERS = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
# A numeric gold: an optional approximate word or currency sign, ONE number, then up
# to 3 unit words without digits ("1994", "12.5", "1,000", "3.2 km", "45 %", "$2 million").
_NUMERIC_GOLD = re.compile(
    r"^\s*(?:(?:about|around|approximately|approx\.?|roughly|circa|~)\s*)?[$\u20ac\u00a3\u00a5]?\s*"
    r"(?P<num>[-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*(?:thousand|million|billion|trillion)\b)?)"
    r"(?P<unit>[^\d]*)$"
)


@dataclass(frozen=True)
class _Number:
    value: Decimal
    step: Decimal  # one unit of the last written digit: 12.5 -> 0.1, 1994 -> 1, 1.2 million -> 100000


def _numbers(folded: str) -> list[_Number]:
    """Every number written with digits in the text, with its scale word applied."""
    out = []
    for m in _NUMBER.finditer(folded):
        frac = m["frac"] or ""
        scale = _SCALES[m["scale"]] if m["scale"] else 1
        value = Decimal(m["int"].replace(",", "") + ("." + frac if frac else "")) * scale
        out.append(_Number(-value if m["neg"] else value, Decimal(1).scaleb(-len(frac)) * scale))
    return out


def _same_order(value: Decimal, gold: Decimal) -> bool:
    """Within a factor of ten of the gold: a rival answer rather than context (a day of
    the month beside a year). Zero is of the order of zero only."""
    if gold == 0 or value == 0:
        return gold == value
    return abs(gold) / 10 <= abs(value) <= abs(gold) * 10


@dataclass(frozen=True)
class _Gold:
    text: str  # normalised text
    number: _Number | None  # set when the gold is a number with optional units


@lru_cache(maxsize=65536)
def _analyse_gold(gold: str) -> _Gold:
    folded = _fold(gold).replace("\u2212", "-")
    number = None
    m = _NUMERIC_GOLD.match(folded)
    if m:
        unit_words = _tokens(m["unit"])
        if len(unit_words) <= 3 and not _MONTHS.intersection(unit_words):  # "11 september" is a date
            number = _numbers(m["num"])[0]
    return _Gold(_drop_articles(_tokens(folded)), number)


class NormalizedMatchJudge:
    """Grades by normalised exact/phrase match and by numeric comparison.

    judge_id "normalized-match@1" (bump the suffix whenever a rule changes, because
    cached judgements are keyed by it). The rules, in order:

    1. Empty or whitespace prediction: NOT_ATTEMPTED (simpleqa) / INCORRECT (blank).
    2. Text is normalised: unicode NFKC, casefold, apostrophes dropped ("don't" ->
       "dont"), other punctuation turned into spaces, articles a/an/the removed
       (except as the last word: "vitamin a"), whitespace collapsed.
    3. Equal normalised texts are CORRECT.
    4. Numeric gold: one number, optionally after "about"/a currency sign and before
       at most 3 unit words ("1994", "12.5", "1,000", "3.2 km", "$2 million"; dates
       such as "11 September" are text). The prediction's numbers (written with
       digits, or a number word zero..twenty when it has no digits) are compared:
       - a number within half a unit of the gold's last written digit matches: gold
         12.5 accepts 12.5, 12.50 and 12.54 but not 12.6; gold 1994 rejects 1995;
         gold "1.2 million" accepts 1,200,000. Units and other words are ignored,
         so "3.2 miles" matches gold "3.2 km" (a known blind spot);
       - a bound ("more than 100", "at least", "over", "between", "<", "100+",
         "1990s") is vague: NOT_ATTEMPTED (simpleqa) / INCORRECT (blank);
       - a match is CORRECT, hedges included ("about 1994"), unless other numbers
         are offered as alternatives: joined by "or"/"either", a slash or a dash
         ("1994 or 1995", "1994/95", "1994-1995"; also, unavoidably, the date
         "1994-07-08"), or any other number within a factor of ten of the gold
         ("1994, 1995", a list of every year): INCORRECT. Numbers of another order
         ("June 6, 1944" for 1944) are context, not alternatives;
       - no match: an approximate wrong number ("around 1990") or a refusal is
         NOT_ATTEMPTED (simpleqa); any other number, or no number, is INCORRECT.
    5. Text gold: CORRECT if the normalised prediction contains all the gold's
       words as one contiguous phrase, is short (at most gold words + 6; for a
       blank, gold words + 2, so that a string of candidate words is not an
       answer) and adds no negation or alternative ("not paris", "paris or lyon"
       are not CORRECT). A blank's prediction longer than that is INCORRECT whatever
       the gold, numbers included. Otherwise a refusal or hedge ("I don't
       know", "cannot determine", "not sure", "unable to", "no information",
       "unknown", "N/A", ...) is NOT_ATTEMPTED (simpleqa), and the rest is INCORRECT.
    6. For task "blank" NOT_ATTEMPTED never occurs: it becomes INCORRECT (binary score).
    An empty gold (a data error) grades INCORRECT; scorers should exclude such items.
    """

    judge_id = "normalized-match@2"
    kind = "normalized-match"

    # How many words a prediction may add around the gold phrase and still count.
    extra_words = 6
    blank_extra_words = 2  # a blank is filled by a few words; more is a list of guesses

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        return [Judgement(self.grade(r.task, r.gold, r.prediction), self.judge_id) for r in requests]

    def grade(self, task: str, gold: str, prediction: str) -> str:
        """The label for one (gold, prediction) pair; the question is not used."""
        if task == "blank":
            label = self._grade_blank(gold, prediction)
            return INCORRECT if label == NOT_ATTEMPTED else label
        return self._grade(gold, prediction, self.extra_words)

    def _grade_blank(self, gold_text: str, prediction: str) -> str:
        """A blank holds a few words: anything longer (numbers included) is a list of guesses."""
        length = len(_drop_articles(_tokens(_fold(prediction))).split())
        if length > len(_analyse_gold(gold_text).text.split()) + self.blank_extra_words:
            return INCORRECT
        return self._grade(gold_text, prediction, self.blank_extra_words)

    def _grade(self, gold_text: str, prediction: str, extra_words: int) -> str:
        if not prediction or prediction.isspace():
            return NOT_ATTEMPTED
        gold = _analyse_gold(gold_text)
        if not gold.text:
            return INCORRECT
        folded = _fold(prediction).replace("\u2212", "-")
        words = _tokens(folded)
        pred = _drop_articles(words)
        if pred == gold.text:  # checked before the number rules, so gold "1990s" accepts "1990s"
            return CORRECT
        if gold.number is not None:
            return self._grade_number(gold.number, folded, words)
        return self._grade_text(gold.text, pred, words, extra_words)

    def _grade_number(self, gold: _Number, folded: str, words: list[str]) -> str:
        numbers = _numbers(folded)
        if not numbers:
            numbers = [_Number(Decimal(_WORD_NUMBERS[w]), Decimal(1)) for w in words if w in _WORD_NUMBERS]
        half_step = gold.step / 2
        matched = any(abs(n.value - gold.value) < half_step for n in numbers)
        if _BOUND.search(folded):
            return NOT_ATTEMPTED
        if matched:
            others = {n.value for n in numbers if abs(n.value - gold.value) >= half_step}
            offered = bool(others) and _ALTERNATIVE.search(folded)
            return INCORRECT if offered or any(_same_order(n, gold.value) for n in others) else CORRECT
        if _APPROX.search(folded) or _REFUSAL.search(" ".join(words)):
            return NOT_ATTEMPTED
        return INCORRECT

    def _grade_text(self, gold: str, pred: str, words: list[str], extra_words: int) -> str:
        pred_words = pred.split()
        gold_words = gold.split()
        if (
            len(pred_words) <= len(gold_words) + extra_words
            and f" {gold} " in f" {pred} "
            and not _NEGATION_OR_ALTERNATIVE.intersection(pred_words).difference(gold_words)
        ):
            return CORRECT
        if _REFUSAL.search(" ".join(words)):
            return NOT_ATTEMPTED
        return INCORRECT
