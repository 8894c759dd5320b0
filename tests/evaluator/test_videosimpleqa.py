"""Video SimpleQA: importer, demo, calls (public and worker-only) and metrics."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import OTHER_SECRET, SECRET

from evaluator.benchmarks import videosimpleqa as vsqa
from evaluator.errors import ImportReleaseError
from evaluator.judges.base import CORRECT, INCORRECT, UNPARSEABLE, Judgement
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.records import Prediction, Responses, ScoringContext, VideoMeta
from evaluator.suite import build_suite, load_answers
from evaluator.reference import default_budgets

WRONG = "Zzyzx"  # an answer no gold in these tests matches
ABSTAIN = "I don't know"


def reply(answer: str, confidence: float | None = None) -> str:
    """A response in the format the prompt asks for."""
    record = {"answer": answer}
    if confidence is not None:
        record["confidence_score"] = confidence
    return json.dumps(record)


def responses(preds: list[Prediction]) -> Responses:
    return Responses({p.id: p for p in preds})


class CountingJudge(NormalizedMatchJudge):
    """The normalised judge, counting batches; answers listed in `unreadable` come back UNPARSEABLE."""

    def __init__(self, unreadable: frozenset[str] = frozenset()):
        self.batches: list[int] = []
        self.unreadable = unreadable

    def judge(self, requests):
        self.batches.append(len(requests))
        return [Judgement(UNPARSEABLE, "test") if r.prediction in self.unreadable else j
                for r, j in zip(requests, super().judge(requests))]


def score(data, preds, judge=None, worker_run=False):
    ctx = ScoringContext(judge=judge or NormalizedMatchJudge(), worker_run=worker_run)
    return vsqa.score(data.questions, data.answers, responses(preds), ctx)


def answer_as(data, grades: list[str], confidences=None) -> list[Prediction]:
    """Predictions giving item k the grade grades[k] ("C", "I", "N", or "-" for no prediction)."""
    gold = {a.id: a.answer for a in data.answers}
    text = {"C": lambda q: gold[q.id], "I": lambda q: WRONG, "N": lambda q: ABSTAIN}
    preds = []
    for k, (q, g) in enumerate(zip(data.questions, grades)):
        if g != "-":
            conf = confidences[k] if confidences else None
            preds.append(Prediction(vsqa.call_id(q.id), reply(text[g](q), conf)))
    return preds


def check_overall_from(result) -> None:
    sums = result.video_stats.sum(0, keepdims=True)
    assert round(float(result.overall_from(sums)[0]), 2) == result.metrics["overall"]


# -- the paper's tables ---------------------------------------------------------

# (model, CO, IN, NA, CGA, F) from Table 2 (and the small models of Table 6).
TABLE_2 = [
    ("Human Open-book", 87.0, 5.0, 8.0, 94.6, 90.6), ("Human Closed-book", 59.0, 18.5, 22.5, 76.1, 66.5),
    ("o4-mini", 53.7, 45.3, 0.9, 54.2, 54.0), ("o3", 66.3, 33.6, 0.1, 66.4, 66.3),
    ("GPT-4.5", 52.9, 42.5, 4.6, 55.4, 54.1), ("GPT-4o", 47.7, 45.9, 6.4, 51.0, 49.3),
    ("Claude Sonnet 4", 32.8, 51.2, 16.0, 39.0, 35.6), ("Claude 3.7 Sonnet", 32.6, 47.3, 20.1, 40.8, 36.2),
    ("Claude 3.5 Sonnet2", 33.7, 58.2, 8.1, 36.7, 35.2), ("Claude 3.5 Sonnet", 31.5, 53.5, 15.0, 37.0, 34.0),
    ("Gemini 2.5 Pro", 61.2, 34.3, 4.5, 64.1, 62.6), ("Gemini 2.5 Flash", 53.7, 34.9, 11.3, 60.6, 57.0),
    ("Qwen-VL-Max", 39.2, 57.1, 3.7, 40.7, 39.9), ("Qwen-VL-Plus", 21.9, 63.3, 14.7, 25.7, 23.7),
    ("InternVL3-78B", 33.7, 65.6, 0.7, 33.9, 33.8), ("InternVL3-38B", 31.4, 67.7, 0.9, 31.7, 31.5),
    ("InternVL3-14B", 24.9, 73.3, 1.8, 25.4, 25.2), ("InternVL3-9B", 22.6, 72.9, 4.5, 23.7, 23.1),
    ("InternVL3-8B", 23.3, 75.2, 1.5, 23.7, 23.5), ("Qwen2.5-VL-72B", 38.7, 57.3, 4.0, 40.3, 39.5),
    ("Qwen2.5-VL-32B", 30.3, 67.1, 2.7, 31.1, 30.7), ("Qwen2.5-VL-7B", 24.7, 71.2, 4.1, 25.8, 25.3),
    ("Qwen2-VL-72B", 32.7, 59.0, 8.3, 35.7, 34.2), ("Qwen2-VL-7B", 22.4, 69.4, 8.2, 24.4, 23.4),
    ("LLaVA-1.5-13B", 19.3, 76.7, 4.1, 20.1, 19.7), ("LLaVA-1.5-7B", 16.1, 78.5, 5.4, 17.1, 16.6),
    ("LLaVa-NeXT-Video-34B", 11.2, 83.8, 4.9, 11.8, 11.5), ("LLaVa-NeXT-Video-7B", 9.3, 52.9, 37.8, 14.9, 11.4),
    ("LLaVA-OneVision-72B", 25.4, 73.6, 1.0, 25.7, 25.5), ("LLaVA-OneVision-7B", 18.9, 76.6, 4.5, 19.8, 19.3),
    ("DeepSeek-VL2", 3.2, 49.1, 47.7, 6.1, 4.2), ("DeepSeek-VL2-Small", 5.9, 52.1, 42.1, 10.1, 7.4),
    ("DeepSeek-VL2-Tiny", 16.1, 75.6, 8.3, 17.6, 16.8), ("Kimi-VL", 18.3, 44.4, 37.3, 29.1, 22.4),
    ("Keye-VL", 25.4, 53.9, 20.7, 32.0, 28.3),
    ("InternVL3-2B", 15.5, 80.5, 4.0, 16.1, 15.8), ("InternVL3-1B", 11.3, 82.5, 6.1, 12.1, 11.7),
    ("Qwen2.5-VL-3B", 22.3, 74.5, 3.2, 23.0, 22.6), ("Qwen2-VL-2B", 16.3, 73.3, 10.4, 18.2, 17.2),
    ("LLaVA-OneVision-0.5B", 7.8, 85.7, 6.5, 8.3, 8.0),
]


@pytest.mark.parametrize("model,co,inc,na,cga,f", TABLE_2, ids=[r[0] for r in TABLE_2])
def test_f_identity_on_every_paper_row(model, co, inc, na, cga, f):
    # Printed values: F = CO / (1 - NA/2) and CO + IN + NA = 100, to the paper's rounding.
    assert co / (1 - na / 200) == pytest.approx(f, abs=0.15)
    assert co + inc + na == pytest.approx(100, abs=0.15)
    # Label counts rebuilt at the paper's N give the printed CO, NA, CGA and F.
    n = 200 if model.startswith("Human") else 1504  # human rows are on the 200-item sample
    c, n_na = round(co * n / 100), round(na * n / 100)
    grades = vsqa.Grades(correct=c, incorrect=n - c - n_na, not_attempted=n_na)
    summary = grades.summary()
    assert summary["correct"] == pytest.approx(co, abs=0.15)
    assert summary["not_attempted"] == pytest.approx(na, abs=0.15)
    assert summary["cga"] == pytest.approx(cga, abs=0.15)
    assert summary["f_score"] == pytest.approx(f, abs=0.15)
    # The closed form is the harmonic mean of CO and CGA.
    co_, cga_ = c / n, c / (c + grades.incorrect)
    assert summary["f_score"] == pytest.approx(100 * 2 * co_ * cga_ / (co_ + cga_), abs=0.006)


def test_scorer_reproduces_o3_row_end_to_end():
    data = vsqa.demo(SECRET, size=1504)
    n = len(data.questions)
    c, n_na = round(0.663 * n), round(0.001 * n)
    grades = ["C"] * c + ["N"] * n_na + ["I"] * (n - c - n_na)
    result = score(data, answer_as(data, grades))
    m = result.metrics
    assert (m["correct"], m["not_attempted"]) == (pytest.approx(66.3, abs=0.05), pytest.approx(0.1, abs=0.05))
    assert m["overall"] == pytest.approx(66.3, abs=0.15) and m["cga"] == pytest.approx(66.4, abs=0.15)
    check_overall_from(result)


# -- hand-worked metrics --------------------------------------------------------

def small_demo():
    return vsqa.demo(SECRET, size=10)


def test_hand_worked_counts_and_f():
    data = small_demo()
    # 4 correct, 3 wrong, 2 abstain, 1 missing: c=4, i=3, n=3, N=10.
    result = score(data, answer_as(data, ["C", "C", "I", "N", "C", "I", "-", "N", "C", "I"]))
    m = result.metrics
    assert (m["correct"], m["incorrect"], m["not_attempted"]) == (40.0, 30.0, 30.0)
    assert m["cga"] == 57.14  # 4 / 7
    assert m["overall"] == 47.06  # 2*4 / (2*10 - 3)
    assert result.counts["missing"] == 1 and result.counts["items"] == 10
    check_overall_from(result)


def test_cga_is_zero_without_attempts_and_f_is_none_without_items():
    assert vsqa.Grades(0, 0, 5).summary() == {"f_score": 0.0, "correct": 0.0, "incorrect": 0.0,
                                              "not_attempted": 100.0, "cga": 0.0}
    assert vsqa.Grades().f_score() is None and vsqa.Grades().cga() is None


def test_missing_predictions_are_not_attempted_and_counted():
    data = small_demo()
    result = score(data, answer_as(data, ["C"] + ["-"] * 9))
    assert result.metrics["not_attempted"] == 90.0 and result.metrics["incorrect"] == 0.0
    assert result.counts["missing"] == 9 and result.counts["calls_used"] == 10
    assert result.metrics["overall"] == pct_round(2 * 1 / (20 - 9))
    assert result.metrics["ece"] is None and result.metrics["calibration_n"] == 0


def pct_round(x: float) -> float:
    return round(100 * x, 2)


def test_judge_unparseable_counts_as_incorrect_and_is_counted():
    data = small_demo()
    preds = answer_as(data, ["C"] * 10)
    gold0 = data.answers[0].answer
    judge = CountingJudge(unreadable=frozenset({gold0}))
    result = score(data, preds, judge)
    n_unreadable = sum(a.answer == gold0 for a in data.answers)
    assert result.counts["judge_unparseable"] == n_unreadable >= 1
    assert result.metrics["incorrect"] == pct_round(n_unreadable / 10)
    assert judge.batches == [10]  # one batch


def test_unparseable_response_is_counted_and_graded_as_abstention():
    data = small_demo()
    preds = answer_as(data, ["C"] * 10)
    preds[0] = Prediction(preds[0].id, "")  # nothing to read
    result = score(data, preds)
    assert result.counts["unparseable"] == 1
    assert result.metrics["not_attempted"] == 10.0 and result.metrics["correct"] == 90.0


def test_raw_text_answer_is_graded_when_there_is_no_json():
    data = small_demo()
    preds = [Prediction(vsqa.call_id(data.questions[0].id), data.answers[0].answer)]
    assert score(data, preds).metrics["correct"] == 10.0


# -- calibration -------------------------------------------------------------

def test_ece_hand_worked():
    data = vsqa.demo(SECRET, size=5)
    # Bin 9: 95 right, 95 wrong -> |0.5 - 0.95| x 2 items; bin 3: 30 right -> 0.7; bin 0: 5 wrong -> 0.05.
    # The fifth item has no confidence: left out. ECE = (0.9 + 0.7 + 0.05) / 4 = 41.25 %.
    result = score(data, answer_as(data, ["C", "I", "C", "I", "C"], [95, 95, 30, 5, None]))
    assert result.metrics["ece"] == 41.25
    assert result.metrics["calibration_n"] == 4
    bins = {b["bin"]: b for b in result.details["calibration_bins"]}
    assert bins["90-100"] == {"bin": "90-100", "n": 2, "accuracy": 50.0, "confidence": 95.0}


def test_ece_bin_edges():
    # 100 belongs to the last bin, 10 to the second: [0,10), [10,20), ..., [90,100].
    ece, n, rows = vsqa.expected_calibration_error([100.0, 10.0, 5.0], [CORRECT, INCORRECT, INCORRECT])
    assert (ece, n) == (5.0, 3)  # (|1 - 1.0| + |0 - 0.1| + |0 - 0.05|) / 3
    assert [r["bin"] for r in rows] == ["0-10", "10-20", "90-100"]


def test_confidence_from_record_wins_over_json():
    data = vsqa.demo(SECRET, size=2)
    ids = [vsqa.call_id(q.id) for q in data.questions]
    golds = [a.answer for a in data.answers]
    from_json = [Prediction(ids[0], reply(golds[0], 20)), Prediction(ids[1], reply(WRONG, 20))]
    from_record = [Prediction(ids[0], reply(golds[0], 20), confidence=100.0),
                   Prediction(ids[1], reply(WRONG, 20), confidence=0.0)]
    assert score(data, from_json).metrics["ece"] == 30.0  # one bin: |accuracy 0.5 - confidence 0.2|
    assert score(data, from_record).metrics["ece"] == 0.0


def test_out_of_range_confidence_is_left_out_of_calibration():
    data = vsqa.demo(SECRET, size=2)
    preds = [Prediction(vsqa.call_id(q.id), reply(a.answer, c))
             for q, a, c in zip(data.questions, data.answers, [150, 80])]
    assert score(data, preds).metrics["calibration_n"] == 1
    preds[1] = Prediction(preds[1].id, preds[1].response, confidence=101.0)  # the record's, unvalidated
    assert score(data, preds).metrics["calibration_n"] == 0


# -- breakdowns ----------------------------------------------------------------

def test_by_hop_and_by_category():
    data = small_demo()
    grades = ["C", "I", "N", "C", "C", "I", "C", "N", "I", "C"]
    result = score(data, answer_as(data, grades))
    m = result.metrics
    for key in ("2", "3", "4"):
        rows = [g for q, g in zip(data.questions, grades) if str(q.hops) == key]
        expect = vsqa.Grades(rows.count("C"), rows.count("I"), rows.count("N"))
        assert m["by_hop"][key] == expect.summary()
        assert m["n_by_hop"][key] == len(rows)
    assert set(m["by_category"]) == {"ENG", "NAT", "SCI", "SAC"}
    assert sum(m["n_by_category"].values()) == 10
    assert "subqa" not in m  # not a worker run


def worker_predictions(data, sub_grades: dict[int, str], main: str = "C") -> list[Prediction]:
    """Every multi-hop question answered with `main`; sub-question j answered per sub_grades[j]."""
    preds = answer_as(data, [main] * len(data.questions))
    for a in data.answers:
        for j, s in enumerate(a.sub_questions, 1):
            text = {"C": s.answer, "I": WRONG, "N": ABSTAIN}[sub_grades[j]]
            preds.append(Prediction(vsqa.hop_call_id(a.id, j), reply(text, 50)))
    return preds


def test_subqa_in_a_worker_run():
    data = small_demo()
    judge = CountingJudge()
    result = score(data, worker_predictions(data, {1: "I", 2: "C", 3: "N", 4: "C"}), judge, worker_run=True)
    m = result.metrics
    n_hops = {j: sum(q.hops >= j for q in data.questions) for j in (1, 2, 3, 4)}
    assert m["subqa"] == {"hop1": 0.0, "hop2": 100.0, "hop3": 0.0, "hop4": 100.0}
    assert m["n_subqa"] == {f"hop{j}": n for j, n in n_hops.items()}
    by_count = m["subqa_by_hop_count"]
    assert by_count["4"] == {"hop1": 0.0, "hop2": 100.0, "hop3": 0.0, "hop4": 100.0, "multi_hop": 100.0}
    assert by_count["3"] == {"hop1": 0.0, "hop2": 100.0, "hop3": 0.0, "multi_hop": 100.0}
    assert m["n_subqa_by_hop_count"]["3"]["multi_hop"] == m["n_by_hop"]["3"]
    # ONE judge batch: every multi-hop answer and every sub-answer.
    assert judge.batches == [10 + sum(n_hops.values())]
    # Sub-question answers never change the headline.
    assert m["overall"] == 100.0


def test_subqa_mixed_grades_per_hop_count():
    data = small_demo()
    preds = answer_as(data, ["N"] * 10)
    four = [a for q, a in zip(data.questions, data.answers) if q.hops == 4]
    # On 4-hop items: hop1 right on the first only; other hops missing.
    preds.append(Prediction(vsqa.hop_call_id(four[0].id, 1), reply(four[0].sub_questions[0].answer)))
    result = score(data, preds, worker_run=True)
    cell = result.metrics["subqa_by_hop_count"]["4"]
    assert cell["hop1"] == pct_round(2 / (2 * len(four) - (len(four) - 1)))
    assert cell["multi_hop"] == 0.0
    assert result.counts["missing"] == sum(q.hops for q in data.questions) - 1


# -- video statistics -----------------------------------------------------------

def test_video_stats_one_row_per_video():
    data = small_demo()
    grades = ["C", "I", "N", "C", "C", "I", "C", "N", "I", "C"]
    result = score(data, answer_as(data, grades))
    videos = {q.video for q in data.questions}
    assert result.video_stats.shape == (len(videos), 3)
    assert len(videos) < len(data.questions)  # items share videos
    assert result.video_stats.sum(0).tolist() == [grades.count("C"), grades.count("N"), 10]
    check_overall_from(result)
    # vectorised over resamples
    two = np.vstack([result.video_stats.sum(0), result.video_stats[:1].sum(0)])
    assert result.overall_from(two).shape == (2,)


# -- demo ------------------------------------------------------------------------

def test_demo_covers_hops_categories_and_shared_videos():
    data = vsqa.demo(SECRET)
    assert {q.hops for q in data.questions} == {2, 3, 4}
    assert {q.category for q in data.questions} == set(vsqa.PRIMARY)
    assert len(data.video_specs) < len(data.questions)
    assert all(len(a.sub_questions) == q.hops for q, a in zip(data.questions, data.answers))
    assert all(a.answer == a.sub_questions[-1].answer for a in data.answers)
    assert all(s.seconds <= 5 for s in data.video_specs.values())
    assert vsqa.demo(SECRET) == vsqa.demo(SECRET) and vsqa.demo(OTHER_SECRET) != vsqa.demo(SECRET)
    # items on one video follow different chains: no video has the same question twice
    assert len({(q.video, q.question) for q in data.questions}) == len(data.questions)


def test_demo_paper_size():
    data = vsqa.demo(SECRET, size=1504)
    hops = [q.hops for q in data.questions]
    assert len(data.questions) == 1504 and len(data.video_specs) == 1079
    for k, n in vsqa.PAPER_HOPS.items():
        assert abs(hops.count(k) - n) <= 3
    cats = [q.category for q in data.questions]
    for k, n in vsqa.PAPER_CATEGORIES.items():
        assert abs(cats.count(k) - n) <= 0.03 * 1504


def test_baselines_are_not_perfect(tmp_path):
    from evaluator.baselines import predictions

    suite = build_suite(tmp_path, "demo", "t", [vsqa.demo(SECRET)], default_budgets(), SECRET, write_videos=False)
    data = vsqa.demo(SECRET)
    for name in ("first-option", "random"):
        result = score(data, predictions(name, suite.calls))
        assert result.metrics["overall"] < 50


# -- calls and the suite -----------------------------------------------------------

def test_calls_and_hidden_calls(tmp_path):
    data = vsqa.demo(SECRET)
    suite = build_suite(tmp_path, "demo", "t", [data], default_budgets(), SECRET, write_videos=False)
    key = load_answers(tmp_path, suite)
    assert [c.id for c in suite.calls] == [vsqa.call_id(q.id) for q in data.questions]
    call = suite.calls[0]
    assert call.answer_format == "short" and len(call.frames[0].times) == min(
        default_budgets()["videosimpleqa"], suite.videos[call.frames[0].video].frame_count)
    assert data.questions[0].question in call.prompt and '"confidence_score"' in call.prompt
    hidden = {c.id: c for c in key.hidden_calls}
    assert len(hidden) == sum(q.hops for q in data.questions)
    q, a = data.questions[3], data.answers[3]
    for j, s in enumerate(a.sub_questions, 1):
        c = hidden[vsqa.hop_call_id(q.id, j)]
        assert s.question in c.prompt and c.frames == [suite.calls_by_id()[vsqa.call_id(q.id)].frames[0]]
    assert key.answers[vsqa.NAME] == data.answers  # answer records round-trip


def test_no_answer_or_sub_question_in_public_files(tmp_path):
    data = vsqa.demo(SECRET)
    build_suite(tmp_path, "demo", "t", [data], default_budgets(), SECRET, write_videos=False)
    public = "\n".join(p.read_text() for p in (tmp_path / "suite").rglob("*.json*"))
    for a in data.answers:
        assert json.dumps(a.answer)[1:-1] not in public  # the gold, as JSON would write it
        for s in a.sub_questions:
            assert json.dumps(s.answer)[1:-1] not in public
            assert json.dumps(s.question)[1:-1] not in public
    assert "sub_questions" not in public
    hidden = (tmp_path / "answers" / "hidden_calls.jsonl").read_text()
    assert all(json.dumps(s.question)[1:-1] in hidden for a in data.answers for s in a.sub_questions)


# -- importer ---------------------------------------------------------------------

def release_item(date: str, hops: int, tag: str) -> dict:
    item = {"date": date}
    for k in range(1, hops + 1):
        item[f"QA_Pair_{k}_Question"] = f"Sub-question {k} of {tag}?"
        item[f"QA_Pair_{k}_Answer"] = f"answer {k} {tag}"
    item["Multi_hop_Question"] = f"Multi-hop question of {tag}?"
    item["Multi_hop_Answer"] = f"answer {hops} {tag}"
    return item


def write_release(root: Path, items: list, mapping=None, videos=None) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "videos").mkdir(exist_ok=True)
    (root / "data" / vsqa.RELEASE_FILE).write_text(json.dumps(items, indent=4))
    if mapping is not None:
        (root / "data" / vsqa.CATEGORY_FILE).write_text(json.dumps(mapping))
    for date in videos if videos is not None else {i["date"] for i in items if isinstance(i, dict)}:
        (root / "videos" / f"{date}.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")  # never decoded
    return root


def official_fixture(root: Path) -> Path:
    items = [release_item("2009-06-02", 4, "a"), release_item("2009-07-28", 2, "b"),
             release_item("2009-06-02", 3, "c"), release_item("2013-01-19", 4, "d")]
    for key in ("Multi_hop_Question", "Multi_hop_Answer", "QA_Pair_4_Question", "QA_Pair_4_Answer"):
        items[3][key] = ""  # like item #597 of the release
    items[1]["QA_Pair_2_Answer"] = 1903  # an earlier release had numbers for numeric answers
    mapping = [{"date": "2009-06-02", "Multi_hop_Question": "Multi-hop question of a?", "category": "ENG"},
               {"date": "2009-07-28", "Multi_hop_Question": "Multi-hop question of b?", "category": "Nature"},
               {"date": "2009-06-02", "Multi_hop_Question": "Multi-hop question of c?", "category": "Fossils"}]
    return write_release(root, items, mapping)


def in_release_order(data):
    """(questions, answers) of an import in the release's order (the suite's is its ids')."""
    key = {a.id: a for a in data.answers}
    answers = sorted(data.answers, key=lambda a: a.release_index)
    questions = {q.id: q for q in data.questions}
    return [questions[a.id] for a in answers], [key[a.id] for a in answers]


