"""Judges grade free-text answers: ExpVid level-3 blanks and Video SimpleQA answers.

    from evaluator.judges import JudgeRequest, get_judge, summarize
    judge = get_judge("normalized-match")            # the offline matcher, no model
    judge = get_judge("llm:microsoft/Phi-3-mini-4k-instruct", revision="<commit>")   # a local model
    judge = get_judge("openai:gpt-4o-2024-08-06", base_url=URL, api_key=KEY)          # any OpenAI-compatible endpoint
    judge = get_judge("hf:Qwen/Qwen2.5-72B-Instruct:together", api_key=HF_TOKEN)      # Inference Providers
    labels = judge.judge([JudgeRequest("simpleqa", question, gold, prediction)])
    judges = judges_from(settings, judged=benchmarks.JUDGED)   # one per judged benchmark (JudgeSet)

Wrap a judge in `CachedJudge(judge, JudgementCache(path))` to grade each distinct
request only once across runs. Importing this package needs no torch.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, Sequence

from evaluator.judges.base import (
    CORRECT, INCORRECT, LABELS, NOT_ATTEMPTED, SCHEMA_VERSION, UNPARSEABLE, UNSCORED,
    Judge, Judgement, JudgeRequest,
)
from evaluator.judges.cache import CachedJudge, JudgementCache
from evaluator.errors import UnknownJudgeError
from evaluator.judges.judge_set import JudgeSet
from evaluator.judges.llm import LLMJudge, fill_prompt, load_prompt, parse_label
from evaluator.judges.normalized import NormalizedMatchJudge
from evaluator.judges.remote import RemoteJudge

# Name -> factory called with the options given to get_judge.
JUDGES: dict[str, Callable[..., Judge]] = {
    "normalized-match": NormalizedMatchJudge,
    "llm": LLMJudge,  # needs model=...; or use the name "llm:<model>"
}


REMOTE_OPTIONS = ("base_url", "api_key", "provider", "concurrency", "retries", "timeout", "max_new_tokens",
                  "price_in", "price_out", "sleep")
LOCAL_OPTIONS = ("revision", "backend", "max_new_tokens", "batch_size", "device")


def get_judge(name: str, **options) -> Judge:
    """A judge by registry name; "llm:<hub-id-or-local-path>" (a local model),
    "openai:<model>" (an OpenAI-compatible endpoint: options base_url, api_key) or
    "hf:<model>[:<provider>]" (Hugging Face Inference Providers: api_key, the HF token)."""
    if name.startswith("llm:") and len(name) > len("llm:"):
        return LLMJudge(model=name[len("llm:"):], **{k: v for k, v in options.items() if k in LOCAL_OPTIONS})
    remote = {k: v for k, v in options.items() if k in REMOTE_OPTIONS}
    if name.startswith("openai:") and len(name) > len("openai:"):
        if not remote.get("base_url"):
            raise ValueError(f"judge {name!r} needs an endpoint: set LEADERBOARD_JUDGE_BASE_URL (an OpenAI-compatible "
                             "base URL, e.g. https://api.openai.com/v1) and LEADERBOARD_JUDGE_API_KEY")
        return RemoteJudge(name[len("openai:"):], **{**remote, "provider": None})
    if name.startswith("hf:") and len(name) > len("hf:"):
        model, _, provider = name[len("hf:"):].partition(":")
        return RemoteJudge(model, **{**remote, "base_url": None, "provider": provider or "auto"})
    if name not in JUDGES:
        raise UnknownJudgeError(name, list(JUDGES))
    return JUDGES[name](**{k: v for k, v in options.items() if k not in REMOTE_OPTIONS + LOCAL_OPTIONS})


def judges_from(settings, cache_path=None, *, judged: Sequence[str]) -> JudgeSet:
    """One judge per judged benchmark (`judged`: the registry's evaluator.benchmarks.JUDGED,
    passed in by the caller) from the settings (LEADERBOARD_JUDGE, and
    LEADERBOARD_JUDGE_<BENCHMARK> over it), each LLM judge behind the judgement cache.
    The set's default (for any other benchmark) is the last judged benchmark's judge."""
    config = settings.judges
    by_name: dict[str, Judge] = {}

    def judge_named(name: str) -> Judge:
        if name not in by_name:
            judge = get_judge(name, **config.options(name))
            if judge.kind == "llm" and cache_path is not None:
                judge = CachedJudge(judge, JudgementCache(cache_path))
            by_name[name] = judge
        return by_name[name]

    made = {benchmark: judge_named(config.by_benchmark.get(benchmark) or settings.judge) for benchmark in judged}
    return JudgeSet(made, default=made[judged[-1]] if judged else judge_named(settings.judge))


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
    "fill_prompt", "load_prompt", "parse_label", "JudgeSet", "RemoteJudge", "judges_from",
]
