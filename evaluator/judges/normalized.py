"""The offline matcher: a deterministic judge that follows the papers' grading rules where
a string can show them, and abstains (UNSCORED) where it cannot decide.

It needs no model and takes microseconds a request. It is not the papers' judge (an LLM):
every result it grades says so, and bench/judge_agreement.py measures how often it agrees
with the papers' rules on labelled answers (docs/judges.md). Its rules:

Video SimpleQA (CORRECT / INCORRECT / NOT_ATTEMPTED, as the paper grades):
- no answer, a placeholder, a refusal ("I can't tell", "not enough information") or a
  question back: NOT_ATTEMPTED;
- a hedged answer ("possibly X", "I think X, though I'm not sure", "X?"): INCORRECT,
  even when X is right;
- a numeric gold: the answer's amounts, in any unit (evaluator/judges/quantities.py;
  "211 ft 5 in", "8,5 km", "MCMXI", "two and a half" read too), must hold one that
  equals the gold to its last significant figure, of the same sign and era, and no rival
  amount ("12 or 13"): CORRECT; a bound that the gold breaks ("less than 500 m" for
  1.6 km) or another amount: INCORRECT; a bound or a loose amount the gold fits ("over
  100 m", "hundreds", "around 1900", "nearly 11,000 m", "early 1900s"): NOT_ATTEMPTED;
  units of a kind it cannot relate: UNSCORED. A full date must be the same day (a date
  in digits may have day and month in either order);
- a text gold: the same words (accents, case, punctuation, articles, plurals,
  "Mt."/"Mount" aside) or the gold within a longer answer: CORRECT, unless negated, one
  of several candidates ("Queen + Adam Lambert"), or part of another name ("Queen
  Latifah" for Queen, "Saturn V" for Saturn, "Santa Maria della Salute" for Santa
  María): INCORRECT; an acronym of the gold or the gold of an acronym: CORRECT; only
  part of the gold: INCORRECT (a title or the kind of thing dropped, "Kilimanjaro" for
  Mount Kilimanjaro, "Andromeda" for the Andromeda Galaxy, is CORRECT; a surname alone is
  UNSCORED); words the gold does not have: INCORRECT, except an answer in another script
  or spelled much like the gold (another language?): UNSCORED, and a loose description
  ("a painter of the Renaissance", "A string instrument"): NOT_ATTEMPTED.

ExpVid blanks (correct or not, per blank): the same amounts rule (ratios too); the same
words, singular or plural, another ending of one stem ("quenching" for quenched), a
one-letter slip in a long word, an acronym or a genus abbreviation ("E. coli"): CORRECT; the gold with a conjunction or a negating prefix
("non-reducing"), or only part of it (a more general term): INCORRECT; the gold with
other modifiers: UNSCORED; other words: INCORRECT when both are plain words, UNSCORED
when either looks like a code, formula or brand name ("NaOH", "MS-222").
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from evaluator.judges import aliases, dates, names
from evaluator.judges import quantities as q
from evaluator.judges import wording as w
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, UNSCORED, Judgement, JudgeRequest
from evaluator.judges.blank_rules import grade_blank


def normalize_text(text: str) -> str:
    """The matcher's normal form of an answer (evaluator/judges/wording.py: normal)."""
    return w.normal(text)


class NormalizedMatchJudge:
    """See the module docstring. judge_id "normalized-match@5": bump the suffix whenever a
    rule changes (cached judgements are keyed by it)."""

    judge_id = "normalized-match@5"
    kind = "normalized-match"

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        return [Judgement(self.grade(r.task, r.gold, r.prediction), self.judge_id) for r in requests]

    def grade(self, task: str, gold: str, prediction: str) -> str:
        """The label of one (gold, prediction) pair; the question is not used."""
        if not gold or not gold.strip():
            return INCORRECT  # a data error; scorers leave such items out
        if task == "blank":
            return grade_blank(gold, prediction)
        return grade_answer(gold, prediction)


# -- Video SimpleQA ------------------------------------------------------------------------

