"""Data for the plots: the per-level profile and score against size, and the Vega-Lite specs
that draw them (level_profile_spec, score_vs_params_spec).

The specs are drawn at any width, from a phone's 390 px to a desktop's: parameters on a log
axis with at most MAX_TICKS round ticks (1, 2, 5, 10...), both axes' ranges wider than the
points they hold (no point sits on the plot's frame), and the legend below the plot with
as many columns as the width holds, its entries as wide as the column (a longer one on a line
per "(...)" it has). A label part that every entry shares ("(ExpVid paper)") is written once,
in the legend's title. The Plots tab (leaderboard/tabs/plots.py) sends the specs as they are.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence

import pandas as pd

from results import coverage, number_format
from leaderboard.views.columns import BENCHMARKS, LEVELS, TITLES, column_or_empty, as_numbers, as_text
from leaderboard.views.display import MARKED


# -- plots ------------------------------------------------------------------------------------------------------

LEVEL_ORDER = [label for _, label in LEVELS]
LEVEL_BENCHMARK = {label: TITLES[column.split(".", 1)[0]] for column, label in LEVELS}


def model_options(board: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, id) for the plot's model picker, in rank order."""
    return list(zip(board["label"], as_text(board["id"])))


def profile_defaults(board: pd.DataFrame, count: int = 5) -> list[str]:
    """Ids for the per-level profile when nobody chose: the best-ranked rows among those
    with the most levels (a paper row covers one benchmark's levels only)."""
    levels = pd.DataFrame({label: as_numbers(column_or_empty(board, column)) for column, label in LEVELS}).notna().sum(axis=1)
    order = pd.DataFrame({"levels": levels.to_numpy(), "rank": board["rank"].to_numpy(),
                          "id": as_text(board["id"]).to_numpy()})
    order = order[order["levels"] > 0].sort_values(["levels", "rank"], ascending=[False, True], kind="stable")
    return list(order["id"].head(count))


def _marked_labels(rows: pd.DataFrame, partial) -> pd.Series:
    """The rows' labels, "HalfModel-7B ◐" where `partial` (one bool per row): a plot's legend and
    tooltip then say which points count calls left unanswered."""
    return rows["label"].where(~partial, rows["label"] + f" {coverage.PARTIAL_MARK}")


def _noted(frame: pd.DataFrame, labels: pd.Series, partial) -> pd.DataFrame:
    """The frame with attrs[MARKED] naming its rows whose model is one of `labels` (_marked_labels'
    series) that `partial` marks (views.partial_note)."""
    names = set(labels[partial])
    marked = [i for i, model in enumerate(frame["model"]) if model in names]
    if marked:
        frame.attrs[MARKED] = {"model": marked}
    return frame


def level_profile(board: pd.DataFrame, ids: Sequence[str]) -> pd.DataFrame:
    """Long frame (model, level, score) for the chosen rows: one line per model in the
    per-level profile plot. Levels a row lacks are left out. A model that left calls
    unanswered in a benchmark whose levels it shows is named "HalfModel-7B ◐"."""
    chosen = board[as_text(board["id"]).isin(list(ids)).to_numpy(bool)]
    values = pd.DataFrame({label: as_numbers(column_or_empty(chosen, column)) for column, label in LEVELS}, index=chosen.index)
    partial = pd.Series(False, index=chosen.index)
    for column, label in LEVELS:
        partial |= coverage.partial(chosen, column.split(".", 1)[0]) & values[label].notna()
    labels = _marked_labels(chosen, partial)
    values.insert(0, "model", labels)
    long = values.melt(id_vars="model", var_name="level", value_name="score").dropna(subset=["score"])
    long["level"] = pd.Categorical(long["level"], categories=LEVEL_ORDER, ordered=True)
    long["score"] = _rounded(long["score"])
    return _noted(long.sort_values(["model", "level"], kind="stable").astype({"level": str}).reset_index(drop=True),
                  labels, partial)


def _rounded(values: pd.Series) -> pd.Series:
    """Scores with the digits the site shows (results/number_format.py): a plot's tooltip
    reads 52.8, never 52.800000000000004."""
    return pd.Series([number_format.rounded(v) for v in values], index=values.index, dtype="float64")


def plot_benchmarks() -> list[tuple[str, str]]:
    return [("Average", "average"), *((TITLES[b], b) for b in BENCHMARKS)]


