"""Answer markers ("the answer is", "I choose", "B is correct", "Final: 2", "That
leaves H.", ...): where in a response a choice is stated, and which label it states.
Labels named in passing are `mentions`.
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS
from evaluator.answers.framing import other_options_text
from evaluator.answers.labels import decide_span, negated_label
from evaluator.answers.languages import INTL_KEYWORDS, INTL_KEYWORDS_RE, M_INTL

# Answer markers.  Keywords are located in one pass over the lower-cased text
# (_KW_RE below) and each hit is confirmed with an anchored regex at its
# position.  The \b after the verbs keeps "the answer isn't B" from reading
# as "the answer is".
_CONNECT = (
    r"(?:\*\*|__)?\s*(?:(?:is|was|would\s+be|should\s+be|must\s+be|will\s+be|seems\s+to\s+be|"
    r"appears\s+to\s+be|here\s+is|to\s+(?:this|the)\s+question\s+is)\b|[:：=]|-(?=\s)|→|->|=>)"
    r"(?:\s+(?:likely|probably|clearly|therefore|thus|then|indeed|definitely|most\s+likely))?"
    r"\s*(?:\*\*|__)?\s*[:：]?"
)
# ["']? : a JSON key, {"answer": "B"}.
M_ANSWER = re.compile(r"(?:answers?|anwser|ans\b)(?:\s+(?:choice|option|letter))?[\"']?\s*" + _CONNECT, re.I)
M_FINAL = re.compile(r"final\s+answer\s*(?:\([^()\n]{1,30}\))?\s*(?:\*\*|__|#|\))*\s*(?:is\b|[:：=])?", re.I)
_OPT_CONNECT = r"\s*(?:\*\*)?\s*(?:(?:here|number)\s+)?(?:(?:is|would\s+be)\b|[:：])"
_VERB_TAIL = r"\b\s*(?:\*\*)?\s*:?"
# Keywords sharing a prefix ("cho" for choice/choose/chose) are one entry in
# _KW_RE and told apart by the anchored regex.
_M_OPT = re.compile(r"option" + _OPT_CONNECT + r"|opt\s+for" + _VERB_TAIL, re.I)
_M_CHO = re.compile(r"choice" + _OPT_CONNECT + r"|(?:choose|chose)" + _VERB_TAIL, re.I)
_M_SELECT = re.compile(r"selection" + _OPT_CONNECT + r"|select(?:ed)?" + _VERB_TAIL, re.I)
# "I pick B", "My pick is B", "if I have to pick one, B"
_M_PICK = re.compile(r"pick(?:ed)?(?:\s+(?:is|would\s+be)\b|\s+one\b\s*,?)?\s*(?:\*\*)?\s*:?", re.I)
_M_GO = re.compile(r"go(?:ing)?\s+with" + _VERB_TAIL, re.I)
# "I'd lean slightly toward 2."
_M_LEAN = re.compile(r"lean(?:ing)?\s+(?:(?:slightly|a\s+bit|more)\s+)?towards?\b\s*(?:option\s+)?", re.I)
_M_THEREFORE = re.compile(r"(?:therefore|thus|hence|so)\b\s*,?\s*(?:it\s+(?:must|has\s+to|should)\s+be\s+)?", re.I)
_M_STATEMENT = re.compile(r"statement" + _OPT_CONNECT, re.I)
_M_GUESS = re.compile(r"guess\s*" + _CONNECT, re.I)
# Hedged answers: "I'm fairly sure it's 5.", "I'd say C."  Strict: "it's 3 seconds" is not one.
_M_ITS = re.compile(r"(?:it['’]s|it\s+is|it\s+(?:has\s+to|must|should)\s+be|say|probably)\b\s*,?\s*"
                    r"(?:(?:probably|likely|definitely|clearly)\s+)?", re.I)
# A self-correction: "B... wait, actually C."  Strict: "actually, B is wrong" is not one.
# "I think Option 3."  Strict: "I think B is wrong" is not one.
_M_THINK = re.compile(r"(?:think|believe)\b\s*(?:that\s+)?(?:it['’]s\s+|it\s+(?:is|would\s+be)\s+)?", re.I)
# "The coach's feedback corresponds to statement number 3."
_M_CORRESPOND = re.compile(
    r"(?:correspond(?:s|ing)?\s+(?:to|with)|match(?:es)?|commit(?:ting)?\s+to)\s+"
    r"(?=(?:the\s+)?(?i:option|statement|choice|step|feedback)\b|\(?(?:[A-Z]|[0-9]{1,2})\)?\s*[.!]?\s*$)", re.I
)
# A verdict word BEFORE the label: "The most accurate feedback is Option 3",
# "The best fit is C", "Best match → 3".  At most four lower-case words
# (the noun) between the verdict and "is", so "the best ... for B is" is not one.
_M_VERDICT_PRE = re.compile(
    r"(?i:best|closest|accurate|correct|right|appropriate|plausible|suitable|likely)(?:\s+[a-z'’]+){0,4}?\s*(?:\*\*)?\s*"
    r"(?:\b(?:is|would\s+be|should\s+be|must\s+be|seems\s+to\s+be)\b|[:：=]|→|->|=>)"
)
# "C it is.": the label, then "it is" closing the sentence.
_LABEL_IT_IS_RE = re.compile(r"\**[\(\[]?([A-Za-z]|[0-9]{1,2})[\)\]]?\**\s+it\s+is\s*(?:[.!\n]|$)")
_M_ACTUALLY = re.compile(r"actually\b\s*,?\s*(?:it['’]s\s+|it\s+is\s+)?", re.I)
_M_BARE_ANSWER = re.compile(r"answer\s+", re.I)
# "Final: 2", "Final choice - C" (a bare "final", as "final answer" is read by M_FINAL).
_M_FINAL_WORD = re.compile(r"final(?:\s+(?:choice|pick|verdict|decision|option))?\s*(?:\*\*|__)?\s*[:：=\-–—]", re.I)
# "GPT: 2", "Prediction: A" after a probability per option, "Majority vote: B" after several
# samples: the label alone closing its line
_M_ALONE = re.compile(r"(?:gpt|prediction|predicted(?:\s+(?:answer|option|label))?|majority(?:\s+vote)?|vote)\s*(?:\*\*)?\s*[:：=]"
                      r"(?=\s*\**\(?[A-Za-z0-9]{1,2}\)?\**\s*\.?\s*(?:\n|$))", re.I)
# "I'm confident: H." (not "I'm not confident: 3 could fit", "how confident: 2 out of 5"): the
# label alone closing its line
_M_CONFIDENT = re.compile(r"confident\s*[:：]\s*(?=\**\(?[A-Za-z0-9]{1,2}\)?\**\s*[.!]?\s*(?:\n|$))", re.I)
_CONFIDENT_SPEAKER = ("i'm ", "i’m ", "i am ", "i'm very ", "i’m very ", "i'm fairly ", "i’m fairly ", "i am fairly ")
# "That points to C.": the label closing the sentence ("points to A being wrong" is not an answer)
_M_POINTS = re.compile(r"points?\s+to\s+(?:option\s+)?(?=\**\(?[A-Za-z0-9]{1,2}\)?\**\s*(?:[.!]|$))", re.I)
# what points to an answer ("That points to C."), not a needle or an arrow ("the arrow points to B")
_REASONS_POINTING = ("that ", "this ", "which ", "everything ", "all ", "evidence ", "all this ", "all of this ",
                     "everything here ", "the evidence ")
_DENIED_BEFORE_RE = re.compile(r"(?:\b(?:nothing|no|not|never|neither|nor)\b|n't)[^.!?\n]*$")  # "Nothing in it points to D"
# "Eliminating A, C and D leaves B.", "That leaves us with 3.", "..., leaving C."
_M_LEAVES = re.compile(r"(?:leaves|leaving)\b\s*(?:us\s+with\s+|only\s+|just\s+)?(?:option\s+)?", re.I)
# "I'll settle on 5.", "Remaining: 2.", "What remains is option 2."
_M_SETTLE = re.compile(r"(?:settle\s+on|remaining\s*[:：]|remains\s*(?:is\b|[:：]))\s*(?:option\s+)?", re.I)
# "Reply: 5", "Response: B", "Conclusion: 3", "Verdict: H", "Winner: H", "TL;DR: 2", "Tentatively: 3",
# "If forced to choose, 3.", "By elimination: A", "Missing step: 2",
# "ASSISTANT: 4" (a chat template's role left in): a label after the word and a colon.
_M_REPLY = re.compile(r"(?:reply|response|conclusion|verdict|winner|tentatively|tl;?dr|forced\s+to\s+(?:choose|pick)"
                      r"|(?:by\s+)?elimination|missing(?:\s+(?:step|one))?|assistant)\s*(?:\*\*)?"
                      r"\s*(?:[:：=]|is\b|(?<=elimination),|(?<=choose),|(?<=pick),)", re.I)
# ExAct's question asks which feedback the coach gave: "The coach's feedback is option 4."
_M_FEEDBACK = re.compile(
    r"feedback\b(?:\s+(?:the\s+coach\s+(?:gave|gives|would\s+give)|given(?:\s+here)?))?\s*(?:\*\*)?\s*(?:is\b|was\b|[:：=])", re.I)
# "Most likely D; E can't be ruled out." (strict; "G is the most likely answer" is a verdict after the label)
_M_LIKELY = re.compile(r"likely\b\s*[,:]?\s*(?:it['’]s\s+|it\s+is\s+)?", re.I)
# Every marker keyword, found in ONE regex pass over the (lower-cased) text;
# each hit is then confirmed with an anchored regex at its position.  The
# lookbehind keeps hits at word starts ("also" is not "so").
_KW_RE = re.compile(
    r"(?<![a-z])(?:" + INTL_KEYWORDS_RE + r"|answer|anwser|ans\b|opt|cho|select|pick|go(?:ing)?\s+with|lean|therefore|thus|hence|so\b|final|leaves|leaving|feedback"
    r"|likely|better|holds|reply|response|conclusion|verdict|winner|tentatively|tl;?dr|elimination|missing|assistant|fits|richtig|settle|remain"
    r"|gpt|prediction|predicted|majority|vote|points?\s+to|survives|forced|confident"
    r"|statement|guess|actually|it['’]s|it\s+is|it\s+(?:has\s+to|must|should)\s+be|say|probably|think|believe|correspond|match|commit"
    r"|correct|right|best|closest|accurate|appropriate|plausible|suitable"
    r")"
)
# keyword -> (confirming regex, strict label parsing) for markers that come
# BEFORE the label.  "answer" also covers "Final Answer" (see _scan_markers).
_PRE_MARKERS = {
    "answer": (M_ANSWER, False),
    "opt": (_M_OPT, False),
    "cho": (_M_CHO, False),
    "select": (_M_SELECT, False),
    "pick": (_M_PICK, False),
    "go": (_M_GO, False),
    "lean": (_M_LEAN, True),
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
    "match": (_M_CORRESPOND, True),
    "commit": (_M_CORRESPOND, True),
    "final": (_M_FINAL_WORD, False),
    "leaves": (_M_LEAVES, False),  # "That leaves H as the best fit."
    "leaving": (_M_LEAVES, False),
    "reply": (_M_REPLY, False),
    "response": (_M_REPLY, False),
    "conclusion": (_M_REPLY, False),
    "elimination": (_M_REPLY, False),
    "missing": (_M_REPLY, False),
    "assistant": (_M_REPLY, False),
    **{kw: (_M_REPLY, False) for kw in ("verdict", "winner", "tentatively", "tl;dr", "tldr", "forced")},
    **{kw: (_M_ALONE, False) for kw in ("gpt", "prediction", "predicted", "majority", "vote")},
    "points to": (_M_POINTS, True),
    "confident": (_M_CONFIDENT, False),
    "feedback": (_M_FEEDBACK, False),
    "likely": (_M_LIKELY, True),
    "settle": (_M_SETTLE, False),
    "remain": (_M_SETTLE, False),
}
# Markers that, when no label follows, may still be a verdict after one ("G is the most
# likely answer", "E is the answer, although ...").
_ALSO_VERDICTS = frozenset(("likely", "answer", "feedback", "remain"))
# A marker verb under a negation chooses nothing: "I would not choose B."
_NEGATABLE = frozenset(("opt", "cho", "select", "pick", "go", "think", "believe", "match", "lean"))


for _kw in INTL_KEYWORDS:
    _PRE_MARKERS[_kw] = (M_INTL, False)


# After a verdict keyword: end of sentence or a word that keeps it a verdict
# ("B is correct because", "the best answer"), not "the correct distractor".
_POST_AFTER_RE = re.compile(
    r"(?:one|answer|option|choice|response|description|match|fit|here|because|since|as|given)?\b\s*"
    r"(?:$|[.,;:!?)\n*(\-–—]|\b(?:answer|option|choice|because|since|as|given|feedback|statement|description|one"
    r"|than|what|the|with)\b)",  # "only A fits what the video shows"
    re.I,
)
# "B is correct", "(C) is the best answer", "Option 2 seems the most accurate":
# the label comes BEFORE the keyword, so this is searched in a short window
# ending at the keyword and anchored there with $.
_POST_RE = re.compile(
    r"""(?<![\w'’])(?P<w>(?i:option|choice|statement|number|step)\s+)?(?P<o>[\(\[])?\**(?P<l>[A-Za-z]|[0-9]{1,2})\**(?P<c>[\)\]])?\**
        (?:,?\s+(?P<is>(?i:is|was|seems|appears|would\s+be|must\s+be|has\s+to\s+be|provides|gives|offers|fits|matches|works|ist))\s+(?i:to\s+be\s+)?(?i:the\s+|my\s+)?(?i:coach['’]s\s+)?(?i:one\s+that\s+)?
           (?i:(?:most|more|clearly|definitely|likely|probably|only|also)\s+)?
         |\s+)$""",
    re.X,
)


def is_word_start(low: str, p: int) -> bool:
    return p == 0 or not low[p - 1].isalpha()


# The final answer is nearly always near the end: markers are first looked
# for in this many trailing characters, and only if none is found there in
# the rest.  A hit in the tail is later than any hit before it, so the result
# is the same as a full scan.
_TAIL = 64


def choice_from_markers(t: str, low: str, lab: dict, opts):
    """Choice given by the LAST answer marker that actually names one."""
    n = len(low)
    lo = n - _TAIL if n > _TAIL + 100 else 0
    r = _scan_markers(t, low, lab, opts, lo, n)
    if r is MISS and lo:
        r = _scan_markers(t, low, lab, opts, 0, n)
    return _closing_verdict(t, lab) if r is MISS else r


# Verdicts that close a response with the label first and no marker word before it:
# "3 is tempting, but 2 matches the video better.", "4 is what the coach actually says.",
# "2 が正解です。"
_CLOSING_RE = re.compile(
    r"(?<![\w'’])\(?([A-Za-z]|[0-9]{1,2})\)?\s+(?:(?:fits|matches|works|is|seems)\s+(?:[\w'’]+\s+){0,3}?better\b"
    r"|is\s+what\b|is\s+my\s+(?:final\s+)?(?:answer|pick|choice)\b|rather\s+than\b|is\s+the\s+one\s+(?:given|meant)\b|is\s+the\s+reason\s*[.!]?\s*$"
    r"|(?:was|is)\s+(?:not\s+(?:performed|shown|done|carried\s+out)|never\s+(?:performed|shown|done)|skipped|omitted|missing)\b)"
    r"|\b(?i:that['’]s|that\s+is)\s+(?i:option\s+|number\s+|feedback\s+|statement\s+|step\s+)?\(?([A-Za-z]|[0-9]{1,2})\)?(?=\s*(?:[.!,;]|$))"
    r"|\b(?i:which\s+(?:fits|matches))\s+(?i:option\s+)?\(?([A-Za-z]|[0-9]{1,2})\)?(?=\s*(?:[.!]|$))"
    r"|(?:手順|ステップ|步骤|步驟)\s*(?:は|是|为|為)\s*(\d{1,2})(?=\s*(?:です|。|$))"
    r"|\b(?i:still)\s*[:,—-]?\s*\(?([A-Za-z]|[0-9]{1,2})\)?(?=\s*[.!]?\s*$)"  # "First pass: 1. ... Still 1."
    r"|\b(?i:not)\s+(?i:option\s+|choice\s+)?\(?[A-Za-z0-9]{1,2}\)?\s*,?\s+(?i:but)\s+(?i:rather\s+)?(?i:option\s+|choice\s+)?"
    r"\(?([A-Za-z]|[0-9]{1,2})\)?(?=\s*(?:[.!]|$))"  # "Not C but A."
    r"|\b(?i:which\s+makes\s+it|making\s+it)\s+(?i:option\s+|choice\s+)?\(?([A-Za-z]|[0-9]{1,2})\)?(?=\s*(?:[.!]|$))"
    r"|(?<!如果)(?<!假设)(?<!假如)选项\s*([A-Za-z]|[0-9]{1,2})\s*是\s*(?:正确|正確)(?![^。！\n]*[吗嗎？?])(?!的?步骤)"
    r"|(?<![A-Za-z0-9])([A-Za-z]|[0-9]{1,2})\s*(?:が|は)?\s*(?:正解|正しい|正确|正確|정답|最准确|最準確|最も正確|最合适|最も適切)"
    r"|\(?([A-Za-z]|[0-9]{1,2})\)?\s+(?:est\s+la\s+plus\s+(?:précise|juste|exacte|appropriée)|ist\s+am\s+(?:genauesten|besten|"
    r"zutreffendsten)|es\s+la\s+(?:más\s+(?:precisa|correcta|adecuada)|correcta))\b")


def _closing_verdict(t: str, lab: dict):
    found = None
    for m in _CLOSING_RE.finditer(t, max(0, len(t) - 160)):
        if "\n" in t[m.end():].strip():
            continue  # a closing verdict closes the response: its last paragraph
        token = next((g for g in m.groups() if g), None)
        if token and (token.isupper() or token.isdigit()) and token.upper() in lab:
            found = lab[token.upper()]
    return MISS if found is None else found


# A note or aside after the answer: "Answer: B\nNote: C is also plausible."
_NOTE_RE = re.compile(r"(?<![\w])(?:note|n\.b\.|p\.s\.|nota|remarque|anmerkung|注意|注|备注)\s*[:：]")


def choice_before_note(t: str, low: str, lab: dict, opts):
    """The answer committed before the first note, if a marker gives one there:
    what a note says about other options is commentary, not the answer."""
    m = _NOTE_RE.search(low)
    if m is None or m.start() == 0 or re.search(r"\binstead\b|re-?watch|on second|actually", low[m.start():]):
        return MISS  # a note that corrects the answer ("... should be 4 instead"): read it all
    p = m.start()
    return choice_from_markers(t[:p], low[:p], lab, opts)


_ALSO_RE = re.compile(r"\balso\b|\btoo\b|\bas\s+well\b")
_STRONG_VERDICTS = frozenset(("correct", "right"))


def _scan_markers(t: str, low: str, lab: dict, opts, start: int, end: int):
    """Choice of the last marker in low[start:end] that names one (or MISS).

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
    if also is not None and r is not MISS and r != also:
        return None
    return r


_VERDICT_WORDS = frozenset(("best", "closest", "accurate", "correct", "right", "appropriate", "plausible", "suitable", "likely",
                            "better", "fits"))
# Verdicts that need no "is" after the label: "(B) best matches", "Only 3 holds.", "Daher ist 5 richtig."
_BARE_VERDICTS = frozenset(("best", "holds", "richtig", "remain", "survives"))
_CLOSES_SENTENCE_RE = re.compile(r"\s*(?:[.!]|$)")


_DOUBTED_RE = re.compile(r"(?:n['’]t|\bnot)\s+(?:think|believe|sure|convinced)\s+(?:that\s+)?(?:option\s+)?\(?$")


def _verdict_undone(kw: str, low: str, start: int) -> bool:
    """The words before a verdict's label (at `start`) undo it: "I don't think G is right" (doubted,
    not given); "H remains unclear" (only "Only H remains." closes an elimination)."""
    return (_DOUBTED_RE.search(low, max(0, start - 30), start) is not None
            or (kw in ("remain", "survives") and not low.endswith(("only ", "only option "), 0, start)))


def _label_before_it_is(t: str, p: int, lab: dict):
    """"C it is." (or "so C it is.") -> C: a label opening the sentence that "it is" (at ``p``) closes."""
    for back in range(2, 12):  # "C it is", "(C) it is", "10 it is", "**C** it is"
        q = p - back
        if q < 0:
            break
        m = _LABEL_IT_IS_RE.match(t, q)
        opens = sentence_start(t, q) or t.endswith(("so ", "So ", "then "), 0, q)  # "..., so 5 it is."
        if m and m.end(1) <= p and opens and (q == 0 or not t[q - 1].isalnum()):
            lb = lab.get(m.group(1).upper())
            if lb is not None and not m.group(1).islower():
                return lb
    return MISS


def _no_marker_here(kw: str, low: str, p: int) -> bool:
    """The words before the keyword at `p` undo it: "I would not choose B", "Nothing points to
    D" (and only a conclusion points: "That points to C", not "the arrow points to B"), "Checking each option:", "option by option:" (a list's heading), "Least likely: G" (ranked last), "Previous correct answer:"
    (the earlier step's answer, echoed)."""
    return ((kw in _NEGATABLE and low.endswith(("n't ", "not ", "never "), 0, p))
            or low.endswith(("previous ", "previous correct ", "previous step's ", "earlier ", "whatever the "), 0, p)
            or (kw == "opt" and low.endswith(("each ", "every ", "by "), 0, p))
            or (kw == "pick" and low.endswith(("first ", "initial "), 0, p))
            or (kw == "likely" and low.endswith(("least ", "less "), 0, p))
            or (kw == "confident" and not low.endswith(_CONFIDENT_SPEAKER, 0, p))
            or (kw == "points to" and (_DENIED_BEFORE_RE.search(low, max(0, p - 40), p) is not None
                                       or not low.endswith(_REASONS_POINTING, 0, p))))


def _kw_name(kw: str) -> str:
    """The name of a keyword found: "going with" is "go", "ans" and "anwser" ("ans = 5",
    "Anwser :5") are "answer", "it's" is "it is", "point to" is "points to"."""
    for prefix, name in (("go", "go"), ("ans", "answer"), ("anw", "answer"), ("it", "it is"), ("point", "points to")):
        if kw.startswith(prefix):
            return name
    return kw


def _scan_markers_from(t: str, low: str, lab: dict, opts, start: int, end: int):
    for m in reversed(list(_KW_RE.finditer(low, start, end))):
        p = m.start()
        kw = _kw_name(m.group())
        pre = _PRE_MARKERS.get(kw)
        if pre is not None:
            rx, strict = pre
            mm = rx.match(t, p)
            if mm is None and kw == "answer" and low.startswith("final ", p - 6):
                mm = M_FINAL.match(t, p - 6)  # "**Final Answer**\n\nB"
            if mm is None and kw == "answer" and low.endswith(("i'll ", "i’ll ", "i will ", "i would "), 0, p):
                mm = _M_BARE_ANSWER.match(t, p)  # "I'll answer 5."
            if (mm is None and kw not in _ALSO_VERDICTS) or _no_marker_here(kw, low, p):
                continue
            r = decide_span(t, mm.end(), lab, opts, strict) if mm is not None else MISS
            if r is None and kw in ("think", "believe"):
                continue  # "I think A and B are wrong": an aside, not an answer
            if r is None and strict and negated_label(t, mm.end()):
                continue  # "so (I) is impossible": a step of the reasoning, not the answer
            if r is not None and r is not MISS and other_options_text(t, mm.end(), r, opts, lab):
                return None  # "Answer: B (Elastic)" where Elastic is A: which one is meant?
            if r is MISS and kw == "it is":
                r = _label_before_it_is(t, p, lab)
            if r is not MISS:
                return r
            if kw not in _ALSO_VERDICTS:
                continue
        if kw in _VERDICT_WORDS and not _no_marker_here(kw, low, p) and (mm := _M_VERDICT_PRE.match(t, p)) is not None:
            r = decide_span(t, mm.end(), lab, opts, False)
            if r is not MISS:
                return r
        # Verdict after the label: "B is correct", "(C) is the best answer".
        pm = _POST_RE.search(t, max(0, p - 60), p)
        # Without "is" only "(B) best matches ..." reads as a verdict.
        only = kw == "fits" and pm is not None and low.endswith("only ", 0, pm.start())  # "but only A fits ..."
        if kw == "survives" and not _CLOSES_SENTENCE_RE.match(low, p + len(kw)):
            continue  # "Only C survives partially, but ..."
        if pm is None or (pm.group("is") is None and kw not in _BARE_VERDICTS and not only):
            continue
        if kw not in _BARE_VERDICTS and not _POST_AFTER_RE.match(t, p + len(kw)):
            continue  # "the correct distractor", "the right hand"
        ltok = pm.group("l")
        label = lab.get(ltok.upper())
        if label is None or _verdict_undone(kw, low, pm.start()):
            continue
        if re.search(r"\b(?:or|and)\s+(?:option\s+)?\(?$", t[max(0, pm.start() - 12):pm.start()], re.I):
            return None  # "Option 2 or 5 is accurate": two candidates
        # Lowercase "a is correct" / pronoun "I" is running text unless marked up; "I fits"
        # and "I is" are not the pronoun's grammar.
        pronoun = ltok == "I" and (pm.group("is") or "would").split()[0].lower() == "would"
        if (ltok.islower() or pronoun) and not (pm.group("w") or pm.group("o")):
            continue
        if _ALSO_RE.search(low, pm.start(), p) or _ALSO_RE.match(low, p + len(kw) + 1):
            return label, kw in _STRONG_VERDICTS, pm.start()
        return label
    return MISS


def sentence_start(t: str, pos: int) -> bool:
    """True if only spacing/markup separates ``pos`` from a sentence start."""
    i = pos - 1
    while i >= 0 and t[i] in " \t*_\"'“‘(":
        i -= 1
    return i < 0 or t[i] in ".!?:;\n"
