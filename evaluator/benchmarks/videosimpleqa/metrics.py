"""Video SimpleQA's scores: judged grades, F-score, calibration error, and the
per-category, per-hop and sub-question figures.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluator.benchmarks.videosimpleqa.answers import grade_of, read_prediction
from evaluator.benchmarks.videosimpleqa.records import (
    ECE_BINS,
    JUDGE_TASK,
    PRIMARY,
    Answer,
    Question,
    usable,
    call_id,
    hop_call_id,
)
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, JudgeRequest
from evaluator.metrics import Tally, per_video_stats
from evaluator.records import BenchmarkScore, Responses, ScoringContext, pct, round_half_up


def f_score(correct: int, not_attempted: int, total: int) -> float | None:
    """Harmonic mean of CO and CGA in closed form, 2c / (2N - n); None if N = 0."""
    return pct(2 * correct, 2 * total - not_attempted)


@dataclass
class Grades:
    """CORRECT / INCORRECT / NOT_ATTEMPTED counts of one group of answers."""

    correct: int = 0
    incorrect: int = 0
    not_attempted: int = 0

    @classmethod
    def of(cls, labels) -> "Grades":
        g = cls()
        for label in labels:
            g.correct += label == CORRECT
            g.incorrect += label == INCORRECT
            g.not_attempted += label == NOT_ATTEMPTED
        return g

    @property
    def n(self) -> int:
        return self.correct + self.incorrect + self.not_attempted

    def f_score(self) -> float | None:
        return f_score(self.correct, self.not_attempted, self.n)

    def cga(self) -> float | None:
        attempted = self.correct + self.incorrect
        return None if not self.n else (pct(self.correct, attempted) if attempted else 0.0)

    def summary(self) -> dict[str, float | None]:
        n = self.n
        return {"f_score": self.f_score(), "correct": pct(self.correct, n), "incorrect": pct(self.incorrect, n),
                "not_attempted": pct(self.not_attempted, n), "cga": self.cga()}


def _grade_all(questions: list[Question], gold: dict[str, Answer], responses: Responses,
               ctx: ScoringContext, tally: Tally) -> tuple[list[str], list[float | None], dict]:
    """Grades of the scored multi-hop items (in order) and, in worker runs, of every
    sub-question: {(item, hop): grade}. All answers go to the judge in ONE batch."""
    main: list[str] = []
    confidences: list[float | None] = []
    sub: dict[tuple[str, int], str] = {}
    requests: list[JudgeRequest] = []
    slots: list[tuple[Any, Any]] = []  # where each judgement goes: (container, key)

    seen = ctx.judge_frames or (lambda video: ())  # the frames a judge that sees them is shown

    def ask(store, key, question: str, target: str, answer: str | None, video: str) -> None:
        if answer is None:
            store[key] = NOT_ATTEMPTED  # nothing to grade: no judge call
        else:
            store[key] = None
            requests.append(JudgeRequest(JUDGE_TASK, question, target, answer, seen(video)))
            slots.append((store, key))

    for q in questions:
        if not q.question:
            continue
        answer, confidence = read_prediction(responses.get(call_id(q.id)), tally)
        main.append(NOT_ATTEMPTED)
        confidences.append(confidence)
        ask(main, len(main) - 1, q.question, gold[q.id].answer, answer, q.video)
    if ctx.worker_run:
        for q in questions:
            for j, s in enumerate(gold[q.id].sub_questions, 1):
                if usable(s):
                    answer, _ = read_prediction(responses.get(hop_call_id(q.id, j)), tally)
                    ask(sub, (q.id, j), s.question, s.answer, answer, q.video)
    if requests:
        for (store, key), judgement in zip(slots, ctx.judge.judge(requests), strict=True):
            store[key] = grade_of(judgement.label, tally)
    return main, confidences, sub


def expected_calibration_error(confidences: list[float | None],
                               grades: list[str]) -> tuple[float | None, int, list]:
    """ECE in percent over items with a confidence: 10 equal-width bins [0,10), ...,
    [90,100] (100 goes in the last), sum over bins of share x |accuracy - mean confidence|.
    Returns (ece, items used, per-bin rows for a reliability plot)."""
    pairs = [(c, g == CORRECT) for c, g in zip(confidences, grades) if c is not None]
    if not pairs:
        return None, 0, []
    conf = np.array([c for c, _ in pairs]) / 100.0
    right = np.array([r for _, r in pairs], dtype=np.float64)
    bins = np.minimum((conf * ECE_BINS).astype(np.int64), ECE_BINS - 1)
    count = np.bincount(bins, minlength=ECE_BINS)
    conf_sum = np.bincount(bins, conf, minlength=ECE_BINS)
    right_sum = np.bincount(bins, right, minlength=ECE_BINS)
    ece = round_half_up(float(100.0 * np.abs(right_sum - conf_sum).sum() / len(pairs)))
    rows = [{"bin": f"{10 * b}-{10 * (b + 1)}", "n": int(count[b]), "accuracy": pct(right_sum[b], count[b]),
             "confidence": pct(conf_sum[b], count[b])} for b in range(ECE_BINS) if count[b]]
    return ece, len(pairs), rows


def _by(keys: list, grades: list[str], order: list[str] | None = None) -> tuple[dict, dict]:
    """Summaries and item counts per group key (string keys, as JSON needs), in `order`
    first (e.g. the paper's column order), then sorted."""
    groups: dict[str, list[str]] = defaultdict(list)
    for key, grade in zip(keys, grades):
        groups[str(key)].append(grade)
    rank = {k: i for i, k in enumerate(order or [])}
    names = sorted(groups, key=lambda k: (rank.get(k, len(rank)), k))
    return {k: Grades.of(groups[k]).summary() for k in names}, {k: len(groups[k]) for k in names}


def _subqa_metrics(scored: list[Question], all_questions: list[Question], main: list[str],
                   sub: dict[tuple[str, int], str]) -> dict[str, Any]:
    """Per-hop F (subqa), and per hop count the F of each hop and of the multi-hop
    question on that subset (the paper's Tables 4 and 8)."""
    hop_grades: dict[str, list[str]] = defaultdict(list)
    per_count: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    hops_of = {q.id: q.hops for q in all_questions}
    for (item, j), grade in sub.items():
        hop_grades[f"hop{j}"].append(grade)
        per_count[str(hops_of[item])][f"hop{j}"].append(grade)
    for q, grade in zip(scored, main):
        per_count[str(q.hops)]["multi_hop"].append(grade)
    order = sorted(hop_grades, key=lambda h: int(h[3:]))
    return {
        "subqa": {h: Grades.of(hop_grades[h]).f_score() for h in order},
        "n_subqa": {h: len(hop_grades[h]) for h in order},
        "subqa_by_hop_count": {k: {h: Grades.of(g).f_score() for h, g in sorted(cells.items())}
                               for k, cells in sorted(per_count.items())},
        "n_subqa_by_hop_count": {k: {h: len(g) for h, g in sorted(cells.items())}
                                 for k, cells in sorted(per_count.items())},
    }


def _overall_from(sums: np.ndarray) -> np.ndarray:
    """F from per-video column sums [correct, not_attempted, items]: 100 * 2c / (2N - n)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * 2.0 * sums[:, 0] / (2.0 * sums[:, 2] - sums[:, 1])


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    """The published metrics over the items that have a multi-hop question (N); missing
    answers are NOT_ATTEMPTED, unreadable judge outputs INCORRECT, both counted."""
    gold = {a.id: a for a in answers}
    tally = Tally()
    main, confidences, sub = _grade_all(questions, gold, responses, ctx, tally)
    scored = [q for q in questions if q.question]  # same order as `main`
    summary = Grades.of(main).summary()
    ece, calibration_n, bins = expected_calibration_error(confidences, main)
    by_hop, n_by_hop = _by([q.hops for q in scored], main)
    metrics: dict[str, Any] = {
        "overall": summary.pop("f_score"),
        **summary,  # correct, incorrect, not_attempted, cga
        "ece": ece,
        "calibration_n": calibration_n,
        "by_hop": by_hop,
        "n_by_hop": n_by_hop,
    }
    if any(q.category for q in scored):
        categories = [q.category or "unlabelled" for q in scored]
        metrics["by_category"], metrics["n_by_category"] = _by(categories, main, list(PRIMARY))
    if ctx.worker_run:
        metrics.update(_subqa_metrics(scored, questions, main, sub))

    columns = [[g == CORRECT for g in main], [g == NOT_ATTEMPTED for g in main], [1] * len(main)]
    stats = per_video_stats([q.video for q in scored], columns)
    counts = tally.as_dict() | {"items": len(scored), "excluded_items": len(questions) - len(scored)}
    grades = {call_id(q.id): g for q, g in zip(scored, main)}
    grades.update({hop_call_id(item, j): g for (item, j), g in sub.items()})
    return BenchmarkScore(metrics, counts, stats, _overall_from,
                          details={"grades": grades, "calibration_bins": bins})
