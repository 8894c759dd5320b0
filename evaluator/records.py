"""Typed records that cross module boundaries: calls, predictions, benchmark data, scores.

Records written to disk carry `schema_version`. Dataclasses (not pydantic) for the
records that come by the ten thousand, because scoring speed matters; the result
file, read by the site, is validated with pydantic in `evaluator/result.py`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from functools import cache
from typing import Any, Callable, Mapping

import numpy as np

SCHEMA_VERSION = 1

# Answer formats a call may ask for; each maps to a reader in evaluator/answers/ or the benchmark's answers.py.
ANSWER_FORMATS = ("choice", "number", "int_list", "blanks", "short", "open")


def to_dict(record: Any) -> dict:
    """A dataclass as a plain dict, dropping None values to keep files small."""
    return {k: v for k, v in asdict(record).items() if v is not None}


@cache
def _field_names(cls: type) -> frozenset[str]:
    # dataclasses.fields() is slow enough to dominate reading a 20k-call list
    return frozenset(f.name for f in fields(cls))


def from_dict(cls: type, data: dict) -> Any:
    """Build a dataclass from a dict, ignoring unknown keys (newer writers may add some)."""
    names = _field_names(cls)
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class VideoMeta:
    """What a suite needs to know about one video file to plan frames."""

    id: str
    duration: float
    fps: float
    frame_count: int
    file: str | None = None  # path relative to the suite folder; None in file-less synthetic suites


@dataclass(frozen=True)
class VideoSpec:
    """How the demo builder draws a synthetic video (evaluator/synth.py)."""

    seconds: float
    scenes: int = 1
    final_card: bool = False  # Video-MMMU: the quiz image is the last frame
    still: bool = False  # a still-image video (Video-MMMU question-only input)
    seed: int | None = None  # drawing seed; videos that must show the same card share one


@dataclass
class FramePlan:
    """Which frames of which video a call shows, in order."""

    video: str  # video id
    times: list[float]  # seconds
    start: float | None = None
    end: float | None = None
    label: str | None = None  # e.g. "previous segment", when a call shows several spans


@dataclass
class Context:
    """A causal call answered in context (CausalStep): the prompt has a placeholder
    that the submitter fills with its OWN answer to the previous call.

    `after` are the call ids whose answer supplies the context; `choices` maps each
    label of that previous question to its option text (what replaces the placeholder).
    A prediction for such a call carries `context`: the label it used.
    """

    after: list[str]
    placeholder: str
    choices: dict[str, str]


@dataclass
class Call:
    """One model query. Public calls never contain an answer, directly or in a prompt."""

    id: str
    benchmark: str
    item: str  # the scored item this call belongs to
    kind: str  # benchmark-specific, e.g. "mcq", "desc", "causal-isolated", "question-only"
    prompt: str
    answer_format: str
    frames: list[FramePlan] = field(default_factory=list)
    labels: list[str] | None = None  # option labels ("choice"), or the valid step numbers ("number", "int_list")
    options: list[str] | None = None  # option texts, same order as labels
    context: Context | None = None
    schema_version: int = SCHEMA_VERSION

    @staticmethod
    def from_json(data: dict) -> "Call":
        call = from_dict(Call, data)
        call.frames = [from_dict(FramePlan, f) for f in data.get("frames", [])]
        if data.get("context"):
            call.context = from_dict(Context, data["context"])
        return call


@dataclass(frozen=True)
class Prediction:
    """One line of a prediction file."""

    id: str
    response: str
    confidence: float | None = None
    context: str | None = None  # for calls with a Context: the label of the previous answer used
    run: int | None = None  # a repeated run's number (2, 3...) where a protocol asks for several; None: run 1


@dataclass
class BenchmarkData:
    """A benchmark's items as an importer or the demo builder produces them.

    `questions` are public records, `answers` the hidden key, both keyed by item id
    and typed by the benchmark module. `video_files` maps video id -> source file
    (copied into the suite); it is empty for file-less synthetic suites.
    """

    benchmark: str
    questions: list[Any]
    answers: list[Any]
    videos: dict[str, VideoMeta]
    video_files: dict[str, str] = field(default_factory=dict)
    video_specs: dict[str, VideoSpec] = field(default_factory=dict)
    # What an importer wants a maintainer to see before publishing (`import --check`):
    # repairs made, fields chosen, items skipped and why. Never written to a suite.
    notes: list[str] = field(default_factory=list)


@dataclass
class Responses:
    """Predictions of one submission, looked up by call id (and context label).
    `runs`: the predictions of its repeated runs (2, 3...), where a benchmark's protocol
    asks for several; each is scored like the first (evaluator/runs.py combines them)."""

    by_id: dict[str, Prediction]
    by_context: dict[tuple[str, str], Prediction] = field(default_factory=dict)
    runs: dict[int, Responses] = field(default_factory=dict)

    def get(self, call_id: str) -> Prediction | None:
        return self.by_id.get(call_id)

    def in_context(self, call_id: str, label: str) -> Prediction | None:
        return self.by_context.get((call_id, label))


@dataclass
class BenchmarkScore:
    """What a benchmark's scorer returns.

    `metrics` holds each benchmark's metric keys (percent 0-100 unless noted) and the
    breakdown dicts. For the bootstrap, `video_stats` has one row of additive
    statistics per video (resampling videos, not calls) and `overall_from`
    computes the headline from column sums: rows (B, k) -> (B,).
    `counts` separates unanswered, unparseable and judge-unparseable from wrong.
    """

    metrics: dict[str, Any]
    counts: dict[str, int]
    video_stats: np.ndarray
    overall_from: Callable[[np.ndarray], np.ndarray]
    details: dict[str, Any] = field(default_factory=dict)


def _exact(x: float | int | Fraction) -> Fraction:
    # a float as it is written (0.54375, not its binary neighbour 0.543749999...)
    return Fraction(repr(float(x))) if isinstance(x, float) else Fraction(x)


def round_half_up(value: float | int | Fraction, places: int = 2) -> float:
    """`value` rounded half away from zero on its exact value: 54.375 -> 54.38, 44.375 -> 44.38.
    (Python's round() rounds the binary float, ties to even, so such ties go either way.)"""
    scaled = abs(_exact(value)) * 10**places
    whole = math.floor(scaled + Fraction(1, 2))
    return math.copysign(whole / 10**places, value) if whole else 0.0


def ratio(numerator: float, denominator: float, scale: int = 1) -> float | None:
    """scale × numerator / denominator, exact, rounded half-up to 2 decimals; None when
    there is nothing to divide by."""
    if not denominator:
        return None
    return round_half_up(_exact(numerator) * scale / _exact(denominator))


def pct(numerator: float, denominator: float) -> float | None:
    """A percentage of the exact ratio, rounded half-up to 2 decimals; None when there is
    nothing to divide by."""
    return ratio(numerator, denominator, 100)


@dataclass(frozen=True)
class ScoringOptions:
    """Protocol choices that change scores; recorded in every result.

    `by_benchmark`: each benchmark's own options, {name: {option: value}}, named by its
    folder's protocol.toml ([scoring] readings: CausalStep's restart and points rules are
    one reading of its paper, "prose" or "algo"; one option given sets all of them). Left
    out or None: the reading its protocol.toml names, filled in (and checked) by
    evaluator.reference.resolve_options before anything is scored or recorded. Settings
    and the CLI offer whole readings only (evaluator.reference.reading_options); a mixed
    pair, built in code to test one rule at a time, reaches a scorer only unresolved.
    Recorded flat by `record()`: "<benchmark>_<option>" keys ("causalstep_restart"), as
    results always were."""

    by_benchmark: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)
    # Read a reasoning trace cut off before its final answer (an unclosed <think>) as
    # the answer; off: such a response has no final answer and is unparseable.
    grade_truncated_reasoning: bool = False

    def of(self, benchmark: str) -> dict[str, str | None]:
        """One benchmark's options ({} when it has none)."""
        return dict(self.by_benchmark.get(benchmark) or {})

    def record(self) -> dict[str, Any]:
        """What a result and a protocol card record: every benchmark's options as
        "<benchmark>_<option>" keys, then the generic ones."""
        flat = {f"{name}_{key}": value for name, chosen in self.by_benchmark.items() for key, value in chosen.items()}
        return flat | {"grade_truncated_reasoning": self.grade_truncated_reasoning}


@dataclass
class ScoringContext:
    """What a benchmark scorer gets besides the data: the judge and protocol options."""

    judge: Any  # evaluator.judges.base.Judge (this benchmark's, where each has its own)
    options: ScoringOptions = field(default_factory=ScoringOptions)
    worker_run: bool = False  # hidden calls (sub-questions) are answered only in worker runs
    # video id -> image data URLs a judge that sees frames is given (evaluator/judge_frames.py); None: text only
    judge_frames: Callable[[str], tuple[str, ...]] | None = None
