"""Other spellings of a label, rewritten to the label before any rule reads a response:
full-width letters ("答案：Ｂ"), keycap digits ("2️⃣"), a range between the marker and
the answer ("Statement (1-5): 3"), and ordinals or number words that name an option
("the third option", "The 4th one.", "Two.", "第三个选项", "la deuxième option").
"""

from __future__ import annotations

import re

from evaluator.answers.common import _FULLWIDTH, _lower

_ORDINAL_NUMS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth".split())}
_ORDINAL_NUMS.update({f"{i}{s}": i for i, s in zip(range(1, 11), "st nd rd th th th th th th th".split())})
_ROMANCE_ORDINALS = {w: i + 1 for i, ws in enumerate((
    "première premier primera primer", "deuxième seconde second segunda segundo", "troisième tercera tercer",
    "quatrième cuarta cuarto", "cinquième quinta quinto", "sixième sexta sexto")) for w in ws.split()}
_NUMBER_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten".split())}
_ZH_NUMS = {c: i + 1 for i, c in enumerate("一二三四五六七八九十")}
_ORD_ALT = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|(?:10|[1-9])(?:st|nd|rd|th)"
_NUM_ALT = "one|two|three|four|five|six|seven|eight|nine|ten"
# Ordinals and number words that name an option: "the third option", "Statement
# five", "It's the fourth.", "The 2nd one", "第三个选项", "la deuxième option", and a
# response that is only a number word ("Two."). Tied to a noun (or a bare "the fourth"
# closing a sentence) so "the first frame" is left alone. Applied to the lower-cased text.
_ORDINAL_RE = re.compile(
    rf"""(?:\bthe\s+)?\b(?P<o>{_ORD_ALT})\s+(?:option|statement|choice|one|answer)\b
        |\b(?:option|statement|choice)\s+(?:number\s+)?(?P<n>{_NUM_ALT})\b
        |\bthe\s+(?P<b>{_ORD_ALT})(?=\s*(?:[.!;,]|$))
        |第(?P<z>[一二三四五六七八九十])\s*(?:(?:个|個|条|條|项|項)\s*(?:选项|選項|反馈|反饋)?|选项|選項)
        |(?:\b(?:la|le|el|l['’])\s*)?(?P<f>{"|".join(_ROMANCE_ORDINALS)})\s+
           (?:option|opción|opcion|proposition|réponse|respuesta|affirmation|afirmación)
        |^\W{{0,3}}(?P<w>{_NUM_ALT})(?=\W{{0,3}}(?:[.!,]|$))""",
    re.X,
)
_MAX_ORDINAL_TEXT = 200
# One cheap search before the full one: most responses have no ordinal at all.
_ORDINAL_HINT_RE = re.compile("|".join(
    [w for w in _ORDINAL_NUMS if not w[0].isdigit()] + [" " + w for w in _NUMBER_WORDS]
    + ["last", "第", r"\d(?:st|nd|rd|th)\b", *_ROMANCE_ORDINALS]))
# "Statement (1-5): 3": the range the prompt gave, between the marker and the answer.
_RANGE_RE = re.compile(
    r"((?i:answer|option|statement|choice|letter))\s*[\(\[]\s*(?:[A-Za-z]|\d{1,2})\s*(?:-|–|—|to)\s*"
    r"(?:[A-Za-z]|\d{1,2})\s*[\)\]]")
_KEYCAP = ("\ufe0f\u20e3", "\u20e3")  # "2️⃣" is "2", U+FE0F, U+20E3
# a step or an item named by its number in other words: "第 1 条", "第3步", "ステップ1", "4단계",
# "Step two"; made "step N" / "option N", which the label rules read
_NUMBERED = ((re.compile(r"第\s*(\d{1,2})\s*(?:步|步骤|步驟)"), r"step \1"),
             (re.compile(r"第\s*(\d{1,2})\s*(?:条|條|个|個|项|項|号|號)"), r"option \1"),
             (re.compile(r"ステップ\s*(\d{1,2})"), r"step \1"), (re.compile(r"(\d{1,2})\s*단계"), r"step \1"),
             (re.compile(r"\b(?i:step)\s+(one|two|three|four|five|six|seven|eight|nine|ten)\b", re.I),
              lambda m: f"step {_NUMBER_WORDS[m[1].lower()]}"))


def canonical_text(t: str, low: str, labels: tuple, lab: dict) -> tuple[str, str, bool]:
    """`t` and `low` with a label's other spellings made the label; also whether
    ordinals were rewritten (then loose mentions are not read)."""
    changed = False
    if not t.isascii():
        # Full-width letters and digits are the ASCII label; the mapping is 1:1.
        t, low = t.translate(_FULLWIDTH), low.translate(_FULLWIDTH)
        if "\u20e3" in t:
            for mark in _KEYCAP:
                t = t.replace(mark, "")
            changed = True
    if "(" in t or "[" in t:
        t2 = _RANGE_RE.sub(r"\1", t)
        changed, t = changed or t2 != t, t2
    if not t.isascii() or "tep " in t:
        for pattern, repl in _NUMBERED:
            t2 = pattern.sub(repl, t)
            changed, t = changed or t2 != t, t2
    if changed:
        low = _lower(t)
    # Ordinals become "option X" (weak: a rule must still read it as chosen, and
    # loose mentions are not read, so "the first option mentions a cup" is no answer).
    rewritten = len(t) <= _MAX_ORDINAL_TEXT and _has_ordinal(low)
    if rewritten:
        t = _ordinals_to_labels(t, low, labels, lab)
        low = _lower(t)
    return t, low, rewritten


def _has_ordinal(low: str) -> bool:
    words = low.lstrip(" *_\"'(").split(None, 1)
    first = words[0].strip(".!,*_\"')") if words else ""
    return ((first in _NUMBER_WORDS or _ORDINAL_HINT_RE.search(low) is not None)
            and _ORDINAL_RE.search(low) is not None)


def _ordinals_to_labels(t: str, low: str, labels: tuple, lab: dict) -> str:
    """``t`` with ordinal option names replaced by "option X", so the usual rules
    read them.  Only short responses: in long reasoning "the first option"
    is discussed as often as chosen."""
    out, prev = [], 0
    for m in _ORDINAL_RE.finditer(low):  # positions in low are positions in t
        lb = _label_of(m, labels, lab)
        if lb is not None:
            out += [t[prev:m.start()], f"option {str(lb).strip()}"]
            prev = m.end()
    return "".join(out) + t[prev:]


def _label_of(m: re.Match, labels: tuple, lab: dict):
    """The label an ordinal names: by position; a number word by number where the
    labels are numbers ("Statement five"), by position where they are letters, and
    a bare number word ("Two.") only where the labels are numbers."""
    if m.group("w"):
        return lab.get(str(_NUMBER_WORDS[m.group("w")]))
    if m.group("n"):  # "Option three": option 3 where labels are numbers, else the third
        k = _NUMBER_WORDS[m.group("n")]
        if str(labels[0]).isalpha():
            return labels[k - 1] if k <= len(labels) else None
        return lab.get(str(k))
    w = m.group("o") or m.group("b")
    if w:
        k = len(labels) if w == "last" else _ORDINAL_NUMS[w]
    elif m.group("f"):
        k = _ROMANCE_ORDINALS[m.group("f")]
    else:
        k = _ZH_NUMS[m.group("z")]
    return labels[k - 1] if k <= len(labels) else None


__all__ = ["canonical_text"]
