"""Self-corrections: "B... no, sorry, D.", "Option 2. Wait - ... Option 3.", "Changing my answer
to F": what a reply says after its last correction word replaces what came before.
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS
from evaluator.answers.final_line import final_line_content
from evaluator.answers.labels import FLUFF, bare_label, label_at, last_sentence, negated_label
from evaluator.answers.markers import is_word_start

# A self-correction: what follows the last of these replaces what came before.
# Found with rfind (only the last one matters, and most responses have none);
# a bare "no" counts only before punctuation ("no, sorry"), not in "no doubt", and
# only where a sentence or clause begins ("B... no, D"), not in "so no." closing a step.
_CORRECTION_WORDS = ("wait", "sorry", "oops", "actually", "scratch that", "on second thought", "correction:",
                     "i mean", "i meant", "make that", "changing my answer to", "change my answer to",
                     "looking again", "on reflection", "on closer inspection", "so back to",
                     "no,", "no.", "no:", "no;", "no!", "no —", "no -", "no–", "no—")


def last_correction(low: str) -> int:
    """End of the last correction word in ``low``, or -1."""
    best = -1
    for w in _CORRECTION_WORDS:
        p = low.rfind(w)
        while p >= 0 and p + len(w) > best:
            e = p + len(w)
            if (is_word_start(low, p) and not (e < len(low) and low[e].isalnum())
                    and not (w.startswith("no") and (low[:p].rstrip()[-1:].isalpha() or low[:p].rstrip()[-1:] in ":|-"))):
                best = e
                break
            p = low.rfind(w, 0, p)
    return best


# "Changing to 2.", "So I'll switch to C": what a correction's closing sentence opens with
_CHANGE_TO_RE = re.compile(r"^(?i:so\s+)?(?i:i['’]ll\s+|i\s+will\s+|i['’]m\s+)?(?i:chang|switch)(?i:e|ing)\s+(?i:my\s+answer\s+)?(?i:to)\s+")
_CLOSING_AFTER_MARK_RE = re.compile(r"(?:[:—–→⇒]|=>|\s-)\s*\**(?:(?i:option|choice)\s+)?\(?([A-Za-z]|\d{1,2})\)?\**\s*[.!]?\s*$")


def choice_after_correction(t: str, low: str, lab: dict):
    """"B... no, sorry, D." / "Option 2. Wait - ... Option 3.": the label given
    after the last correction word, when it is given plainly (right after the
    correction, or as the closing sentence).  A correction with nothing after
    it retracts the answer -> None.  Otherwise MISS: read the response as usual."""
    end = last_correction(low)
    if end < 0:
        return MISS
    tail = t[end:].lstrip(FLUFF)
    if not tail:
        return None
    closing = _CHANGE_TO_RE.sub("", last_sentence(tail))
    # "Looking again at the last frames, 5.": the closing sentence, or its last clause, first
    # ("D? No. ... A? Yes. ... So: A.": what closes the reply, not what follows the last "no")
    r = bare_label(closing, lab) or bare_label(closing.rsplit(",", 1)[-1].strip(), lab)
    if r is None:  # "... gives an area of 9 — option A.", "That makes 4 swaps in total: I."
        m = _CLOSING_AFTER_MARK_RE.search(tail)
        r = lab.get(m.group(1).upper()) if m and (m.group(1).isupper() or m.group(1).isdigit()) else None
    if r is not None:
        return r
    r, _ = label_at(tail, 0, lab, True)
    if r is not MISS and not negated_label(tail, 0) and final_line_content(tail) is None:
        return r  # (not "Hmm, no — B: no, that isn't visible. ... Answer: D": the answer line says)
    return MISS


__all__ = ["choice_after_correction", "last_correction"]
