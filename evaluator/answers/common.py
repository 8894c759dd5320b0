"""What every reader shares: dropping the reasoning block (`strip_reasoning`), a
cut-off reasoning (`reasoning_cut_off`), the text a reader looks at (`prep`), the
last `\\boxed{}` answer (`last_boxed`), and size-capped parsing of JSON and Python
literals (`parse_obj`, `literal_value`).
"""

from __future__ import annotations

import ast
import json
import re
import warnings

# Sentinel: "this strategy found nothing, try the next one" (as opposed to
# None, which means "decided: no usable / ambiguous answer").
MISS = object()


def aligned_lower(s: str) -> str:
    """Lower-case keeping indices aligned with ``s``.

    ``str.lower`` can change the length of a few characters (e.g. 'İ'); every
    position found in the lowered copy is used to slice the original, so fall
    back to per-character lowering in that rare case.
    """
    low = s.lower()
    if len(low) != len(s):
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in s)
    return low


def holds_any(text: str, parts) -> bool:
    """Whether any of `parts` occurs in `text`: `any(p in text for p in parts)` written as a
    plain loop, twice as fast (the hint checks run on every response)."""
    for part in parts:
        if part in text:
            return True
    return False


# Reasoning delimiters used by R1/Qwen3/QwQ (<think>), other chat templates,
# Kimi-VL (◁think▷) and Sky-T1/OpenThoughts (<|begin_of_thought|>).
_OPEN_TAGS = ("<think>", "<thinking>", "<reasoning>", "◁think▷", "<|begin_of_thought|>")
_CLOSE_TAGS = ("</think>", "</thinking>", "</reasoning>", "◁/think▷", "<|end_of_thought|>")
_ALL_TAGS_RE = re.compile(
    r"</?(?:think|thinking|reasoning)>|◁/?think▷|<\|(?:begin|end)_of_(?:thought|solution)\|>",
    re.I,
)
# What remains of the Sky-T1 style solution wrapper after the thought block.
# a solution's markers and a chat template's end-of-turn tokens left in a reply
_SOLUTION_TAGS_RE = re.compile(r"<\|(?:(?:begin|end)_of_solution|im_end|endoftext|eot_id|end)\|>", re.I)
_END_OF_TURN_RE = re.compile(r"<\|(?:im_end|endoftext|eot_id|end)\|>", re.I)


def _last_close(s: str) -> int:
    """Index just past the last closing reasoning tag, or -1."""
    end = -1
    for tag in _CLOSE_TAGS:
        p = s.rfind(tag)
        if p >= 0 and p + len(tag) > end:
            end = p + len(tag)
    return end


def _first_open(s: str) -> int:
    start = -1
    for tag in _OPEN_TAGS:
        p = s.find(tag)
        if p >= 0 and (start < 0 or p < start):
            start = p
    return start


def strip_reasoning(text: str) -> str:
    """Drop <think>...</think> (also <thinking>, <reasoning>) blocks.

    If a closing tag exists, keep only text after the LAST closing tag. An
    unclosed opening <think> with nothing after it -> ''. Also strip
    surrounding whitespace.  An unclosed opening tag means the rest of the
    output is (truncated) reasoning, so only the text before it is kept.
    """
    if not text:
        return ""
    # Fast path: no tag can be present without one of these characters.
    if "<" not in text and "◁" not in text:
        return text.strip()
    end = _last_close(text)
    if end < 0:
        # Rare: upper/mixed-case tags.  Lower-casing costs a copy, so only now.
        low = aligned_lower(text)
        if low != text:
            end = _last_close(low)
    else:
        low = None
    if end >= 0:
        out = text[end:]
    else:
        start = _first_open(text)
        if start < 0 and low is not None and low != text:
            start = _first_open(low)
        out = text[:start] if start >= 0 else text
    if "<|" in out:
        turn = _END_OF_TURN_RE.search(out)  # what follows a turn's end is no part of the reply
        out = _SOLUTION_TAGS_RE.sub("", out[:turn.start()] if turn and out[:turn.start()].strip() else out)
    return out.strip()


