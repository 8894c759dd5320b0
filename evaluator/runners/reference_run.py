"""How a model-id run follows each benchmark's reference protocol (evaluator/reference.py):
the frames each call shows, the size they are shown at, and how each benchmark's calls
are generated (temperature, token budget, runs).

    asked = frames_asked(suite, request)                 # frame-budget key -> frames per call
    public, hidden = replan_calls(public, hidden, suite.videos, asked, suite_budgets(suite))
    plans = generation_plans(names, thinking, max_new_tokens=None)   # benchmark -> Generating
    # a benchmark run k times asks each call k times (schedule.Pass.runs)

Sampling (a temperature above 0) is seeded per call and run (`seed_for`): vLLM seeds each
request, the transformers backend each batch with its first request's seed; a rerun with
the same settings draws the same way, and the runs of one call draw differently.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

from evaluator import frame_plans
from evaluator import reference
from evaluator.records import Call
from evaluator.runners import schedule


@dataclass(frozen=True)
class Generating:
    """How one benchmark's calls are asked: from its protocol.toml, or the worker's cap."""

    temperature: float
    max_new_tokens: int
    runs: int
    resize: Any = None  # the paper's own frame size (a ResizePolicy), or None: as decoded
    size: str = "native size"  # the same, as the protocol writes it ("224x224")

    def describe(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_new_tokens": self.max_new_tokens, "runs": self.runs,
                "resolution": self.size}


def generation_plans(names: Sequence[str], thinking: bool, max_new_tokens: int | None = None,
                     paper_sizes: bool = True) -> dict[str, Generating]:
    """Each benchmark's Generating. `max_new_tokens`: the worker operator's cap for every
    benchmark (a budget above it is lowered to it; recorded, and off-protocol where it
    lowers one); `paper_sizes`: resize frames to each paper's own size (off: frames as
    decoded, for tests)."""
    out = {}
    for name in names:
        proto = reference.protocol(name)
        wanted = proto.generation.settings(thinking)
        out[name] = Generating(temperature=wanted["temperature"],
                               max_new_tokens=min(max_new_tokens or wanted["max_new_tokens"],
                                                  wanted["max_new_tokens"]), runs=wanted["runs"],
                               resize=proto.resolution.policy() if paper_sizes else None,
                               size=proto.resolution.text() if paper_sizes else "native size")
    return out


def seed_for(call_id: str, run: int) -> int:
    """A sampling seed of one call in one run: fixed, and different across calls and runs."""
    return int.from_bytes(hashlib.sha256(f"{call_id}:{run}".encode()).digest()[:4], "big")


# -- frames ------------------------------------------------------------------------------

def suite_budgets(suite) -> dict[str, int]:
    """The frames per call the suite's call list was built with, by budget key."""
    return {k: int(v) for k, v in (suite.manifest.get("frame_budgets") or reference.default_budgets()).items()}


def request_budgets(suite, request) -> dict[str, dict[str, Any]]:
    """The request's choosable frame budgets, {key: {"frames", "why"}}: as resolved when it
    was submitted (the author's, else the paper's count for the model, else the default),
    or, for a request from before budgets, resolved now the same way."""
    names = list(suite.manifest.get("benchmarks", {})) or None
    given = dict(getattr(request, "frame_budgets", None) or {})
    if not given:
        return reference.budgets_for(getattr(request, "model", None), {}, names)
    notes = dict(getattr(request, "frame_budget_notes", None) or {})
    return {k: {"frames": int(n), "why": notes.get(k, "chosen for this run")} for k, n in given.items()}


def frames_asked(suite, request) -> dict[str, int]:
    """Frames per call by budget key as this request runs: the suite's, with the request's
    frame budgets over them (request_budgets). A request with `frames` (one count for
    every call, outside every paper's protocol) re-plans every key but one-frame ones
    (Video-MMMU's question-only picture) with it instead."""
    asked = suite_budgets(suite)
    legacy = getattr(request, "frames", None)
    if legacy:
        return {k: v if v == 1 else int(legacy) for k, v in asked.items()}
    for key, chosen in request_budgets(suite, request).items():
        if key in asked:
            asked[key] = chosen["frames"]
    return asked


def replan_calls(public: list[Call], hidden: list[Call], videos: dict, asked: dict[str, int],
                 built: dict[str, int]) -> tuple[list[Call], list[Call]]:
    """The calls as they will be made: a call whose budget key asks for another count than
    the suite was built with is re-planned with that many uniform frames over the same
    span (schedule.replan: the prompt's frame count and times follow)."""
    changed = {key for key, n in asked.items() if built.get(key) != n}
    if not changed:
        return public, hidden

    def redo(call: Call) -> Call:
        key = reference.budget_key(call)
        return schedule.replan(call, asked[key], videos, frame_plans.plan) if key in changed else call

    return [redo(c) for c in public], [redo(c) for c in hidden]


__all__ = ["Generating", "frames_asked", "generation_plans", "replan_calls", "request_budgets", "seed_for",
           "suite_budgets"]
