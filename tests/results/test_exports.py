"""Open exports (results/exports.py) and a model run's raw outputs
(evaluator/raw_outputs.py, leaderboard/downloads.py), on a real local deployment: the
demo suite published and the baselines scored by worker.suites.first_start, real
workers publishing into real folders.

- the snapshot files read back (JSON and Parquet) equal the aggregated table and the
  public result files; they are written in the same store step as the table;
- they hold no answer-key text, no call or item id, no per-item list;
- small buckets are hidden in them even when the table row was published without;
- a model run's raw outputs are staged with its result, form a valid prediction file,
  and leave out the worker-only calls; only their submitter gets them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from test_no_leaks import contains_any, secrets

from evaluator import raw_outputs
from worker import run as run_module  # the module whose get_runner the worker calls
from evaluator.baselines import predictions
from evaluator.predictions import parse_predictions, write_predictions
from evaluator.records import Prediction
from evaluator.result import Result
from evaluator.suite import load_answers, load_suite
from worker.loop import Worker
from worker.publish import staged_result_path
from results import aggregate, disclosure, exports
from leaderboard import downloads, reported_export, views
from leaderboard.errors import DownloadRefused, SnapshotNotFound
from results.errors import ExportError
from space_config.settings import Quotas, get_settings
from submissions.queue import Queue
from submissions.requests import Request, Status
from submissions.stores import Stores
from submissions.submit import Identity, read_calls, submit_predictions
from worker.suites import first_start

OWNER, OTHER = "model-owner", "someone-else"


# -- a deployment -------------------------------------------------------------------------------------

class Recording:
    """A store that notes every write_files call (one call = one commit on the Hub)."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.writes: list[list[str]] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def write_files(self, files, expected=None, message=""):
        self.writes.append(list(files))
        return self.inner.write_files(files, expected, message)


@pytest.fixture
def deployment(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("LEADERBOARD_HOME", str(home))
    monkeypatch.setenv("LEADERBOARD_STORE", "local")
    monkeypatch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "50")
    get_settings.cache_clear()
    local = Stores.local(home)
    suite_id = first_start(local)
    stores = dataclasses.replace(local, results=Recording(local.results), private=Recording(local.private))
    yield stores, suite_id
    get_settings.cache_clear()


def settings():
    base = get_settings()
    return dataclasses.replace(base, quotas=Quotas(per_user=100, per_org=100, pending_per_user=100))


def suite_and_key(stores, suite_id):
    suite = load_suite(stores.suite.local_folder(suite_id))
    return suite, load_answers(stores.answers.local_folder(suite_id), suite)


def submit_file(stores, suite, tmp_path: Path, seed: int, user: str = OWNER) -> Request:
    path = tmp_path / f"random-{seed}.jsonl"
    write_predictions(path, predictions("random", suite.calls, seed=seed))
    return submit_predictions(stores, settings(), Identity(user), path, f"random {seed}", suite_id=suite.id)


def read(store, path: str) -> bytes:
    found = store.read(path)
    assert found is not None, f"{path} is not in the {store.name} store"
    return found.data


def snapshot(stores, suite_id):
    data = read(stores.results, exports.json_path(suite_id))
    return data, exports.read_json(data), exports.read_parquet(read(stores.results, exports.parquet_path(suite_id)))


# -- round trips ---------------------------------------------------------------------------------------------

