"""What a table's cells show, while the frame keeps its numbers (so columns sort as numbers).

A view's frame says it in its attrs:
    attrs[DISPLAY]  {column: [text per row]}       texts of its own: "61.20 ±1.79", a metric's note
    attrs[HIDDEN]   {column: {row position: n}}    buckets published without a score
    attrs[KINDS]    {column: kind}                 how the column's numbers read
                                                   (results/number_format.py: SCORE, COUNT, AMOUNT)

    shown_text(frame)     the hidden buckets' "n too small (n=3)" and the DISPLAY texts
    display_text(frame)   those, and every other number of a column with a kind, written by
                          number_format: what the site sends as the cells' display values
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from results import disclosure, number_format

DISPLAY = "display"
HIDDEN = "hidden"
KINDS = "kinds"


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
