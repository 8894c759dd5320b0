"""The offline matcher's rules for ExpVid's level-3 blanks (one blank at a time, correct
or not): the same amount (ratios too), the same words (singular or plural, British or
American spelling), a one-letter slip in a long word, an abbreviation or a genus
abbreviation ("E. coli"), the same chemical (evaluator/judges/lexicon.py): CORRECT; a
bound, the gold with a conjunction or a negating prefix ("non-reducing"), only part of it
(a more general term), another code of the same family ("C8" for C18): INCORRECT; the gold
with modifiers: UNSCORED; other words: INCORRECT when both are plain words, UNSCORED when
either looks like a code, formula or brand name. See evaluator/judges/normalized.py.
"""

from __future__ import annotations

import re

from evaluator.judges import lexicon
from evaluator.judges import quantities as q
from evaluator.judges import wording as w
from evaluator.judges.base import CORRECT, INCORRECT, UNSCORED


def grade_blank(gold: str, prediction: str) -> str:
    text = w.without_gloss((prediction or "").strip())
    if not text:
        return INCORRECT
    amount = _blank_amount(gold, text)
    if amount is not None:
        return amount
    if w.loose(text) == w.loose(gold):
        return CORRECT
    units = q.parse_unit(gold), q.parse_unit(text)
    if all(u is not None and u.dims for u in units):  # "mmol/L" for µmol/L: units alone
        return CORRECT if units[0].dims == units[1].dims and abs(units[0].factor / units[1].factor - 1) < 1e-9 \
            else INCORRECT
    gold_words, said_words = w.normal(gold).split(), w.normal(text).split()
    chemical = lexicon.same_chemical(gold, text)
    if chemical is not None:
        return CORRECT if chemical else INCORRECT
    if _slip(gold_words, said_words) or _abbreviation(gold, text) or _genus(gold, text) \
            or _inflection(gold_words, said_words):
        return CORRECT
    return _blank_words(gold, text, [w.singular(x) for x in gold_words], [w.singular(x) for x in said_words])


def _abbreviation(gold: str, text: str) -> bool:
    """One side abbreviates the other ("EtBr" / ethidium bromide, "IM" / intramuscularly)."""
    short, long_ = sorted((gold.strip(), text.strip()), key=len)
    if " " in short or len(short) > 8 or not any(c.isupper() for c in short) or w.looks_coded(long_):
        return False  # (two codes, "Cas9" / Cas12a, are never one the other's abbreviation)
    return w.abbreviates(short, long_) or (len(long_.split()) == 1 and len(short) >= 2 and
                                          long_.lower().startswith(short.lower()[:1]) and
                                          w.in_order(short.lower(), long_.lower()) and len(long_) >= 3 * len(short))


# compiled once: every blank graded runs them
_NUMBER_FIRST = re.compile(r"[-+.]?\d")
_WORD3 = re.compile(r"[^\W\d_]{3,}")
_NUMBERED_NAME = re.compile(r"\d+(?:,\d+)+-[A-Za-z]")  # "2,4-D"
_LETTERS3 = re.compile(r"[A-Za-z]{3,}")
_RATIO = re.compile(r"\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*")


def _blank_amount(gold: str, text: str) -> str | None:
    """Blanks that hold an amount (or a ratio): compared as amounts; None for words."""
    ratio_gold, ratio_said = _ratio(gold), _ratio(text)
    if ratio_gold is not None and ratio_said is None:  # "1/1000" for 1:1000
        said_value = q.quantities(text)
        ratio_said = said_value[0].value if len(said_value) == 1 and said_value[0].unit is None else None
    if ratio_gold is not None and ratio_said is not None:
        return CORRECT if abs(ratio_gold - ratio_said) < 1e-6 * max(ratio_gold, 1) else INCORRECT
    plain = q.with_digits(q.fold(gold)).strip()
    if not _NUMBER_FIRST.match(plain) or len(_WORD3.findall(plain)) > 3 or _NUMBERED_NAME.match(plain):
        return None  # words, or a name with digits in it ("IWP2", "L3–L4", "AM1.5G", "2,4-D")
    golds, said = q.quantities(gold), q.quantities(text)
    if said and (w.vague_bound(text) or w.approximate(text)) and not (w.vague_bound(gold) or w.approximate(gold)):
        return INCORRECT  # a blank holds the value: "more than 100" is not 100
    if not golds or not said:
        return INCORRECT if golds and not said and not _LETTERS3.search(text) else None
    if len(said) > len(golds):
        return UNSCORED  # more amounts than the blank holds: a list of candidates, or context
    verdicts = [q.compare(g, s) for g, s in zip(golds, said)] if len(golds) == len(said) else \
        [q.compare(golds[0], said[0])]
    if all(v == "match" for v in verdicts):
        return _same_substance(gold, text)
    return INCORRECT if "differs" in verdicts else UNSCORED


