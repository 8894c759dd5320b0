"""Rank bands: runs of rows whose 95% intervals overlap the run's leader.

The Rank column says how many rows are surely better; a band groups rows a reader
should treat as tied. Defined greedily from the top, within one judge (rows are never
ranked across judges) and one tier (a row with all five scores is above every row
without, as for the rank):

    the best row not yet in a band leads a new band; each next row, in score order,
    joins it while its interval overlaps the leader's (its upper bound is at least
    the leader's lower bound); the first row that does not overlap leads the next band.

So bands are numbered 1, 2, ... down the table with no gaps, every row of a band has an
interval overlapping its leader's, and a band never skips a row (a band is a run of
adjacent rows in score order). Rows not eligible (papers' rows) get no band.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def rank_bands(score: pd.Series, half: pd.Series, tier, groups: pd.Series, eligible: pd.Series) -> pd.Series:
    """Band number (1 = top) per row, same arguments as views.interval_ranks."""
    low = (score - half).round(6).to_numpy(float)
    high = (score + half).round(6).to_numpy(float)
    values = score.round(6).to_numpy(float)
    tier = np.asarray(tier)
    ok = eligible.to_numpy(bool) & ~np.isnan(low)
    band = pd.Series(pd.NA, index=score.index, dtype="Int64")
    for _, where in pd.Series(np.arange(len(score)))[ok].groupby(groups.to_numpy()[ok], sort=False):
        idx = where.to_numpy()
        # best first: higher tier, then higher score (stable: the table's own order breaks ties)
        order = idx[np.lexsort((-values[idx], -tier[idx]))]
        number, leader = 0, None
        for i in order:
            if leader is None or tier[i] != tier[leader] or high[i] < low[leader]:
                number, leader = number + 1, i
            band.iloc[i] = number
    return band
