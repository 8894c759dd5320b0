"""Results a model's authors report on our benchmarks in their own model repo, the Hub's
`.eval_results/*.yaml` files on its main branch (leaderboard/eval_results.py reads one), read in
by a maintainer's scan and shown on the site as a third kind of row: reported by the model's
authors, beside the papers' rows and our verified rows, never ranked, each linked to its source.

    models = known_models(table)                 # every model id we know of
    report = scan(api, models, site)             # read their files (Hub calls only; nothing written)
    save(stores.results, report)                 # AUTHOR_PATH in the results store, one write
    report = load(stores.results)                # what the site shows (AuthorSource: re-read on change)

AUTHOR_PATH (JSON, schema 1): {"schema_version", "scanned_at", "models": [the ids scanned],
"problems": ["<model>/<file> result 2: value must be a number", ...], "rows": [{"model",
"benchmark", "value", "date", "dataset", "task_id", "source_url", "source_name", "notes", "file",
"file_url", "revision"}]}. A model whose files could not be read this time (the Hub failed)
keeps the rows the previous scan found for it.
"""

from __future__ import annotations

import json
import logging
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from leaderboard.eval_results import FOLDER, Site, read_file

if TYPE_CHECKING:
    from huggingface_hub import HfApi

    from submissions.stores.base import Store

log = logging.getLogger(__name__)

AUTHOR_PATH = "author_reported.json"
SCHEMA_VERSION = 1
MAX_FILE_BYTES = 1024 * 1024  # an .eval_results file larger than this is not read
ROW_KEYS = ("model", "benchmark", "value", "date", "dataset", "task_id", "source_url", "source_name", "notes",
            "file", "file_url", "revision")


@dataclass
class Report:
    rows: list[dict] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    scanned_at: str | None = None
    failed: list[str] = field(default_factory=list)  # models the Hub did not answer for (not saved)

    def to_json(self) -> bytes:
        return json.dumps({"schema_version": SCHEMA_VERSION, "scanned_at": self.scanned_at, "models": self.models,
                           "problems": self.problems, "rows": self.rows}, indent=1, sort_keys=True).encode()


# -- which models --------------------------------------------------------------------------------------------

def known_models(table: pd.DataFrame, hub_ids: Iterable[str] | None = None) -> list[str]:
    """The Hub ids of every verified model run, every prediction file's declared Hub id, and the
    reviewed identity table's (leaderboard/reported_data/models.json), once each (ignoring case)."""
    if hub_ids is None:
        from leaderboard import models

        hub_ids = [i.hub_id for i in models.load_models().identities if i.hub_id]
    found = list(hub_ids)
    if len(table) and "kind" in table.columns:
        verified = table[(table.get("source", pd.Series("verified", index=table.index)).astype("string")
                          == "verified").fillna(False).to_numpy(bool)]
        found += [str(m) for m in verified.loc[verified["kind"] == "model", "model"].dropna()]
        if "meta.hub_id" in verified.columns:
            found += [str(m) for m in verified["meta.hub_id"].dropna() if str(m).strip()]
    seen: dict[str, str] = {}
    for model in found:
        if "/" in model.strip():
            seen.setdefault(model.strip().casefold(), model.strip())
    return sorted(seen.values(), key=str.casefold)


# -- reading the models' files -------------------------------------------------------------------------------

def _yaml_files(api: HfApi, model: str, revision: str) -> list[Any]:
    from huggingface_hub.errors import EntryNotFoundError
    from huggingface_hub.hf_api import RepoFile

    try:
        entries = list(api.list_repo_tree(model, path_in_repo=FOLDER, revision=revision, repo_type="model"))
    except EntryNotFoundError:
        return []  # no results folder: nothing reported
    return [e for e in entries if isinstance(e, RepoFile) and e.path.endswith((".yaml", ".yml"))]


