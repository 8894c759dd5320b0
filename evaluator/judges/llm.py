"""An LLM judge: a local chat model grades each request with a prompt from prompts/.

The model is served by the evaluator's generation backends (transformers or vLLM),
imported only when the model is first used, so the website can import this module
without torch. The model loads lazily on the first `judge()` call and stays loaded
for the life of the object.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal, Sequence

from evaluator.judges.base import (
    CORRECT, INCORRECT, NOT_ATTEMPTED, TASKS, UNPARSEABLE, Judgement, JudgeRequest,
)

PROMPT_DIR = Path(__file__).parent / "prompts"
_PLACEHOLDER = re.compile(r"\{(question|gold|prediction)\}")


def load_prompt(task: str) -> str:
    """The grading prompt template for a task ("blank" or "simpleqa"), a swappable text file."""
    return (PROMPT_DIR / f"{task}.txt").read_text(encoding="utf-8")


def fill_prompt(template: str, question: str, gold: str, prediction: str) -> str:
    """Put the texts into {question}, {gold} and {prediction}.

    Not str.format: questions and answers contain braces. And one pass, not chained
    str.replace: a prediction that itself contains "{gold}" must stay as written.
    """
    values = {"question": question, "gold": gold, "prediction": prediction}
    return _PLACEHOLDER.sub(lambda m: values[m[1]], template)


# The first label-like token wins. Letters must be capitals standing alone, so the
# article "a" in "a correct answer" is not read as grade A.
# "not correct" is listed so that it is not read as "correct".
_SIMPLEQA_LABEL = re.compile(r"\b(?:([ABC])|(?i:(not[ _-]?attempted|not correct|incorrect|correct)))\b")
_BLANK_LABEL = re.compile(r"(?i)\b(yes|no|not correct|incorrect|correct)\b")
_TO_LABEL = {
    "a": CORRECT, "b": INCORRECT, "c": NOT_ATTEMPTED,
    "correct": CORRECT, "incorrect": INCORRECT, "notcorrect": INCORRECT, "notattempted": NOT_ATTEMPTED,
    "yes": CORRECT, "no": INCORRECT,
}
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)


def parse_label(task: str, text: str) -> str:
    """Read a judge's reply: simpleqa A/B/C (or the label words), blank yes/no (or
    correct/incorrect). Anything else is UNPARSEABLE, which scorers count, never drop."""
    text = _THINKING.sub(" ", text or "")
    pattern = _SIMPLEQA_LABEL if task == "simpleqa" else _BLANK_LABEL
    m = pattern.search(text)
    if not m:
        return UNPARSEABLE
    word = m[m.lastindex].casefold()
    return _TO_LABEL[re.sub(r"[ _-]", "", word)]


BackendKind = Literal["auto", "transformers", "vllm"]


class LLMJudge:
    """Grades with a chat model: one greedy generation per request, then `parse_label`.

    The model runs on the evaluator's generation backends (evaluator/runners/backends.py),
    the same that answer the benchmarks, with text-only requests: the prompt is one user
    message through the model's chat template (bare text for a model without one).
    backend "auto" uses vLLM when it is installed and CUDA is available, else transformers.

    `model` is a hub id or a local path. judge_id records both model and revision,
    "llm:<model>@<revision>", and every Judgement carries it. Without a revision, a hub
    id is pinned on first use to the commit it resolves to (the Hub's answer online,
    the local cache's copy offline), and that commit is the one loaded; a local path,
    or a hub id that cannot be resolved, is recorded as "@local".
    """

    kind = "llm"

    def __init__(self, model: str, revision: str | None = None, backend: BackendKind = "auto",
                 max_new_tokens: int = 8, batch_size: int = 16, device: str | None = None):
        if backend not in ("auto", "transformers", "vllm"):
            raise ValueError(f"backend must be 'auto', 'transformers' or 'vllm', not {backend!r}")
        self.model = str(model)
        self.revision = revision
        self.backend = backend
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.device = device
        self._pinned: str | None = None  # the revision recorded and loaded, once resolved
        self.prompts = {task: load_prompt(task) for task in TASKS}
        # judge_id does not say which prompt files were used; CachedJudge adds this
        # digest to its keys so that editing a prompt never serves stale judgements.
        digest_source = "\0".join([self.prompts[t] for t in TASKS] + [str(max_new_tokens)])
        self.config_digest = hashlib.sha256(digest_source.encode()).hexdigest()[:12]
        self._generate = None  # set on first use: list of prompts -> list of replies

    @property
    def pinned_revision(self) -> str:
        """The revision judgements are made with: a commit, the given revision, or "local".

        Resolved once, on first use (it may ask the Hub), never at construction: the
        website builds judges without network access or heavy imports.
        """
        if self._pinned is None:
            from evaluator.runners.backends import resolve_revision

            self._pinned = resolve_revision(self.model, self.revision) or "local"
        return self._pinned

    @property
    def judge_id(self) -> str:
        return f"llm:{self.model}@{self.pinned_revision}"

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        if not requests:
            return []
        prompts = [fill_prompt(self.prompts[r.task], r.question, r.gold, r.prediction) for r in requests]
        if self._generate is None:
            self._generate = self._load()
        replies = self._generate(prompts)
        if len(replies) != len(prompts):  # zip would silently drop requests
            raise RuntimeError(f"{self.judge_id}: {len(replies)} replies for {len(prompts)} prompts")
        judge_id = self.judge_id
        return [Judgement(parse_label(r.task, raw), judge_id, raw) for r, raw in zip(requests, replies)]

    def _load(self):
        """The backend, loaded at the pinned revision, as a prompts -> replies function."""
        from evaluator.runners.backends import GenRequest, load_backend

        revision = None if self.pinned_revision == "local" else self.pinned_revision
        backend = load_backend(self.backend, self.model, revision, max_new_tokens=self.max_new_tokens,
                               batch_size=self.batch_size, device=self.device)
        return lambda prompts: backend.generate([GenRequest(prompt=p) for p in prompts])
