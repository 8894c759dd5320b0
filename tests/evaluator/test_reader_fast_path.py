"""The choice reader's fast path (evaluator/answers/final_box.py) gives what the full reader
gives: every response of every committed corpus (tests/data/extraction_corpus*/), and
replies shaped like the scoring bench's (reasoning, then "\\boxed{B}") with the variations
that must send them to the full reader, are read both ways and must agree wherever the
fast path answers; and it must answer a good share of the boxed ones. The hint checks made
faster for scoring speed (the step look in `framing`, `holds_any`, the judge's number-word
gate in `quantities.with_digits`) give what they gave, over the same texts, the judge
labelled sets (tests/data/judge_labels*/) and random ones."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from evaluator.answers import choice, framing, rewrite
from evaluator.answers.common import MISS, holds_any
from evaluator.answers.final_box import final_box_choice
from evaluator.judges import quantities

DATA = Path(__file__).resolve().parents[1] / "data"
CORPORA = sorted(p for p in DATA.glob("extraction_corpus*/*.jsonl"))
REASONING = ("Looking at the frames, the person first picks up the tool, then adjusts the setting. "
             "Several options mention similar steps, so I compare them with what is visible: the second "
             "and third statements describe actions that never happen in the clip, while the remaining ones "
             "differ in a detail. Taking the motion in the last frames into account, ")
ENDINGS = ["the final answer is \\boxed{B}.", "the final answer is \\boxed{b}", "\\boxed{2}", "\\boxed{12}.",
           "the answer is \\boxed{Z}.", "so \\boxed{A} or \\boxed{B}.", "\\boxed{B} (I first considered \\boxed{A}).",
           "I'm torn, maybe \\boxed{C}.", "not sure which; \\boxed{D}", "B, a bowl, so the answer is \\boxed{C}.",
           "the answer is \\fbox{B} \\boxed{C}.", "the answer is \\boxed{ B }.", "\\boxed{B}!", "\\boxed{N/A}.",
           "step 3 is skipped: \\boxed{B}.", "the second option, a cup, so \\boxed{B}.", "option three: \\boxed{C}.",
           "Q: which? A: \\boxed{B}", "<think>hmm</think> so \\boxed{D}.", "答案是 \\boxed{Ｂ}.", "\\boxed{C}.\n"]
LABEL_SETS = [(["A", "B", "C", "D"], ["a cup", "a bowl", "a knife", "a spoon"]),
              (["1", "2", "3", "4", "5"], ["Step 1: cut", "Step 2: mix", "Step 3: heat", "Step 4: cool", "Step 5: serve"]),
              (["A", "B", "C", "D", "E"], ["Step 1: cut", "Step 2: mix", "Step 3: heat", "Step 4: cool", "Step 5: serve"]),
              (["A", "B", "C", "D"], ["0.5 mL", "5 mL", "50 mL", "500 mL"]),
              (["A", "B", "C", "D"], None)]


def _rows():
    for path in CORPORA:
        with open(path, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                yield path.parent.name + "/" + path.name, row["text"], row["labels"], row.get("options")
    rng = random.Random(0)
    for ending in ENDINGS:
        for labels, options in LABEL_SETS:
            for _ in range(8):
                yield "bench-like", REASONING[:rng.randint(0, len(REASONING))] + ending, labels, options


def _both(monkeypatch, text, labels, options):
    """(the reader's answer, the full reader's, whether the fast path answered)."""
    answered = []

    def watched(*args):
        r = final_box_choice(*args)
        answered.append(r is not MISS)
        return r

    monkeypatch.setattr(choice, "final_box_choice", watched)
    fast = choice.extract_choice(text, labels, options)
    monkeypatch.setattr(choice, "final_box_choice", lambda *args: MISS)
    full = choice.extract_choice(text, labels, options)
    return fast, full, any(answered)


def test_fast_path_gives_what_the_full_reader_gives(monkeypatch):
    answered, boxed_last, differ = 0, 0, []
    rows = list(_rows())
    assert len(rows) > 10000
    for source, text, labels, options in rows:
        fast, full, used = _both(monkeypatch, text, labels, options)
        answered += used
        boxed_last += text.rstrip(" .").endswith("}") and "\\boxed" in text and len(text.strip()) > 40
        if fast != full:
            differ.append(f"{source}: {text[-80:]!r} fast {fast!r} full {full!r}")
    assert not differ, "\n".join(differ[:20])
    # it is taken: most replies over 40 characters that close on a box are read at once
    assert answered >= 600 and answered >= 0.5 * boxed_last, (answered, boxed_last)


@pytest.mark.parametrize("ending, expected", [
    ("the final answer is \\boxed{B}.", "B"), ("\\boxed{b}", "B"), ("the answer is \\boxed{Z}.", MISS),
    ("\\boxed{A} or \\boxed{B}.", MISS), ("\\boxed{B} (I first considered \\boxed{A}).", MISS),
    ("the answer is \\boxed{ B }.", MISS), ("\\boxed{B}!", MISS), ("I'm torn, maybe \\boxed{C}.", None),
])
def test_fast_path_answers_only_the_plain_shape(ending, expected):
    t = REASONING + ending
    lab = {x: x for x in "ABCD"}
    got = final_box_choice(t, t.lower(), lab, None)
    assert got is MISS if expected is MISS else got == expected


# -- the hint checks made faster: each gives what the longer way gives ---------------------

_OLD_STEP_NUMBER_RE = re.compile(r"[sſ]tep\s+\d")  # the look before it was written to open with "tep"


def _texts():
    """Every response and gold of the corpora and the judge labelled sets, and random strings
    made of the pieces the checks look for."""
    for _, text, _, _ in _rows():
        yield text
    for path in sorted(DATA.glob("judge_labels*/*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                yield from (str(row.get(k) or "") for k in ("gold", "response", "prediction"))
    rng = random.Random(1)
    pieces = ["s", "ſ", "S", "tep", "TEP", " ", "\u00a0", "\t", "\n", "1", "٣", "x", "%", "fold", "FOLD", "three",
              "Forty", "half", "by weight", "-", "İ", "K", "one", "ten", "Tenth", "é"]
    for _ in range(50000):
        yield "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))


def test_step_number_look_is_the_old_one():
    for text in _texts():
        low = text.lower()
        assert bool(framing._STEP_NUMBER_RE.search(low)) == bool(_OLD_STEP_NUMBER_RE.search(low)), text


def test_holds_any_is_any():
    for text in _texts():
        for hints in (framing._UNSURE_HINTS, rewrite._SPELLED_HINTS, ()):
            assert holds_any(text, hints) == any(h in text for h in hints)


def _old_with_digits(text: str, ordinals: bool) -> str:
    """quantities.with_digits as it was: every form and the number-word hint by regex."""
    for pattern, repl in quantities._PLAIN_FORMS:
        text = pattern.sub(repl, text)
    if quantities._NUMBER_HINT.search(text):
        for pattern, repl in quantities._SPELLED:
            text = pattern.sub(repl, text)
        text = quantities._WORD_RUN.sub(lambda m: f"{quantities._run_value(m[0])}", text)
    if ordinals:
        text = quantities._ORDINAL_WORD.sub(lambda m: f"{quantities._ORDINALS[m[1].lower()]}th", text)
    return text


def test_with_digits_gate_changes_nothing():
    for text in _texts():
        for ordinals in (False, True):
            assert quantities.with_digits(text, ordinals) == _old_with_digits(text, ordinals), text
            folded = quantities.fold(text)
            assert quantities.with_digits(folded, ordinals) == _old_with_digits(folded, ordinals), text