def reasoning_cut_off(text) -> bool:
    """True if ``text`` is only an unclosed reasoning trace: an opening tag, no
    closing tag, and nothing before it, i.e. the model ran out of tokens
    before giving a final answer (unless the trace's last sentence gives it:
    "Therefore, the final answer is G.", the closing tag left out).

    Such a response has no final answer: a guess half-way through a trace
    ("I think the answer might be C") is not one, so extractors read nothing
    from it.  ``read_cut_off_reasoning`` restores reading it (a scoring
    option, off by default)."""
    if not text or not isinstance(text, str) or ("<" not in text and "◁" not in text):
        return False
    if strip_reasoning(text):
        return False
    low = aligned_lower(text)
    return _last_close(low) < 0 and _first_open(low) >= 0 and _CLOSING_ANSWER_RE.search(text) is None


# a sentence cut off as it begins to check or write out the answer, saying nothing yet:
# "Final answer: 3. Let me just double-check the", "Final answer: E. Before I write it out, I should"
_HARMLESS_TAIL = (r"(?i:let\s+me\s+(?:just\s+)?(?:double-?check|re-?check|verify|confirm)|before\s+I\s+(?:write|finali[sz]e|give))"
                  r"[^.!?\n<A-HJ-Z0-9]{0,20}")
# an unclosed trace that ends on its final answer, or on one more sentence cut off that takes
# nothing back ("Final answer: 2. Although, just to be thorough, the"): from there it is read
_CLOSING_ANSWER_RE = re.compile(r"(?i:final\s+answer)\s*(?:is|[:：])\s*\**\(?\s*(?:[A-Za-z]|\d{1,2})\s*\)?\**\s*"
                                r"(?:[.!]\s+(?:" + _HARMLESS_TAIL + r"|(?![^\n]*(?:(?<![A-Za-z0-9'’])[A-Z0-9](?![A-Za-z0-9'’])|\b(?i:wait|"
                                r"actually|hmm|no|not|reconsider|instead|chang\w*|but|however|or|maybe|re-?check\w*|re-?watch\w*|"
                                r"looking\s+again|second\s+thought|double-check|mistake|forgot|wrong|should)\b))[^\n<]{0,80})|[.!]?)\s*$")


def read_cut_off_reasoning(text):
    """``text`` with the tags of a cut-off trace removed, so the extractors read
    the trace as if it were the answer; any other text unchanged."""
    if reasoning_cut_off(text):
        return _ALL_TAGS_RE.sub(" ", text).strip()
    return text


# Words no sentence ends on: a response whose last word is one of them was cut off
# mid-sentence ("... This matches option C (25), which means"), so it has no final answer.
_NO_LAST_WORDS = frozenset(
    "the an and or but which that to of in on at with for from by as is are was were be been means mean "
    "consider because so then if than this these those we it its their our also however into whether while "
    "when where about between both either nor very more most some each every any "
    "gives give yields yield get gets becomes become equals option options".split())
_VERDICT_LAST_WORDS = frozenset("yes no correct incorrect true false wrong right".split())  # a checklist's line


_WALK_CUT_RE = re.compile(r"[.;] +(?i:step|option|statement) +\d{1,2}$|(?:^|[.;:!?\n])\s*(?i:now|next|then),?\s+(?i:option|choice|"
                          r"statement|feedback)\s+\(?(?:[A-Z]|\d{1,2})\)?(?:\s+[a-z]{1,12})?$")
_PENDING_RE = re.compile(r"\blet me (?:verify|check|double-check|re-?examine|confirm)\b|\bbefore deciding\b", re.I)
# a quotation left open at the end, a time missing its last digit ("around 0:4"), a one-letter
# fragment after a label or a word no answer follows ("Choice G s", "on its d"; not "so d" or "is
# b"), a dash with nothing after it
_CUT_INSIDE_RE = re.compile(r"""(?:\s["“][^"”\n]{1,25}|\b(?:around|at|about|from|until)\s+\d{1,2}:\d"""
                            r"""|(?:\b[A-Z]|\b(?:its|the|his|her|their|of|on|in|with))\s(?![ai]\b)[b-hj-z]|\s[-–—]\s*)$""")


