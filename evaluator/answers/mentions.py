"""Label mentions: the labels a response names in passing ("(B)", "**B**", "option
b", a lone capital), with the guards that keep a rejected ("not B", "I would not choose
B"), questioned ("Would B be right?") or paired ("both B and C") label from counting as
a choice; and whether a response walks through the options line by line.
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS
from evaluator.answers.labels import ARTICLE_BEFORE_RE, NEG_AFTER_RE, QUESTIONED_RE, is_article
from evaluator.answers.markers import sentence_start

ENUM_LINE_RE = re.compile(
    r"^[ \t*_#>\-]*(?:(?i:option|choice|statement|step)\s*)?[\(\[]?([A-Za-z]|[0-9]{1,2})(?:[\)\]]|[.:：](?!\d)|\s+\(|\s+→)",
    re.M
)
# Strong label mentions, as separate simple patterns: each starts with a
# literal or a plain character class, which the regex engine scans for
# quickly (one combined alternation with lookbehinds was ~4x slower).
_PAREN_MENTION_RE = re.compile(r"\(([A-Za-z]|[0-9]{1,2})\)")  # (B)
_BOLD_MENTION_RE = re.compile(r"\*\*\(?([A-Za-z]|[0-9]{1,2})[\).:]?\*\*")  # **B**
# option b, step 4 (on low; a step number is a label only where the options are steps)
_WORD_MENTION_RE = re.compile(r"(?:option|choice|statement|step)\s+\(?([a-z]|[0-9]{1,2})(?![a-z0-9])")
_CAPITAL_RE = re.compile(r"[A-Z](?![\w'’\-])")  # a lone capital letter
_OPERATORS = frozenset("·×*/^=+−")
_MATH_RE = re.compile(r"\$\$?[^$]+\$\$?|\\\(.+?\\\)|\\\[.+?\\\]", re.S)  # $...$, \(...\), \[...\]


def lists_options(t: str, lab: dict) -> bool:
    """True if several lines start with different labels ("A. ...\\nB. ...").

    Such text walks through the options, so its first/last line is not an
    answer."""
    seen = set()
    for m in ENUM_LINE_RE.finditer(t):
        lb = lab.get(m.group(1).upper())
        if lb is not None:
            seen.add(lb)
            if len(seen) > 1:
                return True
    return False


# "would not choose B", "isn't H or F": a rejection that reaches the label over a verb or a list.
_NEG_BEFORE_RE = re.compile(
    r"(?:(?:\bnot|n't|\bnever)\s+(?:(?:choose|pick|select|say|go\s+with|be)\s+)?"
    r"|\b(?:rule|rules|ruled|ruling)\s+out\s+|\b(?:eliminate|eliminates|eliminated|exclude|excludes|reject|rejects)\s+"
    r"|(?:\bnot|n't|\bno)\s+(?:see|find|notice|have)\s+(?:anything|any\s+evidence|evidence)\s+(?:supporting|for)\s+)"
    r"(?:(?:option|choice)\s+)?"
    r"(?:\(?[a-z0-9]{1,2}\)?\s*(?:,|\bor|\bnor|\band)\s*(?:option\s+)?)?\(?$")


def negated(low: str, start: int, end: int) -> bool:
    """"not B", "isn't (C)", "B is wrong", "I would not choose B", "It isn't H or F":
    a mention that rejects the label."""
    before = low[max(0, start - 12):start]
    if before.endswith(("not ", "not (", "n't ", "n't (", "not option ", "than ", "n't think ", "not think ", "n't be ")):
        return True
    if any(w in low for w in ("not", "n't", "never", "rul", "elimin", "exclud", "reject")) and \
            _NEG_BEFORE_RE.search(low, max(0, start - 40), start):
        return True
    return NEG_AFTER_RE.match(low, end) is not None


_SENTENCE_END = re.compile(r"[.!?。！？\n]")


def _in_question(t: str, end: int) -> bool:
    """True if the sentence going on at `end` ends with a question mark ("Would B be right?")."""
    m = _SENTENCE_END.search(t, end)
    return m is not None and m.group() in "?？"


# "Both B and I describe it": two labels given together, whatever the words after.
_BOTH_RE = re.compile(
    r"\b(?i:both)\s+(?:(?i:options?|choices?|statements?)\s+)?[\(\[]?([A-Za-z]|[0-9]{1,2})[\)\]]?"
    r"\s*(?:,|&|(?i:and))\s*(?:(?i:options?|choices?|statements?)\s+)?[\(\[]?([A-Za-z]|[0-9]{1,2})(?![\w'’])"
)


def names_both(t: str, lab: dict) -> bool:
    for m in _BOTH_RE.finditer(t):
        a, b = lab.get(m.group(1).upper()), lab.get(m.group(2).upper())
        if a is not None and b is not None and a != b:
            return True
    return False


def strong_mention(t: str, low: str, lab: dict):
    """The single label mentioned in a strong form anywhere, else MISS.

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
            if rx is _WORD_MENTION_RE and m.start() and low[m.start() - 1].isascii() and low[m.start() - 1].isalnum():
                continue
            lb = lab.get(m.group(1).upper())
            if lb is not None and not negated(low, m.start(), m.end()):
                seen.add(lb)
                asked = asked or QUESTIONED_RE.match(src, m.end()) is not None or _in_question(src, m.end())
                if len(seen) > 1:
                    return MISS
    maths = [m.span() for m in _MATH_RE.finditer(t)] if "$" in t or "\\" in t else []
    for m in _CAPITAL_RE.finditer(t):
        st = m.start()
        if st and (t[st - 1].isalnum() or t[st - 1] in "_'’-°|"):
            continue  # inside a word or a contraction, a unit ("°C"), a norm ("|E|")
        if any(a <= st < b for a, b in maths) or t.endswith("where ", 0, st):
            continue  # a variable: "$PV = \frac{C}{r - g}$ where C is the first cash flow"
        if st >= 2 and t[st - 1] == " " and t[st - 2].isdigit():
            continue  # a unit after an amount: "1.5 A", "10 V"
        if t[m.end():m.end() + 2].lstrip()[:1] in _OPERATORS or t[max(0, st - 2):st].rstrip()[-1:] in _OPERATORS:
            continue  # a variable in a formula: "Q = I·t"
        tok = m.group()
        if tok == "A" and ARTICLE_BEFORE_RE.match(t, m.end()):
            continue  # the article before a name or an amount: "A Qubit fluorometer is used"
        lb = lab.get(tok)
        if lb is None:
            continue
        if tok in "AI" and is_article(t, m.end(), tok) and (tok == "I" or sentence_start(t, st)):
            continue  # article / pronoun in running text ("and A describe": a label)
        if negated(low, st, m.end()):
            continue
        seen.add(lb)
        asked = asked or QUESTIONED_RE.match(t, m.end()) is not None or _in_question(t, m.end())
        if len(seen) > 1:
            return MISS
    if seen and "both" in low and names_both(t, lab):
        return MISS
    if asked:
        return None
    return seen.pop() if seen else MISS