def test_import_official_layout(tmp_path):
    data = vsqa.import_release(official_fixture(tmp_path), SECRET)
    q, a = in_release_order(data)
    assert [x.release_index for x in a] == [0, 1, 2, 3] and [x.id for x in q] == [x.id for x in a]
    assert [x.id for x in data.questions] == sorted(x.id for x in q) != [x.id for x in q]
    assert not any(x.id.startswith("vsqa-0000") for x in q)
    again = vsqa.import_release(tmp_path, SECRET)
    assert [x.id for x in again.questions] == [x.id for x in data.questions]  # stable for a secret
    assert [x.video for x in again.questions] == [x.video for x in data.questions]
    assert {x.id for x in vsqa.import_release(tmp_path, OTHER_SECRET).questions}.isdisjoint(x.id for x in q)
    assert [x.hops for x in q] == [4, 2, 3, 4]
    assert [x.category for x in q] == ["ENG", "NAT", "NAT", None]
    assert q[0].video == q[2].video != q[1].video  # one id per date, opaque
    assert all("20" not in x.video for x in q)
    assert a[0].source == "2009-06-02" and a[1].sub_questions[1].answer == "1903"
    assert (q[3].question, a[3].answer) == ("", "")  # no multi-hop question: not scored
    assert Path(data.video_files[q[0].video]).name == "2009-06-02.mp4"
    assert len(data.video_files) == 3


