"""Every environment variable the project reads, in one place, read lazily.

Nothing reads os.environ at import time: call `get_settings()` when a value is
needed (tests call `get_settings.cache_clear()` after changing the environment).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


@dataclass(frozen=True)
class FrameBudgets:
    """Frames per call written into a suite's call list (the papers' settings)."""

    expvid_level1: int = 8
    expvid_level2: int = 32
    expvid_level3: int = 128  # the paper lets each model pick 96-512; we fix one for comparability
    causalstep_segment: int = 8  # per segment; a causal call shows two segments (16 frames)
    exact: int = 32
    videommmu: int = 32
    videommmu_question_only: int = 1
    videosimpleqa: int = 32


@dataclass(frozen=True)
class Settings:
    home: Path
    judge: str
    causalstep_restart: str  # "prose" (same segment's descriptive question) or "algo" (next segment)
    causalstep_points: str  # "algo" (k-th causal answer worth k+1) or "prose" (worth k)
    bootstrap_samples: int
    max_prediction_bytes: int
    judge_cache: Path  # sqlite file of LLM judgements, raw outputs included
    frames: FrameBudgets = field(default_factory=FrameBudgets)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings(
        home=Path(_env("LEADERBOARD_HOME", ".leaderboard")),
        judge=_env("LEADERBOARD_JUDGE", "normalized-match"),
        causalstep_restart=_env("LEADERBOARD_CAUSALSTEP_RESTART", "prose"),
        causalstep_points=_env("LEADERBOARD_CAUSALSTEP_POINTS", "algo"),
        bootstrap_samples=int(_env("LEADERBOARD_BOOTSTRAP_SAMPLES", "1000")),
        max_prediction_bytes=int(_env("LEADERBOARD_MAX_PREDICTION_BYTES", str(64 * 1024 * 1024))),
        judge_cache=Path(_env("LEADERBOARD_JUDGE_CACHE",
                              str(Path(_env("LEADERBOARD_HOME", ".leaderboard")) / "private" / "judge-cache.sqlite"))),
    )
