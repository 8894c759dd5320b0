"""Video-MMMU: learn from a college lecture video, then answer about it and apply it.

Spec: shared/specs/videommmu.md. 300 lecture videos, 3 questions each, one per
track: Perception (find the information), Comprehension (understand the method),
Adaptation (apply it to a new problem whose picture is the video's last frame).
Adaptation also has a question-only call (the picture alone, no lecture): the
"before" run of the knowledge-gain metrics Δknowledge, wrong->right, right->wrong.

Public item and video ids are opaque (keyed hashes of (track, release id) and of
the release id, from the suite's secret); the release id is kept in the answer key.
Subject and discipline are read from the release id at import time and stored in
each question, and pooled over the three tracks (paper Table 2).
Scoring is rule-based (no judge): option letters, or for the 20 open-ended
Adaptation items a number / phrase matcher of our own (see `_open_correct`).

Protocol choices where the paper or the release is ambiguous (About page):
- fixed denominators (300 per track, 900 overall): missing or unreadable replies
  are wrong, not dropped as the official code drops empty replies;
- question_type null / "None" (one Adaptation item with 10 options and a letter
  gold) is multiple-choice, with its options shown (the official code shows it
  without options and matches the letter as open text: unanswerable); a missing
  question_type means multiple-choice (open only where an Adaptation row has no
  options); "perception" (a branch of the official scorer) means multiple-choice;
- LaTeX commands whose backslash the GitHub JSON lost to a JSON escape ("\frac"
  read as form feed + "rac") are restored (`repair_latex_escapes`);
- open items with a letter gold are read as a choice among A-J;
- numeric golds match after rounding both to 2 decimals, or within 0.1% when
  |gold| >= 100; phrase golds match by normalised whole-word containment in the
  final answer; the malformed list gold is read as its three alternatives;
- an MCQ gold whose text repeats under another letter accepts both letters;
- Δknowledge, wrong->right, right->wrong use the question-only calls as "before"
  and are None when no question-only reply was submitted; Δ is None when every
  item was right before, W->R / R->W when their denominator is 0.
"""

from __future__ import annotations

import ast
import json
import math
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from evaluator import extract, frames, prompts
from evaluator.benchmarks.common import OpaqueIds, Secret, require, sort_by_id
from evaluator.errors import ImportReleaseError
from evaluator.judges.normalized import normalize_text
from evaluator.metrics import Tally, group_accuracy, per_video_stats, ratio_pct, read_choice
from evaluator.records import (SCHEMA_VERSION, BenchmarkData, BenchmarkScore, Call, Prediction,
                               Responses, ScoringContext, VideoMeta, VideoSpec, pct)

NAME = "videommmu"
TITLE = "Video-MMMU"
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
# Numeric golds: equal after rounding both to 2 decimals (the official rule), or, for
# large golds (money, counts), within 0.1%: their last digits depend on how a long
# calculation rounded its intermediate steps.
LARGE_NUMBER = 100.0
RELATIVE_TOLERANCE = 1e-3


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


# -- golds --------------------------------------------------------------------

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


# -- importer -----------------------------------------------------------------

FIELDS = ("id", "question", "options", "answer", "question_type")
# "perception" is a type the official scorer scores as multiple-choice.
_MCQ_TYPES = {"multiple-choice", "multiple_choice", "multiple choice", "mcq", "perception"}
_OPEN_TYPES = {"open", "open-ended", "open_ended", "open ended"}
# One Adaptation item says question_type "None" though it has 10 options and a letter
# gold: we score it as multiple-choice (the official code shows it without options).
_UNSET_TYPES = {"none", "nan", ""}
_PREFIX = re.compile(r"^\s*\(?([A-Z])[.)]\s*")


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


