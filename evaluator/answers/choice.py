"""`extract_choice`: which option a response chose, from rules over the whole
response (boxes, JSON, corrections, checklists, ordinals) and the markers and
label matching of `markers` and `labels`.
"""

from __future__ import annotations

import re
from typing import Sequence

from evaluator.answers.common import _FULLWIDTH, _MISS, _boxed_spans, _clean_boxed, _lower, _parse_obj, _prep
from evaluator.answers.labels import (
    _NO_ANSWER_RE,
    _decide_span,
    _label_at,
    _label_map,
    _negated_label,
    _norm_options,
    _option_contained,
    _option_exact,
)
from evaluator.answers.markers import (
    _SHORT_RE,
    _both,
    _choice_before_note,
    _choice_from_markers,
    _enumerated,
    _is_word_start,
    _mentions,
)


def _choice_from_boxes(t: str, lab: dict, opts):
    """Choice given by the last \\boxed{}; None when the box says there is no
    answer ("\\boxed{N/A}") or sits next to a box with another label
    ("\\boxed{A} or \\boxed{B}"); _MISS when there is no usable box."""
    spans = _boxed_spans(t, last_only=False)
    if not spans:
        return _MISS
    a, b = spans[-1]
    content = _clean_boxed(t[a:b])
    if not content:
        return _MISS
    if _NO_ANSWER_RE.match(content):
        return None
    m = _SHORT_RE.fullmatch(content)
    r = lab.get(m.group("l").upper()) if m else None
    if r is None:
        r = _decide_span(content, 0, lab, opts, False)
    if r is None or r is _MISS or len(spans) < 2:
        return r
    pa, pb = spans[-2]
    if a - pb <= 24:  # "} or \boxed{": two boxes given together
        prev = _SHORT_RE.fullmatch(_clean_boxed(t[pa:pb]))
        if prev and lab.get(prev.group("l").upper()) not in (None, r):
            return None
    return r


# Keys of a JSON answer object that hold the choice ("selected_option",
# "Answer Letter"): only these words, at least one of them core; "answer"
# keys outrank the rest.  "options_considered" is not one.
_JSON_KEY_WORDS = frozenset("answer final option choice letter selected selection select chosen label pick "
                            "correct best my your the".split())
_JSON_KEY_CORE = frozenset("answer final option choice letter selected selection select chosen label pick".split())
_JSON_KEY_SPLIT_RE = re.compile(r"[^a-z]+")


def _json_answer_key(key: str) -> bool:
    words = {w for w in _JSON_KEY_SPLIT_RE.split(key) if w}
    return bool(words & _JSON_KEY_CORE) and words <= _JSON_KEY_WORDS


def _choice_from_json(t: str, lab: dict):
    """Label in a JSON/dict reply ({"option": "2"}, {"letter": "d"}), or _MISS.

    Several answer keys naming different labels -> None."""
    i = t.find("{")
    j = t.rfind("}")
    if i < 0 or j <= i or t[i + 1:i + 40].lstrip()[:1] not in ("\"", "'"):
        return _MISS  # not an object with quoted keys (e.g. LaTeX braces): skip the parsers
    d = _parse_obj(t[i:j + 1])
    if not isinstance(d, dict):
        return _MISS
    tiers: tuple[set, set] = (set(), set())
    for k, v in d.items():
        key = str(k).lower()
        if not _json_answer_key(key) or isinstance(v, bool) or not isinstance(v, (str, int)):
            continue
        sv = str(v).strip()
        m = _SHORT_RE.fullmatch(sv) if len(sv) <= 40 else None
        lb = lab.get(m.group("l").upper()) if m else None
        if lb is not None:
            tiers[0 if "answer" in key else 1].add(lb)
    for found in tiers:
        if len(found) == 1:
            return found.pop()
        if found:
            return None
    return _MISS


# A self-correction: what follows the last of these replaces what came before.
# Found with rfind (only the last one matters, and most responses have none);
# a bare "no" counts only before punctuation ("no, sorry"), not in "no doubt".
_CORRECTION_WORDS = ("wait", "sorry", "actually", "scratch that", "on second thought", "correction",
                     "i mean", "make that", "no,", "no.", "no:", "no;", "no!", "no —", "no -", "no–", "no—")


