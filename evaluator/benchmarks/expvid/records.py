"""ExpVid's typed records (a public Question, a hidden Answer), its tasks and levels,
and its call ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.records import SCHEMA_VERSION

NAME = "expvid"
TITLE = "ExpVid"
PAPER_SIZE = 7800  # the paper's size in demo() units: items; for synthetic suites
# Its level-3 blanks are graded by a judge, one request per blank (evaluator/benchmarks/hooks.py).
JUDGE_TASK = "blank"
JUDGE_TITLE = "ExpVid level 3 (each blank)"
JUDGE_LABELS_KEY = "expvid_blanks"

# The paper's order (Table 2), which is also the order of the metric keys.
LEVEL_TASKS = {
    1: ("tool", "material", "quantity", "operation"),
    2: ("ordering", "generation", "verification", "prediction"),
    3: ("analysis", "discovery"),
}
TASKS = [t for tasks in LEVEL_TASKS.values() for t in tasks]
TASK_LEVEL = {t: level for level, tasks in LEVEL_TASKS.items() for t in tasks}
LEVELS = ("level1", "level2", "level3")

# What a call asks for (evaluator/records.ANSWER_FORMATS) and which prompt template it uses.
ANSWER_FORMAT = {t: "choice" for t in TASKS} | {"generation": "int_list", "prediction": "number",
                                                 "analysis": "blanks", "discovery": "blanks"}
TEMPLATE = {t: "mcq" for t in TASKS} | {"generation": "generation", "prediction": "prediction",
                                         "analysis": "blanks", "discovery": "blanks"}

DISCIPLINES = [
    "Genetics", "Environment", "Behavior", "Cancer Research", "Engineering", "Chemistry",
    "Biochemistry", "Developmental Biology", "Bioengineering", "Immunology and Infection",
    "Neuroscience", "Medicine", "Biology",
]
UNKNOWN_DISCIPLINE = "Unknown"


@dataclass
class Question:
    """One public item. `question` is the whole block the model reads after the
    instruction (level 2: with its step list; level 3: with the paper's title and
    discipline); options are kept in the release's order."""

    id: str
    video: str
    source: str  # the source experiment: the unit the bootstrap resamples
    level: int
    task: str
    discipline: str
    question: str
    labels: list[str] | None = None  # option letters (choice tasks)
    options: list[str] | None = None  # option texts, same order as labels
    step_count: int | None = None  # length of the full step list (generation, prediction)
    blanks: int | None = None  # number of blanks (level 3)
    schema_version: int = SCHEMA_VERSION


@dataclass
class Answer:
    """The hidden key of one item; exactly one answer field is set, by task."""

    id: str
    task: str
    label: str | None = None  # choice tasks
    steps: list[int] | None = None  # generation: the step numbers the video shows
    step: int | None = None  # prediction: the next step's number
    fillers: list[str] | None = None  # level 3: one reference filler per blank, in order
    release_id: str | None = None  # "<annotation file>:<line>": maintainers only
    schema_version: int = SCHEMA_VERSION


def call_id(item: str) -> str:
    return f"expvid/{item}"
