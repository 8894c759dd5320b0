"""Suites: which are official, their labels, and one suite's rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

import pandas as pd

from leaderboard.views.columns import OFFICIAL_PREFIX, REPORTED_SUITE


# -- suites ------------------------------------------------------------------------------------------------

def is_official(suite_id: str | None) -> bool:
    return bool(suite_id) and str(suite_id).startswith(OFFICIAL_PREFIX)


def suite_choices(in_table: Iterable[str], published: Iterable[str] = (), configured: str | None = None) -> list[str]:
    """Suites a reader can pick, the one to open first at the front: official suites
    (newest version first), then the paper-reported pseudo-suite (first while no official
    suite exists, so a visitor meets real models), then the others (the demo suite)."""
    ids = {s for s in [*in_table, *published, configured] if isinstance(s, str) and s and s != REPORTED_SUITE}
    official = sorted((s for s in ids if is_official(s)), reverse=True)
    others = sorted(ids - set(official))
    # the papers' rows stay one click away: an official suite shows only its own benchmarks' papers
    return [*official, REPORTED_SUITE, *others] if official else [REPORTED_SUITE, *others]


def suite_label(suite_id: str) -> str:
    """How the suite picker names a suite."""
    if suite_id == REPORTED_SUITE:
        return "📄 Papers' reported results"
    if is_official(suite_id):
        return f"✓ {suite_id} (official data, with the papers' results)"
    if suite_id.startswith("demo"):
        return f"✓ Demo suite, synthetic videos ({suite_id})"
    return f"✓ {suite_id}"


@lru_cache(maxsize=8)
def _reported_frame(suite_id: str) -> pd.DataFrame:
    from leaderboard.reported import reported_rows

    return pd.DataFrame(reported_rows(suite_id))


def reported_frame(suite_id: str) -> pd.DataFrame:
    """The papers' rows attached to `suite_id` (parsed once per suite id)."""
    return _reported_frame(suite_id).copy()


def select_suite(table: pd.DataFrame, suite_id: str,
                 reported: Callable[[str], pd.DataFrame] = reported_frame) -> pd.DataFrame:
    """The rows of one suite. An official suite (id starting with "official") and the
    REPORTED_SUITE pseudo-suite get the papers' rows too, an official suite those of the
    benchmarks it holds; no other suite ever does, so demo rows are never ranked beside
    official ones."""
    verified = table.iloc[0:0] if suite_id == REPORTED_SUITE or "suite_id" not in table.columns \
        else table[table["suite_id"] == suite_id]
    if not is_official(suite_id):
        return verified.reset_index(drop=True)
    papers = reported(suite_id)
    if verified.empty:
        return papers.reset_index(drop=True)
    held = held_benchmarks(verified)
    if held and "id" in papers.columns:  # a paper's rows only beside a suite that holds its benchmark
        papers = papers[papers["id"].astype(str).str.extract(r"^reported/([^/]+)/", expand=False).isin(held)]
    return pd.concat([verified, papers], ignore_index=True)


def held_benchmarks(verified: pd.DataFrame) -> set[str]:
    """The benchmarks a suite holds, as its verified rows' `average_of` says (empty when
    no row says: rows written before suites of fewer benchmarks existed hold all five)."""
    if "average_of" not in verified.columns:
        return set()
    return {b for cell in verified["average_of"].dropna() for b in str(cell).split(",") if b}
