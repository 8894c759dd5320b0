"""Prompt templates are data files (evaluator/benchmarks/<benchmark>/prompts.toml),
written in the project's own words; a maintainer can swap one for an official text.

Templates use str.format fields; literal braces in a template are doubled.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

BENCHMARKS_DIR = Path(__file__).parent / "benchmarks"


@lru_cache(maxsize=None)
def templates(benchmark: str) -> dict[str, str]:
    with open(BENCHMARKS_DIR / benchmark / "prompts.toml", "rb") as f:
        return {k: v.strip("\n") for k, v in tomllib.load(f).items()}


def render(benchmark: str, name: str, **fields: object) -> str:
    return templates(benchmark)[name].format(**fields)


def lettered(options: list[str], labels: list[str], sep: str = ". ") -> str:
    """Options as 'A. text' lines."""
    return "\n".join(f"{label}{sep}{text}" for label, text in zip(labels, options))


def letters(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]


def frame_times_text(times: list[float]) -> str:
    return ", ".join(f"{t:.2f}s" for t in times)