def _last_correction(low: str) -> int:
    """End of the last correction word in ``low``, or -1."""
    best = -1
    for w in _CORRECTION_WORDS:
        p = low.rfind(w)
        while p >= 0 and p + len(w) > best:
            e = p + len(w)
            if _is_word_start(low, p) and not (e < len(low) and low[e].isalnum()):
                best = e
                break
            p = low.rfind(w, 0, p)
    return best
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;。！？])\s+|\n")
_FLUFF = " \t\r\n,:;.!—–-…"


def _last_sentence(t: str) -> str:
    parts = [p for p in _SENTENCE_END_RE.split(t.strip()) if p.strip(_FLUFF)]
    return parts[-1].strip(_FLUFF + "*_") if parts else ""


def _bare_label(s: str, lab: dict):
    """The label if ``s`` is nothing but one ("Option 3.", "(B)"), else None."""
    m = _SHORT_RE.fullmatch(s) if len(s) <= 40 else None
    return lab.get(m.group("l").upper()) if m else None


def _choice_after_correction(t: str, low: str, lab: dict):
    """"B... no, sorry, D." / "Option 2. Wait - ... Option 3.": the label given
    after the last correction word, when it is given plainly (right after the
    correction, or as the closing sentence).  A correction with nothing after
    it retracts the answer -> None.  Otherwise _MISS: read the response as usual."""
    end = _last_correction(low)
    if end < 0:
        return _MISS
    tail = t[end:].lstrip(_FLUFF)
    if not tail:
        return None
    r, _ = _label_at(tail, 0, lab, True)
    if r is not _MISS:
        return r
    r = _bare_label(_last_sentence(tail), lab)
    return _MISS if r is None else r


# One line (or sentence) of a checklist: "B - correct", "C ✅", "| 4 | ✓ |", "A: wrong."
_CHECK_ITEM_SPLIT_RE = re.compile(r"[\n.;]")
_CHECK_RE = re.compile(
    r"""[ \t*_#>|\-]*(?:(?i:option|choice|statement)[ \t]*)?[\(\[]?(?P<l>[A-Za-z]|[0-9]{1,2})[\)\]]?[ \t*]*(?:[-–—:|=][ \t*]*|is[ \t]+)?
        (?P<v>(?i:correct|incorrect|right|wrong|true|false|yes|no)\b|[✓✔✅☑✗✘❌×✖])""",
    re.X,
)
_CHECK_YES = frozenset(("correct", "right", "true", "yes", "✓", "✔", "✅", "☑"))


def _choice_from_checklist(t: str, lab: dict):
    """The one label marked correct in a checklist of verdicts over several labels.

    Several labels marked correct -> None; none marked correct -> _MISS (a
    conclusion may follow)."""
    if len(t) > 3000:
        return _MISS  # a checklist is short; long prose is read by markers
    verdicts: dict = {}
    # One anchored match per line/sentence: far cheaper than searching every position.
    for item in _CHECK_ITEM_SPLIT_RE.split(t):
        m = _CHECK_RE.match(item)
        if m is None:
            continue
        lb = lab.get(m.group("l").upper())
        if lb is not None:
            verdicts.setdefault(lb, set()).add(m.group("v").lower() in _CHECK_YES)
    if len(verdicts) < 2:
        return _MISS
    yes = [lb for lb, v in verdicts.items() if True in v]
    if not yes:
        return _MISS
    return yes[0] if len(yes) == 1 and verdicts[yes[0]] == {True} else None


