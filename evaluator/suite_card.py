"""What the Hub shows of the public suite repo: its dataset card (README.md) and its
eval.yaml, made from the published suites' manifests (suite.json). Nothing here reads or
writes a store: worker/suites.py writes the two files whenever a suite is published.

    files = card_files({suite_id: manifest, ...})   # {"README.md": bytes, "eval.yaml": bytes}

The card's YAML front matter names the licence, task categories and `configs`, so that
the dataset viewer and `datasets.load_dataset(<repo>, <config>)` read each suite's public
call list (`<suite id>/calls.jsonl`, split "test"): one config per suite name (its newest
suite, the headline suite's being the default) and one per suite id.

eval.yaml follows the Hub's benchmark format (a name, a description, one
`evaluation_framework`, and `tasks` with `id`, `config`, `split`): one task per benchmark,
each reading the headline suite's calls. The format has no field for a task's metric, so
the description names each task's headline metric. The Hub accepts only the framework
identifiers on its own list; EVALUATION_FRAMEWORK has to be added there (a pull request to
huggingface.js, packages/tasks/src/eval.ts) before the Hub lists the suite as a benchmark.
"""

from __future__ import annotations

from typing import Mapping

from evaluator import reference
from evaluator.benchmarks import BENCHMARKS
from evaluator.benchmarks.hooks import DEFAULT_HEADLINE

CARD_PATH = "README.md"
EVAL_PATH = "eval.yaml"
CALLS_FILE = "calls.jsonl"
SPLIT = "test"
PRETTY_NAME = "Video Reasoning Leaderboard"
EVALUATION_FRAMEWORK = "video-reasoning-leaderboard"  # our harness: `python -m evaluator` and its worker
DEMO_NAME = "demo"


def headline(name: str) -> str:
    """A benchmark's headline score (`overall` in the results, 0-100), in words: its HEADLINE hook."""
    return getattr(BENCHMARKS[name], "HEADLINE", DEFAULT_HEADLINE)


# -- which suite is which ----------------------------------------------------------------------

def suite_name(suite_id: str, manifest: Mapping) -> str:
    return str(manifest.get("name") or suite_id)


def _newest(ids: list[str], manifests: Mapping[str, Mapping]) -> str:
    return max(ids, key=lambda s: (str(manifests[s].get("created", "")), s))


def newest_by_name(manifests: Mapping[str, Mapping]) -> dict[str, str]:
    """Suite name -> the id of the newest suite of that name, names in order."""
    names: dict[str, list[str]] = {}
    for suite_id in sorted(manifests):
        names.setdefault(suite_name(suite_id, manifests[suite_id]), []).append(suite_id)
    return {name: _newest(ids, manifests) for name, ids in sorted(names.items())}


def headline_suite(manifests: Mapping[str, Mapping]) -> str:
    """The suite the card and eval.yaml present first: the newest suite that is not a demo
    suite, or the newest demo suite where there is no other."""
    real = [s for s in manifests if suite_name(s, manifests[s]) != DEMO_NAME]
    return _newest(real or list(manifests), manifests)


# -- the files ------------------------------------------------------------------------------------

def configs(manifests: Mapping[str, Mapping]) -> list[dict]:
    """The `configs` of the card: one per suite name (its newest suite), then one per suite id."""
    head = headline_suite(manifests)
    out = []
    for name, suite_id in newest_by_name(manifests).items():
        config = {"config_name": name, "data_files": [{"split": SPLIT, "path": f"{suite_id}/{CALLS_FILE}"}]}
        out.append({**config, "default": True} if suite_id == head else config)
    taken = {c["config_name"] for c in out}
    out += [{"config_name": s, "data_files": [{"split": SPLIT, "path": f"{s}/{CALLS_FILE}"}]}
            for s in sorted(manifests) if s not in taken]
    return sorted(out, key=lambda c: not c.get("default", False))  # the default first


