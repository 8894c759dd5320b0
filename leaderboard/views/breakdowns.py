"""Per-benchmark tables, hidden buckets, and the by level / by domain / by hop views."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from evaluator.benchmarks import JUDGED
from results import coverage, disclosure, number_format
from results.ranking import half_widths, interval_ranks
from leaderboard.views.board import ci_text, source_text, suite_benchmarks
from leaderboard.views.columns import (
    BREAKDOWNS, DATE, FRAMES, JUDGE, LEVELS, METRICS, METRIC_LABELS, MODEL, RANK, SOURCE, TITLES, column_or_empty, as_numbers,
)
from leaderboard.views.display import DISPLAY, HIDDEN, KINDS, mark_partial, set_kinds
from leaderboard.views.table import paper_ranks


# -- one tab per benchmark ---------------------------------------------------------------------------------------

def metric_columns(board: pd.DataFrame, benchmark: str) -> list[str]:
    """The benchmark's scalar (numeric) columns: the published metric order first, then the rest
    (counts included); intervals are shown as one text column instead."""
    prefix = f"{benchmark}."
    numeric = [c for c in board.columns if c.startswith(prefix) and pd.api.types.is_numeric_dtype(board[c])
               and not c.endswith(("_ci_low", "_ci_high"))]
    # the published metrics even when every value is missing (a column of None is not numeric)
    known = [f"{prefix}{m}" for m in METRICS.get(benchmark, ()) if f"{prefix}{m}" in board.columns]
    rest = sorted(set(numeric) - set(known), key=lambda c: (c.startswith(f"{prefix}n_"), c))
    return known + rest


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " ").capitalize())


def benchmark_view(board: pd.DataFrame, benchmark: str) -> pd.DataFrame:
    """Every row with a score on this benchmark, by its overall: rank, model, overall, its
    interval, every other metric, then source, frames, judge and date (the scores beside the
    model: a phone shows the first). A paper's model rows are ranked within that paper on its
    overall ("3 📄"), verified rows among themselves. A row that left calls unanswered shows its
    scores as "41.20 ◐" (_mark_partial)."""
    columns = metric_columns(board, benchmark)
    rows = board[board[columns].notna().any(axis=1)] if columns else board.iloc[0:0]
    overall = as_numbers(column_or_empty(rows, f"{benchmark}.overall"))
    rows = rows.assign(_score=overall).sort_values(["_score", "rank"], ascending=[False, True],
                                                   na_position="last", kind="stable")
    judges = _judges(rows, benchmark)
    ranks = interval_ranks(overall.loc[rows.index], half_widths(rows, benchmark), np.zeros(len(rows)),
                           judges, rows["ranked"])
    ranks, in_paper = _paper_ranked(rows, ranks, overall)
    data: dict[str, object] = {RANK: ranks.array, MODEL: rows["model_text"].to_numpy()}
    for column in columns:
        metric = column.split(".", 1)[1]
        data[metric_label(metric)] = as_numbers(rows[column]).to_numpy()
        if metric == "overall":
            data["95% CI"] = ci_text(rows, benchmark).to_numpy()
    data.update({SOURCE: source_text(rows).to_numpy(), FRAMES: rows["frames_n"].to_numpy(),
                 JUDGE: judges.replace("", NO_JUDGE).to_numpy(), DATE: rows["date"].to_numpy()})
    out = _show_ranks(pd.DataFrame(data), in_paper)
    trees = _hidden_trees(rows, benchmark)
    for column in columns:
        metric = column.split(".", 1)[1]
        _mark_hidden(out, metric_label(metric), trees, (metric,))
        _mark_noted(out, metric_label(metric), rows, column)
    kinds = {metric_label(c.split(".", 1)[1]): _kind(c.split(".", 1)[1]) for c in columns}
    out = set_kinds(out, {RANK: number_format.COUNT, FRAMES: number_format.COUNT, **kinds})
    _mark_partial(out, rows, benchmark, kinds)
    return out


def _mark_partial(frame: pd.DataFrame, rows: pd.DataFrame, benchmark: str, columns) -> None:
    """Mark (display.mark_partial) the score cells of `columns` in the rows whose `benchmark` counts
    calls left unanswered: each of its scores counts them as wrong. Counts stay as they are (the
    Calls and Answered columns say how many)."""
    flags = coverage.partial(rows, benchmark)
    for column in columns if flags.any() else ():
        if frame.attrs.get(KINDS, {}).get(column) == number_format.SCORE:
            mark_partial(frame, column, flags)


def _kind(metric: str | None) -> str:
    """How a metric's numbers read: a count ("n_calls") or a score."""
    return number_format.COUNT if metric and number_format.is_count(metric) else number_format.SCORE


