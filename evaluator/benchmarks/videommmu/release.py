"""Video-MMMU's importer: the release's per-track JSON or Parquet files, checked
(LaTeX escapes lost in the release repaired), golds moved to the answer key.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from evaluator import prompts
from evaluator.benchmarks.common import MissingVideos, OpaqueIds, Secret, require, sort_by_id
from evaluator.benchmarks.videommmu.records import MCQ, NAME, OPEN, TRACKS, Answer, Question, discipline_of, make_answer
from evaluator.errors import ImportReleaseError
from evaluator.records import BenchmarkData

FIELDS = ("id", "question", "options", "answer", "question_type")
# "perception" is a type the official scorer scores as multiple-choice.
_MCQ_TYPES = {"multiple-choice", "multiple_choice", "multiple choice", "mcq", "perception"}
_OPEN_TYPES = {"open", "open-ended", "open_ended", "open ended"}
# One Adaptation item says question_type "None" though it has 10 options and a letter
# gold: we score it as multiple-choice (the official code shows it without options).
_UNSET_TYPES = {"none", "nan", ""}
_PREFIX = re.compile(r"^\s*\(?([A-Z])[.)]\s*")


# The release layout `import --help` shows (and the importer reads).
RELEASE_LAYOUT = """\
either the Hugging Face layout: <root>/Perception/, Comprehension/, Adaptation/ each with
    test-*.parquet (or <root>/<track>.parquet)
or the GitHub layout: <root>/data/<track>_video.json (or <root>/<track>_video.json)
    rows: id, question, options, answer, question_type
<root>/**/<id>.mp4 anywhere under the release: the lecture videos
<root>/**/<id>_image.mp4 (question_only/): the Adaptation track's question-only stills"""


def _track_files(root: Path, track: str) -> list[Path]:
    """One track's files: the HF parquet (<Track>/test-*.parquet or <track>.parquet) or,
    failing that, the GitHub JSON (<track>_video.json, here or under data/)."""
    entries = sorted(root.iterdir()) if root.is_dir() else []
    for entry in entries:
        if entry.is_dir() and entry.name.lower() == track:
            shards = sorted(entry.glob("test-*.parquet")) or sorted(entry.glob("*.parquet"))
            if shards:
                return shards
    for entry in entries:
        if entry.is_file() and entry.name.lower() == f"{track}.parquet":
            return [entry]
    for folder in (root, root / "data"):
        if (folder / f"{track}_video.json").is_file():
            return [folder / f"{track}_video.json"]
    raise ImportReleaseError(f"{root}: no release file for track {track.title()}: expected the Hugging Face "
                             f"{track.title()}/test-*.parquet (or {track}.parquet), or the GitHub "
                             f"data/{track}_video.json")


def _rows(path: Path, track: str):
    """(where, record) of one track file, parquet or JSON."""
    if path.suffix == ".json":
        return _json_rows(path, track)
    return ((f"{path}: row {n}", rec) for n, rec in _parquet_rows(path))


def _json_rows(path: Path, track: str):
    """The GitHub layout: {"<Track>": {"0": {record}, "1": ...}}, records in index order."""

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ImportReleaseError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    if not isinstance(data, dict) or len(data) != 1 or next(iter(data)).lower() != track:
        raise ImportReleaseError(f"{path}: expected one object keyed by the track name "
                                 f"{{\"{track.title()}\": {{\"0\": {{...}}, ...}}}}")
    name, items = next(iter(data.items()))
    if not isinstance(items, dict) or not all(str(k).isdigit() for k in items):
        raise ImportReleaseError(f"{path}: \"{name}\" must map index keys (\"0\", \"1\", ...) to items")
    for key in sorted(items, key=int):
        where = f"{path}: {name}[\"{key}\"]"
        if not isinstance(items[key], dict):
            raise ImportReleaseError(f"{where}: expected a JSON object")
        yield where, items[key]


