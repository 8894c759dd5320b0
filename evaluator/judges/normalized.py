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
- a numeric gold: the answer's amounts, in any unit (evaluator/judges/quantities.py),
  must hold one that equals the gold to its last significant figure, of the same sign
  and era, and no rival amount ("12 or 13"): CORRECT; a bound that the gold breaks
  ("less than 500 m" for 1.6 km) or another amount: INCORRECT; a bound or a loose amount
  the gold fits ("over 100 m", "hundreds", "around 1900"): NOT_ATTEMPTED; units of a kind
  it cannot relate: UNSCORED. A full date must be the same day;
- a text gold: the same words (accents, case, punctuation, articles, "Mt."/"Mount"
  aside) or the gold within a longer answer: CORRECT, unless negated, one of several
  candidates, or part of another name ("Queen Latifah" for Queen, "Saturn V" for
  Saturn): INCORRECT; an acronym of the gold or the gold of an acronym: CORRECT; only
  part of the gold: INCORRECT (a title dropped, "Kilimanjaro" for Mount Kilimanjaro,
  is CORRECT; a surname alone is UNSCORED); words the gold does not have: INCORRECT,
  except an answer in another script or spelled much like the gold (another language?)
  and a loose description ("a painter of the Renaissance": NOT_ATTEMPTED).

ExpVid blanks (correct or not, per blank): the same amounts rule (ratios too); the same
words, singular or plural, a one-letter slip in a long word, an acronym or a genus
abbreviation ("E. coli"): CORRECT; the gold with a conjunction or a negating prefix
("non-reducing"), or only part of it (a more general term): INCORRECT; the gold with
other modifiers: UNSCORED; other words: INCORRECT when both are plain words, UNSCORED
when either looks like a code, formula or brand name ("NaOH", "MS-222").
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Sequence

from evaluator.judges import lexicon
from evaluator.judges import quantities as q
from evaluator.judges import wording as w
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, UNSCORED, Judgement, JudgeRequest


def normalize_text(text: str) -> str:
    """The matcher's normal form of an answer (evaluator/judges/wording.py: normal)."""
    return w.normal(text)


class NormalizedMatchJudge:
    """See the module docstring. judge_id "normalized-match@3": bump the suffix whenever a
    rule changes (cached judgements are keyed by it)."""

    judge_id = "normalized-match@3"
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
    text = _without_gloss((prediction or "").strip())
    if not text:
        return NOT_ATTEMPTED
    said = w.stance(text)
    if said in ("refusal", "question"):
        return NOT_ATTEMPTED
    if said == "hedge":
        return INCORRECT
    if w.normal(text) == w.normal(gold):
        return CORRECT
    if _numeric(gold):
        return _grade_amount(gold, text)
    return _grade_text(gold, text)


def _numeric(gold: str) -> bool:
    """A gold that is an amount, a year or a date: digits and at most a few unit words (or
    a Roman numeral or an ordinal: "XIV", "Ninth")."""
    if re.fullmatch(r"\s*[IVXLC]{2,}\s*", gold) or re.fullmatch(r"\s*(?:\d+(?:st|nd|rd|th)|[a-z]+th|first|"
                                                               r"second|third)\s*", gold, re.I):
        return True
    folded = q.fold(gold)
    return bool(re.search(r"\d", folded)) and (q.parse_date(gold) is not None or
                                                 len(re.findall(r"[^\W\d_]{2,}", folded)) <= 3)


