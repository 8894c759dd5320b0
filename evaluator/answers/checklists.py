"""Checklists: a response that gives a verdict on each option ("A: wrong", "C ✅",
"❌ B: the phone was wet", "E. the barbell needed more plates → yes") chose the one
option it ticked.
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS

_VERDICT = r"(?P<v>(?i:correct|incorrect|right|wrong|true|false|yes|no)\b|[✓✔✅☑✗✘❌×✖])"
_LABEL = r"[ \t*_#>|\-]*(?:(?i:option|choice|statement|step)[ \t]*)?[\(\[]?(?P<l>[A-Za-z]|[0-9]{1,2})[\)\]]?"
# One line (or sentence) of a checklist: "B - correct", "C ✅", "| 4 | ✓ |", "A: wrong."
_CHECK_ITEM_SPLIT_RE = re.compile(r"[\n.;]|(?<=[✓✔✅☑✗✘❌✖])(?:[ \t]*\||[ \t]{2,})")  # "A ✓ | B ✗", "1 ✗  2 ✓  3 ✗"
_CHECK_RE = re.compile(_LABEL + r"[ \t*]*(?:[-–—:|=→][ \t*]*|is[ \t]+)?" + _VERDICT)
# A whole line: the verdict first ("❌ B: the phone was wet"), or after the option's
# text ("E. the barbell needed more plates → yes", "2: ✓ (thumb tuck)" is the form above).
_MARK_FIRST_RE = re.compile(r"[ \t*_#>|\-]*(?P<v>[✓✔✅☑✗✘❌×✖])[ \t]*" + _LABEL[len(r"[ \t*_#>|\-]*"):]
                            + r"(?:[.:)]|[ \t]|$)")
_MARK_LAST_RE = re.compile(_LABEL + r"[.:)][ \t].*?[ \t]*(?:→|->|=>|—|–|:|[ \t]-)[ \t*]*" + _VERDICT + r"[ \t*.!]*$")
# "Step 2 (Assemble the sandwich) ✓": a mark closing the line; "[x] B. tube": a ticked box
_MARK_END_RE = re.compile(_LABEL + r"[ \t.:)][^✓✔✅☑✗✘❌×✖]*?[ \t](?P<v>[✓✔✅☑✗✘❌×✖])\ufe0f?[ \t]*$")
_BOX_RE = re.compile(r"[ \t*\-]*\[(?P<v>[xX✓✔ ])\][ \t]*" + _LABEL[len(r"[ \t*_#>|\-]*"):] + r"[.:)\s]")
# "| D | Because ... | correct |": a table row, the verdict in its last cell
_ROW_RE = re.compile(r"[ \t]*\|[ \t]*(?P<l>[A-Za-z]|[0-9]{1,2})[ \t]*\|.*\|[ \t]*" + _VERDICT + r"[ \t*]*\|[ \t]*$")
_CHECK_YES = frozenset(("correct", "right", "true", "yes", "✓", "✔", "✅", "☑"))


def choice_from_checklist(t: str, lab: dict):
    """The one label marked correct in a checklist of verdicts over several labels.

    Several labels marked correct -> None; none marked correct -> MISS (a
    conclusion may follow)."""
    if len(t) > 3000:
        return MISS  # a checklist is short; long prose is read by markers
    verdicts: dict = {}
    # One anchored match per line/sentence: far cheaper than searching every position.
    for item in _CHECK_ITEM_SPLIT_RE.split(t):
        _add(verdicts, _CHECK_RE.match(item), lab)
    if ("→" in t or "->" in t or "=>" in t or " - " in t or "—" in t or "–" in t or ":" in t or "|" in t
            or not t.isascii()):
        for line in t.split("\n"):
            _add(verdicts, _MARK_FIRST_RE.match(line) or _MARK_LAST_RE.match(line) or _MARK_END_RE.match(line)
                 or _ROW_RE.match(line), lab)
    if "[" in t:
        for line in t.split("\n"):
            _add(verdicts, _BOX_RE.match(line), lab)
    if len(verdicts) < 2:
        return MISS
    yes = [lb for lb, v in verdicts.items() if True in v]
    if not yes:
        return MISS
    return yes[0] if len(yes) == 1 and verdicts[yes[0]] == {True} else None


def _add(verdicts: dict, m: re.Match | None, lab: dict) -> None:
    if m is None:
        return
    lb = lab.get(m.group("l").upper())
    if lb is not None:
        verdicts.setdefault(lb, set()).add(m.group("v").lower() in _CHECK_YES or m.group("v") in "xX")


__all__ = ["choice_from_checklist"]
