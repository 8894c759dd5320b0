"""ExpVid: understanding and reasoning about wet-lab experiment videos, at three levels.

Spec: shared/specs/expvid.md. Ten tasks over 390 JoVE experiments in 13 disciplines:

    level 1, short action clips (8 frames):     tool, material, quantity, operation   4-option MCQ
    level 2, stage segments (32 frames):        ordering (MCQ), generation (step numbers, Jaccard),
                                                verification (MCQ, one letter per step),
                                                prediction (the next step's number)
    level 3, full videos (budgets.expvid_level3): analysis, discovery   fill in the blanks, judged

Each item is one call: an instruction, then the question block (no narration or
transcript: the release's `asr_caption` never enters the suite). Scores: accuracy
per task (Jaccard x100 for generation, per-blank accuracy for level 3); level 1 and
level 2 are micro averages over questions (a generation item adds its Jaccard),
level 3 pools blanks over both tasks; `overall` is the mean of the levels present.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluator import extract, frames, prompts
from evaluator.benchmarks.common import OpaqueIds, Secret, read_jsonl, require, sort_by_id
from evaluator.errors import ImportReleaseError
from evaluator.judges.base import CORRECT, UNPARSEABLE, JudgeRequest
from evaluator.metrics import Tally, per_video_stats, ratio_pct, read_choice, read_number, read_with
from evaluator.records import (SCHEMA_VERSION, BenchmarkData, BenchmarkScore, Call, Prediction,
                               Responses, ScoringContext, VideoMeta, VideoSpec, pct, round_half_up)

NAME = "expvid"
TITLE = "ExpVid"

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
    discipline); options are kept in the release's order (spec §9.13)."""

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


# -- question text ------------------------------------------------------------

_NUMBERED_LINE = re.compile(r"^\s*(\d+)[.)]\s+\S", re.M)
_BLANK = re.compile(r"_{3,}")
_LEADING_LABEL = re.compile(r"^\s*(?:question|title)\b", re.I)


def numbered(steps: list[str]) -> str:
    return "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))


def step_count(text: str) -> int | None:
    """The length of a numbered step list written in a question (its highest number)."""
    numbers = [int(m.group(1)) for m in _NUMBERED_LINE.finditer(text)]
    return max(numbers) if numbers else None


def question_block(text: str, *, title: str | None = None, discipline: str | None = None,
                   steps: list[str] | None = None, steps_heading: str = "Full Step List") -> str:
    """The question as the model reads it: level 3 gets the paper's title and
    discipline first (as in the paper's prompts), a step list given apart from the
    question goes after it, and a bare question gets a "Question:" label."""
    text = text.strip()
    parts = []
    if title and "title:" not in text.lower():
        parts.append(f"Title: {title}")
        if discipline and discipline != UNKNOWN_DISCIPLINE:
            parts.append(f"Discipline: {discipline}")
    parts.append(text if _LEADING_LABEL.match(text) else f"Question: {text}")
    if steps and not _NUMBERED_LINE.search(text):
        parts.append(f"{steps_heading}:\n{numbered(steps)}")
    return "\n\n".join(parts)


def _step_labels(q: Question) -> list[str] | None:
    """Valid step numbers for generation and prediction calls: the baselines and a
    submitter's harness read them as the answer space."""
    if q.task in ("generation", "prediction") and q.step_count:
        return [str(i) for i in range(1, q.step_count + 1)]
    return q.labels


# -- import -------------------------------------------------------------------

# Release file stems (HF config names with or without their level prefix) -> task.
TASK_STEMS = {
    "tool": "tool", "tools": "tool", "tool_recognition": "tool",
    "material": "material", "materials": "material", "material_recognition": "material",
    "quantity": "quantity", "quantities": "quantity", "quantity_recognition": "quantity",
    "operation": "operation", "operations": "operation", "operation_recognition": "operation",
    "sequence_ordering": "ordering", "step_ordering": "ordering", "ordering": "ordering",
    "sequence_generation": "generation", "step_generation": "generation", "generation": "generation",
    "video_verification": "verification", "completeness_verification": "verification",
    "verification": "verification",
    "step_prediction": "prediction", "next_step_prediction": "prediction", "prediction": "prediction",
    "experimental_conclusion": "analysis", "experimental_conclusions": "analysis",
    "experimental_analysis": "analysis", "analysis": "analysis",
    "scientific_discovery": "discovery", "scientific_discoveries": "discovery", "discovery": "discovery",
}
VIDEO_KEYS = ("video", "video_path", "video_id")
SOURCE_KEYS = ("source_video_id", "source_video", "source_id", "experiment_id", "jove_id")
DISCIPLINE_KEYS = ("discipline", "subject", "category", "field")
TITLE_KEYS = ("title", "paper_title")
STEP_KEYS = ("steps", "step_list", "full_step_list")


