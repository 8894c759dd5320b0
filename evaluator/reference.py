"""Each benchmark's reference protocol: how its paper ran and scored models, as data.

Every benchmark folder holds a `protocol.toml` (evaluator/benchmarks/<name>/protocol.toml)
that fixes, with the paper section each value comes from:

    frames        per frame-budget key: a fixed count, or a budget the model's author picks
                  within the paper's range (its default, and the paper's own count for
                  the models it ran, by Hub id)
    resolution    native size, a square, or a fixed width x height
    prompt        the structure of the prompt (option labels, context lines, answer form)
    generation    temperature, max new tokens (and with thinking on), runs and how
                  they are combined
    judge         which model family graded, what it saw, its grading rules
    scoring       the benchmark's own scoring options: `reading`, and `readings.<name>`, the
                  options each reading sets (CausalStep's restart and points rules)
    compare       one row per point: paper / official code / ours / same, or why not

    proto = protocol("videosimpleqa")
    proto.generation.settings(thinking=False)    # {"temperature": 1.0, "max_new_tokens": 1024, "runs": 3}
    default_budgets()                            # every frame-budget key -> its reference count
    budgets_for(model, declared)                 # the counts a model-id submission runs with

The runner (generation, frames, resolution), the scorer (CausalStep's reading, runs),
the protocol card (what "the reference" is), the Submit tab (frame budgets) and
`python -m evaluator protocol` all read it; docs/protocol.md's tables are printed from
it (`python -m evaluator protocol --markdown`). Files are read when first needed and
again whenever they change on disk.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaluator import prompts
from evaluator.errors import EvaluatorError
from evaluator.records import ScoringOptions

REFERENCE_SCHEMA_VERSION = 1
PROTOCOL_FILE = "protocol.toml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)  # a misspelt key in a protocol file is an error


class FrameRule(_Strict):
    """One frame-budget key: a fixed `count`, or a budget within [min, max] with a `default`
    for a model the paper did not run and the paper's own counts (`paper_models`, by Hub id)."""

    key: str = ""
    label: str = ""  # what a reader calls these calls ("Video-MMMU lectures"); default: the key
    count: int | None = None
    default: int | None = None
    min: int | None = None
    max: int | None = None
    rule: str = ""  # how the paper chose, in words
    paper_models: dict[str, int] = Field(default_factory=dict)
    source: str

    @model_validator(mode="after")
    def _one_kind(self) -> FrameRule:
        if (self.count is None) == (self.default is None):
            raise ValueError("give either `count` (fixed) or `default` with `min` and `max` (a budget)")
        if self.count is not None and (self.min is not None or self.max is not None or self.paper_models):
            raise ValueError(f"{self.key}: a fixed `count` takes no `min`, `max` or `paper_models`")
        if self.default is not None and not (self.min is not None and self.max is not None
                                             and 1 <= self.min <= self.default <= self.max):
            raise ValueError(f"{self.key}: a budget needs 1 <= min <= default <= max")
        outside = {m: n for m, n in self.paper_models.items() if not self.allows(n)}
        if outside:
            raise ValueError(f"{self.key}: paper_models outside {self.min}-{self.max}: {outside}")
        return self

    @property
    def budget(self) -> bool:
        return self.count is None

    @property
    def reference(self) -> int:
        return self.count if self.count is not None else int(self.default)

    def allows(self, n: int) -> bool:
        return n == self.count if not self.budget else self.min <= n <= self.max

    @property
    def name(self) -> str:
        return self.label or self.key

    def range_text(self) -> str:
        return str(self.count) if not self.budget else f"{self.min}-{self.max}"

    def for_model(self, model: str | None) -> tuple[int, str]:
        """(count, why) for a model whose author declared nothing: the paper's own count
        for a model the paper ran (Hub ids compared without case), else the default."""
        if not self.budget:
            return self.reference, "fixed by the paper"
        wanted = (model or "").lower()
        for name, n in self.paper_models.items():
            if name.lower() == wanted:
                return n, "the paper's count for this model"
        return self.reference, "the default for a model the paper did not run"


class Resolution(_Strict):
    kind: Literal["native", "square", "size"]
    width: int | None = None
    height: int | None = None
    source: str

    @model_validator(mode="after")
    def _sized(self) -> Resolution:
        if self.kind != "native" and not (self.width and self.height):
            raise ValueError(f"resolution '{self.kind}' needs width and height")
        if self.kind == "square" and self.width != self.height:
            raise ValueError("a square resolution needs width == height")
        return self

    def text(self) -> str:
        """"native size", or the size frames are resized to ("796x448", aspect not kept)."""
        return "native size" if self.kind == "native" else f"{self.width}x{self.height}"

    def policy(self):
        """The ResizePolicy the runner applies (None: frames as decoded)."""
        from evaluator.video import ResizePolicy

        if self.kind == "native":
            return None
        return ResizePolicy(square=self.width) if self.kind == "square" else ResizePolicy(size=(self.width, self.height))


