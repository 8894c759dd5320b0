"""CausalStep: explicit stepwise causal reasoning over the segments of a video.

Spec: shared/specs/causalstep.md. Each video is cut into ordered segments S1..SN.
Every segment has a descriptive question (what S_i shows); every segment but the
first has a causal question (how S_i follows from S_(i-1)). All questions are
multiple choice, usually with 8 options, shown in one order fixed per question,
drawn from the suite's secret and published in the suite (labels A, B, ...; fewer
options, fewer letters).

Release schema (CausalStep has no public release; this is the layout we read)
-----------------------------------------------------------------------------
A folder holding `causalstep.json` (a JSON array of videos) or `causalstep.jsonl`
(one video object per line), and the video files. Each video object:

    {"video_id": "mgit-017",                 # letters, digits, '.', '_', '-'; unique
     "category": "Outdoor Sports",           # one of CATEGORIES (case and '&'/'and' ignored)
     "video_file": "videos/mgit-017.mp4",    # relative to the folder (also looked up in videos/, data/)
     "segments": [                           # in temporal order, not overlapping
        {"start": 0.0, "end": 41.5,          # seconds
         "descriptive": {"question": "...", "options": ["...", ...], "answer": 3},
         "causal": {...same shape...}},      # absent (or null) on the first segment only
        ...]}

`answer` is the 0-based index of the correct option in `options` as released, or
that option's exact text. Options must be 2-26 distinct non-empty strings.

Calls (public; ids `causalstep/<video_id>/s<i>/<kind>`, i is 1-based)
---------------------------------------------------------------------
- `desc` (every i): the descriptive question, frames of S_i only. It serves both
  the chain and DUA (its input is the same in both, spec §5.6).
- `causal-isolated` (i >= 2): the causal question, frames of S_i only, no history (ICRA).
- `causal-after-desc` (i >= 2) and `causal-after-causal` (i >= 3): the causal
  question in the chain, frames of S_(i-1) then S_i, the previous question's text
  and a `{previous_answer}` placeholder. `Call.context` names the call(s) whose
  answer fills it and maps each of their labels to its option text.

Prediction files answer in-context calls with the model's OWN previous answer: one
record per (call id, context label), for every distinct label the model gave to the
call(s) in `context.after`. `branch_table(calls, answer_fn)` produces exactly that
table from any model function; the built-in baselines use it.

Scoring (server-side replay of the stepwise protocol, spec §3.3, §5)
--------------------------------------------------------------------
Per video the chain starts at Q1 desc. A correct answer at S_(i-1) leads to the
causal question of S_i, answered with the in-context record whose context label is
the GOLD label of the question just answered (own and gold coincide there, because
it was answered correctly; records with other labels are never used). A wrong,
missing or unparseable answer breaks the chain: after a descriptive question the
next chain starts at the next segment's descriptive question; after a causal one
at the SAME segment's descriptive question ("prose", default) or the next
segment's ("algo"), per `ScoringOptions.causalstep_restart`. Points: a descriptive
start is worth 1; the k-th causal answer of a chain is worth k+1 ("algo", default:
Algorithm 1, a perfect video scores N(N+1)/2) or k ("prose": 1 + N(N-1)/2), per
`ScoringOptions.causalstep_points`.

Other choices (spec ambiguities): the context is the single previous question and
the chosen option's TEXT (Algorithm 1), not the whole chain; ICRA shows S_i only
(the metric's formal definition); each segment gets the same frame budget
(FrameBudgets.causalstep_segment), an in-context call twice that, in time order.

Metrics: overall = ws_norm = 100 * sum of scores / sum of perfect scores; csr,
amcl, mcl, rf (every wrong answer, the last question's included), ws (mean score
per video), dua, icra; by_category with the same plus ws_norm; by_chain_position:
accuracy of the answers given at chain position k (1 = a chain's descriptive start).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from evaluator import extract, frames, prompts
from evaluator.benchmarks.common import OpaqueIds, Secret, find_video, read_jsonl, require, sort_by_id
from evaluator.errors import ImportReleaseError
from evaluator.metrics import Tally, group_accuracy, ratio_pct, read_choice
from evaluator.records import (SCHEMA_VERSION, BenchmarkData, BenchmarkScore, Call, Context, FramePlan,
                               Prediction, Responses, ScoringContext, VideoMeta, VideoSpec, from_dict, pct, ratio)

NAME = "causalstep"
TITLE = "CausalStep"
CATEGORIES = ("Cartoons", "Movies & TV Shows", "Outdoor Sports", "Regular Sports", "Performances",
              "Documentaries")
RELEASE_JSON, RELEASE_JSONL = "causalstep.json", "causalstep.jsonl"
PLACEHOLDER = "{previous_answer}"
MAX_OPTIONS = 26  # one letter each

DESC, ISOLATED = "desc", "causal-isolated"
AFTER_DESC, AFTER_CAUSAL = "causal-after-desc", "causal-after-causal"
PREVIOUS, CURRENT = "previous segment", "current segment"

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _category_key(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower().replace("&", "and"))


_CATEGORY_BY_KEY = {_category_key(c): c for c in CATEGORIES}


# -- records ----------------------------------------------------------------

@dataclass
class MCQ:
    question: str
    options: list[str]  # in the question's fixed secret order

    @property
    def labels(self) -> list[str]:
        return prompts.letters(len(self.options))


@dataclass
class Segment:
    index: int  # 1-based, as in the paper's S_i
    start: float
    end: float
    desc: MCQ
    causal: MCQ | None = None  # None on the first segment

    @staticmethod
    def from_json(data: dict) -> "Segment":
        causal = data.get("causal")
        return Segment(data["index"], data["start"], data["end"], from_dict(MCQ, data["desc"]),
                       from_dict(MCQ, causal) if causal else None)


@dataclass
class Question:
    """One video with all its segment questions (public: no answers)."""

    id: str  # opaque: a keyed hash of the release's video_id
    video: str  # the suite's video id, opaque too
    category: str
    segments: list[Segment]
    schema_version: int = SCHEMA_VERSION

    @staticmethod
    def from_json(data: dict) -> "Question":
        question = from_dict(Question, data)
        question.segments = [Segment.from_json(s) for s in data["segments"]]
        return question


@dataclass
class Answer:
    id: str
    desc: list[str]  # gold label of each segment's descriptive question
    causal: list[str | None]  # gold label of each causal question; None for segment 1
    release_id: str | None = None  # the release's video_id: maintainers only
    schema_version: int = SCHEMA_VERSION


def call_id(item: str, segment: int, kind: str) -> str:
    return f"{NAME}/{item}/s{segment}/{kind}"


# -- import -----------------------------------------------------------------

def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the release layout documented in this module's docstring."""
    path, entries = _release_entries(Path(root))
    item_ids, video_ids = OpaqueIds(secret, "causalstep:item"), OpaqueIds(secret, "causalstep:video", f"{NAME}-")
    questions, answers, files, first_line = [], [], {}, {}
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
        files[question.video] = str(find_video(path.parent, require(record, "video_file", str, where), where))
        questions.append(question)
        answers.append(answer)
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
    if not _SAFE_ID.fullmatch(item):
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
        return _CATEGORY_BY_KEY[_category_key(name)]
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
    return _ordered(text, options, gold, f"{NAME}:{key}", secret)


