"""The results repo's dataset card (README.md): what its columns mean, which suites it
holds, how its rows are verified, the licence of its numbers, and the `configs` that let
the dataset viewer and `datasets.load_dataset(<repo>, <suite name>)` read the table.

Written with the table, by its one writer (results/aggregate.py `_swap`, in the same
store step as the table and its open exports), from the table and the exports' index:

    files = card_files(table, index_entries, repo_id)   # {"README.md": bytes}

Configs (split "leaderboard"): one per suite name, reading the open export of the newest
suite of that name (`exports/leaderboard-<suite id>.parquet`: its rows, ranked as on the
site); one per suite id; and `all`, the whole table (`leaderboard.parquet`, every suite's
rows, without ranks). The default is the newest suite not named "demo", else the demo's.
The versioned snapshots stay as they are: each config reads the latest, and the repo's
history holds the earlier ones.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pyarrow as pa

from evaluator.benchmarks import BENCHMARKS
from results import table_format

CARD_PATH = "README.md"
SPLIT = "leaderboard"
ALL_CONFIG = "all"
DEMO_NAME = "demo"
LICENSE, LICENSE_TEXT = "cc-by-4.0", "CC BY 4.0"  # the numbers, computed by our worker: reuse with credit
PRETTY_NAME = "Video Reasoning Leaderboard: results"
_SUITE_ID = re.compile(r"^(?P<name>.+)-(?P<version>[^-]+)-[0-9a-f]{12}$")

# What each column of a row holds (the table's own columns first, then the families of columns).
COLUMNS: dict[str, str] = {
    "rank, band": "place on the Leaderboard within one judge, and the band of rows it cannot be told apart from "
                  "(null for a row off the suite's reference protocol); per-suite configs only",
    "id": "the submission's id: one row per submission (a rerun replaces its row)",
    "model": "the model's Hub id, the name given with a prediction file, or `Baseline: <name>`",
    "kind": "`model` (run by our worker from its Hub id), `predictions` (a prediction file), `baseline`",
    "submitter": "the Hugging Face user who submitted it (`leaderboard` for baselines)",
    "revision": "the model's commit on the Hub, for a model run",
    "file_sha256": "the prediction file's sha256, for a prediction file",
    "suite_id": "the suite the row was scored on (name, version and a hash of its public content)",
    "judge_id": "the judge of the free-text answers, with its version (compare rows of one judge only)",
    "judge_kind": "what kind of judge that is (the offline matcher, or a language model)",
    "runner": "what produced the answers (a backend for model runs, `predictions`, `baseline:<name>`)",
    "created": "when the result was scored (ISO 8601, UTC)",
    "code_version": "the version of the scoring code",
    "run": "which run of the submission this is (1, then 2... after a rerun); null for baselines",
    "thinking": "whether the model was run with its thinking mode on",
    "precision": "the weights' precision for a model run (bfloat16, float16...)",
    "frames": "frames per call when one count was asked for every call (else each protocol's own)",
    "params": "the model's size, billions of parameters, as read from its safetensors metadata",
    "average": "the mean of the `overall` scores of the suite's benchmarks, when all of them exist",
    "average_of": "those benchmarks, comma-separated",
    "source": "`verified`: scored by the leaderboard's worker (the papers' own numbers are not here)",
    "<benchmark>.overall": "the benchmark's headline score, 0-100, with `.overall_ci_low` / `.overall_ci_high`, "
                           "its 95% interval (bootstrap over videos)",
    "<benchmark>.<metric>": "every other score of the benchmark (a level, a track, calibration...)",
    "<benchmark>.<breakdown>": "a breakdown (by discipline, hop, category...) as JSON text; `n_<breakdown>` its "
                               "item counts, `suppressed` the buckets too small to show a score",
    "<benchmark>.n_calls, .n_answered": "calls asked and calls answered; `.judge_unscored`: answers the judge "
                                        "gave no verdict on (scored as wrong)",
    "blind.*": "the same headline scores with black frames (the \"no video\" pass), where one ran",
    "cost.*": "what a model run cost: GPU seconds per call, time to first token, tokens per second, device; "
              "`cost.judge_*`: tokens and dollars spent on a remote judge",
    "protocol_*": "how the row was run against each paper's protocol: `protocol_status` (reference, declared, "
                  "differs, unknown), `protocol_deviations`, `protocol_hash`, `protocol_card` (JSON)",
    "runner.*, meta.*": "the runner's settings (seed, backend...) and what was declared at submission",
    "scores_json": "every score of the row as one JSON object (`scores[benchmark][metric]`)",
}


def parse_suite_id(suite_id: str) -> tuple[str, str]:
    """(name, version) of a suite id `<name>-<version>-<12 hex>`; (the id, "") when it is not one."""
    m = _SUITE_ID.match(suite_id)
    return (m["name"], m["version"]) if m else (suite_id, "")


def _first_rows(table: pa.Table) -> dict[str, str]:
    """Suite id -> when its earliest row was scored: when the suite arrived (its baselines)."""
    if "suite_id" not in table.column_names or "created" not in table.column_names:
        return {}
    first: dict[str, str] = {}
    for suite_id, created in zip(table["suite_id"].to_pylist(), table["created"].to_pylist()):
        if suite_id and (suite_id not in first or str(created or "") < first[suite_id]):
            first[suite_id] = str(created or "")
    return first


def configs(table: pa.Table, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The card's `configs`: the default (the headline suite's name) first, `all` last."""
    first = _first_rows(table)
    newest: dict[str, str] = {}
    for entry in sorted(entries, key=lambda e: (first.get(e["suite_id"], ""), e["suite_id"])):
        name = parse_suite_id(entry["suite_id"])[0]
        if name != ALL_CONFIG:  # that name is the whole table's
            newest[name] = entry["suite_id"]  # a later suite of the name replaces an earlier one
    real = [n for n in newest if n != DEMO_NAME]
    head = max(real or list(newest), key=lambda n: (first.get(newest[n], ""), newest[n]), default=None)
    paths = {e["suite_id"]: e["parquet_path"] for e in entries}
    out = [{"config_name": name, "data_files": [{"split": SPLIT, "path": paths[suite_id]}],
            **({"default": True} if name == head else {})} for name, suite_id in sorted(newest.items())]
    out += [{"config_name": s, "data_files": [{"split": SPLIT, "path": paths[s]}]} for s in sorted(paths)
            if s not in newest and s != ALL_CONFIG]
    out.append({"config_name": ALL_CONFIG, "data_files": [{"split": SPLIT, "path": table_format.TABLE_PATH}]})
    return sorted(out, key=lambda c: not c.get("default", False))


