"""The aggregated leaderboard table: rows, upsert by submission id, concurrent
publishers, rebuild from the result files."""

from __future__ import annotations

import json
import threading

import pandas as pd
import pytest

from evaluator.baselines import predictions
from evaluator.benchmarks import ORDER
from evaluator.judges import get_judge
from evaluator.predictions import write_predictions
from evaluator.records import ScoringOptions
from evaluator.result import Result
from evaluator.scoring import score_file
from results import aggregate, disclosure
from results.aggregate import TABLE_PATH, load_table, rebuild, result_row, table_updated_at, upsert
from submissions.errors import ConflictError
from submissions.requests import Request
from submissions.stores import LocalStore


@pytest.fixture(scope="module")
def demo_results(demo_suite, tmp_path_factory) -> list[Result]:
    """Two real results on the demo suite: the random and first-option baselines."""
    suite, key = demo_suite
    out = tmp_path_factory.mktemp("preds")
    results = []
    for name in ("random", "first-option"):
        path = out / f"{name}.jsonl"
        write_predictions(path, predictions(name, suite.calls, seed=1))
        results.append(score_file(suite, key, path, get_judge("normalized-match"), ScoringOptions(),
                                  max_bytes=1 << 30, bootstrap_samples=200,
                                  submission={"id": f"sub-{name}", "model": f"model {name}",
                                              "submitter": "alice", "metadata": {"params_billions": "7.00"}}))
    return results


def with_id(result: Result, id: str, shift: float = 0.0) -> Result:
    """A copy under another submission id, every headline moved by `shift`."""
    copy = result.model_copy(deep=True)
    copy.submission["id"] = id
    for metrics in copy.scores.values():
        metrics["overall"] = round(metrics["overall"] + shift, 2)
    return copy


@pytest.fixture
def store(tmp_path) -> LocalStore:
    return LocalStore(tmp_path / "results", "results")


def test_row_is_flat_and_complete(demo_results):
    result = demo_results[0]
    request = Request(id="sub-random", kind="predictions", submitter="alice", suite_id=result.suite_id,
                      model="model random", precision="bfloat16", thinking=True)
    row = result_row(result, request)

    assert row["id"] == "sub-random" and row["model"] == "model random" and row["submitter"] == "alice"
    assert row["kind"] == "predictions" and row["suite_id"] == result.suite_id
    assert row["judge_id"] == result.judge["id"] and row["judge_kind"] == "normalized-match"
    assert row["runner"] == "predictions-file" and row["source"] == "verified"
    assert row["file_sha256"] == result.submission["file_sha256"]
    assert row["thinking"] is True and row["precision"] == "bfloat16"  # from the request
    assert row["params"] == "7.00" and row["meta.params_billions"] == "7.00"
    for name in ORDER:
        metrics = result.scores[name]
        assert row[f"{name}.overall"] == metrics["overall"]
        assert (row[f"{name}.overall_ci_low"], row[f"{name}.overall_ci_high"]) == tuple(metrics["overall_ci95"])
        assert row[f"{name}.n_calls"] == result.counts[name]["calls"]
    # breakdowns as published: small buckets hidden (LEADERBOARD_MIN_BUCKET_ITEMS, default 10)
    public = disclosure.public(result, 10).scores
    assert row["expvid.level1"] == result.scores["expvid"]["level1"]  # 30 items: shown
    assert json.loads(row["expvid.by_discipline"]) == public["expvid"]["by_discipline"]
    assert json.loads(row["videosimpleqa.by_hop"]) == public["videosimpleqa"]["by_hop"]
    assert public["videosimpleqa"]["by_hop"]["4"] is None  # the demo's one 4-hop item
    assert json.loads(row["videosimpleqa.suppressed"]) == public["videosimpleqa"]["suppressed"]
    assert json.loads(row["scores_json"]) == public
    expected_average = round(sum(result.scores[n]["overall"] for n in ORDER) / len(ORDER), 2)
    assert row["average"] == expected_average
    # every cell is a scalar: the table has no nested values
    assert all(v is None or isinstance(v, (str, int, float, bool)) for v in row.values())


def test_average_only_when_all_five_exist(demo_results):
    partial = demo_results[0].model_copy(deep=True)
    del partial.scores["exact"]
    row = result_row(partial)
    assert row["average"] is None
    assert "exact.overall" not in row and row["expvid.overall"] == partial.scores["expvid"]["overall"]


def test_runner_settings_are_flattened(demo_results):
    result = demo_results[0].model_copy(deep=True)
    result.runner = {"name": "transformers", "frames": 32, "dtype": "bfloat16", "decoding": {"temperature": 0}}
    row = result_row(result)
    assert row["runner"] == "transformers" and row["runner.frames"] == 32 and row["runner.dtype"] == "bfloat16"
    assert json.loads(row["runner.decoding"]) == {"temperature": 0}


