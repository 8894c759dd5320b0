"""ExpVid's calls: the question as the model reads it and one call per item
(templates in prompts.toml beside this module).
"""

from __future__ import annotations

import re

from evaluator import frame_plans, prompts
from evaluator.benchmarks.expvid.records import (
    ANSWER_FORMAT,
    NAME,
    TASK_LEVEL,
    TEMPLATE,
    UNKNOWN_DISCIPLINE,
    Question,
    call_id,
)
from evaluator.records import Call, VideoMeta

_NUMBERED_LINE = re.compile(r"^\s*(\d+)[.)]\s+\S", re.M)
BLANK = re.compile(r"_{3,}")
_LEADING_LABEL = re.compile(r"^\s*(?:question|title)\b", re.I)


def numbered(steps: list[str]) -> str:
    return "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))


def step_count(text: str) -> int | None:
    """The length of a numbered step list written in a question (its highest number)."""
    numbers = [int(m.group(1)) for m in _NUMBERED_LINE.finditer(text)]
    return max(numbers) if numbers else None


def question_block(text: str, *, title: str | None = None, discipline: str | None = None,
                   steps: list[str] | None = None, steps_heading: str = "Full Step List") -> str:
    """The question as the model reads it: level 3 gets the paper's title and
    discipline first (as in the paper's prompts), a step list given apart from the
    question goes after it, and a bare question gets a "Question:" label."""
    text = text.strip()
    parts = []
    if title and "title:" not in text.lower():
        parts.append(f"Title: {title}")
        if discipline and discipline != UNKNOWN_DISCIPLINE:
            parts.append(f"Discipline: {discipline}")
    parts.append(text if _LEADING_LABEL.match(text) else f"Question: {text}")
    if steps and not _NUMBERED_LINE.search(text):
        parts.append(f"{steps_heading}:\n{numbered(steps)}")
    return "\n\n".join(parts)


def _step_labels(q: Question) -> list[str] | None:
    """Valid step numbers for generation and prediction calls: the baselines and a
    submitter's harness read them as the answer space."""
    if q.task in ("generation", "prediction") and q.step_count:
        return [str(i) for i in range(1, q.step_count + 1)]
    return q.labels


def prompt_for(q: Question) -> str:
    options = prompts.lettered(q.options, q.labels, sep=": ") if q.options else ""
    return prompts.render(NAME, TEMPLATE[q.task], question=q.question, options=options, blanks=q.blanks)


def frame_budget_key(call: Call) -> str:
    """Which frame budget of protocol.toml a call's frames follow: its task's level."""
    return f"expvid_level{TASK_LEVEL[call.kind]}"


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """One call per item, frames uniform over the whole clip, segment or video."""
    budget = {level: budgets[f"expvid_level{level}"] for level in (1, 2, 3)}
    return [Call(call_id(q.id), NAME, q.id, q.task, prompt_for(q), ANSWER_FORMAT[q.task],
                 [frame_plans.plan(videos[q.video], budget[q.level])], _step_labels(q), q.options)
            for q in questions]
