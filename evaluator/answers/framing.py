"""How a response frames its answer, for `choice`: an answer line under a restated
question ("Q: ...\\nA: B"), the answer first and the reasons after ("B\\n\\nC: unrelated..."),
an answer stated before the output was cut off ("The answer is E. The answer is"), a reply
that only lists labels ("A. B. C. D."), and a label whose quoted text is another option's
("Answer: B (Elastic)" where B is "Inelastic").
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS, holds_any
from evaluator.answers.labels import LEAD_RE, nth_number
from evaluator.answers.options import option_contained, option_exact, option_paraphrase

# "Q: Which step ...?\nA: B": the line after "A:" is the answer, "A" no label
_QA_RE = re.compile(r"\s*(?:\*\*)?Q(?:uestion)?(?:\*\*)?\s*[:：][^\n]*\n+\s*(?:\*\*)?A(?:nswer)?(?:\*\*)?\s*[:：]\s*(?P<a>.+)",
                    re.S)
# a reply that interviews itself and closes on "Q: Final answer?\nA: 4"
_LAST_QA_RE = re.compile(r"\nQ(?:uestion)?\s*[:：][^\n]*\n+\s*A(?:nswer)?\s*[:：]\s*(?P<a>[^\n]+?)\s*$")
# "(D) The man ...", "B. Because ...", "**1** — At 1:39 ...": the answer opens the response
_ANSWER_FIRST_RE = re.compile(r"[\s*_#]{0,4}(?:(?i:option)\s+)?[\(\[]?([A-Za-z]|[0-9]{1,2})(?:[\)\]]|[.:](?=\s)|\*\*|[ \t]*\n)")
# a line that is nothing but a label ("B", "**3**", "(C).")
_BARE_LINE_RE = re.compile(r"[\s*_#>`'\"(\[]{0,6}([A-Za-z]|[0-9]{1,2})[\s*_`'\")\].:]{0,6}")
# "The answer is E.", "Answer: (C)": a stated answer, read where the output was cut off after it
_STATED_RE = re.compile(r"(?i:\b(?:(?:final\s+)?answer|(?:correct|right|best)\s+(?:option|answer|choice))\s*(?:is|:)\s*(?:option\s+)?)"
                        r"\**\(?([A-Za-z]|[0-9]{1,2})\)?\**"
                        r"(?=[\s.,;:!)]|$)")
# "That matches E: <its text>.": read before a cut only where nothing after it names another
# label, asks or takes it back ("... the answer should be B rather than A", "However, we also need to")
_MATCHES_RE = re.compile(r"\b(?i:that|this)\s+(?i:matches|lines\s+up\s+with|corresponds\s+to)\s+(?i:option\s+|choice\s+)?"
                         r"\**\(?([A-Z]|[0-9]{1,2})\)?\**(?=[\s.,;:!)]|$)")
_TAKEN_BACK_RE = re.compile(r"\?|(?<![A-Za-z0-9'’])[A-Z](?![A-Za-z0-9'’])|(?i:option|choice|feedback)\s+\d|\b(?i:however|but|rather|"
                            r"instead|actually|hmm|should|would|partially|roughly|guess|then\s+again|consider|which\s+means|let\s+me)\b")
_LABEL_RUN_SPLIT_RE = re.compile(r"[\s*_#()\[\].:,;]+")


def qa_answer(t: str) -> str | None:
    """The answer part of a response that restates the question as "Q: ... A: ..."."""
    m = _QA_RE.match(t) or (_LAST_QA_RE.search(t) if "\nQ" in t else None)
    return m["a"].strip() if m else None


def answer_first(t: str, lab: dict) -> bool:
    """True if the response opens with its answer, so that what follows (an explanation,
    even one cut off) changes nothing."""
    m = _ANSWER_FIRST_RE.match(t)
    return m is not None and m.group(1).upper() in lab


def first_line_label(t: str, lab: dict):
    """The label a response gives alone on its first line, its reasons after ("B\\n\\n
    Reasoning:\\nC: irrelevant..."), when no other line is a label alone; else None."""
    lines = [x for x in t.split("\n") if x.strip()]
    if len(lines) < 2:
        return None
    m = _BARE_LINE_RE.fullmatch(lines[0])
    first = lab.get(m.group(1).upper()) if m else None
    if first is None or any(_BARE_LINE_RE.fullmatch(x) for x in lines[1:]):
        return None
    return first


def stated_before_cut(t: str, lab: dict):
    """The answer a cut-off response had stated in so many words, when it stated only one
    ("The answer is E. The answer is E. The answer is", "That matches E: <its text>. The others
    are inconsistent, since e" but not "This matches option 5. However, we also need to"); else None."""
    found = {lab.get(m.group(1).upper()) for m in _STATED_RE.finditer(t)}
    if not found:
        said = list(_MATCHES_RE.finditer(t))
        found = {lab.get(m.group(1)) for m in said}
        if said and _TAKEN_BACK_RE.search(t, said[-1].end()):
            return None
    return found.pop() if len(found) == 1 and None not in found else None


def labels_only(t: str, lab: dict) -> bool:
    """True if the response is only a run of three or more labels ("A. B. C. D.")."""
    if len(t) > 80:
        return False
    tokens = [x for x in _LABEL_RUN_SPLIT_RE.split(t) if x]
    return (len(tokens) >= 3 and len({x.upper() for x in tokens}) >= 3
            and all(len(x) <= 2 and x.upper() in lab for x in tokens))


def repeated_label(t: str, lab: dict):
    """The one label a reply says over and over and says nothing else ("5 5 5 5 5", "B. B. B."),
    else None."""
    if len(t) > 400:
        return None
    tokens = [x for x in _LABEL_RUN_SPLIT_RE.split(t) if x]
    if len(tokens) < 2 or len(set(tokens)) != 1 or tokens[0].islower():  # "a a a a": a loop of the article
        return None
    return lab.get(tokens[0].upper())


def other_options_text(t: str, pos: int, label, opts, lab: dict | None = None) -> bool:
    """True if the label read at `pos` is followed by an option text, in brackets or after
    a period, comma, colon or dash to the end of its line, that is another option's, not
    its own ("Answer: B (Elastic)", "B. Elastic", B being "Inelastic"), or by another
    option's step number ("Answer: B (step 3 ...)", B being step 2)."""
    m = LEAD_RE.match(t, pos)
    if m is None:
        return False
    rest = t[m.end():].split("\n", 1)[0]
    if rest.startswith("**") and _DASHED_RE.match(rest, 2):
        rest = rest[2:]  # "**D** — <text>": as "D — <text>"
    elif rest.startswith((".**", ")**")):
        rest = rest[0] + rest[3:]  # "**D.** <text>": as "D. <text>"
    step = re.match(r"\s*[(,.:：\-–—]*\s*(?i:step)\s+(\d{1,2})\b", rest)
    if step and lab and lab.get(step.group(1)) not in (None, label):
        return True
    number = re.fullmatch(r"\s*[.,:：\-–—]?\s*\(?(\d{1,2})\)?\s*[.!]?\s*", rest)
    if number and lab and str(label).isalpha() and lab.get(number.group(1)) not in (None, label):
        return True  # "B. 3" where the options are step numbers and B is step 2
    if not opts:
        return False
    quoted = [m.group(1) for m in (re.match(r"\s*\(([^()\n]{2,300})\)", rest),
                                   re.match(r"\s*[.,:：\-–—]?\s+(.{2,300}?)\s*$", rest)) if m]
    owners = {option_exact(text, opts) for text in quoted} - {None, MISS}
    if not owners:  # "F: the detective notices the footprints ...", retelling another option
        clause = _GLOSS_RE.match(rest)
        told = MISS
        if clause and clause.group(1):  # quoted: "option D, \"Maslow's hierarchy of needs\": ..."
            told = option_exact(clause.group(1), opts)
            told = option_paraphrase(clause.group(1), opts, least=3) if told is MISS else told
        elif clause and not _REASONS_RE.match(clause.group(2)):
            told = option_paraphrase(clause.group(2), opts, least=3)
        owners = {told} - {None, MISS}
    return bool(owners) and label not in owners


_REASONS_RE = re.compile(r"(?i:because|since|as|for|in|on|at|from|after|before|what|which|it|this|that|cause|so|"
                         r"i\b|the\s+(?:video|frames?|clip|previous|segment))\b")
# what a label's gloss says, to its sentence's end or a dash: "B: the judges criticize the cake"
_GLOSS_RE = re.compile(r"\s*[.,:：\-–—]\s*(?:[\"“]([^\"”\n]{4,300})[\"”]|([^\"”\n]{8,300}?)\s*(?:[.;!]\s|[.;!]?$|\s[—–]\s))")


_OFFER_QUESTION_RE = re.compile(r"[.!]\s+(?i:would\s+you\s+like|shall\s+I|do\s+you\s+want|want\s+me\s+to)\b[^.!?]*\?\s*$")
_DASHED_RE = re.compile(r"\s*[:—–-]\s")
_GLOSS_START_RE = re.compile(r"\**(?:\s*[:,—–-]\s|\s*,?\s*[\"“])")  # also "**D** — ..."


def gloss_against_label(t: str, label, opts, lab: dict) -> bool:
    """True if the chosen label, where the reply last names it with a gloss ("the answer is
    F: <another option's text>"), glosses another option."""
    token = str(label)
    p = t.rfind(token)
    while p >= 0:
        if not t[p - 1:p].isalnum() and _GLOSS_START_RE.match(t, p + len(token)):
            return other_options_text(t, p, label, opts, lab)
        p = t.rfind(token, 0, p)
    return False


# "... → E", "... — D.", "... until the last step (4).": the label the reply ends on
_ENDING_RE = re.compile(r"(?:→|->|=>|⇒|—|–|\s-\s)\s*\**(?:(?i:option|choice|statement)\s+)?\(?([A-Za-z]|[0-9]{1,2})\)?\**\s*[.!]?\s*$"
                        r"|\s\(([A-Za-z]|[0-9]{1,2})\)\s*[.!]?\s*$"
                        r"|\b(?:is|as)\s+(?i:option|choice)\s+\(?([A-Za-z]|[0-9]{1,2})\)?\s*[.!]?\s*$")
_PAREN_LABEL_RE = re.compile(r"\(([A-Za-z]|[0-9]{1,2})\)")
_SET_AGAINST_RE = re.compile(r"\b(?:rather\s+than|instead\s+of|unlike|not)\b[^.;!?]*$")
# doubt the reply states about its own answer: it gives none
_UNSURE_RE = re.compile(r"could also be \(?[a-z0-9]{1,2}\)?(?:[.,;!]|$)|not sure which|can['’]t tell|cannot tell|can['’]t be sure|hard to say which|can['’]t decide|"
                        r"i['’]d need to|would need to|i['’]m torn|it depends on|(?:is|seems|looks|are) (?:just )?equally (?:likely|plausible|possible|valid"
                        r"|defensible|good|reasonable)|can['’]t answer|cannot answer"
                        r"|is just as likely"
                        r"|both \(?[a-z0-9]{1,2}\)? and \(?[a-z0-9]{1,2}\)? (?:are|seem|look) (?:correct|right|true|valid)")
# Every _UNSURE_RE match holds one of these: testing them with `in` first is several times
# faster than the regex over a long reply, and most replies hold none.
_UNSURE_HINTS = ("could also be", "not sure which", "t tell", "t be sure", "hard to say which", "t decide",
                 "d need to", "m torn", "it depends on", "equally ", "just as likely", "both ", "t answer",
                 "cannot answer")
# two answers given as answers: "Answer: 2\nAnswer: 4", "**A**\n\n**C**"
_ANSWER_LINE_RE = re.compile(r"^[ \t>*_#-]*(?:(?P<final>final\s+)?answer\s*[:：]\s*)?\**\(?(?P<label>[A-Za-z]|[0-9]{1,2})\)?\**[ \t.]*$",
                             re.M | re.I)
_REVISION_RE = re.compile(r"(?i:re-?check|re-?examin|reconsider|let\s+me\s+verify|double-check|on second thought|wait\b|actually|hmm"
                          r"|hold\s+on|misread)")
_STEP_LETTER_RE = re.compile(r"(?i:step)\s+(\d{1,2})\s*\(\s*([A-Z])\s*\)"
                             r"|(?i:step)\s+(\d{1,2})\b[^\n]{0,60}?\\boxed\{\s*([A-Z])\s*\}")
# a cheap look before _STEP_LETTER_RE's search: "step 3" (or "ſtep 3"); written to open with the
# literal "tep" (the letter before it checked behind), which the engine finds far faster than [sſ]
_STEP_NUMBER_RE = re.compile(r"tep(?<=[sſ]tep)\s+\d")
_CLOSING_LABEL_RE = re.compile(r"[.!;,]\s*\**\(?(?:[A-Z]|\d{1,2})\)?\**\s*[.!]?\s*$")  # "... B is right. B."
# "Either step 2 or step 4 was skipped", "Either B or D; ...": two candidates, in a short reply
_EITHER_TWO_RE = re.compile(r"\b(?i:either)\s+(?:(?i:step|option)\s+)?\(?([A-Z]|\d{1,2})\)?\s+(?i:or)\s+"
                            r"(?:(?i:step|option)\s+)?\(?([A-Z]|\d{1,2})\)?(?![\w])")
_LONE_LABEL_RE = re.compile(r"(?<![A-Za-z0-9'’])(?:[A-Z]|\d{1,2})(?![A-Za-z0-9'’:.]\w)")
# "Hmm, A or E. ...": two candidates opening the reply
_OR_OPENING_RE = re.compile(r"\W*(?:(?i:hmm+|well|so|ok(?:ay)?|um+|maybe|probably)\W+)?\(?([A-Z]|\d{1,2})\)?\s+(?i:or)\s+"
                            r"\(?([A-Z]|\d{1,2})\)?\s*[.?!,;—–-]")
_OR_CLOSING_RE = re.compile(r"(?:^|[.!?\n]\s*)(?:(?i:hmm+|well|so|maybe|probably|perhaps|likely|either)\W+)?\(?([A-Z]|\d{1,2})\)?"
                            r"\s+(?i:or)\s+\(?([A-Z]|\d{1,2})\)?\s*[.?!]?\s*$")
_NOT_A_LABEL_RE = re.compile(r"\s*\(?([A-Za-z])\)?\s*[.:)]\s+([^\n]+)")
# the prompt's range echoed, and nothing else: "(1-5)", "A-D"
_RANGE_ONLY_RE = re.compile(r"\W*([A-Za-z]|\d{1,2})\s*(?:-|–|to)\s*([A-Za-z]|\d{1,2})\W*")
_TWO_OPENING_RE = re.compile(r"[\s*(]{0,3}([A-Z]|\d{1,2})[)*]{0,2}\s+(?:and|&)\s+[*(]{0,2}([A-Z]|\d{1,2})[)*]{0,2}\s*(?:[,:;—–-]|\.?\s*$)")
_RESULT_RE = re.compile(r"=\s*\**([^=\n*]{1,30}?)\**\s*(?:[.,;]\s|[.,;]?$|\n)", re.M)


def gives_none(t: str, low: str, lab: dict) -> bool:
    """True if the reply gives no one answer: only labels ("A. B. C. D."), a step and a
    letter that disagree ("The second step (C)"), doubt it states ("I'm not sure which"),
    two answers ("Answer: 2\nAnswer: 4"), or nothing but a question ("Is it C?")."""
    if labels_only(t, lab):
        return True
    span = _RANGE_ONLY_RE.fullmatch(t) if len(t) <= 16 else None  # "A-D": the range of labels, no answer
    if span and lab.get(span.group(1).upper(), 1) != lab.get(span.group(2).upper(), 2):  # not "C - 8", 8 being C's
        return True
    if holds_any(low, _UNSURE_HINTS) and _UNSURE_RE.search(low):
        return True
    if "tep" in t and ("(" in t or "boxed" in t) and _STEP_NUMBER_RE.search(low) and any(
            lab.get(s1 or s2) is not None and lab.get((l1 or l2).upper()) not in (None, lab.get(s1 or s2))
            for s1, l1, s2, l2 in _STEP_LETTER_RE.findall(t)):
        return True  # "The missing step is step 5, so the answer is \boxed{D}" (D is step 4)
    two = None
    if len(t) <= 160 and not _CLOSING_LABEL_RE.search(t):
        two = _EITHER_TWO_RE.search(t) or _OR_OPENING_RE.match(t)
        if two and _LONE_LABEL_RE.search(t, two.end()):
            two = None  # "A or D? The clock shows 3:15, so D.": settled after
    if two and len({lab.get(two.group(1).upper()), lab.get(two.group(2).upper())} - {None}) == 2:
        return True
    two = _OR_CLOSING_RE.search(t, max(0, len(t) - 40)) if " or " in low[-40:] else None  # "... Probably A or G."
    if two and len({lab.get(two.group(1)), lab.get(two.group(2))} - {None}) == 2:
        return True
    if "\n" in t and _two_answer_lines(t, lab):
        return True
    two = _TWO_OPENING_RE.match(t)
    if two and len({lab.get(two.group(1)), lab.get(two.group(2))} - {None}) == 2:
        return True  # "A and B, since the sample is first in ...": two answers
    return (t.rstrip().endswith(("?", "？")) and "\n" not in t.strip() and len(t) < 160 and t.count("?") <= 1
            and not _OFFER_QUESTION_RE.search(t))  # not "... my answer is C. Would you like me to explain?"


def _two_answer_lines(t: str, lab: dict) -> bool:
    """Lines that are answers naming two labels ("Answer: 2\nAnswer: 4"), unless the last is
    the one "Final answer:" line, which settles them ("Answer: F ... reasons ... Final answer: H"),
    or comes after a second look ("Final answer: G\n\nRe-checking: ...\n\nFinal answer: A")."""
    found = [m for m in _ANSWER_LINE_RE.finditer(t) if lab.get(m["label"].upper())]
    if len({lab[m["label"].upper()] for m in found}) <= 1:
        return False
    if found[-1]["final"] and sum(bool(m["final"]) for m in found) == 1:
        return False
    return _REVISION_RE.search(t, found[-2].end(), found[-1].start()) is None


def ending_label(t: str, low: str, lab: dict):
    """The label a reply ends on after an arrow or a dash ("... → E", "... — **option 3**."),
    after "is option" (", which is option 2."), or in brackets ("... until the last step
    (4).") when it names no other, doubts nothing and sets it against nothing."""
    m = _ENDING_RE.search(t)
    token = m and (m.group(1) or m.group(2) or m.group(3))
    if not token or token.upper() not in lab or not (token.isupper() or token.isdigit()):
        return MISS
    if m.group(2) and (len({x.upper() for x in _PAREN_LABEL_RE.findall(t)}) > 1 or "?" in t
                       or re.search(r"\b(?:might|could|maybe|perhaps)\b", low)
                       or _SET_AGAINST_RE.search(low, max(0, m.start() - 60), m.start())):
        return MISS  # "... a steal attempt rather than a hit-and-run (G).": G is set against
    return lab[token.upper()]


def computed_other(t: str, label, opts) -> bool:
    """True if the working's last result ("... = 1.0 A.") is another option's text than
    the answer's: the reply contradicts itself."""
    results = list(_RESULT_RE.finditer(t)) if opts and "=" in t else []
    if not results:
        return False
    last = results[-1]
    found = option_exact(last.group(1), opts)
    if found is MISS or found is None or found == label:
        return False
    # the answer's own value stated after that result ("at α = 0.05, each tail holds 0.025")
    return option_contained(t[last.end():], opts) != label


# "Answer: Patella (C)", "... is C₂H₄ (option D).", "..., which is option 2.": the text the
# reply names, then the label it gives for it
# (the label reference is found first, the text before it read after: a pattern that starts
# with the text would try every position)
_LABEL_AFTER_TEXT_RE = re.compile(
    r"\(\s*(?i:option\s+)?(?P<a>[A-Za-z]|\d{1,2})\s*\)|,\s*(?i:which\s+is|i\.e\.,?|that\s+is,?)\s+"
    r"(?i:option\s+)?(?P<b>[A-Za-z]|\d{1,2})\b")

# where the named text starts: after the last "is", colon or equals sign
_TEXT_START_RE = re.compile(r"[:：=]|\b(?i:is|was|answer)\b")


def text_against_label(t: str, label, opts, lab: dict) -> bool:
    """True if the reply's last "<text> (<label>)" or "<text>, which is option <label>"
    pairs the chosen option's label with another's text (word for word, or retold), or its
    text with another's label ("Answer: Patella (C)", Patella being D): which one is meant?"""
    if not opts or ("(" not in t and "," not in t):
        return False
    last = None
    for m in _LABEL_AFTER_TEXT_RE.finditer(t):
        last = m
    if last is None or last.start() == 0:
        return False
    before = t[max(0, last.start() - 120):last.start()]
    before = before[max(before.rfind("\n"), before.rfind("("), before.rfind(")")) + 1:].rstrip()
    given = lab.get((last["a"] or last["b"]).upper())
    said = option_exact(_TEXT_START_RE.split(before)[-1], opts) if before else MISS
    if said is MISS and before and not before.endswith((".", "!", "?")):  # the other option told in other words
        said = option_paraphrase(before, opts)
    return said not in (MISS, None, given) and label in (said, given)


def letter_for_text(t: str, lab: dict, opts):
    """A reply opening with a letter where the labels are numbers, then an option's text
    ("E. Slow down your dribble."): that option when the letter's place agrees, None when
    it does not; MISS otherwise."""
    lead = _NOT_A_LABEL_RE.match(t)
    if not lead or lead.group(1).upper() in lab or not opts:
        return MISS
    said = option_exact(lead.group(2), opts)
    if said in (MISS, None):
        return MISS
    return said if nth_number(lab, lead.group(1)) == said else None


# A closing remark on another option, after the answer: "... — D. H is a distractor.",
# "... → C. A is true but doesn't capture ...", "... — E. (F describes the previous segment.)"
_ASIDE_RE = re.compile(r"\s*\(?(?:[A-Za-z]+\s+){0,3}?(?:(?i:option|choice|statement)\s+([A-Z]|\d{1,2})|([A-Z]))\b[^.!?\n]{0,160}[.!?]?\)?\s*$")
_ASIDE_CUES = re.compile(r"n['’]t\b|\b(?:distractor|wrong|incorrect|not|never|later|earlier|previous|instead|only|"
                         r"cites?|describes?|invents?|made[- ]up|nonsense|tempting|irrelevant|unrelated|backwards)\b", re.I)
_ANSWER_BEFORE_ASIDE_RE = re.compile(r"(?:[a-z]{3,}[\s)\"”]*(?:—|–|→|->|:|,)|(?:^|[.!?]\s+))\s*\**\(?([A-Za-z]|\d{1,2})\)?\**"
                                     r"\s*[.!]\s*$")


def label_before_asides(t: str, lab: dict):
    """The label a reply gives just before one or two closing remarks on other options, each
    dismissing it ("... caused by the snapped tether — D. H is a temporal-confusion
    distractor."); MISS when it does not end so."""
    body, asides = t.rstrip(), set()
    for _ in range(2):
        cut = max(body.rfind(". ", 0, len(body) - 1), body.rfind("! ", 0, len(body) - 1),
                  body.rfind(".(", 0, len(body) - 1), body.rfind(". (", 0, len(body) - 1))
        m = _ASIDE_RE.fullmatch(body, cut + 1) if cut >= 0 else None
        named = lab.get((m.group(1) or m.group(2)).upper()) if m else None
        if named is None or not _ASIDE_CUES.search(m.group(0)):
            break
        asides.add(named)
        body = body[:cut + 1].rstrip()
        answer = _ANSWER_BEFORE_ASIDE_RE.search(body)
        if answer is not None:
            named = lab.get(answer.group(1).upper())
            return named if named is not None and named not in asides and answer.group(1) in lab else MISS
    return MISS


__all__ = ["answer_first", "computed_other", "ending_label", "first_line_label", "gives_none", "gloss_against_label",
           "label_before_asides", "labels_only", "repeated_label", "letter_for_text", "other_options_text", "text_against_label", "qa_answer",
           "stated_before_cut"]
