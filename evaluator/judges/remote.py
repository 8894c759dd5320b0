"""An LLM judge served over HTTP, through huggingface_hub's InferenceClient:

    RemoteJudge("gpt-4o-2024-08-06", base_url="https://api.openai.com/v1", api_key=KEY)
        # any OpenAI-compatible endpoint (a hosted model, a vLLM or TGI server): "openai:<model>"
    RemoteJudge("Qwen/Qwen2.5-72B-Instruct", provider="together", api_key=HF_TOKEN)
        # Hugging Face Inference Providers: "hf:<model>[:<provider>]"

Each request is one chat completion at temperature 0 with the grading prompt of
evaluator/judges/prompts/ (and, where the request carries them, the video's frames as
images), sent `concurrency` at a time. A 429 waits as long as its Retry-After says; a 5xx,
a timeout or a lost connection is retried with backoff; after `retries` tries, or on any
other refusal (401, 404...), the request gets no verdict: UNSCORED, with the reason in
`raw`, counted apart by the scorers, never silently wrong. `usage` adds up requests,
retries, failures, tokens and, given prices per million tokens, the cost.
"""

from __future__ import annotations

import hashlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Sequence

from evaluator.judges.base import TASKS, UNSCORED, Judgement, JudgeRequest
from evaluator.judges.llm import fill_prompt, load_prompt, parse_label

MAX_WAIT_S = 120.0  # the longest a Retry-After is honoured for


class RemoteJudge:
    kind = "llm"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 provider: str | None = None, concurrency: int = 8, retries: int = 4, timeout: float = 60.0,
                 max_new_tokens: int = 16, price_in: float = 0.0, price_out: float = 0.0,
                 sleep: Callable[[float], None] = time.sleep):
        if (base_url is None) == (provider is None):
            raise ValueError("a remote judge needs a base_url (an OpenAI-compatible endpoint) or a provider "
                             "(Hugging Face Inference Providers), not both")
        self.model, self.base_url, self.provider = model, base_url, provider
        self.api_key, self.timeout = api_key, timeout
        self.concurrency, self.retries, self.max_new_tokens = max(1, concurrency), max(0, retries), max_new_tokens
        self.prices = (price_in, price_out)
        self.sleep = sleep
        self.prompts = {task: load_prompt(task) for task in TASKS}
        digest = "\0".join([self.prompts[t] for t in TASKS] + [str(max_new_tokens)])
        self.config_digest = hashlib.sha256(digest.encode()).hexdigest()[:12]  # CachedJudge keys on it
        self.usage: dict[str, Any] = {"requests": 0, "retries": 0, "failures": 0, "prompt_tokens": 0,
                                      "completion_tokens": 0, "models_answering": []}
        self._lock = threading.Lock()
        self._client = None

    @property
    def judge_id(self) -> str:
        where = f"hf:{self.model}:{self.provider}" if self.provider else f"openai:{self.model}"
        return where

    def judge(self, requests: Sequence[JudgeRequest]) -> list[Judgement]:
        if not requests:
            return []
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="judge") as pool:
            return list(pool.map(self._one, requests))

    def cost_usd(self) -> float | None:
        """The judge's cost so far, from the prices given (None: no price given)."""
        price_in, price_out = self.prices
        if not price_in and not price_out:
            return None
        return (self.usage["prompt_tokens"] * price_in + self.usage["completion_tokens"] * price_out) / 1e6

    # -- one request -----------------------------------------------------------------

    def _one(self, request: JudgeRequest) -> Judgement:
        prompt = fill_prompt(self.prompts[request.task], request.question, request.gold, request.prediction)
        reply, problem = self._ask(_messages(prompt, request.frames))
        if reply is None:
            return Judgement(UNSCORED, self.judge_id, f"no verdict: {problem}")
        return Judgement(parse_label(request.task, reply), self.judge_id, reply)

    def _ask(self, messages: list[dict]) -> tuple[str | None, str]:
        """(the reply's text, "") or (None, why there is none)."""
        problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self._count("retries")
            try:
                out = self._chat(messages)
            except Exception as e:  # noqa: BLE001 - sorted into "retry" and "give up" below
                wait, problem = _retry_after(e, attempt)
                if wait is None:
                    break
                self.sleep(wait)
                continue
            self._account(out)
            return _text(out), ""
        self._count("failures")
        return None, problem

    def _chat(self, messages: list[dict]):
        self._count("requests")
        return self.client.chat_completion(messages, model=self.model, max_tokens=self.max_new_tokens,
                                           temperature=0.0)

    @property
    def client(self):
        if self._client is None:
            from huggingface_hub import InferenceClient

            if self.provider is not None:
                self._client = InferenceClient(provider=self.provider, api_key=self.api_key, timeout=self.timeout)
            else:
                self._client = InferenceClient(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout)
        return self._client

    def _count(self, key: str, n: int = 1) -> None:
        with self._lock:
            self.usage[key] += n

    def _account(self, out) -> None:
        usage = getattr(out, "usage", None)
        with self._lock:
            if usage is not None:
                self.usage["prompt_tokens"] += int(getattr(usage, "prompt_tokens", 0) or 0)
                self.usage["completion_tokens"] += int(getattr(usage, "completion_tokens", 0) or 0)
            answering = getattr(out, "model", None)
            if answering and answering not in self.usage["models_answering"]:
                self.usage["models_answering"].append(answering)  # the version the endpoint says it ran


def _messages(prompt: str, frames: Sequence[str]) -> list[dict]:
    """One user message: the frames first (data URLs of JPEG images), then the prompt."""
    if not frames:
        return [{"role": "user", "content": prompt}]
    parts = [{"type": "image_url", "image_url": {"url": url}} for url in frames]
    return [{"role": "user", "content": [*parts, {"type": "text", "text": prompt}]}]


def _text(out) -> str:
    try:
        return str(out.choices[0].message.content or "")
    except (AttributeError, IndexError, TypeError):
        return ""  # a reply without a message: parsed as UNPARSEABLE


def _retry_after(error: Exception, attempt: int) -> tuple[float | None, str]:
    """(seconds to wait before the next try, or None to give up; what went wrong)."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    backoff = min(2.0 ** attempt, 30.0)
    if type(error).__name__ == "OfflineModeIsEnabled":  # asking again would not help
        return None, "HF_HUB_OFFLINE is set, and a remote judge needs the network: unset it for the scorer"
    if status is None:  # a timeout, a lost connection
        return backoff, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]
    if status == 429:
        return min(_header_seconds(response) or backoff, MAX_WAIT_S), "HTTP 429 (rate limited)"
    if status >= 500:
        return backoff, f"HTTP {status}"
    return None, f"HTTP {status}"  # 4xx: asking again would not help


def _header_seconds(response) -> float | None:
    value = (getattr(response, "headers", None) or {}).get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


__all__ = ["RemoteJudge"]
