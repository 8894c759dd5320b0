"""Video-MMMU's answer reading: a choice among the item's labels, or for open items
the final number (within tolerance) or a short final phrase naming the gold.
"""

from __future__ import annotations

import re

from evaluator.answers import extract_number, last_boxed, strip_reasoning
from evaluator.benchmarks.videommmu.records import OPEN_LETTERS, Answer, Question, labels_for
from evaluator.judges.normalized import normalize_text
from evaluator.metrics import Tally, read_choice
from evaluator.records import Prediction

# Numeric golds: equal after rounding both to 2 decimals (the official rule), or, for
# large golds (money, counts), within 0.1%: their last digits depend on how a long
# calculation rounded its intermediate steps.
LARGE_NUMBER = 100.0
RELATIVE_TOLERANCE = 1e-3


def _same_number(value: float, gold: float) -> bool:
    if round(value, 2) == round(gold, 2):
        return True
    return abs(gold) >= LARGE_NUMBER and abs(value - gold) < RELATIVE_TOLERANCE * abs(gold)


# A phrase answer may carry a few more words than the gold ("the concept is negative
# feedback"), not a list of candidates, and no alternative.
EXTRA_WORDS = 6
_ALTERNATIVES = frozenset({"or", "either", "nor"})
_ANSWER_MARK = re.compile(r"answer\s*(?:is\b|[:：=])", re.I)
_DECORATION = " \t*_#>`'\"“”:："


def final_answer(response: str) -> str:
    """The final-answer part of a reply: the last \\boxed{}, else the rest of the line after
    the last "answer is" / "Answer:", else the last non-empty line (what our prompt asks for)."""
    text = strip_reasoning(response) or response
    boxed = last_boxed(text)
    if boxed:
        return boxed
    marks = list(_ANSWER_MARK.finditer(text))
    if marks:
        rest = text[marks[-1].end():].lstrip(_DECORATION + "\n")
        line = rest.split("\n", 1)[0].strip(_DECORATION)
        if line:
            return line
    lines = [ln.strip(_DECORATION) for ln in text.splitlines()]
    return next((ln for ln in reversed(lines) if ln), "")


def _open_correct(pred: Prediction | None, answer: Answer, tally: Tally) -> bool:
    """Open-ended: the reply's final number equals a numeric gold (`_same_number`), or its
    final answer contains a gold phrase (normalised, whole words), as the official scorer
    does, but only a final answer that is short (at most the gold's words + EXTRA_WORDS)
    and offers no alternative ("or"): a list of candidate phrases is not an answer. A
    reply giving neither a number (numeric gold) nor any final answer (phrase gold) is
    unparseable."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return False
    number = extract_number(pred.response) if answer.values else None
    text = normalize_text(final_answer(pred.response)) if answer.texts else ""
    if number is None and not text:
        tally.unparseable += 1
        return False
    if number is not None and any(_same_number(number, v) for v in answer.values):
        return True
    return any(_names_phrase(text, t) for t in answer.texts)


def _names_phrase(text: str, phrase: str) -> bool:
    words, wanted = text.split(), phrase.split()
    return (f" {phrase} " in f" {text} " and len(words) <= len(wanted) + EXTRA_WORDS
            and not (_ALTERNATIVES & set(words)) - set(wanted))


def is_correct(q: Question, answer: Answer, pred: Prediction | None, tally: Tally) -> bool:
    if answer.labels:
        labels = labels_for(q) if q.options else OPEN_LETTERS
        return read_choice(pred, labels, q.options or None, tally) in answer.labels
    return _open_correct(pred, answer, tally)