def grade_answer(gold: str, prediction: str) -> str:
    text = w.without_gloss((prediction or "").strip())
    if not text:
        return NOT_ATTEMPTED
    said = w.stance(text)
    if said in ("refusal", "question"):
        return NOT_ATTEMPTED
    if said == "hedge":
        return INCORRECT
    if w.normal(text) == w.normal(gold):
        return CORRECT
    other_form = aliases.grade(gold, text)  # "Frank O. Gehry", "Saturn 5", "21/08/2017", "Mg", "USSR"
    if other_form is not None:
        return other_form
    if w.numeric(gold):
        return _grade_amount(gold, text)
    return _grade_text(gold, text)


# compiled once: the matcher runs these on every answer
_DIGIT_RE = re.compile(r"\d")
_OR_RE = re.compile(r"\bor\b|\beither\b", re.I)
_ORDINAL_NUMBER_RE = re.compile(r"\s*\d+(?:st|nd|rd|th)\s*")
_ROMAN_YEAR_RE = re.compile(r"\s*[MDCLXVI]{3,}\s*")
_NEGATIVE_RE = re.compile(r"\bbelow (?:sea level|zero)\b|\bunder par\b|\bbc\b|\bbce\b|b\.c\.|before christ")


def _grade_amount(gold: str, text: str) -> str:
    day = dates.parse_date(gold)
    if day is not None:
        if _OR_RE.search(q.fold(text)):
            return INCORRECT  # "25 or 26 April 1986": two days offered
        readings = dates.numeric_readings(text)  # "04/08/2024": either order may be meant
        if readings:
            return CORRECT if day in readings else INCORRECT
        said = dates.parse_date(text)
        if said is not None:
            return CORRECT if said == day else INCORRECT
        return UNSCORED if _DIGIT_RE.search(text) else NOT_ATTEMPTED
    roman = not _DIGIT_RE.search(gold) or bool(_ORDINAL_NUMBER_RE.fullmatch(gold))  # "XIV", "Ninth"
    golds = _signed(gold, roman=roman)
    said = _signed(text, roman=roman or bool(_ROMAN_YEAR_RE.fullmatch(text)))  # "MCMXI" for 1911
    if not golds:
        return _grade_text(gold, text)
    target = golds[0]
    if _era_differs(gold, text):
        return INCORRECT  # "5th century CE" for 5th century BCE, "AD 776" for 776 BC
    span = dates.period(text)
    if span is not None and dates.period(gold) is None and target.unit is None:
        return NOT_ATTEMPTED if span[0] <= target.value <= span[1] else INCORRECT  # "the 1990s" for 1995
    bound = w.vague_bound(text)
    if bound is not None:
        return _grade_bound(target, bound)
    if not said:
        loose = w.vague(text) or len(text.split()) > 2 or _LOOSE.match(text)
        return NOT_ATTEMPTED if loose else INCORRECT  # "Very tall." for 828 m
    verdicts = [q.compare(target, s) for s in said]
    if "match" in verdicts:
        if _rivals(target, said, verdicts, text):
            return INCORRECT
        # what the amount is of must be said too: "Explorer 1" is not Sputnik 1
        said_words = set(w.normal(text).split())
        named = w.named_words(gold)
        missing = [x for x in named if not set(w.normal(x).split()) <= said_words]
        if not missing:
            return CORRECT
        return INCORRECT if len(missing) == len(named) else UNSCORED  # "Beijing 2008": a short name?
    if w.approximate(text) or w.vague(text):
        return NOT_ATTEMPTED
    return INCORRECT if "differs" in verdicts else UNSCORED


def _signed(text: str, roman: bool = False) -> list[q.Quantity]:
    """Amounts with their sign in words applied: "430 m below sea level" is -430 m, a BC
    year is negative."""
    found = q.quantities(text, roman=roman)
    folded = q.fold(text).lower()
    flip = bool(_NEGATIVE_RE.search(folded))
    return [q.Quantity(-x.value, x.step, x.unit, x.unknown_unit) if flip and x.value > 0 else x for x in found]


def _era_differs(gold: str, text: str) -> bool:
    said = dates.era(text)
    return said is not None and said != (dates.era(gold) or "AD")


