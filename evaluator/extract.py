"""Turn raw model outputs into answers a scorer can compare.

Video-language models answer in many shapes: a bare letter, "The answer is
(B)", markdown, LaTeX ``\\boxed{}``, long chains of thought that mention every
option before settling on one, ``<think>`` blocks, or the option *text* instead
of its label.  Every extractor here follows the same order of trust:

1. drop the reasoning block (``strip_reasoning``); if nothing is left, use the
   text inside a closed block, but never a cut-off one (no final answer);
   a ``<answer>...</answer>`` tag, when present, is the answer;
2. the last ``\\boxed{}`` / ``\\fbox{}``;
3. the LAST explicit answer marker ("answer is", "Answer:", "I choose", ...);
4. shape-based fallbacks (a bare label, the first/last line, the last number).

Ambiguity yields ``None`` rather than a guess (see ``extract_choice``).

Speed matters: a scoring pass runs this on ~20k responses and must stay within
a small multiple of json-parsing the prediction file (extract_choice takes
~6 us on a 600-character reasoning response).  Hence: ``in``/``find`` checks
before any regex, regexes compiled once at import and written to start with a
literal or character class (so the engine skips ahead instead of trying every
position), markers looked for in the last 64 characters before the whole
text, anchored ``match`` at known positions, bounded quantifiers only (no
catastrophic backtracking), and size caps on anything handed to json/ast.
Pure standard library.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from functools import lru_cache
from typing import Sequence

__all__ = [
    "strip_reasoning",
    "reasoning_cut_off",
    "read_cut_off_reasoning",
    "last_boxed",
    "extract_choice",
    "extract_number",
    "extract_int_list",
    "extract_blanks",
    "extract_short_answer",
]

# Sentinel: "this strategy found nothing, try the next one" (as opposed to
# None, which means "decided: no usable / ambiguous answer").
_MISS = object()


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------

def _lower(s: str) -> str:
    """Lower-case keeping indices aligned with ``s``.

    ``str.lower`` can change the length of a few characters (e.g. 'İ'); every
    position found in the lowered copy is used to slice the original, so fall
    back to per-character lowering in that rare case.
    """
    low = s.lower()
    if len(low) != len(s):
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in s)
    return low


# Reasoning delimiters used by R1/Qwen3/QwQ (<think>), other chat templates,
# Kimi-VL (◁think▷) and Sky-T1/OpenThoughts (<|begin_of_thought|>).
_OPEN_TAGS = ("<think>", "<thinking>", "<reasoning>", "◁think▷", "<|begin_of_thought|>")
_CLOSE_TAGS = ("</think>", "</thinking>", "</reasoning>", "◁/think▷", "<|end_of_thought|>")
_ALL_TAGS_RE = re.compile(
    r"</?(?:think|thinking|reasoning)>|◁/?think▷|<\|(?:begin|end)_of_(?:thought|solution)\|>",
    re.I,
)
# What remains of the Sky-T1 style solution wrapper after the thought block.
_SOLUTION_TAGS_RE = re.compile(r"<\|(?:begin|end)_of_solution\|>", re.I)


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
        low = _lower(text)
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
        out = _SOLUTION_TAGS_RE.sub("", out)
    return out.strip()


def reasoning_cut_off(text) -> bool:
    """True if ``text`` is only an unclosed reasoning trace: an opening tag, no
    closing tag, and nothing before it, i.e. the model ran out of tokens
    before giving a final answer.

    Such a response has no final answer: a guess half-way through a trace
    ("I think the answer might be C") is not one, so extractors read nothing
    from it.  ``read_cut_off_reasoning`` restores reading it (a scoring
    option, off by default)."""
    if not text or not isinstance(text, str) or ("<" not in text and "◁" not in text):
        return False
    if strip_reasoning(text):
        return False
    low = _lower(text)
    return _last_close(low) < 0 and _first_open(low) >= 0


def read_cut_off_reasoning(text):
    """``text`` with the tags of a cut-off trace removed, so the extractors read
    the trace as if it were the answer; any other text unchanged."""
    if reasoning_cut_off(text):
        return _ALL_TAGS_RE.sub(" ", text).strip()
    return text


_FULLWIDTH = {c: c - 0xFEE0 for r in ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A))
              for c in range(r[0], r[1] + 1)}


def _prep(text) -> tuple[str, str]:
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
    if not t:
        if reasoning_cut_off(text):
            return "", ""  # no final answer: the trace is not read (see reasoning_cut_off)
        t = _ALL_TAGS_RE.sub(" ", text).strip()
        if not t:
            return "", ""
    low = _lower(t)
    p = low.rfind("<answer>")
    if p >= 0:
        q = low.find("</answer>", p)
        if q < 0:
            q = len(t)
        inner = t[p + 8:q].strip()
        if inner:
            off = p + 8 + (len(t[p + 8:q]) - len(t[p + 8:q].lstrip()))
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


def _boxed_spans(text: str, last_only: bool) -> list[tuple[int, int]]:
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


def _clean_boxed(s: str) -> str:
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
    spans = _boxed_spans(text, last_only=True)
    if not spans:
        return None
    a, b = spans[0]
    return _clean_boxed(text[a:b])


# ---------------------------------------------------------------------------
# Multiple choice
# ---------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def _label_map(labels: tuple) -> dict:
    """Upper-cased label key -> the caller's label (returned verbatim)."""
    out = {}
    for lab in labels:
        key = str(lab).strip().strip("().").upper()
        if key:
            out[key] = lab
    return out