def _parquet_rows(path: Path):
    """(row number from 1, record) with the fields we read (the image column is skipped)."""
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
        table = pq.read_table(path, columns=[f for f in FIELDS if f in names])
    except Exception as e:  # pyarrow raises several types for a damaged file
        raise ImportReleaseError(f"{path}: not a readable parquet file ({e})") from None
    for name in FIELDS[:4]:
        if name not in names:
            raise ImportReleaseError(f"{path}: missing field '{name}' (no such column)")
    return enumerate(table.to_pylist(), 1)


def _question_type(value, track: str, options: list, where: str) -> str:
    """multiple-choice or open; missing (Perception/Comprehension) means multiple-choice."""
    text = "" if value is None else str(value).strip().lower()
    if text in _OPEN_TYPES:
        kind = OPEN
    elif text in _MCQ_TYPES:
        kind = MCQ
    elif text in _UNSET_TYPES:
        kind = MCQ if options or track != "adaptation" else OPEN
    else:
        raise ImportReleaseError(f"{where}: field 'question_type' has an unknown value '{value}'")
    if kind == OPEN and track != "adaptation":
        raise ImportReleaseError(f"{where}: field 'question_type': open-ended questions are only "
                                 f"expected in the Adaptation track")
    return kind


def _option_list(value, where: str) -> list:
    """Options as a list; some mirrors store the list as its Python text."""
    if not isinstance(value, str):
        return list(value)
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        parsed = None
    if not isinstance(parsed, list):
        raise ImportReleaseError(f"{where}: field 'options' must be a list of strings")
    return parsed


def _clean_options(options: list, where: str) -> list[str]:
    """Option texts without letter prefixes; prefixes are removed only when every option
    carries its own letter in order (one released item does)."""
    if not all(isinstance(o, str) for o in options):
        raise ImportReleaseError(f"{where}: field 'options' must be a list of strings")
    labels = prompts.letters(len(options))
    found = [_PREFIX.match(o) for o in options]
    if options and all(m and m.group(1) == x for m, x in zip(found, labels)):
        return [o[m.end():].strip() for o, m in zip(options, found)]
    return [o.strip() for o in options]


# JSON escapes that swallowed a LaTeX backslash: "\frac" written unescaped in JSON is
# read as form feed + "rac". Repaired only where the escape letter and the letters after
# it spell a known command ending at a non-lowercase character, so a genuine tab or
# line break before ordinary text is left alone. "\n" is not repaired: line breaks are
# legitimate in questions, and the release has no "\nu"/"\neq" lost this way.
_ESCAPED = {"\t": "t", "\f": "f", "\b": "b", "\r": "r"}
_LATEX_COMMANDS = {
    "t": ("to", "times", "text", "textbf", "textit", "textrm", "theta", "tau", "tan", "tanh", "tilde",
          "top", "triangle", "tfrac", "therefore", "textdegree", "tt"),
    "f": ("frac", "forall", "flat"),
    "b": ("beta", "bar", "bf", "binom", "begin", "big", "bigl", "bigr", "bullet", "boxed", "bmod",
          "bot", "breve", "because", "backslash"),
    "r": ("right", "rho", "rm", "rangle", "rightarrow", "rceil", "rfloor"),
}
_LOST_ESCAPE = re.compile("([\t\f\b\r])([a-z]*)(?![a-z])")


def repair_latex_escapes(text: str) -> str:
    """`text` with each LaTeX command that lost its backslash to a JSON escape restored."""
    def fix(m: re.Match) -> str:
        letter = _ESCAPED[m.group(1)]
        return "\\" + letter + m.group(2) if letter + m.group(2) in _LATEX_COMMANDS[letter] else m.group(0)

    return _LOST_ESCAPE.sub(fix, text)


def _video_index(root: Path) -> dict[str, Path]:
    """Every .mp4 under the release by file name (discipline folders, videos/, question_only/)."""
    index: dict[str, Path] = {}
    for path in sorted(root.rglob("*.mp4")):
        index.setdefault(path.name, path)
    return index