_DASH_RE, _BRACKETED_RE = re.compile(r"\s[—–-]\s"), re.compile(r"\([^()]*\)")
_RIVAL_RE = re.compile(r"\bor\b|\beither\b|/|–")


def _rivals(target: q.Quantity, said: list[q.Quantity], verdicts: list[str], text: str) -> bool:
    """Another amount offered beside the right one: "12 or 13", "1994-1995", or any other
    amount of the gold's order (a day of the month beside a year is context, not a rival)."""
    others = [s for s, v in zip(said, verdicts) if v != "match"]
    if not others:
        return False
    core = _DASH_RE.split(_BRACKETED_RE.sub(" ", q.fold(text)))[0]
    if len(q.quantities(core)) < len(said):  # "88 keys (52 white and 36 black)": the detail is not a rival
        others = others[:max(0, len(q.quantities(core)) - 1)]
        if not others:
            return False
    if _RIVAL_RE.search(q.fold(text)):
        return True
    base = abs(target.si()) or 1.0
    return any(base / 10 <= abs(o.si()) <= base * 10 for o in others if q.compare(target, o) != "unknown")


def _grade_bound(target: q.Quantity, bound: tuple[str, str]) -> str:
    """A bound the gold breaks is wrong ("less than 500 m" for 1.6 km); one it fits says too
    little ("over 100 m" for 128 m)."""
    kind, rest = bound
    limits = q.quantities(rest)
    if not limits or q.compare(target, limits[-1]) == "unknown":
        return NOT_ATTEMPTED
    low, high = limits[0].si(), limits[-1].si()
    value = target.si()
    breaks = {"more": value < low, "less": value > high, "between": not low <= value <= high}[kind]
    return INCORRECT if breaks else NOT_ATTEMPTED


_NEGATION = frozenset("not no never isnt wasnt nor neither".split())


_WIDER_PLACE_RE = re.compile(r"(?:in|at|near|from|on)\s", re.I)
_ITEM_SPLIT_RE = re.compile(r",|;|\band\b|&")
_PARTS_SPLIT_RE = re.compile(r"[;,]")
_CHOICE_RE = re.compile(r"\bor\b|\beither\b|/", re.I)
_JOINED_RE = re.compile(r"\s(?:and|&|\+)\s")
_NAMES_JOINED_RE = re.compile(r"\b[A-Z][\w'’.-]*\s+(?:and|&|\+)\s+[A-Z]")


def _grade_text(gold: str, text: str) -> str:
    gold_words, said_words = w.normal(gold).split(), w.normal(text).split()
    if not gold_words:
        return INCORRECT
    at = w.find(gold_words, said_words)
    if at is not None:
        return _grade_within(gold, gold_words, text, said_words, at)
    if w.acronym_of(gold, text):
        return CORRECT
    if w.vague(text):
        return NOT_ATTEMPTED  # "somewhere in Central Europe", "a painter of the early Renaissance"
    if _WIDER_PLACE_RE.match(text):
        return UNSCORED  # "in Japan" for Kyoto: a wider place (too little), or another one
    if "," in gold and w.normal(gold.split(",")[0]) == w.normal(text):
        return CORRECT  # "Valencia" for Valencia, Spain: the place, without where it lies
    if _same_items(gold, text):
        return CORRECT  # "Mexico, Canada" for Canada and Mexico
    if [w.singular(x) for x in said_words] == [w.singular(x) for x in gold_words]:
        return CORRECT  # "the Incas" for Inca
    if set(said_words) < set(gold_words):
        return _grade_part(gold_words, said_words)
    if set(said_words) & set(gold_words):
        differ = set(said_words) ^ set(gold_words)
        # "Elizabeth I" / Elizabeth II, "vitamin C" / vitamin A: the same name, another number or letter
        if differ and all(w.numeral(x) or len(x) == 1 for x in differ):
            return INCORRECT
        # "Pierre Curie" for Marie Curie, "French Defence" for Sicilian Defence: the same kind of
        # name, another one in the place that tells them apart
        if _described(text):
            return NOT_ATTEMPTED  # "A baleen whale." for Blue whale
        return INCORRECT if names.swapped(gold_words, said_words) else UNSCORED
    return _grade_other(gold, text)


