"""The protocol card: how a result's numbers were produced, recorded in every result.

    card = file_card(suite, judge, options, submission)                 # prediction files, baselines
    card = model_card(suite, request, runner.name, runner.settings, judge, options, counts)   # model-id runs
    result.protocol = card.model_dump()                                 # scoring.make_result does this

A card records frames per budget key and how they were sampled (with the frame budgets
a model-id run chose and why), a hash of the frame times and of the prompts the calls
asked (per benchmark), a hash of every prompt template, the resolution, the frame decoder
and its version, the backend and its version, the dtype, the generation settings per
benchmark (temperature, token budget, runs) and the spread of repeated runs, the judge
and its pinned revision, the scoring options, the suite id and the code version; `hash`
condenses the fields that change scores.

The **reference protocol** (`reference_for`) is what each benchmark's protocol.toml fixes
(evaluator/reference.py): the suite's call list re-planned with the run's frame budgets
when every one lies in its paper's range (budgets the paper lets each model choose are
part of the protocol), each paper's resolution, each paper's generation (temperature,
token budget, runs), and the scoring options the protocols name. `deviations` lists the
fields of REFERENCE_FIELDS in which a card differs from it; the site ranks only rows
without any and marks the others. The judge is not one of them: rows are ranked only
within a judge already (and the card names it).

A prediction file's card records what the server knows: the call list the submitter was
given (its frame and prompt hashes), the judge, the scoring options, and what the
submitter declared (frames, thinking), marked `verified: false`. Runner fields it cannot
know (decoder, backend, dtype, resolution, generation) stay None ("not stated"); only a
declared frame count that contradicts the suite's budgets makes it deviate.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from importlib import metadata
from typing import Any, Literal

from pydantic import BaseModel, Field

from evaluator import CODE_VERSION, prompts, reference
from evaluator.records import Call, ScoringOptions

PROTOCOL_SCHEMA_VERSION = 2  # 2: frame budgets, per-benchmark generation, runs

REFERENCE_RESIZE = "native size"  # the runner-wide resize of the reference (before each paper's own size)

# Fields compared with the suite's reference protocol: each changes scores.
REFERENCE_FIELDS = ("frames", "prompts", "resolution", "generation", "scoring")
# Recorded, shown, but not compared: the model's own precision, and implementation
# versions (a change there that moves scores is a bug to fix, not a protocol).
INFORMATIVE_FIELDS = ("dtype", "backend", "backend_version", "decoder", "code_version", "prompt_templates")

UNIFORM_SAMPLING = ("uniform over the video or segment, first and last frame included "
                    "(linspace over frame indices), times fixed in the suite's call list")


class ProtocolCard(BaseModel):
    """How one result was produced (see the module docstring)."""

    schema_version: int = PROTOCOL_SCHEMA_VERSION
    source: Literal["model-run", "prediction-file", "baseline"]
    verified: bool  # False: runner fields are the submitter's declaration, not checked
    suite_id: str
    code_version: str
    frames: dict[str, int]  # frames per call, per frame-budget key of the suite
    # the budgets a model's author may choose (evaluator/reference.py): key -> frames, why, the paper's range
    frame_budgets: dict[str, dict[str, Any]] = Field(default_factory=dict)
    frame_sampling: str
    frame_times_sha256: dict[str, str]  # per benchmark: the frame times of its calls, as asked
    prompts_sha256: dict[str, str]  # per benchmark: the prompt texts of its calls, as asked
    prompt_templates: dict[str, str]  # "<benchmark>.<template>" / "judge.<task>" -> sha256 of the text
    resolution: str | None = None
    decoder: str | None = None
    backend: str | None = None
    backend_version: str | None = None
    dtype: str | None = None
    # thinking, enable_thinking, and per benchmark {"temperature", "max_new_tokens", "runs"}
    generation: dict[str, Any] | None = None
    runs: dict[str, dict[str, Any]] = Field(default_factory=dict)  # repeated runs: each run's overall, spread
    judge: dict[str, Any]  # id, kind, revision; by_benchmark where each judged benchmark has its own
    scoring: dict[str, Any]  # ScoringOptions
    declared: dict[str, str] = Field(default_factory=dict)  # stated by the submitter, not verified
    hash: str = ""  # over HASH_FIELDS
    deviations: list[str] = Field(default_factory=list)  # REFERENCE_FIELDS that differ from the suite's reference


# -- hashes -------------------------------------------------------------------------------

def _sha(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def frame_times_hashes(calls: list[Call]) -> dict[str, str]:
    """Per benchmark: a hash of (call id, video, frame times) of every call, in id order."""
    per: dict[str, list] = {}
    for call in sorted(calls, key=lambda c: c.id):
        per.setdefault(call.benchmark, []).append([call.id, [[p.video, p.times] for p in call.frames]])
    return {name: _sha(rows) for name, rows in sorted(per.items())}


def prompt_hashes(calls: list[Call]) -> dict[str, str]:
    """Per benchmark: a hash of (call id, prompt) of every call, in id order."""
    per: dict[str, list] = {}
    for call in sorted(calls, key=lambda c: c.id):
        per.setdefault(call.benchmark, []).append([call.id, call.prompt])
    return {name: _sha(rows) for name, rows in sorted(per.items())}


def template_hashes(benchmarks: list[str], judge_kind: str | None) -> dict[str, str]:
    """A hash of every prompt template of these benchmarks, and of the judge's grading
    prompts when the judge is an LLM (the deterministic matcher has none)."""
    out = {f"{name}.{key}": _sha(text) for name in benchmarks for key, text in sorted(prompts.templates(name).items())}
    if judge_kind in ("llm", "mixed"):
        from evaluator.judges.base import TASKS
        from evaluator.judges.llm import load_prompt

        out.update({f"judge.{task}": _sha(load_prompt(task)) for task in TASKS})
    return out


def judge_fields(judge) -> dict[str, Any]:
    """id, kind and the pinned revision (the part after '@': a commit for a local LLM
    judge, the rule version for the matcher; a hosted model's name carries its version),
    and for a JudgeSet each judged benchmark's own."""
    def one(j) -> dict[str, Any]:
        judge_id = j.judge_id
        return {"id": judge_id, "kind": j.kind, "revision": judge_id.rsplit("@", 1)[1] if "@" in judge_id else None}
    out = one(judge)
    if hasattr(judge, "judges"):
        out["by_benchmark"] = {name: one(j) for name, j in sorted(judge.judges().items())}
    return out


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


# -- building cards ---------------------------------------------------------------------

def resolution_text(resize: str, sizes: dict[str, str]) -> str:
    """"native size; exact: 796x448; expvid: 224x224": the runner-wide policy, then each
    paper's own size (benchmarks whose paper fixes none are not listed)."""
    return "; ".join([resize] + [f"{name}: {v}" for name, v in sorted(sizes.items()) if v != "native size"])


def _benchmarks(suite) -> list[str]:
    return list(suite.manifest.get("benchmarks", {}))


def _common(suite, calls: list[Call], judge, options: ScoringOptions) -> dict[str, Any]:
    judged = judge_fields(judge)
    return {
        "suite_id": suite.id,
        "code_version": CODE_VERSION,
        "frame_times_sha256": frame_times_hashes(calls),
        "prompts_sha256": prompt_hashes(calls),
        "prompt_templates": template_hashes(_benchmarks(suite), judged["kind"]),
        "judge": judged,
        "scoring": reference.resolve_options(options).record(),
    }


def _runs(counts: dict | None) -> dict[str, dict[str, Any]]:
    """Each repeated benchmark's runs, their overalls and spread (scoring's counts)."""
    return {name: {k: c[k] for k in ("runs", "overall_per_run", "sd", "range") if k in c}
            for name, c in (counts or {}).items() if c.get("runs")}


def file_card(suite, judge, options: ScoringOptions, submission: dict, counts: dict | None = None) -> ProtocolCard:
    """The card of answers the server did not produce: a prediction file (runner fields
    as declared, unverified), or a built-in baseline (our code, which looks at no frame);
    `counts` (scoring's): the runs the file gave."""
    baseline = submission.get("kind") == "baseline"
    meta = dict(submission.get("metadata") or {})
    declared = {k: str(meta[k]) for k in ("frames", "thinking") if meta.get(k) not in (None, "")}
    card = ProtocolCard(
        source="baseline" if baseline else "prediction-file",
        verified=baseline,
        frames=dict(suite.manifest.get("frame_budgets", {})),
        frame_sampling=UNIFORM_SAMPLING + (" (the call list the submitter was given)" if not baseline else ""),
        declared=declared,
        runs=_runs(counts),
        **_common(suite, suite.calls, judge, options),
    )
    return finish(card, suite)


def budget_notes(suite, request) -> dict[str, dict[str, Any]]:
    """The choosable frame budgets of a model-id run: frames, why, and the paper's range."""
    from evaluator.runners.reference_run import frames_asked, request_budgets

    asked = frames_asked(suite, request)
    chosen = request_budgets(suite, request)
    legacy = getattr(request, "frames", None)
    rules = reference.frame_rules(_benchmarks(suite))
    return {key: {"frames": asked.get(key, rule.reference), "range": rule.range_text(),
                  "why": "one count for every call (frames)" if legacy else
                  chosen.get(key, {}).get("why", "the paper's default")}
            for key, rule in rules.items() if rule.budget}


def model_card(suite, request, runner_name: str, settings: dict, judge, options: ScoringOptions,
               counts: dict | None = None) -> ProtocolCard:
    """The card of a model-id run, from the runner's recorded settings (runners/model.py),
    the calls as it asked them (re-planned where its frame budgets differ from the
    suite's) and, for repeated runs, the spread of their overalls (from `counts`)."""
    from evaluator.runners.model import calls_asked

    asked, _ = calls_asked(suite, request)
    backend = dict(settings.get("backend") or {})
    kind = backend.get("backend") or runner_name
    decoder = (settings.get("frame_decoder") or {}).get("decoder")
    budgets = settings.get("frame_budgets") or suite.manifest.get("frame_budgets", {})
    legacy = getattr(request, "frames", None)
    sampling = UNIFORM_SAMPLING if not legacy else (
        f"re-planned: {legacy} uniform frames per call over the same span (per segment for CausalStep), "
        f"first and last frame included; one-frame calls (Video-MMMU's question-only picture) keep theirs")
    generation = settings.get("generation") or {}
    card = ProtocolCard(
        source="model-run",
        verified=True,
        frames={k: int(v) for k, v in budgets.items()},
        frame_budgets=budget_notes(suite, request),
        frame_sampling=sampling,
        resolution=resolution_text(str(settings.get("resize") or REFERENCE_RESIZE),
                                   {name: str(g.get("resolution", "native size")) for name, g in generation.items()}),
        decoder=decoder.split(":")[0] if decoder else None,
        backend=kind,
        backend_version=_package_version(kind) if kind in ("transformers", "vllm") else None,
        dtype=settings.get("dtype"),
        generation={"thinking": bool(settings.get("thinking")), "enable_thinking": settings.get("enable_thinking"),
                    "benchmarks": {name: {k: g.get(k) for k in ("temperature", "max_new_tokens", "runs")}
                                   for name, g in generation.items()}},
        runs=_runs(counts),
        **_common(suite, asked, judge, options),
    )
    return finish(card, suite)


# -- the reference and the comparison ------------------------------------------------------

def _budgets_allowed(suite, frames: dict[str, int]) -> bool:
    rules = reference.frame_rules(_benchmarks(suite))
    built = {k: int(v) for k, v in suite.manifest.get("frame_budgets", {}).items()}
    return all(rules[k].allows(n) if k in rules else n == built.get(k) for k, n in frames.items())


def reference_for(suite, thinking: bool = False, frames: dict[str, int] | None = None) -> dict[str, Any]:
    """The suite's reference protocol, in the terms of REFERENCE_FIELDS. `frames`: the
    run's frames per budget key; where all lie in their papers' ranges, the reference call
    list is the suite's re-planned with them (a budget the paper lets each model choose)."""
    calls = list(suite.calls)
    built = {k: int(v) for k, v in suite.manifest.get("frame_budgets", {}).items()}
    if frames and frames != built and _budgets_allowed(suite, frames):
        from evaluator.runners.reference_run import replan_calls

        calls, _ = replan_calls(calls, [], suite.videos, {**built, **frames}, built)
    names = _benchmarks(suite)
    return {
        "frame_times_sha256": frame_times_hashes(calls),
        "prompts_sha256": prompt_hashes(calls),
        "resolution": resolution_text(REFERENCE_RESIZE, {n: reference.protocol(n).resolution.text() for n in names}),
        "generation": {n: reference.protocol(n).generation.settings(thinking) for n in names},
        "scoring": reference.resolve_options().record(),
    }


def _declared_frames_differ(card: ProtocolCard) -> bool:
    return declared_frames_differ(card.declared.get("frames"), card.frames)


def declared_frames_differ(stated: str | None, budgets: Mapping[str, int]) -> bool:
    """Whether a prediction file's stated frame count ("8") departs from the call list's
    frame budgets (budget key -> frames): one count matches only a suite whose budgets are
    all that count (1-frame budgets, single images, aside)."""
    if stated is None:
        return False
    counts = {int(v) for v in budgets.values() if int(v) != 1}
    return counts != {int(stated)} if str(stated).isdigit() else True


def deviations(card: ProtocolCard, reference_: dict[str, Any]) -> list[str]:
    """The REFERENCE_FIELDS in which `card` differs from `reference_`. A field the card
    does not state (None: a prediction file's runner) is not counted as differing."""
    out = []
    if card.frame_times_sha256 != reference_["frame_times_sha256"] or _declared_frames_differ(card):
        out.append("frames")
    if card.prompts_sha256 != reference_["prompts_sha256"]:
        out.append("prompts")
    if card.resolution is not None and card.resolution != reference_["resolution"]:
        out.append("resolution")
    if card.generation is not None:
        given = card.generation.get("benchmarks") or {}
        if any(given.get(name) != wanted for name, wanted in reference_["generation"].items()):
            out.append("generation")
    if card.scoring != reference_["scoring"]:
        out.append("scoring")
    return out


HASH_FIELDS = ("suite_id", "frame_times_sha256", "prompts_sha256", "resolution", "generation", "scoring")


def protocol_hash(card: ProtocolCard) -> str:
    """Equal for two cards whose score-changing fields are equal (the judge aside)."""
    generation = {k: (card.generation or {}).get(k) for k in ("thinking", "benchmarks")} \
        if card.generation is not None else None
    fields = {name: getattr(card, name) for name in HASH_FIELDS} | {"generation": generation}
    return _sha(fields)


def finish(card: ProtocolCard, suite) -> ProtocolCard:
    """The card with its hash and its deviations from the suite's reference."""
    thinking = bool((card.generation or {}).get("thinking")) or card.declared.get("thinking") == "true"
    card.deviations = deviations(card, reference_for(suite, thinking, card.frames if card.verified else None))
    card.hash = protocol_hash(card)
    return card


__all__ = ["HASH_FIELDS", "INFORMATIVE_FIELDS", "PROTOCOL_SCHEMA_VERSION", "ProtocolCard", "REFERENCE_FIELDS",
           "budget_notes", "deviations", "file_card", "frame_times_hashes", "model_card", "prompt_hashes",
           "reference_for"]