def _size_category(calls: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if calls < bound:
            return label
    return "100K<n<1M"


def eval_yaml(manifests: Mapping[str, Mapping]) -> dict:
    """eval.yaml's content: one task per benchmark of the headline suite, on its calls."""
    head = headline_suite(manifests)
    manifest = manifests[head]
    config = suite_name(head, manifest)
    held = [name for name in BENCHMARKS if name in (manifest.get("benchmarks") or {})]
    metrics = "; ".join(f"{name} ({BENCHMARKS[name].TITLE}): {headline(name)}" for name in held)
    description = (f"Video-language models on {len(held)} video reasoning benchmarks, answered from the video's "
                   f"frames and scored against answers that are never published (suite {head}: "
                   f"{config} {manifest.get('version', '')}). Each task's headline score, 0-100: {metrics}.")
    return {"name": PRETTY_NAME, "description": description, "evaluation_framework": EVALUATION_FRAMEWORK,
            "tasks": [{"id": name, "config": config, "split": SPLIT} for name in held]}


def metadata(manifests: Mapping[str, Mapping]) -> dict:
    """The card's YAML front matter."""
    head = manifests[headline_suite(manifests)]
    calls = sum(int(c.get("calls") or 0) for c in (head.get("benchmarks") or {}).values())
    return {"pretty_name": PRETTY_NAME, "license": "other", "license_name": "per-benchmark-release",
            "task_categories": ["video-text-to-text", "visual-question-answering"], "language": ["en"],
            "size_categories": [_size_category(calls)], "tags": ["benchmark", "video", "leaderboard"],
            "configs": configs(manifests)}


def card_files(manifests: Mapping[str, Mapping], repo_id: str | None = None) -> dict[str, bytes]:
    """The suite repo's README.md and eval.yaml for these published suites (id -> suite.json);
    `repo_id`: the repo's id on the Hub, for the card's example (None: a local store)."""
    from huggingface_hub.utils import yaml_dump

    if not manifests:
        raise ValueError("no published suite to describe")
    body = "\n".join(card_body(manifests, repo_id or "<this repo's id>"))
    text = "---\n" + yaml_dump(metadata(manifests), sort_keys=False) + "---\n\n" + body + "\n"
    return {CARD_PATH: text.encode(), EVAL_PATH: yaml_dump(eval_yaml(manifests), sort_keys=False).encode()}


# -- the card's text ------------------------------------------------------------------------------

def _benchmark_lines(held: list[str]) -> list[str]:
    lines = ["## The benchmarks", ""]
    for name in held:
        module = BENCHMARKS[name]
        summary = (module.__doc__ or module.TITLE).strip().splitlines()[0].split(": ", 1)[-1]
        paper = reference.protocol(name).paper.split(" (")[0]  # the title, without a section or arXiv note
        lines.append(f"- **{module.TITLE}** (`{name}`): {summary} Paper: *{paper}*. "
                     f"Headline score: {headline(name)}.")
    return lines


def _suite_lines(manifests: Mapping[str, Mapping], head: str) -> list[str]:
    lines = ["## Suites and their versions", "",
             "| config | suite id | name | version | built | " + " | ".join(BENCHMARKS) + " |",
             "|---|---|---|---|---|" + "---|" * len(BENCHMARKS)]
    named = {suite_id: name for name, suite_id in newest_by_name(manifests).items()}
    for suite_id in sorted(manifests, key=lambda s: (s != head, s)):
        m = manifests[suite_id]
        counts = [f"{(m.get('benchmarks') or {}).get(b, {}).get('calls', '-')} calls" for b in BENCHMARKS]
        lines.append(f"| `{named.get(suite_id, suite_id)}` | `{suite_id}` | {suite_name(suite_id, m)} | "
                     f"{m.get('version', '')} | {str(m.get('created', ''))[:10]} | " + " | ".join(counts) + " |")
    return lines


def card_body(manifests: Mapping[str, Mapping], repo_id: str) -> list[str]:
    head = headline_suite(manifests)
    manifest = manifests[head]
    held = [name for name in BENCHMARKS if name in (manifest.get("benchmarks") or {})]
    config = suite_name(head, manifest)
    return [
        f"# {PRETTY_NAME}: the public suite", "",
        "The questions, videos and call lists that models answer on the leaderboard. Answers are never here: "
        "they stay in a private repo, and the leaderboard's worker scores every submission against them. "
        f"The headline suite is `{head}` ({config}, version {manifest.get('version', '')}).", "",
        *_benchmark_lines(held), "",
        *_suite_lines(manifests, head), "",
        "## Files", "",
        f"- `<suite id>/{CALLS_FILE}`: the calls a model answers, one JSON object a line (`id`, `benchmark`, "
        "`prompt`, `frames` with the video and the times to sample, `labels`, `options`, and `context` for "
        "CausalStep's questions asked after an earlier answer); the configs above read these",
        "- `<suite id>/<benchmark>/questions.jsonl`: the public part of each item; `<suite id>/videos/`: the "
        "videos; `<suite id>/videos.jsonl`: their length and frame rate; `<suite id>/suite.json`: the manifest",
        f"- `{EVAL_PATH}`: the benchmark's registration on the Hub (one task per benchmark)", "",
        "```python", "from datasets import load_dataset", "",
        f'calls = load_dataset("{repo_id}", "{config}", split="{SPLIT}")', "```", "",
        "## How to submit", "",
        "On the leaderboard Space's Submit tab, signed in with Hugging Face: give a model's Hub id (the worker "
        "runs it on the suite, with each benchmark's own protocol), or upload a prediction file, one JSON line "
        "per call: `{\"id\": \"<call id>\", \"response\": \"<the model's raw output>\"}`. "
        "`python -m evaluator template --suite <suite folder> --out calls.jsonl` writes the call list with "
        "the video files' paths. Results are published in the leaderboard's results dataset.", "",
        "## Licence", "",
        "Each benchmark's questions and videos come from its authors' release and keep that release's "
        "licence and terms of use (see each paper); the prompts and call lists around them are the "
        "leaderboard's.",
    ]
