"""Other spellings of a label, rewritten to the label before any rule reads a response:
full-width letters ("答案：Ｂ"), keycap digits ("2️⃣"), a range between the marker and
the answer ("Statement (1-5): 3"), and ordinals or number words that name an option
("the third option", "The 4th one.", "Two.", "第三个选项", "la deuxième option").
"""

from __future__ import annotations

import re

from evaluator.answers.common import FULLWIDTH, MISS, aligned_lower, holds_any

_ORDINAL_NUMS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth".split())}
_ORDINAL_NUMS.update({f"{i}{s}": i for i, s in zip(range(1, 11), "st nd rd th th th th th th th".split())})
# ordinals in French, Spanish, Italian and German, each position's forms
_OTHER_ORDINALS = {w: i + 1 for i, ws in enumerate((
    "première premier primera primer primo prima erste ersten erster erstes",
    "deuxième seconde second segunda segundo seconda zweite zweiten zweiter zweites",
    "troisième tercera tercer tercero terza terzo dritte dritten dritter drittes",
    "quatrième cuarta cuarto quarta quarto vierte vierten vierter viertes",
    "cinquième quinta quinto fünfte fünften fünfter fünftes",
    "sixième sexta sexto sesta sesto sechste sechsten sechster sechstes",
    "septième séptima séptimo settima settimo siebte siebten siebter siebtes",
    "huitième octava octavo ottava ottavo achte achten achter achtes")) for w in ws.split()}
