"""ExpVid: demo, calls, importer on the official layout, and every metric worked by hand."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from conftest import OTHER_SECRET, SECRET

from evaluator import baselines
from evaluator.benchmarks import expvid
from evaluator.benchmarks.expvid import Answer, Question
from evaluator.errors import ImportReleaseError
from evaluator.judges.base import CORRECT, UNPARSEABLE, Judgement
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.records import Prediction, Responses, ScoringContext, VideoMeta
from evaluator.suite import build_suite, load_answers
from evaluator.reference import default_budgets

NARRATION = "NARRATION-SHOULD-NEVER-LEAK"


# -- helpers ------------------------------------------------------------------

def mcq(item, task, label, n=4, discipline="Chemistry", source="s1"):
    labels = [chr(65 + i) for i in range(n)]
    q = Question(item, f"v-{item}", source, expvid.TASK_LEVEL[task], task, discipline, f"Question: {item}?",
                 labels=labels, options=[f"{item} option {lab}" for lab in labels])
    return q, Answer(item, task, label=label)


def verification(item, label, k=6, source="s1"):
    labels = [chr(65 + i) for i in range(k)]
    q = Question(item, f"v-{item}", source, 2, "verification", "Chemistry", "Question: which step?",
                 labels=labels, options=[str(i) for i in range(1, k + 1)])
    return q, Answer(item, "verification", label=label)


def generation(item, steps, n=20, source="s1", discipline="Chemistry"):
    q = Question(item, f"v-{item}", source, 2, "generation", discipline, "Question: which steps?", step_count=n)
    return q, Answer(item, "generation", steps=steps)


def prediction(item, step, n=20, source="s1"):
    q = Question(item, f"v-{item}", source, 2, "prediction", "Chemistry", "Question: next step?", step_count=n)
    return q, Answer(item, "prediction", step=step)


def blanks(item, task, fillers, source="s1", discipline="Chemistry"):
    text = "Question: " + " and ".join(["____"] * len(fillers)) + "."
    q = Question(item, f"v-{item}", source, 3, task, discipline, text, blanks=len(fillers))
    return q, Answer(item, task, fillers=fillers)


def score(items, responses, judge=None):
    questions = [q for q, _ in items]
    answers = [a for _, a in items]
    preds = {expvid.call_id(k): Prediction(expvid.call_id(k), v) for k, v in responses.items()}
    return expvid.score(questions, answers, Responses(preds), ScoringContext(judge=judge or NormalizedMatchJudge()))


def boxed(x):
    return f"Reasoning first. \\boxed{{{x}}}"


def check_overall_from(result):
    """The bootstrap's headline function must give the reported overall on the full sample."""
    value = result.overall_from(result.video_stats.sum(0, keepdims=True))
    assert value.shape == (1,)
    assert round(float(value[0]), 2) == result.metrics["overall"]


def perfect_response(answer):
    if answer.label:
        return boxed(answer.label)
    if answer.steps:
        return boxed(", ".join(map(str, answer.steps)))
    if answer.step:
        return boxed(answer.step)
    return boxed("; ".join(answer.fillers))


class RecordingJudge:
    """A judge that answers from a fixed table and records how it was called."""

    judge_id = "recording@1"
    kind = "normalized-match"

    def __init__(self, label_of=None):
        self.calls = []
        self.label_of = label_of or (lambda r: CORRECT if r.gold == r.prediction else "INCORRECT")

    def judge(self, requests):
        self.calls.append(list(requests))
        return [Judgement(self.label_of(r), self.judge_id) for r in requests]


# -- demo and calls -----------------------------------------------------------

