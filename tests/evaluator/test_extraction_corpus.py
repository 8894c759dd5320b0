"""extract_choice over the committed corpus of realistic multiple-choice responses
(tests/data/extraction_corpus/, made by make_corpus.py there).

A wrong option is worse than an unscored response: the corpus must give 0 wrong
options per benchmark (a "no answer" response read as a label counts as wrong),
while responses read as None are counted and kept rare.
"""

import importlib.util
import json
from pathlib import Path

import pytest

from evaluator.answers import extract_choice

CORPUS = Path(__file__).resolve().parents[1] / "data" / "extraction_corpus"
BENCHMARKS = ("exact", "videommmu", "expvid", "causalstep")
MAX_UNSCORED = 0.05


def load(bench: str) -> list[dict]:
    with open(CORPUS / f"{bench}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def outcomes(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(wrong, unscored) rows."""
    wrong, unscored = [], []
    for row in rows:
        got = extract_choice(row["text"], row["labels"], row["options"])
        if got != row["intended"]:
            (unscored if got is None else wrong).append(row | {"got": got})
    return wrong, unscored


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_no_wrong_option(bench):
    rows = load(bench)
    assert len(rows) >= 1000
    wrong, unscored = outcomes(rows)
    shown = "\n".join(f"{r['kind']}: {r['text'][:120]!r} -> {r['got']} (intended {r['intended']})"
                      for r in wrong[:10])
    assert not wrong, f"{len(wrong)} wrong options:\n{shown}"
    assert len(unscored) / len(rows) <= MAX_UNSCORED


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_corpus_covers_answers_and_no_answers(bench):
    rows = load(bench)
    kinds = {r["kind"] for r in rows}
    assert {"think_truncated", "refusal", "other_language", "self_correction", "option_text"} <= kinds
    assert any(r["intended"] is None for r in rows) and any(r["intended"] for r in rows)
    # Labels past D wherever the benchmark has them.
    if bench != "exact":
        assert any(r["intended"] and r["intended"] > "D" for r in rows)


def test_committed_corpus_is_what_the_generator_makes():
    spec = importlib.util.spec_from_file_location("make_corpus", CORPUS / "make_corpus.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for bench in BENCHMARKS:
        assert gen.generate(bench) == load(bench), f"regenerate {bench}.jsonl with make_corpus.py"


# The held-out corpus: 525 responses written by hand by a tester who had not seen
# the extractor (fields: id, style, tag, text, labels, options, intended).  It is
# never regenerated and never tuned against case by case, so it is the honest
# figure; the unscored bound is what the rules reach now and may only go down.
HELDOUT_MAX_UNSCORED = 4


def test_heldout_corpus_no_wrong_option():
    rows = load("heldout")
    assert len(rows) == 525
    wrong, unscored = outcomes(rows)
    shown = "\n".join(f"{r['id']} {r['tag']}: {r['text'][:120]!r} -> {r['got']} (intended {r['intended']})"
                      for r in wrong[:10])
    assert not wrong, f"{len(wrong)} wrong options:\n{shown}"
    print(f"held-out: {len(unscored)} of {len(rows)} unscored: " + ", ".join(r["id"] for r in unscored))
    assert len(unscored) <= HELDOUT_MAX_UNSCORED, [r["id"] for r in unscored]


# The second corpus (tests/data/extraction_corpus_v2/): 1,848 responses in the shapes the
# first corpora missed, written by a tester who had not seen the reader, then tuned
# against, so a test now: numeric labels ("Final: 1", "Two.", "2️⃣"), ExpVid's step
# numbers for options ("\boxed{Step 2}"), checklists, eliminations, caveats, cut-off
# reasoning, echoed option lists, "I would not choose B.", other languages.
# The third (extraction_corpus_holdout/, 1,217 responses by another tester) and the fourth
# (extraction_corpus_final/, 1,252) were each measured once untouched (docs/protocol.md
# has those figures), then tuned against, so they are tests too.
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("folder", ["extraction_corpus_v2", "extraction_corpus_holdout", "extraction_corpus_final"])
@pytest.mark.parametrize("bench", BENCHMARKS)
def test_later_corpora_no_wrong_option_and_at_most_2_percent_unscored(folder, bench):
    rows = [json.loads(line) for line in (DATA / folder / f"{bench}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 300
    wrong, unscored = outcomes(rows)
    shown = "\n".join(f"{r['id']} {r['tag']}: {r['text'][-160:]!r} -> {r['got']} (intended {r['intended']})"
                      for r in wrong[:10])
    assert not wrong, f"{len(wrong)} wrong options:\n{shown}"
    assert len(unscored) / len(rows) <= 0.02, [r["id"] for r in unscored]
    assert any(r["intended"] is None for r in rows)  # "no answer" responses are in it, and read as none


# Later corpora, each measured once untouched and then tuned against; the bounds may only go
# down. The fifth (extraction_corpus_fresh/, 1,090 hand-written responses) measured 33
# wrong options and 9.1% unscored; three stay wrong (a label that contradicts the reply's
# own working, "C — the integral evaluates to 1/2" where 1/2 is B's text).
# The sixth (extraction_corpus_fresh2/, 1,017) was measured untouched at 14 wrong and 2.2%
# unscored; two stay wrong ("The coach says to keep the shoulders parallel to the board,
# which is option 2", the text near option 4's but not its words). The seventh
# (extraction_corpus_fresh3/, 1,006) measured 12 wrong and 6.1% unscored (mostly option
# texts told in other words); one stays wrong ("Year 1 depreciation is $9,600 (option F),
# and year 2 is $5,760", the question asking for year 2), and some stay unscored by
# choice: a trace cut off inside <think> gave no answer, a step named only by its text. The
# eighth (extraction_corpus_fresh4/, 600 hand-written hard cases) measured 6 wrong and 6.2%
# unscored; none stays wrong, and most of its unscored replies give a value in other words
# ("500 microliters", "negative 860 dollars", "1.8e-5") or an option's text in other words.
# The ninth (extraction_corpus_fresh5/, 1,004 hand-written) measured 14 wrong (1.4%) and
# 5.4% unscored (the naive reader: 120 wrong); none stays wrong, and what stays unscored is
# mostly an option told in other words ("It powers down because the battery dies.") or a
# label glossed with another option's text, read as none.
TUNED_BOUNDS = {"extraction_corpus_fresh": (1, 0.02), "extraction_corpus_fresh2": (1, 0.006),
                "extraction_corpus_fresh3": (1, 0.025), "extraction_corpus_fresh4": (0, 0.02),
                "extraction_corpus_fresh5": (0, 0.04),
                # the tenth, 747 by a ninth tester, measured once (8 wrong, 5.4% unscored), then
                # tuned on: what stays wrong is a Roman numeral in a name ("Mobitz I"), a formula
                # that only begins like another option's, a value against the letter given
                "extraction_corpus_fresh6": (4, 0.04),
                # the eleventh, 729 by a tenth tester, measured once (10 wrong, 5.3% unscored), then
                # tuned on: what stays wrong is a label the reply's own words contradict, which this
                # tester counted as no answer and the later ones as the label given (docs/protocol.md)
                "extraction_corpus_fresh7": (8, 0.039),
                # the twelfth, 760 by an eleventh tester, measured once (7 wrong, 5.3% unscored; the
                # naive reader 98 wrong), then tuned on
                "extraction_corpus_fresh8": (0, 0.024),
                # the thirteenth, 720 by a twelfth tester, measured once (10 wrong, 4.0% unscored; the
                # naive reader 76 wrong), then tuned on: what stays wrong is a bare "2" that is both an
                # option's value and another's place, and a reply cut off inside a word ("... A? St")
                "extraction_corpus_fresh9": (2, 0.017),
                # the fourteenth, 720 by a thirteenth tester, measured once (9 wrong, 6.0% unscored; the
                # naive reader 89 wrong), then tuned on: what stays wrong is a reply cut off mid-sentence
                # after quoting an option ('... Option E says "Because ...". This could be ..., but F')
                "extraction_corpus_fresh10": (1, 0.034),
                # the fifteenth, 720 by a fourteenth tester, measured once (9 wrong, 2.5% unscored; the
                # naive reader 77 wrong), then tuned on: what stays unscored is an option's meaning in
                # other words ("the loss of total surplus caused by a tax" for "Deadweight loss")
                "extraction_corpus_fresh11": (0, 0.007),
                # the sixteenth, 700 by a fifteenth tester, measured once (7 wrong, 5.0% unscored; the
                # naive reader 81 wrong), then tuned on: what stays wrong is a bare ordinal ("2nd", "the
                # third one"), which this tester counted as no answer and the reader reads as the option
                # in that place (docs/protocol.md), and a computed amount in other words than the option's
                # ("= 4 mol O2" for "4") before another label
                "extraction_corpus_fresh12": (5, 0.003),
                # the seventeenth, 700 by a sixteenth tester, measured once (18 wrong, 0.4% unscored; the
                # naive reader 129 wrong), then tuned on
                "extraction_corpus_fresh13": (0, 0.003),
                # the eighteenth, 700 by a seventeenth tester who wrote replies that discuss several options
                # by label before deciding, measured once (24 wrong, 7.3% unscored; the naive reader 141
                # wrong), then tuned on
                "extraction_corpus_fresh14": (0, 0.018),
                # the nineteenth, 700 by an eighteenth tester, as chat assistants answer, measured once at the
                # same time (1 wrong, 3.6% unscored; naive 66 wrong), then tuned on
                "extraction_corpus_fresh15": (0, 0.012),
                # the twentieth, 700 by a nineteenth tester, a mix as a leaderboard run over many models
                # would produce, measured once untouched (6 wrong, 1.1% unscored; naive 77 wrong), then
                # tuned on
                "extraction_corpus_fresh16": (0, 0.008),
                # the twenty-first, 700 by a twentieth tester who set numbers as traps, measured once untouched
                # (12 wrong, 1.0% unscored; naive 82 wrong), then tuned on: what stays wrong is a bare number
                # among number options that is also another option's place ("4" for "4", "6", "8", "9"),
                # which this tester, told so, counted as no answer, and the reader reads as the value
                "extraction_corpus_fresh17": (7, 0.006),
                # the twenty-second, 700 by a twenty-first tester, a mix as a run over many models gives,
                # measured once untouched at the same time (4 wrong, 3.1% unscored; naive 60 wrong), then
                # tuned on
                "extraction_corpus_fresh18": (0, 0.01),
                # the twenty-third, 700 by a twenty-second tester, a mix as a run over about twenty models
                # gives, measured once untouched on the final reader of the day (1 wrong, 2.6% unscored;
                # naive 41 wrong), then tuned on lightly
                "extraction_corpus_fresh19": (0, 0.018),
                # the twenty-fourth, 600 by a twenty-third tester, a mix, measured once untouched on the
                # reader as this corpus was added (0 wrong, 3.8% unscored; naive 68 wrong), then tuned on
                # lightly: 13 of its 17 unscored left are unclosed traces that say "So the answer is H."
                # and go on re-checking the options until cut off, which the reader counts as no final
                # answer (docs/protocol.md) and this tester as the answer stated
                "extraction_corpus_fresh20": (0, 0.029),
                # the twenty-fifth, 700 by a twenty-fourth tester, a mix, measured once untouched on
                # the reader of the day (5 wrong, 1.7% unscored; naive 60 wrong), then tuned on: the 2
                # wrong left are "Answer: 6" and "7" for options "Step 1", "Step 3", "Step 6", "Step 8",
                # read as the step they name (no option's place), which that tester's instructions
                # counted as no answer (docs/protocol.md: the reader's rule)
                "extraction_corpus_fresh21": (2, 0.011),
                # the twenty-sixth, 700 by a twenty-fifth tester, a mix, measured once untouched on the
                # final reader (0 wrong, 1.7% unscored; naive 81 wrong), then tuned on lightly
                "extraction_corpus_fresh22": (0, 0.008)}


@pytest.mark.parametrize("folder", sorted(TUNED_BOUNDS))
def test_tuned_corpora_stay_within_their_bounds(folder):
    max_wrong, max_unscored = TUNED_BOUNDS[folder]
    rows = [json.loads(line) for bench in BENCHMARKS
            for line in (DATA / folder / f"{bench}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 600
    wrong, unscored = outcomes(rows)
    assert len(wrong) <= max_wrong, [(r["id"], r["got"], r["intended"]) for r in wrong]
    assert len(unscored) / len(rows) <= max_unscored, len(unscored)