_ORDINAL_NUMS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth".split())}
_NUMBER_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten".split())}
_ZH_NUMS = {c: i + 1 for i, c in enumerate("一二三四五六七八九十")}
_ORD_ALT = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
# Ordinals and number words that name an option: "the third option", "Statement
# five", "It's the fourth.", "第三个选项".  Tied to a noun (or a bare "the
# fourth" closing a sentence) so "the first frame" is left alone.
# Applied to the lower-cased text; the leading class lets the engine skip ahead.
_ORDINAL_RE = re.compile(
    rf"""(?=[tfselnoc第])(?:\bthe\s+)?\b(?P<o>{_ORD_ALT})\s+(?:option|statement|choice|one|answer)\b
        |\b(?:option|statement|choice)\s+(?:number\s+)?(?P<n>one|two|three|four|five|six|seven|eight|nine|ten)\b
        |\bthe\s+(?P<b>{_ORD_ALT})(?=\s*(?:[.!;,]|$))
        |第(?P<z>[一二三四五六七八九十])\s*(?:个|個)?\s*(?:选项|選項)""",
    re.X,
)
_MAX_ORDINAL_TEXT = 200
# Substring checks (fast, in C) before the regex: most responses have none.
_ORDINAL_HINTS = tuple(_ORDINAL_NUMS) + tuple(" " + w for w in _NUMBER_WORDS) + ("last", "第")


def _has_ordinal(low: str) -> bool:
    return any(h in low for h in _ORDINAL_HINTS) and _ORDINAL_RE.search(low) is not None


def _ordinals_to_labels(t: str, low: str, labels: tuple, lab: dict) -> str:
    """``t`` with ordinal option names replaced by "(label)", so the usual rules
    read them.  Only short responses: in long reasoning "the first option"
    is discussed as often as chosen."""
    def label_of(m):
        w = m.group("o") or m.group("b")
        if w:
            k = len(labels) if w == "last" else _ORDINAL_NUMS[w]
            lb = labels[k - 1] if k <= len(labels) else None
        elif m.group("n"):
            k = _NUMBER_WORDS[m.group("n")]
            lb = lab.get(str(k)) or (labels[k - 1] if k <= len(labels) and str(labels[0]).isalpha() else None)
        else:
            k = _ZH_NUMS[m.group("z")]
            lb = labels[k - 1] if k <= len(labels) else None
        return lb

    out, prev = [], 0
    for m in _ORDINAL_RE.finditer(low):  # positions in low are positions in t
        lb = label_of(m)
        if lb is not None:
            out += [t[prev:m.start()], f"option {str(lb).strip()}"]
            prev = m.end()
    return "".join(out) + t[prev:]


def extract_choice(text: str, labels: Sequence[str], options: Sequence[str] | None = None) -> str | None:
    """Which option the response chose: one element of ``labels`` or None.

    Order of trust: last \\boxed{} -> last answer marker ("The answer is (B)",
    "Answer: B", "I choose 3", "B is correct", ...) -> the whole response is a
    label or an option text -> the response starts with a label ("B. Because
    ...") -> its last line is a label -> the only label mentioned in a strong
    form ("(B)", "**B**", "Option B", a capital letter that is not the
    article "A"/pronoun "I") -> the only option text contained in a short
    response/last line.  Letters not in ``labels`` are ignored.

    Before the markers: a JSON reply's answer key ({"option": "2"}) and a
    self-correction ("B... no, sorry, D": the label given plainly after the
    last "no,"/"wait"/"sorry"/"actually" wins).  Before the shape fallbacks:
    a checklist of verdicts ("A - wrong", "C ✅") gives its one ticked label.
    Ordinals naming an option ("the third option", "Statement five") are
    read in short responses.

    Ambiguity -> None: the final marker names two labels ("A or B"), or no
    marker exists and several labels are mentioned.  Doubt -> None too: a
    label asked as a question ("Could it be A?"), "N/A" / "None of the
    above", a label rejected where it is given ("Answer: A is not correct"),
    two boxes given together, two labels ticked in a checklist.
    """
    if not text or not labels:
        return None
    labels_t = tuple(labels)
    lab = _label_map(labels_t)
    t, low = _prep(text)
    if not t:
        return None
    t, low, rewritten = _canonical_text(t, low, labels_t, lab)
    opts = _norm_options(tuple(options), labels_t) if options else None
    r = _choice_from_rules(t, low, lab, opts)
    if r is not _MISS:
        return r
    return _choice_from_shape(t, low, lab, opts, rewritten)