def test_demo_is_deterministic_and_covers_every_task_and_discipline():
    data = expvid.demo(SECRET)
    assert [asdict(q) for q in data.questions] == [asdict(q) for q in expvid.demo(SECRET).questions]
    assert [asdict(a) for a in data.answers] == [asdict(a) for a in expvid.demo(SECRET).answers]
    assert [asdict(q) for q in data.questions] != [asdict(q) for q in expvid.demo(OTHER_SECRET).questions]
    assert set(q.task for q in data.questions) == set(expvid.TASKS)
    assert set(q.discipline for q in data.questions) == set(expvid.DISCIPLINES)
    assert all(2 <= spec.seconds <= 6 for spec in data.video_specs.values())
    assert set(q.video for q in data.questions) == set(data.video_specs)
    level3 = [q for q in data.questions if q.level == 3]
    assert {q.blanks for q in level3} <= {2, 3, 4} and len({q.blanks for q in level3}) > 1
    # Verification goes past D; its answer is never the segment's final step.
    for q, a in zip(data.questions, data.answers):
        if q.task == "verification":
            assert len(q.labels) > 4 and a.label != q.labels[-1]
        if q.task == "prediction":
            assert a.step >= 4  # at least 3 steps shown before it
    # Gold letters vary, so "always A" is not a strategy.
    assert len(Counter(a.label for a in data.answers if a.label)) >= 4


def test_demo_paper_size():
    data = expvid.demo(SECRET, size=7800)
    assert len(data.questions) == 7800
    sources = {q.source: q.discipline for q in data.questions}
    assert len(sources) == 390
    assert set(Counter(sources.values()).values()) == {30}  # 13 disciplines x 30 experiments
    tasks = Counter(q.task for q in data.questions)
    assert sum(tasks[t] for t in expvid.LEVEL_TASKS[1]) == 3900
    assert tasks["tool"] == round(3900 * 0.279) and tasks["material"] == round(3900 * 0.316)
    assert tasks["analysis"] + tasks["discovery"] == 780


def test_suite_calls_frames_formats_and_no_answers(tmp_path):
    data = expvid.demo(SECRET)
    suite = build_suite(tmp_path, "demo", "t", [data], default_budgets() | {"expvid_level3": 40}, SECRET, write_videos=True)
    key = load_answers(tmp_path, suite)
    calls = {c.item: c for c in suite.calls}
    gold = {a.id: a for a in key.answers["expvid"]}
    assert len(calls) == len(data.questions)
    for q in suite.questions["expvid"]:
        call = calls[q.id]
        meta = suite.videos[q.video]
        assert call.kind == q.task and call.frames[0].video == q.video
        assert len(call.frames[0].times) == min({1: 8, 2: 32, 3: 40}[q.level], meta.frame_count)
        assert call.frames[0].times[0] == 0.0  # uniform over the whole clip
        assert call.answer_format == expvid.ANSWER_FORMAT[q.task]
        assert "\\boxed{}" in call.prompt and q.question in call.prompt
        if q.level == 3:
            assert "Title: " in call.prompt and f"Discipline: {q.discipline}" in call.prompt
            assert call.prompt.count("____") == q.blanks
            assert not any(f in call.prompt for f in gold[q.id].fillers)
        if call.answer_format == "choice":
            assert call.labels == q.labels and call.options == q.options
    public = (tmp_path / "suite" / "expvid" / "questions.jsonl").read_text()
    for field in ('"label"', '"steps"', '"step"', '"fillers"'):
        assert field not in public


def test_baselines_are_not_perfect(tmp_path):
    suite = build_suite(tmp_path, "demo", "t", [expvid.demo(SECRET, size=600)], default_budgets(), SECRET, write_videos=False)
    key = load_answers(tmp_path, suite)
    for name in ("random", "first-option"):
        preds = baselines.predictions(name, suite.calls)
        result = expvid.score(suite.questions["expvid"], key.answers["expvid"],
                              Responses({p.id: p for p in preds}), ScoringContext(judge=NormalizedMatchJudge()))
        assert result.metrics["overall"] < 30, name
        assert result.metrics["level1"] < 40, name


def test_perfect_answers_score_100_everywhere(tmp_path):
    data = expvid.demo(SECRET)
    items = list(zip(data.questions, data.answers))
    result = score(items, {a.id: perfect_response(a) for a in data.answers})
    m = result.metrics
    for key in ["overall", *expvid.LEVELS, *expvid.TASKS]:
        assert m[key] == 100.0, key
    assert set(m["by_discipline"]) == set(expvid.DISCIPLINES)
    assert all(row["overall"] == 100.0 for row in m["by_discipline"].values())
    assert result.counts["unparseable"] == result.counts["missing"] == 0
    check_overall_from(result)