def _canonical(name: str) -> str:
    return re.sub(r"[^a-z]+", "", name.lower().replace("&", "and"))


_DISCIPLINE_BY_KEY = {_canonical(d): d for d in DISCIPLINES}


def task_of_file(path: Path, level: int) -> str:
    """The task of one annotation file, from its stem ("tools", "level1_tools"...)."""
    stem = re.sub(r"[\s-]+", "_", path.stem.lower())
    stem = re.sub(r"^(?:level_?[123]|l[123])_", "", stem)
    task = TASK_STEMS.get(stem)
    if task is None:
        raise ImportReleaseError(f"{path}: unknown task file '{path.stem}' (known stems: "
                                 f"{', '.join(sorted(set(TASK_STEMS)))})")
    if TASK_LEVEL[task] != level:
        raise ImportReleaseError(f"{path}: task '{task}' is a level-{TASK_LEVEL[task]} task, "
                                 f"but the file is in the level-{level} folder")
    return task


def _text_field(rec: dict, keys: tuple[str, ...]) -> tuple[str, str] | None:
    """(key, value) of the first of `keys` holding a non-empty string or a number."""
    for key in keys:
        value = rec.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return key, str(value).strip()
    return None


def _discipline(rec: dict, video_ref: str) -> tuple[str, str]:
    """(discipline, where it was read): the first of DISCIPLINE_KEYS present (canonical
    spelling when it is one of the 13), else a folder of the video path naming one,
    else "Unknown". Which field the release uses is not confirmed, so the importer
    reports the source it used (`import --check`)."""
    found = _text_field(rec, DISCIPLINE_KEYS)
    if found:
        return _DISCIPLINE_BY_KEY.get(_canonical(found[1]), found[1]), f"field '{found[0]}'"
    for part in Path(video_ref).parts[:-1]:
        if _canonical(part) in _DISCIPLINE_BY_KEY:
            return _DISCIPLINE_BY_KEY[_canonical(part)], "a folder of the video path"
    return UNKNOWN_DISCIPLINE, "none (no discipline field)"


def _find_video(root: Path, level: int, ref: str, key: str, where: str) -> Path:
    """A video file named by a record, looked up as given and under videos/level_<n>/."""
    names = [ref] if Path(ref).suffix else [ref, f"{ref}.mp4"]
    bases = (root, root / "videos", root / "videos" / f"level_{level}", root / "videos" / f"level{level}")
    for name in names:
        for base in bases:
            if (base / name).is_file():
                return base / name
    raise ImportReleaseError(f"{where}: field '{key}': video file '{ref}' not found under "
                             f"{root / 'videos' / f'level_{level}'}")


def _options(value: object, where: str) -> tuple[list[str], list[str]]:
    """(labels, texts) from a list, a {letter: text} dict or an "A: x B: y" string, in
    the release's order. A list's own "A: " prefixes are dropped (we print labels)."""
    if isinstance(value, dict):
        labels = [str(k).strip() for k in value]
        texts = [str(v).strip() for v in value.values()]
    elif isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        texts = [str(v).strip() for v in value]
        labels = prompts.letters(len(texts))
        prefixes = [re.match(rf"\(?{re.escape(lab)}\)?\s*[:.)]\s+", t) for lab, t in zip(labels, texts)]
        if texts and all(prefixes):
            texts = [t[m.end():] for t, m in zip(texts, prefixes)]
    elif isinstance(value, str):
        pieces = re.split(r"(?:^|\s)-?\s*([A-Z])\s*:\s*", value.strip())
        labels, texts = pieces[1::2], [p.strip() for p in pieces[2::2]]
        if pieces[0].strip() or labels != prompts.letters(len(labels)):
            raise ImportReleaseError(f"{where}: field 'options' is a string but not 'A: ... B: ...'")
    else:
        raise ImportReleaseError(f"{where}: field 'options' has the wrong type ({type(value).__name__})")
    if len(texts) < 2 or len(set(labels)) != len(labels) or not all(labels):
        raise ImportReleaseError(f"{where}: field 'options' needs at least 2 options with distinct labels")
    return labels, texts


