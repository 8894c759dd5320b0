"""ExAct's scores: micro accuracy, Good Execution and Tips, by domain and activity.
A response is read with the shared `read_choice` (no answers.py of its own).
"""

from __future__ import annotations

from evaluator.benchmarks.exact.records import LABELS, Answer, Question, call_id
from evaluator.metrics import Tally, group_accuracy, per_video_stats, ratio_pct, read_choice
from evaluator.records import BenchmarkScore, Responses, ScoringContext, pct


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    gold = {a.id: a.label for a in answers}
    tally = Tally()
    correct = []
    for q in questions:
        chosen = read_choice(responses.get(call_id(q.id)), LABELS, q.options, tally)
        correct.append(1.0 if chosen == gold[q.id] else 0.0)

    by_domain, n_domain = group_accuracy(zip((q.domain for q in questions), correct))
    by_activity, n_activity = group_accuracy(zip((q.activity for q in questions), correct))
    by_category, n_category = group_accuracy(zip((q.category for q in questions), correct))
    metrics = {
        "overall": pct(sum(correct), len(correct)),
        "good_execution": by_category.get("good_execution"),
        "tips": by_category.get("tips"),
        "by_domain": by_domain,
        "by_activity": by_activity,
        "n_by_domain": n_domain,
        "n_by_activity": n_activity,
        "n_by_category": n_category,  # good_execution and tips
    }
    stats = per_video_stats([q.video for q in questions], [correct, [1.0] * len(correct)])
    return BenchmarkScore(metrics, tally.as_dict() | {"items": len(questions)}, stats,
                          lambda sums: ratio_pct(sums, 0, 1))