# -- metrics, by hand -----------------------------------------------------------

def test_levels_are_micro_averages_and_overall_is_their_mean():
    items = [
        mcq("t1", "tool", "A"), mcq("t2", "tool", "B"), mcq("m1", "material", "C"),
        mcq("q1", "quantity", "D"), mcq("o1", "operation", "A"),
        mcq("r1", "ordering", "B"), generation("g1", [3, 4]), generation("g2", [5, 6, 7]),
        verification("v1", "B"), prediction("p1", 9),
        blanks("a1", "analysis", ["alpha", "beta", "gamma", "delta"]),
        blanks("d1", "discovery", ["epsilon", "zeta"]),
    ]
    responses = {
        "t1": boxed("A"), "t2": boxed("C"), "m1": boxed("C"), "q1": boxed("A"),  # o1 missing
        "r1": boxed("B"),
        "g1": boxed("3, 4, 5, 6"),  # |{3,4}| / |{3,4,5,6}| = 0.5
        "g2": boxed("7, 8"),  # |{7}| / |{5,6,7,8}| = 0.25
        "v1": boxed("A"), "p1": boxed(9),
        "a1": boxed("alpha; beta; gamma; wrong"), "d1": boxed("wrong; wrong too"),
    }
    m = score(items, responses).metrics
    assert (m["tool"], m["material"], m["quantity"], m["operation"]) == (50.0, 100.0, 0.0, 0.0)
    assert m["level1"] == 40.0  # micro 2/5; the task mean would be 37.5
    assert (m["ordering"], m["generation"], m["verification"], m["prediction"]) == (100.0, 37.5, 0.0, 100.0)
    assert m["level2"] == 55.0  # (1 + 0.5 + 0.25 + 0 + 1) / 5; the task mean would be 59.38
    assert (m["analysis"], m["discovery"]) == (75.0, 0.0)
    assert m["level3"] == 50.0  # pooled blanks 3/6; the task mean would be 37.5
    assert m["overall"] == round((40 + 55 + 50) / 3, 2)
    assert m["n_by_task"]["tool"] == 2 and m["n_by_task"]["analysis"] == 4
    assert m["n_by_level"] == {"level1": 5, "level2": 5, "level3": 6}


def test_missing_and_unparseable_score_wrong_and_are_counted():
    items = [mcq("t1", "tool", "A"), mcq("t2", "tool", "B"), prediction("p1", 4), generation("g1", [1])]
    result = score(items, {"t1": "I cannot tell.", "p1": "no idea", "g1": "none of them"})
    assert result.metrics["tool"] == 0.0 and result.metrics["level2"] == 0.0
    assert result.counts["missing"] == 1  # t2
    assert result.counts["unparseable"] == 3
    assert result.counts["calls_used"] == 4 and result.counts["items"] == 4


@pytest.mark.parametrize("predicted, gold, n, expected", [
    ([1, 2], [1, 2], 20, 1.0),
    ([2, 1, 1, 2], [1, 2], 20, 1.0),  # duplicates and order do not matter
    ([1, 2, 3], [1, 2], 20, 2 / 3),
    ([1, 2, 99], [1, 2], 20, 1.0),  # 99 is outside the step list: dropped
    ([0, 21], [1, 2], 20, 0.0),  # nothing valid left
    ([], [1, 2], 20, 0.0),
    (None, [1, 2], 20, 0.0),
    ([1, 2, 99], [1, 2], None, 2 / 3),  # list length unknown: nothing dropped
    ([5], [1, 2], 20, 0.0),
])
def test_jaccard(predicted, gold, n, expected):
    assert expvid.jaccard(predicted, gold, n) == pytest.approx(expected)


def test_generation_reads_the_last_box_and_drops_out_of_range_steps():
    items = [generation("g1", [18, 19, 20], n=20), generation("g2", [2, 3], n=20)]
    m = score(items, {"g1": "Maybe \\boxed{1}. Final: \\boxed{18, 19, 20, 21, 20}", "g2": boxed("2, 3")}).metrics
    assert m["generation"] == 100.0


