"""The demo suite end to end through the real CLI: demo-suite -> template ->
predictions -> score, for all five benchmarks; and nothing public reveals an answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from evaluator import video

KEYS = {
    "expvid": ["overall", "level1", "level2", "level3", "tool", "material", "quantity", "operation",
               "ordering", "generation", "verification", "prediction", "analysis", "discovery",
               "by_discipline"],
    "causalstep": ["overall", "csr", "amcl", "mcl", "rf", "ws", "dua", "icra", "by_category"],
    "exact": ["overall", "good_execution", "tips", "by_domain", "by_activity"],
    "videommmu": ["overall", "perception", "comprehension", "adaptation", "delta_knowledge",
                  "wrong_to_right", "right_to_wrong", "by_discipline"],
    "videosimpleqa": ["overall", "correct", "incorrect", "not_attempted", "cga", "ece", "by_hop",
                      "by_category"],
}


@pytest.fixture(scope="module")
def cli_demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli-demo")
    proc = run_cli("demo-suite", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_demo_suite_has_real_videos_and_separate_answers(cli_demo):
    suite = json.loads((cli_demo / "suite" / "suite.json").read_text())
    assert set(suite["benchmarks"]) == set(KEYS)
    videos = sorted((cli_demo / "suite" / "videos").glob("*.mp4"))
    assert len(videos) >= 20
    for path in videos[:: max(1, len(videos) // 8)]:
        info = video.probe(path)  # a real decoder reads them
        assert info.frame_count > 0 and info.width == 96
    assert not list((cli_demo / "suite").rglob("answers.jsonl"))
    assert (cli_demo / "answers" / "answers.json").is_file()
    assert suite["id"].startswith("demo-v1-")


def test_demo_suite_is_reproducible_only_from_its_secret(cli_demo, tmp_path):
    def suite_id(folder: Path) -> str:
        return json.loads((folder / "suite" / "suite.json").read_text())["id"]

    again = tmp_path / "again"
    assert run_cli("demo-suite", "--out", str(again), "--secret-from", str(cli_demo)).returncode == 0
    assert suite_id(again) == suite_id(cli_demo)  # same content hash, videos included
    fresh = tmp_path / "fresh"
    assert run_cli("demo-suite", "--out", str(fresh)).returncode == 0
    assert suite_id(fresh) != suite_id(cli_demo)  # a fresh secret: other option orders


def answer_from_template(record: dict) -> list[dict]:
    """A stand-in 'model' that reads only the template: always the last option, or a
    fixed text; in-context calls answered once per possible context label."""
    labels = record.get("labels") or []
    if record["answer_format"] == "choice":
        response = f"Let me think step by step... so the final answer is \\boxed{{{labels[-1]}}}"
    elif record["answer_format"] == "short":
        response = '{"answer": "a small mammal", "confidence_score": 40}'
    else:
        response = "\\boxed{1, 2}"
    if record.get("context"):
        return [{"id": record["id"], "response": response, "context": label}
                for label in record["context"]["choices"]]
    return [{"id": record["id"], "response": response}]


def test_template_predictions_score(cli_demo, tmp_path):
    calls_path = tmp_path / "calls.jsonl"
    proc = run_cli("template", "--suite", str(cli_demo / "suite"), "--out", str(calls_path))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in calls_path.read_text().splitlines()]
    assert {r["benchmark"] for r in records} == set(KEYS)
    for r in records:
        for plan in r["frames"]:
            assert (cli_demo / "suite" / plan["file"]).is_file()
            assert plan["times"] == sorted(plan["times"])

    preds = tmp_path / "preds.jsonl"
    with open(preds, "w") as f:
        for r in records:
            for p in answer_from_template(r):
                f.write(json.dumps(p) + "\n")
    out = tmp_path / "result.json"
    proc = run_cli("score", "--suite", str(cli_demo / "suite"), "--answers", str(cli_demo / "answers"),
                   "--predictions", str(preds), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    matcher = {"id": "normalized-match@5", "kind": "normalized-match"}
    assert result["judge"] == matcher | {"by_benchmark": {"expvid": matcher, "videosimpleqa": matcher}}
    for bench, keys in KEYS.items():
        scores = result["scores"][bench]
        for key in keys:
            assert key in scores, (bench, key)
        assert 0 <= scores["overall"] <= 100
        low, high = scores["overall_ci95"]
        assert low <= scores["overall"] <= high
        assert result["counts"][bench]["missing"] == 0, bench


@pytest.mark.parametrize("name", ["random", "first-option"])
def test_baselines_through_cli(cli_demo, tmp_path, name):
    preds = tmp_path / f"{name}.jsonl"
    proc = run_cli("baseline", "--suite", str(cli_demo / "suite"), "--name", name, "--out", str(preds))
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "r.json"
    proc = run_cli("score", "--suite", str(cli_demo / "suite"), "--answers", str(cli_demo / "answers"),
                   "--predictions", str(preds), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert set(result["scores"]) == set(KEYS)
    for bench in KEYS:
        assert result["counts"][bench]["missing"] == 0, bench
        assert result["scores"][bench]["overall"] < 100, bench


def test_score_with_wrong_answer_key(cli_demo, tmp_path):
    other = tmp_path / "other"
    assert run_cli("demo-suite", "--out", str(other)).returncode == 0  # a fresh secret: another suite
    preds = tmp_path / "p.jsonl"
    run_cli("baseline", "--suite", str(cli_demo / "suite"), "--name", "random", "--out", str(preds))
    proc = run_cli("score", "--suite", str(cli_demo / "suite"), "--answers", str(other / "answers"),
                   "--predictions", str(preds), "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 2 and "belongs to suite" in proc.stderr and "Traceback" not in proc.stderr
