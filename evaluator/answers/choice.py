"""`extract_choice`: which option a response chose, from rules over the whole
response (boxes, JSON, corrections, checklists, ordinals) and the markers and
label matching of `markers` and `labels`.
"""

from __future__ import annotations

import re
from typing import Sequence

from evaluator.answers.common import MISS, boxed_spans, clean_boxed, aligned_lower, prep, cut_off_mid_sentence
from evaluator.answers.framing import (
    answer_first, computed_other, ending_label, first_line_label, gives_none, gloss_against_label, label_before_asides,
    letter_for_text, other_options_text, qa_answer, repeated_label, stated_before_cut, text_against_label,
)
from evaluator.answers.corrections import choice_after_correction, last_correction
from evaluator.answers.labels import (
    NO_ANSWER_RE, SHORT_RE, bare_label, decide_span, label_at, label_map, last_sentence, negated_label,
)
from evaluator.answers.options import (
    SAYS_OPTION_RE, norm, norm_options, option_contained, option_exact, option_numbers, option_paraphrase,
)
from evaluator.answers.statements import statements_named
from evaluator.answers.checklists import choice_from_checklist
from evaluator.answers.final_box import final_box_choice
from evaluator.answers.final_line import final_line_choice, final_line_content
from evaluator.answers.json_replies import choice_from_json
from evaluator.answers.markers import choice_before_note, choice_from_markers
from evaluator.answers.mentions import ENUM_LINE_RE, names_both, lists_options, strong_mention, negated
from evaluator.answers.rewrite import canonical_text, placed_ordinal
from evaluator.answers.values import (
    concluded_value, dated_choice, has_amounts, plain_numbers, value_after_cue, value_choice, value_readings,
)


# a box the reply sets aside: "I initially considered \boxed{A}", "instead of \boxed{B}"
_SET_ASIDE_RE = re.compile(r"(?:considered|thought\s+of|instead\s+of|rather\s+than|not)\s*\$?\\(?:boxed|fbox)\s*\{?$")


def _choice_from_boxes(t: str, lab: dict, opts):
    """Choice given by the last \\boxed{}; None when the box says there is no
    answer ("\\boxed{N/A}") or sits next to a box with another label
    ("\\boxed{A} or \\boxed{B}"); MISS when there is no usable box."""
    spans = boxed_spans(t, last_only=False)
    while len(spans) > 1 and _SET_ASIDE_RE.search(t, max(0, spans[-1][0] - 60), spans[-1][0]):
        spans.pop()  # "\boxed{C} (I first considered \boxed{A}, ...)": a thought set aside
    if not spans:
        return MISS
    a, b = spans[-1]
    content = clean_boxed(t[a:b])
    if not content:
        return MISS
    if NO_ANSWER_RE.match(content):
        return None
    m = SHORT_RE.fullmatch(content)
    r = lab.get(m.group("l").upper()) if m else None
    if r is None and opts and "=" in content:  # "\\boxed{I = \\tfrac{1}{2}MR^2}": the value boxed
        found = option_exact(content.rsplit("=", 1)[1], opts)
        r = None if found is MISS else found
    if r is None:
        r = decide_span(content, 0, lab, opts, False)
    if r is None or r is MISS or len(spans) < 2:
        return r
    pa, pb = spans[-2]
    if a - pb <= 24:  # "} or \boxed{": two boxes given together
        prev = SHORT_RE.fullmatch(clean_boxed(t[pa:pb]))
        if prev and lab.get(prev.group("l").upper()) not in (None, r):
            return None
    return r


