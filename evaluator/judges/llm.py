"""An LLM judge: a local chat model grades each request with a prompt from prompts/.

torch, transformers and vllm are imported only when the model is first used, so
the website can import this module without them. The model loads lazily on the
first `judge()` call and stays loaded for the life of the object.
"""

from __future__ import annotations

import hashlib
import importlib.util
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


Backend = Literal["auto", "transformers", "vllm"]


class LLMJudge:
    """Grades with a chat model: one greedy generation per request, then `parse_label`.

    `model` is a hub id or a local path; pin `revision` (a commit hash) for published
    results, since judge_id records it ("llm:<model>@<revision or 'local'>").
    backend "auto" uses vLLM when it is installed and CUDA is available, else
    transformers. The prompt is sent as a single user message through the
    tokenizer's chat template (or as bare text for a model without a template).
    """

    kind = "llm"

    def __init__(self, model: str, revision: str | None = None, backend: Backend = "auto",
                 max_new_tokens: int = 8, batch_size: int = 16, device: str | None = None):
        if backend not in ("auto", "transformers", "vllm"):
            raise ValueError(f"backend must be 'auto', 'transformers' or 'vllm', not {backend!r}")
        self.model = str(model)
        self.revision = revision
        self.backend = backend
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.device = device
        self.judge_id = f"llm:{self.model}@{revision or 'local'}"
        self.prompts = {task: load_prompt(task) for task in TASKS}
        # judge_id does not say which prompt files were used; CachedJudge adds this
        # digest to its keys so that editing a prompt never serves stale judgements.
        digest_source = "\0".join([self.prompts[t] for t in TASKS] + [str(max_new_tokens)])
        self.config_digest = hashlib.sha256(digest_source.encode()).hexdigest()[:12]
        self._generate = None  # set on first use: list of prompts -> list of replies

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        if not requests:
            return []
        prompts = [fill_prompt(self.prompts[r.task], r.question, r.gold, r.prediction) for r in requests]
        if self._generate is None:
            self._generate = self._load()
        replies = self._generate(prompts)
        if len(replies) != len(prompts):  # zip would silently drop requests
            raise RuntimeError(f"{self.judge_id}: {len(replies)} replies for {len(prompts)} prompts")
        return [Judgement(parse_label(r.task, raw), self.judge_id, raw) for r, raw in zip(requests, replies)]

    def _load(self):
        backend = self.backend
        if backend == "auto":
            backend = "vllm" if _vllm_usable() else "transformers"
        if backend == "vllm":
            return _VllmGenerator(self.model, self.revision, self.max_new_tokens)
        return _TransformersGenerator(self.model, self.revision, self.device, self.max_new_tokens, self.batch_size)


def _vllm_usable() -> bool:
    if importlib.util.find_spec("vllm") is None:
        return False
    import torch

    return torch.cuda.is_available()


class _TransformersGenerator:
    """Batched greedy generation with transformers (CPU or one GPU)."""

    def __init__(self, model: str, revision: str | None, device: str | None, max_new_tokens: int,
                 batch_size: int):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.tokenizer = AutoTokenizer.from_pretrained(model, revision=revision)
        # Decoder-only batching: pad on the left so every reply starts right after its prompt.
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(model, revision=revision, dtype=dtype)
        self.model.to(self.device).eval()

    def _as_chat(self, prompt: str) -> str:
        if not self.tokenizer.chat_template:
            return prompt
        return self.tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )

    def __call__(self, prompts: list[str]) -> list[str]:
        texts = [self._as_chat(p) for p in prompts]
        # The chat template already writes BOS where the model wants it.
        add_special = not self.tokenizer.chat_template
        # Batch prompts of similar length together: less padding, same results.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        replies = [""] * len(texts)
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            enc = self.tokenizer([texts[i] for i in batch], return_tensors="pt", padding=True,
                                 add_special_tokens=add_special).to(self.device)
            with self.torch.inference_mode():
                out = self.model.generate(**enc, do_sample=False, max_new_tokens=self.max_new_tokens,
                                          pad_token_id=self.tokenizer.pad_token_id)
            new_tokens = out[:, enc["input_ids"].shape[1]:]
            for i, reply in zip(batch, self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)):
                replies[i] = reply.strip()
        return replies


class _VllmGenerator:
    """Greedy generation with vLLM, which batches on its own (batch_size and device are unused)."""

    def __init__(self, model: str, revision: str | None, max_new_tokens: int):
        from vllm import LLM, SamplingParams

        self.llm = LLM(model=model, revision=revision, tokenizer_revision=revision, seed=0)
        self.params = SamplingParams(temperature=0, max_tokens=max_new_tokens)
        self.has_template = bool(getattr(self.llm.get_tokenizer(), "chat_template", None))

    def __call__(self, prompts: list[str]) -> list[str]:
        if self.has_template:
            chats = [[{"role": "user", "content": p}] for p in prompts]
            outputs = self.llm.chat(chats, self.params, use_tqdm=False)
        else:
            outputs = self.llm.generate(prompts, self.params, use_tqdm=False)
        return [o.outputs[0].text.strip() for o in outputs]
