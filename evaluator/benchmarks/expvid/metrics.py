"""ExpVid's scores: per-task accuracy (Jaccard for generation, judged blanks for
level 3), the three levels and `overall`, per discipline.
"""

from __future__ import annotations

import numpy as np

from evaluator.benchmarks.expvid.answers import read_steps, read_verification
from evaluator.benchmarks.expvid.blanks import extract_blanks
from evaluator.benchmarks.expvid.records import JUDGE_TASK, TASKS, Answer, Question, call_id
from evaluator.judges.base import CORRECT, UNPARSEABLE, UNSCORED, JudgeRequest
from evaluator.metrics import Tally, per_video_stats, ratio_pct, read_choice, read_number
from evaluator.records import BenchmarkScore, Prediction, Responses, ScoringContext, pct, round_half_up


def jaccard(predicted: list[int] | None, gold: list[int], n_steps: int | None) -> float:
    """Set Jaccard of step numbers: duplicates and numbers outside [1, n_steps]
    dropped, order ignored; nothing predicted scores 0."""
    if not predicted:
        return 0.0
    guess = {s for s in predicted if n_steps is None or 1 <= s <= n_steps}
    truth = set(gold)
    return len(guess & truth) / len(guess | truth) if guess else 0.0


def _credit(q: Question, a: Answer, pred: Prediction | None, tally: Tally) -> float:
    """Score in [0, 1] of one level-1 or level-2 item."""
    if q.task == "verification":
        return float(read_verification(pred, q, tally) == a.label)
    if q.task == "generation":
        return jaccard(read_steps(pred, tally), a.steps, q.step_count)
    if q.task == "prediction":
        return float(read_number(pred, tally) == a.step)
    return float(read_choice(pred, q.labels, q.options, tally) == a.label)


def _blank_requests(q: Question, a: Answer, pred: Prediction | None, tally: Tally) -> list[JudgeRequest]:
    """One judge request per blank the response filled, aligned by position; blanks
    it left empty or missing are wrong without a judge, extra fillers are ignored."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return []
    fillers = extract_blanks(pred.response, len(a.fillers))
    if fillers is None:
        tally.unparseable += 1
        return []
    requests = [JudgeRequest(JUDGE_TASK, q.question, gold, filler.strip())
                for gold, filler in zip(a.fillers, fillers) if filler and filler.strip()]
    tally.extra["missing_blanks"] += len(a.fillers) - len(requests)
    return requests


def overall_from_levels(present: tuple[int, ...]):
    """overall_from for the bootstrap: the mean of the level percentages of the levels
    the suite has, from column sums [l1_correct, l1_n, l2_score, l2_n, l3_correct, l3_blanks]."""
    def overall(sums: np.ndarray) -> np.ndarray:
        if not present:
            return np.full(len(sums), np.nan)
        return np.mean([ratio_pct(sums, 2 * (lv - 1), 2 * lv - 1) for lv in present], axis=0)
    return overall


def _level_scores(sums: np.ndarray) -> dict[str, float | None]:
    """level1..3 and overall from one row of the six level columns."""
    sums = np.asarray(sums, dtype=np.float64)
    present = tuple(lv for lv in (1, 2, 3) if sums[2 * lv - 1] > 0)
    out = {f"level{lv}": pct(float(sums[2 * lv - 2]), float(sums[2 * lv - 1])) for lv in (1, 2, 3)}
    out["overall"] = round_half_up(float(overall_from_levels(present)(sums[None])[0])) if present else None
    return out


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    gold = {a.id: a for a in answers}
    tally = Tally(extra={"missing_blanks": 0})
    credit = np.zeros(len(questions))  # score in [0, 1], or correct blanks (level 3)
    weight = np.ones(len(questions))  # 1, or the item's blanks (level 3)
    requests, owner = [], []
    for i, q in enumerate(questions):
        a, pred = gold[q.id], responses.get(call_id(q.id))
        if q.level == 3:
            weight[i] = len(a.fillers)
            batch = _blank_requests(q, a, pred, tally)
            requests += batch
            owner += [i] * len(batch)
        else:
            credit[i] = _credit(q, a, pred, tally)
    for i, judgement in zip(owner, ctx.judge.judge(requests) if requests else []):
        credit[i] += judgement.label == CORRECT
        tally.judge_unparseable += int(judgement.label == UNPARSEABLE)
        tally.judge_unscored += int(judgement.label == UNSCORED)
    return _summarise(questions, credit, weight, tally)


def _summarise(questions: list[Question], credit: np.ndarray, weight: np.ndarray, tally: Tally) -> BenchmarkScore:
    level = np.fromiter((q.level for q in questions), dtype=np.int64, count=len(questions))
    # Six level columns: [l1 credit, l1 n, l2 credit, l2 n, l3 correct blanks, l3 blanks].
    columns = [c for lv in (1, 2, 3) for c in (credit * (level == lv), weight * (level == lv))]
    stats = per_video_stats([q.source for q in questions], columns)
    by_discipline = per_video_stats([q.discipline for q in questions], columns)
    disciplines = list(dict.fromkeys(q.discipline for q in questions))
    task_index = np.fromiter((TASKS.index(q.task) for q in questions), dtype=np.int64, count=len(questions))
    task_credit = np.bincount(task_index, weights=credit, minlength=len(TASKS))
    task_weight = np.bincount(task_index, weights=weight, minlength=len(TASKS))
    totals = stats.sum(0)
    present = tuple(lv for lv in (1, 2, 3) if totals[2 * lv - 1] > 0)

    metrics = _level_scores(totals)
    metrics = {"overall": metrics.pop("overall"), **metrics}
    metrics |= {t: pct(float(task_credit[j]), float(task_weight[j])) for j, t in enumerate(TASKS)}
    metrics["by_discipline"] = {d: _level_scores(row) for d, row in zip(disciplines, by_discipline)}
    # n counts are the denominators: questions for levels 1-2, blanks for level 3.
    metrics["n_by_discipline"] = {d: {f"level{lv}": int(row[2 * lv - 1]) for lv in (1, 2, 3)}
                                  for d, row in zip(disciplines, by_discipline)}
    metrics["n_by_level"] = {f"level{lv}": int(totals[2 * lv - 1]) for lv in (1, 2, 3)}
    metrics["n_by_task"] = {t: int(task_weight[j]) for j, t in enumerate(TASKS)}
    counts = tally.as_dict() | {"items": len(questions), "blanks": int(totals[5])}
    return BenchmarkScore(metrics, counts, stats, overall_from_levels(present))