# a prompt's closing instruction echoed as the reply's end: "Reason first, then end with 'Answer: X'."
_ECHOED_PROMPT_RE = re.compile(r"(?i:answer\s+with\s+the\s+option|end\s+with\s+['\"]?answer\s*:\s*x\b|put\s+your\s+final\s+answer\s+"
                               r"(?:in|within)|answer\s+with\s+(?:only\s+)?the\s+(?:letter|number))[^\n.]*\.?\s*$")


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
    self-correction ("B... no, sorry, D", "Changing my answer to F": the label
    given plainly after the last correction wins).  Before the shape fallbacks:
    a checklist of verdicts ("A - wrong", "❌ B: ...", "E. ... → yes") gives its
    one ticked label.  Other spellings of a label are read as it (`rewrite`):
    ordinals and number words ("the third option", "The 4th one.", "Two.",
    "第三个"), keycaps ("2️⃣"), "Statement (1-5): 3".  Where every option is a
    step number or opens with one ("Step 3: ..."), as ExpVid's completeness
    options, a step number names its option ("\\boxed{3}").  Option texts that
    are values or formulas ("0.1 s", "O(n²)") match only whole; where every option
    is a value, a short reply's values name one in any unit ("0.5 mL" for 500 µL,
    `values`).  A label glossed with another option's text, or whose short reply's
    value is another option's, gives none.

    Ambiguity -> None: the final marker names two labels ("A or B"), or no
    marker exists and several labels are mentioned.  Doubt -> None too: a
    label asked as a question ("Would B be right?"), "N/A" / "None of the
    above", a label rejected ("Answer: A is not correct", "I would not choose
    B"), two boxes given together, two labels ticked in a checklist, and a
    response cut off before its answer: mid-sentence, or while walking
    through the options.
    """
    if not text or not labels:
        return None
    labels_t = tuple(labels)
    options_t = tuple(options) if options else None
    steps = option_numbers(options_t, labels_t, text) if options_t else None
    lab = {**steps, **label_map(labels_t)} if steps else label_map(labels_t)  # "\\boxed{3}": the option of step 3
    t, low = prep(text)
    if not t:
        return None
    t, low, rewritten = canonical_text(t, low, labels_t, lab, bool(options_t) and plain_numbers(options_t))
    qa = qa_answer(t)
    t, low = (qa, aligned_lower(qa)) if qa is not None else (t, low)  # "Q: ...\nA: B": the answer line
    opts = norm_options(options_t, labels_t) if options_t else None
    r = final_box_choice(t, low, lab, opts)  # "... so the answer is \\boxed{B}.": what the rules give, at once
    vopts, amounts = value_readings(options_t, labels_t, steps) if r is not None else (None, ())
    if r is not MISS:
        return _unless_value_said(t, r, vopts, amounts, lab)
    r = _choice_from_rules(t, low, lab, opts)
    if r is not MISS:
        return _unless_value_said(t, _unless_values_differ(t, r, vopts, opts, lab), vopts, amounts, lab)
    if options_t and ("tatement" in t or "true" in low or "correct" in low or "only" in low):
        r = statements_named(t, options_t, labels_t)  # "The correct statements are 1,2,4."
        if r is not MISS:
            return r
    r = _choice_from_shape(t, low, lab, opts, rewritten, vopts, amounts)
    r = None if r is not None and text_against_label(t, r, opts, lab) else r
    return _unless_values_differ(t, r, vopts, opts, lab)


def _unless_value_said(t: str, r, vopts, amounts: tuple, lab: dict):
    """None where options are amounts and the sentence just before the reply's closing answer
    concludes another option's ("Reading the display, the value is 65 °C.\\n\\nAnswer: C", 65 °C
    being D; "... comes out to 47.5 m/s. Therefore, the correct option is (B).", 47.5 m/s being
    D): the reply contradicts itself; else `r`."""
    if r is None or not amounts or not has_amounts(amounts):
        return r
    body = t.rstrip()[-600:]
    if not _DIGIT_RE.search(body):
        return r  # no amount anywhere near the end
    q = body.rfind("\n")
    if q > 0 and final_line_content(body[q:]) is not None:
        end = len(body[:q].rstrip())
        before = body[_sentence_start(body, end - 1):end]  # "...\n\nAnswer: C"
    else:  # "... comes out to 47.5 m/s. Therefore, the correct option is (B)."
        p = _sentence_start(body, len(body) - 1)
        closing = body[p:].lower()
        states = "answer" in closing or "option is" in closing or "choice is" in closing
        before = body[_sentence_start(body, p - 1):p] if p > 0 and states else ""
    if (not _DIGIT_RE.search(before) or not _CONCLUDES_RE.search(before)
            or any(x in lab for m in _NAMES_LABEL_RE.findall(before) for x in m if x)):
        return r  # no value concluded there, or an option discussed by its label ("D (8 V) would ...")
    said = concluded_value(before, amounts) or value_after_cue(before, vopts)  # "the final value is 3": A's, not C's place
    return None if said is not None and said != r else r


def _sentence_start(body: str, end: int) -> int:
    """Where the sentence that ends at `end` begins: after the last stop or line break before it."""
    return max(body.rfind(". ", 0, end), body.rfind("! ", 0, end), body.rfind("? ", 0, end), body.rfind("\n", 0, end)) + 1


# a sentence that concludes a value ("the value is 65 °C", "which gives 6.02 × 10^23"), and one
# that names an option by its label ("D (8 V) would ...", "A: 4 °C", "option C")
_DIGIT_RE = re.compile(r"\d")
_CONCLUDES_RE = re.compile(r"=|\b(?:is|gives|shows|reads|equals|comes\s+(?:out\s+)?to)\b")
_NAMES_LABEL_RE = re.compile(r"^\W*([A-Z]|\d{1,2})[.):]|\(([A-Z]|\d{1,2})\)|\b(?i:option|choice)\s+\(?([A-Z]|\d{1,2})\b"
                             r"|\b([A-Z])\s*\(")


def _unless_values_differ(t: str, r, vopts, opts, lab):
    """None where a short reply's values name another option than its label ("C — the
    integral evaluates to 1/2", where 1/2 is option B), else `r`. (In a longer reply a
    value is as likely an option discussed, "F (2.5) doesn't follow", as the answer.)"""
    if r is not None and opts and gloss_against_label(t, r, opts, lab):
        return None  # "I think the answer is F: <the text of B>": which one is meant?
    if r is None or not vopts or len(t) > 40:
        return r
    named = value_choice(t, vopts)
    return None if named is not None and named != r else r


def _choice_from_rules(t: str, low: str, lab: dict, opts):
    """The explicit forms, in order of trust: a bare label, boxes, a JSON answer, a
    self-correction, markers (before a note, then anywhere), the exact option text;
    then the refusals ("None of the above", "both") and a checklist. A label, None
    (decided: no answer) or MISS (none of them applies)."""
    # A very short response: bare label ("B", "(B).", "**B**", "Option 3").
    m = SHORT_RE.fullmatch(t) if len(t) <= 40 else None
    lb = lab.get(m.group("l").upper()) if m else repeated_label(t, lab)  # "5 5 5 5 5": said over and over
    if lb is not None:
        return lb

    if gives_none(t, low, lab):
        return None  # "A. B. C. D.", "I'm not sure which", two answers, "Is it C?"
    if "\\boxed" in t or "\\fbox" in t:
        r = _choice_from_boxes(t, lab, opts)
        if r is not MISS:  # "v = 14 m/s, so \\boxed{B}" where 14 m/s is another option: none
            return None if r is not None and computed_other(t, r, opts) else r

    if ("{" in t and ":" in t) or t.endswith((")", "`")):
        r = choice_from_json(t, lab, opts)
        if r is not MISS:
            return r

    if (cut_off_mid_sentence(t) and not answer_first(t, lab) and not (opts and _ends_with_option(t, opts))
            and final_line_content(t) is None):  # "Answer: a glass stirring rod" is not cut off
        return stated_before_cut(t, lab)  # out of tokens: an answer stated in so many words, or none
    r = choice_after_correction(t, low, lab)
    if r is MISS:
        r = label_before_asides(t, lab)  # "... — D. H is a distractor."
    if r is not MISS:
        return r

    if "not" in low or "注" in low or "n.b" in low or "p.s" in low:
        r = choice_before_note(t, low, lab, opts)
        if r is not MISS:
            return r
    r = choice_from_markers(t, low, lab, opts)
    if r is not MISS:
        return None if r is not None and (computed_other(t, r, opts) or text_against_label(t, r, opts, lab)) else r
    r = ending_label(t, low, lab)  # "... → E", "... — D.", "..., which is option 2."
    if r is not MISS:
        return None if r is not None and text_against_label(t, r, opts, lab) else r

    if opts:
        r = option_exact(t, opts)
        if r is not MISS:
            return r

    if NO_ANSWER_RE.match(t) or NO_ANSWER_RE.match(last_sentence(t)) or _ECHOED_PROMPT_RE.search(t[-160:]):
        return None  # "None of the above. A is closest but wrong.", "... None of the options is correct."
    if "both" in low and names_both(t, lab):
        return None  # "Both A and B are true statements.": two labels
    first = first_line_label(t, lab)
    if first is not None:
        return first  # "B\n\nStep 2 ...: shown ✓": the answer first, alone on its line, then the reasons
    # where the options are step numbers ("which step is missing?"), a tick beside a step
    # may mean "shown": only verdicts on the letters count
    steps = any(k.isdigit() for k in lab) and any(k.isalpha() for k in lab)
    return choice_from_checklist(t, {k: v for k, v in lab.items() if k.isalpha()} if steps else lab)


_EITHER_RE = re.compile(r"\beither\b[^.\n]{1,80}\bor\b|\bcould\s+be\b[^.\n]{1,80}\bor\b"
                        r"|\b(?:option|statement|choice)\s+\(?[a-z0-9]{1,2}\)?\s+or\s+(?:option\s+)?\(?[a-z0-9]{1,2}\)?\s+"
                        r"(?:could|might|may|are)\b")


def _ends_with_option(t: str, opts) -> bool:
    """True if the response's last line ends with an option's text (which may end on
    any word: "... gets in")."""
    tail = " " + norm(t[t.rfind("\n") + 1:][-300:])
    return any(tail.endswith(" " + ns) for ns, _, spaced in opts if spaced is None)


# "G is the reason. ...", "3 is the one.", "Feedback 5 is what the teacher gives.", "**Step 3 was
# not performed.**": a verdict opening the reply
_OPENING_VERDICT_RE = re.compile(
    r"[\s*(]{0,3}(?i:step\s+|feedback\s+|option\s+)?([A-Za-z]|\d{1,2})[)*]{0,2}\s+(?:is\s+the\s+(?:one|reason|answer|right\s+one"
    r"|correct\s+one)\s*[.!]|is\s+what\s+the\b|(?:was|is)\s+(?:not\s+(?:performed|shown|done)|never\s+(?:performed|shown)"
    r"|skipped|omitted|missing)\b)")


def _opening(t: str, low: str, lab: dict, opts):
    """What the reply's opening settles: a label alone on the first line ("B\n\nReasoning:
    ..."), a verdict ("G is the reason. ..."), two candidates ("Either B or C": None, unless
    the reply closes on a label alone), a letter for a numbered option's text ("E. <the
    text of option 5>"); else MISS."""
    first = first_line_label(t, lab)
    if first is not None:
        return first
    m = _OPENING_VERDICT_RE.match(t)
    if m and lab.get(m.group(1).upper()) is not None and (m.group(1).isupper() or m.group(1).isdigit()):
        return lab[m.group(1).upper()]
    if _EITHER_RE.search(low):
        # "It's either F or G ... so v = 14 m/s. G.": unless a closing label settles it
        return bare_label(last_sentence(t), lab)
    return letter_for_text(t, lab, opts)


