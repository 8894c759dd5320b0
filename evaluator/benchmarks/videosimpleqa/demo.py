"""Video SimpleQA's demo data: synthetic multi-hop questions with made-up names,
spread over the paper's categories and hop counts.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from evaluator.benchmarks.common import Secret
from evaluator.benchmarks.videosimpleqa.records import (
    NAME,
    PAPER_CATEGORIES,
    PAPER_HOPS,
    PAPER_VIDEOS,
    PRIMARY,
    Answer,
    Question,
    SubQuestion,
)
from evaluator.records import BenchmarkData, VideoSpec


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
