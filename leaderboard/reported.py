"""Results REPORTED in each benchmark's paper (plus the papers' human and random
baselines), shown on the site beside verified results and badged "reported".

Each table lives in its benchmark's folder, `evaluator/benchmarks/<name>/reported.json`,
transcribed from the paper's tables (docs/protocol.md names them). Cell values are
verbatim; the few derived values (ExpVid `overall`, CausalStep `overall` = ws_norm)
are listed under the file's "derived" key and explained in its "notes".

One row per (benchmark, paper row): rows are never merged across benchmarks,
because model names and protocols differ from paper to paper.

Small-bucket hiding (results/disclosure.py) does not apply here: these are the
papers' own published numbers over the papers' own test sets, with no item counts
and nothing of a submitter's answers in them, so every cell is shown as printed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator import benchmarks
from leaderboard.errors import ReportedDataError  # noqa: F401 - also imported from here (models.py, tests)

DATA_DIR = Path(__file__).resolve().parent / "reported_data"  # the model identities, across benchmarks
REPORTED_FILE = "reported.json"  # a benchmark's paper table, in its own folder

ROW_KINDS = ("model", "human", "random")
SOURCE = "reported"
MODELS_FILE = "models.json"  # the model identities (leaderboard/models.py), not a paper's table

FLAT_KEYS = ("id", "model", "kind", "row_kind", "source", "suite_id", "judge_id", "thinking", "frames",
             "open", "params_b", "paper", "scores_json")


@dataclass(frozen=True)
class Paper:
    title: str
    arxiv: str | None = None
    version: str | None = None
    hub_dataset: str | None = None  # the authors' own dataset repo on the Hub, if they released one

    def citation(self) -> str:
        if not self.arxiv:
            return self.title
        return f"{self.title} (arXiv:{self.arxiv}{self.version or ''})"


@dataclass(frozen=True)
class ReportedRow:
    model: str  # as printed in the paper's table
    kind: str  # "model" | "human" | "random"
    thinking: bool | None
    open: bool | None  # open weights (True) vs proprietary (False); None for baselines
    frames: int | None
    params_b: float | None  # only where the model's name states it
    scores: dict[str, Any]  # metric -> number, breakdown name -> {label: number}
    table: str | None = None  # when the row comes from another table than the file's main one
    aliases: tuple[str, ...] = ()  # other spellings in the same paper

    @property
    def metrics(self) -> dict[str, float | int]:
        return {k: v for k, v in self.scores.items() if not isinstance(v, dict)}

    @property
    def breakdowns(self) -> dict[str, dict[str, float | int]]:
        return {k: v for k, v in self.scores.items() if isinstance(v, dict)}


@dataclass(frozen=True)
class ReportedTable:
    benchmark: str
    paper: Paper
    table: str
    judge: str
    notes: tuple[str, ...]
    rows: tuple[ReportedRow, ...]
    derived: dict[str, str] = field(default_factory=dict)  # metric -> how it was derived

    def row(self, model: str, thinking: bool | None = None) -> ReportedRow:
        """The row printed as `model` (or carrying it as an alias); `thinking`
        picks between a model's thinking and non-thinking rows."""
        found = [r for r in self.rows if (model == r.model or model in r.aliases)
                 and (thinking is None or r.thinking == thinking)]
        if len(found) != 1:
            raise KeyError(f"{self.benchmark}: {len(found)} rows match {model!r} (thinking={thinking})")
        return found[0]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def _number(value: Any, where: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReportedDataError(f"{where}: expected a number, got {value!r}")
    return value


def _scores(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or not raw:
        raise ReportedDataError(f"{where}: scores must be a non-empty object")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            out[key] = {label: _number(v, f"{where}.{key}.{label}") for label, v in value.items()}
        else:
            out[key] = _number(value, f"{where}.{key}")
    return out


def _optional(value: Any, types: tuple, where: str):
    if value is not None and (not isinstance(value, types) or (bool not in types and isinstance(value, bool))):
        raise ReportedDataError(f"{where}: unexpected value {value!r}")
    return value


def _row(raw: dict, where: str) -> ReportedRow:
    if raw.get("kind") not in ROW_KINDS:
        raise ReportedDataError(f"{where}: kind must be one of {ROW_KINDS}, got {raw.get('kind')!r}")
    if not isinstance(raw.get("model"), str) or not raw["model"]:
        raise ReportedDataError(f"{where}: missing model name")
    return ReportedRow(
        model=raw["model"],
        kind=raw["kind"],
        thinking=_optional(raw.get("thinking"), (bool,), f"{where}.thinking"),
        open=_optional(raw.get("open"), (bool,), f"{where}.open"),
        frames=_optional(raw.get("frames"), (int,), f"{where}.frames"),
        params_b=_optional(raw.get("params_b"), (int, float), f"{where}.params_b"),
        scores=_scores(raw.get("scores"), f"{where}.scores"),
        table=raw.get("table"),
        aliases=tuple(raw.get("aliases", ())),
    )


def load_table(path: Path) -> ReportedTable:
    raw = json.loads(Path(path).read_text())
    where = Path(path).name
    for key in ("benchmark", "paper", "table", "judge", "notes", "rows"):
        if key not in raw:
            raise ReportedDataError(f"{where}: missing '{key}'")
    if raw["benchmark"] not in benchmarks.BENCHMARKS:
        raise ReportedDataError(f"{where}: unknown benchmark {raw['benchmark']!r}")
    paper = raw["paper"]
    return ReportedTable(
        benchmark=raw["benchmark"],
        paper=Paper(title=paper["title"], arxiv=paper.get("arxiv"), version=paper.get("version"),
                    hub_dataset=_optional(paper.get("hub_dataset"), (str,), f"{where}: paper.hub_dataset")),
        table=raw["table"],
        judge=raw["judge"],
        notes=tuple(raw["notes"]),
        rows=tuple(_row(r, f"{where}: rows[{i}]") for i, r in enumerate(raw["rows"])),
        derived=dict(raw.get("derived", {})),
    )


def reported_files() -> list[Path]:
    """Each registered benchmark's `reported.json`, in the registry's order (a benchmark
    whose paper reports no table has none)."""
    folders = (Path(module.__file__).parent for module in benchmarks.BENCHMARKS.values())
    return [f / REPORTED_FILE for f in folders if (f / REPORTED_FILE).exists()]


def _in_its_folder(table: ReportedTable, path: Path) -> ReportedTable:
    """A copied folder's table still naming the benchmark it was copied from would show
    its rows under the other benchmark."""
    owner = next(n for n, m in benchmarks.BENCHMARKS.items() if Path(m.__file__).parent == path.parent)
    if table.benchmark != owner:
        raise ReportedDataError(f"{path}: \"benchmark\" is {table.benchmark!r}, but this file is in {owner}'s "
                                f"folder; set it to {owner!r}")
    return table


def load_reported(data_dir: Path | None = None) -> list[ReportedTable]:
    """Every reported table, in the leaderboard's benchmark order: from the benchmarks'
    folders, or every `*.json` of `data_dir` but the model identities (tests)."""
    if data_dir is None:
        tables = [_in_its_folder(load_table(p), p) for p in reported_files()]
    else:
        tables = [load_table(p) for p in sorted(Path(data_dir).glob("*.json")) if p.name != MODELS_FILE]
    seen = [t.benchmark for t in tables]
    if len(set(seen)) != len(seen):
        raise ReportedDataError(f"two files for one benchmark: {seen}")
    paper_datasets(tables)
    return sorted(tables, key=lambda t: benchmarks.ORDER.index(t.benchmark))


def paper_datasets(tables: list[ReportedTable]) -> dict[str, str]:
    """The papers' own Hub dataset repos, lower case, each to its benchmark: a model page's result
    naming one is a result on that benchmark. A folder copied from another still naming its
    source's dataset would take that benchmark's results for its own: refused."""
    found: dict[str, str] = {}
    for table in tables:
        dataset = (table.paper.hub_dataset or "").casefold()
        if dataset in found:
            raise ReportedDataError(
                f"{table.benchmark}'s reported.json: paper.hub_dataset {table.paper.hub_dataset!r} is also "
                f"{found[dataset]}'s; set it to the dataset its own paper released, or null")
        if dataset:
            found[dataset] = table.benchmark
    return found


def _row_ids(table: ReportedTable) -> list[str]:
    """f"reported/{benchmark}/{slug(model)}"; a model printed twice (with and
    without thinking) gets a "-thinking" / "-no-thinking" suffix."""
    counts: dict[str, int] = {}
    for r in table.rows:
        counts[slug(r.model)] = counts.get(slug(r.model), 0) + 1
    ids = []
    for r in table.rows:
        name = slug(r.model)
        if counts[name] > 1 and r.thinking is not None:
            name += "-thinking" if r.thinking else "-no-thinking"
        ids.append(f"reported/{table.benchmark}/{name}")
    if len(set(ids)) != len(ids):
        raise ReportedDataError(f"{table.benchmark}: row ids are not unique")
    return ids


def reported_rows(suite_id: str, tables: list[ReportedTable] | None = None) -> list[dict[str, Any]]:
    """One flat dict per (benchmark, paper row), for the site's table.

    Keys: FLAT_KEYS, plus f"{benchmark}.{metric}" for every scalar metric of that
    benchmark's table (None where the row has no value) and f"{benchmark}.{breakdown}"
    holding the breakdown as a JSON string (None where absent). `suite_id` is the
    official suite id, passed through.
    """
    tables = load_reported() if tables is None else tables
    out: list[dict[str, Any]] = []
    for table in tables:
        metric_keys: list[str] = []
        breakdown_keys: list[str] = []
        for r in table.rows:
            metric_keys += [k for k in r.metrics if k not in metric_keys]
            breakdown_keys += [k for k in r.breakdowns if k not in breakdown_keys]
        for row_id, r in zip(_row_ids(table), table.rows):
            flat: dict[str, Any] = {
                "id": row_id,
                "model": r.model,
                "kind": SOURCE,
                "row_kind": r.kind,
                "source": SOURCE,
                "suite_id": suite_id,
                "judge_id": table.judge,
                "thinking": r.thinking,
                "frames": r.frames,
                "open": r.open,
                "params_b": r.params_b,
                "paper": table.paper.citation(),
            }
            for key in metric_keys:
                flat[f"{table.benchmark}.{key}"] = r.scores.get(key)
            for key in breakdown_keys:
                value = r.scores.get(key)
                flat[f"{table.benchmark}.{key}"] = None if value is None else json.dumps(value, sort_keys=False)
            flat["scores_json"] = json.dumps({table.benchmark: r.scores}, sort_keys=False)
            out.append(flat)
    return out
