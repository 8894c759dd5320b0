"""Prediction files are validated in a process of their own, not on the site's threads.

    checker = FileChecker()
    checked = checker.check(path, stores.suite, suite_id, settings)   # Checked(ok, message, ...)

Validating a 5 MB file is about a second of pure-Python work; on a thread of the
site's process it would hold the interpreter lock and slow every page being browsed.
Here it runs in CHECK_PROCESSES worker processes (spawned once, kept): at most that many
files are validated at once, later ones wait in the pool's queue, and browsing keeps the
site's process. The site's process reads the call list from the store (its version
decides, as before) and sends it along; the worker parses it once per version.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from itertools import chain
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from space_config.settings import Settings
    from submissions.stores import Store

log = logging.getLogger(__name__)

CHECK_PROCESSES = 1  # files validated at once; the site's 2 vCPUs keep one for browsing
SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Checked:
    """What the validation process found (it crosses a process boundary: plain fields only)."""

    ok: bool
    message: str = ""  # the refusal, by line (ok False)
    predictions: int = 0
    in_context: int = 0  # of them, answers to a call asked after an earlier answer (a "context" label)
    context_calls: int = 0  # the distinct calls those answer
    answered: int = 0  # distinct calls answered
    calls: int = 0  # calls in the suite
    sha256: str = ""  # of the file as validated
    # multiple-choice answers in which the answer reader finds no option: (benchmark, count) and a few call ids
    unread: tuple[tuple[str, int], ...] = ()
    unread_examples: tuple[str, ...] = ()
    choice_answers: int = 0  # the multiple-choice answers read
    # per benchmark of the suite: (benchmark, calls answered, calls): one answered in part scores its
    # unanswered calls as wrong, one answered not at all gets no score
    coverage: tuple[tuple[str, int, int], ...] = ()
    schema_version: int = SCHEMA_VERSION

    @property
    def missing(self) -> int:
        return self.calls - self.answered


def check_in_this_process(path: str, key: tuple[str, str], data: bytes, settings: Settings,
                          read_answers: bool = False) -> Checked:
    """Validate `path` against the call list `data` (parsed once per `key`). Runs in the pool.
    `read_answers`: also count the multiple-choice answers that name no option (the upload's
    check tells the submitter; the submission itself needs only the validation)."""
    from evaluator.errors import EvaluatorError
    from submissions.errors import SubmissionError
    from evaluator.hashing import file_sha256
    from submissions.submit import parsed_calls
    from submissions.validation import validate_predictions

    calls = parsed_calls(key, data)
    try:
        responses = validate_predictions(Path(path), calls, settings)
    except (SubmissionError, EvaluatorError) as e:
        return Checked(ok=False, message=str(e), calls=len(calls))
    answered = set(responses.by_id) | {call_id for call_id, _ in responses.by_context}
    read, unread, examples = unread_choices(responses, calls) if read_answers else (0, {}, [])
    return Checked(ok=True, predictions=len(responses.by_id) + len(responses.by_context),
                   in_context=len(responses.by_context),
                   context_calls=len({call_id for call_id, _ in responses.by_context}),
                   answered=len(answered & set(calls)), calls=len(calls), sha256=file_sha256(Path(path)),
                   unread=tuple(sorted(unread.items())), unread_examples=tuple(examples), choice_answers=read,
                   coverage=coverage_of(calls, answered))


def coverage_of(calls: dict, answered: set[str]) -> tuple[tuple[str, int, int], ...]:
    """(benchmark, calls answered, calls) for each benchmark of the call list, in its order."""
    counts: dict[str, list[int]] = {}
    for call_id, call in calls.items():
        tally = counts.setdefault(call.benchmark, [0, 0])
        tally[0] += call_id in answered
        tally[1] += 1
    return tuple((benchmark, done, total) for benchmark, (done, total) in counts.items())


def unread_choices(responses, calls: dict, examples: int = 3) -> tuple[int, dict[str, int], list[str]]:
    """The multiple-choice answers read with the scorers' reader and the call's public labels and
    options: how many were read, how many name no option the reader finds, by benchmark (they
    will score as unparseable, that is wrong), and the first few such calls' ids. Reading needs
    no answer key, so the submitter can be told before the file takes a place in the queue."""
    from evaluator.answers import extract_choice

    read, unread, found = 0, {}, []
    in_context = ((call_id, prediction) for (call_id, _), prediction in responses.by_context.items())
    for call_id, prediction in chain(responses.by_id.items(), in_context):
        call = calls.get(call_id)
        if call is None or call.answer_format != "choice" or not call.labels:
            continue
        read += 1
        if extract_choice(prediction.response, call.labels, call.options) is None:
            unread[call.benchmark] = unread.get(call.benchmark, 0) + 1
            if len(found) < examples:
                found.append(call.id)
    return read, unread, found


def _ready() -> bool:
    import submissions.submit
    import submissions.validation  # noqa: F401 - imported for its cost

    return bool(submissions.submit)


class FileChecker:
    """A lazily started pool of validation processes, restarted if one dies."""

    def __init__(self, processes: int = CHECK_PROCESSES):
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # spawn: a fork of a threaded server (gradio, the worker) may inherit held locks
                self._pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def warm(self) -> None:
        """Start the process now (it imports the validator), so the first upload does not wait for it."""
        try:
            self._executor().submit(_ready)
        except Exception:  # noqa: BLE001 - the first check starts it instead
            log.exception("could not start the validation process")

    def check(self, path: str | Path, store: Store, suite_id: str, settings: Settings,
              read_answers: bool = False) -> Checked:
        from submissions.submit import call_list_bytes, call_list_key

        found = call_list_bytes(store, suite_id)
        args = (str(path), call_list_key(store, suite_id, found.version), found.data, settings, read_answers)
        try:
            return self._executor().submit(check_in_this_process, *args).result()
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool, one more try
            log.warning("the validation process died; starting a new one")
            with self._lock:
                self._pool = None
            return self._executor().submit(check_in_this_process, *args).result()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