def _find(index: dict[str, Path], name: str, root: Path, where: str) -> str:
    if name not in index:
        raise ImportReleaseError(f"{where}: video file '{name}' not found under {root}")
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
    for track in TRACKS:
        for path in _track_files(root, track):
            used.append(path)
            for where, rec in _rows(path, track):
                q, a = _row(rec, track, where, ids)
                if q.id in seen:
                    raise ImportReleaseError(f"{where}: field 'id': '{a.release_id}' repeats {seen[q.id]} "
                                             f"in the {track.title()} track")
                seen[q.id] = where
                files.setdefault(q.video, _find(index, f"{a.release_id}.mp4", root, where))
                if q.question_only_video:
                    files[q.question_only_video] = _find(index, f"{a.release_id}_image.mp4", root, where)
                questions.append(q)
                answers.append(a)
    questions, answers = sort_by_id(questions, answers)
    notes = [f"read {', '.join(str(p) for p in used)}"]
    if ids.repaired:
        notes.append(f"restored LaTeX backslashes lost to JSON escapes in {len(ids.repaired)} item(s), "
                     f"first at {ids.repaired[0]}")
    notes += [f"question_type null at {w}: scored as multiple-choice with its options shown" for w in ids.untyped]
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files, notes=notes)


# -- demo ---------------------------------------------------------------------

_PREFIXES = ("validation", "test", "dev", "new")
# Option counts cycled over the demo's multiple-choice items: mostly 10 as in the
# release, some 2 to 14 (letters past J).
_OPTION_COUNTS = (10, 4, 10, 14, 10, 6, 10, 12, 10, 5, 10, 2, 10, 11, 10, 3)
_PHRASES = ("marginal cost", "negative feedback", "isosceles triangle", "baroque style",
            "binary search", "cognitive dissonance")
_TOPICS = ("the formula on the board", "the chart in the slides", "the worked example",
           "the definition given", "the final result shown", "the table of values")


def _disciplines_for(videos: int) -> list[str]:
    """Discipline of each demo video, in the paper's proportions (exactly them at 300)."""
    if videos < len(DISCIPLINES):
        return DISCIPLINES[:videos]
    share = {d: videos * n / 300 for d, n in PAPER_VIDEOS.items()}
    quota = {d: max(1, math.floor(s)) for d, s in share.items()}
    while sum(quota.values()) < videos:
        quota[max(DISCIPLINES, key=lambda d: share[d] - quota[d])] += 1
    while sum(quota.values()) > videos:
        quota[max(DISCIPLINES, key=lambda d: quota[d] - share[d] if quota[d] > 1 else -1)] -= 1
    return [d for d in DISCIPLINES for _ in range(quota[d])]


def _demo_open(k: int) -> str | None:
    """Which Adaptation items are open-ended: two numeric and one phrase per 15 videos."""
    return {2: "number", 9: "number", 5: "text"}.get(k % 15)


def _demo_item(texts: random.Random, golds: random.Random, track: str, k: int, subject: str, mcq_count: int
               ) -> tuple[str, list[str], str]:
    """(question text, options, gold) of one synthetic item: texts from `texts`, the
    gold from `golds`."""
    topic = _TOPICS[(k + TRACKS.index(track)) % len(_TOPICS)]
    name = subject.replace("_", " ").lower()
    if track == "adaptation" and _demo_open(k) == "number":
        return (f"<image 1> Using the {name} method, what value do you get for the case shown?",
                [], f"{golds.uniform(1, 900):.2f}")
    if track == "adaptation" and _demo_open(k) == "text":
        return (f"<image 1> Which {name} concept explains the case shown?",
                [], golds.choice(_PHRASES))
    count = _OPTION_COUNTS[mcq_count % len(_OPTION_COUNTS)]
    options = [f"{name} claim {k}-{track[0]}{i} ({texts.randint(100, 999)})" for i in range(count)]
    stem = {"perception": f"According to the {name} lecture, which matches {topic}?",
            "comprehension": f"Which statement explains {topic} in the {name} lecture?",
            "adaptation": f"<image 1> For the {name} case shown, which statement holds?"}[track]
    return stem, options, prompts.letters(count)[golds.randrange(count)]