def _gold_label(answer: object, labels: list[str], texts: list[str], where: str) -> str:
    """The answer's option label: given as the label, as "B: text", or as an option's text."""
    if isinstance(answer, list) and len(answer) == 1:
        answer = answer[0]
    if not isinstance(answer, (str, int)) or isinstance(answer, bool):
        raise ImportReleaseError(f"{where}: field 'answer' has the wrong type ({type(answer).__name__})")
    text = str(answer).strip()
    if text in labels:
        return text
    if texts.count(text) == 1:
        return labels[texts.index(text)]
    m = re.match(r"^\(?([A-Za-z])\)?\s*(?:[:.)]|$)", text)
    if m and m.group(1).upper() in labels:
        return m.group(1).upper()
    raise ImportReleaseError(f"{where}: field 'answer' is neither an option label ({labels[0]}-{labels[-1]}) "
                             f"nor an option's text")


def _int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*(?:step\s*)?\d+\s*", value, re.I):
        return int(re.search(r"\d+", value).group())
    return None


def _gold_steps(answer: object, where: str) -> list[int]:
    """Generation: a list of step numbers (strings like "60" or ints), or "60, 61"."""
    items = re.findall(r"\d+", answer) if isinstance(answer, str) else answer
    if not isinstance(items, list) or not items:
        raise ImportReleaseError(f"{where}: field 'answer' must be a non-empty list of step numbers")
    steps = [_int(x) for x in items]
    if any(s is None for s in steps):
        raise ImportReleaseError(f"{where}: field 'answer' must hold step numbers only")
    return list(dict.fromkeys(steps))


def _gold_step(answer: object, where: str) -> int:
    """Prediction: one step number (17, "17" or ["17"])."""
    if isinstance(answer, list) and len(answer) == 1:
        answer = answer[0]
    step = _int(answer)
    if step is None:
        raise ImportReleaseError(f"{where}: field 'answer' must be one step number")
    return step


def _gold_fillers(answer: object, question: str, where: str) -> list[str]:
    """Level 3: the blank fillers in order. A list is the norm; a string is split on
    ';' or ',' only when that yields as many fillers as the question has blanks."""
    if isinstance(answer, str):
        blanks = len(_BLANK.findall(question))
        candidates = [[answer]] + [answer.split(sep) for sep in (";", ",")]
        answer = next((c for c in candidates if len(c) == max(blanks, 1)), None)
        if answer is None:
            raise ImportReleaseError(f"{where}: field 'answer' is a string that does not split into "
                                     f"the question's {blanks} blanks; give a list")
    if not isinstance(answer, list) or not answer:
        raise ImportReleaseError(f"{where}: field 'answer' must be a non-empty list of blank fillers")
    fillers = [str(x).strip() if isinstance(x, (str, int, float)) else "" for x in answer]
    if not all(fillers):
        raise ImportReleaseError(f"{where}: field 'answer' has an empty or non-text blank filler")
    return fillers


def _import_record(rec: dict, task: str, item_id: str, video: str, source: str, discipline: str,
                   where: str) -> tuple[Question, Answer]:
    """One release record as (public question, hidden answer); `asr_caption` and
    every other unlisted field are left behind."""
    level = TASK_LEVEL[task]
    text = require(rec, "question", str, where)
    if not text.strip():
        raise ImportReleaseError(f"{where}: field 'question' is empty")
    if "answer" not in rec:
        raise ImportReleaseError(f"{where}: missing field 'answer'")
    answer = rec["answer"]
    steps_field = next((rec[k] for k in STEP_KEYS if isinstance(rec.get(k), list)), None)
    steps = [str(s).strip() for s in steps_field] if steps_field else None
    title = _text_field(rec, TITLE_KEYS) if level == 3 else None
    heading = "Step List" if task == "verification" else "Full Step List"
    block = question_block(text, title=title[1] if title else None, discipline=discipline,
                           steps=steps, steps_heading=heading)
    q = Question(item_id, video, source, level, task, discipline, block)
    a = Answer(item_id, task)
    if ANSWER_FORMAT[task] == "choice":
        q.labels, q.options = _options(require(rec, "options", (list, dict, str), where), where)
        a.label = _gold_label(answer, q.labels, q.options, where)
    elif task == "generation":
        q.step_count = len(steps) if steps else step_count(block)
        a.steps = _gold_steps(answer, where)
    elif task == "prediction":
        q.step_count = len(steps) if steps else step_count(block)
        a.step = _gold_step(answer, where)
    else:
        a.fillers = _gold_fillers(answer, text, where)
        q.blanks = len(a.fillers)
    return q, a