def _ordered(question: str, options: list[str], gold: int, key: str, secret: Secret) -> tuple[MCQ, str]:
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


# -- demo -------------------------------------------------------------------

_ACTORS = ["runner", "cat", "chef", "dancer", "diver", "driver", "climber", "singer", "puppet", "keeper"]
_ACTIONS = ["picks up", "drops", "opens", "pushes", "throws", "catches", "hides", "repairs", "paints",
            "lifts", "follows", "waves at"]
_THINGS = ["the ball", "a box", "the door", "a rope", "the lamp", "a ladder", "the flag", "a basket",
           "the bicycle", "a drum"]
SEGMENT_SECONDS = 1.0  # demo segments: one second (8 frames at the demo's 8 fps)


def demo(secret: Secret, size: int | None = None) -> BenchmarkData:
    """Synthetic videos of one-second segments, one scene each.

    Default: 12 videos (2 per category, 2-5 segments each). `size` = a number of
    videos with the paper's segment statistics: 8.76 segments per video on average,
    min 2, max 51 (size=100 gives the paper's 100 videos and 876 segments). Option
    texts come from one stream of the secret, which of them is right from another.
    """
    texts = secret.rng(f"{NAME}-demo:texts")
    golds = secret.rng(f"{NAME}-demo:golds")
    lengths = [2 + k % 4 for k in range(12)] if size is None else _paper_lengths(texts, size)
    questions, answers, specs = [], [], {}
    for k, n in enumerate(lengths):
        item = f"demo-{k:03d}"
        actor = _ACTORS[k % len(_ACTORS)]
        segments, desc_gold, causal_gold = [], [], []
        for i in range(1, n + 1):
            few = (k + i) % 7 == 3  # some questions have fewer options: labels must follow
            desc, gold = _demo_mcq(texts, golds, secret, f"{item}:s{i}:desc",
                                   f"What does the {actor} do in this part?", f"The {actor} {{}}.", 6 if few else 8)
            causal, cgold = None, None
            if i > 1:
                causal, cgold = _demo_mcq(texts, golds, secret, f"{item}:s{i}:causal",
                                          f"Why does what the {actor} does here follow from the part before?",
                                          f"Because just before, the {actor} {{}}.", 8)
            start = (i - 1) * SEGMENT_SECONDS
            segments.append(Segment(i, start, start + SEGMENT_SECONDS, desc, causal))
            desc_gold.append(gold)
            causal_gold.append(cgold)
        video = f"{NAME}-{item}"
        questions.append(Question(item, video, CATEGORIES[k % len(CATEGORIES)], segments))
        answers.append(Answer(item, desc_gold, causal_gold))
        specs[video] = VideoSpec(seconds=n * SEGMENT_SECONDS, scenes=n)
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)


