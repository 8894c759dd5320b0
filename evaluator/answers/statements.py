"""Options that are sets of statements, as Video-MMMU's are ("Statement 1,2,4", "I and III only"):
which set a reply names ("The correct statements are 1, 2 and 4.", "It is only I and III.").
"""

from __future__ import annotations

import re
from functools import lru_cache

from evaluator.answers.common import MISS

# Video-MMMU's multiple-statement options: "Statement 1,2,4"
_STATEMENT_SET_RE = re.compile(r"\s*(?i:statements?)\s*((?:\d{1,2}\s*(?:,|&|(?i:and))\s*)*\d{1,2})\s*")
# "1, 2 and 4", "1, 3, and 5", a bulleted list ("- 2\n- 4")
_NUMBERS = r"[-*•]?\s*((?:\d{1,2}\s*(?:,\s*(?i:and\b)?|&|(?i:and\b)|\n\s*[-*•])\s*)+\d{1,2})\b"
_SAID_SET_RE = re.compile(rf"(?i:true|correct)\s+(?i:statements?)\s*(?:(?i:are)\b|[:：])?\s*{_NUMBERS}"
                          rf"|(?i:statements?)\s*{_NUMBERS}\s*(?i:are|is)\s+(?i:true|correct)"
                          rf"|^\s*(?i:statements?)\s*{_NUMBERS}\s*\.?\s*$")
_NUMBER_RE = re.compile(r"\d{1,2}")


# Roman-numbered statements: options "I only", "I and III only", "I, II and III"; a reply closing
# on "only I and III", "Only statement I is true.", "Statements II and III are correct"
_ROMAN = {"I": "1", "II": "2", "III": "3", "IV": "4", "V": "5"}
_ROMAN_LIST = r"(?:IV|V|I{1,3})(?:\s*(?:,\s*(?:and\s+)?|&|and)\s*(?:IV|V|I{1,3}))*"
_ROMAN_SET_RE = re.compile(rf"\s*(?:(?i:statements?)\s+)?({_ROMAN_LIST})(?:\s+(?i:only))?\s*")
_SAID_ROMAN_RE = re.compile(rf"\b(?i:only)\s+(?:(?i:statements?)\s+)?({_ROMAN_LIST})\b"
                            rf"|^\W*(?i:so|therefore|thus|hence)\b,?\s+(?:(?i:statements?)\s+)?\b({_ROMAN_LIST})\s+(?i:are|is)\s+"
                            rf"(?:(?i:both|all)\s+)?(?i:true|correct)\b")
# an answer that is a set of roman-numbered statements and nothing more ("I, III and IV", "Only I and III
# because ..."), not prose that names statements ("statement I is true, but not II")
ROMAN_ANSWER_RE = re.compile(rf"[\s*]*(?:(?i:statements?)\s+)?(?:(?i:only)\s+)?{_ROMAN_LIST}"
                             rf"(?!\s*(?:,|&|and)\s*(?:IV|V|I{{1,3}})\b)(?:\s+(?i:only))?"
                             rf"(?=[\s*]*(?:[.,;:!)]|$|(?i:because|since|as|are|is)\b))")
_CLOSING_SENTENCE_RE = re.compile(r"[^.!?\n]*[.!?\s]*$")
_ROMAN_RE = re.compile(r"IV|V|I{1,3}")
# a numeral standing alone, not the pronoun ("I think II")
_SAID_ROMAN_NUMERAL_RE = re.compile(r"\b(IV|V|I{1,3})\b(?!['’]|\s+(?i:think|believe|would|guess|am|will|can)\b)")


@lru_cache(maxsize=65536)
def statement_sets(options: tuple, labels: tuple) -> dict:
    """{set of statement numbers: label} where every option is a set of statements
    ("Statement 1,2,4", "I and III only"); empty otherwise."""
    out = {}
    for lab, opt in zip(labels, options):
        m = _STATEMENT_SET_RE.fullmatch(str(opt or ""))
        if m is not None:
            out[frozenset(_NUMBER_RE.findall(m.group(1)))] = lab
        elif (m := _ROMAN_SET_RE.fullmatch(str(opt or ""))) is not None:
            out[frozenset(_ROMAN[x] for x in _ROMAN_RE.findall(m.group(1)))] = lab
        else:
            return {}
    return out


_ROMAN_WORDS = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5"}


@lru_cache(maxsize=65536)
def roman_sets(opts) -> dict:
    """{set of statement numbers: label} where every option is a set of roman-numbered
    statements ("I, II and IV", "III only"), else empty."""
    out = {}
    for ns, lab, _ in opts:
        words = ns.split()
        if not words or any(w not in _ROMAN_WORDS and w not in ("and", "only", "statements", "statement") for w in words):
            return {}
        out[frozenset(_ROMAN_WORDS[w] for w in words if w in _ROMAN_WORDS)] = lab
    return out


def said_statements(content: str) -> frozenset:
    """The statement numbers an answer gives ("I, III and IV", "1, 2 and 4"), as the options hold them."""
    romans = _SAID_ROMAN_NUMERAL_RE.findall(content)
    return frozenset(_ROMAN[x] for x in romans) if romans else frozenset(_NUMBER_RE.findall(content))


def statements_named(t: str, options: tuple, labels: tuple):
    """The option whose statements the reply's last list of statements names ("The correct
    statements are 1, 2 and 4.", "It is only I and III."), or MISS."""
    sets = statement_sets(options, labels)
    found = list(_SAID_SET_RE.finditer(t)) if sets else []
    closing = _CLOSING_SENTENCE_RE.search(t, max(0, len(t) - 300)) if sets else None
    roman = _SAID_ROMAN_RE.search(closing.group()) if closing and "not" not in closing.group() else None
    if roman:
        return sets.get(frozenset(_ROMAN[x] for x in _ROMAN_RE.findall(roman.group(1) or roman.group(2))), MISS)
    if not found:
        return MISS
    last = found[-1]
    return sets.get(frozenset(_NUMBER_RE.findall(last.group(1) or last.group(2) or last.group(3))), MISS)


__all__ = ["ROMAN_ANSWER_RE", "roman_sets", "said_statements", "statement_sets", "statements_named"]
