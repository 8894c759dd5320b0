"""The schedule of a model's calls: which passes, in which order and batches, and CausalStep's
chain round by round. How a model answers each benchmark's calls, shared by every backend.

A runner (evaluator/runners/model.py) turns a suite into *passes*; each pass is a list
of calls answered through one function `ask(queries) -> responses` that the runner
backs with a model (transformers, vllm) and the tests back with a fake. Each benchmark's
folder declares how (evaluator/benchmarks/hooks.py: CALL_MODE, SEPARATE_CALL_KINDS,
HIDDEN_CALLS_STAGE); the executors here are generic. Today:

    expvid          independent     one query per call
    causalstep      stepwise        the chain a prediction file follows, as a wavefront (below)
    exact           independent
    videommmu       independent     the lecture calls (the quiz picture is the last frame)
    videommmu question-only         the Adaptation problem with only its still picture,
                    independent     the "before the lecture" answer behind Δknowledge
    videosimpleqa   independent     each multi-hop question AND its sub-questions (the answer
                                    key's hidden calls: one call per sub-question, same frames,
                                    never conditioned on an earlier answer), side by side

Within a pass calls are ordered by video (then by frame plan), so consecutive requests
share the same frames and a backend's prefix cache hits; `ask` gets them in chunks of
at most `batch_calls` calls (and `batch_frames` frames: host memory), and `on_batch(n)`
reports the n calls finished by each.

CausalStep stepwise (causalstep.branch_table is the reference; this is its batched twin):
a call answered in context is issued only once every call it depends on
(`context.after`) has been answered, once per distinct option label the model itself
chose there (its OWN previous answer, read with extract_choice; never the gold one),
with that option's text in place of the placeholder, and the label recorded as
`Prediction.context`. A previous answer that cannot be read gives no variant: the chain
breaks there, as in the replay scorer. Rather than walking one video at a time, every
call whose dependencies are answered goes into the same round, so step k of every
video is one batch: a 51-segment video costs 51 rounds, not 51 x videos.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Iterable, Iterator, Sequence

from evaluator.answers import extract_choice
from evaluator.benchmarks import hook
from evaluator.errors import EvaluatorError
from evaluator.records import Call, Prediction


@dataclass(frozen=True)
class Query:
    """One generation: a call's prompt as sent (placeholder filled for in-context calls)."""

    call: Call
    prompt: str
    context: str | None = None  # the previous answer's label that filled the placeholder
    run: int = 1  # which run of the call (a protocol may ask for several)


# ask(queries) -> one raw response per query, same order. Queries of one call always
# come in the same `ask` (variants of an in-context call share its frames).
# An ask may also have `prepare(queries) -> answer` and `ahead` (an int): answer() gives
# what ask(queries) would, and the executors prepare each batch `ahead` batches before
# they answer it, so a runner decodes the next batch's frames while the model answers
# the current one (batches of a pass, or of a CausalStep round, are known in advance);
# and `prepared_all()`, called once every batch known so far has been prepared.
Ask = Callable[[list[Query]], list[str]]
OnBatch = Callable[[int], None]  # called with the number of calls a batch finished
OnSkip = Callable[[Call], None]  # called with an in-context call that will not be made


INDEPENDENT, STEPWISE = "independent", "stepwise"  # a benchmark's CALL_MODE (evaluator/benchmarks/hooks.py)


@dataclass
class Pass:
    """Calls answered together: one benchmark (or one protocol stage of it)."""

    benchmark: str
    stage: str  # shown in progress ("videommmu question-only") and in the runner settings
    mode: str  # INDEPENDENT or STEPWISE
    calls: list[Call] = field(default_factory=list)
    runs: int = 1  # how often each call is asked (a protocol may ask for several runs)


# -- planning -------------------------------------------------------------------------

def plan_passes(calls: Sequence[Call], hidden_calls: Sequence[Call] = (),
                benchmarks: Sequence[str] | None = None) -> list[Pass]:
    """The passes of a run, in benchmark order (`benchmarks`, else first appearance).

    `hidden_calls` are the answer key's worker-only calls (Video SimpleQA
    sub-questions); they join their benchmark's pass.
    """
    everything = [*calls, *hidden_calls]
    hidden_ids = {c.id for c in hidden_calls}
    order = list(benchmarks) if benchmarks is not None else []
    for call in everything:
        if call.benchmark not in order:
            order.append(call.benchmark)
    by_benchmark: dict[str, list[Call]] = {name: [] for name in order}
    for call in everything:
        by_benchmark[call.benchmark].append(call)

    return [step for name in order for step in _benchmark_passes(name, by_benchmark[name], hidden_ids)]


