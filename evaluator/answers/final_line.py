"""The answer line a reply closes on ("Answer: PBS", "\\boxed{I}"), read on its own when the
markers could not read it: a reply that ends by stating its answer has answered, so a label it
mentioned earlier ("E contradicts the scene. ... Answer: I", the labels being A-H) is not read
in its place. The line names an option by its label, its text (also in other words, or an
abbreviation the option gives in brackets: "PBS" for "phosphate-buffered saline (PBS)"), its
value or its date; else it names none: a label out of range, "Answer: Wear better shoes.".
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS
from evaluator.answers.labels import SHORT_RE
from evaluator.answers.options import option_contained, option_exact, option_paraphrase
from evaluator.answers.statements import said_statements, statement_sets
from evaluator.answers.values import dated_choice, value_choice

# the closing line: "Answer: X", "**Final answer:** X", "\boxed{X}", "... So the answer is: X" (X up
# to 80 characters)
_FINAL_LINE_RE = re.compile(
    r"(?:^|\n)[ \t*#>_]*(?i:final\s+)?(?i:answer)[ \t*_]*[:：][ \t*_]*(?P<a>[^\n]{1,80}?)[ \t*_.!]*$"
    r"|\\boxed\{(?P<b>[^{}\n]{1,80})\}[ \t.$]*$"
    r"|(?:^|[.!?]\s+)(?i:so\s+)?(?i:the\s+)?(?i:final\s+)?(?i:answer\s+is)\s*[:：][ \t*_]*(?P<c>[^\n]{1,80}?)[ \t*_.!]*$")
_AMOUNT_RE = re.compile(r"\d|\b(?i:one|two|three|four|five|six|seven|eight|nine|ten|half|twenty|thirty|forty|fifty|hundred)\b")
_BRACKETED_RE = re.compile(r"\(([^()]{2,12})\)")  # "phosphate-buffered saline (PBS)": its short name


def final_line_content(t: str) -> str | None:
    """What the reply's closing "Answer: ..." line or box gives, or None when it ends otherwise."""
    m = _FINAL_LINE_RE.search(t, max(0, len(t) - 200))
    return None if m is None else (m.group("a") or m.group("b") or m.group("c")).strip()


def final_line_choice(content: str, lab: dict, opts, vopts, amounts: tuple):
    """The option the closing line's `content` names, None where it names none (see the module
    docstring), MISS where it gives a number that the reply's working may make an option's
    ("\\boxed{1/2 A}"). `amounts`: each (option, label), as `values.value_readings` gives them."""
    m = SHORT_RE.fullmatch(content) if len(content) <= 40 else None
    if m is not None:
        named = lab.get(m.group("l").upper())
        if named is not None or m.group("l").isalpha() or not (vopts or any(_AMOUNT_RE.search(str(o)) for o, _ in amounts)):
            return named
        return MISS  # "4" where the options are values: the value, maybe
    sets = statement_sets(tuple(o for o, _ in amounts), tuple(lb for _, lb in amounts)) if amounts else {}
    if sets:  # "Answer: I, III and IV": that set of statements, or none (not "III and IV" inside it)
        return sets.get(said_statements(content), None)
    if opts:
        for read in (option_exact, option_contained, option_paraphrase):
            r = read(content, opts)
            if r is not MISS:
                return r
        r = _abbreviation(content, amounts)
        if r is not None:
            return r
    r = value_choice(content, vopts) if vopts else dated_choice(content, amounts) if amounts else None
    # an amount or a number in words is read with the reply's working (the rules after this)
    return r if r is not None or not _AMOUNT_RE.search(content) else MISS


def _abbreviation(content: str, amounts: tuple):
    """The one option that gives `content` as its short name in brackets."""
    said = content.strip().lower()
    named = [label for opt, label in amounts
             if any(said == short.strip().lower() for short in _BRACKETED_RE.findall(str(opt)))]
    return named[0] if len(named) == 1 else None


__all__ = ["final_line_choice", "final_line_content"]