def test_verification_letters_past_d_and_lenient_step_numbers():
    items = [verification("v1", "F"), verification("v2", "C"), verification("v3", "B"),
             verification("v4", "E"), verification("v5", "A")]
    responses = {
        "v1": boxed("F"),  # a letter past D
        "v2": boxed("3"),  # no letter: step 3 is option C
        "v3": "The missing step is step 2.",
        "v4": boxed("G"),  # not an option of this 6-step segment
        "v5": boxed("9"),  # no option has step 9
    }
    result = score(items, responses)
    assert result.metrics["verification"] == 60.0
    assert result.counts["unparseable"] == 2


def test_verification_number_must_be_unambiguous():
    q, a = verification("v1", "B", k=3)
    q.options = ["2", "2", "3"]  # two options name step 2: no mapping
    result = score([(q, a)], {"v1": boxed("2")})
    assert result.metrics["verification"] == 0.0 and result.counts["unparseable"] == 1


def test_step_prediction_is_an_integer_match():
    items = [prediction(f"p{i}", 17) for i in range(4)]
    responses = {"p0": boxed(17), "p1": "The next one is Step 17", "p2": boxed(17.5), "p3": boxed(16)}
    assert score(items, responses).metrics["prediction"] == 50.0


def test_blanks_align_by_position_missing_wrong_extra_ignored():
    gold = ["2,4-D", "auxin", "root growth"]
    items = [blanks(f"a{i}", "analysis", gold) for i in range(5)]
    judge = RecordingJudge()
    responses = {
        "a0": boxed("2,4-D; auxin; root growth"),  # 3: semicolons keep the comma inside 2,4-D
        "a1": boxed("2,4-D, auxin, root growth"),  # 3: a comma between digits does not split
        "a2": boxed("2,4-D; auxin"),  # 2: third blank missing
        "a3": boxed("auxin; 2,4-D; root growth; extra"),  # 1: aligned by position, extra ignored
        "a4": "Answer: 2,4-D; auxin; root growth",  # 3: no box needed
    }
    result = score(items, responses, judge)
    assert result.metrics["analysis"] == 80.0  # 12 of 15 blanks
    assert len(judge.calls) == 1  # every blank of the suite in ONE batch
    assert len(judge.calls[0]) == 3 + 3 + 2 + 3 + 3
    assert {r.task for r in judge.calls[0]} == {"blank"}
    assert all(r.question == items[0][0].question for r in judge.calls[0])
    assert result.counts["missing_blanks"] == 1


def test_judge_unparseable_is_counted_and_wrong():
    items = [blanks("a1", "analysis", ["x", "y"]), blanks("d1", "discovery", ["z"])]
    judge = RecordingJudge(lambda r: UNPARSEABLE if r.gold == "y" else CORRECT)
    result = score(items, {"a1": boxed("x; y"), "d1": boxed("z")}, judge)
    assert result.metrics["analysis"] == 50.0 and result.metrics["discovery"] == 100.0
    assert result.metrics["level3"] == pytest.approx(round(200 / 3, 2))
    assert result.counts["judge_unparseable"] == 1


def test_no_judge_call_without_blanks():
    judge = RecordingJudge()
    result = score([mcq("t1", "tool", "A"), blanks("a1", "analysis", ["x"])], {"t1": boxed("A")}, judge)
    assert judge.calls == [] and result.metrics["analysis"] == 0.0


def test_by_discipline_levels_and_counts():
    items = [
        mcq("t1", "tool", "A", discipline="Genetics"), mcq("t2", "tool", "A", discipline="Genetics"),
        generation("g1", [1, 2], discipline="Genetics"),
        mcq("t3", "tool", "A", discipline="Medicine"),
        blanks("a1", "analysis", ["x", "y"], discipline="Medicine"),
    ]
    responses = {"t1": boxed("A"), "t2": boxed("B"), "g1": boxed("1"), "t3": boxed("A"), "a1": boxed("x; q")}
    m = score(items, responses).metrics
    assert m["by_discipline"]["Genetics"] == {"level1": 50.0, "level2": 50.0, "level3": None, "overall": 50.0}
    assert m["by_discipline"]["Medicine"] == {"level1": 100.0, "level2": None, "level3": 50.0, "overall": 75.0}
    assert m["n_by_discipline"] == {"Genetics": {"level1": 2, "level2": 1, "level3": 0},
                                    "Medicine": {"level1": 1, "level2": 0, "level3": 2}}
    assert m["overall"] == round((200 / 3 + 50 + 50) / 3, 2)