def _grade_amount(gold: str, text: str) -> str:
    day = q.parse_date(gold)
    if day is not None:
        said = q.parse_date(text)
        if said is not None:
            return CORRECT if said == day else INCORRECT
        return UNSCORED if re.search(r"\d", text) else NOT_ATTEMPTED
    roman = not re.search(r"\d", gold) or bool(re.fullmatch(r"\s*\d+(?:st|nd|rd|th)\s*", gold))  # "XIV", "Ninth"
    golds = _signed(gold, roman=roman)
    said = _signed(text, roman=roman)
    if not golds:
        return _grade_text(gold, text)
    target = golds[0]
    if _era_differs(gold, text):
        return INCORRECT  # "5th century CE" for 5th century BCE, "AD 776" for 776 BC
    span = q.period(text)
    if span is not None and q.period(gold) is None and target.unit is None:
        return NOT_ATTEMPTED if span[0] <= target.value <= span[1] else INCORRECT  # "the 1990s" for 1995
    bound = w.vague_bound(text)
    if bound is not None:
        return _grade_bound(target, bound)
    if not said:
        return NOT_ATTEMPTED if w.vague(text) or len(text.split()) > 2 else INCORRECT
    verdicts = [q.compare(target, s) for s in said]
    if "match" in verdicts:
        return INCORRECT if _rivals(target, said, verdicts, text) else CORRECT
    if w.approximate(text) or w.vague(text):
        return NOT_ATTEMPTED
    return INCORRECT if "differs" in verdicts else UNSCORED


def _signed(text: str, roman: bool = False) -> list[q.Quantity]:
    """Amounts with their sign in words applied: "430 m below sea level" is -430 m, a BC
    year is negative."""
    found = q.quantities(text, roman=roman)
    folded = q.fold(text).lower()
    flip = bool(re.search(r"\bbelow (?:sea level|zero)\b|\bunder par\b|\bbc\b|\bbce\b|b\.c\.|before christ",
                          folded))
    return [q.Quantity(-x.value, x.step, x.unit, x.unknown_unit) if flip and x.value > 0 else x for x in found]


def _era_differs(gold: str, text: str) -> bool:
    said = q.era(text)
    return said is not None and said != (q.era(gold) or "AD")


def _rivals(target: q.Quantity, said: list[q.Quantity], verdicts: list[str], text: str) -> bool:
    """Another amount offered beside the right one: "12 or 13", "1994-1995", or any other
    amount of the gold's order (a day of the month beside a year is context, not a rival)."""
    others = [s for s, v in zip(said, verdicts) if v != "match"]
    if not others:
        return False
    if re.search(r"\bor\b|\beither\b|/|–", q.fold(text)):
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


_TITLES = frozenset("mount lake river saint cape sir doctor president king queen fort port emperor empress pope "
                    "general admiral captain prince princess lord lady mr mrs ms professor prof".split())
# what a place or a body is, written after its name: "the Louvre Museum" is the Louvre
_KINDS = frozenset("museum cathedral palace castle basilica church temple mosque stadium arena building airport "
                   "station university college hotel hospital company band orchestra".split())
_NEGATION = frozenset("not no never isnt wasnt nor neither".split())


def _grade_text(gold: str, text: str) -> str:
    gold_words, said_words = w.normal(gold).split(), w.normal(text).split()
    if not gold_words:
        return INCORRECT
    at = _find(gold_words, said_words)
    if at is not None:
        return _grade_within(gold, gold_words, text, said_words, at)
    if _acronym_of(gold, text):
        return CORRECT
    if w.vague(text):
        return NOT_ATTEMPTED  # "somewhere in Central Europe", "a painter of the early Renaissance"
    if re.match(r"(?:in|at|near|from|on)\s", text, re.I):
        return UNSCORED  # "in Japan" for Kyoto: a wider place (too little), or another one
    if "," in gold and w.normal(gold.split(",")[0]) == w.normal(text):
        return CORRECT  # "Valencia" for Valencia, Spain: the place, without where it lies
    if _same_items(gold, text):
        return CORRECT  # "Mexico, Canada" for Canada and Mexico
    if set(said_words) < set(gold_words):
        return _grade_part(gold_words, said_words)
    if set(said_words) & set(gold_words):
        differ = set(said_words) ^ set(gold_words)
        # "Elizabeth I" / Elizabeth II, "vitamin C" / vitamin A: the same name, another number or letter
        return INCORRECT if differ and all(_numeral(x) or len(x) == 1 for x in differ) else UNSCORED
    return _grade_other(gold, text)


def _items(text: str) -> set[str]:
    return {w.normal(x) for x in re.split(r",|;|\band\b|&", q.fold(text)) if x.strip()}


def _same_items(gold: str, text: str) -> bool:
    """The gold lists several things, and the answer lists the same, in any order."""
    items = _items(gold)
    return len(items) > 1 and items == _items(text)


