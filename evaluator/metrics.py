"""Small helpers shared by the benchmark scorers: reading answers out of
predictions with the unscored cases counted apart, grouped accuracies, and the
per-video statistics the bootstrap resamples.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Sequence

import numpy as np

from evaluator.answers import extract_choice, extract_number
from evaluator.records import Prediction, pct


@dataclass
class Tally:
    """Counts of calls that scored as wrong without being wrong answers.

    `missing`: no prediction for a call the scorer needed. `unparseable`: a response
    the extractor could not read. `judge_unparseable`: a judge reply that could not be
    read; `judge_unscored`: the judge gave no verdict (the offline matcher could not
    decide, or the judge failed). All score as not correct (fixed denominators, as the
    papers define) and are reported apart so a submitter can see why.
    """

    used: int = 0
    missing: int = 0
    unparseable: int = 0
    judge_unparseable: int = 0
    judge_unscored: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, int]:
        out = {
            "calls_used": self.used,
            "missing": self.missing,
            "unparseable": self.unparseable,
            "judge_unparseable": self.judge_unparseable,
            "judge_unscored": self.judge_unscored,
        }
        out.update(self.extra)
        return out


def read_with(pred: Prediction | None, tally: Tally, extractor: Callable[[str], Any]) -> Any:
    """What `extractor` reads from a prediction, or None (counted as missing or unparseable)."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return None
    value = extractor(pred.response)
    if value is None:
        tally.unparseable += 1
    return value


def read_choice(pred: Prediction | None, labels: Sequence[str], options: Sequence[str] | None,
                tally: Tally) -> str | None:
    """The label a prediction chose, or None (counted as missing or unparseable)."""
    # read_with's steps written out: no closure built per call (it runs for every MCQ item)
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return None
    value = extract_choice(pred.response, labels, options)
    if value is None:
        tally.unparseable += 1
    return value


def read_number(pred: Prediction | None, tally: Tally) -> float | None:
    return read_with(pred, tally, extract_number)


def group_accuracy(rows: Iterable[tuple[Hashable, float]]) -> tuple[dict, dict]:
    """Percent score and count per group from (group, score in [0, 1]) rows."""
    total: dict = defaultdict(float)
    count: dict = defaultdict(int)
    for key, value in rows:
        total[key] += value
        count[key] += 1
    return {k: pct(total[k], count[k]) for k in count}, dict(count)


def per_video_stats(video_of_row: Sequence[str], columns: Sequence[Sequence[float]]) -> np.ndarray:
    """Sum per-row statistics into one row per video: shape (videos, len(columns)).

    The bootstrap resamples these rows, so every headline must be a function of
    column sums (ratios of sums are fine).
    """
    index = {v: i for i, v in enumerate(dict.fromkeys(video_of_row))}  # in order of first appearance
    rows = np.fromiter(map(index.__getitem__, video_of_row), dtype=np.int64, count=len(video_of_row))
    out = np.zeros((len(index), len(columns)), dtype=np.float64)
    for j, col in enumerate(columns):
        np.add.at(out[:, j], rows, np.asarray(col, dtype=np.float64))
    return out


def ratio_pct(columns_sum: np.ndarray, num: int, den: int) -> np.ndarray:
    """100 * sums[:, num] / sums[:, den], NaN where the denominator is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * columns_sum[:, num] / columns_sum[:, den]
