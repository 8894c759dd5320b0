"""CausalStep's calls (isolated, after a description, after a causal answer, with
the previous answer's text as context) and the branch table a prediction file answers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable

from evaluator import frame_plans, prompts
from evaluator.answers import extract_choice
from evaluator.benchmarks.causalstep.records import (
    AFTER_CAUSAL,
    AFTER_DESC,
    CURRENT,
    DESC,
    ISOLATED,
    MCQ,
    NAME,
    PLACEHOLDER,
    PREVIOUS,
    Question,
    Segment,
    call_id,
)
from evaluator.records import Call, Context, FramePlan, Prediction, VideoMeta

# How a runner answers these calls (evaluator/benchmarks/hooks.py): as a chain, each call
# in context once per option the model itself chose before (branch_table, batched).
CALL_MODE = "stepwise"


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """Per segment, in order: desc, causal-isolated, causal-after-desc, causal-after-causal.

    A call answered in context always comes after the calls that supply its context.
    """
    calls = []
    for q in questions:
        meta = videos[q.video]
        plans = [frame_plans.plan(meta, budgets["causalstep_segment"], s.start, s.end, CURRENT) for s in q.segments]
        for s in q.segments:
            calls.append(_single_call(q, s, plans[s.index - 1], DESC))
            if s.causal is None:
                continue
            calls.append(_single_call(q, s, plans[s.index - 1], ISOLATED))
            before = q.segments[s.index - 2]
            pair = [replace(plans[s.index - 2], label=PREVIOUS), plans[s.index - 1]]
            calls.append(_context_call(q, s, pair, AFTER_DESC, before.desc, [call_id(q.id, before.index, DESC)]))
            if before.causal is not None:
                after = [call_id(q.id, before.index, AFTER_DESC)]
                if before.index > 2:  # the previous causal question has an in-chain variant of its own
                    after.append(call_id(q.id, before.index, AFTER_CAUSAL))
                calls.append(_context_call(q, s, pair, AFTER_CAUSAL, before.causal, after))
    return calls


def _fields(mcq: MCQ, plan: FramePlan, s: Segment) -> dict:
    labels = mcq.labels
    return dict(start=s.start, end=s.end, frame_count=len(plan.times),
                frame_times=prompts.frame_times_text(plan.times), question=mcq.question,
                options=prompts.lettered(mcq.options, labels), first=labels[0], last=labels[-1])


def _single_call(q: Question, s: Segment, plan: FramePlan, kind: str) -> Call:
    mcq = s.desc if kind == DESC else s.causal
    template = "desc" if kind == DESC else "causal_isolated"
    prompt = prompts.render(NAME, template, **_fields(mcq, plan, s))
    return Call(call_id(q.id, s.index, kind), NAME, _item(q, s, kind), kind, prompt, "choice", [plan],
                mcq.labels, mcq.options)


def _context_call(q: Question, s: Segment, pair: list[FramePlan], kind: str, previous: MCQ,
                  after: list[str]) -> Call:
    prev_plan, plan = pair
    prompt = prompts.render(
        NAME, "causal_in_context", **_fields(s.causal, plan, s),
        prev_start=prev_plan.start, prev_end=prev_plan.end, prev_count=len(prev_plan.times),
        prev_times=prompts.frame_times_text(prev_plan.times), previous_question=previous.question,
        previous_answer=PLACEHOLDER)
    context = Context(after, PLACEHOLDER, dict(zip(previous.labels, previous.options)))
    return Call(call_id(q.id, s.index, kind), NAME, _item(q, s, kind), kind, prompt, "choice", pair,
                s.causal.labels, s.causal.options, context)


def _item(q: Question, s: Segment, kind: str) -> str:
    """The scored question a call belongs to: every causal call of S_i shares one item."""
    return f"{q.id}/s{s.index}/{'desc' if kind == DESC else 'causal'}"


def branch_table(calls: Iterable[Call], answer_fn: Callable[[Call, str], str]) -> list[Prediction]:
    """Answer every CausalStep call the way a prediction file must.

    `answer_fn(call, prompt_text)` returns the model's raw response. Calls without
    context are answered once. A call in context is answered once per distinct
    label the model chose for the call(s) in `context.after` (read with
    extract_choice), with that option's text in place of the placeholder; a
    previous answer that cannot be read gives no variant (the chain breaks there).
    Other benchmarks' calls are skipped.
    """
    ours = {c.id: c for c in calls if c.benchmark == NAME}
    chosen: dict[str, list[str]] = {}  # call id -> distinct labels the model gave it
    table: list[Prediction] = []

    def answer(call: Call) -> None:
        if call.id in chosen:
            return
        if call.context is None:
            variants = [(None, call.prompt)]
        else:
            for dep in call.context.after:
                if dep in ours:
                    answer(ours[dep])  # no-op in call-list order; keeps any other order correct
            given = {label for dep in call.context.after for label in chosen.get(dep, [])}
            variants = [(label, call.prompt.replace(call.context.placeholder, text))
                        for label, text in call.context.choices.items() if label in given]
        labels: list[str] = []
        for label, prompt in variants:
            response = answer_fn(call, prompt)
            table.append(Prediction(call.id, response, context=label))
            picked = extract_choice(response, call.labels, call.options)
            if picked is not None and picked not in labels:
                labels.append(picked)
        chosen[call.id] = labels

    for call in ours.values():
        answer(call)
    return table
