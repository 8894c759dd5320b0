"""ExAct: pick the expert coach's feedback on a short clip of a skilled activity.

Spec: shared/specs/exact.md. Five options per item (the coach's comment and four
distractors), shown in one order fixed per item, drawn from the suite's secret
(so the order, published in the suite, says nothing about where the comment is). Scores: micro accuracy over all items, over Good Execution and Tips
items, by domain (6) and by activity (11).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from evaluator import frames, prompts
from evaluator.benchmarks.common import OpaqueIds, Secret, find_video, read_jsonl, require, sort_by_id
from evaluator.errors import ImportReleaseError
from evaluator.metrics import Tally, group_accuracy, per_video_stats, ratio_pct, read_choice
from evaluator.records import (SCHEMA_VERSION, BenchmarkData, BenchmarkScore, Call, Responses,
                               ScoringContext, VideoMeta, VideoSpec, pct)

NAME = "exact"
TITLE = "ExAct"
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
    return f"exact/{item}"


def _item(item_id: str, video: str, activity: str, is_ge: bool, task: str, truth: str,
          distractors: list[str], secret: Secret, release_id: str | None = None) -> tuple[Question, Answer]:
    pool = [truth, *distractors]
    order = secret.permutation(f"exact:{item_id}:order", len(pool))
    options = [pool[i] for i in order]
    label = LABELS[order.index(0)]
    question = Question(item_id, video, activity, ACTIVITY_DOMAIN[activity], CATEGORIES[is_ge], task, options)
    return question, Answer(item_id, label, release_id)


def _metadata_file(root: Path) -> Path:
    meta = root / "metadata.jsonl"
    if not meta.is_file() and (root / "data" / "metadata.jsonl").is_file():
        meta = root / "data" / "metadata.jsonl"
    return meta


def _unmapped_error(meta: Path, unmapped: dict[str, list]) -> ImportReleaseError:
    """Every activity spelling that maps to none of the 11, at once, with counts."""
    lines = [f"  '{value}': {len(wheres)} item(s), first at {wheres[0]}" for value, wheres in unmapped.items()]
    return ImportReleaseError(
        f"{meta}: field 'domain': {len(unmapped)} value(s) name none of the 11 activities "
        f"({', '.join(ACTIVITY_DOMAIN)}):\n" + "\n".join(lines) +
        "\nadd the spelling to ACTIVITY_ALIASES in evaluator/benchmarks/exact.py if it is one of them")


def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the official layout: metadata.jsonl (one object per item) and one .mp4 per item.
    Item and video ids are opaque (the release's name the Ego-Exo4D take and time)."""
    meta = _metadata_file(Path(root))
    item_ids, video_ids = OpaqueIds(secret, "exact:item"), OpaqueIds(secret, "exact:video", "exact-")
    questions, answers, files, unmapped, spellings = [], [], {}, {}, Counter()
    for n, rec in read_jsonl(meta):
        where = f"{meta}:{n}"
        raw = require(rec, "domain", str, where)
        activity = normalise_activity(raw)
        negatives = require(rec, "negative_comments", list, where)
        if len(negatives) != 4 or not all(isinstance(x, str) for x in negatives):
            raise ImportReleaseError(f"{where}: 'negative_comments' must be a list of 4 strings")
        file_name = require(rec, "file_name", str, where)
        truth, is_ge = require(rec, "groundTruth", str, where), bool(require(rec, "is_ge", bool, where))
        if activity is None:
            unmapped.setdefault(raw, []).append(where)
            continue
        spellings[(raw, activity)] += 1
        release_id = str(rec.get("id") or Path(file_name).stem)
        item_id, video_id = item_ids(release_id), video_ids(file_name)
        q, a = _item(item_id, video_id, activity, is_ge, str(rec.get("task_name", "")), truth, negatives,
                     secret, release_id)
        questions.append(q)
        answers.append(a)
        files[video_id] = str(find_video(meta.parent, file_name, where))
    if unmapped:
        raise _unmapped_error(meta, unmapped)
    if not questions:
        raise ImportReleaseError(f"{meta}: no items")
    questions, answers = sort_by_id(questions, answers)
    notes = [f"activity '{raw}' read as {activity}: {count} item(s)"
             for (raw, activity), count in sorted(spellings.items()) if raw != activity]
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files, notes=notes)


