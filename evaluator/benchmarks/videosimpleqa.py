"""Video SimpleQA: short factual answers about a video, chained over 2-4 facts.

Spec: shared/specs/videosimpleqa.md. Each item is one multi-hop question: hop 1
asks what the video shows, hops 2..k ask world knowledge about the previous answer,
and the multi-hop question folds the chain into one question. The model answers
with JSON {"answer": ..., "confidence_score": 0-100}; a judge grades each answer
CORRECT, INCORRECT or NOT_ATTEMPTED. Headline: F-score = 2c / (2N - n).

What is public and what is hidden:
- public (questions.jsonl, calls.jsonl): the multi-hop question, its hop count, the
  primary category when the release has labels, and an OPAQUE video id;
- hidden (the answer record): the gold answer, the sub-questions and their answers
  (sub-question j >= 2 names the answer of hop j-1), and the release's date key (the
  Wikimedia "Media of the Day" page for that date names the hop-1 answer).
Worker runs also ask every sub-question in its own call (`hidden_calls`), which gives
the per-hop F-scores of the paper's Tables 4 and 8.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaluator import extract, frames, prompts
from evaluator.benchmarks.common import OpaqueIds, Secret, find_video, sort_by_id
from evaluator.errors import ImportReleaseError
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, JudgeRequest
from evaluator.metrics import Tally, per_video_stats
from evaluator.records import (SCHEMA_VERSION, BenchmarkData, BenchmarkScore, Call, FramePlan,
                               Prediction, Responses, ScoringContext, VideoMeta, VideoSpec, from_dict,
                               pct, round_half_up)

NAME = "videosimpleqa"
TITLE = "Video SimpleQA"
RELEASE_FILE = "VideoSimpleQA.json"
CATEGORY_FILE = "category_mapping.json"
ECE_BINS = 10

# Primary categories (Table 2 columns) and their paper sizes (spec §2.1).
PRIMARY = {"ENG": "Engineering", "NAT": "Nature", "SCI": "Science", "SAC": "Society & Culture"}
PAPER_CATEGORIES = {"ENG": 517, "NAT": 484, "SCI": 105, "SAC": 398}
PAPER_HOPS = {2: 928, 3: 469, 4: 107}
PAPER_VIDEOS = 1079

# Secondary and tertiary category names (spec §2.2), so a category mapping may label
# items at any level; the leaderboard breaks down by the primary category.
_FINER = {
    "NAT": "Geology & Landscapes; Fossils; Landscapes; Rocks & Minerals; Geomorphology; Volcanic Features; "
           "Coastal Landforms; Flora & Fauna; Animalia; Marine Organisms; Plantae; Fungi; Microorganisms; "
           "Endangered Species; Meteorology; Weather; Climate; Atmospheric Phenomena; Forecasting",
    "ENG": "Civil & Architecture; Architecture; Civil; Structural Engineering; Urban Planning; "
           "Mechanical & Electrical; Mechanical; Electrical; Mechatronics; Aerospace Engineering; "
           "Chemical & Process; Chemical; Process; Biochemical Engineering; Polymer Engineering; "
           "Environmental & Geophysical; Environmental; Geophysical; Hydrology; Climate Engineering",
    "SCI": "Physical sciences; Physics; Chemistry; Astronomy; Earth sciences; Materials Science; "
           "Atmospheric Science; Geophysics; Life sciences; Biology; Medicine; Ecology; Genetics; "
           "Neuroscience; Formal sciences; Mathematics; Computer Science; Statistics; Logic; "
           "Applied sciences; Technology; Robotics; Agricultural Science; Data Science",
    "SAC": "Arts & Recreation; Art; Literature; Music; Entertainment; Sports; Dance; Theatre; Film; "
           "Photography; Games; Beliefs & Institutions; Belief; Religion; Philosophy; Ethics; Politics; "
           "Flags; Government; Law; People; History & Heritage; History; Events; Places; Archaeology; "
           "Heritage Sites; Genealogy; Language & Material Culture; Language; Objects; Food; Clothing; "
           "Transportation; Instruments; Tools",
}


def _category_key(label: str) -> str:
    """Case, spacing and '&' vs 'and' do not matter when naming a category."""
    return " ".join(label.casefold().replace("&", " and ").split())


_CATEGORY_OF = {_category_key(name): abbrev
                for abbrev, names in _FINER.items() for name in names.split("; ")}
_CATEGORY_OF.update({_category_key(full): abbrev for abbrev, full in PRIMARY.items()})
_CATEGORY_OF.update({_category_key(abbrev): abbrev for abbrev in PRIMARY})


# -- records ----------------------------------------------------------------

@dataclass
class Question:
    id: str
    video: str  # opaque id; never the release's date (its Commons page names the answer)
    question: str  # the multi-hop question; "" when the release item has none (not scored)
    hops: int  # number of sub-questions in the release item
    category: str | None = None  # ENG / NAT / SCI / SAC, when the release has labels
    schema_version: int = SCHEMA_VERSION


@dataclass
class SubQuestion:
    question: str
    answer: str


@dataclass
class Answer:
    id: str
    answer: str  # gold of the multi-hop question ("" when the item is not scored)
    sub_questions: list[SubQuestion]  # hop 1..k in order; texts reveal earlier answers
    source: str | None = None  # the release's video key (its date): private, it names the answer
    release_index: int | None = None  # the item's index in the release's JSON list: maintainers only
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def from_json(cls, data: dict) -> "Answer":
        answer = from_dict(cls, data)
        answer.sub_questions = [from_dict(SubQuestion, s) for s in data.get("sub_questions", [])]
        return answer


def call_id(item: str) -> str:
    return f"{NAME}/{item}"


def hop_call_id(item: str, hop: int) -> str:
    """The worker-only call of sub-question `hop` (1-based)."""
    return f"{NAME}/{item}/hop{hop}"


def _usable(sub: SubQuestion) -> bool:
    return bool(sub.question and sub.answer)


# -- importer ---------------------------------------------------------------

_PAIR_KEY = re.compile(r"QA_Pair_(\d+)_(Question|Answer)")


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
        abbrev = _CATEGORY_OF.get(_category_key(label)) if isinstance(label, str) else None
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
    item_ids, video_ids = OpaqueIds(secret, "videosimpleqa:item"), OpaqueIds(secret, "videosimpleqa:video", "vsqa-")
    for index, record in enumerate(data):
        where = _Where(path, text, index)
        if not isinstance(record, dict):
            raise where.error("expected a JSON object")
        date = _date(record, where)
        subs = _sub_questions(record, where)
        question, gold = _text(record, "Multi_hop_Question", where), _text(record, "Multi_hop_Answer", where)
        if not (question and gold):
            question = gold = ""  # a data error (spec §8.1, item #597): no multi-hop question to score
        category = None
        if categories is not None and question:
            # The official key, built from the unstripped fields.
            category = categories.get(f"{record['date']}|{record['Multi_hop_Question']}")
            if category is None:
                raise where.error(f"no category for this item in {mapping_file} "
                                  f"(key 'date|Multi_hop_Question')")
        if date not in files_of_date:
            files_of_date[date] = str(find_video(root, f"{date}.mp4", f"{path}: item {index}"))
        video = video_ids(date)
        files[video] = files_of_date[date]
        item = item_ids(str(index))
        questions.append(Question(item, video, question, len(subs), category))
        answers.append(Answer(item, gold, subs, source=date, release_index=index))
    skipped = [a.release_index for a in answers if not a.answer]
    questions, answers = sort_by_id(questions, answers)
    notes = [f"{len(skipped)} item(s) without a multi-hop question or answer, not scored (release indices "
             f"{', '.join(map(str, skipped))}); their sub-questions are kept"] if skipped else []
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files, notes=notes)


# -- demo -------------------------------------------------------------------

@dataclass(frozen=True)
class _Step:
    """One hop of a synthetic chain: a question about the named answer {x} of the
    previous hop, the same relation as a noun phrase (nested into the multi-hop
    question), and the kind of answer it has."""

    ask: str
    phrase: str
    kind: str


# Per primary category: hop 1 (what the video shows), then two chains of three hops.
_THEMES: dict[str, tuple[_Step, list[list[_Step]]]] = {
    "ENG": (_Step("What is the name of the bridge shown in the video?",
                  "the bridge shown in the video", "bridge"), [
        [_Step("Which engineer designed {x}?", "the engineer who designed {x}", "person"),
         _Step("In which town was {x} born?", "the birthplace of {x}", "town"),
         _Step("In which year was {x} granted its charter?", "", "year")],
        [_Step("Which river does {x} cross?", "the river crossed by {x}", "river"),
         _Step("Into which lake does {x} flow?", "the lake that {x} flows into", "lake"),
         _Step("How deep is {x} at its deepest point, in metres?", "", "metres")]]),
    "NAT": (_Step("Which species of heron is shown in the video?",
                  "the heron species shown in the video", "heron"), [
        [_Step("On which island does {x} breed?", "the island where {x} breeds", "island"),
         _Step("Which country governs {x}?", "the country that governs {x}", "country"),
         _Step("In which year did {x} adopt its current flag?", "", "year")],
        [_Step("Which naturalist first described {x}?", "the naturalist who first described {x}", "person"),
         _Step("At which academy did {x} study?", "the academy where {x} studied", "academy"),
         _Step("In which year was {x} founded?", "", "year")]]),
    "SCI": (_Step("What is the name of the telescope shown in the video?",
                  "the telescope shown in the video", "telescope"), [
        [_Step("Which observatory operates {x}?", "the observatory that operates {x}", "observatory"),
         _Step("On which mountain is {x} built?", "the mountain on which {x} is built", "mountain"),
         _Step("How high is {x}, in metres?", "", "metres")],
        [_Step("Which comet was discovered with {x}?", "the comet discovered with {x}", "comet"),
         _Step("Which astronomer is {x} named after?", "the astronomer whom {x} is named after", "person"),
         _Step("In which year did {x} die?", "", "year")]]),
    "SAC": (_Step("Which festival is shown in the video?",
                  "the festival shown in the video", "festival"), [
        [_Step("In which town is {x} held?", "the town where {x} is held", "town"),
         _Step("Which river runs through {x}?", "the river that runs through {x}", "river"),
         _Step("How long is {x}, in kilometres?", "", "kilometres")],
        [_Step("Which composer founded {x}?", "the composer who founded {x}", "person"),
         _Step("Which opera did {x} write first?", "the first opera written by {x}", "opera"),
         _Step("In which year was {x} first staged?", "", "year")]]),
}
_SYLLABLES = ["ka", "lo", "mer", "vin", "ta", "sel", "dor", "ru", "fen", "al", "bri", "os", "nev", "quil",
              "har", "zo", "pel", "tum", "ash", "ri"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


_PREFIX = {"lake": "Lake ", "mountain": "Mount ", "comet": "Comet "}
_SUFFIX = {"bridge": " Bridge", "heron": " heron", "telescope": " Telescope", "festival": " Festival",
           "river": " River", "academy": " Academy", "observatory": " Observatory"}


def _fake_answer(kind: str, rng: random.Random) -> str:
    """A made-up answer of the given kind: names for entities, digits for quantities."""
    if kind == "year":
        return str(rng.randint(1200, 1960))
    if kind in ("metres", "kilometres"):
        return str(rng.randint(12, 4800))
    if kind == "person":
        return f"{_word(rng)} {_word(rng)}"
    return f"{_PREFIX.get(kind, '')}{_word(rng)}{_SUFFIX.get(kind, '')}"


def _chain_item(first: _Step, entity: str, chain: list[_Step], hops: int,
                rng: random.Random) -> tuple[str, str, list[SubQuestion]]:
    """(multi-hop question, gold, sub-questions) of a `hops`-hop chain from hop 1."""
    subs = [SubQuestion(first.ask, entity)]
    question, phrase = first.ask, first.phrase
    for step in chain[: hops - 1]:
        subs.append(SubQuestion(step.ask.format(x=subs[-1].answer), _fake_answer(step.kind, rng)))
        question = step.ask.format(x=phrase)
        phrase = step.phrase.format(x=phrase)
    return question, subs[-1].answer, subs


def _schedule(weights: dict, count: int, first: list) -> list:
    """`count` keys: `first` in order (coverage), then each next key the one furthest
    behind its share of `weights` (so large demos follow the paper's proportions)."""
    total = sum(weights.values())
    given = dict.fromkeys(weights, 0)
    out = []
    for i in range(count):
        key = first[i] if i < len(first) else max(
            weights, key=lambda k: weights[k] * (i + 1) / total - given[k])
        given[key] += 1
        out.append(key)
    return out


def demo(secret: Secret, size: int | None = None) -> BenchmarkData:
    """Synthetic items: hops 2, 3 and 4, all four primary categories, several items
    per video. `size` items (default 16); at size 1504 the hop, category and video
    counts follow the paper (928/469/107 hops, 1,079 videos). Every answer is drawn
    from the suite's secret (nothing public depends on that stream)."""
    size = 16 if size is None else max(1, size)
    rng = secret.rng("videosimpleqa-demo:answers")
    n_videos = max(1, min(size, round(size * PAPER_VIDEOS / 1504)))
    video_category = _schedule(PAPER_CATEGORIES, n_videos, list(PRIMARY))
    entities = [_fake_answer(_THEMES[c][0].kind, rng) for c in video_category]
    hops = _schedule(PAPER_HOPS, size, [2, 3, 4])
    questions, answers, specs, seen = [], [], {}, defaultdict(int)
    for i in range(size):
        v = i if i < n_videos else (i - n_videos) % n_videos  # later items reuse earlier videos
        video_id = f"vsqa-v{v:04d}"
        category = video_category[v]
        first, chains = _THEMES[category]
        chain = chains[(v + seen[v]) % len(chains)]  # items sharing a video take different chains
        seen[v] += 1
        question, gold, subs = _chain_item(first, entities[v], chain, hops[i], rng)
        item = f"vsqa-demo-{i:05d}"
        questions.append(Question(item, video_id, question, hops[i], category))
        answers.append(Answer(item, gold, subs))
        specs[video_id] = VideoSpec(seconds=2.0 + v % 3)
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)


