"""What the Jobs dispatcher (worker/dispatch.py) decides without asking the Hub: the
hardware flavor of a request, the command its job runs with its environment and secrets,
and, for a request its job left RUNNING, whether it goes back to the queue or fails, with
the reason code and the message its submitter reads (never the job's output)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

from submissions.requests import Reason, Request

if TYPE_CHECKING:
    from space_config.settings import JobsSettings, Settings

NOT_STARTED = ("The evaluation could not be started on Hugging Face Jobs. This is not a problem with your "
               "submission; the maintainers have the details in its private log and can requeue it.")
JOB_STOPPED = ("The evaluation job was stopped on Hugging Face Jobs before this submission was scored. This is "
               "not a problem with your submission; a maintainer can requeue it.")
JOB_OOM = ("The evaluation ran out of memory on its Hugging Face Jobs machine. Try fewer frames or a smaller "
           "precision, or ask the maintainers for a larger machine.")


def job_timeout_message(seconds: float) -> str:
    hours = seconds / 3600
    limit = f"{hours:g} h" if hours >= 1 else f"{seconds:g} s"
    return (f"The evaluation took longer than the time limit of {limit} on Hugging Face Jobs and was stopped. "
            f"Nothing was published; a maintainer can requeue it with a longer limit.")


# -- flavors --------------------------------------------------------------------------

def model_billions(request: Request) -> float | None:
    """The model's size in billions of parameters as the site recorded it at submission."""
    try:
        return float(request.metadata["params_billions"])
    except (KeyError, ValueError):
        return None


def choose_flavor(request: Request, jobs: "JobsSettings") -> str:
    """The Jobs hardware flavor for a request: prediction files need no GPU (scoring only);
    a model gets the smallest flavor of the table whose limit its weights fit (float32
    counts double), the largest one beyond, and `unknown_size_flavor` if its size is unknown."""
    if request.kind == "predictions":
        return jobs.predictions_flavor
    billions = model_billions(request)
    if billions is None:
        return jobs.unknown_size_flavor
    if request.precision == "float32":
        billions *= 2
    for limit, flavor in jobs.flavors:
        if billions <= limit:
            return flavor
    return jobs.flavors[-1][1]


def gpu_count(flavor: str) -> int:
    """GPUs of a Jobs flavor by its name: cpu-* none, '...x<N>' N, any other one."""
    if flavor.startswith("cpu"):
        return 0
    match = re.search(r"x(\d+)$", flavor)
    return int(match.group(1)) if match else 1


def job_command(request_id: str, worker_id: str) -> list[str]:
    return ["python", "-m", "evaluator.worker", "--request", request_id, "--worker-id", worker_id]


class JobEnd(NamedTuple):
    """What a job that ended without scoring its request means for that request."""

    reason: Reason
    message: str  # what the submitter reads if the request fails now
    retry: str = ""  # why it goes back to the queue while it has attempts left ("" if it fails now)


def job_error_message(code: int | None, attempt: int, max_attempts: int) -> str:
    exited = f" (exit code {code})" if code is not None else ""
    return (f"The evaluation job on Hugging Face Jobs stopped with an error{exited} before this submission was "
            f"scored, on attempt {attempt} of {max_attempts}, so it is not tried again. This is not a problem with "
            f"your submission as far as we can tell; the maintainers have the job's output in its private log and "
            f"can requeue it.")


def job_killed_message(code: int, attempt: int, max_attempts: int) -> str:
    return (f"The evaluation job on Hugging Face Jobs was killed (exit code {code}) before this submission was "
            f"scored, on attempt {attempt} of {max_attempts}, so it is not tried again. A job is killed when the "
            f"platform takes its machine back, which is not a problem with your submission, or when it runs out "
            f"of the machine's memory, which happens again on every attempt: then try fewer frames or a smaller "
            f"precision. The maintainers have the job's output in its private log and can requeue it.")


def exit_code(message: str | None) -> int | None:
    """The container's exit code in the Hub's message ("Job failed with exit code: 137")."""
    found = re.search(r"exit code:?\s*(\d+)", message or "", re.IGNORECASE)
    return int(found.group(1)) if found else None


