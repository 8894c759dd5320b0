"""The Compare tab and protocols (leaderboard/compare_protocol.py): the pickers show each
row's protocol status; two rows' cards are compared field by field and benchmark by
benchmark (a field one card does not state is not a difference; a deviation from the
reference only one row has is); the table's rows of the benchmarks concerned are marked
in Note, and the summary says plainly whether the two protocols differ and in what."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.protocol_card import file_card
from evaluator.records import ScoringOptions
from results import markup, protocol_status
from leaderboard import compare
from leaderboard.compare_protocol import EVERY, ProtocolGap, picker_options, protocol_gap


def as_row(card, row_id: str, label: str) -> dict:
    """A table row as the board holds it: the card's columns (protocol_status.row_columns)."""
    row = {"id": row_id, "label": label, **protocol_status.row_columns(SimpleNamespace(protocol=card))}
    return row | {"protocol_text": protocol_status.label(row["protocol_status"], row["protocol_deviations"])}


@pytest.fixture(scope="module")
def cards(demo_suite):
    suite, _ = demo_suite
    judge = NormalizedMatchJudge()
    baseline = file_card(suite, judge, ScoringOptions(), {"kind": "baseline"})
    return {
        "baseline": baseline,
        "file": file_card(suite, judge, ScoringOptions(), {"kind": "predictions"}),
        "algo": file_card(suite, judge, ScoringOptions(by_benchmark={"causalstep": {"restart": "algo"}}), {"kind": "predictions"}),
        "declared16": file_card(suite, judge, ScoringOptions(), {"kind": "predictions", "metadata": {"frames": "16"}}),
    }


def test_the_same_protocol_is_said_to_be_the_same(cards):
    gap = protocol_gap(as_row(cards["baseline"], "a", "A"), as_row(cards["file"], "b", "B"))
    # a prediction file states no runner fields (resolution, generation): not a difference
    assert not gap.differs and gap.mark("exact") == ""
    assert gap.note().startswith("**Same protocol**")


def test_scoring_options_differ_for_the_benchmark_they_are_of(cards):
    a, b = as_row(cards["baseline"], "a", "A"), as_row(cards["algo"], "b", "B")
    gap = protocol_gap(a, b)
    what = "causalstep_points: prose vs algo, causalstep_restart: prose vs algo"  # the reading sets both
    assert gap.fields == {"scoring": what} and gap.where["scoring"] == {"causalstep"}
    assert gap.mark("causalstep") == "≠ protocols differ: scoring" and gap.mark("exact") == ""
    # an option named after no benchmark concerns them all
    other = cards["baseline"].model_copy(update={"scoring": {**cards["baseline"].scoring,
                                                             "grade_truncated_reasoning": True}})
    assert protocol_gap(a, as_row(other, "b", "B")).where["scoring"] == {EVERY}
    note = gap.note()
    assert "**Different protocols**" in note and f"scoring ({markup.escape(what)})" in note  # card values escaped
    assert "mixes the difference between the models with the difference between the protocols" in note


def test_frames_differ_only_where_they_differ(cards):
    other = cards["baseline"].model_copy(deep=True)
    other.frames["exact"] = 16
    other.frame_times_sha256["exact"] = "0" * 16
    gap = protocol_gap(as_row(cards["baseline"], "a", "A"), as_row(other, "b", "B"))
    assert gap.fields == {"frames": "exact: 32 vs 16 frames per call"} and gap.where["frames"] == {"exact"}
    assert gap.mark("exact") == "≠ protocols differ: frames" and gap.mark("videommmu") == ""
    # a budget key is its benchmark's: videommmu_question_only is Video-MMMU's
    other = cards["baseline"].model_copy(deep=True)
    other.frames["videommmu_question_only"] = 2
    assert protocol_gap(as_row(cards["baseline"], "a", "A"), as_row(other, "b", "B")).where["frames"] == {"videommmu"}