def _items(text: str) -> set[str]:
    return {w.normal(x) for x in _ITEM_SPLIT_RE.split(q.fold(text)) if x.strip()}


def _same_items(gold: str, text: str) -> bool:
    """The gold lists several things, and the answer lists the same, in any order."""
    items = _items(gold)
    return len(items) > 1 and items == _items(text)


def _grade_within(gold: str, gold_words: list[str], text: str, said_words: list[str], at: int) -> str:
    """The gold's words stand in a longer answer: extra detail, or another thing?"""
    before, after = said_words[:at], said_words[at + len(gold_words):]
    if (_NEGATION & set(before[-2:])) or (_NEGATION & set(after[:1])):
        return INCORRECT
    parts = [x for x in _PARTS_SPLIT_RE.split(q.fold(text)) if x.strip()]
    listed = len(parts) >= 3 and all(len(x.split()) <= 3 for x in parts)  # "bronze; copper; brass"
    if listed and w.normal(parts[0]) == w.normal(gold) and all(x.strip()[:1].isupper() for x in parts[1:]):
        listed = False  # "Granada, Andalusia, Spain": where the gold lies, not rivals
    if _CHOICE_RE.search(q.fold(text)) or listed or (
            _JOINED_RE.search(q.fold(text)) and "and" not in gold_words and _names_beside(text)):
        return INCORRECT  # one of several candidates
    glued = _glued_words(gold, text)
    if glued == "name":
        return INCORRECT  # part of another name: "Queen Latifah", "New York", "Saturn V"
    if glued == "place":
        return UNSCORED  # "Paris, Texas" or "Bilbao, Spain": another place, or the gold placed
    return UNSCORED if aliases.unverified_detail(gold, text) else CORRECT


def _names_beside(text: str) -> bool:
    """Capitalised names joined by "and" ("Sydney and Melbourne")."""
    return bool(_NAMES_JOINED_RE.search(q.fold(text)))


def _glued_words(gold: str, text: str) -> str | None:
    """How the answer continues the gold where it stands, as written: "name" (a capitalised
    word or a numeral right before or after it, not a title word; "Guinea-Bissau" for Guinea), "place" (a comma, then
    one or two capitalised words, to the end), or None (sentence context or detail)."""
    folded = re.sub(r"\bSt\.?\s", "Saint ", re.sub(r"\bMt\.?\s", "Mount ", w.strip_accents(q.fold(text))))
    pattern = r"[\s\-.]+".join(re.escape(x) for x in w.strip_accents(q.fold(gold)).split())
    m = re.search(pattern, folded, re.I)
    if not m:
        return None
    ahead = re.match(rf"(?:\s+|-(?=[A-Z]))([A-Z][\w'’-]*|[IVX]+\b|\d+\b|{names.NAME_PARTICLES}\s+[A-Z])", folded[m.end():])
    behind = re.search(r"(?:^|\s)([A-Z][\w'’-]*)\s+$", folded[:m.start()])
    named_ahead = ahead is not None and ahead[1].lower().rstrip(".") not in names.TITLES | names.KINDS
    named_behind = behind is not None and behind[1].lower() not in names.TITLES | names.OPENERS | names.PHASES \
        and not (behind[1].lower() in names.OPENERS and _sentence_start(folded, behind.start(1)))
    if named_ahead or named_behind:
        return "name"
    if re.fullmatch(r"(?:,\s*(?:[A-Z][\w'’.-]*\s*){1,3}){1,3}\.?", folded[m.end():]):
        return "place"  # "Bilbao, Spain", "Granada, Andalusia, Spain"
    return None




def _sentence_start(text: str, at: int) -> bool:
    return not text[:at].strip() or text[:at].rstrip().endswith((".", "!", "?", ":"))