def _benchmark_passes(name: str, ours: list[Call], hidden_ids: set[str]) -> list[Pass]:
    """One benchmark's passes, as its folder declares them (evaluator/benchmarks/hooks.py):
    its CALL_MODE, its SEPARATE_CALL_KINDS each in a pass of their own after the others,
    and its HIDDEN_CALLS_STAGE when hidden calls join its pass."""
    mode = hook(name, "CALL_MODE", INDEPENDENT)
    if mode not in (INDEPENDENT, STEPWISE):
        raise EvaluatorError(f"CALL_MODE in evaluator/benchmarks/{name}/ must be '{INDEPENDENT}' or "
                             f"'{STEPWISE}', not {mode!r}")
    apart = tuple(hook(name, "SEPARATE_CALL_KINDS", ()))
    hidden_stage = hook(name, "HIDDEN_CALLS_STAGE")
    stage = f"{name} {hidden_stage}" if hidden_stage and any(c.id in hidden_ids for c in ours) else name
    groups = [(stage, [c for c in ours if c.kind not in apart])]
    groups += [(f"{name} {kind}", [c for c in ours if c.kind == kind]) for kind in apart]
    return [Pass(name, label, mode, calls) for label, calls in groups if calls]


def video_order(calls: Iterable[Call]) -> list[Call]:
    """Calls sorted by the video they show, then by their frames; ties keep the
    call-list order (stable sort), so questions on one video stay together."""

    def key(call: Call):
        plans = [(p.video, tuple(p.times)) for p in call.frames]
        return plans[0][0] if plans else "", plans

    return sorted(calls, key=key)


def chunks(groups: list[list[Query]], batch_calls: int, batch_frames: int | None = None
           ) -> Iterable[list[list[Query]]]:
    """Consecutive runs of groups (one group = one call's queries) of at most
    `batch_calls` calls and, when given, at most `batch_frames` frames (a call's frames
    are held once for all its queries), so a batch's frames fit in host memory. A call
    with more frames than `batch_frames` goes alone."""
    if batch_calls < 1:
        raise ValueError(f"batch_calls must be at least 1, not {batch_calls}")
    batch: list[list[Query]] = []
    frames = 0
    for group in groups:
        weight = sum(len(plan.times) for plan in group[0].call.frames)
        full = len(batch) >= batch_calls or (batch_frames is not None and frames + weight > batch_frames)
        if batch and full:
            yield batch
            batch, frames = [], 0
        batch.append(group)
        frames += weight
    if batch:
        yield batch


def first_batch(step: Pass, batch_calls: int, batch_frames: int | None = None) -> list[Call]:
    """The calls of a pass's first batch, known before the pass starts (a runner decodes
    their frames while the backend answers the pass before). CausalStep: its first round
    is the calls answered out of context."""
    ready = [c for c in step.calls if c.context is None] if step.mode == STEPWISE else step.calls
    groups = [[Query(call, call.prompt)] for call in video_order(ready)]
    first = next(iter(chunks(groups, batch_calls, batch_frames)), [])
    return [group[0].call for group in first]


def _answered(batches: Iterable[list[list[Query]]], ask: Ask
              ) -> Iterator[tuple[list[list[Query]], list[Query], list[str]]]:
    """(batch, its queries, their responses) for each batch, in order; with an ask that
    prepares (see Ask), each batch is prepared `ask.ahead` batches before it is answered."""
    prepare = getattr(ask, "prepare", None)
    ahead = ask.ahead if prepare is not None else 0
    waiting: deque = deque()
    for batch in batches:
        queries = [q for group in batch for q in group]
        waiting.append((batch, queries, prepare(queries) if prepare is not None else partial(ask, queries)))
        if len(waiting) > ahead:
            yield _answer_next(waiting)
    if prepare is not None and hasattr(ask, "prepared_all"):
        ask.prepared_all()
    while waiting:
        yield _answer_next(waiting)


def _answer_next(waiting: deque) -> tuple[list[list[Query]], list[Query], list[str]]:
    batch, queries, answer = waiting.popleft()
    return batch, queries, _checked(queries, answer())


def _checked(queries: list[Query], responses: list[str]) -> list[str]:
    if len(responses) != len(queries):
        raise EvaluatorError(f"the model backend returned {len(responses)} responses for {len(queries)} "
                             f"requests (first call: {queries[0].call.id})")
    return list(responses)


# -- executors ------------------------------------------------------------------------

def run_independent(calls: Sequence[Call], ask: Ask, batch_calls: int, on_batch: OnBatch | None = None,
                    batch_frames: int | None = None, runs: int = 1) -> list[Prediction]:
    """One query per call and run (its prompt as published), in video order."""
    predictions: list[Prediction] = []
    groups = [[Query(call, call.prompt, run=r) for r in range(1, runs + 1)] for call in video_order(calls)]
    for batch, queries, responses in _answered(chunks(groups, batch_calls, batch_frames), ask):
        for query, response in zip(queries, responses):
            predictions.append(Prediction(query.call.id, response, run=query.run if query.run > 1 else None))
        if on_batch is not None:
            on_batch(len(batch) * runs)  # progress counts calls asked: each call once per run
    return predictions