def _demo_mcq(texts: random.Random, golds: random.Random, secret: Secret, key: str, question: str,
              pattern: str, n: int) -> tuple[MCQ, str]:
    events = texts.sample([f"{a} {t}" for a in _ACTIONS for t in _THINGS], n)
    return _ordered(question, [pattern.format(e) for e in events], golds.randrange(n), f"{NAME}:{key}", secret)


def _paper_lengths(rng: random.Random, videos: int) -> list[int]:
    """Segment counts averaging 8.76, min 2, with one 51-segment video once there are 20+."""
    lengths = [rng.randint(2, 14) for _ in range(videos)]
    if videos >= 20:
        lengths[:2] = [51, 2]
    target = max(2 * videos, round(8.76 * videos))
    while sum(lengths) != target:
        k = rng.randrange(2 if videos >= 20 else 0, videos)
        step = 1 if sum(lengths) < target else -1
        if 2 <= lengths[k] + step <= 30:
            lengths[k] += step
    rng.shuffle(lengths)
    return lengths


# -- calls ------------------------------------------------------------------

def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    """Per segment, in order: desc, causal-isolated, causal-after-desc, causal-after-causal.

    A call answered in context always comes after the calls that supply its context.
    """
    calls = []
    for q in questions:
        meta = videos[q.video]
        plans = [frames.plan(meta, budgets.causalstep_segment, s.start, s.end, CURRENT) for s in q.segments]
        for s in q.segments:
            calls.append(_single_call(q, s, plans[s.index - 1], DESC))
            if s.causal is None:
                continue
            calls.append(_single_call(q, s, plans[s.index - 1], ISOLATED))
            before = q.segments[s.index - 2]
            pair = [replace(plans[s.index - 2], label=PREVIOUS), plans[s.index - 1]]
            calls.append(_context_call(q, s, pair, AFTER_DESC, before.desc, [call_id(q.id, before.index, DESC)]))
            if before.causal is not None:
                after = [call_id(q.id, before.index, AFTER_DESC)]
                if before.index > 2:  # the previous causal question has an in-chain variant of its own
                    after.append(call_id(q.id, before.index, AFTER_CAUSAL))
                calls.append(_context_call(q, s, pair, AFTER_CAUSAL, before.causal, after))
    return calls


def _fields(mcq: MCQ, plan: FramePlan, s: Segment) -> dict:
    labels = mcq.labels
    return dict(start=s.start, end=s.end, frame_count=len(plan.times),
                frame_times=prompts.frame_times_text(plan.times), question=mcq.question,
                options=prompts.lettered(mcq.options, labels), first=labels[0], last=labels[-1])


