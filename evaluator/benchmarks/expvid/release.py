"""ExpVid's importer: the official release's per-task JSON Lines files, checked,
with golds moved to the hidden answer key.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from evaluator import prompts
from evaluator.benchmarks.common import MissingVideos, OpaqueIds, Secret, read_jsonl, require, sort_by_id
from evaluator.benchmarks.expvid.calls import BLANK, question_block, step_count
from evaluator.benchmarks.expvid.records import (
    ANSWER_FORMAT,
    DISCIPLINES,
    NAME,
    TASK_LEVEL,
    UNKNOWN_DISCIPLINE,
    Answer,
    Question,
)
from evaluator.errors import ImportReleaseError
from evaluator.records import BenchmarkData

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


# The release layout `import --help` shows (and the importer reads).
RELEASE_LAYOUT = """\
<root>/annotations/level1/<task>.jsonl   tool, material, quantity, operation recognition
<root>/annotations/level2/<task>.jsonl   step ordering, sequence generation, completeness
                                         verification, next-step prediction
<root>/annotations/level3/<task>.jsonl   experimental conclusion, scientific discovery
    one JSON object per item; its video in field video (or video_path / video_id)
<root>/videos/level_1/ .. level_3/ (also <root>/ and <root>/videos/): the video files"""


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


def _find_video(root: Path, level: int, ref: str, key: str, where: str, missing: MissingVideos) -> Path | None:
    """A video file named by a record, looked up as given and under videos/level_<n>/; None
    (noted in `missing`) when it is in none of them."""
    names = [ref] if Path(ref).suffix else [ref, f"{ref}.mp4"]
    bases = [root, root / "videos", root / "videos" / f"level_{level}", root / "videos" / f"level{level}"]
    for name in names:
        for base in bases:
            if (base / name).is_file():
                return base / name
    missing.note(f"{where}: field '{key}'", ref, bases)
    return None


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
        blanks = len(BLANK.findall(question))
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
   . Item, video and experiment ids are opaque, keyed by `secret`: file
    names and line numbers would tell the task, the step range and the release order."""
    root = Path(root)
    files = sorted((root / "annotations").glob("level*/*.jsonl"))
    if not files:
        raise ImportReleaseError(f"{root}: no annotations/level1|level2|level3/*.jsonl files")
    item_id = OpaqueIds(secret, "expvid:item")
    video_id, source_id = OpaqueIds(secret, "expvid:video", "expvid-"), OpaqueIds(secret, "expvid:source", "src-")
    questions, answers, video_files, seen, used = [], [], {}, {}, Counter()
    missing = MissingVideos()
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
            file = _find_video(root, level, found[1], found[0], where, missing)
            if file is None:
                continue  # listed with the others at the end
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
    missing.raise_if_any()
    if not questions:
        raise ImportReleaseError(f"{root / 'annotations'}: the annotation files hold no items")
    questions, answers = sort_by_id(questions, answers)
    notes = [f"discipline read from {source}: {count} item(s)" for source, count in used.most_common()]
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=video_files, notes=notes)
