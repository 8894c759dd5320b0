"""One judge per judged benchmark (ExpVid level 3, Video SimpleQA), as the worker's
settings choose them:

    judges = JudgeSet({"videosimpleqa": remote, "expvid": matcher}, default=matcher)
    judges.for_benchmark("videosimpleqa")     # the Judge that grades it
    judges.judge_id                           # one id when all agree, else "expvid=...; videosimpleqa=..."

A JudgeSet is a Judge too (its `judge` grades with the default), so code that takes one
judge takes a set; evaluator.scoring asks each benchmark's own.
"""

from __future__ import annotations

from typing import Any, Sequence

from evaluator.judges.base import Judge, Judgement, JudgeRequest


class JudgeSet:
    def __init__(self, by_benchmark: dict[str, Judge], default: Judge):
        self.by_benchmark, self.default = dict(by_benchmark), default

    def for_benchmark(self, name: str) -> Judge:
        return self.by_benchmark.get(name, self.default)

    def judges(self) -> dict[str, Judge]:
        return dict(self.by_benchmark)

    @property
    def judge_id(self) -> str:
        ids = {name: j.judge_id for name, j in sorted(self.by_benchmark.items())}
        if len(set(ids.values())) <= 1:
            return next(iter(ids.values()), self.default.judge_id)
        return "; ".join(f"{name}={jid}" for name, jid in ids.items())

    @property
    def kind(self) -> str:
        kinds = {j.kind for j in self.by_benchmark.values()} or {self.default.kind}
        return kinds.pop() if len(kinds) == 1 else "mixed"

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        return self.default.judge(requests)

    def describe(self) -> dict[str, Any]:
        """What a result records: the set's id and kind, and each benchmark's judge."""
        return {"id": self.judge_id, "kind": self.kind,
                "by_benchmark": {name: {"id": j.judge_id, "kind": j.kind}
                                 for name, j in sorted(self.by_benchmark.items())}}

    def usage(self) -> dict[str, Any] | None:
        """Requests, tokens and cost of the judges that count them (the remote ones)."""
        out = {}
        for name, judge in sorted(self.by_benchmark.items()):
            inner = getattr(judge, "inner", judge)  # a CachedJudge's own judge
            used = getattr(inner, "usage", None)
            if isinstance(used, dict):
                cost = inner.cost_usd() if hasattr(inner, "cost_usd") else None
                out[name] = {**used, "cost_usd": cost, "cached": getattr(judge, "stats", {}).get("cached")}
        return out or None


def describe(judge) -> dict[str, Any]:
    """A result's `judge` block for a single judge or a set."""
    if isinstance(judge, JudgeSet):
        return judge.describe()
    return {"id": judge.judge_id, "kind": judge.kind}


def for_benchmark(judge, name: str):
    return judge.for_benchmark(name) if isinstance(judge, JudgeSet) else judge


__all__ = ["JudgeSet", "describe", "for_benchmark"]