def _single_call(q: Question, s: Segment, plan: FramePlan, kind: str) -> Call:
    mcq = s.desc if kind == DESC else s.causal
    template = "desc" if kind == DESC else "causal_isolated"
    prompt = prompts.render(NAME, template, **_fields(mcq, plan, s))
    return Call(call_id(q.id, s.index, kind), NAME, _item(q, s, kind), kind, prompt, "choice", [plan],
                mcq.labels, mcq.options)


def _context_call(q: Question, s: Segment, pair: list[FramePlan], kind: str, previous: MCQ,
                  after: list[str]) -> Call:
    prev_plan, plan = pair
    prompt = prompts.render(
        NAME, "causal_in_context", **_fields(s.causal, plan, s),
        prev_start=prev_plan.start, prev_end=prev_plan.end, prev_count=len(prev_plan.times),
        prev_times=prompts.frame_times_text(prev_plan.times), previous_question=previous.question,
        previous_answer=PLACEHOLDER)
    context = Context(after, PLACEHOLDER, dict(zip(previous.labels, previous.options)))
    return Call(call_id(q.id, s.index, kind), NAME, _item(q, s, kind), kind, prompt, "choice", pair,
                s.causal.labels, s.causal.options, context)


def _item(q: Question, s: Segment, kind: str) -> str:
    """The scored question a call belongs to: every causal call of S_i shares one item."""
    return f"{q.id}/s{s.index}/{'desc' if kind == DESC else 'causal'}"


def branch_table(calls: Iterable[Call], answer_fn: Callable[[Call, str], str]) -> list[Prediction]:
    """Answer every CausalStep call the way a prediction file must (design §6).

    `answer_fn(call, prompt_text)` returns the model's raw response. Calls without
    context are answered once. A call in context is answered once per distinct
    label the model chose for the call(s) in `context.after` (read with
    extract_choice), with that option's text in place of the placeholder; a
    previous answer that cannot be read gives no variant (the chain breaks there).
    Other benchmarks' calls are skipped.
    """
    ours = {c.id: c for c in calls if c.benchmark == NAME}
    chosen: dict[str, list[str]] = {}  # call id -> distinct labels the model gave it
    table: list[Prediction] = []

    def answer(call: Call) -> None:
        if call.id in chosen:
            return
        if call.context is None:
            variants = [(None, call.prompt)]
        else:
            for dep in call.context.after:
                if dep in ours:
                    answer(ours[dep])  # no-op in call-list order; keeps any other order correct
            given = {label for dep in call.context.after for label in chosen.get(dep, [])}
            variants = [(label, call.prompt.replace(call.context.placeholder, text))
                        for label, text in call.context.choices.items() if label in given]
        labels: list[str] = []
        for label, prompt in variants:
            response = answer_fn(call, prompt)
            table.append(Prediction(call.id, response, context=label))
            picked = extract.extract_choice(response, call.labels, call.options)
            if picked is not None and picked not in labels:
                labels.append(picked)
        chosen[call.id] = labels

    for call in ours.values():
        answer(call)
    return table


# -- scoring ----------------------------------------------------------------

@dataclass
class VideoRun:
    """The replay of one video: chain statistics and the isolated accuracies."""

    category: str
    segments: int
    score: float = 0.0
    max_score: float = 0.0
    max_chain: int = 0
    wrong: int = 0
    desc_correct: int = 0
    causal_correct: int = 0  # isolated causal calls (ICRA)
    trace: list[tuple[int, str, bool]] = field(default_factory=list)  # (segment, "desc"|"causal", correct)
    positions: list[tuple[int, bool]] = field(default_factory=list)  # (chain position, correct)


def perfect_score(n: int, points: str) -> float:
    """A video's score when every answer is right: 1 + 2 + ... + N, or 1 + (1 + ... + N-1)."""
    return n * (n + 1) / 2 if points == "algo" else 1 + n * (n - 1) / 2