def demo(secret: Secret, size: int = 12) -> BenchmarkData:
    """`size` synthetic lecture videos (12: two per discipline, more in Engineering),
    each with one item per track; size=300 is the paper's 900-item layout. Drawn from
    the suite's secret: texts from one stream, golds from another."""
    texts, golds = secret.rng("videommmu-demo:texts"), secret.rng("videommmu-demo:golds")
    # opaque ids as an import makes them: the demo's release-like ids stay in the answer key
    item_ids, video_ids = OpaqueIds(secret, "videommmu:item"), OpaqueIds(secret, "videommmu:video", f"{NAME}-")
    questions, answers, specs = [], [], {}
    mcq_count = 0
    for k, discipline in enumerate(_disciplines_for(size)):
        subjects = DISCIPLINE_SUBJECTS[discipline]
        subject = subjects[k % len(subjects)]
        source_id = f"{_PREFIXES[k % len(_PREFIXES)]}_{subject}_{k + 1}"
        video = video_ids(source_id)
        # the question-only still must show the same quiz card as the lecture's last frame
        card_seed = texts.randrange(2**31)
        specs[video] = VideoSpec(seconds=3.0 + k % 3, scenes=2, final_card=True, seed=card_seed)
        for track in TRACKS:
            text, options, gold = _demo_item(texts, golds, track, k, subject, mcq_count)
            kind = MCQ if options else OPEN
            mcq_count += kind == MCQ
            qo_video = f"{video}-question-only" if track == "adaptation" else None
            item_id = item_ids(f"{track}/{source_id}")
            questions.append(Question(item_id, track, video, subject, discipline, text,
                                      kind, options, qo_video))
            answers.append(make_answer(item_id, kind, options, gold))
            answers[-1].release_id = source_id
            if qo_video:
                specs[qo_video] = VideoSpec(seconds=2.0, still=True, seed=card_seed)
    questions, answers = sort_by_id(questions, answers)
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)


# -- calls --------------------------------------------------------------------

def _template(q: Question) -> str:
    if q.track != "adaptation":
        return "lecture_mcq"
    return "adaptation_mcq" if q.question_type == MCQ else "adaptation_open"


def _call(cid: str, q: Question, kind: str, template: str, meta: VideoMeta, count: int) -> Call:
    plan = frames.plan(meta, count)
    labels = labels_for(q) if q.question_type == MCQ else None
    prompt = prompts.render(
        NAME, template, duration=meta.duration, frame_count=len(plan.times),
        frame_times=prompts.frame_times_text(plan.times), question=q.question,
        options=prompts.lettered(q.options, labels) if labels else "")
    return Call(cid, NAME, q.id, kind, prompt, "choice" if labels else "open", [plan], labels,
                q.options or None)


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """One call per item over the whole lecture video (its last frame, the Adaptation
    picture, included), plus a question-only call per Adaptation item."""
    calls = []
    for q in questions:
        kind = "mcq" if q.question_type == MCQ else "open"
        calls.append(_call(call_id(q), q, kind, _template(q), videos[q.video], budgets.videommmu))
        if q.question_only_video:
            template = "question_only_mcq" if q.question_type == MCQ else "question_only_open"
            calls.append(_call(question_only_call_id(q), q, "question-only", template,
                               videos[q.question_only_video], budgets.videommmu_question_only))
    return calls


# -- scoring ------------------------------------------------------------------

def _same_number(value: float, gold: float) -> bool:
    if round(value, 2) == round(gold, 2):
        return True
    return abs(gold) >= LARGE_NUMBER and abs(value - gold) < RELATIVE_TOLERANCE * abs(gold)


# A phrase answer may carry a few more words than the gold ("the concept is negative
# feedback"), not a list of candidates, and no alternative.
EXTRA_WORDS = 6
_ALTERNATIVES = frozenset({"or", "either", "nor"})
_ANSWER_MARK = re.compile(r"answer\s*(?:is\b|[:：=])", re.I)
_DECORATION = " \t*_#>`'\"“”:："


def final_answer(response: str) -> str:
    """The final-answer part of a reply: the last \\boxed{}, else the rest of the line after
    the last "answer is" / "Answer:", else the last non-empty line (what our prompt asks for)."""
    text = extract.strip_reasoning(response) or response
    boxed = extract.last_boxed(text)
    if boxed:
        return boxed
    marks = list(_ANSWER_MARK.finditer(text))
    if marks:
        rest = text[marks[-1].end():].lstrip(_DECORATION + "\n")
        line = rest.split("\n", 1)[0].strip(_DECORATION)
        if line:
            return line
    lines = [ln.strip(_DECORATION) for ln in text.splitlines()]
    return next((ln for ln in reversed(lines) if ln), "")