# -- calls ------------------------------------------------------------------

def _call(cid: str, item: str, kind: str, question: str, meta: VideoMeta, plan: FramePlan) -> Call:
    prompt = prompts.render(NAME, "short", duration=meta.duration, frame_count=len(plan.times),
                            frame_times=prompts.frame_times_text(plan.times), question=question)
    return Call(cid, NAME, item, kind, prompt, "short", [plan])


def _plans(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> dict[str, FramePlan]:
    """One uniform frame plan per video, shared by every call about it."""
    return {v: frames.plan(videos[v], budgets.videosimpleqa) for v in {q.video for q in questions}}


def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """The public calls: one per multi-hop question (items without one have none)."""
    plans = _plans(questions, videos, budgets)
    return [_call(call_id(q.id), q.id, "multi-hop", q.question, videos[q.video], plans[q.video])
            for q in questions if q.question]


def hidden_calls(questions: list[Question], answers: list[Answer], videos: dict[str, VideoMeta],
                 budgets) -> list[Call]:
    """Worker-only calls: each sub-question alone, with the same frames. They reveal
    earlier hops' answers, so they live in the answer key, never in the suite."""
    plans = _plans(questions, videos, budgets)
    subs = {a.id: a.sub_questions for a in answers}
    return [_call(hop_call_id(q.id, j), q.id, f"hop{j}", sub.question, videos[q.video], plans[q.video])
            for q in questions for j, sub in enumerate(subs[q.id], 1) if _usable(sub)]


# -- scoring ----------------------------------------------------------------

def f_score(correct: int, not_attempted: int, total: int) -> float | None:
    """Harmonic mean of CO and CGA in closed form, 2c / (2N - n) (spec §5); None if N = 0."""
    return pct(2 * correct, 2 * total - not_attempted)


@dataclass
class Grades:
    """CORRECT / INCORRECT / NOT_ATTEMPTED counts of one group of answers."""

    correct: int = 0
    incorrect: int = 0
    not_attempted: int = 0

    @classmethod
    def of(cls, labels) -> "Grades":
        g = cls()
        for label in labels:
            g.correct += label == CORRECT
            g.incorrect += label == INCORRECT
            g.not_attempted += label == NOT_ATTEMPTED
        return g

    @property
    def n(self) -> int:
        return self.correct + self.incorrect + self.not_attempted

    def f_score(self) -> float | None:
        return f_score(self.correct, self.not_attempted, self.n)

    def cga(self) -> float | None:
        attempted = self.correct + self.incorrect
        return None if not self.n else (pct(self.correct, attempted) if attempted else 0.0)

    def summary(self) -> dict[str, float | None]:
        n = self.n
        return {"f_score": self.f_score(), "correct": pct(self.correct, n), "incorrect": pct(self.incorrect, n),
                "not_attempted": pct(self.not_attempted, n), "cga": self.cga()}


def _confidence(value: Any) -> float | None:
    """A stated confidence in 0-100, else None (such items stay out of calibration)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if 0.0 <= value <= 100.0 else None


def _read(pred: Prediction | None, tally: Tally) -> tuple[str | None, float | None]:
    """(answer, confidence) of one prediction; answer None (missing or empty) grades
    NOT_ATTEMPTED without a judge call.

    The prediction record's `confidence` wins over the one inside the response.
    """
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return None, None
    # Without JSON the extractor returns the raw text as the answer (as the official code).
    answer, stated = extract.extract_short_answer(pred.response)
    confidence = _confidence(pred.confidence if pred.confidence is not None else stated)
    if not answer or not answer.strip():
        tally.unparseable += 1  # nothing to read (empty, or only a reasoning block)
        return None, confidence
    return answer, confidence


def _judged(label: str, tally: Tally) -> str:
    """A judge label as a grade: anything unreadable counts as INCORRECT, and is counted."""
    if label in (CORRECT, INCORRECT, NOT_ATTEMPTED):
        return label
    tally.judge_unparseable += 1
    return INCORRECT


def _grade_all(questions: list[Question], gold: dict[str, Answer], responses: Responses,
               ctx: ScoringContext, tally: Tally) -> tuple[list[str], list[float | None], dict]:
    """Grades of the scored multi-hop items (in order) and, in worker runs, of every
    sub-question: {(item, hop): grade}. All answers go to the judge in ONE batch."""
    main: list[str] = []
    confidences: list[float | None] = []
    sub: dict[tuple[str, int], str] = {}
    requests: list[JudgeRequest] = []
    slots: list[tuple[Any, Any]] = []  # where each judgement goes: (container, key)

    def ask(store, key, question: str, target: str, answer: str | None) -> None:
        if answer is None:
            store[key] = NOT_ATTEMPTED  # nothing to grade: no judge call
        else:
            store[key] = None
            requests.append(JudgeRequest("simpleqa", question, target, answer))
            slots.append((store, key))

    for q in questions:
        if not q.question:
            continue
        answer, confidence = _read(responses.get(call_id(q.id)), tally)
        main.append(NOT_ATTEMPTED)
        confidences.append(confidence)
        ask(main, len(main) - 1, q.question, gold[q.id].answer, answer)
    if ctx.worker_run:
        for q in questions:
            for j, s in enumerate(gold[q.id].sub_questions, 1):
                if _usable(s):
                    answer, _ = _read(responses.get(hop_call_id(q.id, j)), tally)
                    ask(sub, (q.id, j), s.question, s.answer, answer)
    if requests:
        for (store, key), judgement in zip(slots, ctx.judge.judge(requests), strict=True):
            store[key] = _judged(judgement.label, tally)
    return main, confidences, sub


def expected_calibration_error(confidences: list[float | None],
                               grades: list[str]) -> tuple[float | None, int, list]:
    """ECE in percent over items with a confidence: 10 equal-width bins [0,10), ...,
    [90,100] (100 goes in the last), sum over bins of share x |accuracy - mean confidence|.
    Returns (ece, items used, per-bin rows for a reliability plot)."""
    pairs = [(c, g == CORRECT) for c, g in zip(confidences, grades) if c is not None]
    if not pairs:
        return None, 0, []
    conf = np.array([c for c, _ in pairs]) / 100.0
    right = np.array([r for _, r in pairs], dtype=np.float64)
    bins = np.minimum((conf * ECE_BINS).astype(np.int64), ECE_BINS - 1)
    count = np.bincount(bins, minlength=ECE_BINS)
    conf_sum = np.bincount(bins, conf, minlength=ECE_BINS)
    right_sum = np.bincount(bins, right, minlength=ECE_BINS)
    ece = round_half_up(float(100.0 * np.abs(right_sum - conf_sum).sum() / len(pairs)))
    rows = [{"bin": f"{10 * b}-{10 * (b + 1)}", "n": int(count[b]), "accuracy": pct(right_sum[b], count[b]),
             "confidence": pct(conf_sum[b], count[b])} for b in range(ECE_BINS) if count[b]]
    return ece, len(pairs), rows


def _by(keys: list, grades: list[str], order: list[str] | None = None) -> tuple[dict, dict]:
    """Summaries and item counts per group key (string keys, as JSON needs), in `order`
    first (e.g. the paper's column order), then sorted."""
    groups: dict[str, list[str]] = defaultdict(list)
    for key, grade in zip(keys, grades):
        groups[str(key)].append(grade)
    rank = {k: i for i, k in enumerate(order or [])}
    names = sorted(groups, key=lambda k: (rank.get(k, len(rank)), k))
    return {k: Grades.of(groups[k]).summary() for k in names}, {k: len(groups[k]) for k in names}


def _subqa_metrics(scored: list[Question], all_questions: list[Question], main: list[str],
                   sub: dict[tuple[str, int], str]) -> dict[str, Any]:
    """Per-hop F (subqa), and per hop count the F of each hop and of the multi-hop
    question on that subset (the paper's Tables 4 and 8)."""
    hop_grades: dict[str, list[str]] = defaultdict(list)
    per_count: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    hops_of = {q.id: q.hops for q in all_questions}
    for (item, j), grade in sub.items():
        hop_grades[f"hop{j}"].append(grade)
        per_count[str(hops_of[item])][f"hop{j}"].append(grade)
    for q, grade in zip(scored, main):
        per_count[str(q.hops)]["multi_hop"].append(grade)
    order = sorted(hop_grades, key=lambda h: int(h[3:]))
    return {
        "subqa": {h: Grades.of(hop_grades[h]).f_score() for h in order},
        "n_subqa": {h: len(hop_grades[h]) for h in order},
        "subqa_by_hop_count": {k: {h: Grades.of(g).f_score() for h, g in sorted(cells.items())}
                               for k, cells in sorted(per_count.items())},
        "n_subqa_by_hop_count": {k: {h: len(g) for h, g in sorted(cells.items())}
                                 for k, cells in sorted(per_count.items())},
    }


def _overall_from(sums: np.ndarray) -> np.ndarray:
    """F from per-video column sums [correct, not_attempted, items]: 100 * 2c / (2N - n)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * 2.0 * sums[:, 0] / (2.0 * sums[:, 2] - sums[:, 1])


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    """design §7 metrics over the items that have a multi-hop question (N); missing
    answers are NOT_ATTEMPTED, unreadable judge outputs INCORRECT, both counted."""
    gold = {a.id: a for a in answers}
    tally = Tally()
    main, confidences, sub = _grade_all(questions, gold, responses, ctx, tally)
    scored = [q for q in questions if q.question]  # same order as `main`
    summary = Grades.of(main).summary()
    ece, calibration_n, bins = expected_calibration_error(confidences, main)
    by_hop, n_by_hop = _by([q.hops for q in scored], main)
    metrics: dict[str, Any] = {
        "overall": summary.pop("f_score"),
        **summary,  # correct, incorrect, not_attempted, cga
        "ece": ece,
        "calibration_n": calibration_n,
        "by_hop": by_hop,
        "n_by_hop": n_by_hop,
    }
    if any(q.category for q in scored):
        categories = [q.category or "unlabelled" for q in scored]
        metrics["by_category"], metrics["n_by_category"] = _by(categories, main, list(PRIMARY))
    if ctx.worker_run:
        metrics.update(_subqa_metrics(scored, questions, main, sub))

    columns = [[g == CORRECT for g in main], [g == NOT_ATTEMPTED for g in main], [1] * len(main)]
    stats = per_video_stats([q.video for q in scored], columns)
    counts = tally.as_dict() | {"items": len(scored), "excluded_items": len(questions) - len(scored)}
    grades = {call_id(q.id): g for q, g in zip(scored, main)}
    grades.update({hop_call_id(item, j): g for (item, j), g in sub.items()})
    return BenchmarkScore(metrics, counts, stats, _overall_from,
                          details={"grades": grades, "calibration_bins": bins})
