"""Other ways a short answer may write the gold, for the offline matcher's Video SimpleQA
grading: a person's name with a middle initial ("Frank O. Gehry" for Frank Gehry), a
single-letter Roman numeral ("Saturn 5" for Saturn V), a full date for a year ("21/08/2017"
for 2017), a chemical symbol or formula ("Mg" for magnesium, "H₂" for hydrogen), and a
short form the matcher cannot expand ("USSR", "QLD", "MoMA"), on which it abstains rather
than call a likely abbreviation wrong.
"""

from __future__ import annotations

import re

from evaluator.judges import lexicon
from evaluator.judges import wording as w
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, UNSCORED

_MIDDLE_INITIAL_RE = re.compile(r"\b([A-Z][a-z]+)\s+(?:[A-Z]\.\s*)+(?=[A-Z][a-z])")
_ONE_LETTER_ROMAN = {"I": "1", "V": "5", "X": "10"}
_ROMAN_AFTER_NAME_RE = re.compile(r"(?<=[A-Za-z] )([IVX])\b")
_YEAR_RE = re.compile(r"\s*(\d{3,4})\s*")
# "21/08/2017", "2017-08-21", "August 21, 2017", "21 August 2017"
_DATE_RE = re.compile(r"\s*(?:\d{1,2}[/.-]\d{1,2}[/.-](\d{4})|(\d{4})-\d{1,2}-\d{1,2}|"
                      r"(?:[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]{3,9}\.?,?)"
                      r"\s+(\d{4}))\s*\.?\s*")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_SHORT_FORM_RE = re.compile(r"\s*([A-Z][A-Za-z]{1,5})\.?\s*")


_FORMULA_RE = re.compile(r"\s*([A-Z][a-z]?\d*(?:[A-Z][a-z]?\d*|\(\w+\)\d*)*)\s*\.?\s*")  # "FeS2", "Ca(OH)2"
# a span of years: "1508–1512"
_YEARS_RE = re.compile(r"\s*(\d{3,4})\s*(?:–|—|-|to)\s*(\d{3,4})\s*")
_NUMBER_RE = re.compile(r"\d+")
_CAPITALISED_RE = re.compile(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w'’-]*")


def unverified_detail(gold: str, text: str) -> bool:
    """True if an answer holding the gold adds a number or a name the matcher cannot check
    ("Alexander Fleming, in 1938", "The Beatles, for Let It Be", "Salar de Uyuni, in Chile"):
    extra detail is fine only when it does not contradict, which a string cannot tell."""
    m = _GOLD_THEN_DETAIL_RE.match(w.strip_accents(text).lower())
    plain = w.strip_accents(gold).lower().strip()
    if m is None or m[1] != (plain[4:] if plain.startswith("the ") else plain):
        return False
    rest = text[m.end(1):].strip(" .,;:!")
    return bool(_NUMBER_RE.search(rest)) or any(x.lower() not in _SMALL_WORDS for x in _CAPITALISED_RE.findall(rest))


# the gold opening the answer, then appended detail: "X, ...", "X: ...", "X in ...", "X for ..."
_GOLD_THEN_DETAIL_RE = re.compile(r"\s*(?:the\s+)?(.+?)(?:\s*[,:;(]\s*|\s+(?:in|for|at|from|on)\s+)")
_SMALL_WORDS = frozenset("i it its it's the this that a an is was".split())


def grade(gold: str, text: str) -> str | None:
    """CORRECT, INCORRECT or UNSCORED when one of these forms settles it, else None."""
    formula, said = _FORMULA_RE.fullmatch(gold), _FORMULA_RE.fullmatch(text)
    if formula and said and any(c.isdigit() for c in gold):  # "FeS" is not FeS2
        known = lexicon.CHEMICALS.get(formula[1]), lexicon.CHEMICALS.get(said[1])
        same = formula[1] == said[1] or (known[0] is not None and known[0] == known[1])
        return CORRECT if same else INCORRECT
    span = _YEARS_RE.fullmatch(gold)
    if span and int(span[1]) < int(span[2]):
        given = _NUMBER_RE.findall(text)
        if given == [span[1], span[2]]:
            return CORRECT  # "1508 to 1512"
        if len(given) == 1 and given[0] in (span[1], span[2]):
            return NOT_ATTEMPTED  # "It was begun in 1508.": half of it, nothing against it
    if w.normal(_MIDDLE_INITIAL_RE.sub(r"\1 ", text)) == w.normal(gold) != w.normal(text):
        return CORRECT
    if (_roman(text) != text.strip() or _roman(gold) != gold.strip()) and w.normal(_roman(text)) == w.normal(_roman(gold)):
        return CORRECT
    year, date = _YEAR_RE.fullmatch(gold), _DATE_RE.fullmatch(text)
    if year and date:
        return CORRECT if (date[1] or date[2] or date[3]) == year[1] else INCORRECT
    if "\n" not in text and len(text) <= 12:
        same = lexicon.same_chemical(gold, text.translate(_SUBSCRIPTS).strip(" ."))
        if same:
            return CORRECT
    short = _SHORT_FORM_RE.fullmatch(text)
    if (short and sum(c.isupper() for c in short[1]) >= 2 and not w.is_acronym(gold) and not w.numeric(gold)
            and not set(short[1]) <= set("IVXLCDM") and not w.acronym_of(gold, text)):
        return UNSCORED  # "USSR", "QLD", "MoMA": an abbreviation this matcher cannot expand
    return None


def _roman(text: str) -> str:
    return _ROMAN_AFTER_NAME_RE.sub(lambda m: _ONE_LETTER_ROMAN[m[1]], text.strip())


__all__ = ["grade"]