def _find(gold: list[str], said: list[str]) -> int | None:
    for i in range(len(said) - len(gold) + 1):
        if said[i:i + len(gold)] == gold:
            return i
    return None


def _grade_within(gold: str, gold_words: list[str], text: str, said_words: list[str], at: int) -> str:
    """The gold's words stand in a longer answer: extra detail, or another thing?"""
    before, after = said_words[:at], said_words[at + len(gold_words):]
    if (_NEGATION & set(before[-2:])) or (_NEGATION & set(after[:1])):
        return INCORRECT
    parts = [x for x in re.split(r"[;,]", q.fold(text)) if x.strip()]
    listed = len(parts) >= 3 and all(len(x.split()) <= 3 for x in parts)  # "bronze; copper; brass"
    if re.search(r"\bor\b|\beither\b|/", q.fold(text), re.I) or listed or (
            " and " in f" {' '.join(said_words)} " and "and" not in gold_words and _names_beside(text)):
        return INCORRECT  # one of several candidates
    glued = _glued_words(gold, text)
    if glued == "name":
        return INCORRECT  # part of another name: "Queen Latifah", "New York", "Saturn V"
    if glued == "place":
        return UNSCORED  # "Paris, Texas" or "Bilbao, Spain": another place, or the gold placed
    return CORRECT


def _names_beside(text: str) -> bool:
    """Capitalised names joined by "and" ("Sydney and Melbourne")."""
    return bool(re.search(r"\b[A-Z][\w'’.-]*\s+(?:and|&)\s+[A-Z]", q.fold(text)))


def _glued_words(gold: str, text: str) -> str | None:
    """How the answer continues the gold where it stands, as written: "name" (a capitalised
    word or a numeral right before or after it, not a title word), "place" (a comma, then
    one or two capitalised words, to the end), or None (sentence context or detail)."""
    folded = w.strip_accents(q.fold(text))
    pattern = r"[\s\-.]+".join(re.escape(x) for x in w.strip_accents(q.fold(gold)).split())
    m = re.search(pattern, folded, re.I)
    if not m:
        return None
    ahead = re.match(r"\s+([A-Z][\w'’-]*|[IVX]+\b|\d+\b)", folded[m.end():])
    behind = re.search(r"(?:^|\s)([A-Z][\w'’-]*)\s+$", folded[:m.start()])
    named_ahead = ahead is not None and ahead[1].lower() not in _TITLES | _KINDS
    named_behind = behind is not None and behind[1].lower() not in _TITLES | _OPENERS \
        and not (behind[1].lower() in _OPENERS and _sentence_start(folded, behind.start(1)))
    if named_ahead or named_behind:
        return "name"
    if re.fullmatch(r",\s*(?:[A-Z][\w'’.-]*\s*){1,3}\.?", folded[m.end():]):
        return "place"
    return None


# words that may open an answer before the gold without being part of its name
_OPENERS = frozenset("the it its it's this that these answer yes in at on by from of a an is was my our his her "
                     "their answer: final".split())


def _sentence_start(text: str, at: int) -> bool:
    return not text[:at].strip() or text[:at].rstrip().endswith((".", "!", "?", ":"))


def _acronym_of(gold: str, text: str) -> bool:
    one, other = (gold, text) if w.is_acronym(gold) else (text, gold)
    return w.is_acronym(one) and len(other.split()) >= 2 and (
        w.initials(other) == one.replace(".", "").lower() or w.abbreviates(one, other))


def _numeral(word: str) -> bool:
    return word.isdigit() or bool(re.fullmatch(r"[ivxl]+", word))


def _grade_part(gold_words: list[str], said_words: list[str]) -> str:
    """Only part of the gold: wrong, unless all that is missing is a title ("Mount")."""
    missing = [x for x in gold_words if x not in said_words]
    if all(x in _TITLES for x in missing):
        return CORRECT
    if any(_numeral(x) for x in missing) or "and" in gold_words or len(said_words) > 1:
        return INCORRECT
    return UNSCORED if said_words == gold_words[-1:] and len(gold_words) <= 4 else INCORRECT