def cut_off_mid_sentence(t: str) -> bool:
    """True if `t` stops inside a sentence: no closing punctuation after a lower-case
    word, at least three words into the sentence, and either a word that cannot end
    one or a long reasoning (a short reply may just leave out its full stop)."""
    if t and t[-1] in ",;，；" and len(t) >= 60:
        return True  # "A non-competitive antagonist, by contrast,": stopped mid-clause
    if len(t) >= 100 and _WALK_CUT_RE.search(t[-40:]):
        return True  # "... Step 3 (...) — visible. Step 4", "... Now, option F": cut off walking through them
    pending = t and t[-1] not in ".!?)]}*\"'”。！？" and _PENDING_RE.search(t, max(0, len(t) - 200))
    if pending and "\n" not in t[pending.end():]:
        return True  # "Initial impression: probably C. Let me verify ... In the first": stopped before deciding
    if len(t) >= 60 and _CUT_INSIDE_RE.search(t[-60:]):
        return True  # 'Option C says "37', "... around 0:4", "... shows 37.0 on its d": cut inside a word
    if not t or not t[-1].islower():
        return False
    tail = t[-80:]
    cut = max(tail.rfind(c) for c in ".!?\n")
    words = tail[cut + 1:].split()
    if len(words) >= 2 and words[-2][:1].isdigit():
        return False  # "... is D: 100 s": a value and its unit end it
    if len(words) == 2 and len(t) >= 100 and words[-1] in _NO_LAST_WORDS:
        return True  # "... - maybe. What about": a long reply stopped two words into a sentence
    return len(words) >= 3 and (words[-1] in _NO_LAST_WORDS or (
        len(t) >= 150 and len(words) >= 4 and words[-1] not in _VERDICT_LAST_WORDS))