def _same_substance(gold: str, text: str) -> str:
    """The amounts match; what they are of must too ("5% BSA" is not 5% non-fat milk, "5% O2"
    not 5% CO2, "cells/mL" not cells/cm²): graded as words. A bare amount for "5% CO2" is
    UNSCORED: the blank may hold only the number."""
    named_gold, named_said = w.named_words(gold), w.named_words(text)
    if not named_gold:
        return CORRECT
    if not named_said:
        return UNSCORED
    gold_rest, said_rest = " ".join(named_gold), " ".join(named_said)
    if q.quantities(gold_rest) or q.quantities(said_rest):
        return UNSCORED  # amounts left in the words: not a plain comparison
    return grade_blank(gold_rest, said_rest)


def _ratio(text: str) -> float | None:
    m = _RATIO.fullmatch(q.fold(text))
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
    # a doubled letter ("Meissner"/"Meisner"), a final e ("Lipofectamin"), or any inner letter
    # of a long word ("phenolphtalein"); never the first letter, which makes another word
    # ("methanol"/"ethanol")
    return any(longer[:i] + longer[i + 1:] == shorter and (longer[i] == longer[i - 1] or len(shorter) >= 10 or
                                                          (i == len(longer) - 1 and longer[i] == "e"))
               for i in range(1, len(longer)))


_ENDINGS = re.compile(r"(?:ation|ing|ion|ed|es|s)$")


def _inflection(gold: list[str], said: list[str]) -> bool:
    """One word, another ending of the same stem: "quenching" for quenched."""
    if len(gold) != 1 or len(said) != 1 or gold == said:
        return False
    a, b = _ENDINGS.sub("", gold[0]), _ENDINGS.sub("", said[0])
    return len(a) >= 5 and a == b


_GENUS_SHORT, _GENUS_FULL = re.compile(r"([A-Z])\.\s*([a-z]+)"), re.compile(r"([A-Z])[a-z]+\s+([a-z]+)")


def _genus(gold: str, text: str) -> bool:
    """"E. coli" for Escherichia coli (and the other way)."""
    def short(x: str) -> tuple[str, str] | None:
        m = _GENUS_SHORT.fullmatch(x.strip())
        return (m[1].lower(), m[2]) if m else None

    def full(x: str) -> tuple[str, str] | None:
        m = _GENUS_FULL.fullmatch(x.strip())
        return (m[1].lower(), m[2]) if m else None
    return (short(text) is not None and short(text) == full(gold)) or (short(gold) is not None and
                                                                        short(gold) == full(text))


_NEGATING = ("non", "un", "mis", "anti", "de", "in", "dis", "im", "ir", "il")
# nouns that name what the gold is, without making it another thing: "epoxy resin" is epoxy
_HEADS = frozenset("process method technique procedure protocol approach step stage phase treatment resin trap "
                   "apparatus device system instrument machine reagent solution buffer assay test analysis "
                   "measurement model cells cell medium media".split())


def _blank_words(gold: str, text: str, gold_words: list[str], said_words: list[str]) -> str:
    at = w.find(gold_words, said_words)
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


_NOT_LETTER, _NOT_DIGIT = re.compile(r"[^a-z]"), re.compile(r"\D")


def _coded_pair_differs(gold: str, text: str) -> bool:
    """Two codes of one family that differ: two acronyms ("TEM" / SEM, "NMDA" / AMPA), or the
    same letters with other digits ("C18" / C8, "CD4" / CD3, "L3-L4" / L4-L5)."""
    a, b = gold.strip(), text.strip()
    if w.is_acronym(a) and w.is_acronym(b) and w.normal(a) != w.normal(b):
        return True
    letters = [_NOT_LETTER.sub("", w.strip_accents(x).lower()) for x in (a, b)]
    digits = [_NOT_DIGIT.sub("", q.fold(x)) for x in (a, b)]
    return bool(letters[0]) and letters[0] == letters[1] and all(digits) and digits[0] != digits[1]


__all__ = ["grade_blank"]