NO_JUDGE = "none: read by rule"  # the Judge cell of a benchmark whose answers no judge grades


def _judges(rows: pd.DataFrame, benchmark: str) -> pd.Series:
    """Who graded each row on this benchmark: its judge where one grades the benchmark, ""
    where its answers are read by rule (rows then rank together, whatever judge graded
    their other benchmarks)."""
    if benchmark in JUDGED:
        return rows["judge_text"]
    return pd.Series("", index=rows.index, dtype=object)


def _mark_noted(frame: pd.DataFrame, label: str, rows: pd.DataFrame, column: str) -> None:
    """A metric the scorer could not compute says so where its number would be: its
    `<metric>_note` ("not computed: ...", Video-MMMU's Δknowledge without question-only
    answers), up to the first parenthesis; the result file has the whole note."""
    notes = column_or_empty(rows, f"{column}_note")
    values = as_numbers(rows[column]).to_numpy()
    texts = [json.loads(n).split(" (")[0] if isinstance(n, str) and n and np.isnan(v) else None
             for n, v in zip(notes, values)]
    if any(texts):
        frame.attrs.setdefault(DISPLAY, {})[label] = texts


# -- hidden buckets ---------------------------------------------------------------------------------------------

def _hidden_trees(rows: pd.DataFrame, benchmark: str) -> list[dict]:
    """Each row's tree of hidden buckets for one benchmark ({} when none)."""
    return parse_cells(column_or_empty(rows, f"{benchmark}.{disclosure.SUPPRESSED}"))


def _mark_hidden(frame: pd.DataFrame, column: str, trees: list[dict], path: tuple[str, ...]) -> None:
    cells = {i: n for i, tree in enumerate(trees) if (n := disclosure.suppressed_n(tree, path)) is not None}
    if cells:
        frame.attrs.setdefault(HIDDEN, {})[column] = cells


# -- by level, by domain, by hop ------------------------------------------------------------------------------------

OVERALL = "overall"  # rank a breakdown by its benchmark's overall score (the default)


def _paper_ranked(rows: pd.DataFrame, ranks: pd.Series, score: pd.Series) -> tuple[pd.Series, pd.Series]:
    """`ranks` with each paper's model rows ranked within that paper by `score`, and their
    text ("3 📄"; None for every other row): views.table.paper_ranks."""
    in_paper = paper_ranks(rows, score.loc[rows.index])
    numbers = pd.to_numeric(in_paper.str.split().str[0], errors="coerce")
    return ranks.where(in_paper.isna(), numbers).astype("Int64"), in_paper


def _show_ranks(out: pd.DataFrame, in_paper: pd.Series) -> pd.DataFrame:
    """The Rank cells of papers' rows show "3 📄" (their number stays, for sorting)."""
    if in_paper.notna().any():
        out.attrs.setdefault(DISPLAY, {})[RANK] = list(in_paper)
    return out


def _ranked(rows: pd.DataFrame, score: pd.Series, half: pd.Series, benchmark: str
            ) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    """`rows` in the order of `score` (best first; the board's order among equals), their
    ranks by it, with the main table's rules: intervals (`half`), ties, one judge at a time,
    a paper's rows within that paper (_paper_ranked), and those rows' rank texts."""
    order = rows.assign(_score=score).sort_values(["_score", "rank"], ascending=[False, True], na_position="last",
                                                  kind="stable").index
    rows = rows.loc[order]
    ranks = interval_ranks(score.loc[order], half.loc[order], np.zeros(len(rows)), _judges(rows, benchmark),
                           rows["ranked"])
    return rows, *_paper_ranked(rows, ranks, score)