def _grade_other(gold: str, text: str) -> str:
    """No word of the gold: another answer, unless another script, a near spelling (another
    language?), or a description that names nothing."""
    if any(ord(c) > 0x24F and unicodedata.category(c).startswith("L") for c in text):
        return UNSCORED
    said = w.normal(text)
    if difflib.SequenceMatcher(None, said, w.normal(gold)).ratio() >= 0.6:
        return UNSCORED
    names = re.findall(r"(?<!^)\b[A-Z][a-z]", q.fold(text).strip())
    if len(said.split()) >= 3 and not names and not re.search(r"\d", text):
        return NOT_ATTEMPTED  # a description, not a name: "a woman receiving an award"
    return INCORRECT


# -- ExpVid blanks ------------------------------------------------------------------------

def _without_gloss(text: str) -> str:
    """The answer without a parenthesis that only abbreviates it: "Phosphate buffered saline
    (PBS)" is phosphate buffered saline."""
    m = re.fullmatch(r"\s*(.+?)\s*\(([^()]{1,12})\)\s*\.?\s*", text)
    return m[1] if m and w.abbreviates(m[2], m[1]) else text


def grade_blank(gold: str, prediction: str) -> str:
    text = _without_gloss((prediction or "").strip())
    if not text:
        return INCORRECT
    amount = _blank_amount(gold, text)
    if amount is not None:
        return amount
    if w.loose(text) == w.loose(gold):
        return CORRECT
    gold_words, said_words = w.normal(gold).split(), w.normal(text).split()
    chemical = lexicon.same_chemical(gold, text)
    if chemical is not None:
        return CORRECT if chemical else INCORRECT
    if _slip(gold_words, said_words) or _abbreviation(gold, text) or _genus(gold, text):
        return CORRECT
    return _blank_words(gold, text, [w.singular(x) for x in gold_words], [w.singular(x) for x in said_words])


def _abbreviation(gold: str, text: str) -> bool:
    """One side abbreviates the other ("EtBr" / ethidium bromide, "IM" / intramuscularly)."""
    short, long_ = sorted((gold.strip(), text.strip()), key=len)
    if " " in short or len(short) > 8 or not any(c.isupper() for c in short) or w.looks_coded(long_):
        return False  # (two codes, "Cas9" / Cas12a, are never one the other's abbreviation)
    return w.abbreviates(short, long_) or (len(long_.split()) == 1 and len(short) >= 2 and
                                          long_.lower().startswith(short.lower()[:1]) and
                                          w._in_order(short.lower(), long_.lower()) and len(long_) >= 3 * len(short))


def _blank_amount(gold: str, text: str) -> str | None:
    """Blanks that hold an amount (or a ratio): compared as amounts; None for words."""
    ratio_gold, ratio_said = _ratio(gold), _ratio(text)
    if ratio_gold is not None and ratio_said is None:  # "1/1000" for 1:1000
        said_value = q.quantities(text)
        ratio_said = said_value[0].value if len(said_value) == 1 and said_value[0].unit is None else None
    if ratio_gold is not None and ratio_said is not None:
        return CORRECT if abs(ratio_gold - ratio_said) < 1e-6 * max(ratio_gold, 1) else INCORRECT
    plain = q.with_digits(q.fold(gold)).strip()
    if not re.match(r"[-+.]?\d", plain) or len(re.findall(r"[^\W\d_]{3,}", plain)) > 3:
        return None  # words, or a name with digits in it ("IWP2", "L3–L4", "AM1.5G")
    golds, said = q.quantities(gold), q.quantities(text)
    if said and (w.vague_bound(text) or w.approximate(text)) and not (w.vague_bound(gold) or w.approximate(gold)):
        return INCORRECT  # a blank holds the value: "more than 100" is not 100
    if not golds or not said:
        return INCORRECT if golds and not said and not re.search(r"[A-Za-z]{3,}", text) else None
    verdicts = [q.compare(g, s) for g, s in zip(golds, said)] if len(golds) == len(said) else \
        [q.compare(golds[0], said[0])]
    if all(v == "match" for v in verdicts):
        return CORRECT
    return INCORRECT if "differs" in verdicts else UNSCORED


def _ratio(text: str) -> float | None:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*", q.fold(text))
    return float(m[1]) / float(m[2]) if m and float(m[2]) else None