_NORM_RE = re.compile(r"[^\W_]+")


def _norm(s: str) -> str:
    """Lower-case words only: punctuation, markdown and spacing don't matter."""
    return " ".join(_NORM_RE.findall(s.lower()))


_OPT_PREFIX_RE = re.compile(r"\s*[\(\[]?([A-Za-z]|[0-9]{1,2})[\)\].:]\s+")


@lru_cache(maxsize=65536)  # above the largest suite's MCQ count
def _norm_options(options: tuple, labels: tuple) -> tuple:
    """(normalised option text, label) pairs; cached because the same question
    is scored for every submitted model."""
    out = []
    for lab, opt in zip(labels, options):
        if opt is None:
            continue
        s = str(opt)
        # Some datasets keep "A. " inside the option text itself.
        m = _OPT_PREFIX_RE.match(s)
        if m and m.group(1).upper() == str(lab).strip().upper():
            s = s[m.end():]
        ns = _norm(s)
        if len(ns) >= 2:  # a 1-char option text would collide with labels
            out.append((ns, lab))
    return tuple(out)


def _max_opt_len(opts) -> int:
    return max((len(ns) for ns, _ in opts), default=0)


def _option_exact(line: str, opts) -> object:
    # Normalising only drops characters, so a line more than twice as long as
    # the longest option (plus slack for markdown) cannot match: skip the work.
    if len(line) > 2 * _max_opt_len(opts) + 40:
        return _MISS
    ln = _norm(line)
    if not ln:
        return _MISS
    hits = {lab for ns, lab in opts if ns == ln}
    if len(hits) == 1:
        return hits.pop()
    return None if hits else _MISS


def _option_contained(line: str, opts) -> object:
    """Label whose option text occurs (whole words) in ``line``.

    Several hits: the longest wins only if every other hit is part of it
    ("dark red" beats "red"); otherwise the line is ambiguous -> _MISS.
    """
    ln = " " + _norm(line) + " "
    if len(ln) <= 3:
        return _MISS
    hits = [(ns, lab) for ns, lab in opts if (" " + ns + " ") in ln]
    if not hits:
        return _MISS
    if len(hits) == 1:
        return hits[0][1]
    hits.sort(key=lambda h: len(h[0]), reverse=True)
    best_ns, best_lab = hits[0]
    padded = " " + best_ns + " "
    for ns, lab in hits[1:]:
        if lab != best_lab and (len(ns) == len(best_ns) or (" " + ns + " ") not in padded):
            return _MISS
    return best_lab


# A label at a known position (after an answer marker, at the start of the
# response, inside a box).  Leading junk: markdown, quotes, colon leftovers,
# inline-math openers, \text{ wrappers, and words like "option".
_LEAD_RE = re.compile(
    r"""[\s*_#>`'"“”‘’:：=\-–—]{0,40}
        (?:\\\(|\\\[|\$\$?)?\s*
        (?:\\(?:text|textbf|mathrm|mathbf)\s*\{\s*)?
        (?:(?i:the\s+)?(?:(?i:option|choice|letter|statement)\b\s*[:：\#]?\s*)?(?i:number\s+)?
          |选项|選項)?
        (?P<o>[\(\[（])?\s*
        (?P<l>[A-Za-z]|[0-9]{1,2})(?![A-Za-z0-9])
        (?:\s*(?P<c>[\)\]）]))?
    """,
    re.X,
)
# Words after which a capital "A"/"I" is an option label rather than the
# article/pronoun: "A or B", "A is wrong", "I and J" vs "A man", "I think".
_A_LABEL_NEXT = frozenset(
    "or and nor is was are were both seems seem looks look vs because since as would could might can does "
    "fits matches best correct describes shows appears also only isn't doesn't".split()
)
_I_LABEL_NEXT = frozenset("or and nor is are were both vs seems fits matches appears".split())


_NEXT_WORD_RE = re.compile(r" ([a-z][a-z'’]{0,12})")


def _is_article(t: str, end: int, tok: str) -> bool:
    """True if capital ``tok`` ("A"/"I") ending at ``end`` starts running text."""
    m = _NEXT_WORD_RE.match(t, end)
    if m is None:
        return False
    return m.group(1) not in (_A_LABEL_NEXT if tok == "A" else _I_LABEL_NEXT)


# Characters that end a label token cleanly ("B.", "B)", "**B**", "B:").
_DELIMS = frozenset(".,:;!?*)]}\n\r\"'`_$\\<”’，。；：！？、）】」』")
# "A or B", "(A) and (C)", "B/C", "B, D": two different labels given.
_AMBIG_RE = re.compile(
    r"\s*(?:,|/|&|\bor\b|\band\b)\s*(?:(?i:option|choice)\s+)?[\(\[]?\s*([A-Z]|[0-9]{1,2})(?![A-Za-z0-9])"
)


# A label followed by a question mark is asked about, not answered.
_QUESTIONED_RE = re.compile(r"[\s*_)\]）]{0,4}[?？]")