def test_import_empty_multi_hop_item_is_excluded_from_scoring(tmp_path):
    data = vsqa.import_release(official_fixture(tmp_path), SECRET)
    # The fixture's videos are fake (the suite builder would probe them): plain metadata instead.
    videos = {v: VideoMeta(v, 4.0, 8.0, 32) for v in data.video_files}
    calls = vsqa.build_calls(data.questions, videos, default_budgets())
    hidden = vsqa.hidden_calls(data.questions, data.answers, videos, default_budgets())
    q, _ = in_release_order(data)
    assert sorted(c.id for c in calls) == sorted(vsqa.call_id(x.id) for x in q[:3])
    assert vsqa.hop_call_id(q[3].id, 3) in {c.id for c in hidden}
    assert vsqa.hop_call_id(q[3].id, 4) not in {c.id for c in hidden}  # empty QA4
    preds = [p for p in answer_as(data, ["C", "I", "C", "C"]) if p.id != vsqa.call_id(q[3].id)]
    preds += [Prediction(c.id, reply(ABSTAIN)) for c in hidden]
    result = score(data, preds, worker_run=True)
    assert result.counts["items"] == 3 and result.counts["excluded_items"] == 1
    assert result.metrics["n_by_hop"] == {"2": 1, "3": 1, "4": 1}
    assert result.metrics["n_subqa_by_hop_count"]["4"] == {"hop1": 2, "hop2": 2, "hop3": 2, "hop4": 1,
                                                           "multi_hop": 1}
    assert result.metrics["n_by_category"] == {"ENG": 1, "NAT": 2}


