"""CausalStep's importer: the release's video records (causalstep.jsonl or .json),
checked, option orders drawn from the secret, golds moved to the answer key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from evaluator import prompts
from evaluator.benchmarks.causalstep.records import (
    CATEGORY_BY_KEY,
    SAFE_ID,
    CATEGORIES,
    MAX_OPTIONS,
    MCQ,
    NAME,
    RELEASE_JSON,
    RELEASE_JSONL,
    Answer,
    Question,
    Segment,
    category_key,
)
from evaluator.benchmarks.common import MissingVideos, OpaqueIds, Secret, find_video, read_jsonl, require, sort_by_id
from evaluator.errors import ImportReleaseError
from evaluator.records import BenchmarkData


# The release layout `import --help` shows (and the importer reads); the package docstring
# gives each field.
RELEASE_LAYOUT = """\
<root>/causalstep.jsonl (one video object a line) or <root>/causalstep.json (a JSON array):
    video_id, category, video_file, segments [{start, end, descriptive {question, options,
    answer}, causal {...} on every segment but the first}]
<root>/<video_file>, or under <root>/videos/ or <root>/data/: the videos"""


def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the release layout documented in the package docstring (causalstep/__init__.py)."""
    path, entries = _release_entries(Path(root))
    item_ids, video_ids = OpaqueIds(secret, "causalstep:item"), OpaqueIds(secret, "causalstep:video", f"{NAME}-")
    questions, answers, files, first_line = [], [], {}, {}
    missing = MissingVideos()
    for line, record in entries:
        where = f"{path}:{line}"
        question, answer = _video_record(record, where, secret)
        if answer.release_id in first_line:
            raise ImportReleaseError(f"{where}: field 'video_id': '{answer.release_id}' is already used on "
                                     f"line {first_line[answer.release_id]}")
        first_line[answer.release_id] = line
        # Public ids say nothing about the release's video (its id may name the source).
        question.id = answer.id = item_ids(answer.release_id)
        question.video = video_ids(answer.release_id)
        found = find_video(path.parent, require(record, "video_file", str, where), where, missing)
        if found is not None:
            files[question.video] = str(found)
        questions.append(question)
        answers.append(answer)
    missing.raise_if_any()
    if not questions:
        raise ImportReleaseError(f"{path}: no videos")
    questions, answers = sort_by_id(questions, answers)
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files)


def _release_entries(root: Path) -> tuple[Path, list[tuple[int, dict]]]:
    """(file, [(line, video record)]) from causalstep.jsonl or causalstep.json."""
    if (root / RELEASE_JSONL).is_file():
        return root / RELEASE_JSONL, list(read_jsonl(root / RELEASE_JSONL))
    if (root / RELEASE_JSON).is_file():
        return root / RELEASE_JSON, _json_array(root / RELEASE_JSON)
    raise ImportReleaseError(f"{root}: neither {RELEASE_JSON} nor {RELEASE_JSONL} found")


def _json_array(path: Path) -> list[tuple[int, dict]]:
    """The objects of a top-level JSON array with the line each starts on (for error messages)."""
    text = path.read_text(encoding="utf-8")
    decoder, blank = json.JSONDecoder(), re.compile(r"\s*")

    def fail(pos: int, message: str):
        raise ImportReleaseError(f"{path}:{text.count(chr(10), 0, pos) + 1}: {message}")

    pos = blank.match(text).end()
    if not text.startswith("[", pos):
        fail(pos, "expected a JSON array of video objects")
    pos = blank.match(text, pos + 1).end()
    entries = []
    while not text.startswith("]", pos):
        try:
            record, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            fail(e.pos, f"not valid JSON ({e.msg})")
        if not isinstance(record, dict):
            fail(pos, "expected a JSON object")
        entries.append((text.count("\n", 0, pos) + 1, record))
        pos = blank.match(text, end).end()
        if text.startswith(",", pos):
            pos = blank.match(text, pos + 1).end()
        elif not text.startswith("]", pos):
            fail(pos, "expected ',' or ']' after a video object")
    if text[pos + 1:].strip():
        fail(pos + 1, "unexpected text after the array")
    return entries


