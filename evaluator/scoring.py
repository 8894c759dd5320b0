"""How a prediction file becomes a result.

    suite (public) + answer key (private) + predictions + judge
        -> each benchmark module's score()        metrics and breakdowns
        -> bootstrap interval of every headline   (resampling videos)
        -> Result                                 one JSON per submission

A benchmark with no prediction at all is left out of `scores` (not attempted);
within an attempted benchmark, missing calls score as unanswered and are counted.
Responses that are only a reasoning trace cut off before a final answer are
unparseable (and also counted apart, `no_final_answer`) unless
ScoringOptions.grade_truncated_reasoning reads the trace.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timezone
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, Callable

from evaluator import CODE_VERSION, benchmarks, bootstrap
from evaluator.answers import read_cut_off_reasoning, reasoning_cut_off
from evaluator.judges.judge_set import describe as describe_judge
from evaluator.judges.judge_set import for_benchmark
from evaluator.predictions import read_predictions
from evaluator.protocol_card import ProtocolCard, file_card
from evaluator.records import BenchmarkScore, Prediction, Responses, ScoringContext, ScoringOptions
from evaluator.reference import resolve_options
from evaluator.result import Result
from evaluator.runs import combine, spread
from evaluator.suite import AnswerKey, Suite


def benchmark_of_calls(suite: Suite, key: AnswerKey) -> dict[str, str]:
    """Call id -> benchmark, for the public and the hidden calls."""
    bench_of = {c.id: c.benchmark for c in suite.calls}
    bench_of.update({c.id: c.benchmark for c in key.hidden_calls})
    return bench_of


def answered_per_benchmark(bench_of: dict[str, str], responses: Responses) -> Counter:
    ids = set(responses.by_id)
    ids.update(map(itemgetter(0), responses.by_context))
    answered = Counter(map(bench_of.get, ids))  # counted in C: one call per response otherwise
    answered.pop(None, None)  # ids of no call of the suite
    return answered


def without_final_answer(bench_of: dict[str, str], responses: Responses) -> Counter:
    """Per benchmark, responses that are only a reasoning trace cut off before any
    final answer (evaluator.answers.reasoning_cut_off); counted apart as `no_final_answer`."""
    preds = [*responses.by_id.values(), *responses.by_context.values()]
    return Counter(bench_of[p.id] for p in preds if reasoning_cut_off(p.response) and p.id in bench_of)


def reading_cut_off_reasoning(responses: Responses) -> Responses:
    """Responses whose cut-off reasoning traces are read as answers
    (ScoringOptions.grade_truncated_reasoning)."""
    def read(p: Prediction) -> Prediction:
        text = read_cut_off_reasoning(p.response)
        return p if text is p.response else replace(p, response=text)
    return Responses({k: read(p) for k, p in responses.by_id.items()},
                     {k: read(p) for k, p in responses.by_context.items()},
                     {run: reading_cut_off_reasoning(r) for run, r in responses.runs.items()})


def score_responses(suite: Suite, key: AnswerKey, responses: Responses, judge,
                    options: ScoringOptions | None = None, worker_run: bool = False,
                    bootstrap_samples: int = 1000, seed: int = 0,
                    on_benchmark: Callable[[str, dict], None] | None = None,
                    paired: dict | None = None, judge_frames=None) -> tuple[dict, dict]:
    """(scores, counts) for every attempted benchmark of the suite. `judge`: one judge, or
    a JudgeSet (each judged benchmark its own); `judge_frames`: video id -> frames a judge
    that sees them is shown (evaluator/judge_frames.py).

    `paired`, when given, receives each attempted benchmark's per-video statistics for
    comparisons (evaluator.paired; private: they must never be published).

    `on_benchmark(name, counts)` is called after each benchmark (the worker records
    progress there, and may raise to stop the job)."""
    ctx = ScoringContext(judge=judge, options=resolve_options(options), worker_run=worker_run,
                         judge_frames=judge_frames)
    bench_of = benchmark_of_calls(suite, key)
    runs = [responses, *responses.runs.values()]  # a benchmark scores every run it was answered in
    answered = [answered_per_benchmark(bench_of, r) for r in runs]
    cut_off = [without_final_answer(bench_of, r) for r in runs]
    if ctx.options.grade_truncated_reasoning:
        runs = [reading_cut_off_reasoning(r) for r in runs]
    calls_per_benchmark = Counter(map(attrgetter("benchmark"), suite.calls))
    scores: dict[str, dict[str, Any]] = {}
    counts: dict[str, dict[str, Any]] = {}
    for name in suite.manifest["benchmarks"]:
        if not answered[0][name]:
            counts[name] = {"calls": calls_per_benchmark[name], "answered": 0, "attempted": False}
        else:
            mine = [i for i, a in enumerate(answered) if a[name]]
            mine_ctx = replace(ctx, judge=for_benchmark(judge, name))
            result = _scored(name, suite, key, [runs[i] for i in mine], mine_ctx, paired)
            metrics = dict(result.metrics)
            metrics["overall_ci95"] = bootstrap.interval(result.video_stats, result.overall_from,
                                                         samples=bootstrap_samples, seed=seed)
            scores[name] = metrics
            # the first run's counts; with repeated runs, `runs`, each run's overall and counts
            counts[name] = {"calls": calls_per_benchmark[name], "answered": answered[0][name], "attempted": True,
                            **result.counts, "no_final_answer": cut_off[0][name], **(spread(result) or {})}
            if len(mine) > 1:
                counts[name]["answered_per_run"] = [answered[i][name] for i in mine]
        if on_benchmark is not None:
            on_benchmark(name, counts[name])
    return scores, counts


def _scored(name: str, suite: Suite, key: AnswerKey, runs: list[Responses], ctx: ScoringContext,
            paired: dict | None) -> BenchmarkScore:
    """One benchmark scored on each of its runs, combined (evaluator/runs.py); its
    per-video statistics for comparisons into `paired` when given."""
    module = benchmarks.get(name)
    questions, answers = suite.questions[name], key.answers[name]
    each = [module.score(questions, answers, r, ctx) for r in runs]
    if paired is not None:
        from evaluator.paired import collect_benchmark, merge_runs

        paired[name] = merge_runs([collect_benchmark(name, questions, answers, r, ctx, s, suite.id)
                                   for r, s in zip(runs, each)])
    return combine(each)


def headlines(scores: dict) -> dict:
    """Only each benchmark's headline and its interval: what the blind pass publishes
    (its breakdowns would add nothing a reader needs, and more cells to disclose)."""
    return {name: {k: metrics[k] for k in ("overall", "overall_ci95") if k in metrics}
            for name, metrics in scores.items()}


def make_result(suite: Suite, scores: dict, counts: dict, judge, options: ScoringOptions,
                submission: dict, runner: dict | None = None, protocol: ProtocolCard | None = None,
                **extra) -> Result:
    """The result record; `protocol` is the run's card (a model-id run's, evaluator/protocol_card.py),
    by default the card of answers the server did not produce (a prediction file, a baseline).
    `extra`: Result's optional blocks of a model-id run (blind_scores, blind_counts, cost)."""
    return Result(
        submission=submission,
        suite_id=suite.id,
        judge=describe_judge(judge),
        runner=runner or {"name": "predictions-file"},
        options=resolve_options(options).record(),
        protocol=protocol or file_card(suite, judge, options, submission, counts),
        code_version=CODE_VERSION,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        scores=scores,
        counts=counts,
        **extra,
    )


def score_file(suite: Suite, key: AnswerKey, predictions: Path, judge, options: ScoringOptions,
               max_bytes: int, submission: dict | None = None, worker_run: bool = False,
               bootstrap_samples: int = 1000) -> Result:
    """Validate a prediction file and score it; the CLI's `score` and the worker use this."""
    from evaluator.hashing import file_sha256

    calls = suite.calls_by_id()
    if worker_run:
        calls.update({c.id: c for c in key.hidden_calls})
    responses = read_predictions(predictions, calls, max_bytes)
    scores, counts = score_responses(suite, key, responses, judge, options, worker_run, bootstrap_samples)
    meta = {"kind": "predictions", "file_sha256": file_sha256(predictions)} | (submission or {})
    return make_result(suite, scores, counts, judge, options, meta)