def test_import_item_with_empty_answer_has_no_question(tmp_path):
    item = release_item("2010-01-01", 2, "x")
    item["Multi_hop_Answer"] = " "
    write_release(tmp_path, [item, release_item("2010-01-02", 2, "y")])
    data = vsqa.import_release(tmp_path, SECRET)
    q, a = in_release_order(data)
    assert [x.question for x in q] == ["", "Multi-hop question of y?"]
    assert a[0].sub_questions[1].answer == "answer 2 x"  # sub-questions kept


def test_import_without_category_mapping(tmp_path):
    write_release(tmp_path, [release_item("2010-01-01", 2, "x")])
    data = vsqa.import_release(tmp_path, SECRET)
    assert data.questions[0].category is None
    preds = answer_as(data, ["C"])
    assert "by_category" not in score(data, preds).metrics


def test_import_mapping_as_object(tmp_path):
    write_release(tmp_path, [release_item("2010-01-01", 2, "x")],
                  {"2010-01-01|Multi-hop question of x?": {"category": "society and culture"}})
    assert vsqa.import_release(tmp_path, SECRET).questions[0].category == "SAC"


def bad(tmp_path: Path, items, mapping=None, videos=None) -> str:
    write_release(tmp_path, items, mapping, videos)
    with pytest.raises(ImportReleaseError) as e:
        vsqa.import_release(tmp_path, SECRET)
    return str(e.value)


