"""`extract_blanks`: the fillers of ExpVid's level-3 fill-in-the-blank answers, from
numbered items, list literals, ordinal blanks, quoted words or a comma list.
"""

from __future__ import annotations

import json
import re

from evaluator.answers.common import MAX_LITERAL, boxed_spans, clean_boxed, literal_value, prep

# A comma separates items unless it sits between two digits ("1,000",
# "2,4-D").
_COMMA_SPLIT_RE = re.compile(r"(?<![0-9]),|,(?![0-9])")
# Item numbering: "1. a", "(1) a", "[1] a", "Blank 1: a", "1) a".
_ENUM_RE = re.compile(
    r"""(?=[bB(\[0-9])
        (?:
          (?i:blank)\s*\#?\s*(?P<b>[0-9]{1,2})\s*[:：=.)\-]?
        | \((?P<p>[0-9]{1,2})\)
        | \((?P<a>[a-h])\)
        | \[(?P<k>[0-9]{1,2})\]
        | (?P<d>[0-9]{1,2})[.)](?=\s)
        )""",
    re.X,
)
# Applied to the lower-cased text; the lookahead lets the engine skip to
# plausible first letters (~4x faster than IGNORECASE on the original).
_BLANK_MARK_RE = re.compile(
    r"""(?=[abfmtw])
        (?:(?:final\s+)?answers?|blanks?|fill(?:ed|s)?(?:\s+in)?(?:\s+the\s+blanks?)?|(?:missing\s+)?words?|terms?)
        \b[^\n]{0,30}?(?:\bare\b|\bis\b|\bwith\b|[:：=])[ \t]*[:：]?[ \t]*""",
    re.X,
)
_ITEM_STRIP = " \t\r\n\"'`*_“”‘’«»"


def _clean_item(s: str) -> str:
    s = s.strip(_ITEM_STRIP)
    if "\\" in s or "$" in s:
        s = clean_boxed(s)
    low = s[:4].lower()
    if low.startswith("and "):
        s = s[4:]
    elif low.startswith("or "):
        s = s[3:]
    s = s.strip(_ITEM_STRIP)
    while s and s[-1] in ".;,":
        s = s[:-1].rstrip(_ITEM_STRIP)
    return s.strip(_ITEM_STRIP)


def _numbered_items(s: str) -> list[str] | None:
    """Items of the last numbered run 1, 2, 3, ... in ``s``, else None."""
    marks = []
    for m in _ENUM_RE.finditer(s):
        st = m.start()
        if st and not (s[st - 1].isspace() or s[st - 1] in "*_"):
            continue  # "x1." or "H(2)" is not an item number
        num = m.group("b") or m.group("p") or m.group("k") or m.group("d")
        idx = int(num) if num else ord(m.group("a")) - 96  # (a) -> 1
        marks.append((idx, m.start(), m.end(), m.group("b") is not None))
    if not marks:
        return None
    starts = [i for i, mk in enumerate(marks) if mk[0] == 1]
    if not starts:
        return None
    run = [marks[starts[-1]]]
    for mk in marks[starts[-1] + 1:]:
        if mk[0] == run[-1][0] + 1:
            run.append(mk)
    if len(run) == 1 and not marks[starts[-1]][3]:
        return None  # a lone "1." or "(1)" inside prose is not a list
    items = []
    for idx, (_, _, e, _) in enumerate(run):
        stop = run[idx + 1][1] if idx + 1 < len(run) else len(s)
        seg = s[e:stop]
        nl = seg.find("\n", 1 if seg.startswith("\n") else 0)
        first = seg[:nl] if nl >= 0 else seg
        if not first.strip() and nl >= 0:
            # "Blank 1:\n  sodium": value on the next line
            rest = seg[nl + 1:].strip().split("\n", 1)[0]
            first = rest
        items.append(_clean_item(first))
    items = [x for x in items if x]
    return items or None


def _split_items(s: str, n: int | None) -> list[str]:
    s = s.strip()
    if not s:
        return []
    if s[0] == "[" and s[-1] == "]":
        r = _parse_list_literal(s)
        if r is not None:
            return r
        s = s[1:-1]
    num = _numbered_items(s)
    if num:
        return num
    if ";" in s:
        parts = s.split(";")
    elif "," in s and _COMMA_SPLIT_RE.search(s):
        parts = _COMMA_SPLIT_RE.split(s)
    elif "\n" in s:
        parts = s.split("\n")
    else:
        parts = [s]
    items = [_clean_item(p) for p in parts]
    # An empty slot between separators is a skipped blank: keep its place so the
    # later fillers stay aligned with their blanks (trailing separators are noise).
    while items and not items[-1]:
        items.pop()
    # "a, b and c" with three blanks: the last "and" separates too.
    if n and len(items) == n - 1 and items and " and " in items[-1]:
        head, tail = items[-1].rsplit(" and ", 1)
        items[-1:] = [x for x in (_clean_item(head), _clean_item(tail)) if x]
    elif n and n >= 2 and len(items) == 1:
        for sep in (" and ", " / ", " & "):
            if sep in items[0]:
                items = [x for x in (_clean_item(p) for p in items[0].split(sep)) if x]
                break
    return items


def _parse_list_literal(s: str) -> list[str] | None:
    if len(s) > MAX_LITERAL:
        return None
    try:
        try:
            v = json.loads(s)
        except (ValueError, RecursionError):
            v = literal_value(s)  # single quotes; never executes code
        if not isinstance(v, (list, tuple)):
            return None
        out = []
        for x in v:
            if isinstance(x, (list, tuple, dict)):
                return None
            out.append(_clean_item(str(x)))
    except Exception:  # noqa: BLE001 - see MAX_LITERAL
        return None
    return [x for x in out if x] or None