def card_files(table: pa.Table, index: bytes | None, repo_id: str | None = None) -> dict[str, bytes]:
    """README.md for the results repo, from the table as written and the exports' index
    entries (JSON, results/exports.py `refresh`); nothing without an index: the
    configs must only name files that are there."""
    from huggingface_hub.utils import yaml_dump

    if index is None:
        return {}
    entries = json.loads(index)
    found = configs(table, entries)
    metadata = {"pretty_name": PRETTY_NAME, "license": LICENSE, "tags": ["leaderboard", "evaluation", "video"],
                "configs": found}
    body = card_body(entries, found, repo_id or "<this repo's id>")
    return {CARD_PATH: ("---\n" + yaml_dump(metadata, sort_keys=False) + "---\n\n" + "\n".join(body) + "\n").encode()}


def _suite_lines(entries: list[dict[str, Any]], found: list[dict[str, Any]]) -> list[str]:
    by_path = {c["data_files"][0]["path"]: c["config_name"] for c in reversed(found)}
    lines = ["| config | suite id | name | version | rows | table version | bucket minimum |",
             "|---|---|---|---|---|---|---|"]
    for e in sorted(entries, key=lambda e: e["suite_id"]):
        name, version = parse_suite_id(e["suite_id"])
        lines.append(f"| `{by_path.get(e['parquet_path'], e['suite_id'])}` | `{e['suite_id']}` | {name} | {version} "
                     f"| {e['rows']} | `{e['table_version']}` | {e['min_bucket_items']} |")
    return lines


def card_body(entries: list[dict[str, Any]], found: list[dict[str, Any]], repo_id: str) -> list[str]:
    default = found[0]["config_name"]
    titles = ", ".join(module.TITLE for module in BENCHMARKS.values())
    return [
        f"# {PRETTY_NAME}", "",
        f"Every verified row of the Video Reasoning Leaderboard ({titles}): one row per scored submission, "
        "the same rows and numbers the site shows.", "",
        "```python", "from datasets import load_dataset", "",
        f'rows = load_dataset("{repo_id}", "{default}", split="{SPLIT}")  # a suite\'s rows, ranked', "```", "",
        "## Suites", "",
        *_suite_lines(entries, found), "",
        f"A config named by a suite's name reads its newest version; `{ALL_CONFIG}` is the whole table "
        f"(`{table_format.TABLE_PATH}`, every suite). Each change writes `exports/leaderboard-<suite id>.parquet` "
        "and `.json` again with `exports/index.json`, in the same commit as the row: the repo's history keeps "
        "every earlier snapshot.", "",
        "## How rows are verified", "",
        "A row is written only by the leaderboard's worker, after it scored the submission (a model it ran "
        "itself, or a prediction file) against the suite's answer key, which is never public. The result "
        "file (`<h>/<h>/<submission id>.json`, the full result with its protocol card) and its row land in one "
        "commit, after the request is marked finished. Baselines (`kind` = `baseline`) are scored the same way. "
        "Breakdown buckets with too few items carry their count but no score.", "",
        "## Columns", "",
        "| column | meaning |", "|---|---|",
        *[f"| `{name}` | {meaning} |" for name, meaning in COLUMNS.items()], "",
        "## Licence", "",
        f"The numbers are published under {LICENSE_TEXT}: reuse them, crediting the "
        "Video Reasoning Leaderboard. The models keep their own licences; the benchmarks' data is not here.",
    ]