def test_snapshots_read_back_equal_the_table_and_the_result_files(deployment, tmp_path):
    stores, suite_id = deployment
    suite, _ = suite_and_key(stores, suite_id)
    submitted = submit_file(stores, suite, tmp_path, seed=1)
    stores.results.writes.clear()
    assert Worker(stores, settings()).run_once().status == Status.FINISHED

    # the result file, its row, the suite's snapshot and the index: one store step (one Hub commit)
    publishing = [w for w in stores.results.writes if aggregate.TABLE_PATH in w]
    assert len(publishing) == 1 and len(stores.results.writes) == 1
    assert {aggregate.result_path(submitted.id), exports.json_path(suite_id), exports.parquet_path(suite_id),
            exports.INDEX_PATH} <= set(publishing[0])
    assert publishing[0][-1] == aggregate.TABLE_PATH  # installed last: a reader never sees a row before its files

    data, (header, from_json), (parquet_header, from_parquet) = snapshot(stores, suite_id)
    table = aggregate.load_table(stores.results)
    assert header == parquet_header and header.rows == 3 == len(table)
    assert header.suite_id == suite_id and header.schema_version == exports.EXPORT_SCHEMA_VERSION
    assert header.judges == sorted(set(table["judge_id"])) and header.min_bucket_items == 10
    assert header.table_updated_at == table.attrs["updated_at"]
    assert from_json.equals(from_parquet)  # JSON and Parquet hold the same table
    # and it is the leaderboard's: its rows in the Leaderboard's order, with its ranks and bands first
    check_standing(from_parquet.to_pandas(), table, suite_id)
    pd.testing.assert_frame_equal(unranked(from_parquet.to_pandas()), table)
    pd.testing.assert_frame_equal(unranked(pd.read_parquet(stores.results.local_folder(".")
                                                           / exports.parquet_path(suite_id))), table)

    # each JSON record carries its result's public scores, as the result file has them
    document = json.loads(data)
    assert all(isinstance(r["rank"], int) and isinstance(r["band"], int) for r in document["results"])
    for record in document["results"]:
        result = Result.model_validate_json(read(stores.results, aggregate.result_path(record["id"])))
        assert record["scores"] == result.scores
        kept = ("calls", "answered", "judge_unscored")  # judge_unscored: the judged benchmarks' only
        assert record["counts"] == {b: {k: c[k] for k in kept if k in c and (k != "judge_unscored" or b in
                                                                            ("expvid", "videosimpleqa"))}
                                    for b, c in result.counts.items()}
        # counts are whole numbers in the JSON text too ("calls": 120, never 120.0)
        assert all(type(n) is int for counts in record["counts"].values() for n in counts.values())
        assert record["code_version"] == result.code_version and record["suite_id"] == result.suite_id

    index = exports.ExportIndex.model_validate_json(read(stores.results, exports.INDEX_PATH))
    assert [(e.suite_id, e.table_version, e.rows) for e in index.suites] == [(suite_id, header.table_version, 3)]


def unranked(flat: pd.DataFrame) -> pd.DataFrame:
    """A snapshot's flat table as the aggregated table holds it: no rank or band, rows by id."""
    return flat.drop(columns=list(exports.STANDING)).sort_values("id", kind="stable").reset_index(drop=True)


def check_standing(flat: pd.DataFrame, table: pd.DataFrame, suite_id: str) -> None:
    """The snapshot's rows carry the rank and band the Leaderboard shows, ordered by rank
    (equal ranks, then the unranked rows, in the Leaderboard's order)."""
    board = views.prepare(views.select_suite(table, suite_id))
    board = board.sort_values("rank", na_position="last", kind="stable")
    assert list(flat.columns[:2]) == list(exports.STANDING)
    assert list(flat["id"]) == list(board["id"])

    def ints(values):
        return [None if pd.isna(v) else int(v) for v in values]
    assert ints(flat["rank"]) == ints(board["rank"]) and ints(flat["band"]) == ints(board["band"])
    assert ints(flat["rank"]) == sorted(ints(flat["rank"]), key=lambda v: (v is None, v or 0))


def test_the_version_changes_exactly_when_the_suites_rows_do(deployment, tmp_path):
    stores, suite_id = deployment
    suite, _ = suite_and_key(stores, suite_id)
    _, (before, _), _ = snapshot(stores, suite_id)
    again = aggregate.read_results(stores.results)[0]
    aggregate.upsert(stores.results, again)  # the same row again: same content, same version
    _, (same, _), _ = snapshot(stores, suite_id)
    assert same.table_version == before.table_version
    submit_file(stores, suite, tmp_path, seed=2)
    Worker(stores, settings()).run_once()
    _, (after, _), _ = snapshot(stores, suite_id)
    assert after.table_version != before.table_version and after.rows == before.rows + 1