def _label_at(t: str, pos: int, lab: dict, strict: bool):
    """Parse a label at ``pos``.

    Returns (label | None-for-ambiguous | _MISS, article_like).  article_like
    flags an uppercase "A " followed by a lowercase word, which may be the
    English article starting an option text ("A man is running").
    """
    m = _LEAD_RE.match(t, pos)
    if not m:
        return _MISS, False
    ltok = m.group("l")
    label = lab.get(ltok.upper())
    if label is None:
        return _MISS, False  # e.g. "F" when labels are A-E: not an answer
    end = m.end()
    nxt = t[end:end + 2]
    c0 = nxt[:1]
    c1 = nxt[1:2]
    wrapped = m.group("o") is not None or m.group("c") is not None
    delim = (not c0) or c0 in _DELIMS or (c0 in " \t" and (not c1 or c1 in "-–—(\n*"))
    article = False
    if ltok.isdigit():
        # "3.5 seconds" or "1,000" is a number, not option 3 / 1.
        if (c0 == "." or c0 == ",") and c1.isdigit():
            return _MISS, False
    elif ltok.islower():
        # Lowercase only when it cannot be running text: "answer is b." yes,
        # "answer is a cup" no.
        if not (wrapped or delim):
            return _MISS, False
    elif not wrapped and ltok == "I" and c0 and c0 in "'’":
        return _MISS, False  # "I'm", "I'd", "I've": the pronoun
    elif not wrapped and ltok in "AI" and _is_article(t, end, ltok):
        if ltok == "I":
            return _MISS, False  # pronoun: "Answer: I think ..."
        article = True
    if strict and not (wrapped or delim):
        return _MISS, False
    if _QUESTIONED_RE.match(t, end):
        return None, False  # "The answer is A?": a guess put as a question
    am = _AMBIG_RE.match(t, end)
    if am:
        tok2 = am.group(1)
        lab2 = lab.get(tok2)
        if lab2 is not None and lab2 != label:
            # Mid-sentence, a capital "A" after "B and" is a label, not the article.
            if not (tok2 == "I" and _is_article(t, am.end(), tok2)):
                return None, False
    return label, article


def _first_line(t: str, pos: int) -> str:
    """First non-empty line from ``pos`` with markdown/quote decoration trimmed."""
    n = len(t)
    while pos < n:
        e = t.find("\n", pos)
        if e < 0:
            e = n
        line = t[pos:min(e, pos + 300)].strip(" \t\r*_#>`'\"“”:：-")
        if line:
            return line
        pos = e + 1
    return ""


# Phrases that state there is no answer ("Answer: N/A", "None of the above").
_NO_ANSWER_RE = re.compile(
    r"""[\s*_#>`'"“”:：=\-–—]{0,10}(?:n/?a\b|none\b|neither\b|no\s+(?:correct\s+|right\s+|single\s+)?(?:answer|option|choice)
        |(?:cannot|can['’]?t)\s+(?:be\s+)?determine|unknown\b|unclear\b|insufficient\b|not\s+enough\b)""",
    re.X | re.I,
)


def _negated_label(t: str, pos: int) -> bool:
    """True if the label parsed at ``pos`` is rejected right after ("A is not correct")."""
    m = _LEAD_RE.match(t, pos)
    if m is None or t[m.end():m.end() + 1] not in (" ", "*", ")", "\t"):
        return False  # a rejection needs a space after the label; most answers end there
    return _NEG_AFTER_RE.match(t[m.end():m.end() + 40].lower()) is not None


def _decide_span(t: str, pos: int, lab: dict, opts, strict: bool):
    """Choice stated at ``pos`` (after a marker, or a box's content)."""
    if _NO_ANSWER_RE.match(t, pos):
        return None  # "Answer: N/A": the response says it has no answer
    line = None
    if opts:
        line = _first_line(t, pos)
        if not line:
            return _MISS
        if len(line) > 1:
            r = _option_exact(line, opts)
            if r is not _MISS:
                return r
    r, article = _label_at(t, pos, lab, strict)
    if r is not _MISS:
        if article:
            # "Answer: A man is running" may be option text, not label A; with no
            # option text to tell, "Answer: A lot is missing" is no label at all.
            r2 = _option_contained(line, opts) if opts else _MISS
            return None if r2 is _MISS else r2
        if r is not None and _negated_label(t, pos):
            return None  # "Answer: A is not correct": rejects A, chooses nothing
        return r
    if opts and not strict:
        return _option_contained(line, opts)
    return _MISS


