"""ExAct's calls: one five-option call per item (template in prompts.toml beside
this module).
"""

from __future__ import annotations

from evaluator import frame_plans, prompts
from evaluator.benchmarks.exact.records import LABELS, NAME, Question, call_id
from evaluator.records import Call, VideoMeta


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    calls = []
    for q in questions:
        meta = videos[q.video]
        plan = frame_plans.plan(meta, budgets[NAME])
        prompt = prompts.render(
            NAME, "mcq", duration=meta.duration, frame_count=len(plan.times),
            frame_times=prompts.frame_times_text(plan.times), activity=q.task_name or q.activity,
            options=prompts.lettered(q.options, [f"Option {label}" for label in LABELS], sep=": "))
        calls.append(Call(call_id(q.id), NAME, q.id, "mcq", prompt, "choice", [plan], LABELS, q.options))
    return calls
