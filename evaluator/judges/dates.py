"""Dates, periods and eras in short answers, for the offline matcher (evaluator/judges/):

    parse_date("July 4, 1776")      # (1776, 7, 4); "October 2016" -> (2016, 10, 0); "11 September" -> (0, 9, 11)
    period("the 20th century")      # (1901, 2000)
    era("44 BCE")                   # "BC"
"""

from __future__ import annotations

import re

from evaluator.judges.quantities import fold

_MONTHS = {m: i + 1 for i, m in enumerate("january february march april may june july august september october "
                                          "november december".split())}
_MONTH = r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_FORMS = (re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH},?\s+(?P<y>\d{{3,4}})\b"),
               re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{3,4}})\b"),
               re.compile(r"\b(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})\b"),
               re.compile(rf"\b{_MONTH}\s+(?P<y>\d{{4}})\b"),  # a month: day 0
               re.compile(r"\b(?P<m>\d{1,2})[/.-](?P<y>\d{4})\b"),
               re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+{_MONTH}(?!\w)"),  # a day: year 0
               re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"))


def parse_date(text: str) -> tuple[int, int, int] | None:
    """(year, month, day) of a date written in a common form (day 0: a month, "October
    2016", "10/2016"; year 0: a day of the year, "11 September"); None otherwise (a
    day-month order in digits, 07/08/1969, is ambiguous and not read)."""
    low = fold(text).lower()
    for form in _DATE_FORMS:
        m = form.search(low)
        if m:
            month = int(m["m"]) if "m" in m.groupdict() and m["m"] else _month(m["mon"])
            day = int(m["d"]) if "d" in m.groupdict() and m["d"] else 0
            year = int(m["y"]) if "y" in m.groupdict() and m["y"] else 0
            return year, month, day
    return None


def numeric_readings(text: str) -> list[tuple[int, int, int]]:
    """Both readings of a date written in digits with day and month in either order
    ("04/08/2024": 4 August or April 8), when both are dates; else none."""
    m = re.search(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\b", fold(text))
    if not m:
        return []
    a, b, year = int(m[1]), int(m[2]), int(m[3])
    return [(year, month, day) for month, day in ((a, b), (b, a)) if 1 <= month <= 12 and 1 <= day <= 31]


def _month(prefix: str) -> int:
    return next(n for name, n in _MONTHS.items() if name.startswith(prefix[:3]))


def period(text: str) -> tuple[int, int] | None:
    """The years a loose time names: "the 1990s" (1990-1999), "the 20th century" (1901-2000),
    "the 5th century BC" (-500 to -401); None when it names none."""
    folded = fold(text).lower()
    m = re.search(r"\b(\d{3})0s\b", folded)
    if m and m[1].endswith("0"):  # "the 1900s": the decade or the century; the wider reading
        return int(m[1]) * 10, int(m[1]) * 10 + 99
    if m:
        return int(m[1]) * 10, int(m[1]) * 10 + 9
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)\s+century\b", folded)
    if m:
        n = int(m[1])
        first, last = 100 * (n - 1) + 1, 100 * n
        return (-last, -first) if era(text) == "BC" else (first, last)
    return None


_ERA = re.compile(r"\b(bce|bc|b\.c\.e?\.?|ce|ad|a\.d\.|before christ|anno domini)(?!\w)", re.I)


def era(text: str) -> str | None:
    """"BC" or "AD" when the text names an era (BCE and CE count as the same)."""
    m = _ERA.search(fold(text))
    if not m:
        return None
    return "BC" if m[1].lower().replace(".", "").startswith("b") else "AD"



__all__ = ["era", "numeric_readings", "parse_date", "period"]