def test_only_the_changed_suites_snapshot_is_written_again(deployment):
    stores, suite_id = deployment
    base = aggregate.read_results(stores.results)[0]
    other = base.model_copy(update={"suite_id": "other-v1-0123456789ab",
                                    "submission": {**base.submission, "id": "other-row"}})
    aggregate.publish(stores.results, other)
    assert exports.json_path("other-v1-0123456789ab") in stores.results.writes[-1]
    _, (demo_before, _), _ = snapshot(stores, suite_id)

    moved = base.model_copy(update={"submission": {**base.submission, "id": "another-row"}})
    aggregate.publish(stores.results, moved)
    written = set(stores.results.writes[-1])
    assert exports.json_path(suite_id) in written and exports.json_path("other-v1-0123456789ab") not in written
    _, (demo_after, _), _ = snapshot(stores, suite_id)
    assert demo_after.rows == demo_before.rows + 1
    index = exports.ExportIndex.model_validate_json(read(stores.results, exports.INDEX_PATH))
    assert {e.suite_id: e.rows for e in index.suites} == {suite_id: demo_after.rows, "other-v1-0123456789ab": 1}

    aggregate.rebuild(stores.results)  # a rebuild writes every suite again
    assert {exports.json_path(suite_id), exports.json_path("other-v1-0123456789ab")} <= set(stores.results.writes[-1])


def test_a_table_from_before_exports_gets_every_suite_exported_at_its_next_change(deployment):
    stores, suite_id = deployment
    table = aggregate.read_arrow(read(stores.results, aggregate.TABLE_PATH))
    old = table.replace_schema_metadata({aggregate.UPDATED_AT_KEY: b"2026-01-01T00:00:00+00:00"})
    stores.results.inner.write(aggregate.TABLE_PATH, aggregate.to_parquet(old))
    stores.results.inner.delete(exports.json_path(suite_id))
    # the site serves it meanwhile, built from the table the same way
    built = downloads.Snapshots(stores.results).json(suite_id)
    expected = aggregate.read_arrow(aggregate.to_parquet(old)).replace_schema_metadata(None).to_pandas()
    pd.testing.assert_frame_equal(unranked(exports.read_json(built)[1].to_pandas()), expected)
    other = aggregate.read_results(stores.results)[0].model_copy(update={"suite_id": "other-v1-0123456789ab"})
    aggregate.publish(stores.results, other.model_copy(update={"submission": {**other.submission, "id": "x1"}}))
    assert exports.json_path(suite_id) in stores.results.writes[-1]


def test_snapshots_of_an_older_format_are_served_anew_and_written_again_at_the_next_change(deployment):
    """An index entry written before snapshots carried rank and band (schema 1): the site
    builds the current snapshot from the table instead of serving the stored one, and the
    worker writes it again at the suite's next change, whichever row changed."""
    stores, suite_id = deployment
    table = aggregate.read_arrow(read(stores.results, aggregate.TABLE_PATH))
    entries = json.loads(table.schema.metadata[exports.INDEX_KEY])
    old_entries = [{k: v for k, v in e.items() if k != "schema_version"} for e in entries]
    old = table.replace_schema_metadata({**table.schema.metadata, exports.INDEX_KEY: json.dumps(old_entries).encode()})
    stores.results.inner.write(aggregate.TABLE_PATH, aggregate.to_parquet(old))
    stores.results.inner.write(exports.json_path(suite_id), b'{"schema_version": 1, "results": []}')
    snapshots = downloads.Snapshots(stores.results)
    header, _ = exports.read_json(snapshots.json(suite_id))
    assert header.schema_version == exports.EXPORT_SCHEMA_VERSION and header.rows == 2
    assert [e.schema_version for e in snapshots.index().suites] == [exports.EXPORT_SCHEMA_VERSION]
    other = aggregate.read_results(stores.results)[0].model_copy(update={"suite_id": "other-v1-0123456789ab"})
    aggregate.publish(stores.results, other.model_copy(update={"submission": {**other.submission, "id": "x1"}}))
    assert exports.json_path(suite_id) in stores.results.writes[-1]
    assert snapshot(stores, suite_id)[1][0].schema_version == exports.EXPORT_SCHEMA_VERSION


