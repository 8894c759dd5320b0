"""Publishing suites into the stores and the embedded default's first start."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd

from conftest import ROOT
from results import aggregate
from submissions.stores import Stores
from worker.suites import baseline_id, first_start


def test_first_start_publishes_demo_and_baselines_once(tmp_path):
    stores = Stores.local(tmp_path)
    suite_id = first_start(stores)
    assert suite_id.startswith("demo-v1-")
    assert stores.suite.read(f"{suite_id}/calls.jsonl") is not None
    assert stores.answers.read(f"{suite_id}/answers.json") is not None
    assert stores.suite.read(f"{suite_id}/answers.json") is None  # the key never lands in the public store
    table = aggregate.load_table(stores.results)
    assert sorted(table["id"]) == sorted(baseline_id(n, suite_id) for n in ("random", "first-option"))
    assert table["average"].notna().all() and (table["source"] == "verified").all()
    version = stores.results.read(aggregate.TABLE_PATH).version

    assert first_start(stores) == suite_id  # a restart changes nothing
    assert stores.results.read(aggregate.TABLE_PATH).version == version


def test_publish_suite_cli(tmp_path):
    env = dict(os.environ, LEADERBOARD_HOME=str(tmp_path / "home"))
    run = lambda *a: subprocess.run([sys.executable, "-m", "evaluator", *a], cwd=ROOT, env=env,
                                    capture_output=True, text=True)
    assert run("demo-suite", "--out", str(tmp_path / "built")).returncode == 0
    proc = run("publish-suite", str(tmp_path / "built"))
    assert proc.returncode == 0, proc.stderr
    suite_id = proc.stdout.split()[2].rstrip(":")
    assert (tmp_path / "home" / "suite" / suite_id / "calls.jsonl").is_file()
    assert (tmp_path / "home" / "answers" / suite_id / "answers.json").is_file()

    # an answer key of another suite is refused, nothing published
    assert run("demo-suite", "--out", str(tmp_path / "other")).returncode == 0
    (tmp_path / "built" / "answers").rename(tmp_path / "keep")
    (tmp_path / "other" / "answers").rename(tmp_path / "built" / "answers")
    proc = run("publish-suite", str(tmp_path / "built"))
    assert proc.returncode == 2 and "belongs to suite" in proc.stderr and "Traceback" not in proc.stderr
    assert isinstance(aggregate.load_table(Stores.local(tmp_path / "home").results), pd.DataFrame)