def job_failure(stage: str, message: str | None, total_seconds: float | None, timeout_seconds: float,
                attempt: int = 1, max_attempts: int = 1) -> JobEnd:
    """What a request its job left RUNNING becomes, from the job's final stage, the Hub's
    message about it and how long it ran; `attempt` (1-based) of `max_attempts` is the
    request's attempt that job ran.

    Back to the queue while attempts remain: a job that ended in ERROR for any other reason.
    The job's worker records every failure it can explain (the submission's own faults, a
    CUDA out-of-memory it caught) before it exits, so a request still RUNNING means the
    process itself died: killed from outside (exit 128 + the signal: 137 for SIGKILL, as when
    the platform takes the machine back) or crashed, like an in-process worker whose lease
    runs out, which the queue retries the same way (submissions/queue.py).
    Failed at once: a job that ran out of its time (the same limit would stop it again; a
    maintainer requeues it with a longer one), one the Hub says ran out of memory (the same
    model, frames and flavor reach the same peak again), and one stopped on the Hub (someone
    meant it). A bare exit code 137 does not say which killer it was: it is retried, and the
    final message names running out of memory as the other cause."""
    words = (message or "").lower()
    ran_out = total_seconds is not None and total_seconds >= timeout_seconds
    if "timeout" in words or "timed out" in words or ran_out:
        return JobEnd(Reason.TIMEOUT, job_timeout_message(timeout_seconds))
    if "out of memory" in words or {"oom", "oomkilled"} & set(re.findall(r"[a-z]+", words)):
        return JobEnd(Reason.OUT_OF_MEMORY, JOB_OOM)
    if stage in ("CANCELED", "DELETED"):  # stopped on the Hub, not through the queue
        return JobEnd(Reason.INTERNAL, JOB_STOPPED)
    code = exit_code(message)
    if code is not None and code > 128:
        return JobEnd(Reason.INTERNAL, job_killed_message(code, attempt, max_attempts),
                      f"its Hugging Face Job was killed (exit code {code})")
    exited = f" (exit code {code})" if code is not None else ""
    return JobEnd(Reason.INTERNAL, job_error_message(code, attempt, max_attempts),
                  f"its Hugging Face Job stopped with an error{exited}")


def outcome_line(end: JobEnd, attempt: int, max_attempts: int) -> str:
    """The private log's line on what became of the request (`attempt` is 1-based)."""
    if end.retry and attempt < max_attempts:
        return f"back to the queue: {end.retry} (attempt {attempt + 1} of {max_attempts} next)"
    return f"FAILED {end.reason.value}: {end.message}"


def job_secrets(settings: Settings) -> dict[str, str] | None:
    """HF_TOKEN, and a remote judge's key: secrets of the job, not plain variables."""
    from space_config.settings import SECRET_SETTINGS

    found = {"HF_TOKEN": settings.hf_token} if settings.hf_token else {}
    found.update({k: os.environ[k] for k in SECRET_SETTINGS if os.environ.get(k)})
    return found or None


def job_env(settings: Settings, flavor: str) -> dict[str, str]:
    """What the job's worker needs besides HF_TOKEN: the stores, and the worker's settings
    as the dispatcher has them (the lease and time limit it enforces too)."""
    from space_config.settings import forwarded_environment

    worker = settings.worker
    gpus = max(gpu_count(flavor), 1)
    return forwarded_environment() | {
        "LEADERBOARD_STORE": "hub", "LEADERBOARD_HUB_OWNER": settings.hub_owner or "",
        "LEADERBOARD_HUB_PREFIX": settings.hub_prefix, "LEADERBOARD_EMBEDDED_WORKER": "0",
        "LEADERBOARD_LEASE_SECONDS": f"{worker.lease_seconds:g}",
        "LEADERBOARD_PROGRESS_SECONDS": f"{worker.progress_seconds:g}",
        "LEADERBOARD_JOB_TIMEOUT": f"{worker.job_timeout_seconds:g}",
        # every GPU of the flavor serves the one model
        "LEADERBOARD_TENSOR_PARALLEL": str(gpus), "LEADERBOARD_DATA_PARALLEL": "1",
    }