def test_generation_thinking_and_settings(cards):
    def run(thinking: bool, temperature: float):
        card = cards["baseline"].model_copy(deep=True)
        card.generation = {"thinking": thinking, "benchmarks": {"exact": {"temperature": temperature, "runs": 1},
                                                                "videommmu": {"temperature": 0.0, "runs": 1}}}
        return card
    gap = protocol_gap(as_row(run(False, 0.0), "a", "A"), as_row(run(True, 0.7), "b", "B"))
    assert gap.fields["generation"] == "thinking off vs on; exact: temperature 0.0 vs 0.7"
    assert gap.where["generation"] == {EVERY, "exact"}
    assert not protocol_gap(as_row(run(False, 0.0), "a", "A"), as_row(run(False, 0.0), "b", "B")).differs
    # a declared thinking file against a run without thinking: thinking differs
    declared = cards["file"].model_copy(update={"declared": {"thinking": "true"}})
    assert protocol_gap(as_row(run(False, 0.0), "a", "A"), as_row(declared, "b", "B")).fields["generation"] == \
        "thinking off vs on"


def test_a_deviation_only_one_row_has_is_a_difference(cards):
    """A declared frame count the call list does not have: the cards' frame fields are
    equal, but only that row deviates from the reference in frames."""
    a, b = as_row(cards["baseline"], "a", "A"), as_row(cards["declared16"], "b", "B")
    assert b["protocol_text"] == "≠ frames"
    gap = protocol_gap(a, b)
    assert gap.fields == {"frames": ""} and gap.mark("exact") == "≠ protocols differ: frames"
    assert "They differ in frames." in gap.note()
    # both off the reference in the same way: that alone is no difference between them
    assert not protocol_gap(b, as_row(cards["declared16"], "c", "C")).differs


def test_an_older_card_and_a_row_without_one(cards):
    old = cards["baseline"].model_copy(update={"schema_version": 1})
    gap = protocol_gap(as_row(old, "a", "A"), as_row(cards["baseline"], "b", "B"))
    assert gap.fields[protocol_status.OLDER] == "model A was scored under an older reference protocol"
    unknown = protocol_gap(as_row(cards["baseline"], "a", "A"), as_row(None, "b", "B"))
    assert unknown.unknown == ("B",) and unknown.mark("exact") == "? protocol of model B unknown"
    assert unknown.note().startswith("⚠️ **Protocol unknown** for model B")


def test_pickers_show_each_rows_protocol(cards):
    rows = pd.DataFrame([as_row(cards["baseline"], "base", "Baseline: random"),
                         as_row(cards["algo"], "algo", "Other Restart"), as_row(None, "old", "Old Result")])
    assert picker_options(rows) == [("Baseline: random · ✓ reference", "base"),
                                    ("Other Restart · ≠ scoring", "algo"),
                                    ("Old Result · ? protocol unknown", "old")]


def test_the_table_and_summary_mark_a_pair_run_under_other_protocols(cards, demo_suite):
    """compare's frame for two real results, marked: each compared row of a benchmark
    the difference concerns says so in Note, before a note of its own."""
    from test_compare import exact_predictions, scored

    suite, key = demo_suite
    a = scored(suite, key, exact_predictions(suite, key, lambda i: i % 2 == 0), "a")[1]
    b = scored(suite, key, exact_predictions(suite, key, lambda i: i % 3 == 0), "b")[1]
    frame = compare.compare(a, b, min_items=10)
    other = cards["baseline"].model_copy(deep=True)
    other.frame_times_sha256["exact"] = "0" * 16
    row_a, row_b = as_row(cards["baseline"], "a", "A"), as_row(other, "b", "B")
    gap = protocol_gap(row_a, row_b)
    marked = compare.mark_protocols(frame, gap)
    exact = marked[marked[compare.BENCHMARK] == "ExAct"]
    assert exact[compare.NOTE].str.startswith("≠ protocols differ: frames").all()
    assert exact[compare.NOTE].str.contains("; n too small").any()  # its own note kept after the mark
    assert (marked[marked[compare.BENCHMARK] != "ExAct"][compare.NOTE] == frame[frame[compare.BENCHMARK] != "ExAct"]
            [compare.NOTE]).all()
    assert marked.attrs["benchmark"] == frame.attrs["benchmark"]
    text = compare.summary(row_a, row_b, marked, 1000, gap)
    assert "**Model A**: A [✓ reference]; **Model B**: B [✓ reference]" in text
    assert "⚠️ **Different protocols**" in text and "frames (the frame times of the calls)" in text
    assert "⚠️" not in compare.summary(row_a, row_a, frame, 1000, ProtocolGap())
