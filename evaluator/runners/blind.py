"""The "no video" (blind) pass of a model-ID run, as the worker runs it.

    answers = answer(runner, request, suite, hidden_calls, job, blind_pass=True)
    extra = blocks(answers, suite, key, judge, options, bootstrap_samples, job)
    # -> Result(cost=..., blind_scores=..., blind_counts=...), beside the real scores

The runner answers every call, then, when the worker's LEADERBOARD_BLIND_PASS is on,
every call again with black frames (ModelRunner.run(blind=True)) in the same job: the
same time limit, no extra quota. The blind answers are scored like the real ones,
against the same hidden answers by the same judge; only each benchmark's headline and
its interval are kept (scoring.headlines). `job` is the worker's Job: its `progress`
and `check` may raise to stop, `log.add` notes what happens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.predictions import as_responses
from evaluator.records import Prediction
from evaluator.runners.model import BLANK_FRAMES
from evaluator.scoring import headlines, score_responses


@dataclass
class Answers:
    predictions: list[Prediction]  # the real pass
    settings: dict[str, Any]  # the runner's settings of the real pass
    cost: dict[str, Any] | None  # its cost; the blind pass's under "blind_pass"
    blind: list[Prediction] | None = None  # the blind pass, when one ran


def answer(runner, request, suite, hidden_calls, job, blind_pass: bool) -> Answers:
    """The real pass, then the blind one when `blind_pass`."""
    predictions = runner.run(request, suite, hidden_calls, job.progress)
    answers = Answers(predictions, dict(runner.settings), getattr(runner, "cost", None))
    if blind_pass:
        job.log.add("blind pass: every call again, every frame black")
        answers.blind = runner.run(request, suite, hidden_calls, job.progress, blind=True)
        answers.settings["blind_pass"] = BLANK_FRAMES
        answers.cost = answers.cost and answers.cost | {"blind_pass": getattr(runner, "cost", None)}
    return answers


def blocks(answers: Answers, suite, key, judge, options, bootstrap_samples: int, job) -> dict[str, Any]:
    """Result's optional blocks of the run: `cost`, and with a blind pass `blind_scores`
    (headlines only) and `blind_counts`."""
    if answers.blind is None:
        return {"cost": answers.cost}
    scores, counts = score_responses(suite, key, as_responses(answers.blind), judge, options, worker_run=True,
                                     bootstrap_samples=bootstrap_samples,
                                     on_benchmark=lambda name, benchmark_counts: job.check())
    job.log.add("blind pass scored: " + ", ".join(f"{name} {m.get('overall')}" for name, m in scores.items()))
    return {"cost": answers.cost, "blind_scores": headlines(scores), "blind_counts": counts}
