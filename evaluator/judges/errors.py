"""Errors raised by the judges package."""

from __future__ import annotations

from evaluator.errors import EvaluatorError


class UnknownJudgeError(EvaluatorError, ValueError):
    """`get_judge` was given a name that is not in the registry."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        names = ", ".join(repr(k) for k in known)
        super().__init__(
            f"unknown judge {name!r}. Known judges: {names}; "
            "or 'llm:<hub-model-id-or-local-path>' for an LLM judge on that model "
            "(for example 'llm:microsoft/Phi-3-mini-4k-instruct')."
        )