# Answer markers.  Keywords are located in one pass over the lower-cased text
# (_KW_RE below) and each hit is confirmed with an anchored regex at its
# position.  The \b after the verbs keeps "the answer isn't B" from reading
# as "the answer is".
_CONNECT = (
    r"(?:\*\*|__)?\s*(?:(?:is|was|would\s+be|should\s+be|must\s+be|will\s+be|seems\s+to\s+be|"
    r"appears\s+to\s+be|here\s+is|to\s+(?:this|the)\s+question\s+is)\b|[:：=]|-(?=\s))"
    r"(?:\s+(?:likely|probably|clearly|therefore|thus|then|indeed|definitely|most\s+likely))?"
    r"\s*(?:\*\*|__)?\s*[:：]?"
)
# ["']? : a JSON key, {"answer": "B"}.
_M_ANSWER = re.compile(r"answers?(?:\s+(?:choice|option|letter))?[\"']?\s*" + _CONNECT, re.I)
_M_FINAL = re.compile(r"final\s+answer\s*(?:\*\*|__|#|\))*\s*(?:is\b|[:：=])?", re.I)
_OPT_CONNECT = r"\s*(?:\*\*)?\s*(?:here\s+)?(?:(?:is|would\s+be)\b|[:：])"
_VERB_TAIL = r"\b\s*(?:\*\*)?\s*:?"
# Keywords sharing a prefix ("cho" for choice/choose/chose) are one entry in
# _KW_RE and told apart by the anchored regex.
_M_OPT = re.compile(r"option" + _OPT_CONNECT + r"|opt\s+for" + _VERB_TAIL, re.I)
_M_CHO = re.compile(r"choice" + _OPT_CONNECT + r"|(?:choose|chose)" + _VERB_TAIL, re.I)
_M_SELECT = re.compile(r"selection" + _OPT_CONNECT + r"|select(?:ed)?" + _VERB_TAIL, re.I)
_M_PICK = re.compile(r"pick(?:ed)?" + _VERB_TAIL, re.I)
_M_GO = re.compile(r"go(?:ing)?\s+with" + _VERB_TAIL, re.I)
_M_THEREFORE = re.compile(r"(?:therefore|thus|hence|so)\b\s*,?", re.I)
_M_STATEMENT = re.compile(r"statement" + _OPT_CONNECT, re.I)
_M_GUESS = re.compile(r"guess\s*" + _CONNECT, re.I)
# Hedged answers: "I'm fairly sure it's 5.", "I'd say C."  Strict: "it's 3 seconds" is not one.
_M_ITS = re.compile(r"(?:it['’]s|it\s+is|say|probably)\b\s*,?\s*(?:(?:probably|likely|definitely|clearly)\s+)?", re.I)
# A self-correction: "B... wait, actually C."  Strict: "actually, B is wrong" is not one.
# "I think Option 3."  Strict: "I think B is wrong" is not one.
_M_THINK = re.compile(r"(?:think|believe)\b\s*(?:that\s+)?(?:it['’]s\s+|it\s+(?:is|would\s+be)\s+)?", re.I)
# "The coach's feedback corresponds to statement number 3."
_M_CORRESPOND = re.compile(
    r"correspond(?:s|ing)?\s+(?:to|with)\s+(?=(?:the\s+)?(?i:option|statement|choice)\b)", re.I
)
# A verdict word BEFORE the label: "The most accurate feedback is Option 3",
# "The best fit is C", "Best match → 3".  At most four lower-case words
# (the noun) between the verdict and "is", so "the best ... for B is" is not one.
_M_VERDICT_PRE = re.compile(
    r"(?i:best|accurate|correct|right|appropriate|plausible|suitable)(?:\s+[a-z'’]+){0,4}?\s*(?:\*\*)?\s*"
    r"(?:(?:is|would\s+be|should\s+be|must\s+be|seems\s+to\s+be)\b|[:：=]|→|->|=>)"
)
# "C it is.": the label, then "it is" closing the sentence.
_LABEL_IT_IS_RE = re.compile(r"[\(\[]?([A-Za-z]|[0-9]{1,2})[\)\]]?\s+it\s+is\s*(?:[.!\n]|$)")
_M_ACTUALLY = re.compile(r"actually\b\s*,?\s*(?:it['’]s\s+|it\s+is\s+)?", re.I)
# Answer markers in other languages, each anchored at its keyword: Chinese
# (答案是 / 答案： / 正确答案是 / 我选择 / 选), Japanese (答えは / 正解は), Korean
# (정답은), Spanish, French, Portuguese, Italian, German, Russian.
_M_INTL = re.compile(
    r"""(?:(?:答案|答え|正解|정답)\s*(?:应该|應該|应|應|就)?\s*(?:是|为|為|は|은|는|[:：=]|选|選)\s*(?:选项|選項)?
        |(?:选择|選擇|选|選)(?![项項])\s*[了:：]?\s*(?:选项|選項)?
        |(?:respuesta|r[ée]ponse|antwort|resposta|risposta|ответ)
           (?:\s+(?:correcta|correcte|correta|corretta|richtige|final|finale|правильный))?
           \s*(?:\b(?:es|est|ist|lautet|é|è)\b|[:：]|[—–-](?=\s))
           \s*(?:(?:la|le|die|a|l['’])\s*)?(?:(?:opci[óo]n|option|opção|opzione|вариант)\s+)?
        |opci[óo]n\s+(?:correcta\s+)?es\s+(?:la\s+)?
        |(?:elijo|escojo|choisis|w[äa]hle)\s+(?:(?:la|le|l['’]|die)\s*)?(?:(?:opci[óo]n|option)\s+)?
        |(?:最(?:准确|準確|佳|合适|合適|符合|恰当|恰當)|正确|正確)[^\n。，,；;]{0,10}?(?:是|为|為)\s*(?:选项|選項)?
        )""",
    re.X | re.I,
)