def _slip(gold: list[str], said: list[str]) -> bool:
    """One letter more or less in one long word ("Meisner", "acetonitrille")."""
    if len(gold) != len(said):
        return False
    diffs = [(a, b) for a, b in zip(gold, said) if a != b]
    if len(diffs) != 1:
        return False
    a, b = diffs[0]
    if min(len(a), len(b)) < 7 or abs(len(a) - len(b)) != 1:
        return False
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    # a doubled letter ("Meissner"/"Meisner") or a final e ("Lipofectamin"); never the first
    # letter, which makes another word ("methanol"/"ethanol")
    return any(longer[:i] + longer[i + 1:] == shorter and (longer[i] == longer[i - 1] or
                                                          (i == len(longer) - 1 and longer[i] == "e"))
               for i in range(1, len(longer)))


def _genus(gold: str, text: str) -> bool:
    """"E. coli" for Escherichia coli (and the other way)."""
    def short(x: str) -> tuple[str, str] | None:
        m = re.fullmatch(r"([A-Z])\.\s*([a-z]+)", x.strip())
        return (m[1].lower(), m[2]) if m else None

    def full(x: str) -> tuple[str, str] | None:
        m = re.fullmatch(r"([A-Z])[a-z]+\s+([a-z]+)", x.strip())
        return (m[1].lower(), m[2]) if m else None
    return (short(text) is not None and short(text) == full(gold)) or (short(gold) is not None and
                                                                        short(gold) == full(text))


_NEGATING = ("non", "un", "mis", "anti", "de", "in", "dis", "im", "ir", "il")
# nouns that name what the gold is, without making it another thing: "epoxy resin" is epoxy
_HEADS = frozenset("process method technique procedure protocol approach step stage phase treatment resin trap "
                   "apparatus device system instrument machine reagent solution buffer assay test analysis "
                   "measurement model cells cell medium media".split())


def _blank_words(gold: str, text: str, gold_words: list[str], said_words: list[str]) -> str:
    at = _find(gold_words, said_words)
    if at is not None:
        before, after = said_words[:at], said_words[at + len(gold_words):]
        if {"and", "or", "with", "plus", "not", "no"} & set(before + after):
            return INCORRECT
        if not before and len(after) == 1 and after[0] in _HEADS:
            return CORRECT  # "epoxy resin" for epoxy, "folding process" for folding
        return UNSCORED  # modifiers: "mass bleaching" for bleaching, or a different kind of it
    if _coded_pair_differs(gold, text):
        return INCORRECT
    joined_gold, joined_said = "".join(gold_words), "".join(said_words)
    if any(joined_said == p + joined_gold or joined_gold == p + joined_said for p in _NEGATING):
        return INCORRECT  # "misfolding" for folding
    if set(said_words) < set(gold_words):
        return INCORRECT  # a more general term: "sputtering" for RF magnetron sputtering
    if set(said_words) & set(gold_words):
        return UNSCORED
    if w.is_acronym(gold) != w.is_acronym(text) and len(min(gold, text, key=len).split()) == 1 \
            and not w.looks_coded(max(gold, text, key=len)):
        return INCORRECT  # an acronym against words it does not abbreviate ("PVDF" / nitrocellulose)
    if w.looks_coded(gold) or w.looks_coded(text) or len(said_words) > 3:
        return UNSCORED
    return INCORRECT


def _coded_pair_differs(gold: str, text: str) -> bool:
    """Two codes of one family that differ: two acronyms ("TEM" / SEM, "NMDA" / AMPA), or the
    same letters with other digits ("C18" / C8, "CD4" / CD3, "L3-L4" / L4-L5)."""
    a, b = gold.strip(), text.strip()
    if w.is_acronym(a) and w.is_acronym(b) and w.normal(a) != w.normal(b):
        return True
    letters = [re.sub(r"[^a-z]", "", w.strip_accents(x).lower()) for x in (a, b)]
    digits = [re.sub(r"\D", "", q.fold(x)) for x in (a, b)]
    return bool(letters[0]) and letters[0] == letters[1] and all(digits) and digits[0] != digits[1]


__all__ = ["NormalizedMatchJudge", "grade_answer", "grade_blank", "normalize_text"]
