"""Built-in baselines that answer a suite's call list like a submission would.

- `random`: a uniformly random option (or value) per call, seeded; the same call
  always gets the same answer, as a stateless model would give.
- `first-option`: always the first option (A, 1, the first step...).

A stepwise benchmark's in-context calls (CALL_MODE "stepwise": CausalStep) are answered
through its folder's branch table, with each baseline's OWN previous answers as context,
exactly as a submitter's harness must.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Callable

from evaluator.benchmarks import BENCHMARKS, hook
from evaluator.records import Call, Prediction

_WORDS = ["water", "copper", "pipette", "1998", "Paris", "oak", "nitrogen", "blue", "engine", "42"]

Answerer = Callable[[Call, str], str]


def _rng(seed: int, call: Call, prompt: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}\0{call.id}\0{prompt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _random_answer(seed: int) -> Answerer:
    def answer(call: Call, prompt: str) -> str:
        rng = _rng(seed, call, prompt)
        labels = call.labels or []
        fmt = call.answer_format
        if fmt == "choice" and labels:
            return rng.choice(labels)
        if fmt == "number":
            return str(rng.choice(labels)) if labels else str(rng.randint(1, 20))
        if fmt == "int_list":
            pool = [int(x) for x in labels] if labels else list(range(1, 21))
            picked = sorted(rng.sample(pool, k=rng.randint(1, min(4, len(pool)))))
            return ", ".join(map(str, picked))
        if fmt == "blanks":
            return ", ".join(rng.choice(_WORDS) for _ in range(max(1, prompt.count("____"))))
        if fmt == "short":
            return json.dumps({"answer": rng.choice(_WORDS), "confidence_score": rng.randint(0, 100)})
        return str(rng.randint(0, 100))

    return answer


def _first_answer(call: Call, prompt: str) -> str:
    labels = call.labels or []
    fmt = call.answer_format
    if fmt in ("choice", "number", "int_list") and labels:
        return labels[0]
    if fmt == "blanks":
        return ", ".join(["unknown"] * max(1, prompt.count("____")))
    if fmt == "short":
        return json.dumps({"answer": "unknown", "confidence_score": 0})
    return "1"


def answerer(name: str, seed: int = 0) -> Answerer:
    if name == "random":
        return _random_answer(seed)
    if name == "first-option":
        return _first_answer
    raise ValueError(f"unknown baseline '{name}' (known: {', '.join(BASELINES)})")


BASELINES = ("random", "first-option")


def predictions(name: str, calls: list[Call], seed: int = 0) -> list[Prediction]:
    """A full prediction file's records for the public calls."""
    answer = answerer(name, seed)
    stepwise = [name for name in dict.fromkeys(c.benchmark for c in calls) if hook(name, "CALL_MODE") == "stepwise"]
    out: list[Prediction] = []
    for name in stepwise:  # its folder's branch table: each call in context once per label chosen before
        out += BENCHMARKS[name].branch_table([c for c in calls if c.benchmark == name], answer)
    out += [Prediction(c.id, answer(c, c.prompt)) for c in calls if c.benchmark not in stepwise]
    return out