NUMBER_WORDS = {w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten".split())}
_ZH_NUMS = {c: i + 1 for i, c in enumerate("一二三四五六七八九十")}
_ORD_ALT = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|(?<!to-)(?<!to )last|(?:10|[1-9])(?:st|nd|rd|th)"
_ALL_ORD = _ORD_ALT + "|" + "|".join(sorted(_OTHER_ORDINALS, key=len, reverse=True))
_NUM_ALT = "one|two|three|four|five|six|seven|eight|nine|ten"
_ARTICLE = r"(?:the|la|le|el|il|lo|die|der|das|l['’])"
_STEP = r"step|paso|passo|étape|etape|schritt"
_ITEM = (r"option|statement|choice|one|answer(?:\s+(?:choice|option))?|feedback(?:\s+(?:option|statement))?|opción|opcion|respuesta|proposition|réponse|affirmation|"
         r"afirmación|opzione|risposta|antwort|möglichkeit|aussage")
# Ordinals and number words that name an option or a step: "the third option", "Statement
# five", "It's the fourth.", "The 2nd one", "the very first step", "第三个选项", "第一步",
# "最后一个选项", "la deuxième option", "Die vierte Antwort:", "La sexta: ...", and a
# response that is only a number word ("Two."). Tied to a noun (or a bare "the fourth"
# closing a sentence, or an ordinal opening the reply before a colon) so "the first
# frame" is left alone. Applied to the lower-cased text.
_ORDINAL_RE = re.compile(
    rf"""(?:\b{_ARTICLE}\s*(?:very\s+)?)?\b(?P<o>{_ALL_ORD})\s+(?:(?P<step>{_STEP})|{_ITEM})\b(?:\s+(?:listed|given|shown))?
        |\b(?:option|statement|choice)\s+(?:number\s+)?(?P<n>{_NUM_ALT})\b
        |\bthe\s+(?P<b>{_ORD_ALT})(?=\s*(?:[.!;,]|$))
        |(?:^\W{{0,3}}(?:(?:es|c['’]est|it['’]s)\s+)?|\b(?:es|est|ist|is|è)\s+){_ARTICLE}\s*(?P<a>{_ALL_ORD})(?=\s*(?:[:,.—–]|$))
        |第(?P<z>[一二三四五六七八九十])\s*(?:(?P<zs>步)|(?:个|個|条|條|项|項)\s*(?:选项|選項|反馈|反饋)?|选项|選項)
        |(?P<zl>最后一个|最後一個)(?:选项|選項)?
        |^\W{{0,3}}(?P<w>{_NUM_ALT})(?=\W{{0,3}}(?:[.!,]|$))
        |^\W{{0,3}}(?P<bare>{_ORD_ALT})\W{{0,3}}$""",
    re.X,
)
_MAX_ORDINAL_TEXT = 200
# One cheap search before the full one: most responses have no ordinal at all.
# One cheap look before the full search: the reply's words against every ordinal and
# number word (most replies have none).
_HINT_WORDS = frozenset([*_ORDINAL_NUMS, *NUMBER_WORDS, "last", *_OTHER_ORDINALS])
# what follows an ordinal that names an option: its noun ("option", "step"), or a stop
_NAMES_NEXT_RE = re.compile(rf"\s*(?:(?:very\s+)?(?:{_ITEM}|{_STEP})\b|[.!;,:—–)*]|$)")
_WORD_RE = re.compile(r"[^\W_]+")
# "Statement (1-5): 3": the range the prompt gave, between the marker and the answer.
_RANGE_RE = re.compile(
    r"((?i:answer|option|statement|choice|letter)(?:\s+(?i:number))?|^)\s*[\(\[]\s*(?:[A-Za-z]|\d{1,2})\s*(?:-|–|—|to)\s*"
    r"(?:[A-Za-z]|\d{1,2})\s*[\)\]]")
_KEYCAP_RE = re.compile("([0-9])\ufe0f?\u20e3")  # "2️⃣" is "(2)": 2, U+FE0F, U+20E3
# a step or an item named by its number in other words: "第 1 条", "第3步", "ステップ1", "4단계",
# "Step two"; made "step N" / "option N", which the label rules read
_NUMBERED = ((re.compile(r"選択肢|オプション"), "选项"),  # Japanese "option": read as the Chinese
             (re.compile(r"第\s*(\d{1,2})\s*(?:步|步骤|步驟)"), r"step \1"),
             (re.compile(r"第\s*(\d{1,2})\s*(?:条|條|个|個|项|項|号|號)"), r"option \1"),
             (re.compile(r"ステップ\s*(\d{1,2})"), r"step \1"), (re.compile(r"(\d{1,2})\s*단계"), r"step \1"),
             (re.compile(r"\b(?i:step)\s+(one|two|three|four|five|six|seven|eight|nine|ten)\b", re.I),
              lambda m: f"step {NUMBER_WORDS[m[1].lower()]}"),
             # verdicts in Hindi ("विकल्प D सही है"), Korean ("D가 가장 적절합니다"), Arabic ("الخيار
             # الصحيح هو 4") and Vietnamese ("Đáp án: 5", "Chọn 5"), said as in English
             (re.compile(r"(?<![A-Za-z0-9])([A-Z]|\d{1,2})\s*सही\s*है\s*।?"), r"\1 is correct."),
             (re.compile(r"(?<![A-Za-z0-9])([A-Z]|\d{1,2})\s*(?:번\s*)?(?:가|이)\s*(?:가장\s*)?(?:적절|정답|맞)"
                         r"(?![^.\n]{0,6}(?:지\s*않|아니|아닙))"), r"\1 is correct"),  # not "D가 정답이 아닙니다"
             (re.compile(r"(?:الخيار|الإجابة)\s*(?:الصحيح[ةه]?\s*)?(?:هو|هي)\s*"), "the answer is "),
             (re.compile(r"(?i:đáp\s*án(?:\s*đúng)?|chọn)\s*(?:là\s*)?[:：]?\s*(?=[A-Z0-9(])"), "Answer: "))


# Numbers spelled in other languages where they name an option: "La opción cuatro", "Option
# trois", "Die richtige Antwort ist drei.", "Вариант 2", "2番", "答えは四番です", "옵션 2",
# "세 번째 옵션". An article ("un", "ein", "uma") counts only after an option noun.
_SPELLED_NUMBERS = {w: i + 1 for i, ws in enumerate((
    "one eins uno un une um uma una один", "two deux dos zwei due dois duas два",
    "three trois tres drei tre três три", "four quatre cuatro vier quattro quatro четыре",
    "five cinq cinco fünf cinque пять", "six seis sechs sei шесть", "seven sept siete sieben sette sete семь",
    "eight huit ocho acht otto oito восемь", "nine neuf nueve neun nove девять",
    "ten dix diez zehn dieci dez десять")) for w in ws.split()}
_ARTICLE_NUMBERS = frozenset("un une um uma una ein uno".split())
_SPELLED_ALT = "|".join(sorted(_SPELLED_NUMBERS, key=len, reverse=True))
_KO_ORDINALS = {w: i + 1 for i, w in enumerate("첫 두 세 네 다섯 여섯 일곱 여덟 아홉 열".split())}
# (the lookahead lets the engine skip to a first letter that can start a match)
_SPELLED_RE = re.compile(
    r"(?=[ovв옵arо0-9一二三四五六七八九十첫두세네다여일열nf])"
    rf"(?:\b(?:option|number|feedback|opción|opcion|opção|opzione|variante|вариант|옵션)\s*(?:(?P<d>\d{{1,2}})|(?P<w>{_SPELLED_ALT}))\b"
    r"|\b(?:answer\s+is|antwort\s+ist|réponse\s+est|respuesta\s+es|respuesta\s*:|resposta\s+é|resposta\s*:|"
    rf"risposta\s+è|ответ\s*:)\s+(?P<a>{_SPELLED_ALT})(?=\s*(?:[.!,;]|$))"
    r"|(?P<j>\d{1,2}|[一二三四五六七八九十])\s*(?:番|번(?!\s*째))|(?P<k>첫|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s*번째(?:\s*옵션)?)")
_NAMED_END_RE = re.compile(r"\s*(?:[.!,;:)]|$|is\b|was\b)")  # "Number four is the right one."
_SPELLED_HINTS = ("option ", "number ", "feedback ", "answer is ", "antwort", "respuesta", "risposta", "resposta")
# A Cyrillic capital that looks like a Latin label, given as the answer: "Ответ: В", "С (барокко)"
_CYRILLIC_LABEL_RE = re.compile(r"(?i:ответ|вариант)\w{0,3}\s*[:：—–-]?\s*(?:(?i:это)\s+)?[(\[*]{0,2}([АВСЕНКМОРТХ])(?![^\W\d_])"
                                r"|^\W{0,3}([АВСЕНКМОРТХ])(?=\W{0,3}$|\s*\()")
_FENCE_RE = re.compile(r"```[\w+-]{0,20}")
# a markdown heading over the reply's last line, a label ("### Conclusion\n**E. ...**", "**Final Answer**\nD.
# ..."): given its colon (not over a list of verdicts, "### Conclusion\nA. ... ❌\nB. ... ✅")
_ANSWER_HEADING_RE = re.compile(r"(?m)^(#{1,6}[ \t]*|\*\*)((?i:(?:final[ \t]+)?(?:answer|conclusion|verdict)))(\*\*)?[ \t]*$"
                                r"(?=\n\s*(?:\*\*)?[(\[]?(?:[A-Z]|\d{1,2})(?:[.):\]]|\*\*|[ \t]*$)"
                                r"(?![^\n]*\s[(\[]?[A-Z][).\]]\s)[^\n]*\s*\Z)")  # one label in that line
# a chat assistant's closing offer, a paragraph of its own after the answer
_OFFER_RE = re.compile(r"\n\s*(?i:if\s+you['’]?d\s+like|if\s+you\s+(?:want|would\s+like)|let\s+me\s+know|feel\s+free|"
                       r"(?:i\s+)?hope\s+(?:this|that)\s+helps|(?:i['’]?m\s+)?happy\s+to\s+(?:help|explain|go|walk))\b(?![^\n]*(?i:answer))[^\n()]*\s*$")
# HTML markup around an answer ("<p>The answer is <b>1</b>.</p>"): a block tag ends a line
_HTML_BLOCK_RE = re.compile(r"</?(?i:p|div|br|li|ul|ol|h[1-6]|table|tr|td|th|pre)\b[^<>\n]{0,80}>")
_HTML_INLINE_RE = re.compile(r"</?(?i:b|strong|i|em|u|span|code|mark|font|sup|sub|small|big)\b[^<>\n]{0,80}>")
_QUOTED_LABEL_RE = re.compile(r"「\s*([A-Za-z]|\d{1,2})\s*」")  # 正しいのは「1」です
# 🅰 🅱 (negative squared), 🄰 (squared), 🅐 (negative circled): the letter
_EMOJI_LETTERS = {c: chr(ord("A") + (c - base)) for base in (0x1F170, 0x1F130, 0x1F150) for c in range(base, base + 26)}
_CYRILLIC_TO_LATIN = str.maketrans("АВСЕНКМОРТХ", "ABCEHKMOPTX")


def _spelled_word_in(low: str) -> bool:
    """Whether an ASCII text holds a spelled number ("trois", "drei", "five") as a word: one
    cheap look before _SPELLED_RE's search (an option named by its digit needs no rewriting)."""
    return not _SPELLED_BYTES.isdisjoint(low.encode().translate(_ASCII_WORD_BYTES).split())


def _spelled(t: str, low: str, labels: tuple, lab: dict, values: bool) -> str:
    """``t`` with an option named by a number in other words made "option X", in its last
    200 characters (where a reply names its answer). Where the options are numbers
    (`values`), "The answer is five." gives a value, not a place: left as written."""
    out, prev = [], 0
    for m in _SPELLED_RE.finditer(low, max(0, len(low) - 200)):
        word = m.group("w") or m.group("a")
        if values and m.group("a"):
            continue
        if m.group("d") and low.startswith(("number", "feedback"), m.start()):
            continue  # "Feedback 1 and 4": a digit after these is read as written
        if low.startswith("number", m.start()) and not _NAMED_END_RE.match(low, m.end()):
            continue  # "the number one concern": a number word, not an option named
        if m.group("d"):
            named = m.group("d")
        elif m.group("a") and word in _ARTICLE_NUMBERS:
            continue
        else:
            j = m.group("j")
            k = (_SPELLED_NUMBERS[word] if word else _KO_ORDINALS[m.group("k")] if m.group("k")
                 else int(j) if j.isdigit() else _ZH_NUMS[j])
            named = lab.get(str(k)) if str(labels[0]).isdigit() else (labels[k - 1] if k <= len(labels) else None)
            if named is None:
                continue
        out += [t[prev:m.start()], f"option {str(named).strip()}"]
        prev = m.end()
    return "".join(out) + t[prev:] if out else t


def canonical_text(t: str, low: str, labels: tuple, lab: dict, values: bool = False) -> tuple[str, str, bool]:
    """`t` and `low` with a label's other spellings made the label; also whether
    ordinals were rewritten (then loose mentions are not read). `values`: the options
    are numbers, so a number in words is a value, not a place."""
    changed = False
    if "```" in t:  # a code block around the answer ("```text\n4\n```"): its fences go
        t, changed = _FENCE_RE.sub("", t).strip(), True
    if "<|begin_of_box|>" in t:  # GLM's box: "<|begin_of_box|>3<|end_of_box|>"
        t, changed = t.replace("<|begin_of_box|>", "\\boxed{").replace("<|end_of_box|>", "}"), True
    if "\n" in t and _OFFER_RE.search(t, max(0, len(t) - 200)):  # "Let me know if you want more detail."
        t, changed = _OFFER_RE.sub("", t).rstrip(), True
    if ("#" in t or "**" in t) and _ANSWER_HEADING_RE.search(t):  # "### Conclusion\n**E. ...**"
        t, changed = _ANSWER_HEADING_RE.sub(r"\1\2:\3", t), True
    if "</" in t or "<br" in t:
        t2 = _HTML_INLINE_RE.sub("", _HTML_BLOCK_RE.sub("\n", t)).strip()
        changed, t = changed or t2 != t, t2
    if not t.isascii():
        # Full-width letters and digits are the ASCII label; the mapping is 1:1.
        t, low = t.translate(FULLWIDTH), low.translate(FULLWIDTH)
        if "\u20e3" in t:
            t = _KEYCAP_RE.sub(r"(\1)", t).replace("✅", "")
            changed = True
    if "(" in t or "[" in t:
        t2 = _RANGE_RE.sub(r"\1", t)
        changed, t = changed or t2 != t, t2
    if "~~" in t:  # "~~3~~ 1": a struck-out answer is withdrawn
        t2 = re.sub(r"~~[^~\n]{1,40}~~", "", t)
        changed, t = changed or t2 != t, t2
    if not t.isascii() and ("「" in t or "\U0001f170" <= max(t)):
        t2 = _QUOTED_LABEL_RE.sub(r"(\1)", t).translate(_EMOJI_LETTERS).replace("\ufe0f", "")
        changed, t = changed or t2 != t, t2
    if not t.isascii() and "A" in lab and "B" in lab:
        t2 = _CYRILLIC_LABEL_RE.sub(lambda m: m.group(0)[:-1] + m.group(0)[-1].translate(_CYRILLIC_TO_LATIN), t)
        changed, t = changed or t2 != t, t2
    if not t.isascii() or (holds_any(low, _SPELLED_HINTS) and _spelled_word_in(low[-200:])):
        t2 = _spelled(t, low if not changed else aligned_lower(t), labels, lab, values)
        changed, t = changed or t2 != t, t2
    if not t.isascii() or "tep " in t:
        for pattern, repl in _NUMBERED:
            t2 = pattern.sub(repl, t)
            changed, t = changed or t2 != t, t2
    if changed:
        low = aligned_lower(t)
    # Ordinals become "option X" (weak: a rule must still read it as chosen, and
    # loose mentions are not read, so "the first option mentions a cup" is no answer).
    # A long reply is rewritten only in its closing sentence, where it names its answer
    # ("... I'm fairly confident the feedback is the third one.").
    cut = 0 if len(t) <= _MAX_ORDINAL_TEXT else _closing_start(t)
    rewritten = _has_ordinal(low[cut:])
    if rewritten:
        t = t[:cut] + _ordinals_to_labels(t[cut:], low[cut:], labels, lab)
        low = aligned_lower(t)
    return t, low, rewritten


def _closing_start(t: str) -> int:
    """Where the closing sentence begins (at most _MAX_ORDINAL_TEXT characters from the end)."""
    body = t.rstrip()
    end = len(body) - 1  # the closing sentence's own full stop is not its start
    start = max(0, len(t) - _MAX_ORDINAL_TEXT - 1)  # a stop before this would not count: not searched
    q = max(body.rfind(". ", start, end), body.rfind("\n", start, end), body.rfind("! ", start, end),
            body.rfind("? ", start, end))
    return max(q + 1, len(t) - _MAX_ORDINAL_TEXT)


def _has_ordinal(low: str) -> bool:
    words = low.lstrip(" *_\"'(").split(None, 1)
    first = words[0].strip(".!,*_\"')") if words else ""
    if "第" in low or "最后" in low or "最後" in low or first in NUMBER_WORDS:
        return _ORDINAL_RE.search(low) is not None
    hinted, nouns = _hints(low)
    if not nouns:
        hinted -= NUMBER_WORDS.keys()  # "one" names an option only as "option one" (or opening the reply)
    # the full search only from the first hinted word that a noun or a stop follows ("the
    # third option", "It's the fourth.") or, a number word, that a noun precedes ("Statement
    # five"): an article may precede it
    starts = [p for w in hinted for p in _places(low, w) if _NAMES_NEXT_RE.match(low, p + len(w))
              or (w in NUMBER_WORDS and low[:p].rstrip().endswith(("option", "statement", "choice", "number")))]
    return bool(starts) and _ORDINAL_RE.search(low, max(0, min(starts) - 16)) is not None


# ASCII text is split into words by a byte table (a byte that is not a letter or digit
# becomes a space): the same words as _WORD_RE finds, several times faster than the regex.
_ASCII_WORD_BYTES = bytes(c if chr(c).isalnum() else 32 for c in range(256))
_HINT_BYTES = frozenset(w.encode() for w in _HINT_WORDS if w.isascii())
_SPELLED_BYTES = frozenset(w.encode() for w in _SPELLED_NUMBERS if w.isascii())
_NOUNS = ("option", "statement", "choice")
_NOUN_BYTES = frozenset(w.encode() for w in _NOUNS)


def _hints(low: str) -> tuple[set[str], bool]:
    """The ordinal and number words that stand as whole words in `low`, and whether
    "option", "statement" or "choice" does."""
    if low.isascii():
        found = low.encode().translate(_ASCII_WORD_BYTES).split()
        return {w.decode() for w in _HINT_BYTES.intersection(found)}, not _NOUN_BYTES.isdisjoint(found)
    found = set(_WORD_RE.findall(low))
    return _HINT_WORDS & found, not found.isdisjoint(_NOUNS)


def _places(low: str, word: str) -> list[int]:
    """Where ``word`` stands in ``low`` as a whole word."""
    out, p = [], low.find(word)
    while p >= 0:
        if (p == 0 or not low[p - 1].isalnum()) and not low[p + len(word):p + len(word) + 1].isalnum():
            out.append(p)
        p = low.find(word, p + 1)
    return out


def _ordinals_to_labels(t: str, low: str, labels: tuple, lab: dict) -> str:
    """``t`` with ordinal option names replaced by "option X" (a step by "step N"), so
    the usual rules read them.  Only short responses: in long reasoning "the first
    option" is discussed as often as chosen."""
    out, prev = [], 0
    for m in _ORDINAL_RE.finditer(low):  # positions in low are positions in t
        named = _label_of(m, labels, lab)
        if named is not None:
            out += [t[prev:m.start()], named]
            prev = m.end()
    return "".join(out) + t[prev:]


def _label_of(m: re.Match, labels: tuple, lab: dict) -> str | None:
    """What an ordinal names, as text the label rules read: "option X" by position, or
    "step N" for a step ("the fourth step": step 4, whatever its option). A number word
    names option N where the labels are numbers ("Statement five"), the N-th where
    they are letters; a bare number word ("Two.") only where the labels are numbers."""
    if m.group("w"):
        found = lab.get(str(NUMBER_WORDS[m.group("w")]))
        return None if found is None else f"option {str(found).strip()}"
    if m.group("n"):  # "Option three": option 3 where labels are numbers, else the third
        k = NUMBER_WORDS[m.group("n")]
        found = (labels[k - 1] if k <= len(labels) else None) if str(labels[0]).isalpha() else lab.get(str(k))
        return None if found is None else f"option {str(found).strip()}"
    word = m.group("o") or m.group("b") or m.group("a") or m.group("bare")
    if word:
        k = len(labels) if word == "last" else _ORDINAL_NUMS.get(word) or _OTHER_ORDINALS[word]
    elif m.group("zl"):
        k = len(labels)
    else:
        k = _ZH_NUMS[m.group("z")]
    if m.group("step") or m.group("zs"):
        # a step, where the options are steps (letters and step numbers); else no option
        return f"step {k}" if any(x.isdigit() for x in lab) and any(x.isalpha() for x in lab) else None
    return f"option {str(labels[k - 1]).strip()}" if k <= len(labels) else None


# Where an ordinal names the choice: opening the reply before a colon or dash ("La sexta:
# ...", "Die vierte Antwort: ..."), or closing it ("..., 第二个选项。", "That's the third one.")
_PLACED_RE = re.compile(r"^\W{0,3}(?:\S+\s+){0,2}?option ([A-Za-z0-9]{1,2})\s*(?:[:：—–,]|\s-\s|$)"
                        r"|option ([A-Za-z0-9]{1,2})\W{0,3}$")
_DOUBT_RE = re.compile(r"\bnot\b|n['’]t\b|\?|\bnicht\b|\bpas\b|\btorn\b|\bunsure\b|\beither\b|\bmaybe\b|"
                       r"\bperhaps\b|\bor\b|不是|没有|或")


def placed_ordinal(t: str, lab: dict):
    """The option an ordinal names where it opens or closes the reply (after rewriting:
    "option X"), when nothing in the reply rejects or questions it; else MISS."""
    found = {m.group(1) or m.group(2) for m in _PLACED_RE.finditer(t)}
    if len(found) != 1 or _DOUBT_RE.search(t.lower()):
        return MISS
    return lab.get(found.pop().upper(), MISS)


__all__ = ["NUMBER_WORDS", "canonical_text", "placed_ordinal"]
