"""ExAct: importer on fixtures in the official layout, fixed option orders, and the
paper's Table 2 per-domain correct counts reproduced by the scorer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import OTHER_SECRET, SECRET

from evaluator.benchmarks import exact
from evaluator.errors import ImportReleaseError
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.records import Prediction, Responses, ScoringContext

CTX = ScoringContext(judge=NormalizedMatchJudge())


def write_release(root, records, videos=True):
    data = root / "data"
    data.mkdir(parents=True)
    with open(data / "metadata.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    if videos:
        for r in records:
            (data / r["file_name"]).write_bytes(b"not decoded by the importer")
    return root


def record(i, activity="basketball", is_ge=False):
    return {"file_name": f"{activity}_tips_take{i}_12.5.mp4", "id": f"{activity}_tips_take{i}_12.5",
            "domain": activity, "is_ge": is_ge, "groundTruth": f"Gold comment {i}",
            "negative_comments": [f"Wrong comment {i}.{k}" for k in range(4)],
            "take_name": f"take{i}", "video_time": 12.5, "task_name": "Basketball Drills - Mikan Layup"}


def test_import_official_layout(tmp_path):
    root = write_release(tmp_path, [record(0), record(1, "piano", True), record(2, "cpr")])
    data = exact.import_release(root, SECRET)
    release = {a.id: a.release_id for a in data.answers}
    by_release = {release[q.id]: q for q in data.questions}
    assert [by_release[r["id"]].domain for r in (record(0), record(1, "piano"), record(2, "cpr"))] == \
        ["Sports", "Music", "Health"]
    assert by_release[record(1, "piano")["id"]].category == "good_execution"
    assert sorted(q.category for q in data.questions) == ["good_execution", "tips", "tips"]
    for q, a in zip(data.questions, data.answers):
        # the gold comment sits where the hidden label says, and only there
        assert q.options[int(a.label) - 1].startswith("Gold comment")
        assert sum(o.startswith("Gold") for o in q.options) == 1
        assert "take" not in q.video  # opaque video ids: file names carry take names
    assert all(path.endswith(".mp4") for path in data.video_files.values())


def test_option_order_is_fixed_and_drawn_from_the_secret(tmp_path):
    root = write_release(tmp_path, [record(i) for i in range(30)])
    a = exact.import_release(root, SECRET)
    b = exact.import_release(root, SECRET)
    assert [q.options for q in a.questions] == [q.options for q in b.questions]
    labels = [x.label for x in a.answers]
    assert len(set(labels)) > 1, "the gold option must not always sit at the same place"
    c = exact.import_release(root, OTHER_SECRET)
    assert [q.options for q in c.questions] != [q.options for q in a.questions]


@pytest.mark.parametrize("change, message", [
    ({"negative_comments": ["only one"]}, "'negative_comments' must be a list of 4 strings"),
    ({"groundTruth": None}, "field 'groundTruth' has the wrong type"),
    ({"is_ge": "yes"}, "field 'is_ge' has the wrong type"),
])
def test_bad_fixture_names_file_line_and_field(tmp_path, change, message):
    records = [record(0), record(1) | change]
    root = write_release(tmp_path, records)
    with pytest.raises(ImportReleaseError) as info:
        exact.import_release(root, SECRET)
    assert "metadata.jsonl:2" in str(info.value) and message in str(info.value)


@pytest.mark.parametrize("spelling, activity", [
    ("rock_climbing", "bouldering"), ("Rock Climbing", "bouldering"), ("Bouldering", "bouldering"),
    ("bike_repair", "bike"), ("Bike Repair", "bike"), ("Covid-19 Safety", "covid-safety"),
    ("COVID_19", "covid-safety"), ("First Aid - CPR", "cpr"), ("Playing Guitar", "guitar"),
    ("pianos", "piano"), ("Dancing", "dance"), ("basketball", "basketball"), ("SOCCER", "soccer"),
])
def test_activity_spellings_normalise(tmp_path, spelling, activity):
    assert exact.normalise_activity(spelling) == activity
    data = exact.import_release(write_release(tmp_path, [record(0, spelling)]), SECRET)
    assert data.questions[0].activity == activity
    assert data.questions[0].domain == exact.ACTIVITY_DOMAIN[activity]
    if spelling != activity:
        assert any(f"'{spelling}' read as {activity}" in note for note in data.notes)


def test_unmapped_activities_are_listed_all_at_once(tmp_path):
    records = [record(0), record(1, "chess"), record(2, "juggling"), record(3, "chess"), record(4, "rock_climbing")]
    with pytest.raises(ImportReleaseError) as info:
        exact.import_release(write_release(tmp_path, records), SECRET)
    message = str(info.value)
    assert "2 value(s) name none of the 11 activities" in message
    assert "'chess': 2 item(s), first at " in message and "metadata.jsonl:2" in message
    assert "'juggling': 1 item(s), first at " in message and "metadata.jsonl:3" in message
    assert "rock_climbing" not in message and "ACTIVITY_ALIASES" in message


def test_public_ids_are_opaque_stable_and_unordered(tmp_path):
    records = [record(i, activity) for i, activity in enumerate(["dance", "piano", "cpr", "soccer"] * 3)]
    records[0] |= {"file_name": "dance_tips_upenn_0713_Dance_4_4_27.165818.mp4",
                   "id": "dance_tips_upenn_0713_Dance_4_4_27.165818"}
    root = write_release(tmp_path, records)
    a, b = exact.import_release(root, SECRET), exact.import_release(root, SECRET)
    assert [q.id for q in a.questions] == [q.id for q in b.questions]
    assert [q.video for q in a.questions] == [q.video for q in b.questions]
    other = exact.import_release(root, OTHER_SECRET)
    assert {q.id for q in other.questions}.isdisjoint(q.id for q in a.questions)
    public = " ".join(f"{q.id} {q.video} {exact.call_id(q.id)}" for q in a.questions)
    for word in ("upenn", "0713", "27.16", "take", "tips", "dance"):
        assert word not in public
    assert [q.id for q in a.questions] == sorted(q.id for q in a.questions)
    assert [q.activity for q in a.questions] != [r["domain"] for r in records]  # not in release order
    assert {x.release_id for x in a.answers} == {r["id"] for r in records}


def test_missing_video_and_missing_metadata(tmp_path):
    with pytest.raises(ImportReleaseError, match="file not found"):
        exact.import_release(tmp_path, SECRET)
    root = write_release(tmp_path / "r", [record(0)], videos=False)
    with pytest.raises(ImportReleaseError, match=r"1 video file\(s\) not found:\n  .*metadata.jsonl:1: '.*mp4' \(looked in "):
        exact.import_release(root, SECRET)


# Table 2 of the paper, as correct counts per domain: the scorer must
# turn them back into the printed accuracies.
DOMAIN_N = {"Sports": 1569, "Bike Repair": 309, "Cooking": 365, "Health": 364, "Music": 475, "Dance": 439}
TABLE2 = {
    "GPT-4o": ((682, 163, 169, 194, 161, 205), 44.70, (43.47, 52.75, 46.30, 53.30, 33.89, 46.70)),
    "Gemini 1.5 Pro": ((672, 161, 189, 150, 199, 175), 43.91, (42.83, 52.10, 51.78, 41.21, 41.89, 39.86)),
    "Human Expert": ((1288, 251, 293, 317, 381, 358), 82.02, (82.09, 81.23, 80.27, 87.09, 80.21, 81.55)),
    "LLaVA-Video-72B": ((656, 132, 161, 118, 184, 213), 41.58, (41.81, 42.72, 44.11, 32.42, 38.74, 48.52)),
}
ACTIVITY_OF = {"Sports": "basketball", "Bike Repair": "bike", "Cooking": "cooking", "Health": "covid-safety",
               "Music": "violin", "Dance": "dance"}


def paper_size_items():
    questions, answers = [], []
    for domain, n in DOMAIN_N.items():
        for i in range(n):
            q, a = exact.make_item(f"{domain}-{i}", f"v-{domain}-{i}", ACTIVITY_OF[domain], i % 2 == 0, "",
                               "gold", ["w1", "w2", "w3", "w4"], SECRET)
            questions.append(q)
            answers.append(a)
    return questions, answers


@pytest.mark.parametrize("model", list(TABLE2))
def test_table2_domain_counts(model):
    counts, overall, per_domain = TABLE2[model]
    questions, answers = paper_size_items()
    gold = {a.id: a.label for a in answers}
    remaining = dict(zip(DOMAIN_N, counts))
    preds = {}
    for q in questions:
        right = remaining[q.domain] > 0
        remaining[q.domain] -= right
        label = gold[q.id] if right else next(x for x in exact.LABELS if x != gold[q.id])
        preds[exact.call_id(q.id)] = Prediction(exact.call_id(q.id), f"The answer is Option {label}.")
    score = exact.score(questions, answers, Responses(preds), CTX)
    assert len(questions) == 3521
    assert score.metrics["overall"] == overall
    for domain, expected in zip(DOMAIN_N, per_domain):
        assert score.metrics["by_domain"][domain] == expected, domain
    assert score.metrics["n_by_domain"] == DOMAIN_N
    sums = score.video_stats.sum(0, keepdims=True)
    assert np.isclose(score.overall_from(sums)[0], 100 * sum(counts) / 3521)


def test_categories_activities_missing_and_unparseable():
    questions, answers = paper_size_items()
    questions, answers = questions[:4] + questions[-2:], answers[:4] + answers[-2:]
    gold = {a.id: a.label for a in answers}
    preds = {
        exact.call_id(questions[0].id): Prediction("x", gold[questions[0].id]),  # right, GE
        exact.call_id(questions[1].id): Prediction("x", gold[questions[1].id]),  # right, tips
        exact.call_id(questions[2].id): Prediction("x", "I cannot tell from these frames."),  # unparseable
        # questions[3] missing; the two dance items wrong
        exact.call_id(questions[4].id): Prediction("x", "6"),
        exact.call_id(questions[5].id): Prediction("x", next(x for x in exact.LABELS if x != gold[questions[5].id])),
    }
    m = exact.score(questions, answers, Responses(preds), CTX)
    assert m.metrics["overall"] == pytest.approx(100 * 2 / 6, abs=0.01)
    assert m.metrics["good_execution"] == pytest.approx(100 * 1 / 3, abs=0.01)
    assert m.metrics["tips"] == pytest.approx(100 * 1 / 3, abs=0.01)
    assert m.metrics["by_activity"] == {"basketball": 50.0, "dance": 0.0}
    assert m.counts["missing"] == 1 and m.counts["unparseable"] == 2 and m.counts["items"] == 6
