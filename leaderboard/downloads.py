"""What the site hands out for download, with no gradio in sight (the Downloads tab and
the JSON endpoint both use it).

    snapshots = Snapshots(stores.results, source, settings)
    snapshots.json(suite_id), snapshots.parquet(suite_id)   # bytes; SnapshotNotFound
    snapshots.index()                                        # exports.ExportIndex

    own_model_runs(requests, user)          # the user's finished model-ID runs
    own_outputs(requests, user, submission, read_private, public_calls)   # (file name, bytes); DownloadRefused
    OUTPUTS_PATH + "/<submission id>"      # where the site serves them (leaderboard/outputs_api.py)

Snapshots are the files the worker published in the results store
(results/exports.py), served as they are when the table's own index lists them in
the current format; for a table written before exports existed (or before that format)
they are built from the table here, the same way. Either way they are cached per table
generation. (The papers' reported rows are leaderboard/reported_export.py's.)

Raw outputs are a model-ID run's answers (evaluator/raw_outputs.py), kept in the
private store. Only the signed-in submitter of that run gets them, through a route of the
site's own that reads the sign-in from the request itself; a refusal reads the same whether
the submission is someone else's or does not exist.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evaluator import raw_outputs
from results import aggregate, exports
from leaderboard.errors import DownloadRefused, OutputsNotStored, SnapshotNotFound

CACHED = 8  # snapshots kept in memory (a few suites, two formats)


class Snapshots:
    """The open exports of the results store, as the site serves them."""

    def __init__(self, results_store, source=None, settings=None):
        self.store = results_store
        self.source = source  # leaderboard.source.TableSource: its generation keys the cache
        self.settings = settings
        self._cache: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def _minimum(self) -> int:
        if self.settings is None:
            from space_config.settings import get_settings

            return get_settings().min_bucket_items
        return self.settings.min_bucket_items

    def _cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        if self.source is not None:
            self.source.refresh()  # at most one look at the store per few seconds, for everyone
        generation = self.source.generation if self.source is not None else None
        key = (generation, *key)
        with self._lock:
            if generation is not None and key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = compute()
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > CACHED:
                self._cache.popitem(last=False)
        return value

    def _table(self):
        found = self.store.read(aggregate.TABLE_PATH)
        return aggregate.read_arrow(found.data) if found is not None else aggregate.arrow([])

    def index(self) -> exports.ExportIndex:
        """Every suite with a snapshot (the table's own index, or one built from the table)."""
        def compute() -> exports.ExportIndex:
            return exports.index_for(self._table(), self._minimum())
        return self._cached(("index",), compute)

    def suites(self) -> list[str]:
        return [entry.suite_id for entry in self.index().suites]

    def json(self, suite_id: str) -> bytes:
        return self._file(suite_id, exports.json_path(suite_id))

    def parquet(self, suite_id: str) -> bytes:
        return self._file(suite_id, exports.parquet_path(suite_id))

    def _file(self, suite_id: str, path: str) -> bytes:
        exports.check_suite_id(suite_id)

        def compute() -> bytes:
            table = self._table()
            index = exports.index_of(table)
            if index is not None and exports.is_current(index, suite_id):
                found = self.store.read(path)  # written with the table that lists it
                if found is not None:
                    return found.data
            present = exports.suites_in(table)
            if suite_id not in present:
                raise SnapshotNotFound(f"No snapshot of suite {suite_id!r}: it has no verified result.",
                                       sorted(present))
            _, files = exports.snapshot_files(table, suite_id, self._minimum(), _stamp(table))
            return files[path]
        return self._cached(("file", path), compute)


def _stamp(table) -> str | None:
    stamp = (table.schema.metadata or {}).get(aggregate.UPDATED_AT_KEY)
    return stamp.decode() if stamp else None


# -- a model run's raw outputs, for its submitter only ------------------------------------------

OUTPUTS_PATH = "/raw-outputs"  # never under gradio's own file routes, which serve anyone holding the link
SIGN_IN = "Sign in with Hugging Face to download the raw outputs of your model runs."
NOT_YOURS = ("{id!r} is not one of your finished model runs: raw outputs go only to the person who submitted "
             "the model, once its run has finished.")


def _status(request) -> str:
    return getattr(request.status, "value", str(request.status))


def _own(request, user: str) -> bool:
    # as the Queue tab's "My submissions" matches (leaderboard/views/queue.py): Hub names ignore case
    return request.submitter.lower() == user.lower()


def own_model_runs(requests: Sequence, user: str | None) -> list:
    """The user's model-ID submissions that finished a run, newest first."""
    if not user:
        return []
    runs = [r for r in requests if _own(r, user) and r.kind == "model" and _status(r) == "FINISHED" and r.runs > 0]
    return sorted(runs, key=lambda r: (r.finished_at or r.submitted_at, r.id), reverse=True)


def run_choices(requests: Sequence, user: str | None) -> list[tuple[str, str]]:
    """(label, submission id) for a picker of the user's own finished model runs."""
    return [(f"{r.model} · run {r.runs} · {r.id}", r.id) for r in own_model_runs(requests, user)]


def outputs_name(request) -> str:
    """The downloaded file's name: model, submission, run."""
    model = re.sub(r"[^A-Za-z0-9._-]+", "_", request.model).strip("_") or "model"
    return f"raw-outputs-{model}-{request.id}-run{request.runs}.jsonl"


def own_outputs(requests: Sequence, user: str | None, submission: str | None,
                read_private: Callable[[str], bytes | None],
                public_calls: Callable[[str], Mapping]) -> tuple[str, bytes]:
    """The raw outputs of one of the user's own finished model runs, as (file name, bytes),
    with only public calls' records and prediction-file fields in it. `read_private(path)`
    is called for the user's own run only. DownloadRefused otherwise."""
    if not user:
        raise DownloadRefused(SIGN_IN)
    request = next((r for r in own_model_runs(requests, user) if r.id == submission), None)
    if request is None:
        raise DownloadRefused(NOT_YOURS.format(id=submission or ""))
    data = read_private(raw_outputs.outputs_path(request.id))
    if data is None:
        raise OutputsNotStored(f"No raw outputs are stored for {request.id}: the run finished before the worker "
                               f"kept them. Ask a maintainer to re-run it.")
    return outputs_name(request), raw_outputs.public_only(data, public_calls(request.suite_id))