def _rejected(t: str, low: str, label) -> bool:
    """True if the reply rejects ``label`` where it names it in a strong form ("it isn't D",
    "(G) is wrong", "B (Cubism) can be eliminated")."""
    token = re.escape(str(label))
    if any(_REJECTS_RE.search(low, max(0, low.rfind(". ", 0, m.start()), low.rfind("\n", 0, m.start())), m.start())
           for m in re.finditer(rf"(?<=and ){token}(?=,?\s+(?:too|as\s+well)\b(?!\s+as))|(?<=so is ){token}\b", t)):
        return True  # "A is ruled out, and B too.": rejected along with another
    return any(negated(low, m.start(), m.end()) or (m.group().isalnum() and negated_label(t, m.start()))
               for m in re.finditer(rf"\({token}\)|(?<=n't ){token}\b|(?<=not ){token}\b|\b{token}(?= \()", t))


_REJECTS_RE = re.compile(r"ruled\s+out|wrong|incorrect|eliminat|exclud|\bnot\b|n't|never|contradict")


def _choice_from_shape(t: str, low: str, lab: dict, opts, rewritten: bool, vopts, amounts: tuple) -> str | None:
    """The shape-based fallbacks: a leading label, a last line or closing sentence that
    is a label (unless the response enumerates the options), the one label mentioned,
    the one option text in a short response, the one option its values give (where every
    option is a value, `vopts`; else, where some options are amounts, `amounts`, the amount
    it closes on)."""
    r = _opening(t, low, lab, opts)
    if r is not MISS:
        return r
    content = final_line_content(t)  # "... E contradicts the scene.\n\nAnswer: I": it answered, out of range
    r = final_line_choice(content, lab, opts, vopts, amounts) if content is not None else MISS
    if r is not MISS:
        return r
    enumerated = None
    r, _ = label_at(t, 0, lab, True)
    if r not in (None, MISS) and other_options_text(t, 0, r, opts, lab):
        return None  # "C. Elastic" where Elastic is D: which one is meant?
    if r is not MISS and not negated_label(t, 0):  # "(A) is wrong." opens, chooses nothing
        enumerated = lists_options(t, lab)
        if not enumerated:
            return r

    body = t.rstrip()
    q = body.rfind("\n")
    last_line = body[q + 1:].strip() if q >= 0 else body
    if q >= 0 and last_line:
        m = SHORT_RE.fullmatch(last_line) if len(last_line) <= 40 else None
        lb = lab.get(m.group("l").upper()) if m else None
        if lb is not None:
            return lb
        r, _ = label_at(last_line, 0, lab, True)
        if r is not MISS and not negated_label(last_line, 0):
            if enumerated is None:
                enumerated = lists_options(t, lab)
            if not enumerated:
                return r
    # "Okay. 2": a closing sentence that is only a label.
    lb = bare_label(last_sentence(last_line), lab)
    if lb is not None:
        if enumerated is None:
            enumerated = lists_options(t, lab)
        if not enumerated:
            return lb

    if ENUM_LINE_RE.match(last_line) and (enumerated if enumerated is not None else lists_options(t, lab)):
        return None  # it ends walking through the options (cut off, or an echo): no choice made
    if opts and q >= 0:
        r = option_exact(last_line, opts)  # "**0.1 s**" closing a worked answer
        if r is not MISS:
            return r
    steps = any(k.isdigit() for k in lab) and any(k.isalpha() for k in lab)
    r = strong_mention(t, low, lab) if not rewritten or steps else placed_ordinal(t, lab)
    if r is not MISS:  # not "Option 1 overstates it. Whatever the answer is, it isn't 1."
        return None if r is not None and _rejected(t, low, r) else r
    return _option_told(t, low, opts, last_line, vopts, amounts)