def test_import_errors_name_file_line_and_field(tmp_path):
    items = [release_item("2010-01-01", 2, "x"), release_item("2010-01-02", 3, "y")]
    del items[1]["Multi_hop_Answer"]
    msg = bad(tmp_path, items)
    # json.dumps(indent=4): "[", then item 0 on lines 2-10 ("{", 7 fields, "},"); item 1 opens on line 11.
    lines = (tmp_path / "data" / vsqa.RELEASE_FILE).read_text().split("\n")
    assert lines[10].strip() == "{" and '"2010-01-02"' in lines[11]
    assert f"{vsqa.RELEASE_FILE}:11: item 1: missing field 'Multi_hop_Answer'" in msg


@pytest.mark.parametrize("change,field", [
    (lambda i: i.pop("date"), "'date'"),
    (lambda i: i.pop("QA_Pair_1_Answer"), "'QA_Pair_1_Answer'"),
    (lambda i: i.pop("QA_Pair_1_Question"), "'QA_Pair_1_Question'"),
    (lambda i: i.update(Multi_hop_Question=["x"]), "'Multi_hop_Question'"),
    (lambda i: i.update(date="../x"), "'date'"),
    (lambda i: [i.pop(k) for k in list(i) if k.startswith("QA_Pair")], "'QA_Pair_1_Question'"),
])
def test_import_bad_fields(tmp_path, change, field):
    item = release_item("2010-01-01", 2, "x")
    change(item)
    msg = bad(tmp_path, [release_item("2010-01-02", 2, "y"), item], videos=["2010-01-01", "2010-01-02"])
    assert "item 1" in msg and field in msg and vsqa.RELEASE_FILE in msg