def test_overall_from_is_vectorised_over_resamples_and_per_source():
    items = [mcq("t1", "tool", "A", source="s1"), mcq("t2", "tool", "A", source="s2"),
             prediction("p1", 3, source="s1"), blanks("a1", "analysis", ["x", "y"], source="s2")]
    result = score(items, {"t1": boxed("A"), "p1": boxed(3), "a1": boxed("x; y")})
    check_overall_from(result)
    stats = result.video_stats
    assert stats.shape == (2, 6)  # one row per source experiment, not per call
    np.testing.assert_array_equal(stats, [[1, 1, 1, 1, 0, 0], [0, 1, 0, 0, 2, 2]])
    # Resample 1: s1 once, s2 twice -> levels 1/3, 1/1, 4/4. Resample 2: s1 twice: no
    # level-3 blanks, so NaN (the bootstrap drops it) rather than a mean of two levels.
    out = result.overall_from(np.array([stats[0] + 2 * stats[1], 2 * stats[0]]))
    assert out.shape == (2,)
    assert out[0] == pytest.approx((100 / 3 + 100 + 100) / 3)
    assert np.isnan(out[1])


def test_overall_is_the_mean_of_the_levels_present():
    result = score([mcq("t1", "tool", "A"), prediction("p1", 3)], {"t1": boxed("A")})
    assert result.metrics["level3"] is None
    assert result.metrics["overall"] == 50.0
    check_overall_from(result)
    empty = score([], {})
    assert empty.metrics["overall"] is None and empty.video_stats.shape == (0, 6)


# -- importer -----------------------------------------------------------------

def write_jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))


def fake_video(root: Path, level: int, name: str) -> None:
    path = root / "videos" / f"level_{level}" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a real video: the importer must not decode it")


STEPS = "\n".join(f"{i}. do thing {i}" for i in range(1, 13))


def release(root: Path, stems=None) -> Path:
    """A small release in the official layout, one record or two per task file."""
    stems = stems or {}
    for level, name in [(1, "c1.mp4"), (1, "c2.mp4"), (2, "s1.mp4"), (2, "s2.mp4"), (3, "full1.mp4")]:
        fake_video(root, level, name)
    base = {"asr_caption": NARRATION, "discipline": "cancer_research"}
    files = {
        ("level1", "tools"): [
            base | {"question": "Which tool is used?", "options": ["A: forceps", "B: syringe", "C: pipette", "D: loop"],
                    "answer": "C", "video": "c1.mp4", "source_video_id": "jove-1"},
            base | {"question": "Question: Which tool now?", "options": ["loop", "pipette", "syringe", "forceps"],
                    "answer": "syringe", "video_path": "videos/level_1/c2.mp4"}],
        ("level1", "materials"): [base | {"question": "Which material?", "options": {"A": "PBS", "B": "oil", "C": "gel", "D": "water"},
                                          "answer": "D: water", "video_id": "c1", "source_video_id": "jove-1"}],
        ("level1", "quantity"): [{"question": "How much?", "options": ["1 mL", "2 mL", "3 mL", "4 mL"], "answer": "A",
                                  "video": "level_1/c2.mp4", "asr_caption": NARRATION}],
        ("level1", "operation"): [base | {"question": "What is done?", "options": ["cut", "mix", "pour", "seal"],
                                          "answer": "B", "video": "c1.mp4", "discipline": "Immunology & Infection"}],
        ("level2", "sequence_ordering"): [base | {"question": "What order?", "options": ["1. x\n2. y", "1. y\n2. x", "1. z", "1. w"],
                                                  "answer": "A", "video": "s1.mp4"}],
        ("level2", "sequence_generation"): [base | {"question": f"Which steps are shown?\n\nFull Step List:\n{STEPS}",
                                                    "answer": ["7", "8", "9"], "video": "s1.mp4", "source_video_id": "jove-1"}],
        ("level2", "video_verification"): [base | {"question": "Which step was not performed?\n\nStep List:\n1. a\n2. b\n3. c\n4. d\n5. e",
                                                   "options": "- A: 1 B: 2 C: 3 D: 4 E: 5", "answer": "B", "video": "s2.mp4"}],
        ("level2", "step_prediction"): [base | {"question": "What comes next?", "steps": [f"thing {i}" for i in range(1, 9)],
                                                "answer": "6", "video": "s2.mp4"}],
        ("level3", "experimental_conclusion"): [base | {"question": "Using ____ under ____ light gave ____.", "title": "A Copper Catalyst",
                                                        "discipline": "Chemistry", "answer": ["2,4-D", "blue", "high yield"],
                                                        "video": "full1.mp4", "source_video_id": "jove-1"}],
        ("level3", "scientific_discovery"): [base | {"question": "Title: Paper\n\nDiscipline: Chemistry\n\nQuestion: It links ____ to ____.",
                                                     "title": "Paper", "answer": ["memory", "learning"], "video": "full1"}],
    }
    for (level, stem), records in files.items():
        write_jsonl(root / "annotations" / level / f"{stems.get(stem, stem)}.jsonl", records)
    return root