# Every marker keyword, found in ONE regex pass over the (lower-cased) text;
# each hit is then confirmed with an anchored regex at its position.  The
# lookbehind keeps hits at word starts ("also" is not "so").
_KW_RE = re.compile(
    r"(?<![a-z])(?:answer|opt|cho|select|pick|go(?:ing)?\s+with|therefore|thus|hence|so\b"
    r"|statement|guess|actually|it['’]s|it\s+is|say|probably|think|believe|correspond"
    r"|correct|right|best|accurate|appropriate|plausible|suitable|最|正确|正確"
    r"|答案|答え|正解|정답|选|選|respuesta|r[ée]ponse|antwort|resposta|risposta|ответ|opci[óo]n"
    r"|elijo|escojo|choisis|w[äa]hle)"
)
# keyword -> (confirming regex, strict label parsing) for markers that come
# BEFORE the label.  "answer" also covers "Final Answer" (see _scan_markers).
_PRE_MARKERS = {
    "answer": (_M_ANSWER, False),
    "opt": (_M_OPT, False),
    "cho": (_M_CHO, False),
    "select": (_M_SELECT, False),
    "pick": (_M_PICK, False),
    "go": (_M_GO, False),
    "therefore": (_M_THEREFORE, True),
    "thus": (_M_THEREFORE, True),
    "hence": (_M_THEREFORE, True),
    "so": (_M_THEREFORE, True),  # strict: "so D." yes, "so A man ..." no
    "statement": (_M_STATEMENT, False),
    "guess": (_M_GUESS, False),
    "actually": (_M_ACTUALLY, True),
    "it is": (_M_ITS, True),  # also "it's" (see _scan_markers_from)
    "probably": (_M_ITS, True),
    "say": (_M_ITS, True),
    "think": (_M_THINK, True),
    "believe": (_M_THINK, True),
    "correspond": (_M_CORRESPOND, True),
}
for _kw in ("答案", "答え", "正解", "정답", "选", "選", "respuesta", "réponse", "reponse", "antwort",
            "resposta", "risposta", "ответ", "opción", "opcion", "elijo", "escojo", "choisis",
            "wähle", "wahle", "最", "正确", "正確"):
    _PRE_MARKERS[_kw] = (_M_INTL, False)
# After a verdict keyword: end of sentence or a word that keeps it a verdict
# ("B is correct because", "the best answer"), not "the correct distractor".
_POST_AFTER_RE = re.compile(
    r"(?:one|answer|option|choice|response|description|match|fit|here|because|since|as|given)?\b\s*"
    r"(?:$|[.,;:!?)\n*(\-–—]|\b(?:answer|option|choice|because|since|as|given|feedback|statement|description)\b)",
    re.I,
)
# "B is correct", "(C) is the best answer", "Option 2 seems the most accurate":
# the label comes BEFORE the keyword, so this is searched in a short window
# ending at the keyword and anchored there with $.
_POST_RE = re.compile(
    r"""(?<![\w'’])(?P<w>(?i:option|choice|statement)\s+)?(?P<o>[\(\[])?\**(?P<l>[A-Za-z]|[0-9]{1,2})\**(?P<c>[\)\]])?\**
        (?:\s+(?P<is>(?i:is|was|seems|appears|would\s+be|provides|gives|offers))\s+(?i:to\s+be\s+)?(?i:the\s+)?
           (?i:(?:most|more|clearly|definitely|likely|probably|only|also)\s+)?
         |\s+)$""",
    re.X,
)


def _is_word_start(low: str, p: int) -> bool:
    return p == 0 or not low[p - 1].isalpha()


# The final answer is nearly always near the end: markers are first looked
# for in this many trailing characters, and only if none is found there in
# the rest.  A hit in the tail is later than any hit before it, so the result
# is the same as a full scan.
_TAIL = 64


def _choice_from_markers(t: str, low: str, lab: dict, opts):
    """Choice given by the LAST answer marker that actually names one."""
    n = len(low)
    lo = n - _TAIL if n > _TAIL + 100 else 0
    r = _scan_markers(t, low, lab, opts, lo, n)
    if r is _MISS and lo:
        r = _scan_markers(t, low, lab, opts, 0, n)
    return r


# A note or aside after the answer: "Answer: B\nNote: C is also plausible."
_NOTE_RE = re.compile(r"(?<![\w])(?:note|n\.b\.|p\.s\.|nota|remarque|anmerkung|注意|注|备注)\s*[:：]")


def _choice_before_note(t: str, low: str, lab: dict, opts):
    """The answer committed before the first note, if a marker gives one there:
    what a note says about other options is commentary, not the answer."""
    m = _NOTE_RE.search(low)
    if m is None or m.start() == 0:
        return _MISS
    p = m.start()
    return _choice_from_markers(t[:p], low[:p], lab, opts)


_ALSO_RE = re.compile(r"\balso\b|\btoo\b|\bas\s+well\b")
_STRONG_VERDICTS = frozenset(("correct", "right"))


def _scan_markers(t: str, low: str, lab: dict, opts, start: int, end: int):
    """Choice of the last marker in low[start:end] that names one (or _MISS).

    A verdict given "also" ("C is also plausible") adds to an answer rather
    than giving one: it is skipped, and if it is a strong one ("C is also
    correct") naming another label than the answer found, the response is
    ambiguous."""
    also = None
    r = _scan_markers_from(t, low, lab, opts, start, end)
    while isinstance(r, tuple):  # an "also" verdict: (label, strong, position)
        label, strong, p = r
        if strong and also is None:
            also = label
        r = _scan_markers_from(t, low, lab, opts, start, p)
    if also is not None and r is not _MISS and r != also:
        return None
    return r


