"""Video-MMMU's typed records (a public Question, a hidden Answer with every accepted
form of the gold), tracks, disciplines and call ids.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

from evaluator import prompts
from evaluator.judges.normalized import normalize_text
from evaluator.records import SCHEMA_VERSION

NAME = "videommmu"
TITLE = "Video-MMMU"
PAPER_SIZE = 300  # the paper's size in demo() units: videos (900 questions); for synthetic suites

TRACKS = ("perception", "comprehension", "adaptation")
MCQ, OPEN = "multiple-choice", "open"

# Subject (as spelled inside the ids) -> discipline (the paper's Table 2 columns).
DISCIPLINE_SUBJECTS = {
    "Art": ("Art", "Art_Theory", "Design", "Music"),
    "Business": ("Accounting", "Economics", "Finance", "Manage", "Marketing"),
    "Science": ("Biology", "Chemistry", "Geography", "Math", "Physics"),
    "Medicine": ("Basic_Medical_Science", "Clinical_Medicine", "Diagnostics_and_Laboratory_Medicine",
                 "Pharmacy", "Public_Health"),
    "Humanities": ("History", "Literature", "Psychology", "Sociology"),
    "Engineering": ("Agriculture", "Architecture_and_Engineering", "Computer_Science", "Electronics",
                    "Energy_and_Power", "Materials", "Mechanical_Engineering"),
}
DISCIPLINES = list(DISCIPLINE_SUBJECTS)
SUBJECT_DISCIPLINE = {s: d for d, subjects in DISCIPLINE_SUBJECTS.items() for s in subjects}
PAPER_VIDEOS = {"Art": 21, "Business": 44, "Science": 44, "Medicine": 43, "Humanities": 35,
                "Engineering": 113}

# Two open-ended items have a letter gold (the letters are drawn in their picture); they
# show no options, so a reply is read as a choice among these letters.
OPEN_LETTERS = prompts.letters(10)


@dataclass
class Question:
    id: str  # opaque (keyed hash of track and release id)
    track: str  # perception | comprehension | adaptation
    video: str  # the lecture video (ends on the Adaptation picture)
    subject: str
    discipline: str
    question: str  # as released, "<image 1>" placeholders kept
    question_type: str  # "multiple-choice" or "open"
    options: list[str] = field(default_factory=list)  # without letter prefixes; empty when open
    question_only_video: str | None = None  # Adaptation: the still of the picture alone
    schema_version: int = SCHEMA_VERSION


@dataclass
class Answer:
    id: str
    gold: str  # as released
    # A letter gold: the accepted letters (the gold one, plus letters of identical options).
    # Empty for open-ended golds, which are matched by number or phrase instead.
    labels: list[str] = field(default_factory=list)
    values: list[float] = field(default_factory=list)  # open: accepted numbers
    texts: list[str] = field(default_factory=list)  # open: accepted phrases, normalised
    release_id: str | None = None  # e.g. "validation_Accounting_13": maintainers only
    schema_version: int = SCHEMA_VERSION


def call_id(q: Question) -> str:
    return f"{NAME}/{q.id}"


def question_only_call_id(q: Question) -> str:
    return f"{NAME}/{q.id}/question-only"


_LETTERS = prompts.letters(26)


def labels_for(q: Question) -> list[str]:
    """Option letters A.. by the option count (2 to 14 in the release: past J)."""
    return _LETTERS[:len(q.options)]


def discipline_of(source_id: str) -> tuple[str, str] | None:
    """(subject, discipline) from an id "<prefix>_<Subject>_<n>", None if unknown."""
    subject = "_".join(source_id.split("_")[1:-1])
    discipline = SUBJECT_DISCIPLINE.get(subject)
    return (subject, discipline) if discipline else None


def _alternatives(gold: str) -> list[str]:
    """A gold written as a Python list gives alternatives; the release has one malformed
    list ("['24/7', '3.429', '3.43]"), so fall back to splitting on commas."""
    text = gold.strip()
    if not text.startswith("["):
        return [text]
    try:
        value = ast.literal_eval(text)
        if isinstance(value, list):
            return [str(v).strip() for v in value if str(v).strip()]
    except (ValueError, SyntaxError):
        pass
    parts = (p.strip().strip("'\"").strip() for p in text.strip("[]").split(","))
    return [p for p in parts if p]


def _number(text: str) -> float | None:
    """A gold written as a plain number ("1,000", "0.286", "24/7", "65%"), else None."""
    text = text.replace(",", "").replace("%", "").replace("$", "").strip()
    if re.fullmatch(r"-?\d+\s*/\s*\d+", text):
        num, den = (float(x) for x in text.split("/"))
        return num / den if den else None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _same_options(options: list[str], label: str) -> list[str]:
    """The gold letter and the letters of options with the same text (5 MCQs repeat the
    gold text under another letter; picking either is the same answer)."""
    labels = prompts.letters(len(options))
    gold_text = options[labels.index(label)].strip().casefold()
    return [label] + [x for x, o in zip(labels, options) if x != label and o.strip().casefold() == gold_text]


def make_answer(item_id: str, question_type: str, options: list[str], gold: str) -> Answer:
    """The hidden key of one item; raises ValueError when an MCQ gold is not one of its letters."""
    gold = gold.strip()
    if question_type == MCQ:
        label = gold.upper()
        if label not in prompts.letters(len(options)):
            raise ValueError(f"the gold must be one of the {len(options)} option letters")
        return Answer(item_id, gold, labels=_same_options(options, label))
    if re.fullmatch(r"[A-Za-z]", gold):
        return Answer(item_id, gold, labels=[gold.upper()])
    values, texts = [], []
    for alt in _alternatives(gold):
        number = _number(alt)
        if number is not None:
            values.append(number)
        elif normalize_text(alt):
            texts.append(normalize_text(alt))
    if not values and not texts:
        raise ValueError("the open-ended gold is empty")
    return Answer(item_id, gold, values=values, texts=texts)
