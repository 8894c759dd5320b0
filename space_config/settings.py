"""Every environment variable the project reads, in one place, read lazily.

Nothing reads os.environ at import time: call `get_settings()` when a value is
needed (tests call `get_settings.cache_clear()` after changing the environment).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


@dataclass(frozen=True)
class Quotas:
    """Submission limits, counted over a rolling window; refused submissions never count."""

    per_user: int = 5  # submissions per user per window
    per_org: int = 10  # model-ID submissions per model org (the part before '/') per window
    pending_per_user: int = 2  # PENDING or RUNNING at once per user
    window_days: int = 7


@dataclass(frozen=True)
class ModelRules:
    """What a model-ID submission must satisfy before it is queued."""

    max_params_billions: float = 80.0
    allow_private: bool = False
    remote_code_allowed: tuple[str, ...] = ()  # architectures allowed to need trust_remote_code
    blocked: tuple[str, ...] = ()  # model ids or orgs ("org/*") refused outright
    precisions: tuple[str, ...] = ("bfloat16", "float16", "float32")


@dataclass(frozen=True)
class WorkerSettings:
    lease_seconds: float = 120.0  # a RUNNING request whose lease is older goes back to PENDING
    poll_seconds: float = 5.0  # how often an idle worker looks for work
    # Every progress record and lease renewal is a commit on the Hub, whose commit quota is
    # per repository and per hour: there the defaults are coarse (see HUB_WORKER_DEFAULTS).
    progress_seconds: float = 5.0  # the least time between two progress records
    poll_max_seconds: float = 5.0  # an idle worker's poll interval doubles up to this
    max_attempts: int = 3
    job_timeout_seconds: float = 6 * 3600.0
    hold_seconds: float = 0.0  # failure drills only: pause after claiming (a worker to kill mid-job)
    hold_publish_seconds: float = 0.0  # failure drills only: pause between FINISHED and publishing
    # a FINISHED request's own worker publishes it; others publish it for that worker only after
    # this long (it died between the two), so a result is not published twice in the meantime
    publish_grace_seconds: float = 60.0
    # Model runners (model-ID requests). Set by the worker's operator, never by a submission.
    backend: str = "auto"  # "transformers", "vllm", or "auto" (vllm when installed with CUDA)
    # None: each benchmark's own (its protocol.toml); a number here caps every benchmark
    # alike and the cards mark the runs as off-protocol
    max_new_tokens: int | None = None
    batch_size: int = 8  # transformers: requests per generate call
    batch_calls: int | None = None  # calls per backend batch; None: 64 (transformers), 1024 (vllm)
    batch_frames: int = 8192  # frames held for one backend batch (host memory)
    tensor_parallel_size: int = 1
    data_parallel_size: int = 1
    # None: each benchmark's protocol resolution (native, or the paper's own size)
    resize_max_side: int | None = None
    # LEADERBOARD_BLIND_PASS=1: model-ID runs answer every call a second time with black frames
    # (same count, size and times) and publish that pass's overalls as the "no video" scores.
    # Read when get_settings builds WorkerSettings, like every other field here.
    blind_pass: bool = field(default_factory=lambda: _env("LEADERBOARD_BLIND_PASS", "0") == "1")


@dataclass(frozen=True)
class JudgeSettings:
    """The judges of the judged benchmarks (those with a JUDGE_TASK in their folder: ExpVid
    level 3, Video SimpleQA): each may have its own (LEADERBOARD_JUDGE_<NAME>, e.g.
    LEADERBOARD_JUDGE_EXPVID; else LEADERBOARD_JUDGE), and how a remote LLM judge is reached
    and paid for. `by_benchmark` holds every LEADERBOARD_JUDGE_<NAME> that is not a setting
    below (JUDGE_SETTINGS), lowercased; the judged benchmarks read theirs."""

    by_benchmark: dict[str, str] = field(default_factory=dict)
    base_url: str | None = None  # an OpenAI-compatible endpoint ("openai:<model>" judges)
    api_key: str | None = None  # its key (a secret); "hf:" judges use HF_TOKEN
    hf_token: str | None = None
    concurrency: int = 8  # requests in flight
    retries: int = 4  # tries after the first (5xx, timeouts, 429 after its Retry-After)
    timeout: float = 60.0  # seconds a request may take
    price_in: float = 0.0  # USD per million prompt tokens (0: not counted)
    price_out: float = 0.0  # USD per million completion tokens
    frames: int = 0  # Video SimpleQA frames shown to a remote judge (the paper's grader sees them); 0: text only

    def options(self, name: str) -> dict:
        """get_judge options for the judge named `name`."""
        if name.startswith("openai:"):
            key = self.api_key
        elif name.startswith("hf:"):
            key = self.hf_token
        else:
            return {}
        return {"base_url": self.base_url, "api_key": key, "concurrency": self.concurrency, "retries": self.retries,
                "timeout": self.timeout, "price_in": self.price_in, "price_out": self.price_out}


# Hugging Face Jobs flavors by model size (worker/dispatch.py): "<up to N billion>:<flavor>"
# pairs, smallest first. N counts bfloat16/float16 weights; a float32 request counts double.
# The last flavor also takes any larger model (the site refuses models over LEADERBOARD_MAX_PARAMS_B).
DEFAULT_JOBS_FLAVORS = "3:l4x1,8:l40sx1,20:a100-large,40:h200,80:h200x2,160:h200x4"


@dataclass(frozen=True)
class JobsSettings:
    """The Hugging Face Jobs dispatcher (`python -m evaluator.worker --dispatch hf-jobs`)."""

    image: str | None = None  # the worker image, e.g. "hf.co/spaces/<owner>/<worker space>"
    namespace: str | None = None  # where jobs run (None: LEADERBOARD_HUB_OWNER)
    max_running: int = 2  # jobs at once
    poll_seconds: float = 30.0  # how often each running job is inspected
    # (up to billions, flavor), smallest first
    flavors: tuple[tuple[float, str], ...] = field(default_factory=lambda: parse_flavors(DEFAULT_JOBS_FLAVORS))
    unknown_size_flavor: str = "h200"  # a model request whose size is not recorded
    predictions_flavor: str = "cpu-upgrade"  # prediction files: scoring only (a GPU flavor with an LLM judge)
    timeout_grace_seconds: float = 600.0  # the job's Hub timeout is LEADERBOARD_JOB_TIMEOUT plus this
    # the longest a job may wait for its hardware before it runs (the time limit counts from running)
    hardware_wait_seconds: float = 3600.0


def parse_flavors(text: str, name: str = "LEADERBOARD_JOBS_FLAVORS") -> tuple[tuple[float, str], ...]:
    """"3:l4x1,8:l40sx1" -> ((3.0, "l4x1"), (8.0, "l40sx1")), sorted; an error naming `name` if malformed."""
    table = []
    for part in _csv(text):
        size, _, flavor = part.partition(":")
        try:
            billions = float(size)
        except ValueError:
            billions = -1.0
        if billions <= 0 or not flavor.strip():
            raise ValueError(f"{name} must be comma-separated '<billions>:<flavor>' pairs such as "
                             f"'8:l40sx1'; {part!r} is not one")
        table.append((billions, flavor.strip()))
    if not table:
        raise ValueError(f"{name} names no flavor")
    return tuple(sorted(table))


# Settings the dispatcher passes on to the worker in each job (its environment), when set
# here: the job's worker must score, time out and publish exactly as a local worker would.
# HF_TOKEN goes as a secret instead; LEADERBOARD_JOBS_* and this machine's paths stay behind.
SECRET_SETTINGS = ("LEADERBOARD_JUDGE_API_KEY",)  # passed to a job as secrets, never as plain variables


def forwarded_environment() -> dict[str, str]:
    skip = ("LEADERBOARD_JOBS_", "LEADERBOARD_HOME", "LEADERBOARD_JUDGE_CACHE", "LEADERBOARD_DEV_USER",
            "LEADERBOARD_EMBEDDED_WORKER", *SECRET_SETTINGS)
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("LEADERBOARD_") and not k.startswith(skip)}


# store kind -> defaults of (lease, progress, poll, poll max) seconds. On the Hub a renewal
# every lease/3 = 10 min and progress with it keep a busy worker at ~8 commits an hour to the
# requests repo; idle workers back off to one head-commit call every 2 min.
WORKER_TIMING_DEFAULTS = {"local": ("120", "5", "5", "5"), "hub": ("1800", "600", "5", "120")}


def _int_or_none(value: str) -> int | None:
    return int(value) if value.strip() else None


def _non_negative_int(name: str, default: str) -> int:
    """A count setting: a whole number >= 0, else an error naming the variable."""
    text = _env(name, default).strip()
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"{name} must be a whole number of 0 or more (got {text!r})")
    return value


# Variables that once set one scoring option alone: refused, since a mixed pair is neither reading.
RETIRED = {"LEADERBOARD_CAUSALSTEP_RESTART": "LEADERBOARD_CAUSALSTEP_READING",
           "LEADERBOARD_CAUSALSTEP_POINTS": "LEADERBOARD_CAUSALSTEP_READING"}


def _readings() -> dict[str, str]:
    """LEADERBOARD_<BENCHMARK>_READING, by lowercased benchmark name: which reading of its
    paper a benchmark is scored by (CausalStep: "prose" or "algo"). Which benchmarks have
    readings, and which, its folder's protocol.toml says; evaluator.reference.reading_options
    checks these when the worker or the CLI starts (this layer cannot read the folders)."""
    for old, new in RETIRED.items():
        if os.environ.get(old):
            raise ValueError(f"{old} is gone: a mixed pair is neither reading of the paper. Set {new} instead")
    prefix, suffix = "LEADERBOARD_", "_READING"
    return {key[len(prefix):-len(suffix)].lower(): value.strip() for key, value in sorted(os.environ.items())
            if key.startswith(prefix) and key.endswith(suffix) and len(key) > len(prefix + suffix) and value.strip()}


def _csv(value: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in value.split(",") if x.strip())


@dataclass(frozen=True)
class Settings:
    home: Path
    judge: str  # the default judge of every judged benchmark (JudgeSettings.by_benchmark over it)
    # Each benchmark's reading of its paper, by name (LEADERBOARD_<NAME>_READING; CausalStep:
    # "prose" or "algo", restart and points both from one); left out: its protocol.toml's.
    readings: dict[str, str]
    bootstrap_samples: int
    max_prediction_bytes: int
    judge_cache: Path  # sqlite file of LLM judgements, raw outputs included
    grade_truncated_reasoning: bool = False  # read a cut-off <think> trace as the answer (ScoringOptions)
    # A breakdown bucket (level, domain, hop...) with fewer items is published without its
    # score: a one-item bucket would tell a submitter whether that one answer was right.
    min_bucket_items: int = 10
    # A prediction file whose changes from an earlier file of its submitter (or model name)
    # would move some published score on fewer items is refused (submissions/near_duplicates.py).
    near_duplicate_items: int = 10
    store: str = "local"  # "local" (folders under home) or "hub" (dataset repos)
    hub_owner: str | None = None  # user or org owning the five dataset repos
    hub_prefix: str = "video-reasoning-leaderboard"
    hf_token: str | None = None
    suite: str = "demo"  # the suite shown and evaluated by default: an id, or "demo"
    embedded_worker: bool = True  # the site runs a worker in-process (local store default)
    dev_user: str | None = None  # local development only: the signed-in user when not on a Space
    on_space: bool = False  # running as a Hugging Face Space (SPACE_ID set): sign-in through HF OAuth
    # The site's own address, for links back to it (a result's row, from a model's Hub page)
    site_url: str = "http://localhost:7860/"
    quotas: Quotas = field(default_factory=Quotas)
    model_rules: ModelRules = field(default_factory=ModelRules)
    worker: WorkerSettings = field(default_factory=WorkerSettings)
    jobs: JobsSettings = field(default_factory=JobsSettings)
    judges: JudgeSettings = field(default_factory=JudgeSettings)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    store = _env("LEADERBOARD_STORE", "local")
    # Keyword arguments are read in order: a malformed variable fails as it always did.
    return Settings(
        store=store,
        hub_owner=os.environ.get("LEADERBOARD_HUB_OWNER") or None,
        hub_prefix=_env("LEADERBOARD_HUB_PREFIX", "video-reasoning-leaderboard"),
        hf_token=os.environ.get("HF_TOKEN") or None,
        suite=_env("LEADERBOARD_SUITE", "demo"),
        embedded_worker=_env("LEADERBOARD_EMBEDDED_WORKER", "1" if store == "local" else "0") == "1",
        # Never on a Space (SPACE_ID is set there): identity comes from the HF login only.
        dev_user=None if os.environ.get("SPACE_ID") else (os.environ.get("LEADERBOARD_DEV_USER") or None),
        on_space=bool(os.environ.get("SPACE_ID")),
        site_url=_site_url(),
        quotas=_read_quotas(),
        model_rules=_read_model_rules(),
        worker=_read_worker(store),
        jobs=_read_jobs(),
        home=Path(_env("LEADERBOARD_HOME", ".leaderboard")),
        judge=_env("LEADERBOARD_JUDGE", "normalized-match"),
        judges=_read_judges(),
        readings=_readings(),
        grade_truncated_reasoning=_env("LEADERBOARD_GRADE_TRUNCATED_REASONING", "0") == "1",
        bootstrap_samples=int(_env("LEADERBOARD_BOOTSTRAP_SAMPLES", "1000")),
        min_bucket_items=_non_negative_int("LEADERBOARD_MIN_BUCKET_ITEMS", "10"),
        near_duplicate_items=_non_negative_int("LEADERBOARD_NEAR_DUPLICATE_ITEMS",
                                               _env("LEADERBOARD_MIN_BUCKET_ITEMS", "10")),
        max_prediction_bytes=int(_env("LEADERBOARD_MAX_PREDICTION_BYTES", str(64 * 1024 * 1024))),
        judge_cache=Path(_env("LEADERBOARD_JUDGE_CACHE",
                              str(Path(_env("LEADERBOARD_HOME", ".leaderboard")) / "private" / "judge-cache.sqlite"))),
    )


# One reader per settings group, each called by get_settings (never at import time).

def _site_url() -> str:
    """LEADERBOARD_SITE_URL; on a Space its own host (SPACE_HOST); else this machine's port."""
    given = os.environ.get("LEADERBOARD_SITE_URL") or (f"https://{os.environ['SPACE_HOST']}"
                                                       if os.environ.get("SPACE_HOST") else "")
    if not given:
        given = f"http://localhost:{_env('GRADIO_SERVER_PORT', '7860')}"
    return given.rstrip("/") + "/"


