"""The Hub's evaluation-results files, `.eval_results/<name>.yaml` in a model repo, as the Hub
specifies them (its "Eval Results" documentation): each file a YAML list of results, each one

    - dataset:
        id: <owner>/<name>          required: the benchmark's dataset repo (registered as a Benchmark)
        task_id: <task>             required: one task of that dataset's eval.yaml
        revision: <sha>             optional: the dataset's revision
      value: 61.2                   required: the score
      date: "2026-01-15"            optional: ISO-8601 date or datetime of the evaluation
      source:                       optional: where the result comes from
        url: https://...            required within source
        name: <text>                optional: the link's name
        user: <Hub user or org>     optional
      notes: <text>                 optional: the evaluation's setup
      evaluation_framework: <id>    optional: the framework named in the dataset's eval.yaml
      verifyToken: <token>          optional: a proof of an auditable run (never written by us)

Two directions, both pure (no Hub call):

    files = verified_files(row, site)                  # a verified row -> {".eval_results/x.yaml": text}
    entries, problems = read_file(text, where, site)   # a model's own file -> its results on our benchmarks

Our verified results name `site.dataset`: the public suite repo, `<owner>/<prefix>-suite`, whose
eval.yaml (evaluator/suite_card.py) registers it as a Hub benchmark with one task per benchmark,
by name (`expvid`, `causalstep`, `exact`, `videommmu`, `videosimpleqa`). A model's own results
are read as results on our benchmarks when they name that dataset with one of those tasks, or
one of the papers' own dataset repos on the Hub (`paper.hub_dataset` in each benchmark's
reported.json). Results whose source is this site (SOURCE_NAME) are our verified ones, merged
there from one of our pull requests, not the authors': they are left out.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import yaml

from evaluator.benchmarks import JUDGED, ORDER
from evaluator.suite_card import EVALUATION_FRAMEWORK
from leaderboard.errors import HubResultsError  # noqa: F401 - also imported from here (model_pages.py, cli)
from leaderboard.reported import load_reported, paper_datasets

FOLDER = ".eval_results"
SOURCE_NAME = "Video Reasoning Leaderboard (verified)"  # how our files name their source
SUITE_STORE = "suite"  # the store whose dataset repo our results name
MAX_TEXT = 500  # characters kept of an author's notes or source name
URL = re.compile(r"https?://[^\s]+")


@dataclass(frozen=True)
class Site:
    """Where our results point: the benchmark dataset, the site's address, its owner on the Hub."""

    dataset: str  # <owner>/<prefix>-suite
    url: str  # the site's address, ending in "/"
    owner: str | None = None

    @classmethod
    def from_settings(cls, settings) -> Site:
        if not settings.hub_owner:
            raise HubResultsError("LEADERBOARD_HUB_OWNER is not set: results on the Hub name the benchmark dataset "
                                  "<owner>/<prefix>-suite, so the owner of the leaderboard's repos must be known.")
        from submissions.stores.hub import hub_repo_id

        return cls(hub_repo_id(settings.hub_owner, settings.hub_prefix, SUITE_STORE), settings.site_url,
                   settings.hub_owner)


# -- our verified rows, as files ---------------------------------------------------------------------------------

def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def _on(value: Any) -> bool:
    return str(value).strip().lower() == "true"


def row_link(site: Site, row: Mapping) -> str:
    """The site's address opening this row: its suite's Leaderboard, searched for its model."""
    return site.url + "?" + urlencode({"suite": _text(row.get("suite_id")), "model": _text(row.get("model"))})


def _card(row: Mapping) -> dict:
    try:
        card = json.loads(_text(row.get("protocol_card")) or "{}")
    except ValueError:
        return {}
    return card if isinstance(card, dict) else {}


def _frames(card: dict, benchmark: str) -> str:
    frames = {k: v for k, v in (card.get("frames") or {}).items() if k == benchmark or k.startswith(benchmark + "_")}
    if not frames:
        return "frames as the suite's call list gives them"
    return "frames " + ", ".join(f"{v} per video" if k == benchmark else f"{v} ({k.removeprefix(benchmark + '_')})"
                                 for k, v in frames.items())


def _judge(row: Mapping, card: dict, benchmark: str) -> str:
    if benchmark not in JUDGED:
        return "answers read by rule (no judge)"
    judge = ((card.get("judge") or {}).get("by_benchmark") or {}).get(benchmark) or card.get("judge") or {}
    return f"judge {judge.get('id') or _text(row.get('judge_id')) or 'not recorded'}"


