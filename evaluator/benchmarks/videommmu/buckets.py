"""Video-MMMU's breakdown buckets (tracks, disciplines, the knowledge-gain group) and
paired-statistics hooks, Δknowledge among them (evaluator/benchmarks/hooks.py says
what each name is for)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.benchmarks.hooks import Buckets, ExtraBucket, Path, count, keyed, scalars

# the public Question fields its results are broken down by (`import --check` counts them)
BREAKDOWN_FIELDS = ("track", "question_type", "discipline")
PAIRED_REDUCER = "ratio"

# The knowledge gain is measured on the adaptation items that have a question-only
# call; its counts of right/wrong answers are scores too.
GAIN = ("delta_knowledge", "adaptation_question_only", "wrong_to_right", "right_to_wrong",
        "n_wrong_to_right", "n_right_to_wrong", "n_right_before", "n_wrong_before")
DELTA_KNOWLEDGE = ("delta_knowledge",)
# The knowledge-gain figures are hidden whenever the Adaptation track is (the small-bucket
# rule): with the track hidden, its score over the items answered both ways would still be
# right-before + wrong→right - right→wrong.
HIDDEN_WITH = {("adaptation",): tuple((name,) for name in GAIN)}


def count_buckets(metrics: dict, minimum: int) -> Buckets:
    yield from scalars(metrics, "n_by_track")
    yield from keyed(metrics, "by_discipline", "n_by_discipline")
    right, wrong = metrics.get("n_right_before"), metrics.get("n_wrong_before")
    if right is None or wrong is None:  # already hidden by an earlier pass: the track's size
        group = count((metrics.get("n_by_track") or {}).get("adaptation"))
    else:
        group = count(right) + count(wrong)
    if group < minimum:
        # the rates' own denominators would give away the question-only score: all go together
        yield from (((name,), group) for name in GAIN)
        return
    # Δknowledge x wrong before = wrong→right - right→wrong: with either transition hidden,
    # the other would give it back, so a small one hides both
    both = min(count(right), count(wrong))
    yield from ((("wrong_to_right",), both), (("n_wrong_to_right",), both))
    yield from ((("right_to_wrong",), both), (("n_right_to_wrong",), both))


def paired_bucket_paths(q: Any, labelled: bool) -> list[Path]:
    return [(q.track,), ("by_discipline", q.discipline)]


def paired_extra(score_alone: Callable[[list], dict], questions: list, metrics: dict) -> list[ExtraBucket]:
    """Δknowledge = (right after - right before) / (wrong before), as per-video sums
    [after - before, 1 - before] over the Adaptation items answered both with and
    without the video, as the scorer counts them; each item read by scoring it alone
    (`score_alone([q])` gives its metrics)."""
    if metrics.get("n_right_before") is None:
        return []  # no question-only answers in this submission: no Δknowledge
    rows: dict[str, list[float]] = {}
    for q in questions:
        if not q.question_only_video:
            continue
        alone = score_alone([q])
        if alone["n_right_before"] is None:
            continue  # not answered both ways: not in Δknowledge
        after = alone["overall"] == 100
        before = alone["n_right_before"] == 1
        row = rows.setdefault(q.video, [0.0, 0.0])
        row[0] += float(after) - float(before)
        row[1] += 1.0 - float(before)
    if not rows:
        return []
    n = int(metrics["n_right_before"]) + int(metrics["n_wrong_before"])
    return [ExtraBucket(path=DELTA_KNOWLEDGE, reducer="ratio", n=n, rows=rows)]
