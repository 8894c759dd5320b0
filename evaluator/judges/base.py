"""The judge interface shared by every grader of free-text answers.

A judge turns (question, gold, prediction) triples into labels. Two benchmarks
need one: ExpVid level 3 (one request per blank, binary) and Video SimpleQA
(three-way grade). Scorers depend only on `Judge`, so the deterministic
`NormalizedMatchJudge` and an `LLMJudge` are interchangeable.

This module imports nothing heavy: the website imports the judges package
without torch installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, Sequence

# Bump when the request/judgement layout changes (cached and stored results carry it).
SCHEMA_VERSION = 1

CORRECT = "CORRECT"
INCORRECT = "INCORRECT"
NOT_ATTEMPTED = "NOT_ATTEMPTED"  # simpleqa only: no answer, a refusal, or a vague bound
UNPARSEABLE = "UNPARSEABLE"  # the judge's own output could not be read; counted, never dropped
UNSCORED = "UNSCORED"  # the judge abstained or failed (no verdict): counted apart from wrong
LABELS = (CORRECT, INCORRECT, NOT_ATTEMPTED, UNPARSEABLE, UNSCORED)

# The judge's grading tasks, one prompt each (prompts/<task>.txt); which benchmark grades with
# which is its folder's JUDGE_TASK (evaluator/benchmarks/hooks.py).
TASKS = ("blank", "simpleqa")


@dataclass(frozen=True)
class JudgeRequest:
    """One answer to grade.

    task "blank": one ExpVid level-3 blank (question = the sentence with its blanks,
    gold = the reference filler of this blank, prediction = the model's filler).
    task "simpleqa": one Video SimpleQA answer (the extracted answer string).
    `frames`: the video's frames as image data URLs, for a judge that sees them (the
    Video SimpleQA paper's grader does); empty for a text-only judge.
    Frozen, so requests are hashable and duplicates can be judged once.
    """

    task: Literal["blank", "simpleqa"]
    question: str
    gold: str
    prediction: str
    frames: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judgement:
    """The verdict on one request.

    `label` is one of LABELS. `judge_id` names the judge and its version, e.g.
    "normalized-match@5" or "llm:microsoft/Phi-3-mini-4k-instruct@<revision>".
    `raw` keeps an LLM judge's text output (None for rule-based judges).
    """

    label: str
    judge_id: str
    raw: str | None = None


class Judge(Protocol):
    """Anything that grades a batch of requests, one Judgement per request, in order."""

    judge_id: str
    kind: str  # "normalized-match" or "llm"

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]: ...