FULLWIDTH = {c: c - 0xFEE0 for r in ((0xFF08, 0xFF09), (0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
              for c in range(r[0], r[1] + 1)}  # "（", "）" too: "1（The dancer's…）"


def _llama2_reply(t: str) -> str:
    """The reply in a text with Llama-2's template tokens left in: what precedes the first
    token ("Answer: C [/INST] ..." runs on into a turn it invented), else what follows the
    first "[/INST]" ("[/INST] [1]", or the prompt echoed before it), up to the next turn."""
    p = t.find("[/INST]")
    q = t.find("[INST]", 0, p)
    before = t[:q if q >= 0 else p].replace("<s>", "").strip()
    if before:
        return before
    rest = t[p + 7:]
    end = min((q for q in (rest.find("[INST]"), rest.find("[/INST]"), rest.find("</s>")) if q >= 0), default=len(rest))
    return rest[:end].strip() or rest.strip()


def prep(text) -> tuple[str, str]:
    """Answer part of a response and its lower-cased twin.

    Reasoning is stripped; if that leaves nothing, a closed reasoning block
    is used ("<think>... so B.</think>" with nothing after), but never a
    cut-off one (``reasoning_cut_off``: no final answer).  A ``<answer>`` tag
    (Video-R1 and other RL-tuned models) wins when present.
    """
    if not text:
        return "", ""
    if not isinstance(text, str):
        text = str(text)
    t = strip_reasoning(text)
    if "[/INST]" in t:
        t = _llama2_reply(t)
    if not t:
        if reasoning_cut_off(text):
            return "", ""  # no final answer: the trace is not read (see reasoning_cut_off)
        # "... Therefore, the final answer is G." with its tag left open: that sentence is read
        closing = _CLOSING_ANSWER_RE.search(text) if _last_close(aligned_lower(text)) < 0 else None
        t = closing.group() if closing else _ALL_TAGS_RE.sub(" ", text).strip()
        if not t:
            return "", ""
    low = aligned_lower(t)
    tag = "<answer>" if "<answer>" in low or not low.rstrip().endswith("</ans>") else "<ans>"  # "<ans>2</ans>" closing it
    if tag == "<answer>" and "<answer>" not in low and "</choice>" in low:
        tag = "<choice>"  # "<output><choice>2</choice></output>"
    p = low.rfind(tag)
    if p >= 0:
        q = low.find("</" + tag[1:], p)
        if q < 0:
            q = len(t)
        a = p + len(tag)
        inner = t[a:q].strip()
        if inner:
            off = a + (len(t[a:q]) - len(t[a:q].lstrip()))
            t, low = inner, low[off:off + len(inner)]
    return t, low


_BOX_CMDS = ("\\boxed", "\\fbox")
_WRAP_RE = re.compile(
    r"\\(?:text|textbf|textit|textrm|texttt|mathrm|mathbf|mathit|mbox|operatorname)\s*\{([^{}]*)\}"
)
_BRACE_RE = re.compile(r"[{}\\]")
# Bounds that keep adversarial input ("\\boxed{" x 5000) linear: real boxed
# answers are short, and only the last few boxes ever matter.
_MAX_BOX_LEN = 4000
_MAX_BOXES = 64


def boxed_spans(text: str, last_only: bool) -> list[tuple[int, int]]:
    """(start, end) of the brace-balanced contents of \\boxed{...}/\\fbox{...}.

    Scans right-to-left with rfind so the common case (want the last box)
    touches the text once; malformed/unclosed boxes are skipped.
    """
    spans: list[tuple[int, int]] = []
    limit = len(text)
    n = len(text)
    for _ in range(_MAX_BOXES):
        p = -1
        cmd_len = 0
        for cmd in _BOX_CMDS:
            q = text.rfind(cmd, 0, limit)
            if q > p:
                p, cmd_len = q, len(cmd)
        if p < 0:
            break
        limit = p
        i = p + cmd_len
        while i < n and text[i] in " \t":
            i += 1
        if i >= n or text[i] != "{":
            continue
        close = _box_close(text, i, min(n, i + _MAX_BOX_LEN))
        if close < 0:
            continue  # unclosed (truncated output): try an earlier box
        spans.append((i + 1, close))
        if last_only:
            break
    spans.reverse()
    return spans


def _box_close(text: str, i: int, end: int) -> int:
    """Index of the brace that closes the one at text[i], searching before `end`; -1 if none."""
    j = text.find("}", i + 1, end)
    if j >= 0 and text.find("{", i + 1, j) < 0 and text.find("\\", i + 1, j) < 0:
        return j  # the common box, \\boxed{B}: nothing nested or escaped, no scan needed
    depth = 0
    skip_to = -1
    for m in _BRACE_RE.finditer(text, i, end):
        j = m.start()
        if j < skip_to:
            continue
        c = text[j]
        if c == "\\":
            skip_to = j + 2  # escaped \\{ or \\} does not count
        elif c == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return j
    return -1


def clean_boxed(s: str) -> str:
    # Unwrap innermost first; loop handles \text{\textbf{B}}.
    if "\\" in s:
        while True:
            s2 = _WRAP_RE.sub(r"\1", s)
            if s2 == s:
                break
            s = s2
    if "$" in s:
        s = s.replace("$", "")
    return s.strip()


def last_boxed(text: str) -> str | None:
    """Content of the LAST \\boxed{...} (also \\fbox{...}), brace-balanced.

    Nested braces are fine; \\text{..}/\\mathrm{..}/\\textbf{..} wrappers, $
    signs and surrounding whitespace are removed. None if absent.
    """
    if not text or ("\\boxed" not in text and "\\fbox" not in text):
        return None
    spans = boxed_spans(text, last_only=True)
    if not spans:
        return None
    a, b = spans[0]
    return clean_boxed(text[a:b])


# Untrusted text goes to json/literal_eval: cap its size, and treat any error
# (RecursionError on deep nesting, ValueError on a 5000-digit int, ...) as
# "not a literal".
MAX_LITERAL = 20000


def literal_value(s: str):
    """ast.literal_eval without the Deprecation/SyntaxWarnings it emits for
    odd escapes (e.g. "\\<") in model text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(s)


_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")


def parse_obj(s: str):
    if len(s) > MAX_LITERAL:
        return None
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        pass
    s2 = _TRAILING_COMMA_RE.sub(r"\1", s.replace("“", '"').replace("”", '"'))
    try:
        return json.loads(s2)
    except (ValueError, RecursionError):
        pass
    try:
        # Single-quoted Python dicts; literal_eval never executes code.
        return literal_value(s2)
    except Exception:  # noqa: BLE001 - any failure means "not an object"
        return None
