"""A fast path for `extract_choice`: the reply that ends on its only box ("... so the final
answer is \\boxed{B}."), the shape most reasoning models close with.

It gives what `extract_choice`'s rules give for such a reply, without walking them: where the
reply (after the rewriting every reply gets) is over 40 characters, holds exactly one
``\\boxed`` and no ``\\fbox``, and ends with ``\\boxed{L}`` or ``\\boxed{L}.`` (L one letter or
a number of one or two digits that is a label), the rules come down to:

- the bare-label check and the short reply's value check apply only to 40 characters or less;
- `gives_none` (doubt, two answers, a step and a letter that disagree) is run as the rules run it;
- the box is the last and only one, so nothing is set aside and no second box sits beside it;
  its content is L itself, which names no refusal ("N/A") and is read as label L;
- the label's gloss (`gloss_against_label`) and a computed value naming another option
  (`computed_other`) are checked as the rules check them.

Anything else (two boxes, a box with more in it, text after it, a letter that is not a label)
returns MISS and the full reader runs. tests/evaluator/test_reader_fast_path.py checks over
every committed corpus that both ways agree.
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS
from evaluator.answers.framing import computed_other, gives_none, gloss_against_label

# the reply's last characters: "\boxed{B}" or "\boxed{12}", then at most a full stop
_FINAL_BOX_RE = re.compile(r"\\boxed\{([A-Za-z]|[0-9]{1,2})\}\.?")


def final_box_choice(t: str, low: str, lab: dict, opts):
    """The label chosen by a reply whose only box closes it, None where the rules give none,
    MISS where the fast path does not apply (see the module docstring)."""
    if len(t) <= 40 or t[-1] not in "}.":
        return MISS
    p = t.rfind("\\boxed{", len(t) - 13)  # "\boxed{12}." is 11 characters long
    if p < 0:
        return MISS
    m = _FINAL_BOX_RE.fullmatch(t, p)
    if m is None or t.find("\\boxed") != p or "\\fbox" in t:
        return MISS  # text after the box, or another box before it
    r = lab.get(m.group(1).upper())
    if r is None:
        return MISS  # not a label: the rules try the box's text another way
    if gives_none(t, low, lab):
        return None
    return None if opts and (gloss_against_label(t, r, opts, lab) or computed_other(t, r, opts)) else r


__all__ = ["final_box_choice"]