def score_vs_params(board: pd.DataFrame, benchmark: str = "average") -> pd.DataFrame:
    """One point per row that states its parameter count (over 0): (model, params_b, score, source, type).
    A model whose score counts calls left unanswered is named "HalfModel-7B ◐"."""
    average = benchmark == "average"
    score = as_numbers(board["average"] if average else column_or_empty(board, f"{benchmark}.overall"))
    keep = (score.notna() & (as_numbers(board["params_b"]) > 0)).to_numpy(bool)  # a log axis: sizes over 0
    partial = coverage.any_partial(board) if average else coverage.partial(board, benchmark)
    labels = _marked_labels(board, partial)
    return _noted(pd.DataFrame({"model": labels[keep].to_numpy(),
                                "params_b": _rounded(board["params_b"][keep]).to_numpy(),
                                "score": _rounded(score[keep]).to_numpy(), "source": board["badge"][keep].to_numpy(),
                                "type": board["model_type"][keep].to_numpy()}), labels, partial)


# -- the plots' specs ------------------------------------------------------------------------------------------

PLOT_HEIGHT = 280  # px, the plot area alone: the axis labels and the legend's rows are added below it
PLOT_LABEL_PX = 32  # px above the plot: the plot's name (its block label) is drawn there
LEVEL_LABEL_PX = 220  # px of the plot's box (_WIDTH) per level for its name to be written level; less: slanted
MAX_TICKS = 6
_LOW, _HIGH = number_format.SCORE_LIMITS
SCORE_TICKS = list(range(_LOW, _HIGH + 1, (_HIGH - _LOW) // 5))  # 0, 20, ... 100
SCORE_DOMAIN = [_LOW - 5, _HIGH + 5]  # a score of 0 or 100 is drawn inside the frame, not on it
SIZE_ROOM = math.log10(1.25)  # decades left at least beside the smallest and the largest model
LEGEND_COLUMN_PX = 360  # the legend's columns: one per this many pixels of the plot's box (_WIDTH)
LABEL_CHAR_PX = 7  # about the width of a letter of the legend's labels (12 px)
_LADDERS = ((1, 2, 5), (1, 3), (1,))  # tick values m * 10^k, the densest that keeps MAX_TICKS
_TAIL = re.compile(r"^(.*\S) (\([^()]+\))$")
_ON_LINES = "split(replace(datum.label, / [(]/g, '\\n('), '\\n')"  # a Vega expression: a line per "(...)"
# The width the layout depends on, in Vega's expressions: the container's, which is the same before
# and after Vega fits the plot in it (its `width`, the plot's own, changes while it does, and a
# legend laid out on the first value would be cut at the second).
_WIDTH = "(containerSize()[0] > 0 ? containerSize()[0] : width)"
# Stand-ins for the standalone spec; the site draws each series in its theme's colours.
_PALETTE = ["#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d",
            "#bab0ac"]


def legend_names(labels: Sequence[str]) -> tuple[dict[str, str], str]:
    """({label: its legend entry}, the words the legend's title adds): a trailing "(...)" that
    every label ends with ("GPT-5 (ExpVid paper)", "o3 (ExpVid paper)") is written once, in the
    title, and each entry keeps the rest ("GPT-5"); otherwise the labels stay whole."""
    found = [_TAIL.match(label) for label in labels]
    tails = {match.group(2) for match in found if match}
    if not labels or not all(found) or len(tails) != 1:
        return {label: label for label in labels}, ""
    return {label: match.group(1) for label, match in zip(labels, found)}, tails.pop()


def _ladder(low: float, high: float, mantissas: Sequence[int]) -> list[float]:
    """The values m * 10^k (m in mantissas) from 10^low to 10^high (decades), ascending."""
    values = (float(f"{m}e{k}") for k in range(math.floor(low) - 1, math.ceil(high) + 1) for m in mantissas)
    return sorted(v for v in values if low - 1e-9 <= math.log10(v) <= high + 1e-9)


def size_axis(sizes: Sequence[float]) -> tuple[list[float], list[float]]:
    """(domain, ticks) of the log axis of parameters (billions): the domain reaches past the
    smallest and the largest size by SIZE_ROOM (more where sizes spread over decades) to the
    next value of 1, 2, 5, 10...; the ticks are the densest ladder with at most MAX_TICKS."""
    logs = [math.log10(s) for s in sizes if s > 0] or [0.0, 2.0]  # no size: 1 to 100
    room = max(SIZE_ROOM, 0.06 * (max(logs) - min(logs)))
    low, high = min(logs) - room, max(logs) + room
    domain = [_ladder(low - 1, low, (1, 2, 5))[-1], _ladder(high, high + 1, (1, 2, 5))[0]]
    span = math.log10(domain[0]), math.log10(domain[1])
    for mantissas in _LADDERS:
        ticks = _ladder(*span, mantissas)
        if len(ticks) <= MAX_TICKS:
            return domain, ticks
    return domain, ticks[::math.ceil(len(ticks) / MAX_TICKS)]


def _legend(title: str) -> dict:
    """Below the plot, in as many columns as its width holds; each entry as wide as its column,
    and one too long for it (about LABEL_CHAR_PX a letter) goes on a line per "(...)" it has."""
    columns = f"max(1, floor({_WIDTH} / {LEGEND_COLUMN_PX}))"
    room = f"max(120, {_WIDTH} / ({columns}) - 70)"
    return {"orient": "bottom", "direction": "vertical", "title": title, "columns": {"expr": columns},
            "labelLimit": {"expr": room}, "labelFontSize": 12,
            "labelExpr": f"length(datum.label) * {LABEL_CHAR_PX} > {room} ? {_ON_LINES} : datum.label",
            "symbolLimit": 0, "symbolStrokeWidth": 0, "rowPadding": 4}


def _color(field: str, entries: Sequence[str], title: str) -> dict:
    return {"field": field, "type": "nominal", "title": title, "legend": _legend(title),
            "scale": {"domain": list(entries), "range": [_PALETTE[i % len(_PALETTE)] for i in range(len(entries))]}}


def _score_axis() -> dict:
    return {"field": "score", "type": "quantitative", "title": "score (%)",
            "scale": {"domain": SCORE_DOMAIN, "nice": False, "zero": False},
            "axis": {"values": SCORE_TICKS, "format": number_format.AXIS_FORMAT}}


def _spec(data: pd.DataFrame) -> dict:
    """What both specs share: the data, the plot's height, its width the page's (fit-x), svg."""
    return {"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "usermeta": {"embedOptions": {"renderer": "svg", "actions": False}},
            "padding": {"top": PLOT_LABEL_PX, "left": 5, "right": 5, "bottom": 5},
            "autosize": {"type": "fit-x", "contains": "padding", "resize": True}, "height": PLOT_HEIGHT,
            "data": {"values": json.loads(data.to_json(orient="records"))}}


def level_profile_spec(long: pd.DataFrame) -> dict:
    """A line per model and benchmark over the levels it has (level_profile's frame), a point on
    each level: a model with one level is a point. One benchmark's levels are joined, never two
    benchmarks' (a line across a benchmark a model lacks would draw scores it does not have). The
    legend names each model, the shared "(... paper)" in its title."""
    models = list(dict.fromkeys(long["model"]))
    names, tail = legend_names(models)
    levels = [level for level in LEVEL_ORDER if level in set(long["level"])]
    angle = f"{_WIDTH} / {max(len(levels), 1)} >= {LEVEL_LABEL_PX} ? 0 : -45"
    encoding = {"x": {"field": "level", "type": "nominal", "sort": levels, "title": "level",
                      "axis": {"labelAngle": {"expr": angle}, "labelExpr": _ON_LINES, "labelLimit": 200}},
                "y": _score_axis(), "color": _color("series", [names[m] for m in models], f"model {tail}".strip()),
                "detail": {"field": "benchmark", "type": "nominal"},
                "tooltip": [{"field": "model", "type": "nominal"}, {"field": "level", "type": "nominal"},
                            {"field": "score", "type": "quantitative", "title": "score (%)"}]}
    data = long.assign(series=long["model"].map(names), benchmark=long["level"].map(LEVEL_BENCHMARK))
    return {**_spec(data), "layer": [{"mark": {"type": "line", "point": {"filled": True, "size": 50, "strokeWidth": 0}},
                                      "encoding": encoding}]}


def score_vs_params_spec(points: pd.DataFrame) -> dict:
    """A point per model (score_vs_params' frame) on a log axis of parameters, coloured by source."""
    domain, ticks = size_axis(list(points["params_b"]))
    return {**_spec(points), "mark": {"type": "point", "filled": True, "size": 70, "opacity": 0.8, "strokeWidth": 0},
            "encoding": {
                "x": {"field": "params_b", "type": "quantitative", "title": "parameters (billions, log scale)",
                      "scale": {"type": "log", "domain": domain, "nice": False},
                      "axis": {"values": ticks, "format": number_format.AXIS_FORMAT}},
                "y": _score_axis(),
                "color": _color("source", list(dict.fromkeys(points["source"])), "source"),
                "tooltip": [{"field": "model", "type": "nominal"},
                            {"field": "params_b", "type": "quantitative", "title": "parameters (billions)"},
                            {"field": "score", "type": "quantitative", "title": "score (%)"},
                            {"field": "source", "type": "nominal"}]}}