def test_import_bad_json_names_the_line(tmp_path):
    write_release(tmp_path, [release_item("2010-01-01", 2, "x")])
    path = tmp_path / "data" / vsqa.RELEASE_FILE
    path.write_text(path.read_text().replace('"date": "2010-01-01",', '"date": "2010-01-01"'))
    with pytest.raises(ImportReleaseError, match=rf"{vsqa.RELEASE_FILE}:4: not valid JSON"):
        vsqa.import_release(tmp_path, SECRET)


def test_import_missing_video_and_bad_mapping(tmp_path):
    assert "2010-01-01.mp4" in bad(tmp_path / "a", [release_item("2010-01-01", 2, "x")], videos=[])
    msg = bad(tmp_path / "b", [release_item("2010-01-01", 2, "x")],
              [{"date": "2010-01-01", "Multi_hop_Question": "Multi-hop question of x?", "category": "Cooking"}])
    assert vsqa.CATEGORY_FILE in msg and "Cooking" in msg
    msg = bad(tmp_path / "c", [release_item("2010-01-01", 2, "x"), release_item("2010-01-02", 2, "y")],
              [{"date": "2010-01-01", "Multi_hop_Question": "Multi-hop question of x?", "category": "SCI"}])
    assert "item 1" in msg and "no category" in msg
    assert "expected a non-empty JSON list" in bad(tmp_path / "d", {"date": "x"})
    assert "item 0: expected a JSON object" in bad(tmp_path / "e", [["2010-01-01"]], videos=[])


# -- speed -------------------------------------------------------------------------

def test_paper_size_scoring_is_one_judge_batch(tmp_path):
    data = vsqa.demo(SECRET, size=1504)
    preds = worker_predictions(data, {1: "C", 2: "I", 3: "N", 4: "C"}, main="I")
    judge = CountingJudge()
    result = score(data, preds, judge, worker_run=True)
    assert judge.batches == [len(preds)]
    assert result.metrics["overall"] == 0.0 and result.metrics["subqa"]["hop1"] == 100.0