def _identity_columns(rows: pd.DataFrame, ranks: pd.Series) -> dict[str, object]:
    return {RANK: ranks.array, MODEL: rows["model_text"].to_numpy(), SOURCE: source_text(rows).to_numpy()}


def level_rank_choices(board: pd.DataFrame) -> list[str]:
    """The By level columns a reader may rank by: those of the suite's benchmarks with a score."""
    held = suite_benchmarks(board)
    return [label for column, label in LEVELS
            if column.split(".", 1)[0] in held and as_numbers(column_or_empty(board, column)).notna().any()]


def by_level_view(board: pd.DataFrame, rank_by: str | None = None) -> pd.DataFrame:
    """ExpVid's three levels, Video-MMMU's three tracks, CausalStep's descriptive (DUA)
    and causal (ICRA) accuracy, for every row that has one of them, ranked by `rank_by`
    (a column's label; default the first with a score), which comes first. A level of a
    benchmark a row answered in part reads "41.20 ◐" (_mark_partial)."""
    values = pd.DataFrame({label: as_numbers(column_or_empty(board, column)) for column, label in LEVELS}, index=board.index)
    present = values.notna().any(axis=1)
    rows, values = board[present], values[present]
    held = suite_benchmarks(board)
    values = values[[label for column, label in LEVELS if column.split(".", 1)[0] in held]]  # the suite's own
    choices = [c for c in values.columns if values[c].notna().any()]
    rank_by = rank_by if rank_by in choices else (choices[0] if choices else None)
    benchmark = next((column.split(".", 1)[0] for column, label in LEVELS if label == rank_by), "")
    score = values[rank_by] if rank_by else pd.Series(np.nan, index=rows.index)
    rows, ranks, in_paper = _ranked(rows, score, pd.Series(0.0, index=rows.index), benchmark)
    values = values.loc[rows.index]
    shown = [rank_by, *(c for c in values.columns if c != rank_by)] if rank_by else list(values.columns)
    out = _show_ranks(pd.DataFrame({**_identity_columns(rows, ranks), **{c: values[c].to_numpy() for c in shown}}),
                      in_paper)
    out = set_kinds(out, {RANK: number_format.COUNT, **{c: number_format.SCORE for c in shown}})
    for column, label in LEVELS:
        benchmark, metric = column.split(".", 1)
        if label in out.columns:
            _mark_hidden(out, label, _hidden_trees(rows, benchmark), (metric,))
            _mark_partial(out, rows, benchmark, [label])
    return out


def _natural(key: str) -> tuple:
    """"2" < "10", "hop2" < "hop10"; text keys alphabetically."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", str(key)) if part)


def parse_cells(cells: Iterable) -> list[dict]:
    """JSON cells (a breakdown, a tree of hidden buckets) as dicts; {} for an empty or damaged one."""
    out = []
    for cell in cells:
        try:
            value = json.loads(cell) if isinstance(cell, str) else None
        except ValueError:
            value = None  # a damaged cell hides one row's groups, never the whole view
        out.append(value if isinstance(value, dict) else {})
    return out


def breakdown_metrics(board: pd.DataFrame, key: str) -> list[str]:
    """For a breakdown whose groups hold several metrics ({group: {metric: value}}):
    those metric names, the headline first; [] when each group holds one number."""
    spec = BREAKDOWNS[key]
    found: list[str] = []
    hidden = False  # a hidden bucket (null) in place of a {metric: value} group
    for cell in parse_cells(column_or_empty(board, spec.column).dropna()):
        for value in cell.values():
            if isinstance(value, dict):
                found += [m for m in value if m not in found]
            hidden = hidden or value is None
    if not found and hidden and spec.headline:  # every group hidden: still offer the headline
        found = [spec.headline]
    if spec.headline in found:
        found.remove(spec.headline)
        found.insert(0, spec.headline)
    return found


def _breakdown_wide(board: pd.DataFrame, key: str, metric: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the rows that have breakdown `key`, one column per group of `metric`, natural order)."""
    spec = BREAKDOWNS[key]
    rows = board[column_or_empty(board, spec.column).notna().to_numpy(bool)]
    picked = [{group: (value.get(metric) if isinstance(value, dict) else value) for group, value in cell.items()}
              for cell in parse_cells(rows[spec.column] if len(rows) else pd.Series(dtype=object))]
    groups = sorted({g for cell in picked for g in cell}, key=_natural)
    wide = pd.DataFrame.from_records(picked, columns=groups, index=rows.index) if picked \
        else pd.DataFrame(columns=groups, index=rows.index)
    return rows, wide.apply(as_numbers) if groups else wide