def test_import_reads_the_official_layout(tmp_path):
    data = expvid.import_release(release(tmp_path), SECRET)
    by_task = {}
    for q, a in zip(data.questions, data.answers):
        assert q.id == a.id and q.task == a.task
        by_task.setdefault(q.task, []).append((q, a))
    for pairs in by_task.values():  # back in release order (the suite's order is the opaque ids')
        pairs.sort(key=lambda pair: pair[1].release_id)
    assert set(by_task) == set(expvid.TASKS)
    (t1, a1), (t2, a2) = by_task["tool"]
    assert t1.options == ["forceps", "syringe", "pipette", "loop"] and a1.label == "C"  # prefixes dropped
    assert t2.options == ["loop", "pipette", "syringe", "forceps"] and a2.label == "C"  # released order kept
    assert t2.question == "Question: Which tool now?" and t1.question == "Question: Which tool is used?"
    assert by_task["material"][0][1].label == "D" and by_task["material"][0][0].labels == ["A", "B", "C", "D"]
    assert by_task["tool"][0][0].discipline == "Cancer Research"
    assert by_task["operation"][0][0].discipline == "Immunology and Infection"
    assert by_task["quantity"][0][0].discipline == "Unknown"
    gen_q, gen_a = by_task["generation"][0]
    assert gen_a.steps == [7, 8, 9] and gen_q.step_count == 12
    pred_q, pred_a = by_task["prediction"][0]
    assert pred_a.step == 6 and pred_q.step_count == 8 and "Full Step List:\n1. thing 1" in pred_q.question
    ver_q, ver_a = by_task["verification"][0]
    assert ver_q.labels == list("ABCDE") and ver_q.options == ["1", "2", "3", "4", "5"] and ver_a.label == "B"
    ana_q, ana_a = by_task["analysis"][0]
    assert ana_a.fillers == ["2,4-D", "blue", "high yield"] and ana_q.blanks == 3
    assert ana_q.question.startswith("Title: A Copper Catalyst\n\nDiscipline: Chemistry\n\nQuestion: Using ____")
    disc_q, _ = by_task["discovery"][0]
    assert disc_q.question.count("Title:") == 1 and disc_q.blanks == 2
    # Videos: one opaque id per file; sources group what shares a source experiment id.
    assert len(data.video_files) == 5 and all(v.startswith("expvid-") for v in data.video_files)
    assert t1.video == by_task["material"][0][0].video and ana_q.video == disc_q.video
    assert len({t1.source, by_task["material"][0][0].source, gen_q.source, ana_q.source}) == 1
    assert t2.source != t1.source and disc_q.source != ana_q.source
    assert all(Path(p).is_file() for p in data.video_files.values())


