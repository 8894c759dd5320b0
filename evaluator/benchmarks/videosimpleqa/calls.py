"""Video SimpleQA's calls: one per question, and the hidden sub-question calls only
workers make (they would reveal the answers).
"""

from __future__ import annotations

from evaluator import frame_plans, prompts
from evaluator.benchmarks.videosimpleqa.records import NAME, Answer, Question, usable, call_id, hop_call_id
from evaluator.records import Call, FramePlan, VideoMeta

# A worker run answers the hidden sub-question calls beside the public ones, in one pass
# named "videosimpleqa with sub-questions" (evaluator/benchmarks/hooks.py).
HIDDEN_CALLS_STAGE = "with sub-questions"


def _call(cid: str, item: str, kind: str, question: str, meta: VideoMeta, plan: FramePlan) -> Call:
    prompt = prompts.render(NAME, "short", duration=meta.duration, frame_count=len(plan.times),
                            frame_times=prompts.frame_times_text(plan.times), question=question)
    return Call(cid, NAME, item, kind, prompt, "short", [plan])


def _plans(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> dict[str, FramePlan]:
    """One uniform frame plan per video, shared by every call about it."""
    return {v: frame_plans.plan(videos[v], budgets["videosimpleqa"]) for v in {q.video for q in questions}}


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """The public calls: one per multi-hop question (items without one have none)."""
    plans = _plans(questions, videos, budgets)
    return [_call(call_id(q.id), q.id, "multi-hop", q.question, videos[q.video], plans[q.video])
            for q in questions if q.question]


def hidden_calls(questions: list[Question], answers: list[Answer], videos: dict[str, VideoMeta],
                 budgets) -> list[Call]:
    """Worker-only calls: each sub-question alone, with the same frames. They reveal
    earlier hops' answers, so they live in the answer key, never in the suite."""
    plans = _plans(questions, videos, budgets)
    subs = {a.id: a.sub_questions for a in answers}
    return [_call(hop_call_id(q.id, j), q.id, f"hop{j}", sub.question, videos[q.video], plans[q.video])
            for q in questions for j, sub in enumerate(subs[q.id], 1) if usable(sub)]