def test_bad_suite_ids_and_files_are_refused(deployment):
    stores, _ = deployment
    for bad in ("../answers", "a/b", "", "x" * 200, " demo"):
        with pytest.raises(ExportError, match="not a suite id"):
            exports.json_path(bad)
    with pytest.raises(ExportError, match="not a leaderboard snapshot"):
        exports.read_json(b'{"rows": 1}')
    with pytest.raises(ExportError, match="not a leaderboard snapshot"):
        exports.read_parquet(read(stores.results, aggregate.TABLE_PATH))
    with pytest.raises(SnapshotNotFound) as info:
        downloads.Snapshots(stores.results).json("demo-v9-000000000000")
    assert info.value.suites and "no verified result" in str(info.value)


# -- nothing that gives the key away -------------------------------------------------------------------------------

def _lists(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _lists(item, (*path, key))
    elif isinstance(value, list):
        yield path, value


def test_snapshots_hold_no_answer_no_call_and_no_per_item_result(deployment, tmp_path):
    stores, suite_id = deployment
    suite, key = suite_and_key(stores, suite_id)
    submit_file(stores, suite, tmp_path, seed=3)
    Worker(stores, settings()).run_once()
    hidden = secrets(suite, key)
    assert len(hidden) >= 10  # the scan looks for something

    data, _, (_, flat) = snapshot(stores, suite_id)
    texts = [data.decode("utf-8"), read(stores.results, exports.INDEX_PATH).decode()]
    texts += [str(v) for column in flat.columns for v in column.to_pylist() if v is not None]
    texts += [v.decode() for v in (flat.schema.metadata or {}).values()]
    texts.append(read(stores.results, exports.parquet_path(suite_id)).decode("latin-1"))
    for text in texts:
        assert not contains_any(text, hidden), contains_any(text, hidden)[:3]

    # no call id, item id or video id anywhere: a per-item outcome would need one to say which item
    ids = {c.id for c in [*suite.calls, *key.hidden_calls]} | {c.item for c in suite.calls} | set(suite.videos)
    document = json.loads(data)
    found = set()
    for record in document["results"]:
        for text in json.dumps(record).replace('"', " ").replace(",", " ").replace(":", " ").split():
            if text in ids:
                found.add(text)
    assert not found, sorted(found)[:5]
    # and no per-item vector: the only lists are the intervals' [low, high]
    lists = [(path, value) for record in document["results"] for path, value in _lists(record["scores"])]
    assert lists and all(path[-1] == "overall_ci95" and len(value) == 2 for path, value in lists)
    assert not any(c in flat.column_names for c in ("correct_items", "items", "per_item"))


def test_small_buckets_are_hidden_in_exports_even_when_the_table_row_is_not(deployment, tmp_path):
    stores, suite_id = deployment
    suite, _ = suite_and_key(stores, suite_id)
    request = submit_file(stores, suite, tmp_path, seed=4)
    Worker(stores, settings()).run_once()
    full = Result.model_validate_json(read(stores.private, staged_result_path(request.id)))  # every bucket
    small = disclosure.exposed(full.scores, 10)
    assert small, "the demo suite has buckets under 10 items"

    aggregate.upsert(stores.results, full, min_items=0)  # a row published with every bucket shown
    row = aggregate.load_table(stores.results).set_index("id").loc[request.id]
    assert disclosure.exposed(json.loads(row["scores_json"]), 10)  # the table shows them ...

    baseline = next(r for r in aggregate.read_results(stores.results) if r.submission["id"] != request.id)
    for _ in range(2):  # ... the exports do not: now, and after a later change to another row
        aggregate.publish(stores.results, baseline, min_items=10)
        data, (header, from_json), (_, from_parquet) = snapshot(stores, suite_id)
        assert header.min_bucket_items == 10 and header.suppressed_here == 1
        record = next(r for r in json.loads(data)["results"] if r["id"] == request.id)
        assert not disclosure.exposed(record["scores"], 10)
        assert record["scores"] == disclosure.suppress(full.scores, 10)
        for benchmark, path in small:
            node = record["scores"][benchmark][disclosure.SUPPRESSED]
            for key in path:
                node = node[key] if isinstance(node, dict) else node
            assert isinstance(node, int) and node > 0  # the hidden bucket (small, or a complement) keeps its count
        assert from_json.equals(from_parquet)
        flat = from_parquet.to_pandas().set_index("id").loc[request.id]
        assert not disclosure.exposed(json.loads(flat["scores_json"]), 10)
        for benchmark, path in small:
            if len(path) == 1:  # a scalar metric (level3, tool...): its own column is empty too
                assert pd.isna(flat[f"{benchmark}.{path[0]}"])


# -- a model run's raw outputs ---------------------------------------------------------------------------------------

class EchoingRunner:
    """A model that answers every call, the worker-only ones too, repeating its prompt:
    the worst case for what its raw outputs could reveal."""

    name = "echo"
    settings = {"frames": 2}

    def run(self, request, suite, hidden_calls, progress_callback):
        progress_callback(0, len(suite.calls), "answering")
        answers = predictions("first-option", suite.calls)
        answers = [Prediction(p.id, f"{p.response} (asked: {suite.calls_by_id()[p.id].prompt})", 55.0, p.context)
                   for p in answers]
        return answers + [Prediction(c.id, f"I was asked: {c.prompt}") for c in hidden_calls]


def run_model(stores, suite_id, monkeypatch, user: str = OWNER) -> Request:
    monkeypatch.setattr(run_module, "get_runner", lambda request, settings: EchoingRunner())
    request = Queue(stores.requests).add(Request(kind="model", submitter=user, suite_id=suite_id,
                                                 model="acme/video-7b", revision="0" * 40, precision="bfloat16"))
    stores.private.writes.clear()
    ran = Worker(stores, settings()).run_once()
    assert ran.id == request.id and ran.status == Status.FINISHED, ran.failure
    return ran


def test_a_model_runs_raw_outputs_are_staged_with_its_result_and_hold_public_calls_only(deployment, monkeypatch):
    stores, suite_id = deployment
    suite, key = suite_and_key(stores, suite_id)
    request = run_model(stores, suite_id, monkeypatch)
    path = raw_outputs.outputs_path(request.id)
    staged = [w for w in stores.private.writes if path in w]
    assert len(staged) == 1 and staged_result_path(request.id) in staged[0]  # one step with the staged result

    data = read(stores.private, path)
    responses = parse_predictions(data, suite.calls_by_id())  # a valid prediction file for the suite
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert len(lines) == len(responses.by_id) + len(responses.by_context)
    assert {r["id"] for r in lines} <= set(suite.calls_by_id()) and not {c.id for c in key.hidden_calls} & {
        r["id"] for r in lines}
    assert all(set(r) <= set(raw_outputs.FIELDS) and r["confidence"] == 55.0 for r in lines)
    assert any("context" in r for r in lines)  # CausalStep's in-context answers, with their label
    assert not contains_any(data.decode(), secrets(suite, key))  # the echoed sub-questions stayed out
    assert not read(stores.results, aggregate.result_path(request.id)).count(b"I was asked")


def test_raw_outputs_go_to_their_submitter_only(deployment, monkeypatch, tmp_path):
    stores, suite_id = deployment
    suite, key = suite_and_key(stores, suite_id)
    mine = run_model(stores, suite_id, monkeypatch)
    file_run = submit_file(stores, suite, tmp_path, seed=5)
    Worker(stores, settings()).run_once()
    requests = Queue(stores.requests).all()
    asked: list[str] = []

    def read_private(path):
        asked.append(path)
        found = stores.private.read(path)
        return found.data if found else None

    def calls(suite_id):
        return read_calls(stores.suite, suite_id)

    assert downloads.run_choices(requests, OWNER) == [(f"acme/video-7b · run 1 · {mine.id}", mine.id)]
    name, data = downloads.own_outputs(requests, OWNER.upper(), mine.id, read_private, calls)
    assert name == f"raw-outputs-acme_video-7b-{mine.id}-run1.jsonl"
    assert data == read(stores.private, raw_outputs.outputs_path(mine.id))
    assert asked == [raw_outputs.outputs_path(mine.id)]

    asked.clear()
    refusals = {}
    for user, submission in [(None, mine.id), ("", mine.id), (OTHER, mine.id), (OTHER, "no-such-id"),
                             (OWNER, file_run.id), (OWNER, None), (OWNER, f"../{mine.id}")]:
        with pytest.raises(DownloadRefused) as info:
            downloads.own_outputs(requests, user, submission, read_private, calls)
        refusals[(user, submission)] = str(info.value)
    assert asked == []  # nobody else's file is even read
    assert "Sign in" in refusals[(None, mine.id)]
    # another user cannot tell an existing submission from a made-up one
    assert refusals[(OTHER, mine.id)].replace(mine.id, "X") == refusals[(OTHER, "no-such-id")].replace(
        "no-such-id", "X")
    assert downloads.run_choices(requests, OTHER) == [] and downloads.run_choices(requests, None) == []


def test_the_site_hands_out_public_calls_only_whatever_the_stored_file_holds(deployment, monkeypatch):
    stores, suite_id = deployment
    suite, key = suite_and_key(stores, suite_id)
    mine = run_model(stores, suite_id, monkeypatch)
    # a file written by some other tool: a hidden call, an extra field, a blank line
    hidden = key.hidden_calls[0]
    tampered = read(stores.private, raw_outputs.outputs_path(mine.id)) + (
        json.dumps({"id": hidden.id, "response": hidden.prompt}) + "\n\n"
        + json.dumps({"id": suite.calls[0].id, "response": "x", "correct": True}) + "\n").encode()
    stores.private.write(raw_outputs.outputs_path(mine.id), tampered)
    _, data = downloads.own_outputs(Queue(stores.requests).all(), OWNER, mine.id,
                                    lambda p: read(stores.private, p), lambda s: read_calls(stores.suite, s))
    records = [json.loads(line) for line in data.decode().splitlines()]
    assert hidden.id.encode() not in data and all(set(r) <= set(raw_outputs.FIELDS) for r in records)
    assert not contains_any(data.decode(), secrets(suite, key))
    assert data.endswith((json.dumps({"id": suite.calls[0].id, "response": "x"}) + "\n").encode())


def test_the_downloads_tab_callbacks(deployment, monkeypatch):
    """The tab's handlers over a real Handlers: the signed-in owner gets the button (its file
    comes from the site's own route, leaderboard/outputs_api.py), others a refusal."""
    from leaderboard.tabs.downloads import DownloadHandlers
    from leaderboard.source import TableSource
    from leaderboard.ui import Handlers

    stores, suite_id = deployment
    mine = run_model(stores, suite_id, monkeypatch)
    base = settings()
    source = TableSource(stores, base, min_interval=0)

    def tab(user):
        h = Handlers(stores, dataclasses.replace(base, dev_user=user), source)
        return DownloadHandlers(h, downloads.Snapshots(stores.results, source, base))

    info, as_json, as_parquet = tab(None).snapshot(suite_id)
    assert "**3** results" in info and suite_id in info  # the two baselines and the model run
    assert Path(as_json["value"]).read_bytes() == read(stores.results, exports.json_path(suite_id))
    assert Path(as_parquet["value"]).read_bytes() == read(stores.results, exports.parquet_path(suite_id))
    # the papers' rows: their JSON, with each row's paper, table and citation (no Parquet)
    info, as_json, as_parquet = tab(None).snapshot("official (paper-reported)")
    assert as_json["interactive"] and as_parquet["interactive"] is False and "papers' reported rows" in info
    assert Path(as_json["value"]).read_bytes() == reported_export.document()
    info, as_json, _ = tab(None).snapshot("demo-v9-000000000000")
    assert as_json["interactive"] is False and "No snapshot" in info and "/api/v1/reported.json" in info

    picker, _ = tab(OWNER).runs(None, None)
    assert picker["choices"] == [(f"acme/video-7b · run 1 · {mine.id}", mine.id)]
    button, note = tab(OWNER).outputs(mine.id, None)
    assert button["interactive"] and note.startswith("✅")
    assert "value" not in button  # no file handed to gradio, whose file route would serve it to anyone
    name, data = tab(OWNER).own_outputs(OWNER, mine.id)  # what the route serves the owner
    assert data == read(stores.private, raw_outputs.outputs_path(mine.id)) and name in note

    for user in (None, OTHER):
        picker, note = tab(user).runs(None, None)
        assert picker["choices"] == []
        button, note = tab(user).outputs(mine.id, None)
        assert button.get("value") is None and not button["interactive"] and note.startswith("❌")
        with pytest.raises(DownloadRefused):
            tab(user).own_outputs(user, mine.id)


def test_the_raw_outputs_route_answers_by_the_requests_own_sign_in():
    """leaderboard/outputs_api.py over a stand-in for the owner's file: who asks comes from
    the session Gradio's OAuth keeps on a Space (LEADERBOARD_DEV_USER off one), and each
    refusal has its status (tests/leaderboard/test_site_downloads.py does the same over the real site)."""
    import time

    from fastapi import FastAPI
    from starlette.middleware.sessions import SessionMiddleware
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from leaderboard import outputs_api
    from leaderboard.errors import OutputsNotStored

    def outputs(user, submission):
        if submission == "broken":
            raise OSError("the private store is down")
        if not user:
            raise DownloadRefused(downloads.SIGN_IN)
        if user != OWNER or submission not in ("mine", "old"):
            raise DownloadRefused(downloads.NOT_YOURS.format(id=submission))
        if submission == "old":
            raise OutputsNotStored("No raw outputs are stored for old: ask a maintainer to re-run it.")
        return "raw-outputs-mine.jsonl", b'{"id": "c1", "response": "A"}\n'

    def site(dev_user=None, space=False):
        app = FastAPI(routes=outputs_api.routes(outputs, dataclasses.replace(settings(), dev_user=dev_user)))

        def sign_in(request):  # what gradio.oauth's login callback stores
            user, expires = request.query_params["user"], float(request.query_params.get("expires", 3600))
            request.session["oauth_info"] = {"expires_at": int(time.time() + expires),
                                             "userinfo": {"preferred_username": user}}
            return Response()

        if space:
            app.router.routes.append(Route("/sign-in", sign_in))
            app.add_middleware(SessionMiddleware, secret_key="k")
        return TestClient(app)

    def status(client, submission, **signed_in):
        client.cookies.clear()
        if signed_in:
            client.get("/sign-in", params=signed_in)
        return client.get(f"{downloads.OUTPUTS_PATH}/{submission}")

    space = site(space=True)
    mine = status(space, "mine", user=OWNER)
    assert mine.status_code == 200 and mine.content == b'{"id": "c1", "response": "A"}\n'
    assert mine.headers["content-disposition"] == 'attachment; filename="raw-outputs-mine.jsonl"'
    assert status(space, "mine").status_code == 401  # no session
    assert status(space, "mine", user=OWNER, expires=-60).status_code == 401  # signed in, but long ago
    assert status(space, "mine", user=OTHER).status_code == 403
    assert status(space, "made-up", user=OTHER).json() == {"error": downloads.NOT_YOURS.format(id="made-up")}
    assert status(space, "old", user=OWNER).status_code == 404
    assert status(space, "broken", user=OWNER).status_code == 503
    # off a Space: no session at all, the development user for every request
    assert status(site(dev_user=OWNER), "mine").status_code == 200
    assert status(site(dev_user=OTHER), "mine").status_code == 403
    assert status(site(), "mine").json() == {"error": downloads.SIGN_IN}


def test_records_use_the_tables_types():
    """A JSON number comes back as the table's float; an untyped empty column stays null."""
    rows = [{"id": "a", "suite_id": "s-1", "judge_id": "j", "scores_json": json.dumps({"exact": {"overall": 50}}),
             "exact.overall": 50.0, "exact.n_calls": 4.0, "exact.n_answered": 4.0}]
    table = aggregate.tidy(aggregate.arrow(rows))
    header, body, flat = exports.build(table, "s-1", 10, None)
    again = exports.read_json(exports.encode_json(header, body))[1]
    assert again.equals(flat) and again.schema.field("exact.overall").type == pa.float64()
    assert again.schema.field("revision").type == pa.null()


def test_rows_come_by_rank_with_the_leaderboards_rank_and_band():
    """Intervals decide the ranks and bands as on the site; a row off the reference protocol
    keeps a null rank and comes after the ranked ones, however high its score."""
    def row(name, score, half, status="reference"):
        return {"id": name, "model": name.upper(), "kind": "model", "source": "verified", "suite_id": "s-1",
                "judge_id": "j", "average": score, "exact.overall": score, "exact.overall_ci_low": score - half,
                "exact.overall_ci_high": score + half, "exact.n_calls": 22.0, "exact.n_answered": 22.0,
                "protocol_status": status,
                "scores_json": json.dumps({"exact": {"overall": score}})}
    rows = [row("a", 40.0, 1.0), row("b", 80.0, 1.0), row("c", 79.5, 1.5), row("d", 90.0, 1.0, "differs"),
            row("e", 60.0, 0.0)]
    table = aggregate.tidy(aggregate.arrow(rows))
    header, body, flat = exports.build(table, "s-1", 10, None)
    records = json.loads(exports.encode_json(header, body))["results"]
    assert [(r["id"], r["rank"], r["band"]) for r in records] == [
        ("b", 1, 1), ("c", 1, 1), ("e", 3, 2), ("a", 4, 3), ("d", None, None)]
    assert records[0]["counts"] == {"exact": {"calls": 22, "answered": 22}}
    check_standing(flat.to_pandas(), table.to_pandas(), "s-1")


def test_exports_that_cannot_be_built_never_hold_the_leaderboard_back(deployment, monkeypatch):
    stores, suite_id = deployment
    base = aggregate.read_results(stores.results)[0]
    real = exports.refresh

    def broken(*args, **kwargs):
        raise ValueError("a value JSON cannot hold")

    monkeypatch.setattr(exports, "refresh", broken)
    aggregate.publish(stores.results, base.model_copy(update={"submission": {**base.submission, "id": "row-a"}}))
    assert "row-a" in set(aggregate.load_table(stores.results)["id"])  # the table moved on
    assert exports.json_path(suite_id) not in stores.results.writes[-1]
    # meanwhile the site builds the snapshot from the table: nothing stale is served
    served = exports.read_json(downloads.Snapshots(stores.results).json(suite_id))[1]
    assert "row-a" in served["id"].to_pylist()

    monkeypatch.setattr(exports, "refresh", real)
    aggregate.publish(stores.results, base.model_copy(update={"submission": {**base.submission, "id": "row-b"}}))
    assert exports.json_path(suite_id) in stores.results.writes[-1]
    _, (header, table), _ = snapshot(stores, suite_id)
    assert {"row-a", "row-b"} <= set(table["id"].to_pylist()) and header.rows == 4


def test_over_the_hub_a_result_its_row_and_its_snapshot_are_one_commit(hub_standin, deployment, tmp_path):
    """The Hub store (the real HfApi against tests/hub_standin.py): publishing is still one
    commit of the results repo, and the site reads the snapshot back from the repo."""
    local, suite_id = deployment
    stores = hub_standin.stores("exports-test", cache_dir=tmp_path / "cache")
    repo = f"exports-test/{hub_standin.prefix}-results"
    results = aggregate.read_results(local.results)
    before = len(hub_standin.history(repo))
    for result in results:
        aggregate.publish(stores.results, result)
    assert len(hub_standin.history(repo)) == before + len(results)  # one commit per result, exports included
    files = hub_standin.files(repo)
    assert {exports.json_path(suite_id), exports.parquet_path(suite_id), exports.INDEX_PATH} <= set(files)
    header, table = exports.read_json(files[exports.json_path(suite_id)])
    assert header.rows == len(results) and table.equals(exports.read_parquet(files[exports.parquet_path(suite_id)])[1])
    assert downloads.Snapshots(stores.results).json(suite_id) == files[exports.json_path(suite_id)]
    assert downloads.Snapshots(stores.results).suites() == [suite_id]
