"""Scoring the demo suite through the CLI with an LLM judge: a tiny model built
from a config runs real forward passes; its unparseable outputs are counted, the
result names the judge, and a second run takes every judgement from the cache."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from tiny_models import build_tiny_judge


@pytest.fixture(scope="module")
def silent_judge(tmp_path_factory):
    pytest.importorskip("torch")
    return build_tiny_judge(tmp_path_factory.mktemp("judge") / "silent", silent=True)


def test_llm_judge_scores_and_caches(demo_dir, silent_judge, tmp_path):
    preds = tmp_path / "p.jsonl"
    assert run_cli("baseline", "--suite", str(demo_dir / "suite"), "--name", "random",
                   "--out", str(preds)).returncode == 0
    cache = tmp_path / "cache.sqlite"
    args = ["score", "--suite", str(demo_dir / "suite"), "--answers", str(demo_dir / "answers"),
            "--predictions", str(preds), "--judge", f"llm:{silent_judge}", "--judge-cache", str(cache)]

    first = run_cli(*args, "--out", str(tmp_path / "r1.json"))
    assert first.returncode == 0, first.stderr
    result = json.loads((tmp_path / "r1.json").read_text())
    assert result["judge"] == {"id": f"llm:{silent_judge}@local", "kind": "llm"}
    # The silent model always answers "B": grade B (INCORRECT) for Video SimpleQA,
    # and no yes/no for ExpVid blanks, which are recorded as unparseable and counted.
    assert result["scores"]["videosimpleqa"]["correct"] == 0.0
    assert result["counts"]["expvid"]["judge_unparseable"] > 0
    assert result["scores"]["expvid"]["level3"] == 0.0
    assert result["counts"]["videosimpleqa"]["judge_unparseable"] == 0
    assert cache.is_file() and " new, 0 from the cache" in first.stdout

    second = run_cli(*args, "--out", str(tmp_path / "r2.json"))
    assert second.returncode == 0, second.stderr
    assert "judgements: 0 new" in second.stdout
    again = json.loads((tmp_path / "r2.json").read_text())
    assert again["scores"] == result["scores"]