def _video_record(record: dict, where: str, secret: Secret) -> tuple[Question, Answer]:
    item = require(record, "video_id", str, where)
    if not SAFE_ID.fullmatch(item):
        raise ImportReleaseError(f"{where}: field 'video_id' may hold only letters, digits, '.', '_' and '-'")
    category = _category(require(record, "category", str, where), where)
    raw = require(record, "segments", list, where)
    if not raw:
        raise ImportReleaseError(f"{where}: field 'segments' is empty")
    segments, desc_gold, causal_gold = [], [], []
    for i, seg in enumerate(raw, 1):
        here = f"{where}: segments[{i - 1}]"
        if not isinstance(seg, dict):
            raise ImportReleaseError(f"{here}: expected a JSON object")
        start, end = _span(seg, here, segments[-1].end if segments else None)
        desc, gold = _mcq(require(seg, "descriptive", dict, here), f"{here}.descriptive", f"{item}:s{i}:desc", secret)
        causal, cgold = None, None
        if i == 1 and seg.get("causal") is not None:
            raise ImportReleaseError(f"{here}: field 'causal': the first segment has no causal question")
        if i > 1:
            causal, cgold = _mcq(require(seg, "causal", dict, here), f"{here}.causal", f"{item}:s{i}:causal", secret)
        segments.append(Segment(i, start, end, desc, causal))
        desc_gold.append(gold)
        causal_gold.append(cgold)
    return (Question(item, f"{NAME}-{item}", category, segments),
            Answer(item, desc_gold, causal_gold, item))


def _category(name: str, where: str) -> str:
    try:
        return CATEGORY_BY_KEY[category_key(name)]
    except KeyError:
        raise ImportReleaseError(f"{where}: field 'category': unknown category '{name}' "
                                 f"(known: {', '.join(CATEGORIES)})") from None


def _span(seg: dict, where: str, previous_end: float | None) -> tuple[float, float]:
    start, end = (require(seg, key, (int, float), where) for key in ("start", "end"))
    if isinstance(start, bool) or isinstance(end, bool) or not 0 <= start < end:
        raise ImportReleaseError(f"{where}: fields 'start'/'end' must be seconds with 0 <= start < end")
    if previous_end is not None and start < previous_end - 1e-6:
        raise ImportReleaseError(f"{where}: field 'start' is before the end of the previous segment")
    return float(start), float(end)


def _mcq(record: dict, where: str, key: str, secret: Secret) -> tuple[MCQ, str]:
    """The question with its options in the fixed secret order, and the gold label."""
    text = require(record, "question", str, where)
    options = require(record, "options", list, where)
    if not 2 <= len(options) <= MAX_OPTIONS or not all(isinstance(o, str) and o.strip() for o in options):
        raise ImportReleaseError(f"{where}: field 'options' must be a list of 2 to {MAX_OPTIONS} "
                                 f"non-empty strings")
    if len(set(options)) != len(options):
        raise ImportReleaseError(f"{where}: field 'options' lists the same text twice")
    gold = _gold_index(require(record, "answer", (int, str), where), options, where)
    return ordered(text, options, gold, f"{NAME}:{key}", secret)


def ordered(question: str, options: list[str], gold: int, key: str, secret: Secret) -> tuple[MCQ, str]:
    """The options in the question's secret order, and the gold's label there."""
    order = secret.permutation(f"{key}:order", len(options))
    return MCQ(question, [options[k] for k in order]), prompts.letters(len(options))[order.index(gold)]


def _gold_index(answer: int | str, options: list[str], where: str) -> int:
    if isinstance(answer, str) and answer in options:
        return options.index(answer)
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(options):
        return answer
    raise ImportReleaseError(f"{where}: field 'answer' must be a 0-based index into 'options' "
                             f"or the exact text of one option")