_VERDICT_WORDS = frozenset(("best", "accurate", "correct", "right", "appropriate", "plausible", "suitable"))


def _label_before_it_is(t: str, p: int, lab: dict):
    """"C it is." -> C: a label opening the sentence that "it is" (at ``p``) closes."""
    for back in range(2, 8):  # "C it is", "(C) it is", "10 it is"
        q = p - back
        if q < 0:
            break
        m = _LABEL_IT_IS_RE.match(t, q)
        if m and m.end(1) <= p and _sentence_start(t, q) and (q == 0 or not t[q - 1].isalnum()):
            lb = lab.get(m.group(1).upper())
            if lb is not None and not m.group(1).islower():
                return lb
    return _MISS


def _scan_markers_from(t: str, low: str, lab: dict, opts, start: int, end: int):
    for m in reversed(list(_KW_RE.finditer(low, start, end))):
        p = m.start()
        kw = m.group()
        if kw.startswith("go"):
            kw = "go"
        elif kw.startswith("it"):
            kw = "it is"
        pre = _PRE_MARKERS.get(kw)
        if pre is not None:
            rx, strict = pre
            mm = rx.match(t, p)
            if mm is None and kw == "answer" and low.startswith("final ", p - 6):
                mm = _M_FINAL.match(t, p - 6)  # "**Final Answer**\n\nB"
            if mm is None:
                continue
            if kw in ("think", "believe") and low.endswith(("n't ", "not "), 0, p):
                continue  # "I don't think B"
            r = _decide_span(t, mm.end(), lab, opts, strict)
            if r is None and kw in ("think", "believe"):
                continue  # "I think A and B are wrong": an aside, not an answer
            if r is _MISS and kw == "it is":
                r = _label_before_it_is(t, p, lab)
            if r is not _MISS:
                return r
            continue
        if kw in _VERDICT_WORDS and (mm := _M_VERDICT_PRE.match(t, p)) is not None:
            r = _decide_span(t, mm.end(), lab, opts, False)
            if r is not _MISS:
                return r
        # Verdict after the label: "B is correct", "(C) is the best answer".
        pm = _POST_RE.search(t, max(0, p - 60), p)
        # Without "is" only "(B) best matches ..." reads as a verdict.
        if pm is None or (pm.group("is") is None and kw != "best"):
            continue
        if kw != "best" and not _POST_AFTER_RE.match(t, p + len(kw)):
            continue  # "the correct distractor", "the right hand"
        ltok = pm.group("l")
        label = lab.get(ltok.upper())
        if label is None:
            continue
        # Lowercase "a is correct" / pronoun "I" is running text unless marked up.
        if (ltok.islower() or ltok == "I") and not (pm.group("w") or pm.group("o")):
            continue
        if _ALSO_RE.search(low, pm.start(), p) or _ALSO_RE.match(low, p + len(kw) + 1):
            return label, kw in _STRONG_VERDICTS, pm.start()
        return label
    return _MISS


_SHORT_RE = re.compile(
    r"""[\s*_#`'"“”(\[]{0,10}
        (?:(?i:the\s+)?(?i:answer|option|choice|letter|statement|number)\s*[:：]?\s*|选项|選項)?
        [\(\[]?\s*(?P<l>[A-Za-z]|[0-9]{1,2})\s*[\)\]]?\s*[.:]?[\s*_`'"”)\]]{0,10}""",
    re.X,
)
_ENUM_LINE_RE = re.compile(
    r"^[ \t*_#>\-]*(?:(?i:option|choice|statement)\s*)?[\(\[]?([A-Za-z]|[0-9]{1,2})(?:[\)\]]|[.:：](?!\d))", re.M
)
# Strong label mentions, as separate simple patterns: each starts with a
# literal or a plain character class, which the regex engine scans for
# quickly (one combined alternation with lookbehinds was ~4x slower).
_PAREN_MENTION_RE = re.compile(r"\(([A-Za-z]|[0-9]{1,2})\)")  # (B)
_BOLD_MENTION_RE = re.compile(r"\*\*\(?([A-Za-z]|[0-9]{1,2})[\).:]?\*\*")  # **B**
_WORD_MENTION_RE = re.compile(r"(?:option|choice|statement)\s+\(?([a-z]|[0-9]{1,2})(?![a-z0-9])")  # option b (on low)
_CAPITAL_RE = re.compile(r"[A-Z](?![\w'’\-])")  # a lone capital letter


def _enumerated(t: str, lab: dict) -> bool:
    """True if several lines start with different labels ("A. ...\\nB. ...").

    Such text walks through the options, so its first/last line is not an
    answer."""
    seen = set()
    for m in _ENUM_LINE_RE.finditer(t):
        lb = lab.get(m.group(1).upper())
        if lb is not None:
            seen.add(lb)
            if len(seen) > 1:
                return True
    return False


_NEG_AFTER_RE = re.compile(
    r"\**\)?\**\s+(?:is|was|seems|appears)?\s*(?:not\b|incorrect|wrong|false|ruled\s+out|eliminated|unlikely|bad\b|inaccurate|irrelevant)"
    r"|\**\)?\**\s+(?:isn't|can\s+be\s+ruled|can\s+be\s+eliminated)"
)


