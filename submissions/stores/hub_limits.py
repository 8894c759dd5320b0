"""The Hub's rate limits, as the Hub states them and as huggingface_hub waits them out.

The Hub answers a request over its quota with 429 and the IETF headers `RateLimit:
"api";r=0;t=120` (what is left of the quota, and the seconds until the window resets) and
`RateLimit-Policy`; it does not promise `Retry-After`. `wait_seconds(headers)` reads how
long to wait from either.

huggingface_hub retries some calls on 429 by itself (preupload, tree pages, a download's
HEAD: up to 5 times, each sleeping the whole window plus a second). With the Hub's 300 s
windows one of our calls could then be held inside the client for about 25 minutes while a
lease, a heartbeat or a visitor's request waits. `bounded_client_waits()` keeps the client's
own sleeps to CLIENT_WAIT_BUDGET seconds inside our calls: a longer one raises
ClientWaitRefused instead, which the store turns into a TransientStoreError carrying the
wait, and our own retry (submissions/stores/retry.py) decides whether and how long to wait,
on a thread that does not hold anything else up. The client's own threads (LFS uploads run
several at once) keep the budget of the call that started them, and what they raise reaches
the store unwrapped.

huggingface_hub's HTTP client has no timeout at all: a reply the Hub holds (a commit on a slow
repo, a stuck connection) would hold our call, and a lease renewal with it, for as long. Inside
our calls each request gets REPLY_TIMEOUT seconds to connect and between two bytes of its reply
(a timeout the client sets itself is kept); past it the call fails like a dropped connection,
and a write whose reply was lost is recognised by our retry (it reads the files back).
Outside our calls the client is untouched.
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Iterator, Mapping

CLIENT_WAIT_BUDGET = 10.0  # seconds: the longest single sleep of the client's we let happen inside our calls
# seconds a request inside our calls may wait to connect, or between two bytes of its reply:
# far longer than any answer of a healthy Hub, short of a lease's beat on the Hub (10 min)
REPLY_TIMEOUT = 120.0


class ClientWaitRefused(Exception):
    """huggingface_hub was about to sleep longer than our budget inside one of our calls."""

    def __init__(self, seconds: float):
        super().__init__(f"the client would wait {seconds:.0f}s for the Hub's rate limit")
        self.seconds = seconds


_RATELIMIT_RE = re.compile(r";\s*r\s*=\s*(\d+)\s*;\s*t\s*=\s*(\d+)")


def wait_seconds(headers: Mapping[str, str] | None) -> float | None:
    """How long the Hub asks to wait: `t` of a `RateLimit` whose `r` is 0, else a numeric
    `Retry-After`; None when it says neither."""
    found = {str(k).lower(): str(v) for k, v in (headers or {}).items()}
    limit = _RATELIMIT_RE.search(found.get("ratelimit", ""))
    if limit is not None and int(limit.group(1)) == 0:
        return float(limit.group(2))
    retry = found.get("retry-after", "").strip()
    return float(retry) if retry.isdigit() else None


_budget = threading.local()  # .seconds: the client's sleeps allowed on this thread now (None: not inside our call)


class _BoundedTime:
    """Stands in for the `time` module inside huggingface_hub's HTTP helpers: the same
    functions, but `sleep` refuses a wait longer than this thread's budget."""

    def __getattr__(self, name: str):
        return getattr(time, name)

    @staticmethod
    def sleep(seconds: float) -> None:
        limit = getattr(_budget, "seconds", None)
        if limit is not None and seconds > limit:
            raise ClientWaitRefused(seconds)
        time.sleep(seconds)


def _reply_timeout(request) -> None:
    """The client's request hook: inside our calls, a request without a timeout of its own
    gets REPLY_TIMEOUT (httpx reads it from the request's extensions)."""
    if getattr(_budget, "seconds", None) is None:
        return
    timeouts = dict(request.extensions.get("timeout") or {})
    for phase in ("connect", "read", "write", "pool"):
        if timeouts.get(phase) is None:
            timeouts[phase] = REPLY_TIMEOUT
    request.extensions["timeout"] = timeouts


class _BoundedPool(ThreadPoolExecutor):
    """Stands in for ThreadPoolExecutor where huggingface_hub makes its thread pools: a task
    submitted inside our call runs under that call's budget (a budget is per thread)."""

    def submit(self, fn, /, *args, **kwargs):
        seconds = getattr(_budget, "seconds", None)
        if seconds is None:
            return super().submit(fn, *args, **kwargs)

        def bounded(*args, **kwargs):
            with bounded_client_waits(seconds):
                return fn(*args, **kwargs)

        return super().submit(bounded, *args, **kwargs)


def _install() -> None:
    from huggingface_hub.utils import _http  # where the client's retry loop sleeps, and its shared session

    if not isinstance(getattr(_http, "time", None), _BoundedTime):
        _http.time = _BoundedTime()
    # the module (its name is also a class's in huggingface_hub.utils) that makes the client's thread pools
    importlib.import_module("huggingface_hub.utils.tqdm").ThreadPoolExecutor = _BoundedPool
    hooks = _http.get_session().event_hooks  # a new session (set_client_factory) gets the hook again
    if _reply_timeout not in hooks["request"]:
        hooks["request"].append(_reply_timeout)


@contextmanager
def bounded_client_waits(seconds: float | None = None) -> Iterator[None]:
    """Within the block, on this thread, the client sleeps at most `seconds` at a time
    (default CLIENT_WAIT_BUDGET) and each request waits at most REPLY_TIMEOUT for its reply."""
    _install()
    seconds = CLIENT_WAIT_BUDGET if seconds is None else seconds
    before = getattr(_budget, "seconds", None)
    _budget.seconds = seconds if before is None else min(before, seconds)
    try:
        yield
    except RuntimeError as e:
        if type(e) is RuntimeError and e.__cause__ is not None:  # how the client's upload threads report
            raise e.__cause__ from e
        raise
    finally:
        _budget.seconds = before


__all__ = ["CLIENT_WAIT_BUDGET", "REPLY_TIMEOUT", "ClientWaitRefused", "bounded_client_waits", "wait_seconds"]