def _open_correct(pred: Prediction | None, answer: Answer, tally: Tally) -> bool:
    """Open-ended: the reply's final number equals a numeric gold (`_same_number`), or its
    final answer contains a gold phrase (normalised, whole words), as the official scorer
    does, but only a final answer that is short (at most the gold's words + EXTRA_WORDS)
    and offers no alternative ("or"): a list of candidate phrases is not an answer. A
    reply giving neither a number (numeric gold) nor any final answer (phrase gold) is
    unparseable."""
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return False
    number = extract.extract_number(pred.response) if answer.values else None
    text = normalize_text(final_answer(pred.response)) if answer.texts else ""
    if number is None and not text:
        tally.unparseable += 1
        return False
    if number is not None and any(_same_number(number, v) for v in answer.values):
        return True
    return any(_names_phrase(text, t) for t in answer.texts)


def _names_phrase(text: str, phrase: str) -> bool:
    words, wanted = text.split(), phrase.split()
    return (f" {phrase} " in f" {text} " and len(words) <= len(wanted) + EXTRA_WORDS
            and not (_ALTERNATIVES & set(words)) - set(wanted))


def _correct(q: Question, answer: Answer, pred: Prediction | None, tally: Tally) -> bool:
    if answer.labels:
        labels = labels_for(q) if q.options else OPEN_LETTERS
        return read_choice(pred, labels, q.options or None, tally) in answer.labels
    return _open_correct(pred, answer, tally)


def knowledge_gain(before: list[bool], after: list[bool]) -> dict:
    """Δknowledge and the transition rates over the Adaptation items (paper §5).

    Δknowledge = (acc_after - acc_before) / (100 - acc_before) x 100, which with counts is
    (right_after - right_before) / wrong_before x 100; None when nothing was wrong before.
    """
    n = len(before)
    right_before = sum(before)
    wrong_to_right = sum(1 for b, a in zip(before, after) if a and not b)
    right_to_wrong = sum(1 for b, a in zip(before, after) if b and not a)
    return {
        "delta_knowledge": pct(sum(after) - right_before, n - right_before),
        "wrong_to_right": pct(wrong_to_right, n - right_before),
        "right_to_wrong": pct(right_to_wrong, right_before),
        "adaptation_question_only": pct(right_before, n),
        "n_wrong_to_right": wrong_to_right,
        "n_right_to_wrong": right_to_wrong,
        "n_right_before": right_before,
        "n_wrong_before": n - right_before,
    }


_NO_GAIN = dict.fromkeys(("delta_knowledge", "wrong_to_right", "right_to_wrong",
                          "adaptation_question_only", "n_wrong_to_right", "n_right_to_wrong",
                          "n_right_before", "n_wrong_before"))


def _ordered(groups: dict, order: list[str]) -> dict:
    return {k: groups[k] for k in order if k in groups} | {k: v for k, v in groups.items() if k not in order}


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    key = {a.id: a for a in answers}
    tally, before_tally = Tally(), Tally()
    correct: list[float] = []
    before: list[bool] = []
    after: list[bool] = []
    any_before = False
    for q in questions:
        answer = key[q.id]
        right = _correct(q, answer, responses.get(call_id(q)), tally)
        correct.append(1.0 if right else 0.0)
        if q.question_only_video:
            pred = responses.get(question_only_call_id(q))
            any_before = any_before or pred is not None
            before.append(_correct(q, answer, pred, before_tally))
            after.append(right)

    by_track, n_track = group_accuracy(zip((q.track for q in questions), correct))
    by_discipline, n_discipline = group_accuracy(zip((q.discipline for q in questions), correct))
    metrics = {
        "overall": pct(sum(correct), len(correct)),
        **{track: by_track.get(track) for track in TRACKS},
        **(knowledge_gain(before, after) if any_before else _NO_GAIN),
        "by_discipline": _ordered(by_discipline, DISCIPLINES),
        "n_by_discipline": _ordered(n_discipline, DISCIPLINES),
        "n_by_track": _ordered(n_track, list(TRACKS)),
    }
    counts = tally.as_dict() | {
        "items": len(questions),
        "question_only_calls_used": before_tally.used,
        "question_only_missing": before_tally.missing,
        "question_only_unparseable": before_tally.unparseable,
    }
    # One row per lecture video, [correct, items]: the bootstrap resamples videos.
    stats = per_video_stats([q.video for q in questions], [correct, [1.0] * len(correct)])
    return BenchmarkScore(metrics, counts, stats, lambda sums: ratio_pct(sums, 0, 1))
