"""Video-MMMU's calls: one per item, plus a question-only call for adaptation items
(the knowledge-gain baseline); templates in prompts.toml beside this module.
"""

from __future__ import annotations

from evaluator import frame_plans, prompts
from evaluator.benchmarks.videommmu.records import MCQ, NAME, Question, call_id, labels_for, question_only_call_id
from evaluator.records import Call, VideoMeta

# Calls of these kinds are answered in a pass of their own, after the lecture calls
# (evaluator/benchmarks/hooks.py): the picture alone, the "before the lecture" answer.
SEPARATE_CALL_KINDS = ("question-only",)


def _template(q: Question) -> str:
    if q.track != "adaptation":
        return "lecture_mcq"
    return "adaptation_mcq" if q.question_type == MCQ else "adaptation_open"


def _call(cid: str, q: Question, kind: str, template: str, meta: VideoMeta, count: int) -> Call:
    plan = frame_plans.plan(meta, count)
    labels = labels_for(q) if q.question_type == MCQ else None
    prompt = prompts.render(
        NAME, template, duration=meta.duration, frame_count=len(plan.times),
        frame_times=prompts.frame_times_text(plan.times), question=q.question,
        options=prompts.lettered(q.options, labels) if labels else "")
    return Call(cid, NAME, q.id, kind, prompt, "choice" if labels else "open", [plan], labels,
                q.options or None)


def frame_budget_key(call: Call) -> str:
    """Which frame budget of protocol.toml a call's frames follow."""
    return "videommmu_question_only" if call.kind == "question-only" else NAME


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """One call per item over the whole lecture video (its last frame, the Adaptation
    picture, included), plus a question-only call per Adaptation item."""
    calls = []
    for q in questions:
        kind = "mcq" if q.question_type == MCQ else "open"
        calls.append(_call(call_id(q), q, kind, _template(q), videos[q.video], budgets["videommmu"]))
        if q.question_only_video:
            template = "question_only_mcq" if q.question_type == MCQ else "question_only_open"
            calls.append(_call(question_only_call_id(q), q, "question-only", template,
                               videos[q.question_only_video], budgets["videommmu_question_only"]))
    return calls
