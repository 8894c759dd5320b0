"""`extract_number`: the final numeric answer of a response (units, thousands
separators, fractions, LaTeX and number words handled).
"""

from __future__ import annotations

import math
import re

from evaluator.answers.common import prep, last_boxed
from evaluator.answers.markers import M_ANSWER, M_FINAL, is_word_start

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
# One numeric token, with optional parts: a fraction, an e-exponent,
# "× 10^k" (also \times, ·, superscripts) or a power "2^{10}".  What may
# precede it is checked in Python (_num_start_ok) rather than with leading
# lookbehinds, which would stop the engine from skipping quickly to digits.
_NUM_RE = re.compile(
    r"""(?=[-−.0-9])             # lets the engine skip fast to candidate chars
        (?P<sign>[-−])?
        (?P<n>(?:[0-9]{1,3}(?:[,\u00a0\u202f\u2009][0-9]{3})+|[0-9]+)(?:\.[0-9]+)?|\.[0-9]+)
        (?:
           \s*/\s*(?P<den>[0-9]+(?:\.[0-9]+)?)(?![0-9])
         | [eE](?P<e>[-+−]?[0-9]+)
         | \s*(?:[×xX*·]|\\times|\\cdot)\s*10\s*(?:\^|\*\*)\s*\{?\s*(?P<p>[-+−]?[0-9]+)\s*\}?
         | \s*(?:[×xX*·]|\\times|\\cdot)\s*10(?P<sup>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)
         | \s*\^\s*\{?\s*(?P<pow>[-+−]?[0-9]{1,3})\s*\}?       # 2^{10}
        )?""",
    re.X,
)
_WORD_NUMS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
# Applied to lower-cased text, word boundaries checked in Python (a leading
# \b and IGNORECASE make the engine test every position, ~4x slower).
_WORD_NUM_RE = re.compile("|".join(sorted(_WORD_NUMS, key=len, reverse=True)))
HAS_DIGIT_RE = re.compile(r"[0-9]")
_FRAC_TEX_RE = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LATEX_SPACES = ("\\,", "\\!", "\\;", "\\:", "\\ ", "\\left", "\\right")


def _tex_to_plain(s: str) -> str:
    """Just enough LaTeX for numbers: fractions, {,} separators, spacing."""
    if "\\" not in s and "{," not in s:
        return s
    s = _FRAC_TEX_RE.sub(r"(\1)/(\2)", s)
    s = s.replace("{,}", ",").replace("\\%", "%").replace("\\times", " × ").replace("\\cdot", " × ")
    for sp in _LATEX_SPACES:
        s = s.replace(sp, "")
    return s.replace("(", "").replace(")", "") if "/" in s else s


def _num_start_ok(s: str, m) -> int:
    """0: not a number of its own; 1: valid; 2: valid but drop the sign.

    Not preceded by a word character, '.' or '^', so "Qwen2", "H2O", the "5"
    of "1.5" and the "2" of "m/s^2" or "cm^{3}" are not numbers.  A '-' right
    after a word character is a hyphen or range dash ("3-5"), not a sign.
    """
    st = m.start()
    if st == 0:
        return 1
    c = s[st - 1]
    bad = c.isalnum() or c in "_.^" or ((c == "{" or c == " ") and s[st - 2:st - 1] == "^")
    if not bad:
        return 1
    return 2 if m.group("sign") else 0


def _num_value(m, signed: bool = True) -> float | None:
    n = m.group("n")
    for sep in ",\u00a0\u202f\u2009":
        if sep in n:
            n = n.replace(sep, "")
    try:
        if m.group("den"):
            den = float(m.group("den"))
            v = float(n) / den if den else float(n)
        elif m.group("e") or m.group("p") or m.group("sup"):
            exp = m.group("e") or m.group("p") or m.group("sup").translate(_SUPERSCRIPT)
            v = float(n + "e" + exp.replace("−", "-"))
        elif m.group("pow"):
            v = float(n) ** int(m.group("pow").replace("−", "-"))
        else:
            v = float(n)
    except (ValueError, OverflowError, ZeroDivisionError):
        return None
    if isinstance(v, complex) or not math.isfinite(v):
        return None
    return -v if (signed and m.group("sign")) else v