def run_stepwise(calls: Sequence[Call], ask: Ask, batch_calls: int, on_batch: OnBatch | None = None,
                 on_skip: OnSkip | None = None, batch_frames: int | None = None, run: int = 1) -> list[Prediction]:
    """CausalStep's chain, round by round (module docstring). Produces the same
    predictions as causalstep.branch_table with the same answers, in another order.
    `on_skip(call)` hears of each in-context call left out because no previous answer
    could be read (the runner frees the frames kept for it)."""
    ours = {c.id: c for c in calls}
    chosen: dict[str, list[str]] = {}  # answered call id -> distinct labels the model chose
    pending = list(ours.values())
    predictions: list[Prediction] = []
    while pending:
        ready = [c for c in pending if _dependencies_answered(c, ours, chosen)]
        if not ready:
            raise EvaluatorError("CausalStep calls wait on each other in a circle: "
                                 + ", ".join(c.id for c in pending[:5]))
        ready_ids = {c.id for c in ready}
        pending = [c for c in pending if c.id not in ready_ids]
        answered: list[list[Query]] = []
        skipped = 0
        for call in video_order(ready):
            variants = [replace(q, run=run) for q in _variants(call, chosen)]
            if variants:
                answered.append(variants)
            else:
                chosen[call.id] = []  # no readable previous answer: the chain breaks here
                skipped += 1
                if on_skip is not None:
                    on_skip(call)
        for batch, queries, responses in _answered(chunks(answered, batch_calls, batch_frames), ask):
            for query, response in zip(queries, responses):
                predictions.append(Prediction(query.call.id, response, context=query.context))
                labels = chosen.setdefault(query.call.id, [])
                picked = extract_choice(response, query.call.labels, query.call.options)
                if picked is not None and picked not in labels:
                    labels.append(picked)
            if on_batch is not None:
                on_batch(len(batch) + skipped)
            skipped = 0
        if skipped and on_batch is not None:  # a round in which every call was skipped
            on_batch(skipped)
    return predictions


def _dependencies_answered(call: Call, ours: dict[str, Call], chosen: dict[str, list[str]]) -> bool:
    if call.context is None:
        return True
    # A dependency outside this pass never gets an answer: like branch_table, it
    # contributes no label rather than blocking the call forever.
    return all(dep in chosen or dep not in ours for dep in call.context.after)


def _variants(call: Call, chosen: dict[str, list[str]]) -> list[Query]:
    """The queries of one call: its prompt, or one per label the model chose before."""
    if call.context is None:
        return [Query(call, call.prompt)]
    given = {label for dep in call.context.after for label in chosen.get(dep, [])}
    return [Query(call, call.prompt.replace(call.context.placeholder, text), label)
            for label, text in call.context.choices.items() if label in given]


def run_pass(step: Pass, ask: Ask, batch_calls: int, on_batch: OnBatch | None = None,
             on_skip: OnSkip | None = None, batch_frames: int | None = None) -> list[Prediction]:
    """Answer one pass with its executor, `step.runs` times; a repeated run's predictions
    carry its number. Independent calls are asked their runs side by side (one call's
    queries share its frames); a stepwise chain is walked once per run."""
    if step.mode != STEPWISE:
        return run_independent(step.calls, ask, batch_calls, on_batch, batch_frames, runs=step.runs)
    made = []
    for run in range(1, step.runs + 1):
        chain = run_stepwise(step.calls, ask, batch_calls, on_batch, on_skip, batch_frames, run=run)
        made += chain if run == 1 else [replace(p, run=run) for p in chain]
    return made


# -- frame-count override ----------------------------------------------------------------

def replan(call: Call, count: int, videos: dict, plan_fn) -> Call:
    """The call with every frame plan re-drawn with `count` uniform frames over the same
    range, and the prompt's frame counts and frame times rewritten to match.

    `plan_fn(meta, count, start, end, label)` draws a plan (evaluator.frame_plans.plan).
    Every template names a plan's frames as "<n> frames" followed later by the times
    as prompts.frame_times_text writes them, plans in order (CausalStep: previous
    segment, then current): each is swapped left to right after the previous swap, so
    two plans with the same old count get their own new counts. Text a template does
    not have is left as it is (ExpVid's prompts name no frames).
    """
    from evaluator.prompts import frame_times_text

    prompt, cursor = call.prompt, 0
    plans = []
    for old in call.frames:
        new = plan_fn(videos[old.video], count, old.start, old.end, old.label)
        prompt, cursor = _swap(prompt, cursor, re.compile(rf"\b{len(old.times)} frames\b"),
                               f"{len(new.times)} frames")
        prompt, cursor = _swap(prompt, cursor, re.compile(re.escape(frame_times_text(old.times))),
                               frame_times_text(new.times))
        plans.append(new)
    return Call(call.id, call.benchmark, call.item, call.kind, prompt, call.answer_format, plans,
                call.labels, call.options, call.context, call.schema_version)


def _swap(text: str, cursor: int, pattern: re.Pattern, new: str) -> tuple[str, int]:
    """Replace the first match of `pattern` at or after `cursor`; the new text and the
    position after the replacement (unchanged cursor when there is no match)."""
    found = pattern.search(text, cursor)
    if found is None:
        return text, cursor
    return text[:found.start()] + new + text[found.end():], found.start() + len(new)