def _option_told(t: str, low: str, opts, last_line: str, vopts, amounts: tuple):
    """The option a reply tells in its own words or values, where it names no label."""
    if vopts and SAYS_OPTION_RE.search(t):
        return None  # "Option 2" among "3", "5", "2", "4": the second, or the one that reads 2?
    if vopts and (r := concluded_value(t, amounts)) is not None:
        return r  # "... 50 kg bag contains 10,000 g": the amount it closes on, not one of its working
    # "set to 10 or 20 µL": where the options are values, two values offered name neither
    r = _option_in_words(t, low, opts, last_line) if opts and not (vopts and _VALUE_OR_VALUE_RE.search(t)) else None
    if r is not None:
        return r
    if vopts:
        return value_choice(t, vopts)
    return (concluded_value(t, amounts) or dated_choice(t, amounts)) if amounts else None


_VALUE_OR_VALUE_RE = re.compile(r"\d\s+or\s+\d")


def _option_in_words(t: str, low: str, opts, last_line: str):
    """The one option whose text a short reply (or a long one's last line) contains, or
    retells in other words; None otherwise. Only a short answer is searched: in long prose
    an option phrase is as likely to be discussed as to be chosen."""
    scope = t if len(t) <= 300 else last_line
    corrected = last_correction(low)
    if corrected > 0 and scope is t:
        scope = t[corrected:]  # "= 45 kN·m... wait, ...": the working after the correction
    if len(scope) > 300:
        return None
    r = option_contained(scope, opts)
    if r is not MISS:
        return None if _rejected(t, low, r) else r  # "it isn't D (sonicator probe)"
    r = option_paraphrase(scope, opts)  # the option told in other words
    return None if r is MISS else r