def _read_quotas() -> Quotas:
    return Quotas(
        per_user=int(_env("LEADERBOARD_QUOTA_PER_USER", "5")),
        per_org=int(_env("LEADERBOARD_QUOTA_PER_ORG", "10")),
        pending_per_user=int(_env("LEADERBOARD_QUOTA_PENDING", "2")),
        window_days=int(_env("LEADERBOARD_QUOTA_DAYS", "7")),
    )


def _read_model_rules() -> ModelRules:
    return ModelRules(
        max_params_billions=float(_env("LEADERBOARD_MAX_PARAMS_B", "80")),
        allow_private=_env("LEADERBOARD_ALLOW_PRIVATE_MODELS", "0") == "1",
        remote_code_allowed=_csv(_env("LEADERBOARD_REMOTE_CODE_ALLOWED", "")),
        blocked=_csv(_env("LEADERBOARD_BLOCKED_MODELS", "")),
    )


def _read_worker(store: str) -> WorkerSettings:
    """The worker's settings; lease/progress/poll defaults depend on the store (WORKER_TIMING_DEFAULTS)."""
    timing = WORKER_TIMING_DEFAULTS.get(store, WORKER_TIMING_DEFAULTS["local"])
    return WorkerSettings(
        lease_seconds=float(_env("LEADERBOARD_LEASE_SECONDS", timing[0])),
        progress_seconds=float(_env("LEADERBOARD_PROGRESS_SECONDS", timing[1])),
        poll_seconds=float(_env("LEADERBOARD_POLL_SECONDS", timing[2])),
        poll_max_seconds=float(_env("LEADERBOARD_POLL_MAX_SECONDS", timing[3])),
        max_attempts=int(_env("LEADERBOARD_MAX_ATTEMPTS", "3")),
        job_timeout_seconds=float(_env("LEADERBOARD_JOB_TIMEOUT", str(6 * 3600))),
        hold_seconds=float(_env("LEADERBOARD_WORKER_HOLD_SECONDS", "0")),
        hold_publish_seconds=float(_env("LEADERBOARD_WORKER_HOLD_PUBLISH_SECONDS", "0")),
        publish_grace_seconds=float(_env("LEADERBOARD_PUBLISH_GRACE_SECONDS", "60")),
        backend=_env("LEADERBOARD_RUNNER_BACKEND", "auto"),
        max_new_tokens=_int_or_none(_env("LEADERBOARD_MAX_NEW_TOKENS", "")),
        batch_size=int(_env("LEADERBOARD_BATCH_SIZE", "8")),
        batch_calls=_int_or_none(_env("LEADERBOARD_BATCH_CALLS", "")),
        batch_frames=int(_env("LEADERBOARD_BATCH_FRAMES", "8192")),
        tensor_parallel_size=int(_env("LEADERBOARD_TENSOR_PARALLEL", "1")),
        data_parallel_size=int(_env("LEADERBOARD_DATA_PARALLEL", "1")),
        resize_max_side=_int_or_none(_env("LEADERBOARD_RESIZE_MAX_SIDE", "")),
    )