def _negated(low: str, start: int, end: int) -> bool:
    """"not B", "isn't (C)", "B is wrong": a mention that rejects the label."""
    before = low[max(0, start - 12):start]
    if before.endswith(("not ", "not (", "n't ", "n't (", "not option ", "than ", "n't think ", "not think ")):
        return True
    return _NEG_AFTER_RE.match(low, end) is not None


def _sentence_start(t: str, pos: int) -> bool:
    """True if only spacing/markup separates ``pos`` from a sentence start."""
    i = pos - 1
    while i >= 0 and t[i] in " \t*_\"'“‘(":
        i -= 1
    return i < 0 or t[i] in ".!?:;\n"


# "Both B and I describe it": two labels given together, whatever the words after.
_BOTH_RE = re.compile(
    r"\b(?i:both)\s+(?:(?i:options?|choices?|statements?)\s+)?[\(\[]?([A-Za-z]|[0-9]{1,2})[\)\]]?"
    r"\s*(?:,|&|(?i:and))\s*(?:(?i:options?|choices?|statements?)\s+)?[\(\[]?([A-Za-z]|[0-9]{1,2})(?![\w'’])"
)


def _both(t: str, lab: dict) -> bool:
    for m in _BOTH_RE.finditer(t):
        a, b = lab.get(m.group(1).upper()), lab.get(m.group(2).upper())
        if a is not None and b is not None and a != b:
            return True
    return False


def _mentions(t: str, low: str, lab: dict):
    """The single label mentioned in a strong form anywhere, else _MISS.

    Negated mentions ("not B", "B is wrong") do not count; a label asked
    about ("Could it be A?") is a guess, not an answer -> None."""
    seen = set()
    asked = False
    for rx, src in ((_PAREN_MENTION_RE, t), (_BOLD_MENTION_RE, t), (_WORD_MENTION_RE, low)):
        if rx is _PAREN_MENTION_RE and "(" not in t:
            continue
        if rx is _BOLD_MENTION_RE and "**" not in t:
            continue
        for m in rx.finditer(src):
            if rx is _WORD_MENTION_RE and m.start() and low[m.start() - 1].isalnum():
                continue
            lb = lab.get(m.group(1).upper())
            if lb is not None and not _negated(low, m.start(), m.end()):
                seen.add(lb)
                asked = asked or _QUESTIONED_RE.match(src, m.end()) is not None
                if len(seen) > 1:
                    return _MISS
    for m in _CAPITAL_RE.finditer(t):
        st = m.start()
        if st and (t[st - 1].isalnum() or t[st - 1] in "_'’-"):
            continue  # inside a word or a contraction
        tok = m.group()
        lb = lab.get(tok)
        if lb is None:
            continue
        if tok in "AI" and _is_article(t, m.end(), tok) and (tok == "I" or _sentence_start(t, st)):
            continue  # article / pronoun in running text ("and A describe": a label)
        if _negated(low, st, m.end()):
            continue
        seen.add(lb)
        asked = asked or _QUESTIONED_RE.match(t, m.end()) is not None
        if len(seen) > 1:
            return _MISS
    if seen and "both" in low and _both(t, lab):
        return _MISS
    if asked:
        return None
    return seen.pop() if seen else _MISS


# ---- Rules for whole responses, used by extract_choice -------------------

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
    opts = _norm_options(tuple(options), labels_t) if options else None

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
    r = _choice_from_checklist(t, lab)
    if r is not _MISS:
        return r

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


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------

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
_HAS_DIGIT_RE = re.compile(r"[0-9]")
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
        if _HAS_DIGIT_RE.search(line):
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


_NUM_MARKERS = (("answer", _M_ANSWER), ("final answer", _M_FINAL))


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
            if not _is_word_start(low, p):
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
    t, low = _prep(text)
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
    has_digit = _HAS_DIGIT_RE.search(t) is not None
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


# ---------------------------------------------------------------------------
# Integer lists (step numbers)
# ---------------------------------------------------------------------------

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
        if _HAS_DIGIT_RE.search(ln):
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
    t, low = _prep(text)
    if not t:
        return None
    if "\\boxed" in t or "\\fbox" in t:
        b = last_boxed(t)
        if b:
            r = _ints_in(b)
            if r:
                return r
    if not _HAS_DIGIT_RE.search(t):
        return None
    hits = list(_INT_MARK_RE.finditer(low))
    for m in reversed(hits):
        e = m.end()
        nl = t.find("\n", e)
        line = t[e:nl if nl >= 0 else len(t)]
        if _HAS_DIGIT_RE.search(line):
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
    while i >= 0 and not _HAS_DIGIT_RE.search(lines[i]):
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


# ---------------------------------------------------------------------------
# Fill in the blanks
# ---------------------------------------------------------------------------

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
        s = _clean_boxed(s)
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


# Untrusted text goes to json/literal_eval: cap its size, and treat any error
# (RecursionError on deep nesting, ValueError on a 5000-digit int, ...) as
# "not a literal".
_MAX_LITERAL = 20000