def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the official layout: annotations/level{1,2,3}/<task>.jsonl (one file per
    task) and videos/level_{1,2,3}/. Released option orders are kept as they are
    (spec §9.13). Item, video and experiment ids are opaque, keyed by `secret`: file
    names and line numbers would tell the task, the step range and the release order."""
    root = Path(root)
    files = sorted((root / "annotations").glob("level*/*.jsonl"))
    if not files:
        raise ImportReleaseError(f"{root}: no annotations/level1|level2|level3/*.jsonl files")
    item_id = OpaqueIds(secret, "expvid:item")
    video_id, source_id = OpaqueIds(secret, "expvid:video", "expvid-"), OpaqueIds(secret, "expvid:source", "src-")
    questions, answers, video_files, seen, used = [], [], {}, {}, Counter()
    for path in files:
        folder = re.fullmatch(r"level_?([123])", path.parent.name)
        if folder is None:
            raise ImportReleaseError(f"{path}: expected the folder to be level1, level2 or level3")
        level = int(folder.group(1))
        task = task_of_file(path, level)
        if task in seen:
            raise ImportReleaseError(f"{path}: a second file for task '{task}' (first: {seen[task]})")
        seen[task] = path
        for n, rec in read_jsonl(path):
            where = f"{path}:{n}"
            found = _text_field(rec, VIDEO_KEYS)
            if found is None:
                raise ImportReleaseError(f"{where}: missing field 'video' (or 'video_path' / 'video_id')")
            file = _find_video(root, level, found[1], found[0], where)
            vid = video_id(file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file))
            video_files[vid] = str(file)
            src = _text_field(rec, SOURCE_KEYS)
            source = source_id(f"source:{src[1]}" if src else f"video:{vid}")
            discipline, read_from = _discipline(rec, found[1])
            used[read_from] += 1
            release_id = f"{path.relative_to(root).as_posix()}:{n}"
            q, a = _import_record(rec, task, item_id(release_id), vid, source, discipline, where)
            a.release_id = release_id
            questions.append(q)
            answers.append(a)
    if not questions:
        raise ImportReleaseError(f"{root / 'annotations'}: the annotation files hold no items")
    questions, answers = sort_by_id(questions, answers)
    notes = [f"discipline read from {source}: {count} item(s)" for source, count in used.most_common()]
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=video_files, notes=notes)


# -- demo ---------------------------------------------------------------------

# Task shares for sized synthetic suites. Within levels: spec §2 (level-1 shares
# fitted from Table 2, level 2 equal, level 3 0.49/0.51). Between levels the paper
# gives no counts (Fig. 5b is an image): we assume 50% / 40% / 10%.
LEVEL_SHARE = {1: 0.5, 2: 0.4, 3: 0.1}
TASK_SHARE = {"tool": 0.279, "material": 0.316, "quantity": 0.172, "operation": 0.233,
              "ordering": 0.25, "generation": 0.25, "verification": 0.25, "prediction": 0.25,
              "analysis": 0.49, "discovery": 0.51}
ITEMS_PER_SOURCE = 20  # 7,800 items over 390 experiments
MIN_PER_TASK = 2  # so that a tiny demo still has every task, with more than one answer

_TOOLS = ["micropipette", "serological pipette", "forceps", "scalpel", "spatula", "syringe",
          "inoculation loop", "cell scraper", "petri dish", "beaker", "hemocytometer", "weigh boat",
          "glass rod", "tweezers", "centrifuge tube", "dropper"]
_MATERIALS = ["phosphate-buffered saline", "70% ethanol", "agarose gel", "trypsin solution",
              "mineral oil", "liquid nitrogen", "culture medium", "4% paraformaldehyde",
              "sucrose solution", "distilled water", "brain slice", "zebrafish embryo",
              "bacterial culture", "copper foil", "epoxy resin", "soil sample"]
_QUANTITIES = [("volume", "is dispensed", "mL"), ("volume", "is pipetted", "µL"),
               ("temperature", "is set", "°C"), ("speed", "is set on the shaker", "rpm"),
               ("time", "is set on the timer", "min"), ("number of pellets", "is collected", "pellets")]
_OPERATIONS = ["aspirating the supernatant", "pipetting up and down", "inverting the tube",
               "tapping the tube", "sealing the plate", "loading the gel", "flaming the loop",
               "rinsing the slide", "cutting the tissue", "transferring the pellet",
               "attaching the needle", "inserting the probe", "stirring the mixture",
               "labelling the vial"]
_STEP_VERBS = ["Add", "Mix", "Transfer", "Incubate", "Centrifuge", "Rinse", "Weigh", "Heat",
               "Cool", "Label", "Seal", "Measure", "Filter", "Dilute", "Record", "Discard"]
_STEP_OBJECTS = ["the sample", "the buffer", "the cell pellet", "the tissue section",
                 "the reaction mixture", "the culture plate", "the membrane", "the supernatant",
                 "the slide", "the vial", "the embryo", "the electrode"]
_FILLERS = ["2,4-D", "auxin", "calcium signalling", "apoptosis", "fluorescence", "photoredox catalysis",
            "room temperature", "72 hours", "higher yield", "memory consolidation",
            "phosphodiesterase", "zinc chelation", "dopamine", "biofilm formation", "gene expression",
            "neuronal activity", "cell migration", "oxidative stress"]
_STATEMENTS = {
    "analysis": {
        2: "The results showed that ____ markedly increased ____ in the treated samples.",
        3: "Compared with earlier studies, using ____ raised ____ because of ____.",
        4: "After ____ for ____, the treated group showed ____ relative to ____.",
    },
    "discovery": {
        2: "These findings suggest that ____ could serve as a tool for studying ____.",
        3: "The method links ____ to ____, with possible applications in ____.",
        4: "A limitation is that ____ depends on ____; future work could test ____ and ____.",
    },
}
_TITLE_TOPICS = ["Cell Culture", "Tissue Imaging", "Membrane Preparation", "Behavioral Testing",
                 "Protein Purification", "Embryo Injection", "Soil Sampling", "Photocatalysis"]


def _allocate(size: int) -> dict[str, int]:
    """Items per task: largest remainders of size x level share x task share, at
    least MIN_PER_TASK each."""
    exact = {t: size * LEVEL_SHARE[TASK_LEVEL[t]] * TASK_SHARE[t] for t in TASKS}
    counts = {t: int(v) for t, v in exact.items()}
    for t in sorted(TASKS, key=lambda t: counts[t] - exact[t])[: size - sum(counts.values())]:
        counts[t] += 1
    return {t: max(MIN_PER_TASK, c) for t, c in counts.items()}


def _spread(counts: dict[str, int]) -> list[str]:
    """Task of each item, interleaved so every source experiment gets a mix of tasks."""
    slots = [((i + 0.5) / n, TASKS.index(t), t) for t, n in counts.items() for i in range(n)]
    return [t for _, _, t in sorted(slots)]


def _mcq(golds: random.Random, truth: str, distractors: list[str]) -> tuple[list[str], str]:
    """Four options with the truth at a secret place (so "always A" is not a strategy)."""
    options = [truth, *distractors[:3]]
    golds.shuffle(options)
    return options, prompts.letters(4)[options.index(truth)]


def _quantity_options(texts: random.Random, golds: random.Random) -> tuple[str, list[str], str]:
    kind, verb, unit = texts.choice(_QUANTITIES)
    values = [f"{v} {unit}" for v in texts.sample(range(2, 60), 4)]  # one order of magnitude, as the paper's
    truth = values.pop(golds.randrange(4))
    options, label = _mcq(golds, truth, values)
    return f"What {kind} {verb} in this step?", options, label


@dataclass
class _Source:
    """One synthetic experiment: its discipline, title and full step list."""

    id: str
    discipline: str
    title: str
    steps: list[str]
    full_video: str | None = None


def _demo_source(texts: random.Random, index: int) -> _Source:
    # Distinct steps with no numbering in their text, so ordering options cannot be
    # sorted by reading alone.
    pairs = texts.sample([(v, o) for v in _STEP_VERBS for o in _STEP_OBJECTS], texts.randint(10, 16))
    steps = [f"{verb} {obj}" for verb, obj in pairs]
    discipline = DISCIPLINES[index % len(DISCIPLINES)]
    title = f"A {texts.choice(['Simple', 'Rapid', 'Robust', 'Low-Cost'])} Protocol for " \
            f"{texts.choice(_TITLE_TOPICS)} in {discipline}"
    return _Source(f"expvid-src-{index:04d}", discipline, title, steps)


def _demo_level1(texts: random.Random, golds: random.Random, task: str) -> tuple[str, list[str], str]:
    if task == "quantity":
        return _quantity_options(texts, golds)
    pool, stem = {
        "tool": (_TOOLS, "Which tool is used in this step of the experiment?"),
        "material": (_MATERIALS, "Which material is handled in this step of the experiment?"),
        "operation": (_OPERATIONS, "What is the researcher doing in this clip?"),
    }[task]
    shown = texts.sample(pool, 4)
    truth = shown.pop(golds.randrange(4))
    options, label = _mcq(golds, truth, shown)
    return stem, options, label


def _run(rng: random.Random, source: _Source, length: int) -> tuple[int, int]:
    """A contiguous run of `length` steps: 0-based start, end exclusive."""
    start = rng.randint(0, len(source.steps) - length)
    return start, start + length


def _demo_level2(texts: random.Random, golds: random.Random, task: str, source: _Source, q: Question,
                 a: Answer) -> float:
    """Fills a level-2 item's question and answer; returns its clip length in seconds.
    What the prompt shows comes from `texts`; what the answer is, from `golds`."""
    full = f"Full Step List:\n{numbered(source.steps)}"
    if task == "ordering":
        # The true order is a secret permutation, not the order of the full step list
        # that other items of the same experiment print (that would give it away).
        start, end = _run(texts, source, texts.randint(3, 4))
        shown = source.steps[start:end]
        orders: list[list[int]] = []
        while len(orders) < 4:
            order = golds.sample(range(len(shown)), len(shown))
            if order not in orders:
                orders.append(order)
        options = [numbered([shown[i] for i in order]) for order in orders]
        q.options, a.label = _mcq(golds, options[0], options[1:])
        q.labels = prompts.letters(4)
        q.question = question_block("In which order are the steps carried out in the video?")
    elif task == "generation":
        start, end = _run(golds, source, golds.randint(2, 4))
        a.steps = list(range(start + 1, end + 1))
        q.step_count = len(source.steps)
        q.question = question_block("Using the full step list of the experiment, give the numbers "
                                    f"of the steps shown in the video.\n\n{full}")
    elif task == "verification":
        start, end = _run(texts, source, texts.randint(5, 7))  # more than 4 steps: letters past D
        k = end - start
        q.labels, q.options = prompts.letters(k), [str(i) for i in range(1, k + 1)]
        a.label = q.labels[golds.randrange(k - 1)]  # never the segment's final step (as released)
        q.question = question_block(
            "The video should show every step of the list below, but one was cut out. Which step "
            f"is not performed in the video?\n\nStep List:\n{numbered(source.steps[start:end])}")
    else:  # prediction: at least 3 steps shown before the one to predict
        start, end = _run(golds, source, golds.randint(3, 5) + 1)
        a.step = end  # the run's last step (1-based number `end`) is the one cut off
        q.step_count = len(source.steps)
        q.question = question_block("Using the full step list of the experiment, which step comes "
                                    f"right after the end of this video?\n\n{full}")
    return float(texts.randint(4, 5))


def _demo_level3(texts: random.Random, golds: random.Random, task: str, source: _Source, q: Question,
                 a: Answer) -> None:
    blanks = texts.randint(2, 4)
    a.fillers = golds.sample(_FILLERS, blanks)
    q.blanks = blanks
    q.question = question_block(_STATEMENTS[task][blanks], title=source.title, discipline=source.discipline)


def demo(secret: Secret, size: int = 60) -> BenchmarkData:
    """A synthetic ExpVid drawn from the suite's secret: all 13 disciplines and all 10
    tasks, tiny clips (2-6 s). `size` items (7,800 for a paper-size suite over 390
    experiments). Public texts come from one stream of the secret, answers from another."""
    texts, golds = secret.rng("expvid-demo:texts"), secret.rng("expvid-demo:golds")
    tasks = _spread(_allocate(size))
    sources = [_demo_source(texts, i) for i in range(max(len(DISCIPLINES), round(len(tasks) / ITEMS_PER_SOURCE)))]
    questions, answers, specs = [], [], {}
    for n, task in enumerate(tasks):
        source = sources[n % len(sources)]
        item_id = f"expvid-demo-{n:05d}"
        q = Question(item_id, "", source.id, TASK_LEVEL[task], task, source.discipline, "")
        a = Answer(item_id, task)
        if q.level == 1:
            stem, q.options, a.label = _demo_level1(texts, golds, task)
            q.labels, q.question = prompts.letters(4), question_block(stem)
            q.video, seconds, scenes = f"expvid-{len(specs):05d}", float(texts.randint(2, 3)), 1
        elif q.level == 2:
            seconds = _demo_level2(texts, golds, task, source, q, a)
            q.video, scenes = f"expvid-{len(specs):05d}", 3
        else:
            _demo_level3(texts, golds, task, source, q, a)
            source.full_video = source.full_video or f"expvid-{len(specs):05d}"
            q.video, seconds, scenes = source.full_video, 6.0, 4
        specs.setdefault(q.video, VideoSpec(seconds=seconds, scenes=scenes))
        questions.append(q)
        answers.append(a)
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)


# -- calls --------------------------------------------------------------------

def prompt_for(q: Question) -> str:
    options = prompts.lettered(q.options, q.labels, sep=": ") if q.options else ""
    return prompts.render(NAME, TEMPLATE[q.task], question=q.question, options=options, blanks=q.blanks)


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """One call per item, frames uniform over the whole clip, segment or video."""
    budget = {1: budgets.expvid_level1, 2: budgets.expvid_level2, 3: budgets.expvid_level3}
    return [Call(call_id(q.id), NAME, q.id, q.task, prompt_for(q), ANSWER_FORMAT[q.task],
                 [frames.plan(videos[q.video], budget[q.level])], _step_labels(q), q.options)
            for q in questions]


# -- scoring ------------------------------------------------------------------

def _leading_number(text: str) -> int | None:
    m = re.match(r"\s*(?:step\s*)?(\d+)\b", text, re.I)
    return int(m.group(1)) if m else None


def read_verification(pred: Prediction | None, q: Question, tally: Tally) -> str | None:
    """Completeness verification: the letter, or (lenient, spec §9.6) the letter of
    the one option whose step number the response gives when it gives no letter."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return None
    label = extract.extract_choice(pred.response, q.labels, None)
    if label is None:
        number = extract.extract_number(pred.response)
        matches = [lab for lab, text in zip(q.labels, q.options)
                   if number is not None and _leading_number(text) == number]
        label = matches[0] if len(matches) == 1 else None
    if label is None:
        tally.unparseable += 1
    return label