def _read_model(api: HfApi, model: str, site: Site | None, cache: Path) -> tuple[list[dict], list[str]]:
    """One model's rows and problems; Hub errors other than "no such repo" propagate."""
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        info = api.model_info(model)
    except RepositoryNotFoundError:
        return [], [f"{model}: no such model on the Hub (or it is private or gated)"]
    rows, problems = [], []
    for entry in _yaml_files(api, model, info.sha):
        where = f"{model}/{entry.path}"
        if (entry.size or 0) > MAX_FILE_BYTES:
            problems.append(f"{where}: larger than {MAX_FILE_BYTES // 1024} KiB, not read")
            continue
        text = Path(api.hf_hub_download(model, entry.path, revision=info.sha, repo_type="model",
                                        cache_dir=cache)).read_text(encoding="utf-8", errors="replace")
        found, issues = read_file(text, where, site)
        problems += issues
        file_url = f"https://huggingface.co/{model}/blob/{info.sha}/{entry.path}"
        rows += [{**e, "model": model, "file": entry.path, "file_url": file_url, "revision": info.sha} for e in found]
    return rows, problems


def scan(api: HfApi, models: Sequence[str], site: Site | None, previous: Report | None = None) -> Report:
    """Every model's `.eval_results` files on its main branch, read; nothing is written. A model
    the Hub fails for is listed in `failed` and keeps `previous`'s rows."""
    report = Report(models=list(models), scanned_at=datetime.now(UTC).isoformat(timespec="seconds"))
    with tempfile.TemporaryDirectory(prefix="eval-results-") as cache:
        for model in models:
            try:
                rows, problems = _read_model(api, model, site, Path(cache))
            except Exception as e:  # noqa: BLE001 - one model's failure must not stop the scan
                status = getattr(getattr(e, "response", None), "status_code", None)
                log.warning("scanning %s failed: %s", model, e)
                report.failed.append(model)
                report.problems.append(f"{model}: the Hub did not answer ({status or type(e).__name__}); "
                                       f"its earlier rows are kept")
                rows = [r for r in (previous.rows if previous else []) if r.get("model") == model]
                problems = []
            report.rows += rows
            report.problems += problems
    report.rows.sort(key=lambda r: (r["model"].casefold(), r["benchmark"], r["file"]))
    return report


# -- the stored file --------------------------------------------------------------------------------------------

def parse(data: bytes) -> Report:
    raw = json.loads(data)
    if raw.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{AUTHOR_PATH}: schema_version {raw.get('schema_version')!r}, this code reads "
                         f"{SCHEMA_VERSION}")
    rows = [{k: r.get(k) for k in ROW_KEYS} for r in raw.get("rows", []) if isinstance(r, dict)]
    return Report(rows=rows, models=list(raw.get("models", [])), problems=list(raw.get("problems", [])),
                  scanned_at=raw.get("scanned_at"))


def load(store: Store) -> Report:
    """The stored report (an empty one before the first scan)."""
    found = store.read(AUTHOR_PATH)
    return parse(found.data) if found is not None else Report()


def save(store: Store, report: Report) -> str:
    return store.write(AUTHOR_PATH, report.to_json(),
                       message=f"Authors' reported results: {len(report.rows)} from {len(report.models)} models")


class AuthorSource:
    """The stored report as the site shows it: looked at most every `max_age` seconds (a local
    store: every call, a stat is free), re-parsed only when it changed; `version` changes with it.
    A store that cannot be read keeps the last report."""

    def __init__(self, store: Store, max_age: float = 300.0, clock=time.monotonic):
        self.store, self.max_age, self.clock = store, max_age, clock
        self._lock = threading.Lock()
        self._checked: float | None = None
        self._version: str | None = None
        self.report = Report()

    @property
    def version(self) -> str | None:
        return self._version

    def _local_version(self) -> str | None:
        inner = getattr(self.store, "inner", self.store)
        root = getattr(inner, "root", None)
        if root is None:
            return None
        try:
            stat = (Path(root) / AUTHOR_PATH).stat()
        except FileNotFoundError:
            return "absent"
        return f"{stat.st_mtime_ns}:{stat.st_size}:{stat.st_ino}"

    def get(self) -> Report:
        with self._lock:
            local = self._local_version()
            now = self.clock()
            if local is None and self._checked is not None and now - self._checked < self.max_age:
                return self.report
            if local is not None and local == self._version:
                return self.report
            self._checked = now
            try:
                found = self.store.read(AUTHOR_PATH)
                version = local or (found.version if found is not None else "absent")
                if version != self._version:
                    self.report = parse(found.data) if found is not None else Report()
                    self._version = version
            except Exception as e:  # noqa: BLE001 - the site keeps the last report
                log.warning("could not read %s: %s", AUTHOR_PATH, e)
            return self.report
