"""What the Jobs dispatcher (worker/dispatch.py) decides without asking the Hub: the
hardware flavor of a request, the command its job runs with its environment and secrets,
and, for a request its job left
RUNNING, the reason code and the message its submitter reads (never the job's output)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from submissions.requests import Reason, Request

if TYPE_CHECKING:
    from space_config.settings import JobsSettings, Settings

NOT_STARTED = ("The evaluation could not be started on Hugging Face Jobs. This is not a problem with your "
               "submission; the maintainers have the details in its private log and can requeue it.")
JOB_ERROR = ("The evaluation job on Hugging Face Jobs stopped with an error before this submission was scored. "
             "This is not a problem with your submission as far as we can tell; the maintainers have the job's "
             "output in its private log and can requeue it.")
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


def job_failure(stage: str, message: str | None, total_seconds: float | None,
                timeout_seconds: float) -> tuple[Reason, str]:
    """Why a request its job left RUNNING failed, from the job's final stage, the Hub's
    message about it and how long it ran."""
    words = (message or "").lower()
    ran_out = total_seconds is not None and total_seconds >= timeout_seconds
    if "timeout" in words or "timed out" in words or ran_out:
        return Reason.TIMEOUT, job_timeout_message(timeout_seconds)
    if "out of memory" in words or "oom" in re.findall(r"[a-z]+", words) or "137" in words:
        return Reason.OUT_OF_MEMORY, JOB_OOM
    if stage in ("CANCELED", "DELETED"):  # stopped on the Hub, not through the queue
        return Reason.INTERNAL, JOB_STOPPED
    return Reason.INTERNAL, JOB_ERROR


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
