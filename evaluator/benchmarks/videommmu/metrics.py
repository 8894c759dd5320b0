"""Video-MMMU's scores: per-track and per-discipline accuracy, `overall`, and the
knowledge gain of adaptation items (question only vs with the video).
"""

from __future__ import annotations

from evaluator.benchmarks.videommmu.answers import is_correct
from evaluator.benchmarks.videommmu.records import DISCIPLINES, TRACKS, Answer, Question, call_id, question_only_call_id
from evaluator.metrics import Tally, group_accuracy, per_video_stats, ratio_pct
from evaluator.records import BenchmarkScore, Responses, ScoringContext, pct


def knowledge_gain(before: list[bool], after: list[bool]) -> dict:
    """Δknowledge and the transition rates over the Adaptation items (paper §5).

    Δknowledge = (acc_after - acc_before) / (100 - acc_before) x 100, which with counts is
    (right_after - right_before) / wrong_before x 100; None when nothing was wrong before.
    """
    n = len(before)
    right_before = sum(before)
    wrong_to_right = sum(1 for b, a in zip(before, after) if a and not b)
    right_to_wrong = sum(1 for b, a in zip(before, after) if b and not a)
    return {
        "delta_knowledge": pct(sum(after) - right_before, n - right_before),
        "wrong_to_right": pct(wrong_to_right, n - right_before),
        "right_to_wrong": pct(right_to_wrong, right_before),
        "adaptation_question_only": pct(right_before, n),
        "n_wrong_to_right": wrong_to_right,
        "n_right_to_wrong": right_to_wrong,
        "n_right_before": right_before,
        "n_wrong_before": n - right_before,
    }


_NO_GAIN = dict.fromkeys(("delta_knowledge", "wrong_to_right", "right_to_wrong",
                          "adaptation_question_only", "n_wrong_to_right", "n_right_to_wrong",
                          "n_right_before", "n_wrong_before"))

# Why Δknowledge has no number (published beside it as `delta_knowledge_note`).
NO_QUESTION_ONLY = ("not computed: the submission has no question-only answers (the Adaptation questions asked "
                    "without the video, call kind 'question-only'), so there is no score before the lecture")
NO_PAIRS = ("not computed: no Adaptation question was answered both without the video (question-only) "
            "and with it")


def _ordered(groups: dict, order: list[str]) -> dict:
    return {k: groups[k] for k in order if k in groups} | {k: v for k, v in groups.items() if k not in order}


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    key = {a.id: a for a in answers}
    tally, before_tally = Tally(), Tally()
    correct: list[float] = []
    before: list[bool] = []
    after: list[bool] = []
    any_before = False
    for q in questions:
        answer = key[q.id]
        given = responses.get(call_id(q))
        right = is_correct(q, answer, given, tally)
        correct.append(1.0 if right else 0.0)
        if q.question_only_video:
            pred = responses.get(question_only_call_id(q))
            any_before = any_before or pred is not None
            asked_before = is_correct(q, answer, pred, before_tally)
            if pred is not None and given is not None:  # Δknowledge: items answered both ways only
                before.append(asked_before)
                after.append(right)

    by_track, n_track = group_accuracy(zip((q.track for q in questions), correct))
    by_discipline, n_discipline = group_accuracy(zip((q.discipline for q in questions), correct))
    metrics = {
        "overall": pct(sum(correct), len(correct)),
        **{track: by_track.get(track) for track in TRACKS},
        **(knowledge_gain(before, after) if before else _NO_GAIN),
        **({} if before else {"delta_knowledge_note": NO_PAIRS if any_before else NO_QUESTION_ONLY}),
        "by_discipline": _ordered(by_discipline, DISCIPLINES),
        "n_by_discipline": _ordered(n_discipline, DISCIPLINES),
        "n_by_track": _ordered(n_track, list(TRACKS)),
    }
    counts = tally.as_dict() | {
        "items": len(questions),
        "question_only_calls_used": before_tally.used,
        "question_only_missing": before_tally.missing,
        "question_only_unparseable": before_tally.unparseable,
        "delta_knowledge_pairs": len(before),  # Adaptation items answered with and without the video
    }
    # One row per lecture video, [correct, items]: the bootstrap resamples videos.
    stats = per_video_stats([q.video for q in questions], [correct, [1.0] * len(correct)])
    return BenchmarkScore(metrics, counts, stats, lambda sums: ratio_pct(sums, 0, 1))
