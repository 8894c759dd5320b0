"""CausalStep's scores: each video's chain replayed from the responses (restart and
point rules), then ICRA, DUA and the per-category and per-position figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evaluator.benchmarks.causalstep.records import (
    AFTER_CAUSAL,
    AFTER_DESC,
    CATEGORIES,
    DESC,
    ISOLATED,
    NAME,
    Answer,
    Question,
    Segment,
    call_id,
)
from evaluator.metrics import Tally, group_accuracy, ratio_pct, read_choice
from evaluator.records import BenchmarkScore, Responses, ScoringContext, pct, ratio


@dataclass
class VideoRun:
    """The replay of one video: chain statistics and the isolated accuracies."""

    category: str
    segments: int
    score: float = 0.0
    max_score: float = 0.0
    max_chain: int = 0
    wrong: int = 0
    desc_correct: int = 0
    causal_correct: int = 0  # isolated causal calls (ICRA)
    trace: list[tuple[int, str, bool]] = field(default_factory=list)  # (segment, "desc"|"causal", correct)
    positions: list[tuple[int, bool]] = field(default_factory=list)  # (chain position, correct)


def perfect_score(n: int, points: str) -> float:
    """A video's score when every answer is right: 1 + 2 + ... + N, or 1 + (1 + ... + N-1)."""
    return n * (n + 1) / 2 if points == "algo" else 1 + n * (n - 1) / 2


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    gold = {a.id: a for a in answers}
    chosen = ctx.options.of(NAME)  # its protocol.toml's readings: restart and points rules
    restart, points = chosen.get("restart"), chosen.get("points")
    tally = Tally()
    runs = [replay(q, gold[q.id], responses, restart, points, tally) for q in questions]

    summary = _summary(runs)
    metrics = {"overall": summary.pop("ws_norm"), **summary}
    by_category: dict[str, list[VideoRun]] = {}
    for run in runs:
        by_category.setdefault(run.category, []).append(run)
    present = [c for c in CATEGORIES if c in by_category]  # the paper's order
    metrics["by_category"] = {c: _summary(by_category[c]) for c in present}
    metrics["n_by_category"] = {c: len(by_category[c]) for c in present}
    steps = sorted(step for run in runs for step in run.positions)  # keys in position order
    by_position, n_position = group_accuracy((str(k), 1.0 if ok else 0.0) for k, ok in steps)
    metrics["by_chain_position"] = by_position
    metrics["n_by_chain_position"] = n_position

    stats = np.array([[r.score, r.max_score] for r in runs], dtype=np.float64).reshape(len(runs), 2)
    counts = tally.as_dict() | {
        "items": sum(2 * r.segments - 1 for r in runs),  # N descriptive + N-1 causal questions
        "videos": len(runs),
        "chain_steps": sum(len(r.trace) for r in runs),
    }
    details = {"restart": restart, "points": points,
               "traces": {q.id: r.trace for q, r in zip(questions, runs)}}
    return BenchmarkScore(metrics, counts, stats, lambda sums: ratio_pct(sums, 0, 1), details)


def replay(q: Question, a: Answer, responses: Responses, restart: str = "prose", points: str = "algo",
           tally: Tally | None = None) -> VideoRun:
    """Run the stepwise protocol on one video against the answer key."""
    tally = tally if tally is not None else Tally()
    n = len(q.segments)
    run = VideoRun(q.category, n, max_score=perfect_score(n, points))
    desc_ok = [_isolated_ok(q, s, DESC, a.desc[s.index - 1], responses, tally) for s in q.segments]
    run.desc_correct = sum(desc_ok)
    run.causal_correct = sum(_isolated_ok(q, s, ISOLATED, a.causal[s.index - 1], responses, tally)
                             for s in q.segments[1:])
    chain, i, step, previous = 0, 1, "desc", "desc"  # previous: the type answered right at S_(i-1)
    while i <= n:
        ok = desc_ok[i - 1] if step == "desc" else _in_chain_ok(q, a, i, previous, responses, tally)
        run.trace.append((i, step, ok))
        run.positions.append((chain + 1, ok))
        if ok:
            chain += 1
            run.max_chain = max(run.max_chain, chain)
            # A descriptive start is worth 1; the k-th causal link k+1 ("algo") or k ("prose").
            run.score += 1 if step == "desc" else (chain if points == "algo" else chain - 1)
            previous, step, i = step, "causal", i + 1
        else:
            run.wrong += 1
            chain = 0
            if step == "desc" or restart == "algo":
                i += 1
            step = "desc"
    return run


def _isolated_ok(q: Question, s: Segment, kind: str, gold: str, responses: Responses, tally: Tally) -> bool:
    mcq = s.desc if kind == DESC else s.causal
    return read_choice(responses.get(call_id(q.id, s.index, kind)), mcq.labels, mcq.options, tally) == gold


def _in_chain_ok(q: Question, a: Answer, i: int, previous: str, responses: Responses, tally: Tally) -> bool:
    """The causal answer of S_i given a correct answer at S_(i-1): its context label is that gold label."""
    if previous == "desc":
        cid, context = call_id(q.id, i, AFTER_DESC), a.desc[i - 2]
    else:
        cid, context = call_id(q.id, i, AFTER_CAUSAL), a.causal[i - 2]
    mcq = q.segments[i - 1].causal
    return read_choice(responses.in_context(cid, context), mcq.labels, mcq.options, tally) == a.causal[i - 1]


def _summary(runs: list[VideoRun]) -> dict:
    """The chain metrics over videos and the isolated accuracies over their questions."""
    v = len(runs)
    if not v:
        return dict.fromkeys(("ws_norm", "csr", "amcl", "mcl", "rf", "ws", "dua", "icra"))
    return {
        "ws_norm": pct(sum(r.score for r in runs), sum(r.max_score for r in runs)),
        "csr": pct(sum(r.wrong == 0 for r in runs), v),
        "amcl": ratio(sum(r.max_chain for r in runs), v),
        "mcl": max(r.max_chain for r in runs),
        "rf": ratio(sum(r.wrong for r in runs), v),
        "ws": ratio(sum(r.score for r in runs), v),
        "dua": pct(sum(r.desc_correct for r in runs), sum(r.segments for r in runs)),
        "icra": pct(sum(r.causal_correct for r in runs), sum(r.segments - 1 for r in runs)),
    }