def test_import_never_copies_the_narration(tmp_path):
    data = expvid.import_release(release(tmp_path), SECRET)
    metas = {v: VideoMeta(v, 10.0, 8.0, 80) for v in data.video_files}
    calls = expvid.build_calls(data.questions, metas, default_budgets())
    text = json.dumps([asdict(q) for q in data.questions] + [asdict(a) for a in data.answers]
                      + [asdict(c) for c in calls])
    assert NARRATION not in text and "asr" not in text
    gold = {a.id: a for a in data.answers}
    for call in calls:
        a = gold[call.item]
        assert call.answer_format == expvid.ANSWER_FORMAT[a.task]
        if a.fillers:
            assert not any(f in call.prompt for f in a.fillers)


def test_import_accepts_hf_config_stems(tmp_path):
    stems = {"tools": "level1_tools", "video_verification": "level2_video_verification",
             "experimental_conclusion": "level3_experimental_conclusion", "materials": "Level1-Materials"}
    data = expvid.import_release(release(tmp_path, stems), SECRET)
    assert set(q.task for q in data.questions) == set(expvid.TASKS)


def test_task_of_file():
    assert expvid.task_of_file(Path("level2_sequence_generation.jsonl"), 2) == "generation"
    assert expvid.task_of_file(Path("scientific_discovery.jsonl"), 3) == "discovery"
    with pytest.raises(ImportReleaseError, match="unknown task file 'colours'"):
        expvid.task_of_file(Path("colours.jsonl"), 1)
    with pytest.raises(ImportReleaseError, match="level-1 task"):
        expvid.task_of_file(Path("tools.jsonl"), 2)


def _break(root: Path, level: str, stem: str, line: int, change: dict | str) -> Path:
    path = root / "annotations" / level / f"{stem}.jsonl"
    lines = path.read_text().splitlines()
    if isinstance(change, str):
        lines[line - 1] = change
    else:
        record = json.loads(lines[line - 1])
        for key, value in change.items():
            if value is None:
                record.pop(key, None)
            else:
                record[key] = value
        lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("level, stem, line, change, message", [
    ("level1", "tools", 2, {"question": None}, "missing field 'question'"),
    ("level1", "tools", 1, {"answer": "F"}, "field 'answer'"),
    ("level1", "tools", 1, {"answer": None}, "missing field 'answer'"),
    ("level1", "materials", 1, {"options": None}, "missing field 'options'"),
    ("level1", "quantity", 1, {"options": 5}, "field 'options'"),
    ("level1", "operation", 1, {"video": "nowhere.mp4"}, "field 'video': 'nowhere.mp4' (looked in"),
    ("level1", "operation", 1, {"video": None}, "missing field 'video'"),
    ("level2", "sequence_generation", 1, {"answer": ["seven"]}, "field 'answer'"),
    ("level2", "sequence_generation", 1, {"answer": []}, "field 'answer'"),
    ("level2", "step_prediction", 1, {"answer": ["6", "7"]}, "field 'answer'"),
    ("level2", "video_verification", 1, {"options": "1 2 3"}, "field 'options'"),
    ("level3", "scientific_discovery", 1, {"answer": []}, "field 'answer'"),
    ("level3", "scientific_discovery", 1, {"answer": ["memory", ""]}, "field 'answer'"),
    ("level3", "experimental_conclusion", 1, "{not json", "not valid JSON"),
])
def test_bad_records_name_file_line_and_field(tmp_path, level, stem, line, change, message):
    path = _break(release(tmp_path), level, stem, line, change)
    with pytest.raises(ImportReleaseError) as err:
        expvid.import_release(tmp_path, SECRET)
    assert f"{path}:{line}" in str(err.value) and message in str(err.value)
    assert NARRATION not in str(err.value)


def test_bad_layouts(tmp_path):
    with pytest.raises(ImportReleaseError, match="no annotations"):
        expvid.import_release(tmp_path, SECRET)
    root = release(tmp_path / "a")
    write_jsonl(root / "annotations" / "level2" / "mystery_task.jsonl", [{"question": "?"}])
    with pytest.raises(ImportReleaseError, match=r"mystery_task\.jsonl: unknown task file"):
        expvid.import_release(root, SECRET)
    root = release(tmp_path / "b")
    write_jsonl(root / "annotations" / "level1" / "level1_tools.jsonl", [])
    with pytest.raises(ImportReleaseError, match="a second file for task 'tool'"):
        expvid.import_release(root, SECRET)
    root = release(tmp_path / "c")
    (root / "annotations" / "level3" / "scientific_discovery.jsonl").rename(
        root / "annotations" / "level1" / "scientific_discovery.jsonl")
    with pytest.raises(ImportReleaseError, match="level-3 task"):
        expvid.import_release(root, SECRET)