def test_empty_store_gives_an_empty_table(store):
    frame = load_table(store)
    assert len(frame) == 0 and "id" in frame.columns
    assert table_updated_at(store) is None


def test_upsert_inserts_then_replaces_by_id(store, demo_results):
    first, second = demo_results
    upsert(store, first)
    upsert(store, second)
    frame = load_table(store)
    assert sorted(frame["id"]) == ["sub-first-option", "sub-random"]
    assert frame["expvid.overall"].dtype == "float64"

    rerun = with_id(first, "sub-random", shift=1.0)  # a rerun of the same submission
    upsert(store, rerun)
    frame = load_table(store)
    assert len(frame) == 2
    row = frame.set_index("id").loc["sub-random"]
    assert row["expvid.overall"] == rerun.scores["expvid"]["overall"] != first.scores["expvid"]["overall"]
    assert frame.attrs["updated_at"] is not None
    assert table_updated_at(store) is not None


class RaceStore:
    """A store whose first read of the table, in every thread, waits until all the
    threads have read it: every thread then swaps against the same version, so all
    but one must conflict and retry."""

    def __init__(self, inner, threads: int):
        self.inner = inner
        self.name = inner.name
        self.barrier = threading.Barrier(threads, timeout=60)
        self.seen = threading.local()
        self.conflicts = 0
        self.lock = threading.Lock()

    def read(self, path):
        found = self.inner.read(path)
        if path == TABLE_PATH and not getattr(self.seen, "done", False):
            self.seen.done = True
            self.barrier.wait()
        return found

    def write_files(self, files, expected=None, message=""):
        try:
            return self.inner.write_files(files, expected, message)
        except ConflictError:
            with self.lock:
                self.conflicts += 1
            raise

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_concurrent_upserts_lose_nothing(store, demo_results):
    n = 12
    race = RaceStore(store, n)
    errors = []

    def publish(i):
        try:
            upsert(race, with_id(demo_results[i % 2], f"sub-{i:02d}", shift=i / 10))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=publish, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert race.conflicts >= n - 1  # they really raced
    frame = load_table(store)
    assert sorted(frame["id"]) == [f"sub-{i:02d}" for i in range(n)]


def test_upsert_gives_up_with_a_clear_message(store, demo_results, monkeypatch):
    class AlwaysConflicts:
        name = "results"

        def read(self, path):
            return store.read(path)

        def write_files(self, files, expected=None, message=""):
            raise ConflictError("someone wrote")

    monkeypatch.setattr(aggregate, "CONFLICT_RETRIES", 3)
    with pytest.raises(ConflictError, match="gave up updating leaderboard.parquet"):
        upsert(AlwaysConflicts(), demo_results[0])


def test_rebuild_equals_the_upserts(store, demo_results):
    for i in range(6):
        result = with_id(demo_results[i % 2], f"sub-{i}", shift=i)
        store.write(f"sub-{i}.json", result.model_dump_json().encode())
        upsert(store, result)
    store.write("notes/readme.json", b"{}")  # not a result: in a folder
    store.write("broken.json", b"{not json")  # unreadable: skipped with a warning
    upserted = load_table(store)

    store.delete(TABLE_PATH)
    rebuilt = rebuild(store)
    pd.testing.assert_frame_equal(load_table(store), upserted)
    pd.testing.assert_frame_equal(rebuilt.reset_index(drop=True), upserted)


def test_rebuild_keeps_one_row_per_submission(store, demo_results):
    old, new = with_id(demo_results[0], "sub-x"), with_id(demo_results[1], "sub-x", shift=2)
    old.created, new.created = "2025-01-01T00:00:00+00:00", "2025-06-01T00:00:00+00:00"
    store.write("sub-x.json", new.model_dump_json().encode())
    store.write("sub-x-copy.json", old.model_dump_json().encode())
    frame = rebuild(store)
    assert list(frame["id"]) == ["sub-x"]
    assert frame["expvid.overall"].iloc[0] == new.scores["expvid"]["overall"]


def test_a_column_that_changes_kind_keeps_both_rows(store, demo_results):
    old = demo_results[0].model_copy(deep=True)
    old.runner = {"name": "transformers", "frames": "auto"}
    new = with_id(demo_results[0], "sub-new")
    new.runner = {"name": "transformers", "frames": 32}
    upsert(store, old)
    upsert(store, new)
    frame = load_table(store).set_index("id")
    assert frame.loc["sub-random", "runner.frames"] == "auto" and frame.loc["sub-new", "runner.frames"] == "32"
