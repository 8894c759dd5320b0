"""`python -m evaluator import --check`: what an importer read from a release, in a few
lines per benchmark, so a maintainer sees that a release was read right before
building and publishing a suite. Reads through the real importers; writes nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

from evaluator.benchmarks import BENCHMARKS
from evaluator.records import BenchmarkData


def _option_counts(question: Any) -> list[int]:
    """Options shown per question (CausalStep: per segment question)."""
    if hasattr(question, "segments"):
        return [len(m.options) for s in question.segments for m in (s.desc, s.causal) if m is not None]
    options = getattr(question, "options", None)
    return [len(options or [])] if hasattr(question, "options") else []


def _counts(counter: Counter) -> str:
    """ "key count" pairs, numbers in numeric order, then names in alphabetical order."""
    def order(key):
        return (0, key, "") if isinstance(key, int) else (1, 0, str(key))

    return ", ".join(f"{key} {counter[key]}" for key in sorted(counter, key=order))


def summary(data: BenchmarkData, source: str) -> list[str]:
    """The report's lines for one benchmark's import."""
    lines = [f"{data.benchmark}: {source}",
             f"  items: {len(data.questions)}   videos: {len(data.video_files) or len(data.video_specs)}"]
    # the public fields its results are broken down by, as its folder declares them
    for name in getattr(BENCHMARKS.get(data.benchmark), "BREAKDOWN_FIELDS", ()):
        values = Counter("(none)" if getattr(q, name) is None else getattr(q, name) for q in data.questions)
        lines.append(f"  {name} ({len(values)}): {_counts(values)}")
    options = Counter(n for q in data.questions for n in _option_counts(q))
    if options:
        lines.append(f"  options per question: {_counts(options)}")
    lines += [f"  note: {note}" for note in data.notes] or ["  note: nothing repaired or skipped"]
    return lines