def _numbers(s: str):
    """Values of the numeric tokens in ``s``, in order."""
    for m in _NUM_RE.finditer(s):
        ok = _num_start_ok(s, m)
        if ok:
            v = _num_value(m, ok == 1)
            if v is not None:
                yield v


def _first_number(s: str) -> float | None:
    return next(_numbers(_tex_to_plain(s)), None)


def _last_number(s: str) -> float | None:
    """Last number in ``s``; only the last line holding a digit is scanned
    (numbers do not span lines), walking up if that line has none."""
    s = _tex_to_plain(s)
    end = len(s)
    while end > 0:
        nl = s.rfind("\n", 0, end)
        line = s[nl + 1:end]
        if HAS_DIGIT_RE.search(line):
            v = None
            for v in _numbers(line):
                pass
            if v is not None:
                return v
        end = nl if nl >= 0 else 0
    return None


def _word_number(s: str, last: bool) -> float | None:
    """A number word zero..twenty (first or last one) in ``s``."""
    low = s.lower()
    found = None
    for m in _WORD_NUM_RE.finditer(low):
        a, b = m.span()
        if (a and low[a - 1].isalnum()) or (b < len(low) and low[b].isalnum()):
            continue  # inside a word: "someone", "often"
        found = m.group()
        if not last:
            break
    return float(_WORD_NUMS[found]) if found else None


_NUM_MARKERS = (("answer", M_ANSWER), ("final answer", M_FINAL))


def _span_line(t: str, e: int, extra_lines: int = 2) -> str:
    """Rest of the line from ``e``; if that is blank (e.g. "**Final Answer**
    \\n\\n12"), the first non-blank line among the next ``extra_lines``."""
    n = len(t)
    for _ in range(extra_lines + 1):
        nl = t.find("\n", e)
        if nl < 0:
            nl = n
        seg = t[e:nl]
        if seg.strip(" \t\r*_#:：") or nl >= n:
            return seg
        e = nl + 1
    return ""


def _marker_spans(t: str, low: str, markers):
    """Yield the text after each answer marker, last marker first."""
    hits = []
    for kw, rx in markers:
        start = 0
        while True:
            p = low.find(kw, start)
            if p < 0:
                break
            start = p + 1
            if not is_word_start(low, p):
                continue
            m = rx.match(t, p)
            if m:
                hits.append((p, m.end()))
    hits.sort(reverse=True)
    for _, e in hits:
        yield _span_line(t, e)


def extract_number(text: str) -> float | None:
    """The final numeric answer as a float, or None.

    Order: last \\boxed{} -> last answer marker ("The answer is 12.5 mL") ->
    the last number in the answer text -> a number word (zero..twenty) when
    the text has no digit at all.  Units are ignored, "1,000" is 1000, "3/4"
    is 0.75, "50%" is 50.0, "3.2 × 10^5" is 320000.0, "−5" is -5.0.
    """
    t, low = prep(text)
    if not t:
        return None
    if "\\boxed" in t or "\\fbox" in t:
        b = last_boxed(t)
        if b:
            if "=" in b:
                b = b.rsplit("=", 1)[1]  # "3 \times 4 = 12" -> 12
            v = _first_number(b)
            if v is None:
                v = _word_number(b, last=False)
            if v is not None:
                return v
    has_digit = HAS_DIGIT_RE.search(t) is not None
    if "answer" in low:
        for span in _marker_spans(t, low, _NUM_MARKERS):
            v = _first_number(span) if has_digit else None
            if v is None:
                v = _word_number(span, last=False)
            if v is not None:
                return v
    if has_digit:
        return _last_number(t)
    return _word_number(t, last=True)