def notes(row: Mapping, benchmark: str) -> str:
    """The suite version and the protocol of one benchmark's score, in a line."""
    card = _card(row)
    status = _text(row.get("protocol_status"))
    protocol = {"reference": "at the suite's reference protocol",
                "declared": "at the suite's reference protocol (runner as declared)",
                "differs": f"off the suite's reference protocol ({_text(row.get('protocol_deviations')) or 'differs'})",
                }.get(status, "protocol not recorded")
    parts = [f"Verified by the Video Reasoning Leaderboard on suite {_text(row.get('suite_id'))} {protocol}",
             _frames(card, benchmark), _judge(row, card, benchmark),
             f"thinking {'on' if _on(row.get('thinking')) else 'off'}"]
    return "; ".join(parts)


def verified_files(row: Mapping, site: Site) -> dict[str, str]:
    """The `.eval_results` files of one verified model run: one per benchmark it has an overall
    score on (`<benchmark>.yaml`; `<benchmark>_thinking.yaml` for a run with thinking on)."""
    if _text(row.get("source")) != "verified" or _text(row.get("kind")) != "model":
        raise HubResultsError("Only a verified run of a Hub model goes on its model page (a prediction file's or "
                              "a paper's numbers do not).")
    suffix = "_thinking" if _on(row.get("thinking")) else ""
    files = {}
    for benchmark in ORDER:
        value = _number(row.get(f"{benchmark}.overall"))
        if value is None:
            continue
        entry: dict[str, Any] = {"dataset": {"id": site.dataset, "task_id": benchmark}, "value": round(value, 2)}
        if _text(row.get("created")):
            entry["date"] = _text(row.get("created"))[:10]
        entry["source"] = {"url": row_link(site, row), "name": SOURCE_NAME} | ({"user": site.owner}
                                                                             if site.owner else {})
        entry["notes"] = notes(row, benchmark)
        entry["evaluation_framework"] = EVALUATION_FRAMEWORK  # as the suite repo's eval.yaml names it
        files[f"{FOLDER}/{benchmark}{suffix}.yaml"] = yaml.safe_dump([entry], sort_keys=False, allow_unicode=True,
                                                                     width=1000)
    if not files:
        raise HubResultsError("This result has no overall score on any benchmark: nothing to put on the model page.")
    return files


# -- a model's own files, read ---------------------------------------------------------------------------------

def benchmark_of(dataset: str, task: str | None, site: Site | None) -> str | None:
    """Which of our benchmarks a result is about (None: another benchmark)."""
    if site is not None and dataset.casefold() == site.dataset.casefold():
        return task if task in ORDER else None
    return _paper_datasets().get(dataset.casefold())


@functools.cache
def _paper_datasets() -> dict[str, str]:
    """The papers' own Hub datasets (a benchmark whose authors released none, e.g. CausalStep and
    Video SimpleQA, counts only results naming our suite)."""
    return paper_datasets(load_reported())


def _short(value: Any) -> str:
    text = " ".join(_text(value).split())
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def _entry(raw: Any, where: str, site: Site | None) -> tuple[dict | None, str | None]:
    """One result of a file: (the entry on one of our benchmarks, or None; a problem, or None)."""
    if not isinstance(raw, dict):
        return None, f"{where}: a result must be a mapping with dataset and value"
    dataset = raw.get("dataset")
    if not isinstance(dataset, dict) or not isinstance(dataset.get("id"), str) or not dataset["id"].strip():
        return None, f"{where}: dataset.id is missing"
    task = dataset.get("task_id") if isinstance(dataset.get("task_id"), str) else None
    benchmark = benchmark_of(dataset["id"].strip(), task, site)
    if benchmark is None:
        return None, None  # a result on another benchmark: not ours to show
    value = _number(raw.get("value"))
    if value is None:
        return None, f"{where}: value must be a number, not {_short(raw.get('value'))!r}"
    source = raw.get("source") if isinstance(raw.get("source"), dict) else {}
    if _text(source.get("name")) == SOURCE_NAME:
        return None, None  # our own verified result, merged into the repo
    url = _text(source.get("url")).strip()
    return {"benchmark": benchmark, "dataset": dataset["id"].strip(), "task_id": task, "value": value,
            "date": _short(raw.get("date"))[:32] or None, "source_url": url if URL.fullmatch(url) else None,
            "source_name": _short(source.get("name")) or None, "notes": _short(raw.get("notes")) or None}, (
        None if not url or URL.fullmatch(url) else f"{where}: source.url {_short(url)!r} is not a web address")


def read_file(text: str, where: str, site: Site | None) -> tuple[list[dict], list[str]]:
    """A model's `.eval_results` file: its results on our five benchmarks, and what is wrong
    in it (a result that cannot be read is left out; the others are kept)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else "unreadable"
        return [], [f"{where}: not valid YAML ({first})"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return [], [f"{where}: expected a list of results"]
    entries, problems = [], []
    for i, raw in enumerate(data):
        entry, problem = _entry(raw, f"{where} result {i + 1}", site)
        if entry is not None:
            entries.append(entry)
        if problem is not None:
            problems.append(problem)
    return entries, problems