def _grade_part(gold_words: list[str], said_words: list[str]) -> str:
    """Only part of the gold: key information missing, nothing contradicted, so NOT_ATTEMPTED
    as the paper's grader has it ("Gabriel" for Gabriel García Márquez, "Andre Geim" for two
    laureates, "Ivan" for Ivan IV), unless all that is missing is a title ("Mount")."""
    missing = [x for x in gold_words if x not in said_words]
    if all(x in names.TITLES | names.GENERIC for x in missing) and said_words == [x for x in gold_words if x in said_words]:
        return CORRECT  # a title or the kind of thing left off: "Kilimanjaro", "Andromeda"
    if said_words == gold_words[-1:] and 1 < len(gold_words) <= 4 and "and" not in gold_words:
        return UNSCORED  # a surname alone: often the name in use ("Picasso"), sometimes not
    return NOT_ATTEMPTED


# "Very tall.", "Extremely cold.", "One of Saturn's moons.", "Butterflies.": a quality, a member
# of a group, or a kind in the plural, not which one
_LOOSE = re.compile(r"\s*(?:(?:very|extremely|quite|really|fairly|rather|super)\s+[a-z]+|one\s+of\b.*"
                    r"|[a-z]{2,}(?:ies|es|[^us]s))\s*\.?\s*$", re.I)
# a Latin binomial ("Panthera uncia"): a species' scientific name, which the gold's common
# name may or may not be
_BINOMIAL = re.compile(r"\s*(?:the\s+answer\s+is\s+)?[A-Z][a-z]{2,}\s+[a-z]{3,}(?:us|a|um|is|ii|i|ae|ensis|oides|"
                       r"atus|ata|alis|ica|icus|ens|ex|ix|ax|on|os)\.?\s*$", re.I)


_QUALITY_RE = re.compile(r"\s*(?:very|extremely|quite|really|fairly|rather|super|one\s+of)\b", re.I)
_INNER_NAME_RE = re.compile(r"(?<!^)\b[A-Z][a-z]")


def _grade_other(gold: str, text: str) -> str:
    """No word of the gold: another answer, unless another script, a near spelling (another
    language?), a scientific name, or a description that names nothing."""
    if any(ord(c) > 0x24F and unicodedata.category(c).startswith("L") for c in text):
        return UNSCORED
    if _BINOMIAL.match(text) and not _BINOMIAL.match(gold) and text.strip()[:1].isupper():
        return UNSCORED
    said = w.normal(text)
    if names.spelled_alike(said, w.normal(gold)):
        return UNSCORED  # "cetaceans" for Cetacea: another form, or another word?
    plural_gold = w.singular(w.normal(gold)) != w.normal(gold)
    if _LOOSE.match(text) and not text.strip()[:1].isupper() and not plural_gold or _QUALITY_RE.match(text):
        return NOT_ATTEMPTED
    inner_names = _INNER_NAME_RE.findall(q.fold(text).strip())
    if len(said.split()) >= 3 and not inner_names and not _DIGIT_RE.search(text):
        return NOT_ATTEMPTED  # a description, not a name: "a woman receiving an award"
    if _described(text):
        return NOT_ATTEMPTED  # "A Baroque composer", "A river in Paris": a kind of thing, not which
    return INCORRECT


def _described(text: str) -> bool:
    """"a/an" and a common noun, with nothing but adjectives before it and a place or
    detail after ("A string instrument", "An NBA team", "A river in Paris", "It's a Korean
    dish.")."""
    m = _DESCRIBED_RE.match(q.fold(text))
    return m is not None and not _DIGIT_RE.search(m[1]) and m[1].split()[-1].islower()


_DESCRIBED_RE = re.compile(
    r"\s*(?:(?:it['’]?s|it\s+is|this\s+is|that['’]?s|this\s+looks\s+like|(?:the|this|that)\s+[a-z]+\s+(?:is|was|belongs\s+to|"
    r"comes\s+from))\s+)?(?:an?|some)\s+(?:(?:kind|type|sort)\s+of\s+)?([^,;.()]+?)"
    r"(?:\s+(?:in|of|from|on|at|with|that|which|near)\b.*)?\s*\.?\s*$", re.I)


__all__ = ["NormalizedMatchJudge", "grade_answer", "grade_blank", "normalize_text"]
