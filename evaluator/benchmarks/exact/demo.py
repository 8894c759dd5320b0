"""ExAct's demo data: synthetic coach comments and distractors over the activities.
"""

from __future__ import annotations

from evaluator.benchmarks.common import Secret
from evaluator.benchmarks.exact.records import NAME, make_item
from evaluator.records import BenchmarkData, VideoSpec

_DEMO_ACTIVITIES = ["basketball", "soccer", "bouldering", "bike", "cooking", "covid-safety", "cpr",
                    "guitar", "piano", "violin", "dance"]
_BODY = ["elbow", "wrist", "knee", "shoulder", "grip", "stance", "posture", "rhythm"]
_VERB = ["keeps", "extends", "relaxes", "bends", "tightens", "lifts", "drops", "steadies"]


def demo(secret: Secret, size: int | None = None) -> BenchmarkData:
    """Synthetic items covering all 11 activities, 6 domains and both categories
    (2 per activity by default; `size` items for scale tests). Statements come from
    one stream of the secret, which of them is the coach's from another."""
    texts = secret.rng(f"{NAME}-demo:texts")
    golds = secret.rng(f"{NAME}-demo:golds")
    pairs = [(verb, part) for verb in _VERB for part in _BODY]
    per_activity = 2 if size is None else -(-size // len(_DEMO_ACTIVITIES))
    questions, answers, specs = [], [], {}
    for k in range(per_activity):
        for activity in _DEMO_ACTIVITIES:
            if size is not None and len(questions) >= size:
                break
            n = len(questions)
            item_id = f"{NAME}-demo-{n:04d}"
            video_id = f"{NAME}-{n:05d}"
            statements = [f"The participant {verb} the {part} during the {activity} drill."
                          for verb, part in texts.sample(pairs, 5)]
            truth = statements.pop(golds.randrange(5))
            q, a = make_item(item_id, video_id, activity, k % 2 == 0, f"{activity} drill", truth, statements, secret)
            questions.append(q)
            answers.append(a)
            specs[video_id] = VideoSpec(seconds=2.0 + (n % 3))
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)
