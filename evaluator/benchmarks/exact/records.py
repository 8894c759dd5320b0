"""ExAct's typed records (a public Question, a hidden Answer), its activities and
domains, call ids, and one item with its option order drawn from the secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.benchmarks.common import Secret
from evaluator.records import SCHEMA_VERSION

NAME = "exact"
TITLE = "ExAct"
PAPER_SIZE = 3521  # the paper's size in demo() units: items; for synthetic suites

LABELS = ["1", "2", "3", "4", "5"]

# The release's `domain` field holds the activity; the paper reports six domains.
# Keys are the activity names we report (the 11 of the paper).
ACTIVITY_DOMAIN = {
    "basketball": "Sports", "soccer": "Sports", "bouldering": "Sports",
    "bike": "Bike Repair",
    "cooking": "Cooking",
    "covid-safety": "Health", "cpr": "Health",
    "guitar": "Music", "piano": "Music", "violin": "Music",
    "dance": "Dance",
}
# Other spellings of the activities, compared after `_activity_key` (lower case, no
# separators): the release's own short names, Ego-Exo4D scenario names ("Rock
# Climbing" is its name for bouldering, "First Aid - CPR", "Covid-19 Safety"...).
ACTIVITY_ALIASES = {
    "rockclimbing": "bouldering", "climbing": "bouldering", "boulder": "bouldering",
    "bikerepair": "bike", "bicyclerepair": "bike", "bicycle": "bike", "bikerepairing": "bike",
    "cook": "cooking",
    "covid": "covid-safety", "covid19": "covid-safety", "covidsafety": "covid-safety",
    "covid19safety": "covid-safety", "covid19testing": "covid-safety", "covidtest": "covid-safety",
    "covidtesting": "covid-safety", "covid19test": "covid-safety",
    "firstaid": "cpr", "firstaidcpr": "cpr", "cardiopulmonaryresuscitation": "cpr",
    "playingguitar": "guitar", "guitarplaying": "guitar", "playingpiano": "piano",
    "pianoplaying": "piano", "playingviolin": "violin", "violinplaying": "violin",
    "dancing": "dance",
}
CATEGORIES = {True: "good_execution", False: "tips"}


@dataclass
class Question:
    id: str
    video: str
    activity: str
    domain: str
    category: str  # "good_execution" or "tips" (public: it is in the release's file names)
    task_name: str
    options: list[str]  # in the item's fixed secret order, labelled 1-5
    schema_version: int = SCHEMA_VERSION


@dataclass
class Answer:
    id: str
    label: str  # "1".."5": where the coach's comment sits in `options`
    release_id: str | None = None  # the release's id (it names the recording): maintainers only
    schema_version: int = SCHEMA_VERSION


def _activity_key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_ACTIVITY_BY_KEY = {_activity_key(a): a for a in ACTIVITY_DOMAIN} | ACTIVITY_ALIASES


def normalise_activity(text: str) -> str | None:
    """One of the 11 activities for any spelling of it (case, '_', '-', spaces, a plural,
    an Ego-Exo4D scenario name); None when it names none of them."""
    key = _activity_key(text)
    for candidate in (key, key[:-1] if key.endswith("s") else None):
        if candidate and candidate in _ACTIVITY_BY_KEY:
            return _ACTIVITY_BY_KEY[candidate]
    return None


def call_id(item: str) -> str:
    return f"{NAME}/{item}"


def make_item(item_id: str, video: str, activity: str, is_ge: bool, task: str, truth: str,
          distractors: list[str], secret: Secret, release_id: str | None = None) -> tuple[Question, Answer]:
    pool = [truth, *distractors]
    order = secret.permutation(f"{NAME}:{item_id}:order", len(pool))
    options = [pool[i] for i in order]
    label = LABELS[order.index(0)]
    question = Question(item_id, video, activity, ACTIVITY_DOMAIN[activity], CATEGORIES[is_ge], task, options)
    return question, Answer(item_id, label, release_id)