def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    gold = {a.id: a for a in answers}
    restart, points = ctx.options.causalstep_restart, ctx.options.causalstep_points
    tally = Tally()
    runs = [replay(q, gold[q.id], responses, restart, points, tally) for q in questions]

    summary = _summary(runs)
    metrics = {"overall": summary.pop("ws_norm"), **summary}
    by_category: dict[str, list[VideoRun]] = {}
    for run in runs:
        by_category.setdefault(run.category, []).append(run)
    present = [c for c in CATEGORIES if c in by_category]  # the paper's order
    metrics["by_category"] = {c: _summary(by_category[c]) for c in present}
    metrics["n_by_category"] = {c: len(by_category[c]) for c in present}
    steps = sorted(step for run in runs for step in run.positions)  # keys in position order
    by_position, n_position = group_accuracy((str(k), 1.0 if ok else 0.0) for k, ok in steps)
    metrics["by_chain_position"] = by_position
    metrics["n_by_chain_position"] = n_position

    stats = np.array([[r.score, r.max_score] for r in runs], dtype=np.float64).reshape(len(runs), 2)
    counts = tally.as_dict() | {
        "items": sum(2 * r.segments - 1 for r in runs),  # N descriptive + N-1 causal questions
        "videos": len(runs),
        "chain_steps": sum(len(r.trace) for r in runs),
    }
    details = {"restart": restart, "points": points,
               "traces": {q.id: r.trace for q, r in zip(questions, runs)}}
    return BenchmarkScore(metrics, counts, stats, lambda sums: ratio_pct(sums, 0, 1), details)


def replay(q: Question, a: Answer, responses: Responses, restart: str = "prose", points: str = "algo",
           tally: Tally | None = None) -> VideoRun:
    """Run the stepwise protocol on one video against the answer key (spec §5.8)."""
    tally = tally if tally is not None else Tally()
    n = len(q.segments)
    run = VideoRun(q.category, n, max_score=perfect_score(n, points))
    desc_ok = [_isolated_ok(q, s, DESC, a.desc[s.index - 1], responses, tally) for s in q.segments]
    run.desc_correct = sum(desc_ok)
    run.causal_correct = sum(_isolated_ok(q, s, ISOLATED, a.causal[s.index - 1], responses, tally)
                             for s in q.segments[1:])
    chain, i, step, previous = 0, 1, "desc", "desc"  # previous: the type answered right at S_(i-1)
    while i <= n:
        ok = desc_ok[i - 1] if step == "desc" else _in_chain_ok(q, a, i, previous, responses, tally)
        run.trace.append((i, step, ok))
        run.positions.append((chain + 1, ok))
        if ok:
            chain += 1
            run.max_chain = max(run.max_chain, chain)
            # A descriptive start is worth 1; the k-th causal link k+1 ("algo") or k ("prose").
            run.score += 1 if step == "desc" else (chain if points == "algo" else chain - 1)
            previous, step, i = step, "causal", i + 1
        else:
            run.wrong += 1
            chain = 0
            if step == "desc" or restart == "algo":
                i += 1
            step = "desc"
    return run


def _isolated_ok(q: Question, s: Segment, kind: str, gold: str, responses: Responses, tally: Tally) -> bool:
    mcq = s.desc if kind == DESC else s.causal
    return read_choice(responses.get(call_id(q.id, s.index, kind)), mcq.labels, mcq.options, tally) == gold


def _in_chain_ok(q: Question, a: Answer, i: int, previous: str, responses: Responses, tally: Tally) -> bool:
    """The causal answer of S_i given a correct answer at S_(i-1): its context label is that gold label."""
    if previous == "desc":
        cid, context = call_id(q.id, i, AFTER_DESC), a.desc[i - 2]
    else:
        cid, context = call_id(q.id, i, AFTER_CAUSAL), a.causal[i - 2]
    mcq = q.segments[i - 1].causal
    return read_choice(responses.in_context(cid, context), mcq.labels, mcq.options, tally) == a.causal[i - 1]


def _summary(runs: list[VideoRun]) -> dict:
    """The chain metrics over videos and the isolated accuracies over their questions."""
    v = len(runs)
    if not v:
        return dict.fromkeys(("ws_norm", "csr", "amcl", "mcl", "rf", "ws", "dua", "icra"))
    return {
        "ws_norm": pct(sum(r.score for r in runs), sum(r.max_score for r in runs)),
        "csr": pct(sum(r.wrong == 0 for r in runs), v),
        "amcl": ratio(sum(r.max_chain for r in runs), v),
        "mcl": max(r.max_chain for r in runs),
        "rf": ratio(sum(r.wrong for r in runs), v),
        "ws": ratio(sum(r.score for r in runs), v),
        "dua": pct(sum(r.desc_correct for r in runs), sum(r.segments for r in runs)),
        "icra": pct(sum(r.causal_correct for r in runs), sum(r.segments - 1 for r in runs)),
    }