class Prompt(_Strict):
    labels: str  # how options are labelled
    context: list[str]  # what the prompt adds besides the question, in order
    answer: str  # the form the answer is asked in
    source: str


class Generation(_Strict):
    temperature: float = Field(ge=0)
    max_new_tokens: int = Field(ge=1)
    max_new_tokens_thinking: int = Field(ge=1)  # a thinking model reasons before it answers
    runs: int = Field(default=1, ge=1)
    combine: str = "one run"  # how several runs make one score, in words
    source: str

    def settings(self, thinking: bool = False) -> dict[str, Any]:
        """What the runner asks of a backend, and what a card compares."""
        return {"temperature": self.temperature,
                "max_new_tokens": self.max_new_tokens_thinking if thinking else self.max_new_tokens,
                "runs": self.runs}


class Judge(_Strict):
    model: str  # the paper's judge ("none": answers are read by rule)
    sees: Literal["none", "text", "frames and text"]
    grades: str
    source: str


class CompareRow(_Strict):
    point: str
    paper: str
    code: str = ""  # the official code, where public
    ours: str
    verdict: Literal["same", "differs", "not in the paper"]
    why: str = ""  # for "differs": why, and where a reader sees it

    @model_validator(mode="after")
    def _explained(self) -> CompareRow:
        if self.verdict == "differs" and not self.why:
            raise ValueError(f"compare row '{self.point}' differs and says not why")
        return self


class BenchmarkProtocol(_Strict):
    schema_version: int = REFERENCE_SCHEMA_VERSION
    benchmark: str
    title: str
    paper: str
    frames: dict[str, FrameRule]
    resolution: Resolution
    prompt: Prompt
    generation: Generation
    judge: Judge
    scoring: dict[str, Any] = Field(default_factory=dict)
    compare: list[CompareRow]

    @model_validator(mode="before")
    @classmethod
    def _name_keys(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("frames"), dict):
            data = dict(data)
            data["frames"] = {k: {**v, "key": k} if isinstance(v, dict) else v for k, v in data["frames"].items()}
        return data

    def differences(self) -> list[CompareRow]:
        """The points where our protocol differs from the paper's (shown on every card)."""
        return [row for row in self.compare if row.verdict == "differs"]


# -- reading ---------------------------------------------------------------------------

def protocol_path(name: str) -> Path:
    return Path(prompts.BENCHMARKS_DIR) / name / PROTOCOL_FILE


def protocol(name: str) -> BenchmarkProtocol:
    """The reference protocol of benchmark `name`, read from its folder (again when the file changed)."""
    path = protocol_path(name)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        raise EvaluatorError(f"benchmark '{name}' has no reference protocol: {path} is missing") from None
    return _in_its_folder(_read(str(path), stamp), name, path)


def _in_its_folder(found: BenchmarkProtocol, name: str, path: Path) -> BenchmarkProtocol:
    """`found`, or an EvaluatorError where it names another benchmark or title than its folder's:
    a folder copied from another whose protocol.toml still names its source would print and card
    the source's protocol under the new benchmark's name."""
    from evaluator import benchmarks  # the registry imports the folders, which read this module

    if found.benchmark != name:
        raise EvaluatorError(f"{path}: benchmark is {found.benchmark!r}, but this file is in {name}'s folder; "
                             f"set it to {name!r}")
    title = getattr(benchmarks.BENCHMARKS.get(name), "TITLE", found.title)
    if found.title != title:
        raise EvaluatorError(f"{path}: title is {found.title!r}, but the benchmark's TITLE (records.py) is "
                             f"{title!r}; make them the same")
    return found


@lru_cache(maxsize=64)
def _read(path: str, stamp: int) -> BenchmarkProtocol:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
        return BenchmarkProtocol.model_validate(data)
    except (tomllib.TOMLDecodeError, ValueError) as e:
        raise EvaluatorError(f"{path}: not a valid reference protocol: {e}") from None


def names() -> list[str]:
    """Every registered benchmark, in the registry's order (each must have a protocol.toml)."""
    from evaluator import benchmarks

    return list(benchmarks.ORDER)


def frame_rules(benchmark_names: list[str] | None = None) -> dict[str, FrameRule]:
    """Every frame-budget key of these benchmarks (default: all) -> its rule."""
    rules: dict[str, FrameRule] = {}
    for name in benchmark_names if benchmark_names is not None else names():
        for key, rule in protocol(name).frames.items():
            if key in rules:
                raise EvaluatorError(f"frame-budget key '{key}' is declared twice ({name}'s {PROTOCOL_FILE} "
                                     "and another benchmark's); keys must be unique")
            rules[key] = rule
    return rules


def budget_key(call) -> str:
    """The frame-budget key a call's frames follow: its benchmark's `frame_budget_key`
    hook (evaluator/benchmarks/hooks.py), else its protocol's only frames key."""
    from evaluator import benchmarks

    declared = getattr(benchmarks.BENCHMARKS.get(call.benchmark), "frame_budget_key", None)
    if callable(declared):
        return declared(call)
    keys = list(protocol(call.benchmark).frames)
    if len(keys) != 1:
        raise EvaluatorError(f"{call.benchmark} has {len(keys)} frame budgets in its {PROTOCOL_FILE}: its folder "
                             "must say which one a call follows (frame_budget_key, evaluator/benchmarks/hooks.py)")
    return keys[0]


