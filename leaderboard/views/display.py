"""What a table's cells show, while the frame keeps its numbers (so columns sort as numbers).

A view's frame says it in its attrs:
    attrs[DISPLAY]  {column: [text per row]}       texts of its own: "61.20 ±1.79", a metric's note
    attrs[HIDDEN]   {column: {row position: n}}    buckets published without a score
    attrs[KINDS]    {column: kind}                 how the column's numbers read
                                                   (results/number_format.py: SCORE, COUNT, AMOUNT)
    attrs[MARKED]   {column: [row positions]}      cells that carry coverage.PARTIAL_MARK: a score
                                                   counting calls left unanswered (its DISPLAY text
                                                   ends with the mark), a plot's model name

    shown_text(frame)     the hidden buckets' "n too small (n=3)" and the DISPLAY texts
    display_text(frame)   those, and every other number of a column with a kind, written by
                          number_format: what the site sends as the cells' display values
    mark_partial(frame, column, rows)   "41.20 ◐" in those rows' cells (MARKED notes them)
    partial_note(frame)   coverage.PARTIAL_NOTE where a cell carries the mark, else ""
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from results import coverage, disclosure, number_format

DISPLAY = "display"
HIDDEN = "hidden"
KINDS = "kinds"
MARKED = "marked"


def set_kinds(frame: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """Note how the numbers of these columns read (those the frame has); returns the frame."""
    frame.attrs.setdefault(KINDS, {}).update({c: k for c, k in kinds.items() if c in frame.columns})
    return frame


def shown_text(frame: pd.DataFrame) -> pd.DataFrame:
    """What the site shows instead of a cell's value: "n too small (n=1)" for a hidden
    bucket, "61.20 ±1.79" for a leaderboard score, None (the value itself) elsewhere.
    Same shape as `frame`."""
    out = pd.DataFrame(np.full(frame.shape, None, dtype=object), columns=frame.columns)
    for column, texts in frame.attrs.get(DISPLAY, {}).items():
        if column in out.columns:
            out[column] = pd.Series(texts, dtype=object).to_numpy()
    for column, cells in frame.attrs.get(HIDDEN, {}).items():
        if column in out.columns:
            for row, n in cells.items():
                out.iloc[row, out.columns.get_loc(column)] = disclosure.hidden_text(n)
    return out.astype(object).where(out.notna(), None)


def display_text(frame: pd.DataFrame) -> pd.DataFrame:
    """shown_text, with every other number of a column that has a kind written by the one
    rule (a score "52.80", a count "120"); None where the cell shows its value as it is."""
    out = shown_text(frame)
    kinds = frame.attrs.get(KINDS, {})
    repeated = set(frame.columns[frame.columns.duplicated()])  # a repeated header keeps its values
    written = {}
    for position, column in enumerate(frame.columns):
        given = out.iloc[:, position].to_numpy()
        kind = kinds.get(column) if column not in repeated else None
        if kind is not None:
            values = frame.iloc[:, position].to_numpy(dtype=object)
            given = [text if text is not None else number_format.text(kind, value)
                     for text, value in zip(given, values)]
        written[position] = pd.Series(given, dtype=object).to_numpy()
    out = pd.DataFrame(written, index=out.index).set_axis(frame.columns, axis=1)
    return out.astype(object).where(out.notna(), None)


def mark_partial(frame: pd.DataFrame, column: str, rows: np.ndarray) -> None:
    """The cells of `column` in `rows` (one bool per row: coverage.partial) that hold a number show
    it with coverage.PARTIAL_MARK ("41.20 ◐", written by the column's kind, as a score where it has
    none). The value stays a number, so the column still sorts as numbers."""
    values = frame[column].to_numpy(dtype=object)
    kind = frame.attrs.get(KINDS, {}).get(column, number_format.SCORE)
    texts = list(frame.attrs.get(DISPLAY, {}).get(column) or [None] * len(frame))
    marked = [i for i, (flag, value) in enumerate(zip(rows, values)) if flag and number_format.text(kind, value)]
    for i in marked:
        texts[i] = f"{texts[i] or number_format.text(kind, values[i])} {coverage.PARTIAL_MARK}"
    if marked:
        frame.attrs.setdefault(DISPLAY, {})[column] = texts
        frame.attrs.setdefault(MARKED, {})[column] = marked


def partial_note(frame: object) -> str:
    """coverage.PARTIAL_NOTE for a frame a cell of which carries the mark (mark_partial), else "":
    a tab explains the mark only where it shows one."""
    return coverage.PARTIAL_NOTE if isinstance(frame, pd.DataFrame) and frame.attrs.get(MARKED) else ""
