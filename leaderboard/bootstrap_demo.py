"""First start of the embedded default: build the demo suite and score the
built-in baselines, so a newcomer sees a working leaderboard at once."""

from __future__ import annotations

from pathlib import Path

from evaluator.baselines import BASELINES, predictions
from evaluator.demo import build_demo_suite
from evaluator.judges import get_judge
from evaluator.predictions import write_predictions
from evaluator.records import ScoringOptions
from evaluator.result import Result
from evaluator.scoring import score_file
from evaluator.suite import load_answers, load_suite


def ensure_demo_results(home: Path) -> list[Result]:
    demo_dir = home / "demo"
    results_dir = home / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    if not (demo_dir / "suite" / "suite.json").is_file():
        build_demo_suite(demo_dir)
    suite = load_suite(demo_dir / "suite")
    key = load_answers(demo_dir / "answers", suite)
    judge = get_judge("normalized-match")
    out = []
    for name in BASELINES:
        path = results_dir / f"baseline-{name}-{suite.id}.json"
        if not path.is_file():
            preds_path = demo_dir / f"baseline-{name}.jsonl"
            write_predictions(preds_path, predictions(name, suite.calls))
            result = score_file(suite, key, preds_path, judge, ScoringOptions(), max_bytes=1 << 30,
                                submission={"id": f"baseline-{name}", "model": f"baseline: {name}",
                                            "kind": "baseline"})
            result.write(path)
        out.append(Result.read(path))
    return out
