"""Running one claimed request: fetch the suite, its answer key and the prediction file,
validate, run the model (model-ID requests), score (`Evaluator`, which the Worker holds);
and what a failure tells the submitter (`classify`)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from evaluator import raw_outputs
from evaluator.errors import PredictionFileError, Problem, SuiteError
from evaluator.predictions import as_responses, parse_predictions
from evaluator.protocol_card import model_card
from evaluator.runners import blind, get_runner
from evaluator.errors import ModelNotFound, RunnerUnavailable
from evaluator.scoring import make_result, score_responses
from evaluator.suite import AnswerKey, Suite, load_answers, load_suite
from submissions.errors import NotFoundError, StoreError
from submissions.requests import Reason, Request
from worker.job import Job
from worker.errors import JobFailed

if TYPE_CHECKING:
    from evaluator.records import ScoringOptions
    from evaluator.result import Result
    from space_config.settings import Settings
    from submissions.stores import Stores

INTERNAL_MESSAGE = ("The worker hit an internal error while evaluating this submission. This is not a "
                    "problem with your submission: the maintainers have the details in its private log "
                    "and can requeue it.")


def classify(error: BaseException) -> tuple[Reason, str]:
    """The reason code and the submitter-facing message for an exception."""
    if isinstance(error, JobFailed):
        return error.reason, str(error)
    if isinstance(error, PredictionFileError):
        return Reason.BAD_PREDICTIONS, str(error)
    if isinstance(error, ModelNotFound):
        # Its message names the model (and revision) the worker could not find.
        return Reason.DOWNLOAD, (f"The worker could not load the model: {str(error).rstrip('.')}. Check that the model exists "
                                 f"at that revision and is public, then submit it again.")
    if isinstance(error, RunnerUnavailable):
        # The missing piece is ours, not the submission's: "internal", with the runner's own words.
        return Reason.INTERNAL, str(error)
    if isinstance(error, MemoryError) or type(error).__name__ == "OutOfMemoryError":  # torch.cuda's
        return Reason.OUT_OF_MEMORY, ("The evaluation ran out of memory on the worker. Try fewer frames or "
                                      "a smaller precision, or ask the maintainers for a larger machine.")
    return Reason.INTERNAL, INTERNAL_MESSAGE


class Evaluator:
    """Turns a claimed job into its result: one per worker, keeping what is costly to make
    again (the judges, each suite with its answer key) from job to job."""

    def __init__(self, stores: "Stores", settings: "Settings", options: "ScoringOptions"):
        self.stores = stores
        self.settings = settings
        self.options = options
        self._judge = None
        self._suites: dict[tuple[str, str], tuple[Suite, AnswerKey]] = {}  # by (suite id, answer key hash)

    def evaluate(self, job: Job) -> "Result":
        request = job.request
        if request.kind == "model":
            return self._evaluate_model(job)
        suite, key = self._fetch_suite(job)
        data = self._fetch_predictions(job)
        responses = self._validate(request, suite, data)
        job.log.add(f"prediction file valid: {len(responses.by_id) + len(responses.by_context)} predictions")
        scores, counts = self._score(job, suite, key, responses, worker_run=False)
        submission = self._submission(request) | {"file_sha256": hashlib.sha256(data).hexdigest()}
        return make_result(suite, scores, counts, self.judge, self.options, submission,
                           judge_usage=self.judge.usage())

    def _evaluate_model(self, job: Job) -> "Result":
        """Load the model, answer every call (hidden ones too: a worker run), score."""
        request = job.request
        suite, key = self._fetch_suite(job)  # before the model: a missing suite costs no GPU time
        job.progress(0, len(suite.calls) + len(key.hidden_calls), "loading model")
        revision = f" at revision {request.revision}" if request.revision else ""
        job.log.add(f"loading {request.model}{revision}")
        runner = get_runner(request, self.settings)  # ModelNotFound, RunnerUnavailable
        try:
            job.check()
            answers = blind.answer(runner, request, suite, key.hidden_calls, job, self.settings.worker.blind_pass)
        finally:
            close = getattr(runner, "close", None)
            if callable(close):
                close()  # the GPU memory goes back before scoring (an LLM judge may need it)
        decodes = answers.settings.get("decodes", {})
        job.log.add(f"runner {runner.name} answered {len(answers.predictions)} calls "
                    f"({answers.settings.get('generations', '?')} generations); videos decoded: "
                    f"{decodes.get('decodes', '?')} decodes of {decodes.get('videos', '?')} videos")
        job.raw_outputs = raw_outputs.encode(answers.predictions, suite.calls_by_id())  # public calls only
        scores, counts = self._score(job, suite, key, as_responses(answers.predictions), worker_run=True)
        card = model_card(suite, request, runner.name, answers.settings, self.judge, self.options, counts)
        job.log.add(f"protocol {card.hash}: " + (f"differs from the suite's reference in {', '.join(card.deviations)}"
                                                  if card.deviations else "the suite's reference protocol"))
        extra = blind.blocks(answers, suite, key, self.judge, self.options, self.settings.bootstrap_samples, job)
        return make_result(suite, scores, counts, self.judge, self.options, self._submission(request),
                           runner={"name": runner.name, **answers.settings}, protocol=card,
                           judge_usage=self.judge.usage(), **extra)

    @property
    def judge(self):
        """Each judged benchmark's judge (a JudgeSet), built once per worker (an LLM judge
        loads a model); LLM judgements cached on disk."""
        if self._judge is None:
            from evaluator.benchmarks import JUDGED
            from evaluator.judges import judges_from

            self._judge = judges_from(self.settings, self.settings.judge_cache, judged=JUDGED)
        return self._judge

    def _judge_frames(self, suite: Suite):
        """The frames a judge that sees them is shown (a judged benchmark whose folder says
        JUDGE_SEES_FRAMES: Video SimpleQA), when that is a remote LLM judge and
        LEADERBOARD_JUDGE_FRAMES asks for some; None: text only."""
        from evaluator.benchmarks import JUDGED, hook
        from evaluator.judges import RemoteJudge

        judges = [self.judge.for_benchmark(name) for name in JUDGED if hook(name, "JUDGE_SEES_FRAMES", False)]
        if not self.settings.judges.frames or not any(isinstance(getattr(j, "inner", j), RemoteJudge) for j in judges):
            return None
        from evaluator.judge_frames import frames_for

        return frames_for(suite, self.settings.judges.frames)

    def _fetch_suite(self, job: Job) -> tuple[Suite, AnswerKey]:
        suite_id = job.request.suite_id
        try:
            public = job.patiently("fetching the suite", lambda: self.stores.suite.local_folder(suite_id))
            private = job.patiently("fetching the answer key", lambda: self.stores.answers.local_folder(suite_id))
            # the suite id carries a hash of its public content; the answer key's own hash
            # tells a corrected key apart, so a cached copy is never stale
            answers_sha = json.loads((private / "answers.json").read_text()).get("answers_sha256", "")
            cache_key = (suite_id, answers_sha)
            if cache_key not in self._suites:
                suite = load_suite(public)
                self._suites[cache_key] = (suite, load_answers(private, suite))
        except (StoreError, NotFoundError, SuiteError, OSError, ValueError) as e:
            job.log.add(f"fetching suite {suite_id} failed: {type(e).__name__}: {e}")
            raise JobFailed(Reason.DOWNLOAD, (
                f"The worker could not load the evaluation data of suite {suite_id}. This is not a problem "
                f"with your submission; a maintainer can requeue it once the suite is available.")) from e
        suite, key = self._suites[cache_key]
        job.log.add(f"suite {suite.id}: {len(suite.calls)} calls, {len(suite.manifest['benchmarks'])} benchmarks")
        return suite, key

    def _fetch_predictions(self, job: Job) -> bytes:
        request = job.request
        try:
            if not request.predictions_path:
                raise NotFoundError("the request names no prediction file")
            found = job.patiently("downloading the prediction file",
                                  lambda: self.stores.private.read(request.predictions_path))
            if found is None:
                raise NotFoundError(f"{request.predictions_path} is not in the {self.stores.private.name} store")
        except (StoreError, NotFoundError) as e:
            job.log.add(f"downloading the prediction file failed: {type(e).__name__}: {e}")
            raise JobFailed(Reason.DOWNLOAD, (
                "The worker could not download your uploaded prediction file. Please submit it again, "
                "or ask the maintainers to requeue this submission.")) from e
        job.log.add(f"downloaded {request.predictions_path} ({len(found.data)} bytes)")
        job.check()
        return found.data

    def _validate(self, request: Request, suite: Suite, data: bytes):
        name = request.metadata.get("file_name") or "your prediction file"
        limit = self.settings.max_prediction_bytes
        if len(data) > limit:
            raise PredictionFileError(name, [Problem(0, f"the file is {len(data) / 1e6:.1f} MB; the limit is "
                                                        f"{limit / 1e6:.1f} MB")])
        responses = parse_predictions(data, suite.calls_by_id(), name)  # PredictionFileError, by line
        sha = hashlib.sha256(data).hexdigest()
        if request.predictions_sha256 and sha != request.predictions_sha256:
            raise JobFailed(Reason.INTERNAL, (
                "The stored prediction file is not the one you submitted (its checksum changed), so it was "
                "not scored. Please submit it again, or ask the maintainers."))
        return responses

    def _score(self, job: Job, suite: Suite, key: AnswerKey, responses, worker_run: bool):
        """The core's score_responses, recording progress (and honouring a stop,
        which job.progress raises) after each benchmark."""
        benchmarks = suite.manifest["benchmarks"]
        per_benchmark = {name: info["calls"] + (info.get("worker_calls", 0) if worker_run else 0)
                         for name, info in benchmarks.items()}
        total = sum(per_benchmark.values())
        done = 0
        job.progress(0, total, "scoring")

        def scored(name: str, counts: dict) -> None:
            nonlocal done
            done += per_benchmark[name]
            state = "attempted" if counts["attempted"] else "not attempted"
            job.log.add(f"scored {name}: {state} ({counts['answered']} of {counts['calls']} calls answered)")
            job.progress(done, total, f"scored {name}")

        job.paired = {}
        return score_responses(suite, key, responses, self.judge, self.options, worker_run=worker_run,
                               bootstrap_samples=self.settings.bootstrap_samples, on_benchmark=scored,
                               paired=job.paired, judge_frames=self._judge_frames(suite))

    @staticmethod
    def _submission(request: Request) -> dict:
        """What the result says about the submission: enough to rebuild its table row
        without the request."""
        sub = {"id": request.id, "kind": request.kind, "model": request.model, "submitter": request.submitter,
               "run": request.runs + 1, "submitted_at": request.submitted_at.isoformat(), "revision": request.revision,
               "precision": request.precision, "frames": request.frames, "thinking": request.thinking,
               **({"frame_budgets": dict(request.frame_budgets)} if request.frame_budgets else {}),
               "metadata": dict(request.metadata)}
        if request.predictions_sha256:
            sub["predictions_sha256"] = request.predictions_sha256
        if request.close_cells:
            sub["close_cells"] = [list(c) for c in request.close_cells]
        return sub