def breakdown_rank_choices(board: pd.DataFrame, key: str, metric: str | None = None) -> list[tuple[str, str]]:
    """What a breakdown may be ranked by, as (label, value): its benchmark's overall score,
    then each group."""
    spec = BREAKDOWNS[key]
    benchmark = spec.column.split(".", 1)[0]
    _, wide = _breakdown_wide(board, key, metric or spec.headline)
    return [(f"{TITLES[benchmark]} overall", OVERALL), *((spec.group_label.format(g), g) for g in wide.columns)]


def breakdown_view(board: pd.DataFrame, key: str, metric: str | None = None, rank_by: str | None = None
                   ) -> pd.DataFrame:
    """A JSON breakdown column expanded to one column per group (natural order), for the
    rows that have it. Groups holding several metrics show `metric` (default: the
    breakdown's headline); a group holding a single number shows that number. Rows are
    ranked by `rank_by`, shown first: a group, or (default) the benchmark's overall score
    with its interval. The scores of a row that left the benchmark's calls unanswered read
    "41.20 ◐" (_mark_partial)."""
    spec = BREAKDOWNS[key]
    metric = metric or spec.headline
    benchmark, breakdown = spec.column.split(".", 1)
    rows, wide = _breakdown_wide(board, key, metric)
    groups = list(wide.columns)
    if rank_by in groups:
        score, half, first = wide[rank_by], pd.Series(0.0, index=rows.index), spec.group_label.format(rank_by)
    else:
        score, half = as_numbers(column_or_empty(rows, f"{benchmark}.overall")), half_widths(rows, benchmark)
        first = f"{TITLES[benchmark]} overall"
    rows, ranks, in_paper = _ranked(rows, score, half, benchmark)
    wide = wide.loc[rows.index]
    data = {**_identity_columns(rows, ranks), first: score.loc[rows.index].to_numpy()}
    data.update({spec.group_label.format(g): wide[g].to_numpy() for g in groups if g != rank_by})
    out = _show_ranks(pd.DataFrame(data), in_paper)
    trees = _hidden_trees(rows, benchmark)
    for g in groups:
        _mark_hidden(out, spec.group_label.format(g), trees, (breakdown, g, *((metric,) if metric else ())))
    shown = {spec.group_label.format(g): _kind(metric) for g in groups}  # the ranked group's among them
    out = set_kinds(out, {RANK: number_format.COUNT, first: number_format.SCORE, **shown})
    _mark_partial(out, rows, benchmark, dict.fromkeys([first, *shown]))  # a ranked group is both
    return out


def breakdown_has_data(board: pd.DataFrame, key: str) -> bool:
    """Whether any row of the board holds this breakdown (a non-empty JSON object)."""
    column = BREAKDOWNS[key].column
    if column not in board.columns:
        return False
    return bool(board[column].map(lambda v: isinstance(v, str) and v.strip() not in ("", "{}", "null")).any())


def empty_breakdown_reason(board: pd.DataFrame, key: str) -> str:
    """Why a breakdown has nothing to show on this board, in a line the page shows instead."""
    title = BREAKDOWNS[key].title
    verified = bool((board["source_kind"] == "verified").any()) if "source_kind" in board.columns else False
    if not verified:
        return (f"Nothing to show for {title}: the papers do not report it. Verified runs carry it: pick a suite "
                f"under Show.")
    return (f"Nothing to show for {title}: no run on this suite has it; this suite's questions carry no such "
            f"field (the demo suite and some releases lack it), or no run answered them.")
