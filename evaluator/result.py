"""The result record: one JSON per submission, read by the site.

`scores[benchmark][metric]` holds percentages (0-100) unless noted, the headline
under `overall` and its 95% bootstrap interval under `overall_ci95`.
`counts[benchmark]` says how many calls were answered, missing, unparseable, and
how many judge outputs could not be parsed: "unscored" is kept apart from "wrong".
Model-ID runs may also carry `blind_scores[benchmark]` (the "no video" pass: every
frame black; only `overall` and `overall_ci95`), its `blind_counts`, and `cost` (GPU
time, time to first token, tokens per second and the device: evaluator/runners/costs.py).
In published copies, breakdown buckets below `min_bucket_items` items have a null
value and are listed under `scores[benchmark]["suppressed"]` (results/disclosure.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from evaluator.protocol_card import ProtocolCard

RESULT_SCHEMA_VERSION = 1


class Result(BaseModel):
    schema_version: int = RESULT_SCHEMA_VERSION
    submission: dict[str, Any]  # id, kind, model + revision sha or file_sha256, submitter
    suite_id: str
    judge: dict[str, Any]  # id and kind ("normalized-match", "llm" or "mixed"); by_benchmark where each has its own
    runner: dict[str, Any] = Field(default_factory=dict)  # name and settings: frames, resolution, decoding
    options: dict[str, Any] = Field(default_factory=dict)  # protocol choices (CausalStep variants)
    # How the numbers were produced (evaluator/protocol_card.py); None in results written before cards.
    protocol: ProtocolCard | None = None
    code_version: str
    created: str
    scores: dict[str, dict[str, Any]]
    counts: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # The blind ("no video") pass, when the worker ran one (LEADERBOARD_BLIND_PASS); None otherwise.
    blind_scores: dict[str, dict[str, Any]] | None = None
    blind_counts: dict[str, dict[str, Any]] | None = None
    cost: dict[str, Any] | None = None  # model-ID runs: what the run cost (costs.summarize); None: not measured
    # remote LLM judges: requests, retries, failures, tokens and cost per judged benchmark; None: none counted
    judge_usage: dict[str, Any] | None = None
    # Set on public copies only (results/disclosure.py): breakdown buckets with fewer
    # items carry no score there. None: every score is present (the private staged copy).
    min_bucket_items: int | None = None

    def write(self, path: Path) -> None:
        Path(path).write_text(self.model_dump_json(indent=2))

    @classmethod
    def read(cls, path: Path) -> "Result":
        return cls.model_validate(json.loads(Path(path).read_text()))
