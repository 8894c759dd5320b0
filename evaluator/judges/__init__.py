"""Judges grade free-text answers: ExpVid level-3 blanks and Video SimpleQA answers.

    from evaluator.judges import JudgeRequest, get_judge, summarize
    judge = get_judge("normalized-match")            # rule-based, no model
    judge = get_judge("llm:microsoft/Phi-3-mini-4k-instruct", revision="<commit>")
    labels = judge.judge([JudgeRequest("simpleqa", question, gold, prediction)])

Wrap a judge in `CachedJudge(judge, JudgementCache(path))` to grade each distinct
request only once across runs. Importing this package needs no torch.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from evaluator.judges.base import (
    CORRECT, INCORRECT, LABELS, NOT_ATTEMPTED, SCHEMA_VERSION, UNPARSEABLE, UNSCORED,
    Judge, Judgement, JudgeRequest,
)
from evaluator.judges.cache import CachedJudge, JudgementCache
from evaluator.judges.errors import UnknownJudgeError
from evaluator.judges.llm import LLMJudge, fill_prompt, load_prompt, parse_label
from evaluator.judges.normalized import NormalizedMatchJudge

# Name -> factory called with the options given to get_judge.
JUDGES: dict[str, Callable[..., Judge]] = {
    "normalized-match": NormalizedMatchJudge,
    "llm": LLMJudge,  # needs model=...; or use the name "llm:<model>"
}


def get_judge(name: str, **options) -> Judge:
    """A judge by registry name, or "llm:<hub-id-or-local-path>" for an LLMJudge on that model."""
    if name.startswith("llm:") and len(name) > len("llm:"):
        return LLMJudge(model=name[len("llm:"):], **options)
    if name not in JUDGES:
        raise UnknownJudgeError(name, list(JUDGES))
    return JUDGES[name](**options)


def summarize(judgements: Iterable[Judgement]) -> dict[str, int]:
    """Counts per label, every label present (UNPARSEABLE included), plus "total"."""
    counts = Counter(j.label for j in judgements)
    out = {label: counts.pop(label, 0) for label in LABELS}
    out.update(counts)  # an unexpected label is shown, not hidden
    out["total"] = sum(out.values())
    return out


__all__ = [
    "CORRECT", "INCORRECT", "NOT_ATTEMPTED", "UNPARSEABLE", "UNSCORED", "LABELS", "SCHEMA_VERSION",
    "Judge", "Judgement", "JudgeRequest", "NormalizedMatchJudge", "LLMJudge",
    "CachedJudge", "JudgementCache", "UnknownJudgeError", "JUDGES", "get_judge", "summarize",
    "fill_prompt", "load_prompt", "parse_label",
]
