"""How a response frames its answer, for `choice`: an answer line under a restated
question ("Q: ...\\nA: B"), the answer first and the reasons after ("B\\n\\nC: unrelated..."),
an answer stated before the output was cut off ("The answer is E. The answer is"), a reply
that only lists labels ("A. B. C. D."), and a label whose quoted text is another option's
("Answer: B (Elastic)" where B is "Inelastic").
"""

from __future__ import annotations

import re

from evaluator.answers.labels import _LEAD_RE, _norm

# "Q: Which step ...?\nA: B": the line after "A:" is the answer, "A" no label
_QA_RE = re.compile(r"\s*(?:\*\*)?Q(?:uestion)?(?:\*\*)?\s*[:：][^\n]*\n+\s*(?:\*\*)?A(?:nswer)?(?:\*\*)?\s*[:：]\s*(?P<a>.+)",
                    re.S)
# "(D) The man ...", "B. Because ...", "**1** — At 1:39 ...": the answer opens the response
_ANSWER_FIRST_RE = re.compile(r"[\s*_#]{0,4}[\(\[]?([A-Za-z]|[0-9]{1,2})(?:[\)\]]|[.:](?=\s)|\*\*)")
# a line that is nothing but a label ("B", "**3**", "(C).")
_BARE_LINE_RE = re.compile(r"[\s*_#>`'\"(\[]{0,6}([A-Za-z]|[0-9]{1,2})[\s*_`'\")\].:]{0,6}")
# "The answer is E.", "Answer: (C)": a stated answer, read where the output was cut off after it
_STATED_RE = re.compile(r"(?i:\b(?:final\s+)?answer\s*(?:is|:)\s*(?:option\s+)?)\**\(?([A-Za-z]|[0-9]{1,2})\)?\**"
                        r"(?=[\s.,;:!)]|$)")
_LABELS_ONLY_RE = re.compile(r"(?:[\s*_#(\[]*(?:[A-Za-z]|[0-9]{1,2})[\s*_)\].:,;]*){3,}")


def qa_answer(t: str) -> str | None:
    """The answer part of a response that restates the question as "Q: ... A: ..."."""
    m = _QA_RE.match(t)
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
    ("The answer is E. The answer is E. The answer is"); else None."""
    found = {lab.get(m.group(1).upper()) for m in _STATED_RE.finditer(t)}
    return found.pop() if len(found) == 1 and None not in found else None


def labels_only(t: str, lab: dict) -> bool:
    """True if the response is only a run of three or more labels ("A. B. C. D.")."""
    if len(t) > 80 or not _LABELS_ONLY_RE.fullmatch(t):
        return False
    tokens = re.findall(r"[A-Za-z0-9]{1,2}", t)
    return len(set(tokens)) >= 3 and all(x.upper() in lab for x in tokens)


def other_options_text(t: str, pos: int, label, opts) -> bool:
    """True if the label read at `pos` is followed by an option text, in brackets or after
    a period, colon or dash to the end of its line, that is another option's, not its own
    ("Answer: B (Elastic)", "B. Elastic", B being "Inelastic")."""
    m = _LEAD_RE.match(t, pos)
    if m is None or not opts:
        return False
    quoted = re.match(r"\s*\(([^()\n]{2,300})\)", t[m.end():]) or \
        re.match(r"\s*[.:：\-–—]\s+([^\n]{2,300}?)\s*$", t[m.end():].split("\n", 1)[0])
    if quoted is None:
        return False
    said = _norm(quoted.group(1))
    if said.startswith("because "):
        said = said[len("because "):]
    owners = {lab for ns, lab, spaced in opts if ns == said or (spaced is not None and _norm(spaced) == said)}
    return bool(owners) and label not in owners


__all__ = ["answer_first", "first_line_label", "labels_only", "other_options_text", "qa_answer",
           "stated_before_cut"]