def jaccard(predicted: list[int] | None, gold: list[int], n_steps: int | None) -> float:
    """Set Jaccard of step numbers: duplicates and numbers outside [1, n_steps]
    dropped, order ignored; nothing predicted scores 0."""
    if not predicted:
        return 0.0
    guess = {s for s in predicted if n_steps is None or 1 <= s <= n_steps}
    truth = set(gold)
    return len(guess & truth) / len(guess | truth) if guess else 0.0


def _read_steps(pred: Prediction | None, tally: Tally) -> list[int] | None:
    return read_with(pred, tally, extract.extract_int_list)


def _credit(q: Question, a: Answer, pred: Prediction | None, tally: Tally) -> float:
    """Score in [0, 1] of one level-1 or level-2 item."""
    if q.task == "verification":
        return float(read_verification(pred, q, tally) == a.label)
    if q.task == "generation":
        return jaccard(_read_steps(pred, tally), a.steps, q.step_count)
    if q.task == "prediction":
        return float(read_number(pred, tally) == a.step)
    return float(read_choice(pred, q.labels, q.options, tally) == a.label)


def _blank_requests(q: Question, a: Answer, pred: Prediction | None, tally: Tally) -> list[JudgeRequest]:
    """One judge request per blank the response filled, aligned by position; blanks
    it left empty or missing are wrong without a judge, extra fillers are ignored."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return []
    fillers = extract.extract_blanks(pred.response, len(a.fillers))
    if fillers is None:
        tally.unparseable += 1
        return []
    requests = [JudgeRequest("blank", q.question, gold, filler.strip())
                for gold, filler in zip(a.fillers, fillers) if filler and filler.strip()]
    tally.extra["missing_blanks"] += len(a.fillers) - len(requests)
    return requests


def overall_from_levels(present: tuple[int, ...]):
    """overall_from for the bootstrap: the mean of the level percentages of the levels
    the suite has, from column sums [l1_correct, l1_n, l2_score, l2_n, l3_correct, l3_blanks]."""
    def overall(sums: np.ndarray) -> np.ndarray:
        if not present:
            return np.full(len(sums), np.nan)
        return np.mean([ratio_pct(sums, 2 * (lv - 1), 2 * lv - 1) for lv in present], axis=0)
    return overall


def _level_scores(sums: np.ndarray) -> dict[str, float | None]:
    """level1..3 and overall from one row of the six level columns."""
    sums = np.asarray(sums, dtype=np.float64)
    present = tuple(lv for lv in (1, 2, 3) if sums[2 * lv - 1] > 0)
    out = {f"level{lv}": pct(float(sums[2 * lv - 2]), float(sums[2 * lv - 1])) for lv in (1, 2, 3)}
    out["overall"] = round_half_up(float(overall_from_levels(present)(sums[None])[0])) if present else None
    return out


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    gold = {a.id: a for a in answers}
    tally = Tally(extra={"missing_blanks": 0})
    credit = np.zeros(len(questions))  # score in [0, 1], or correct blanks (level 3)
    weight = np.ones(len(questions))  # 1, or the item's blanks (level 3)
    requests, owner = [], []
    for i, q in enumerate(questions):
        a, pred = gold[q.id], responses.get(call_id(q.id))
        if q.level == 3:
            weight[i] = len(a.fillers)
            batch = _blank_requests(q, a, pred, tally)
            requests += batch
            owner += [i] * len(batch)
        else:
            credit[i] = _credit(q, a, pred, tally)
    for i, judgement in zip(owner, ctx.judge.judge(requests) if requests else []):
        credit[i] += judgement.label == CORRECT
        tally.judge_unparseable += int(judgement.label == UNPARSEABLE)
    return _summarise(questions, credit, weight, tally)


def _summarise(questions: list[Question], credit: np.ndarray, weight: np.ndarray, tally: Tally) -> BenchmarkScore:
    level = np.fromiter((q.level for q in questions), dtype=np.int64, count=len(questions))
    # Six level columns: [l1 credit, l1 n, l2 credit, l2 n, l3 correct blanks, l3 blanks].
    columns = [c for lv in (1, 2, 3) for c in (credit * (level == lv), weight * (level == lv))]
    stats = per_video_stats([q.source for q in questions], columns)
    by_discipline = per_video_stats([q.discipline for q in questions], columns)
    disciplines = list(dict.fromkeys(q.discipline for q in questions))
    task_index = np.fromiter((TASKS.index(q.task) for q in questions), dtype=np.int64, count=len(questions))
    task_credit = np.bincount(task_index, weights=credit, minlength=len(TASKS))
    task_weight = np.bincount(task_index, weights=weight, minlength=len(TASKS))
    totals = stats.sum(0)
    present = tuple(lv for lv in (1, 2, 3) if totals[2 * lv - 1] > 0)

    metrics = _level_scores(totals)
    metrics = {"overall": metrics.pop("overall"), **metrics}
    metrics |= {t: pct(float(task_credit[j]), float(task_weight[j])) for j, t in enumerate(TASKS)}
    metrics["by_discipline"] = {d: _level_scores(row) for d, row in zip(disciplines, by_discipline)}
    # n counts are the denominators: questions for levels 1-2, blanks for level 3.
    metrics["n_by_discipline"] = {d: {f"level{lv}": int(row[2 * lv - 1]) for lv in (1, 2, 3)}
                                  for d, row in zip(disciplines, by_discipline)}
    metrics["n_by_level"] = {f"level{lv}": int(totals[2 * lv - 1]) for lv in (1, 2, 3)}
    metrics["n_by_task"] = {t: int(task_weight[j]) for j, t in enumerate(TASKS)}
    counts = tally.as_dict() | {"items": len(questions), "blanks": int(totals[5])}
    return BenchmarkScore(metrics, counts, stats, overall_from_levels(present))