def _canonical_text(t: str, low: str, labels_t: tuple, lab: dict) -> tuple[str, str, bool]:
    """Full-width labels made ASCII and ordinals made "option X"; also whether
    ordinals were rewritten (then loose mentions are not read)."""
    if not t.isascii():
        # Full-width letters and digits ("答案：Ｂ") are the ASCII label; the
        # mapping is 1:1, so positions in t and low stay aligned.
        t, low = t.translate(_FULLWIDTH), low.translate(_FULLWIDTH)
    # Ordinals become "option X" (weak: a rule must still read it as chosen, and
    # loose mentions are not read, so "the first option mentions a cup" is no answer).
    rewritten = len(t) <= _MAX_ORDINAL_TEXT and _has_ordinal(low)
    if rewritten:
        t = _ordinals_to_labels(t, low, labels_t, lab)
        low = _lower(t)
    return t, low, rewritten


def _choice_from_rules(t: str, low: str, lab: dict, opts):
    """The explicit forms, in order of trust: a bare label, boxes, a JSON answer, a
    self-correction, markers (before a note, then anywhere), the exact option text;
    then the refusals ("None of the above", "both") and a checklist. A label, None
    (decided: no answer) or _MISS (none of them applies)."""
    # A very short response: bare label ("B", "(B).", "**B**", "Option 3").
    if len(t) <= 40:
        m = _SHORT_RE.fullmatch(t)
        if m:
            lb = lab.get(m.group("l").upper())
            if lb is not None:
                return lb

    if "\\boxed" in t or "\\fbox" in t:
        r = _choice_from_boxes(t, lab, opts)
        if r is not _MISS:
            return r

    if "{" in t and ":" in t:
        r = _choice_from_json(t, lab)
        if r is not _MISS:
            return r

    r = _choice_after_correction(t, low, lab)
    if r is not _MISS:
        return r

    if "not" in low or "注" in low or "n.b" in low or "p.s" in low:
        r = _choice_before_note(t, low, lab, opts)
        if r is not _MISS:
            return r
    r = _choice_from_markers(t, low, lab, opts)
    if r is not _MISS:
        return r

    if opts:
        r = _option_exact(t, opts)
        if r is not _MISS:
            return r

    if _NO_ANSWER_RE.match(t):
        return None  # "None of the above. A is closest but wrong."
    if "both" in low and _both(t, lab):
        return None  # "Both A and B are true statements.": two labels
    return _choice_from_checklist(t, lab)


def _choice_from_shape(t: str, low: str, lab: dict, opts, rewritten: bool) -> str | None:
    """The shape-based fallbacks: a leading label, a last line or closing sentence that
    is a label (unless the response enumerates the options), the one label mentioned,
    the one option text in a short response."""
    enumerated = None
    r, _ = _label_at(t, 0, lab, True)
    if r is not _MISS and not _negated_label(t, 0):  # "(A) is wrong." opens, chooses nothing
        enumerated = _enumerated(t, lab)
        if not enumerated:
            return r

    body = t.rstrip()
    q = body.rfind("\n")
    last_line = body[q + 1:].strip() if q >= 0 else body
    if q >= 0 and last_line:
        m = _SHORT_RE.fullmatch(last_line) if len(last_line) <= 40 else None
        lb = lab.get(m.group("l").upper()) if m else None
        if lb is not None:
            return lb
        r, _ = _label_at(last_line, 0, lab, True)
        if r is not _MISS and not _negated_label(last_line, 0):
            if enumerated is None:
                enumerated = _enumerated(t, lab)
            if not enumerated:
                return r
    # "Okay. 2": a closing sentence that is only a label.
    lb = _bare_label(_last_sentence(last_line), lab)
    if lb is not None:
        if enumerated is None:
            enumerated = _enumerated(t, lab)
        if not enumerated:
            return lb

    r = _mentions(t, low, lab) if not rewritten else _MISS
    if r is not _MISS:
        return r

    if opts:
        # Only a short answer is searched for option text: in long prose an
        # option phrase is as likely to be discussed as to be chosen.
        scope = t if len(t) <= 300 else last_line
        if len(scope) <= 300:
            r = _option_contained(scope, opts)
            if r is not _MISS:
                return r
    return None
