"""Video-MMMU: importer on parquet fixtures in the official layout, calls (last frame
included, question-only calls), the open-ended matcher, and hand-worked track,
discipline and knowledge-gain metrics."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import OTHER_SECRET, SECRET

from evaluator.benchmarks import videommmu as vm
from evaluator.errors import ImportReleaseError
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.predictions import parse_predictions
from evaluator.records import Prediction, Responses, ScoringContext
from evaluator.suite import build_suite
from evaluator.reference import default_budgets

CTX = ScoringContext(judge=NormalizedMatchJudge())
LETTERS = [chr(ord("A") + i) for i in range(26)]


# -- helpers ------------------------------------------------------------------

def item(track, source_id, options=4, gold="A", kind=vm.MCQ):
    """A hand-made (Question, Answer); `options` is a count (MCQ) or 0 (open)."""
    subject, discipline = vm.discipline_of(source_id)
    texts = [f"option {i}" for i in range(options)]
    q = vm.Question(f"{track}/{source_id}", track, f"v-{source_id}", subject, discipline,
                    "Question text <image 1>", kind, texts,
                    f"v-{source_id}-qo" if track == "adaptation" else None)
    return q, vm.make_answer(q.id, kind, texts, gold)


def responses(pairs):
    return Responses({cid: Prediction(cid, text) for cid, text in pairs if text is not None})


def run(items, pairs):
    qs, ans = zip(*items)
    return vm.score(list(qs), list(ans), responses(pairs), CTX)


def adaptation_set(before_right, after_right, n=5):
    """n Adaptation MCQs (gold A); replies 'A' where right and 'B' where wrong, except
    that wrong "after" replies of the last item are missing (still wrong)."""
    items = [item("adaptation", f"validation_Physics_{i}") for i in range(n)]
    pairs = []
    for i, (q, _) in enumerate(items):
        pairs.append((vm.question_only_call_id(q), "A" if i in before_right else "B"))
        after = "A" if i in after_right else ("B" if i < n - 1 else None)
        pairs.append((vm.call_id(q), after))
    return items, pairs


# -- knowledge gain -------------------------------------------------------------

def test_knowledge_gain_hand_worked():
    # 5 items; item 4 has no with-video answer, so Δknowledge is over items 0-3:
    # before 0,1 right (50%); after 1,2,3 right (75%)
    items, pairs = adaptation_set({0, 1}, {1, 2, 3})
    result = run(items, pairs)
    m = result.metrics
    assert m["adaptation"] == 60.0  # the track itself keeps its fixed denominator: 3 of 5
    assert m["adaptation_question_only"] == 50.0 and result.counts["delta_knowledge_pairs"] == 4
    assert m["delta_knowledge"] == 50.0  # (75 - 50) / (100 - 50)
    assert m["wrong_to_right"] == 100.0  # items 2, 3 of the wrong-before 2, 3
    assert m["right_to_wrong"] == 50.0  # item 0 of the right-before 0, 1
    assert (m["n_wrong_to_right"], m["n_right_to_wrong"]) == (2, 1)
    assert (m["n_right_before"], m["n_wrong_before"]) == (2, 2)
    assert "delta_knowledge_note" not in m


def test_knowledge_gain_negative():
    items, pairs = adaptation_set({0, 1, 2}, {0})  # over items 0-3: 75% before, 25% after
    m = run(items, pairs).metrics
    assert m["delta_knowledge"] == -200.0  # (25 - 75) / (100 - 75)
    assert m["wrong_to_right"] == 0.0 and m["right_to_wrong"] == 66.67


def test_knowledge_gain_undefined_when_all_right_before():
    items, pairs = adaptation_set({0, 1, 2, 3, 4}, {0, 1})
    m = run(items, pairs).metrics
    assert m["adaptation_question_only"] == 100.0
    assert m["delta_knowledge"] is None and m["wrong_to_right"] is None
    assert m["right_to_wrong"] == 50.0  # 2, 3 of the right-before 0-3


def test_knowledge_gain_not_computed_without_question_only_predictions():
    items, pairs = adaptation_set({0}, {0, 1})
    pairs = [(cid, text) for cid, text in pairs if "question-only" not in cid]
    result = run(items, pairs)
    m = result.metrics
    assert m["adaptation"] == 40.0
    assert all(m[k] is None for k in ("delta_knowledge", "wrong_to_right", "right_to_wrong",
                                      "adaptation_question_only"))
    assert m["delta_knowledge_note"].startswith("not computed: the submission has no question-only answers")
    assert result.counts["question_only_missing"] == 5 and result.counts["delta_knowledge_pairs"] == 0


def test_a_partial_file_cannot_inflate_the_knowledge_gain():
    """Leaving out the question-only answers a model got right does not raise Δknowledge:
    an item counts only when it was answered both ways."""
    items, pairs = adaptation_set({0, 1}, {0, 1, 2})
    honest = run(items, pairs).metrics["delta_knowledge"]
    dropped = {vm.question_only_call_id(items[i][0]) for i in (0, 1)}  # the right "before" answers
    m = run(items, [(cid, text) for cid, text in pairs if cid not in dropped]).metrics
    assert honest == 50.0  # over items 0-3: 50% before, 75% after
    assert m["delta_knowledge"] == 50.0 and (m["n_right_before"], m["n_wrong_before"]) == (0, 2)
    # (counting the dropped answers as wrong would give 0% before, 60% after: Δ = 60 from a partial file)


def test_missing_question_only_replies_leave_their_item_out():
    items, pairs = adaptation_set({0, 1}, {0, 1, 2})
    pairs = [(cid, text) for cid, text in pairs if cid != vm.question_only_call_id(items[1][0])]
    result = run(items, pairs)
    m = result.metrics
    assert result.counts["delta_knowledge_pairs"] == 3  # items 0, 2, 3 (1: no before; 4: no after)
    assert m["adaptation_question_only"] == 33.33  # item 0 of 0, 2, 3
    assert m["wrong_to_right"] == 50.0  # item 2 of the wrong-before 2, 3


# -- tracks, disciplines, fixed denominators ----------------------------------------

def test_tracks_and_disciplines_pooled_over_tracks():
    items = [item(t, sid) for sid in ("validation_Accounting_1", "test_Physics_2") for t in vm.TRACKS]
    right = {"perception/validation_Accounting_1", "comprehension/validation_Accounting_1",
             "adaptation/validation_Accounting_1", "perception/test_Physics_2"}
    pairs = [(vm.call_id(q), "A" if q.id in right else "C") for q, _ in items]
    result = run(items, pairs)
    m = result.metrics
    assert (m["overall"], m["perception"], m["comprehension"], m["adaptation"]) == (66.67, 100.0, 50.0, 50.0)
    assert m["by_discipline"] == {"Business": 100.0, "Science": 33.33}
    assert m["n_by_discipline"] == {"Business": 3, "Science": 3}
    assert m["n_by_track"] == {"perception": 2, "comprehension": 2, "adaptation": 2}
    # one bootstrap row per lecture video, and the headline from column sums
    assert result.video_stats.shape == (2, 2)
    assert result.overall_from(result.video_stats.sum(0, keepdims=True))[0] == pytest.approx(m["overall"], abs=0.005)


def test_fixed_denominators_with_missing_and_unparseable():
    items = [item(t, f"validation_Music_{i}") for i in range(4) for t in vm.TRACKS]
    pairs = [(vm.call_id(q), "A") for q, _ in items[:3]]  # only the first video answered
    pairs.append((vm.call_id(items[3][0]), "I refuse to pick."))  # unparseable, still in the denominator
    result = run(items, pairs)
    assert result.metrics["overall"] == 25.0  # 3 of 12
    assert result.metrics["perception"] == 25.0 and result.metrics["by_discipline"] == {"Art": 25.0}
    assert result.counts["missing"] == 8 and result.counts["unparseable"] == 1
    assert result.counts["calls_used"] == 12


def test_options_past_j():
    (q14, a14), (q12, a12) = item("perception", "dev_Design_1", 14, "N"), item("comprehension", "dev_Design_1", 12, "L")
    assert vm.labels_for(q14)[-1] == "N"
    m = run([(q14, a14), (q12, a12)], [(vm.call_id(q14), "Reasoning...\nN"),
                                       (vm.call_id(q12), "The answer is (L).")]).metrics
    assert m["overall"] == 100.0
    m = run([(q14, a14), (q12, a12)], [(vm.call_id(q14), "M"), (vm.call_id(q12), "J")]).metrics
    assert m["overall"] == 0.0


def test_duplicate_gold_text_accepts_either_letter():
    q, a = item("perception", "validation_Manage_14", 4, "B")
    q.options[3] = q.options[1]
    a = vm.make_answer(q.id, vm.MCQ, q.options, "B")
    assert a.labels == ["B", "D"]
    assert run([(q, a)], [(vm.call_id(q), "D")]).metrics["overall"] == 100.0


# -- open-ended matching ----------------------------------------------------------

@pytest.mark.parametrize("gold, reply, right", [
    ("0.286", "So the ratio is 0.29", True),  # both round to 0.29
    ("0.286", "0.2857", True),
    ("0.286", "0.28", False),
    ("12.97", "Final answer: 12.97 N", True),
    ("12.97", "13", False),
    ("7243000", "7,243,000", True),
    ("7243000", "about 7,240,000", True),  # 0.04% off: large golds are within 0.1%
    ("7243000", "about 7,260,000", False),  # 0.23% off
    ("7243000", "7.243 million", False),  # scale words are not read (as in the official scorer)
    ("242110.62", "242110.6", True),  # large gold: within 0.1%
    ("360", "359", False),  # 0.28% off
    ("65", "65%", True),
    ("['24/7', '3.429', '3.43]", "3.43", True),  # the release's malformed list gold, repaired
    ("['24/7', '3.429', '3.43]", "24/7 = 3.4286", True),
    ("['24/7', '3.429', '3.43]", "3.5", False),
    ("negative feedback", "It is a case of negative feedback.", True),
    ("negative feedback", "positive feedback", False),
    ("A", "The labelled point is A", True),  # letter gold on an open item: read as a choice
    ("A", "B", False),
])
def test_open_matcher(gold, reply, right):
    q, a = item("adaptation", "validation_Physics_21", 0, gold, vm.OPEN)
    assert run([(q, a)], [(vm.call_id(q), reply)]).metrics["overall"] == (100.0 if right else 0.0)


def test_open_reply_without_answer_is_unparseable():
    q, a = item("adaptation", "validation_Physics_21", 0, "12.5", vm.OPEN)
    result = run([(q, a)], [(vm.call_id(q), "")])
    assert result.metrics["overall"] == 0.0 and result.counts["unparseable"] == 1


# -- demo and calls -----------------------------------------------------------------

def demo_suite(tmp_path, size=12, write_videos=False):
    return build_suite(tmp_path, "demo", "t", [vm.demo(SECRET, size=size)], default_budgets(), SECRET, write_videos=write_videos)


def test_demo_covers_everything_and_is_deterministic():
    data = vm.demo(SECRET)
    assert data == vm.demo(SECRET) and data != vm.demo(OTHER_SECRET)
    qs = data.questions
    assert {q.discipline for q in qs} == set(vm.DISCIPLINES)
    by_video = {}
    for q in qs:
        by_video.setdefault(q.video, []).append(q.track)
    assert all(sorted(t) == sorted(vm.TRACKS) for t in by_video.values())
    counts = {len(q.options) for q in qs if q.question_type == vm.MCQ}
    assert 10 in counts and max(counts) >= 12 and len(counts) > 2
    open_answers = [a for q, a in zip(qs, data.answers) if q.question_type == vm.OPEN]
    assert sum(bool(a.values) for a in open_answers) >= 2 and all(q.track == "adaptation"
                                                                   for q in qs if q.question_type == vm.OPEN)
    specs = data.video_specs
    assert all(specs[q.video].final_card for q in qs)
    stills = [specs[q.question_only_video] for q in qs if q.track == "adaptation"]
    assert len(stills) == len(by_video) and all(s.still and s.seconds == 2 for s in stills)
    gold_letters = {a.labels[0] for a in data.answers if a.labels}
    assert len(gold_letters) > 3, "the gold must not sit at one place"


def test_paper_size_demo():
    data = vm.demo(SECRET, size=300)
    assert len(data.questions) == 900
    videos = {}
    for q in data.questions:
        videos[q.video] = q.discipline
    per = {d: list(videos.values()).count(d) for d in vm.DISCIPLINES}
    assert per == vm.PAPER_VIDEOS
    assert len({q.id for q in data.questions}) == 900


def test_calls_and_last_frame(tmp_path):
    suite = demo_suite(tmp_path)
    budgets = default_budgets()
    qs = suite.questions["videommmu"]
    calls = {c.id: c for c in suite.calls}
    assert len(calls) == len(qs) + sum(q.track == "adaptation" for q in qs)
    for q in qs:
        call = calls[vm.call_id(q)]
        meta = suite.videos[q.video]
        plan = call.frames[0]
        assert plan.video == q.video
        assert plan.times[-1] == round((meta.frame_count - 1) / meta.fps, 3), "the last frame must be shown"
        assert len(plan.times) == min(budgets["videommmu"], meta.frame_count)
        if q.track == "adaptation":
            before = calls[vm.question_only_call_id(q)]
            assert before.frames[0].video == q.question_only_video and before.kind == "question-only"
            assert len(before.frames[0].times) == budgets["videommmu_question_only"]
            assert "lecture" not in before.prompt.lower() and q.question in before.prompt
            assert "last frame" in call.prompt and "ignore" not in call.prompt
        else:
            assert "ignore" in call.prompt
        if q.question_type == vm.MCQ:
            assert call.labels == LETTERS[:len(q.options)] and call.answer_format == "choice"
            assert f"{call.labels[-1]}. {q.options[-1]}" in call.prompt
        else:
            assert call.labels is None and call.answer_format == "open" and "Options" not in call.prompt
    assert any(c.labels and len(c.labels) > 10 for c in calls.values())


def test_no_answer_in_public_files(tmp_path):
    data = vm.demo(SECRET)
    demo_suite(tmp_path)
    public = "\n".join(p.read_text() for p in (tmp_path / "suite").rglob("*.jsonl"))
    assert '"gold"' not in public and '"labels": ["' not in (tmp_path / "suite" / "videommmu" / "questions.jsonl").read_text()
    for q, a in zip(data.questions, data.answers):
        if q.question_type == vm.OPEN:
            assert a.gold not in public


def test_last_frame_of_real_video_is_the_quiz_picture(tmp_path):
    import av

    from evaluator import synth

    suite = build_suite(tmp_path, "demo", "t", [vm.demo(SECRET, size=6)], default_budgets() | {"videommmu": 4}, SECRET, write_videos=True)
    for call in suite.calls:
        plan = call.frames[0]
        with av.open(str(suite.path / suite.videos[plan.video].file)) as container:
            frames = [f for f in container.decode(video=0)]
        last = min(frames, key=lambda f: abs(f.time - plan.times[-1]))
        assert synth.is_card(last.to_ndarray(format="rgb24"))
        if call.kind != "question-only":
            first = min(frames, key=lambda f: abs(f.time - plan.times[0]))
            assert not synth.is_card(first.to_ndarray(format="rgb24"))


def test_baselines_are_not_perfect(tmp_path):
    suite = demo_suite(tmp_path)
    qs = suite.questions["videommmu"]
    answers = vm.demo(SECRET).answers
    first = [(c.id, c.labels[0] if c.labels else "1") for c in suite.calls]
    m = vm.score(qs, answers, responses(first), CTX).metrics
    assert 0 < m["overall"] < 50
    import random
    rng = random.Random(0)
    rand = [(c.id, rng.choice(c.labels) if c.labels else str(rng.randint(0, 100))) for c in suite.calls]
    assert vm.score(qs, answers, responses(rand), CTX).metrics["overall"] < 50


def test_paper_size_scoring_counts(tmp_path):
    suite = demo_suite(tmp_path, size=300)
    qs = suite.questions["videommmu"]
    answers = vm.demo(SECRET, size=300).answers
    lines = [json.dumps({"id": c.id, "response": f"Let me think about {c.id} step by step. "
                         f"The lecture shows a table.\nFinal answer: {c.labels[1] if c.labels else '3.14'}"})
             for c in suite.calls]
    data = "\n".join(lines).encode()
    calls = suite.calls_by_id()
    parsed = parse_predictions(data, calls)

    result = vm.score(qs, answers, parsed, CTX)
    assert result.counts["calls_used"] == 900 and result.counts["question_only_calls_used"] == 300
    assert result.video_stats.shape == (300, 2)
    assert result.overall_from(result.video_stats.sum(0, keepdims=True))[0] == pytest.approx(
        result.metrics["overall"], abs=0.005)


# -- importer -----------------------------------------------------------------------

IDS = ("validation_Accounting_13", "test_Physics_21", "new_History_3")
FOLDER = {"validation_Accounting_13": "Business", "test_Physics_21": "Science", "new_History_3": "Humanities"}


def rows():
    """The three tracks of three videos, as the HF parquet holds them."""
    opts = [f"choice {i}" for i in range(10)]
    perception = [
        {"id": IDS[0], "question": "Which number is on the ledger?", "options": opts, "answer": "C"},
        {"id": IDS[1], "question": "Which force is drawn?", "options": [f"{x}. force {x}" for x in "ABCD"],
         "answer": "B"},
        {"id": IDS[2], "question": "Which year is named?", "options": [f"year {i}" for i in range(14)],
         "answer": "N"},
    ]
    comprehension = [{"id": i, "question": f"Why does {i} work?", "options": opts[:5], "answer": "E"}
                     for i in IDS]
    adaptation = [
        {"id": IDS[0], "question": "<image 1> Which entry?", "options": opts, "answer": "C",
         "question_type": "None"},
        {"id": IDS[1], "question": "<image 1> Compute the ratio.", "options": [],
         "answer": "['24/7', '3.429', '3.43]", "question_type": "open"},
        {"id": IDS[2], "question": "<image 1> Which era?", "options": opts[:3], "answer": "A",
         "question_type": "multiple-choice"},
    ]
    return {"perception": perception, "comprehension": comprehension, "adaptation": adaptation}


def by_release(data):
    """({"<track>/<release id>": question}, {opaque id: answer}) of an import."""
    release = {a.id: a.release_id for a in data.answers}
    return {f"{q.track}/{release[q.id]}": q for q in data.questions}, {a.id: a for a in data.answers}


def write_release(root, tracks=None, layout="hf", videos=True, question_only=True):
    tracks = rows() if tracks is None else tracks
    for track, records in tracks.items():
        path = root / track.title() / "test-00000-of-00001.parquet" if layout == "hf" else root / f"{track}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(records).to_parquet(path)
    for source_id, folder in FOLDER.items():
        if videos:
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / f"{source_id}.mp4").write_bytes(b"not decoded by the importer")
        if question_only:
            (root / "question_only").mkdir(parents=True, exist_ok=True)
            (root / "question_only" / f"{source_id}_image.mp4").write_bytes(b"still")
    return root


@pytest.mark.parametrize("layout", ["hf", "flat"])
def test_import_official_layout(tmp_path, layout):
    data = vm.import_release(write_release(tmp_path, layout=layout), SECRET)
    qs, key = by_release(data)
    assert len(qs) == 9 and {q.track for q in qs.values()} == set(vm.TRACKS)
    acc = qs["adaptation/validation_Accounting_13"]
    assert acc.question_type == vm.MCQ and len(acc.options) == 10  # "None" read as multiple-choice
    assert acc.discipline == "Business" and acc.subject == "Accounting"
    assert key[acc.id].labels == ["C"] and any("question_type null" in n for n in data.notes)
    assert qs["perception/test_Physics_21"].options == ["force A", "force B", "force C", "force D"]
    assert qs["perception/new_History_3"].question_type == vm.MCQ  # question_type column missing
    assert key[qs["perception/new_History_3"].id].labels == ["N"]
    physics = qs["adaptation/test_Physics_21"]
    assert physics.question_type == vm.OPEN and physics.options == []
    assert key[physics.id].values == pytest.approx([24 / 7, 3.429, 3.43])
    assert {q.discipline for q in qs.values()} == {"Business", "Science", "Humanities"}
    # one lecture video shared by the three tracks, plus one still per Adaptation item
    assert len(data.video_files) == 6
    assert data.video_files[acc.video].endswith("Business/validation_Accounting_13.mp4")
    assert data.video_files[acc.question_only_video].endswith("question_only/validation_Accounting_13_image.mp4")


def test_imported_release_builds_calls(tmp_path):
    data = vm.import_release(write_release(tmp_path / "r"), SECRET)
    from evaluator.records import VideoMeta
    metas = {v: VideoMeta(v, 2.0 if v.endswith("question-only") else 500.0, 25.0,
                          50 if v.endswith("question-only") else 12500) for v in data.video_files}
    calls = vm.build_calls(data.questions, metas, default_budgets())
    assert len(calls) == 12
    assert all(c.frames[0].times[-1] == 499.96 for c in calls if c.kind != "question-only")
    assert "'24/7'" not in "".join(c.prompt for c in calls)


def bad(track, index, change=None, drop=None):
    tracks = rows()
    record = tracks[track][index]
    record.update(change or {})
    if drop:
        for r in tracks[track]:
            r.pop(drop, None)
    return tracks


@pytest.mark.parametrize("tracks, where, message", [
    (bad("perception", 1, {"answer": "K"}), "Perception/test-00000-of-00001.parquet: row 2",
     "field 'answer': the gold must be one of the 4 option letters"),
    (bad("comprehension", 2, {"answer": None}), "Comprehension/test-00000-of-00001.parquet: row 3",
     "field 'answer' has the wrong type"),
    (bad("adaptation", 0, {"id": "validation_Astrology_13"}), "Adaptation/test-00000-of-00001.parquet: row 1",
     "field 'id': no known subject"),
    (bad("adaptation", 2, {"question_type": "essay"}), "Adaptation/test-00000-of-00001.parquet: row 3",
     "field 'question_type' has an unknown value 'essay'"),
    (bad("perception", 0, {"options": []}), "Perception/test-00000-of-00001.parquet: row 1",
     "field 'options': a multiple-choice question needs 2 to 26 options"),
    (bad("comprehension", 1, {"id": IDS[0]}), "Comprehension/test-00000-of-00001.parquet: row 2",
     "field 'id': 'validation_Accounting_13' repeats"),
    (bad("perception", 0, drop="answer"), "Perception/test-00000-of-00001.parquet",
     "missing field 'answer'"),
    (bad("adaptation", 1, {"answer": "  "}), "Adaptation/test-00000-of-00001.parquet: row 2",
     "field 'answer': the open-ended gold is empty"),
])
def test_bad_fixture_names_file_row_and_field(tmp_path, tracks, where, message):
    write_release(tmp_path, tracks)
    with pytest.raises(ImportReleaseError) as info:
        vm.import_release(tmp_path, SECRET)
    assert where in str(info.value) and message in str(info.value)


def test_missing_files(tmp_path):
    with pytest.raises(ImportReleaseError, match="no release file for track Perception: .*parquet.*_video.json"):
        vm.import_release(tmp_path, SECRET)
    root = write_release(tmp_path / "a", {k: v for k, v in rows().items() if k != "comprehension"})
    with pytest.raises(ImportReleaseError, match="no release file for track Comprehension"):
        vm.import_release(root, SECRET)
    root = write_release(tmp_path / "b", videos=False)
    with pytest.raises(ImportReleaseError, match=r"video file\(s\) not found:\n  .*Perception/test-00000-of-00001"
                                                 r".parquet: row 1: 'validation_Accounting_13.mp4' \(looked in "):
        vm.import_release(root, SECRET)
    root = write_release(tmp_path / "c", question_only=False)
    with pytest.raises(ImportReleaseError, match=r"Adaptation/.*row 1: 'validation_Accounting_13_image.mp4'"):
        vm.import_release(root, SECRET)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "perception.parquet").write_bytes(b"not parquet")
    with pytest.raises(ImportReleaseError, match="perception.parquet: not a readable parquet file"):
        vm.import_release(tmp_path / "d", SECRET)


def test_open_question_outside_adaptation_is_refused(tmp_path):
    tracks = rows()
    for r in tracks["perception"]:
        r["question_type"] = "multiple-choice"
    tracks["perception"][2]["question_type"] = "open"
    write_release(tmp_path, tracks)
    with pytest.raises(ImportReleaseError, match="row 3: field 'question_type'"):
        vm.import_release(tmp_path, SECRET)


def test_options_stored_as_list_text(tmp_path):
    tracks = rows()
    for r in tracks["perception"]:
        r["options"] = repr(list(r["options"]))
    data = vm.import_release(write_release(tmp_path / "ok", tracks), SECRET)
    assert by_release(data)[0]["perception/validation_Accounting_13"].options == [f"choice {i}" for i in range(10)]
    tracks["perception"][1]["options"] = "force A; force B"
    write_release(tmp_path / "bad", tracks)
    with pytest.raises(ImportReleaseError, match=r"row 2: field 'options' must be a list of strings"):
        vm.import_release(tmp_path / "bad", SECRET)


# -- the GitHub JSON layout -------------------------------------------------------

def github_json(track, records):
    """One track as the GitHub repository's data/<track>_video.json holds it: one object
    keyed by the track, items keyed by their index as text, each with a YouTube link."""
    items = {str(i): {"id": r["id"], "link_selected": f"https://www.youtube.com/watch?v=x{i}",
                      **{k: v for k, v in r.items() if k != "id"}} for i, r in enumerate(records)}
    return json.dumps({track.title(): items}, indent=4)


def write_github_release(root, tracks):
    (root / "data").mkdir(parents=True)
    for track, records in tracks.items():
        (root / "data" / f"{track}_video.json").write_text(github_json(track, records))
    write_release_videos(root)
    return root


def write_release_videos(root):
    for source_id, folder in FOLDER.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{source_id}.mp4").write_bytes(b"lecture")
        (root / "question_only").mkdir(exist_ok=True)
        (root / "question_only" / f"{source_id}_image.mp4").write_bytes(b"still")


def github_rows():
    """The real quirks: no question_type outside Adaptation, options from 2 to 14, open
    items with no options, one null type, one "perception" type, and LaTeX commands whose
    backslash became a JSON escape (\\frac -> form feed + "rac", \\times -> tab + "imes")."""
    tracks = rows()
    tracks["perception"][0]["question"] = "Which is $\frac{a}{b}$ times $c \times d$?"
    tracks["perception"][0]["options"] = [f"$\x0crac{{{i}}}{{2}} \right)$" for i in range(10)]
    tracks["comprehension"][1]["options"] = ["x \to y", "y \to x"]
    tracks["comprehension"][1]["answer"] = "B"
    tracks["adaptation"][0]["question_type"] = None
    tracks["adaptation"][2]["question_type"] = "perception"
    return tracks


def test_import_github_json_layout(tmp_path):
    tracks = github_rows()
    data = vm.import_release(write_github_release(tmp_path, tracks), SECRET)
    raw = (tmp_path / "data" / "perception_video.json").read_text()
    assert '"Perception": {' in raw and '"0": {' in raw and "\\f" in raw  # the real shape, escapes as released
    qs, key = by_release(data)
    assert len(qs) == 9
    first = qs["perception/validation_Accounting_13"]
    assert first.question == "Which is $\\frac{a}{b}$ times $c \\times d$?"
    assert first.options[3] == "$\\frac{3}{2} \\right)$"
    assert not any(ch in text for q in data.questions for text in [q.question, *q.options] for ch in "\t\f\b\r")
    assert qs["comprehension/test_Physics_21"].options == ["x \\to y", "y \\to x"]
    assert key[qs["comprehension/test_Physics_21"].id].labels == ["B"]
    untyped = qs["adaptation/validation_Accounting_13"]
    assert untyped.question_type == vm.MCQ and len(untyped.options) == 10
    assert qs["adaptation/new_History_3"].question_type == vm.MCQ  # "perception": the official scorer's MCQ
    assert qs["adaptation/test_Physics_21"].question_type == vm.OPEN
    assert any("restored LaTeX backslashes" in n and "2 item(s)" in n for n in data.notes)
    # the same items, ids and answers as from the parquet layout with the same secret
    parquet = vm.import_release(write_release(tmp_path / "hf", tracks), SECRET)
    assert [q.id for q in parquet.questions] == [q.id for q in data.questions]
    assert [a.labels for a in parquet.answers] == [a.labels for a in data.answers]


def test_latex_repair_leaves_genuine_control_characters():
    assert vm.repair_latex_escapes("a\x0crac{1}{2} \x08eta \rho") == "a\\frac{1}{2} \\beta \\rho"
    assert vm.repair_latex_escapes("A \toD") == "A \\toD"  # "\to" then a capital: still a command
    # a real tab or line break before ordinary words is kept
    assert vm.repair_latex_escapes("Name\tAge\nnot\tthen") == "Name\tAge\nnot\tthen"


def test_public_ids_are_opaque_stable_and_unordered(tmp_path):
    root = write_release(tmp_path)
    a, b = vm.import_release(root, SECRET), vm.import_release(root, SECRET)
    assert [q.id for q in a.questions] == [q.id for q in b.questions]  # same secret, same ids
    other = vm.import_release(root, OTHER_SECRET)
    assert set(q.id for q in other.questions).isdisjoint(q.id for q in a.questions)
    public = " ".join(q.id + " " + q.video for q in a.questions) + " ".join(a.video_files)
    assert not any(part in public for release_id in IDS for part in release_id.split("_") if part.isalpha())
    assert all(re.fullmatch(r"[0-9a-f]{12}", q.id) for q in a.questions)
    assert all(re.fullmatch(r"videommmu-[0-9a-f]{12}(-question-only)?", v) for v in a.video_files)
    assert [q.id for q in a.questions] == sorted(q.id for q in a.questions)
    assert sorted(x.release_id for x in a.answers) == sorted(IDS * 3)