@dataclass
class _Ids:
    """The opaque ids of one import, and what the importer saw (for `import --check`)."""

    items: OpaqueIds
    videos: OpaqueIds
    repaired: list[str] = field(default_factory=list)  # where control characters were repaired
    untyped: list[str] = field(default_factory=list)  # where question_type was null / "None"


def _text(value: str, where: str, ids: _Ids) -> str:
    fixed = repair_latex_escapes(value)
    if fixed != value and (not ids.repaired or ids.repaired[-1] != where):
        ids.repaired.append(where)
    return fixed


def _row(rec: dict, track: str, where: str, ids: _Ids) -> tuple[Question, Answer]:
    source_id = require(rec, "id", str, where)
    found = discipline_of(source_id)
    if found is None:
        raise ImportReleaseError(f"{where}: field 'id': no known subject in '{source_id}' "
                                 f"(expected <prefix>_<Subject>_<n>)")
    subject, discipline = found
    raw = require(rec, "options", (list, tuple, str), where)
    options = [_text(o, where, ids) if isinstance(o, str) else o for o in _option_list(raw, where)]
    options = _clean_options(options, where)
    if track == "adaptation" and str(rec.get("question_type")).strip().lower() in _UNSET_TYPES:
        ids.untyped.append(where)
    kind = _question_type(rec.get("question_type"), track, options, where)
    if kind == MCQ and not 2 <= len(options) <= 26:
        raise ImportReleaseError(f"{where}: field 'options': a multiple-choice question needs 2 to 26 "
                                 f"options, not {len(options)}")
    item_id = ids.items(f"{track}/{source_id}")
    try:
        answer = make_answer(item_id, kind, options, require(rec, "answer", str, where))
    except ValueError as e:
        raise ImportReleaseError(f"{where}: field 'answer': {e}") from None
    answer.release_id = source_id
    video = ids.videos(source_id)
    question = Question(item_id, track, video, subject, discipline,
                        _text(require(rec, "question", str, where), where, ids), kind,
                        options if kind == MCQ else [],
                        f"{video}-question-only" if track == "adaptation" else None)
    return question, answer


def _find(index: dict[str, Path], name: str, root: Path, where: str, missing: MissingVideos) -> str | None:
    """A video by file name, anywhere under the release (`index`); None, noted, when absent."""
    if name not in index:
        missing.note(where, name, [root / "**"])
        return None
    return str(index[name])


def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the official release, either layout: the HF per-track parquet files or the
    GitHub data/<track>_video.json; videos are <id>.mp4 lecture videos anywhere under
    `root` and question_only/<id>_image.mp4 stills. Options keep their released order
    (golds are letters); `secret` keys the opaque ids."""
    root = Path(root)
    index = _video_index(root)
    ids = _Ids(OpaqueIds(secret, "videommmu:item"), OpaqueIds(secret, "videommmu:video", f"{NAME}-"))
    questions, answers, files, seen, used = [], [], {}, {}, []
    missing = MissingVideos()
    for track in TRACKS:
        for path in _track_files(root, track):
            used.append(path)
            for where, rec in _rows(path, track):
                q, a = _row(rec, track, where, ids)
                if q.id in seen:
                    raise ImportReleaseError(f"{where}: field 'id': '{a.release_id}' repeats {seen[q.id]} "
                                             f"in the {track.title()} track")
                seen[q.id] = where
                if q.video not in files and (found := _find(index, f"{a.release_id}.mp4", root, where, missing)):
                    files[q.video] = found
                if q.question_only_video and (found := _find(index, f"{a.release_id}_image.mp4", root, where,
                                                             missing)):
                    files[q.question_only_video] = found
                questions.append(q)
                answers.append(a)
    missing.raise_if_any()
    questions, answers = sort_by_id(questions, answers)
    notes = [f"read {', '.join(str(p) for p in used)}"]
    if ids.repaired:
        notes.append(f"restored LaTeX backslashes lost to JSON escapes in {len(ids.repaired)} item(s), "
                     f"first at {ids.repaired[0]}")
    notes += [f"question_type null at {w}: scored as multiple-choice with its options shown" for w in ids.untyped]
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files, notes=notes)