# -- demo -------------------------------------------------------------------

_DEMO_ACTIVITIES = ["basketball", "soccer", "bouldering", "bike", "cooking", "covid-safety", "cpr",
                    "guitar", "piano", "violin", "dance"]
_BODY = ["elbow", "wrist", "knee", "shoulder", "grip", "stance", "posture", "rhythm"]
_VERB = ["keeps", "extends", "relaxes", "bends", "tightens", "lifts", "drops", "steadies"]


def demo(secret: Secret, size: int | None = None) -> BenchmarkData:
    """Synthetic items covering all 11 activities, 6 domains and both categories
    (2 per activity by default; `size` items for scale tests). Statements come from
    one stream of the secret, which of them is the coach's from another."""
    texts = secret.rng("exact-demo:texts")
    golds = secret.rng("exact-demo:golds")
    pairs = [(verb, part) for verb in _VERB for part in _BODY]
    per_activity = 2 if size is None else -(-size // len(_DEMO_ACTIVITIES))
    questions, answers, specs = [], [], {}
    for k in range(per_activity):
        for activity in _DEMO_ACTIVITIES:
            if size is not None and len(questions) >= size:
                break
            n = len(questions)
            item_id = f"exact-demo-{n:04d}"
            video_id = f"exact-{n:05d}"
            statements = [f"The participant {verb} the {part} during the {activity} drill."
                          for verb, part in texts.sample(pairs, 5)]
            truth = statements.pop(golds.randrange(5))
            q, a = _item(item_id, video_id, activity, k % 2 == 0, f"{activity} drill", truth, statements, secret)
            questions.append(q)
            answers.append(a)
            specs[video_id] = VideoSpec(seconds=2.0 + (n % 3))
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)


# -- calls ------------------------------------------------------------------

def build_calls(questions: list[Question], videos: dict[str, VideoMeta], budgets) -> list[Call]:
    calls = []
    for q in questions:
        meta = videos[q.video]
        plan = frames.plan(meta, budgets.exact)
        prompt = prompts.render(
            NAME, "mcq", duration=meta.duration, frame_count=len(plan.times),
            frame_times=prompts.frame_times_text(plan.times), activity=q.task_name or q.activity,
            options=prompts.lettered(q.options, LABELS, sep=". "))
        calls.append(Call(call_id(q.id), NAME, q.id, "mcq", prompt, "choice", [plan], LABELS, q.options))
    return calls


# -- scoring ----------------------------------------------------------------

def score(questions: list[Question], answers: list[Answer], responses: Responses,
          ctx: ScoringContext) -> BenchmarkScore:
    gold = {a.id: a.label for a in answers}
    tally = Tally()
    correct = []
    for q in questions:
        chosen = read_choice(responses.get(call_id(q.id)), LABELS, q.options, tally)
        correct.append(1.0 if chosen == gold[q.id] else 0.0)

    by_domain, n_domain = group_accuracy(zip((q.domain for q in questions), correct))
    by_activity, n_activity = group_accuracy(zip((q.activity for q in questions), correct))
    by_category, n_category = group_accuracy(zip((q.category for q in questions), correct))
    metrics = {
        "overall": pct(sum(correct), len(correct)),
        "good_execution": by_category.get("good_execution"),
        "tips": by_category.get("tips"),
        "by_domain": by_domain,
        "by_activity": by_activity,
        "n_by_domain": n_domain,
        "n_by_activity": n_activity,
        "n_by_category": n_category,  # good_execution and tips
    }
    stats = per_video_stats([q.video for q in questions], [correct, [1.0] * len(correct)])
    return BenchmarkScore(metrics, tally.as_dict() | {"items": len(questions)}, stats,
                          lambda sums: ratio_pct(sums, 0, 1))
