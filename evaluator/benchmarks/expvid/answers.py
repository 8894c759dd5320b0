"""ExpVid's answer reading: step-number lists (`extract_int_list`, the generation
task), a verification letter or step number, and the predicted next step.
"""

from __future__ import annotations

import re

from evaluator.answers import extract_choice, last_boxed
from evaluator.answers.common import prep
from evaluator.answers.numbers import HAS_DIGIT_RE
from evaluator.benchmarks.expvid.records import Question
from evaluator.metrics import Tally, read_with
from evaluator.records import Prediction

# The (?=[0-9]) prefixes below let the regex engine skip quickly to digits
# before evaluating the (slower) lookbehind.
_TIMESTAMP_RE = re.compile(r"(?=[0-9])(?<![\w.])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?:\.[0-9]+)?(?![\w])")
# An integer, or a range "3-5", "3–5", "3 to 5", "step 3 to step 5".
# Decimals ("3.5") are skipped by the look-around.
_INT_RE = re.compile(
    r"""(?=[0-9])(?<![\w.])(?P<a>[0-9]{1,6})(?![0-9]|\.[0-9])
        (?:\s*(?:-|–|—|~|\bto\b|\bthrough\b|\bthru\b)\s*(?i:steps?\s*)?(?P<b>[0-9]{1,6})(?![0-9]|\.[0-9]))?""",
    re.X,
)
_LINE_LEAD_INT_RE = re.compile(
    r"""[ \t]*(?:[-*•+>]\s*|\#+\s*)?(?:\*\*)?
        (?:[0-9]{1,3}[.)]\s+(?:\*\*)?(?i:step)\s*(?P<s>[0-9]{1,6})   # "1. Step 3: ..."
         |(?i:steps?\s*)?(?P<n>[0-9]{1,6}))(?![0-9]|\.[0-9])""",
    re.X,
)
# A line made only of numbers and separators ("3, 4 and 5", "Step 3.").
# Checked in two linear steps (drop the allowed words, then one char class)
# rather than one regex with nested repeats, which could backtrack badly.
_NUM_LINE_WORDS_RE = re.compile(r"\b(?:steps?|and|to)\b", re.I)
_NUM_LINE_CHARS_RE = re.compile(r"[\s0-9,;.:\-–—~()\[\]*#]*")
# "1. Crack eggs (step 2)": the step number, not the list index.
_STEP_REF_RE = re.compile(r"\bstep\s*#?\s*([0-9]{1,6})\b", re.I)
# "Answer:", "The steps shown are", "Steps included:".  Applied to the
# lower-cased text (no IGNORECASE: ~3x faster scanning).
_INT_MARK_RE = re.compile(
    r"(?:answers?|steps?)\b[^\n0-9]{0,40}?(?:\bare\b|\bis\b|\binclude[sd]?\b|\bwere\b|[:：=])[ \t]*[:：]?[ \t]*"
)


def _only_numbers(line: str) -> bool:
    return _NUM_LINE_CHARS_RE.fullmatch(_NUM_LINE_WORDS_RE.sub(" ", line)) is not None


def _ints_in(s: str) -> list[int]:
    if ":" in s:
        s = _TIMESTAMP_RE.sub(" ", s)
    out: list[int] = []
    seen = set()

    def add(v: int) -> None:
        if v not in seen:
            seen.add(v)
            out.append(v)

    for m in _INT_RE.finditer(s):
        a = int(m.group("a"))
        b = m.group("b")
        if b is not None:
            b = int(b)
            if a <= b and b - a < 100:
                for v in range(a, b + 1):
                    add(v)
                continue
            add(a)
            add(b)
        else:
            add(a)
    return out


def _lead_int(line: str) -> int | None:
    m = _LINE_LEAD_INT_RE.match(line)
    if not m:
        return None
    return int(m.group("s") or m.group("n"))


def _ints_from_lines(lines: list[str]) -> list[int]:
    """Several lines each starting with a number: "1.\\n2." or "- Step 3: ...".

    A line made only of numbers contributes all of them; a line with a
    description contributes only its leading number."""
    out: list[int] = []
    for ln in lines:
        if _only_numbers(ln):
            vals = _ints_in(ln)
        else:
            sm = _STEP_REF_RE.search(ln)
            v = int(sm.group(1)) if sm else _lead_int(ln)
            vals = [] if v is None else [v]
        for v in vals:
            if v not in out:
                out.append(v)
    return out


def _ints_from_block(block: str) -> list[int]:
    lines = [ln for ln in block.split("\n") if ln.strip()]
    if not lines:
        return []
    if len(lines) >= 2 and all(_lead_int(ln) is not None for ln in lines):
        return _ints_from_lines(lines)
    for ln in lines:
        if HAS_DIGIT_RE.search(ln):
            return _ints_in(ln)
    return []


def extract_int_list(text: str) -> list[int] | None:
    """A list of step numbers, order preserved, duplicates dropped.

    Order: last \\boxed{} -> last answer-marked span ("Answer:", "The steps
    shown are") -> the last line containing numbers (extended upwards over a
    run of numbered lines, so "1.\\n2.\\n3." gives [1, 2, 3]).  Ranges "3-5",
    "3–5", "3 to 5" expand when they hold at most 100 items; timestamps such
    as 0:45 are ignored.  None if no integer is found.
    """
    t, low = prep(text)
    if not t:
        return None
    if "\\boxed" in t or "\\fbox" in t:
        b = last_boxed(t)
        if b:
            r = _ints_in(b)
            if r:
                return r
    if not HAS_DIGIT_RE.search(t):
        return None
    hits = list(_INT_MARK_RE.finditer(low))
    for m in reversed(hits):
        e = m.end()
        nl = t.find("\n", e)
        line = t[e:nl if nl >= 0 else len(t)]
        if HAS_DIGIT_RE.search(line):
            r = _ints_in(line)
        else:
            # "Answer:\n- Step 3\n- Step 4": the paragraph below the marker.
            if nl < 0:
                continue
            para_end = t.find("\n\n", nl + 1)
            r = _ints_from_block(t[nl + 1:para_end if para_end >= 0 else len(t)])
        if r:
            return r
    lines = t.split("\n")
    i = len(lines) - 1
    while i >= 0 and not HAS_DIGIT_RE.search(lines[i]):
        i -= 1
    if i < 0:
        return None
    if _lead_int(lines[i]) is not None:
        j = i
        while j > 0 and (not lines[j - 1].strip() or _lead_int(lines[j - 1]) is not None):
            j -= 1
        block = [ln for ln in lines[j:i + 1] if ln.strip()]
        if len(block) >= 2:
            r = _ints_from_lines(block)
            if r:
                return r
    r = _ints_in(lines[i])
    return r or None


def read_verification(pred: Prediction | None, q: Question, tally: Tally) -> str | None:
    """Completeness verification: the letter, or (lenient) the letter of the option
    whose step number the response gives instead ("\\boxed{3}", "Answer: Step 3"):
    the options are the step numbers, and extract_choice reads them as such."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return None
    label = extract_choice(pred.response, q.labels, q.options)
    if label is None:
        tally.unparseable += 1
    return label


def read_steps(pred: Prediction | None, tally: Tally) -> list[int] | None:
    return read_with(pred, tally, extract_int_list)