_ORDINALS = {w: i + 1 for i, w in enumerate("first second third fourth fifth sixth seventh eighth".split())}


_ORDINALS.update({"1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8})


# "the first blank is heat and the second blank is pressure"
_ORDINAL_BLANK_RE = re.compile(
    r"""\b(?:(?P<o>first|second|third|fourth|fifth|sixth|seventh|eighth|1st|2nd|3rd|4th|5th|6th|7th|8th)
           (?:\s+(?:blank|one|gap))?
         |blank\s*\#?\s*(?P<n>[0-9]{1,2}))
        \s*(?:is|was|should\s+be|would\s+be|=|:|：)\s*(?:filled\s+(?:in\s+)?with\s+)?
        (?P<v>[^\n,;]{1,80}?)
        (?=\s*(?:$|\n|[,;]|\.(?![0-9])|\s+and\s+(?:the\s+)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|\d|blank)))""",
    re.X | re.I,
)
# Double-quoted phrases (straight or curly); single quotes are apostrophes too often.
_QUOTED_RE = re.compile(r'"([^"\n]{1,80})"|“([^”\n]{1,80})”')


def _ordinal_blanks(t: str) -> list[str] | None:
    found = {}
    for m in _ORDINAL_BLANK_RE.finditer(t):
        o = m.group("o")
        idx = _ORDINALS[o.lower()] if o else int(m.group("n"))
        v = _clean_item(m.group("v"))
        if v:
            found[idx] = v  # a later statement about the same blank wins
    if len(found) < 2:
        return None
    return [found[k] for k in sorted(found)]


def _boxed_candidates(t: str, spans: list, n: int | None):
    """Candidate item lists from the last group of adjacent boxes, most trusted first."""
    # Adjacent boxes ("\boxed{a}, \boxed{b}") are one blank each.
    group = [spans[-1]]
    for sp in reversed(spans[:-1]):
        gap = t[sp[1] + 1:group[0][0]]
        # gap holds "}" ... "\boxed{" of the next box; keep only short
        # separators such as ", " or " and " between them.
        if len(gap) <= 40 and "\n\n" not in gap:
            group.insert(0, sp)
        else:
            break
    contents = [clean_boxed(t[a:b]) for a, b in group]
    last_items = _split_items(contents[-1], n)
    multi = [c for c in (_clean_item(x) for x in contents) if c]
    if n is not None and n >= 2 and len(multi) >= n and len(last_items) < n:
        yield multi[-n:]
    elif n is None and len(multi) >= 2 and len(last_items) == 1:
        yield multi
    yield last_items


def _blank_candidates(t: str, low: str, n: int | None):
    """Candidate item lists, most trusted first (lazily, to stop early)."""
    if "\\boxed" in t or "\\fbox" in t:
        spans = boxed_spans(t, last_only=False)
        if spans:
            yield from _boxed_candidates(t, spans, n)
            return  # a box is the committed answer; don't guess from prose
    if "[" in t:
        j = t.rfind("]")
        i = t.rfind("[", 0, j) if j > 0 else -1
        if i >= 0 and ("," in t[i:j] or '"' in t[i:j] or "'" in t[i:j]):
            r = _parse_list_literal(t[i:j + 1])
            if r:
                yield r
    for m in reversed(list(_BLANK_MARK_RE.finditer(low))):
        e = m.end()
        para = t.find("\n\n", e + 1)
        span = t[e:para if para >= 0 else len(t)].strip()
        if not span:
            continue
        num = _numbered_items(span)
        if num:
            yield num
            continue
        nl = span.find("\n")
        yield _split_items(span if nl < 0 else span[:nl], n)
        break
    if "blank" in low or "first" in low or "1st" in low:
        r = _ordinal_blanks(t)
        if r:
            yield r
    num = _numbered_items(t)
    if num:
        yield num
    lines = [ln for ln in t.split("\n") if ln.strip()]
    if lines:
        last = lines[-1]
        if '"' in last or "“" in last:
            quoted = [c for c in (_clean_item(a or b) for a, b in _QUOTED_RE.findall(last)) if c]
            if quoted and (n is None or len(quoted) == n) and len(quoted) < len(last) // 2:
                yield quoted
        yield _split_items(last, n)
        if n and 2 <= len(lines) <= n and all(len(ln) <= 80 for ln in lines):
            yield [c for c in (_clean_item(ln) for ln in lines) if c]


def extract_blanks(text: str, n: int | None = None) -> list[str] | None:
    """Fill-in-the-blank answers (strings) for a question with ``n`` blanks.

    Sources, most trusted first: the last \\boxed{} (adjacent boxes count as
    one blank each), a JSON/Python list, the span after an answer marker,
    numbered items ("1. a\\n2. b", "(1) a (2) b", "Blank 1: a"), the last line.
    Splitting: on ';' when present, else on commas that are not between two
    digits (keeps "1,000" and "2,4-D"); quotes, markdown, trailing periods
    and a leading "and " are stripped.  With ``n`` given, the first candidate
    with exactly ``n`` items wins, else the most trusted non-empty one.
    """
    t, low = prep(text)
    if not t:
        return None
    first = None
    for items in _blank_candidates(t, low, n):
        if not items:
            continue
        if n is None or len(items) == n:
            return items
        if first is None:
            first = items
    return first