def real_shaped_release(root: Path, discipline_key: str | None) -> Path:
    """The released shape: one jsonl per task under annotations/level{1,2,3}/, options as a
    {"A": ...} dict, `video_path` under videos/level_N/, the narration alongside."""
    files = {("level1", s): 1 for s in ("materials", "tools", "operation", "quantity")}
    files |= {("level2", s): 2 for s in ("sequence_ordering", "sequence_generation", "step_prediction",
                                         "video_verification")}
    files |= {("level3", s): 3 for s in ("scientific_discovery", "experimental_conclusion")}
    disciplines = ["Chemistry", "Neuroscience", "Chemistry"]
    for (level, stem), n in files.items():
        records = []
        for k, discipline in enumerate(disciplines):
            name = f"jove_{1000 + k}_{stem}_{k}.mp4"
            fake_video(root, n, name)
            rec = {"video_path": f"videos/level_{n}/{name}", "asr_caption": NARRATION,
                   "question": "Using ____ gave ____." if n == 3 else f"Question {k}?"}
            if discipline_key:
                rec[discipline_key] = discipline
            if stem in ("sequence_generation",):
                rec |= {"question": f"Which steps?\n\nFull Step List:\n{STEPS}", "answer": ["2", "3"]}
            elif stem == "step_prediction":
                rec |= {"question": f"What next?\n\nFull Step List:\n{STEPS}", "answer": "4"}
            elif n == 3:
                rec |= {"title": "A Paper", "answer": ["x", "y"]}
            else:
                rec |= {"options": {"A": "one", "B": "two", "C": "three", "D": "four"}, "answer": "B"}
            records.append(rec)
        write_jsonl(root / "annotations" / level / f"{stem}.jsonl", records)
    return root


@pytest.mark.parametrize("key", ["discipline", "subject", "category", "field"])
def test_real_shape_and_the_discipline_field_is_reported(tmp_path, key):
    data = expvid.import_release(real_shaped_release(tmp_path, key), SECRET)
    assert len(data.questions) == 30 and {q.task for q in data.questions} == set(expvid.TASKS)
    assert sorted({q.discipline for q in data.questions}) == ["Chemistry", "Neuroscience"]
    assert f"discipline read from field '{key}': 30 item(s)" in data.notes
    choice = [q for q in data.questions if q.labels]
    assert choice and all(q.options == ["one", "two", "three", "four"] for q in choice)


def test_missing_discipline_field_is_reported(tmp_path):
    data = expvid.import_release(real_shaped_release(tmp_path, None), SECRET)
    assert {q.discipline for q in data.questions} == {"Unknown"}
    assert data.notes == ["discipline read from none (no discipline field): 30 item(s)"]


def test_public_ids_are_opaque_stable_and_unordered(tmp_path):
    root = real_shaped_release(tmp_path, "discipline")
    a, b = expvid.import_release(root, SECRET), expvid.import_release(root, SECRET)
    assert [(q.id, q.video, q.source) for q in a.questions] == [(q.id, q.video, q.source) for q in b.questions]
    other = expvid.import_release(root, OTHER_SECRET)
    assert {q.id for q in other.questions}.isdisjoint(q.id for q in a.questions)
    public = " ".join(f"{q.id} {q.video} {q.source} {expvid.call_id(q.id)}" for q in a.questions)
    public += " ".join(a.video_files)
    for word in ("jove", "1000", "tool", "material", "level", "ordering", "-000"):
        assert word not in public
    assert [q.id for q in a.questions] == sorted(q.id for q in a.questions)
    assert [q.task for q in a.questions] != sorted((q.task for q in a.questions), key=expvid.TASKS.index)
    assert all(x.release_id.startswith("annotations/level") for x in a.answers)