def default_budgets() -> dict[str, int]:
    """Every frame-budget key -> the count a suite's call list is built with."""
    return {key: rule.reference for key, rule in frame_rules().items()}


def budget_errors(declared: dict[str, int], benchmark_names: list[str] | None = None) -> list[str]:
    """What is wrong with declared frame budgets, each naming the allowed range."""
    rules = frame_rules(benchmark_names)
    out = []
    for key, n in declared.items():
        rule = rules.get(key)
        if rule is None or not rule.budget:
            choosable = ", ".join(k for k, r in rules.items() if r.budget) or "none"
            out.append(f"'{key}' is not a frame budget a submission may choose (those are: {choosable})")
        elif not rule.allows(n):
            out.append(f"{rule.name}: {n} frame{'s' if n != 1 else ''} is outside the paper's range "
                       f"{rule.range_text()} (default {rule.reference})")
    return out


def budgets_for(model: str | None, declared: dict[str, int] | None = None,
                benchmark_names: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Each choosable budget key -> {"frames": n, "why": ...}: what the author declared,
    else the paper's count for this model, else the default."""
    declared = declared or {}
    out = {}
    for key, rule in frame_rules(benchmark_names).items():
        if not rule.budget:
            continue
        if key in declared:
            out[key] = {"frames": int(declared[key]), "why": "declared by the model's author"}
        else:
            n, why = rule.for_model(model)
            out[key] = {"frames": n, "why": why}
    return out


def scoring_choice(name: str, key: str, default: Any = None) -> Any:
    """A benchmark's scoring choice from its protocol (CausalStep's `reading`)."""
    try:
        return protocol(name).scoring.get(key, default)
    except EvaluatorError:
        return default


def scoring_options(name: str) -> tuple[tuple[str, ...], tuple[str, ...], str | None]:
    """Benchmark `name`'s own scoring options, from its protocol.toml's [scoring] table:
    (the options a reading sets, the readings' names, the reading the protocol names);
    CausalStep: (("restart", "points"), ("prose", "algo"), "prose"). ((), (), None): none."""
    table = scoring_choice(name, "readings") or {}
    keys = tuple(dict.fromkeys(k for reading in table.values() for k in reading if k != "source"))
    return keys, tuple(table), scoring_choice(name, "reading")


def _reading(name: str, given: dict[str, str | None]) -> dict[str, str]:
    """One benchmark's options, all from one reading: the first one given, else its protocol's."""
    keys, readings, reference_reading = scoring_options(name)
    if set(given) - set(keys):
        raise ValueError(f"{name} has no scoring option {', '.join(sorted(set(given) - set(keys)))} "
                         f"(its protocol.toml's readings set: {', '.join(keys) or 'none'})")
    reading = next((v for v in given.values() if v is not None), None) or reference_reading
    if reading not in readings:
        raise ValueError(f"{name}'s reading must be {' or '.join(map(repr, readings))}, not {reading!r} "
                         f"(LEADERBOARD_{name.upper()}_READING)")
    return {key: reading for key in keys}


def resolve_options(options: ScoringOptions | None = None) -> ScoringOptions:
    """The options with every choice left open (None) taken from the protocols: what is
    scored, recorded in results and compared on cards. A benchmark's options follow one
    reading of its paper (the first one given sets them all); a reading it does not have,
    or an option of a benchmark that has none, is refused (ValueError)."""
    options = options or ScoringOptions()
    registered = names()
    unknown = sorted(set(options.by_benchmark) - set(registered))
    if unknown:
        raise ValueError(f"scoring options for unknown benchmarks: {', '.join(unknown)}")
    chosen = {name: _reading(name, options.of(name)) for name in registered
              if scoring_options(name)[0] or options.of(name)}
    return replace(options, by_benchmark=chosen)


def reading_options(readings: dict[str, str | None] | None = None, **others: Any) -> ScoringOptions:
    """Options from whole readings by benchmark ({"causalstep": "algo"}: the settings'
    LEADERBOARD_<NAME>_READING, the CLI's --causalstep-reading; None: the protocol's),
    checked now, so a bad setting fails at start-up."""
    given = {name: reading for name, reading in (readings or {}).items() if reading}
    options = ScoringOptions(by_benchmark={name: dict.fromkeys(scoring_options(name)[0] or ("reading",), reading)
                                           for name, reading in given.items()}, **others)
    resolve_options(options)
    return options


__all__ = ["BenchmarkProtocol", "CompareRow", "FrameRule", "Generation", "Judge", "Prompt", "Resolution",
           "budget_errors", "budget_key", "budgets_for", "default_budgets", "frame_rules", "names", "protocol",
           "protocol_path", "reading_options", "resolve_options", "scoring_choice", "scoring_options"]
