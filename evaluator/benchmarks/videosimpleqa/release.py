"""Video SimpleQA's importer: VideoSimpleQA.json and category_mapping.json, checked
(errors name the file and line), golds moved to the answer key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.benchmarks.common import MissingVideos, OpaqueIds, Secret, find_video, sort_by_id
from evaluator.benchmarks.videosimpleqa.records import (
    CATEGORY_OF,
    CATEGORY_FILE,
    NAME,
    PRIMARY,
    RELEASE_FILE,
    Answer,
    Question,
    SubQuestion,
    category_key,
)
from evaluator.errors import ImportReleaseError
from evaluator.records import BenchmarkData

_PAIR_KEY = re.compile(r"QA_Pair_(\d+)_(Question|Answer)")


# The release layout `import --help` shows (and the importer reads).
RELEASE_LAYOUT = """\
<root>/VideoSimpleQA.json (or <root>/data/VideoSimpleQA.json): the list of items (date,
    Multi_hop_Question, Multi_hop_Answer, QA_Pair_<n>_Question / _Answer)
<root>/category_mapping.json (optional, or beside the JSON): each item's category
<root>/videos/<date>.mp4 (also <root>/ and <root>/data/): one video per date"""


@dataclass
class _Where:
    """Where an item sits in the release file, for error messages (line found lazily)."""

    path: Path
    text: str
    index: int

    def error(self, message: str) -> ImportReleaseError:
        return ImportReleaseError(f"{self.path}:{_line_of(self.text, self.index)}: item {self.index}: {message}")


def _line_of(text: str, index: int) -> int:
    """The line on which element `index` of a top-level JSON list starts."""
    decoder = json.JSONDecoder()
    pos, start = text.index("[") + 1, 0
    for _ in range(index + 1):
        while text[pos] in " \t\r\n,":
            pos += 1
        start = pos
        _, pos = decoder.raw_decode(text, pos)
    return text.count("\n", 0, start) + 1


def _load_json(path: Path) -> tuple[Any, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ImportReleaseError(f"{path}: not UTF-8 text") from None
    try:
        return json.loads(text), text
    except json.JSONDecodeError as e:
        raise ImportReleaseError(f"{path}:{e.lineno}: not valid JSON ({e.msg}, column {e.colno})") from None


def _text(record: dict, key: str, where: _Where) -> str:
    """A text field, stripped. Numbers are accepted too (an earlier release had int answers)."""
    if key not in record:
        raise where.error(f"missing field '{key}'")
    value = record[key]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise where.error(f"field '{key}' must be a string, not {type(value).__name__}")
    return value.strip()


def _sub_questions(record: dict, where: _Where) -> list[SubQuestion]:
    """QA_Pair_1.._k as sub-questions; the hop count is k."""
    hops = max((int(m[1]) for m in map(_PAIR_KEY.fullmatch, record) if m), default=0)
    if hops == 0:
        raise where.error("missing field 'QA_Pair_1_Question' (an item needs at least one QA pair)")
    return [SubQuestion(_text(record, f"QA_Pair_{k}_Question", where),
                        _text(record, f"QA_Pair_{k}_Answer", where)) for k in range(1, hops + 1)]


def _date(record: dict, where: _Where) -> str:
    date = _text(record, "date", where)
    # The date names the video file; refuse anything that is not a plain file name.
    if not date or date in (".", "..") or "/" in date or "\\" in date:
        raise where.error(f"field 'date' must name a video file, not {date!r}")
    return date


def _read_categories(path: Path) -> dict[str, str]:
    """category_mapping.json as {"date|Multi_hop_Question": primary abbrev}.

    Accepts the official metrics script's layout (a list of objects with `date`,
    `Multi_hop_Question`, `category`) and a plain object {key: category}.
    """
    data, _ = _load_json(path)
    if isinstance(data, list):
        pairs = []
        for n, rec in enumerate(data):
            if not isinstance(rec, dict) or not all(isinstance(rec.get(k), str) for k in
                                                    ("date", "Multi_hop_Question", "category")):
                raise ImportReleaseError(f"{path}: entry {n}: expected an object with string fields "
                                         f"'date', 'Multi_hop_Question' and 'category'")
            pairs.append((f"{rec['date']}|{rec['Multi_hop_Question']}", rec["category"]))
    elif isinstance(data, dict):
        pairs = [(k, v.get("category") if isinstance(v, dict) else v) for k, v in data.items()]
    else:
        raise ImportReleaseError(f"{path}: expected a JSON list or object")
    out = {}
    for key, label in pairs:
        abbrev = CATEGORY_OF.get(category_key(label)) if isinstance(label, str) else None
        if abbrev is None:
            raise ImportReleaseError(f"{path}: entry '{key}': unknown category {label!r} (expected "
                                     f"{', '.join(PRIMARY)}, or a category name from the paper)")
        out[key] = abbrev
    return out


def _find_release_file(root: Path) -> Path:
    for candidate in (root / RELEASE_FILE, root / "data" / RELEASE_FILE):
        if candidate.is_file():
            return candidate
    raise ImportReleaseError(f"{root}: no {RELEASE_FILE} here or under data/")


def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the official layout: VideoSimpleQA.json (a list of items), videos/<date>.mp4,
    and, when present, category_mapping.json (next to the JSON or in `root`).

    Item and video ids are opaque, keyed by `secret` (of the JSON index and of the date:
    an index tells the release position, a date names the answer); items are in the
    order of their ids. There are no options to shuffle.
    """
    root = Path(root)
    path = _find_release_file(root)
    data, text = _load_json(path)
    if not isinstance(data, list) or not data:
        raise ImportReleaseError(f"{path}: expected a non-empty JSON list of items")
    mapping_file = next((p for p in (path.parent / CATEGORY_FILE, root / CATEGORY_FILE) if p.is_file()), None)
    categories = _read_categories(mapping_file) if mapping_file else None

    questions, answers, files, files_of_date = [], [], {}, {}
    missing = MissingVideos()
    item_ids, video_ids = OpaqueIds(secret, "videosimpleqa:item"), OpaqueIds(secret, "videosimpleqa:video", "vsqa-")
    for index, record in enumerate(data):
        where = _Where(path, text, index)
        if not isinstance(record, dict):
            raise where.error("expected a JSON object")
        date = _date(record, where)
        subs = _sub_questions(record, where)
        question, gold = _text(record, "Multi_hop_Question", where), _text(record, "Multi_hop_Answer", where)
        if not (question and gold):
            question = gold = ""  # a data error (item #597 of the release): no multi-hop question to score
        category = None
        if categories is not None and question:
            # The official key, built from the unstripped fields.
            category = categories.get(f"{record['date']}|{record['Multi_hop_Question']}")
            if category is None:
                raise where.error(f"no category for this item in {mapping_file} "
                                  f"(key 'date|Multi_hop_Question')")
        if date not in files_of_date:
            found = find_video(root, f"{date}.mp4", f"{path}: item {index}", missing)
            files_of_date[date] = str(found) if found is not None else None
        video = video_ids(date)
        if files_of_date[date] is not None:
            files[video] = files_of_date[date]
        item = item_ids(str(index))
        questions.append(Question(item, video, question, len(subs), category))
        answers.append(Answer(item, gold, subs, source=date, release_index=index))
    missing.raise_if_any()
    skipped = [a.release_index for a in answers if not a.answer]
    questions, answers = sort_by_id(questions, answers)
    notes = [f"{len(skipped)} item(s) without a multi-hop question or answer, not scored (release indices "
             f"{', '.join(map(str, skipped))}); their sub-questions are kept"] if skipped else []
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files, notes=notes)
