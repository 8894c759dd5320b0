"""Display column names, metrics and breakdown definitions, and small column helpers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evaluator.benchmarks import BENCHMARKS as _MODULES
from evaluator.benchmarks import ORDER
from leaderboard.views import run_columns


BENCHMARKS: tuple[str, ...] = tuple(ORDER)
TITLES: dict[str, str] = {name: _MODULES[name].TITLE for name in BENCHMARKS}

# -- suites ---------------------------------------------------------------------------------------
OFFICIAL_PREFIX = "official"
# Shown while no official suite is published, so readers still see the papers' numbers.
REPORTED_SUITE = "official (paper-reported)"

# -- badges, types, buckets -------------------------------------------------------------------------
# A verified row says which kind it is: a model we ran from its Hub id, or a prediction file
# we scored (the submitter ran the model: its settings are as they declared them).
VERIFIED_RUN, VERIFIED_FILE, REPORTED, BASELINE = "✓ verified run", "✓ verified file", "📄 reported", "baseline"
SOURCES = ("verified", "reported")
TYPES = ("open", "closed", "baseline", "human", "random", "unspecified")
SIZES = ("<10B", "10-40B", ">40B", "unknown")
SUITE_DEFAULT_FRAMES = "suite default"  # a verified run that used the suite's per-benchmark budgets
UNSTATED_FRAMES = "not stated"  # a paper row without a frame count
MODEL_BUDGET_FRAMES = "model's budgets"  # a verified run with its own frame budgets (within the papers' ranges)

# -- leaderboard columns (display names) --------------------------------------------------------------
RANK, MODEL, SOURCE, AVERAGE = "Rank", "Model", "Source", "Average"
BAND = "Band"  # results/bands.py: rows whose intervals overlap the band leader's
# Shown whatever is chosen. leaderboard_view puts Rank, Model and Average first (a phone keeps
# Rank and Model in view and shows the first score beside them), then the chosen score columns,
# then Source and Band, then the other chosen columns.
ALWAYS_SHOWN = (RANK, MODEL, AVERAGE, SOURCE, BAND)
PARAMS, FRAMES, TYPE, THINKING = "Params (B)", "Frames", "Type", "Thinking"
RUNNER, JUDGE, DATE = "Runner", "Judge", "Date"
SUBMITTER, REVISION, PRECISION, PAPER, SUBMISSION = "Submitter", "Revision", "Precision", "Paper", "Submission id"
PROTOCOL = "Protocol"  # the row's protocol status (results/protocol_status.py)


def ci_label(benchmark: str) -> str:
    return f"{TITLES[benchmark]} 95% CI"


# A score cell shows "61.20 ±1.79" (half the 95% interval); the bounds have optional columns.
SCORE_COLUMNS = tuple(TITLES[b] for b in BENCHMARKS)
CI_COLUMNS = tuple(ci_label(b) for b in BENCHMARKS)
META_DEFAULT = (PARAMS, FRAMES)
META_EXTRA = (DATE, TYPE, THINKING, RUNNER, JUDGE, SUBMITTER, REVISION, PRECISION, PAPER, SUBMISSION, PROTOCOL)
OPTIONAL_COLUMNS = (*run_columns.beside(SCORE_COLUMNS), *CI_COLUMNS, *META_DEFAULT, *META_EXTRA, *run_columns.COST_COLUMNS)
DEFAULT_COLUMNS = (*SCORE_COLUMNS, *META_DEFAULT)

# -- per-benchmark display tables, built from what each benchmark folder declares ----------------------
# (DISPLAY_METRICS, METRIC_LABELS, LEVEL_COLUMNS, VIEWS: evaluator/benchmarks/hooks.py); a benchmark
# that declares none shows its overall only.

@dataclass(frozen=True)
class Breakdown:
    title: str  # what the selector shows
    column: str  # the table's JSON column
    headline: str | None = None  # for {group: {metric: value}} cells: the metric shown by default
    group_label: str = "{}"  # column header for a group key


@dataclass(frozen=True)
class DisplayTables:
    metrics: dict[str, tuple[str, ...]]  # each tab's scalar metrics, in the order shown
    labels: dict[str, str]  # a metric key's header
    levels: tuple[tuple[str, str], ...]  # the "By level" view: (column, label)
    level_meanings: dict[str, str]  # a level column -> what the level is ("" where its label says it)
    breakdowns: dict[str, Breakdown]  # the "By domain" and "By hop" views: one JSON column each
    domain_views: tuple[str, ...]
    hop_views: tuple[str, ...]


_VIEW_TABS = ("domain", "hop")
_COMMON_LABELS = {"overall": "Overall", "n_calls": "Calls", "n_answered": "Answered"}


def _ordered(modules: dict, attr: str) -> list:
    """(benchmark, item) of every benchmark's `attr` items, by the items' `order` (stable:
    ties keep the registry's order)."""
    found = [(name, item) for name, module in modules.items() for item in getattr(module, attr, ())]
    return sorted(found, key=lambda pair: pair[1].order)


def _check_views(views: list) -> None:
    """A view with an unknown tab, or a key another view has (a copied folder's), is a
    developer's slip: fail at start with where it is."""
    seen: dict[str, str] = {}
    for name, view in views:
        if view.tab not in _VIEW_TABS:
            raise ValueError(f"evaluator/benchmarks/{name}/display.py: view {view.key!r} has tab {view.tab!r}; "
                             f"use one of {', '.join(_VIEW_TABS)}")
        if view.key in seen:
            raise ValueError(f"evaluator/benchmarks/{name}/display.py: view key {view.key!r} is also "
                             f"{seen[view.key]}'s; give it its own")
        seen[view.key] = name


def display_tables(modules: dict) -> DisplayTables:
    """The site's per-benchmark tables from a registry ({name: benchmark package})."""
    views = _ordered(modules, "VIEWS")
    _check_views(views)
    labels = dict(_COMMON_LABELS)
    for module in modules.values():
        labels.update(getattr(module, "METRIC_LABELS", {}))
    return DisplayTables(
        metrics={name: tuple(getattr(m, "DISPLAY_METRICS", ("overall",))) for name, m in modules.items()},
        labels=labels,
        levels=tuple((f"{name}.{c.metric}", c.label) for name, c in _ordered(modules, "LEVEL_COLUMNS")),
        level_meanings={f"{name}.{c.metric}": c.meaning for name, c in _ordered(modules, "LEVEL_COLUMNS")},
        breakdowns={view.key: Breakdown(view.title, f"{name}.{view.metric}", view.headline, view.group_label)
                    for tab in _VIEW_TABS for name, view in views if view.tab == tab},
        domain_views=tuple(view.key for _, view in views if view.tab == "domain"),
        hop_views=tuple(view.key for _, view in views if view.tab == "hop"),
    )


_TABLES = display_tables({name: _MODULES[name] for name in BENCHMARKS})
METRICS, METRIC_LABELS, LEVELS, LEVEL_MEANINGS = _TABLES.metrics, _TABLES.labels, _TABLES.levels, _TABLES.level_meanings
BREAKDOWNS, DOMAIN_VIEWS, HOP_VIEWS = _TABLES.breakdowns, _TABLES.domain_views, _TABLES.hop_views
LEVELED = tuple(dict.fromkeys(column.split(".")[0] for column, _ in LEVELS))  # benchmarks with levels


def in_words(items: list[str], last: str = "and") -> str:
    """"A, B and C" (the site's sentences name the registry's benchmarks, never a fixed list)."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def levels_in_words() -> str:
    """Each benchmark's "By level" columns: "ExpVid: L1 (perception), L2 (procedure), ...;
    CausalStep: Descriptive (DUA), Causal (ICRA)"."""
    def shown(column: str, label: str, name: str) -> str:
        short = label.removeprefix(TITLES[name]).strip()
        return f"{short} ({LEVEL_MEANINGS[column]})" if LEVEL_MEANINGS.get(column) else short

    return "; ".join(f"{TITLES[name]}: " + ", ".join(shown(column, label, name) for column, label in LEVELS
                                                     if column.split(".")[0] == name) for name in LEVELED)

_TRUE = {"true", "yes", "y", "1", "open", "on"}
_FALSE = {"false", "no", "n", "0", "closed", "off", "proprietary"}


# -- small column helpers ---------------------------------------------------------------------------------

def column_or_empty(frame: pd.DataFrame, name: str) -> pd.Series:
    """A column, or an all-missing one when the table has none (e.g. no reported rows)."""
    if name in frame.columns:
        return frame[name]
    return pd.Series(np.nan, index=frame.index, dtype="float64")


def as_numbers(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series, errors="coerce").astype("float64")


def flags(series: pd.Series) -> pd.Series:
    """True / False / NA from booleans or from text such as "yes", "open", "false"."""
    text = series.astype("string").str.strip().str.lower()
    out = pd.Series(pd.NA, index=series.index, dtype="boolean")
    out[text.isin(_TRUE).fillna(False).astype(bool)] = True
    out[text.isin(_FALSE).fillna(False).astype(bool)] = False
    return out


def as_text(series: pd.Series) -> pd.Series:
    """Text for display: missing values as ""."""
    return series.astype("string").fillna("").astype(object)


# -- searching model names ----------------------------------------------------------------------------------

def search_terms(search: str | None) -> list[str]:
    """A search box's terms: separated by ";", any may match."""
    return [t.strip() for t in (search or "").split(";") if t.strip()]


def _parts(text: str) -> list[str]:
    return re.findall(r"[0-9a-z]+", text.casefold())


def _loosely_in(term: str, name: str) -> bool:
    """`term` in `name` with spaces, dashes and dots aside, starting where a part of the name
    starts ("gpt 4o" in "GPT-4o-2024", not "o3" in "Video-34B")."""
    parts, wanted = _parts(name), "".join(_parts(term))
    loose, starts = "".join(parts), list(accumulate((len(p) for p in parts[:-1]), initial=0))
    return bool(wanted) and any(loose.startswith(wanted, s) for s in starts)


def name_matches(name: str, terms: Sequence[str]) -> bool:
    """Whether a model name holds any term, case aside and, as the papers spell one model
    several ways ("GPT-4o", "GPT 4o", "Gemini-2.5-Pro"), spaces, dashes and dots aside too."""
    low = name.casefold()
    return any(t.casefold() in low or _loosely_in(t, name) for t in terms)
