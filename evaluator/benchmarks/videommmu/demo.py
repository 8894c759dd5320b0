"""Video-MMMU's demo data: synthetic items over the paper's disciplines and option
counts, every answer-dependent arrangement drawn from the secret.
"""

from __future__ import annotations

import math
import random

from evaluator import prompts
from evaluator.benchmarks.common import OpaqueIds, Secret, sort_by_id
from evaluator.benchmarks.videommmu.records import (
    DISCIPLINE_SUBJECTS,
    DISCIPLINES,
    MCQ,
    NAME,
    OPEN,
    PAPER_VIDEOS,
    TRACKS,
    Question,
    make_answer,
)
from evaluator.records import BenchmarkData, VideoSpec

_PREFIXES = ("validation", "test", "dev", "new")
# Option counts cycled over the demo's multiple-choice items: mostly 10 as in the
# release, some 2 to 14 (letters past J).
_OPTION_COUNTS = (10, 4, 10, 14, 10, 6, 10, 12, 10, 5, 10, 2, 10, 11, 10, 3)
PHRASES = ("marginal cost", "negative feedback", "isosceles triangle", "baroque style",
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
                [], golds.choice(PHRASES))
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
