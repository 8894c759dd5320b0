"""CausalStep's demo data: synthetic videos of one-second segments, with segment
counts spread like the paper's, every answer-dependent order drawn from the secret.
"""

from __future__ import annotations

import random

from evaluator.benchmarks.causalstep.records import CATEGORIES, MCQ, NAME, Answer, Question, Segment
from evaluator.benchmarks.causalstep.release import ordered
from evaluator.benchmarks.common import Secret
from evaluator.records import BenchmarkData, VideoSpec

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
    return ordered(question, [pattern.format(e) for e in events], golds.randrange(n), f"{NAME}:{key}", secret)


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
