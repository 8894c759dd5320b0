"""CausalStep's typed records (a public Question of segments and MCQs, a hidden
Answer), its call kinds and call ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator import prompts
from evaluator.records import SCHEMA_VERSION, from_dict

NAME = "causalstep"
TITLE = "CausalStep"
PAPER_SIZE = 100  # the paper's size in demo() units: videos (1,852 questions); for synthetic suites

CATEGORIES = ("Cartoons", "Movies & TV Shows", "Outdoor Sports", "Regular Sports", "Performances",
              "Documentaries")
RELEASE_JSON, RELEASE_JSONL = "causalstep.json", "causalstep.jsonl"
PLACEHOLDER = "{previous_answer}"
MAX_OPTIONS = 26  # one letter each

DESC, ISOLATED = "desc", "causal-isolated"
AFTER_DESC, AFTER_CAUSAL = "causal-after-desc", "causal-after-causal"
PREVIOUS, CURRENT = "previous segment", "current segment"

SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def category_key(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower().replace("&", "and"))


CATEGORY_BY_KEY = {category_key(c): c for c in CATEGORIES}


@dataclass
class MCQ:
    question: str
    options: list[str]  # in the question's fixed secret order

    @property
    def labels(self) -> list[str]:
        return prompts.letters(len(self.options))


@dataclass
class Segment:
    index: int  # 1-based, as in the paper's S_i
    start: float
    end: float
    desc: MCQ
    causal: MCQ | None = None  # None on the first segment

    @staticmethod
    def from_json(data: dict) -> "Segment":
        causal = data.get("causal")
        return Segment(data["index"], data["start"], data["end"], from_dict(MCQ, data["desc"]),
                       from_dict(MCQ, causal) if causal else None)


@dataclass
class Question:
    """One video with all its segment questions (public: no answers)."""

    id: str  # opaque: a keyed hash of the release's video_id
    video: str  # the suite's video id, opaque too
    category: str
    segments: list[Segment]
    schema_version: int = SCHEMA_VERSION

    @staticmethod
    def from_json(data: dict) -> "Question":
        question = from_dict(Question, data)
        question.segments = [Segment.from_json(s) for s in data["segments"]]
        return question


@dataclass
class Answer:
    id: str
    desc: list[str]  # gold label of each segment's descriptive question
    causal: list[str | None]  # gold label of each causal question; None for segment 1
    release_id: str | None = None  # the release's video_id: maintainers only
    schema_version: int = SCHEMA_VERSION


def call_id(item: str, segment: int, kind: str) -> str:
    return f"{NAME}/{item}/s{segment}/{kind}"