# The LEADERBOARD_JUDGE_<X> variables that are judge settings, not a benchmark's own judge.
JUDGE_SETTINGS = ("BASE_URL", "API_KEY", "CONCURRENCY", "RETRIES", "TIMEOUT", "PRICE_IN", "PRICE_OUT", "FRAMES",
                  "CACHE")


def _judge_by_benchmark() -> dict[str, str]:
    """LEADERBOARD_JUDGE_<BENCHMARK> for every benchmark name: each judged benchmark
    (evaluator.benchmarks.JUDGED, which this layer cannot import) reads its own; others are unused."""
    prefix = "LEADERBOARD_JUDGE_"
    return {key[len(prefix):].lower(): value for key, value in sorted(os.environ.items())
            if key.startswith(prefix) and key[len(prefix):] not in JUDGE_SETTINGS and value}


def _read_judges() -> JudgeSettings:
    return JudgeSettings(
        by_benchmark=_judge_by_benchmark(),
        base_url=os.environ.get("LEADERBOARD_JUDGE_BASE_URL") or None,
        api_key=os.environ.get("LEADERBOARD_JUDGE_API_KEY") or None,
        hf_token=os.environ.get("HF_TOKEN") or None,
        concurrency=max(1, _non_negative_int("LEADERBOARD_JUDGE_CONCURRENCY", "8")),
        retries=_non_negative_int("LEADERBOARD_JUDGE_RETRIES", "4"),
        timeout=float(_env("LEADERBOARD_JUDGE_TIMEOUT", "60")),
        price_in=float(_env("LEADERBOARD_JUDGE_PRICE_IN", "0")),
        price_out=float(_env("LEADERBOARD_JUDGE_PRICE_OUT", "0")),
        frames=_non_negative_int("LEADERBOARD_JUDGE_FRAMES", "0"),
    )


def _read_jobs() -> JobsSettings:
    return JobsSettings(
        image=os.environ.get("LEADERBOARD_JOBS_IMAGE") or None,
        namespace=os.environ.get("LEADERBOARD_JOBS_NAMESPACE") or os.environ.get("LEADERBOARD_HUB_OWNER") or None,
        max_running=_non_negative_int("LEADERBOARD_JOBS_MAX_RUNNING", "2"),
        poll_seconds=float(_env("LEADERBOARD_JOBS_POLL_SECONDS", "30")),
        flavors=parse_flavors(_env("LEADERBOARD_JOBS_FLAVORS", DEFAULT_JOBS_FLAVORS)),
        unknown_size_flavor=_env("LEADERBOARD_JOBS_UNKNOWN_SIZE_FLAVOR", "h200"),
        predictions_flavor=_env("LEADERBOARD_JOBS_PREDICTIONS_FLAVOR", "cpu-upgrade"),
        timeout_grace_seconds=float(_env("LEADERBOARD_JOBS_TIMEOUT_GRACE", "600")),
        hardware_wait_seconds=float(_env("LEADERBOARD_JOBS_HARDWARE_WAIT", "3600")),
    )