def _literal_eval(s: str):
    """ast.literal_eval without the Deprecation/SyntaxWarnings it emits for
    odd escapes (e.g. "\\<") in model text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(s)


def _parse_list_literal(s: str) -> list[str] | None:
    if len(s) > _MAX_LITERAL:
        return None
    try:
        try:
            v = json.loads(s)
        except (ValueError, RecursionError):
            v = _literal_eval(s)  # single quotes; never executes code
        if not isinstance(v, (list, tuple)):
            return None
        out = []
        for x in v:
            if isinstance(x, (list, tuple, dict)):
                return None
            out.append(_clean_item(str(x)))
    except Exception:  # noqa: BLE001 - see _MAX_LITERAL
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


def _blank_candidates(t: str, low: str, n: int | None):
    """Candidate item lists, most trusted first (lazily, to stop early)."""
    if "\\boxed" in t or "\\fbox" in t:
        spans = _boxed_spans(t, last_only=False)
        if spans:
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
            contents = [_clean_boxed(t[a:b]) for a, b in group]
            last_items = _split_items(contents[-1], n)
            multi = [c for c in (_clean_item(x) for x in contents) if c]
            if n is not None and n >= 2 and len(multi) >= n and len(last_items) < n:
                yield multi[-n:]
            elif n is None and len(multi) >= 2 and len(last_items) == 1:
                yield multi
            yield last_items
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
    t, low = _prep(text)
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


# ---------------------------------------------------------------------------
# Short answers with confidence (Video SimpleQA)
# ---------------------------------------------------------------------------

_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")
_ANSWER_KEYS = ("answer", "final_answer", "final answer")
_CONF_KEYS = ("confidence_score", "confidence", "confidence score", "confidence_level")
_SALVAGE_ANSWER_RE = re.compile(
    r"""["'](?i:answer|final_answer)["']\s*:\s*
        (?:"([^\n]{0,2000}?)"(?=\s*(?:,\s*["'][\w ]|}|$))
          |'([^\n]{0,2000}?)'(?=\s*(?:,\s*["'][\w ]|}|$))
          |([^,}\n"']{1,200}))""",
    re.X,
)
_SALVAGE_CONF_RE = re.compile(
    r"""["'](?i:confidence_score|confidence)["']\s*:\s*["']?\s*(-?[0-9]+(?:\.[0-9]+)?)\s*%?"""
)


def _parse_obj(s: str):
    if len(s) > _MAX_LITERAL:
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
        return _literal_eval(s2)
    except Exception:  # noqa: BLE001 - any failure means "not an object"
        return None


def _confidence(v) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, str):
        v = v.strip().rstrip("%").strip()
        try:
            v = float(v)
        except ValueError:
            return None
    if not isinstance(v, (int, float)):
        return None
    try:
        v = float(v)
    except OverflowError:
        return None
    if not math.isfinite(v) or v < 0 or v > 100:
        return None
    return v


def _answer_str(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, (list, tuple)):
        return ", ".join(_answer_str(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def _from_dict(d) -> tuple[str, float | None] | None:
    if not isinstance(d, dict):
        return None
    keys = {str(k).strip().lower(): k for k in d}
    ans_key = next((keys[k] for k in _ANSWER_KEYS if k in keys), None)
    if ans_key is None:
        return None
    conf_key = next((keys[k] for k in _CONF_KEYS if k in keys), None)
    try:
        conf = _confidence(d[conf_key]) if conf_key is not None else None
        return _answer_str(d[ans_key]), conf
    except (ValueError, RecursionError):  # e.g. str() of a 5000-digit int
        return None


def extract_short_answer(text: str) -> tuple[str, float | None]:
    """(answer, confidence 0-100 or None) from a {"answer", "confidence_score"} reply.

    Parses the first '{' .. last '}' (then the last '{' .. last '}' if that
    fails), tolerating ```json fences, single quotes, trailing commas, a
    'confidence' key and confidences given as '85' or '85%'.  If the JSON is
    broken but a quoted "answer" key is readable, that value is salvaged.
    Otherwise returns (the response without reasoning, trimmed of whitespace
    and quotes, None).  Confidence outside 0..100 -> None.
    """
    t, _ = _prep(text)
    if not t:
        return "", None
    i = t.find("{")
    if i >= 0:
        j = t.rfind("}")
        if j > i:
            r = _from_dict(_parse_obj(t[i:j + 1]))
            if r is None:
                k = t.rfind("{", i + 1, j)
                if k > i:
                    r = _from_dict(_parse_obj(t[k:j + 1]))
            if r is not None:
                return r
        # Broken JSON (unescaped quotes, truncation): read the fields directly.
        last = None
        for m in _SALVAGE_ANSWER_RE.finditer(t, i):
            last = m
        if last is not None:
            raw = last.group(1)
            if raw is not None:
                try:
                    ans = json.loads('"' + raw + '"')
                except ValueError:
                    ans = raw
            else:
                ans = last.group(2) if last.group(2) is not None else last.group(3)
            conf = None
            for cm in _SALVAGE_CONF_RE.finditer(t, i):
                conf = _confidence(cm.group(1))
            return ans.strip().strip("\"'"), conf
    s = t
    if s.startswith("```"):
        s = s.strip("`")
        if s[:4].lower() == "json":
            s = s[4:]
    return s.strip().strip("\"'“”‘’`").strip(), None
