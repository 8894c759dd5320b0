"""How well a judge agrees with the papers' grading rules, on labelled sets written from
those rules by a tester who never saw the judge (tests/data/judge_labels/):

    videosimpleqa.jsonl    question, gold, the model's raw response, the grade the paper's
                           rules give (CORRECT / INCORRECT / NOT_ATTEMPTED)
    expvid_blanks.jsonl    a level-3 statement, one blank's reference filler and a model's
                           filler, correct or incorrect

Each Video SimpleQA response goes the way the scorer takes it (its answer read out of the
reply, then the judge); each blank straight to the judge. Prints per judged benchmark:
items, accuracy over every item (an abstention counts as a miss), the abstention rate,
Cohen's kappa over the items the judge did not abstain on, the share of wrong answers
graded CORRECT, and the confusion matrix; the same for a plain baseline measured in this
run (case-insensitive exact match of the answer), with kappa as a ratio against it.

Goals for the offline matcher (normalized-match): kappa >= 0.8 where it does not abstain,
abstaining on at most 25%, and at most 1% of wrong answers graded CORRECT.

    python bench/judge_agreement.py                                 # the offline matcher
    python bench/judge_agreement.py --judge llm:microsoft/Phi-3-mini-4k-instruct
    LEADERBOARD_JUDGE_BASE_URL=https://api.openai.com/v1 LEADERBOARD_JUDGE_API_KEY=... \
        python bench/judge_agreement.py --judge openai:gpt-4o-2024-08-06     # a hosted judge
    HF_TOKEN=... python bench/judge_agreement.py --judge hf:Qwen/Qwen2.5-72B-Instruct:together
    python bench/judge_agreement.py --json FILE                     # also write the figures
    python bench/judge_agreement.py --labels DIR --record           # publish them (About tab)

Labelled sets, each written by a tester who never saw the matcher: judge_labels (the
first, tuned against), judge_labels_holdout, judge_labels_final, judge_labels_final2,
judge_labels_fresh, judge_labels_fresh2, judge_labels_fresh3 and judge_labels_fresh4 (each
measured once untouched, then tuned against: their first figures are in docs/judges.md), and
judge_labels_fresh5 (Video SimpleQA only, the newest, not tuned against).
`--record` writes the figures into
docs/judge_agreement.json under the judge's name and the set's folder, which the site's
About tab shows for the judges a suite uses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.benchmarks.videosimpleqa.answers import extract_short_answer  # noqa: E402
from evaluator.judges import get_judge  # noqa: E402
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, UNSCORED, JudgeRequest  # noqa: E402
from space_config import get_settings  # noqa: E402

LABELS = ROOT / "tests" / "data" / "judge_labels"
RECORD = ROOT / "docs" / "judge_agreement.json"
GOALS = {"kappa": 0.8, "abstain": 0.25, "wrong_as_correct": 0.01}


@dataclass(frozen=True)
class Item:
    request: JudgeRequest | None  # None: the reply has no answer to judge (NOT_ATTEMPTED)
    truth: str


def load(benchmark: str, folder: Path = LABELS) -> list[Item]:
    rows = [json.loads(line) for line in (folder / f"{benchmark}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    if benchmark == "videosimpleqa":
        out = []
        for r in rows:
            answer, _ = extract_short_answer(r["response"])
            request = JudgeRequest("simpleqa", r["question"], r["gold"], answer) if answer.strip() else None
            out.append(Item(request, r["grade"]))
        return out
    return [Item(JudgeRequest("blank", r["statement"], r["gold"], r["prediction"]),
                 CORRECT if r["grade"] == "correct" else INCORRECT) for r in rows]


def grades(judge, items: list[Item]) -> list[str]:
    asked = [i.request for i in items if i.request is not None]
    judged = iter(judge.judge(asked)) if asked else iter(())
    return [next(judged).label if i.request is not None else NOT_ATTEMPTED for i in items]


def kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (truth, grade) pairs; None when undefined."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(t == g for t, g in pairs) / n
    truth, graded = Counter(t for t, _ in pairs), Counter(g for _, g in pairs)
    expected = sum(truth[k] * graded[k] for k in truth) / (n * n)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def figures(truths: list[str], given: list[str]) -> dict:
    n = len(truths)
    kept = [(t, g) for t, g in zip(truths, given) if g != UNSCORED]
    wrong = [g for t, g in zip(truths, given) if t != CORRECT]
    return {"items": n, "accuracy": sum(t == g for t, g in zip(truths, given)) / n,
            "abstain": (n - len(kept)) / n, "kappa": kappa(kept),
            "wrong_as_correct": sum(g == CORRECT for g in wrong) / len(wrong) if wrong else 0.0,
            "confusion": {t: dict(Counter(g for tt, g in zip(truths, given) if tt == t)) for t in sorted(set(truths))}}


class ExactMatch:
    """The baseline: CORRECT when the answer equals the gold, case and spaces aside."""

    judge_id, kind = "exact-match", "baseline"

    def judge(self, requests):
        from evaluator.judges.base import Judgement

        same = [" ".join(r.prediction.split()).casefold() == " ".join(r.gold.split()).casefold() for r in requests]
        return [Judgement(CORRECT if s else INCORRECT, self.judge_id) for s in same]


def report(name: str, judge_id: str, ours: dict, base: dict) -> bool:
    k, bk = ours["kappa"], base["kappa"]
    ratio = f"{k / bk:.2f}x the baseline's" if k is not None and bk else "n/a"
    print(f"{name}: {ours['items']} labelled items, judge {judge_id}")
    print(f"  accuracy {ours['accuracy']:.3f}   kappa (not abstained) {k if k is None else round(k, 3)}   "
          f"abstained {ours['abstain']:.1%}   wrong graded CORRECT {ours['wrong_as_correct']:.1%}")
    print(f"  baseline (exact match): accuracy {base['accuracy']:.3f}   kappa {bk if bk is None else round(bk, 3)}"
          f"   -> kappa {ratio}")
    for truth, row in ours["confusion"].items():
        print(f"    labelled {truth:<14} graded " + ", ".join(f"{g} {c}" for g, c in sorted(row.items())))
    met = (k is not None and k >= GOALS["kappa"] and ours["abstain"] <= GOALS["abstain"]
           and ours["wrong_as_correct"] <= GOALS["wrong_as_correct"])
    print(f"  goals (kappa >= {GOALS['kappa']}, abstain <= {GOALS['abstain']:.0%}, wrong graded CORRECT <= "
          f"{GOALS['wrong_as_correct']:.0%}): {'met' if met else 'NOT met'}")
    return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judge", default="normalized-match", help="a judge name (evaluator.judges.get_judge)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--labels", type=Path, default=LABELS, help="the labelled sets' folder")
    ap.add_argument("--record", action="store_true", help=f"write the figures into {RECORD.relative_to(ROOT)}")
    args = ap.parse_args()
    judge = get_judge(args.judge, **get_settings().judges.options(args.judge))  # a remote judge's endpoint and key
    out, met = {}, True
    for name in ("videosimpleqa", "expvid_blanks"):
        if not (args.labels / f"{name}.jsonl").exists():
            continue  # a set may label one benchmark only
        items = load(name, args.labels)
        truths = [i.truth for i in items]
        ours, base = figures(truths, grades(judge, items)), figures(truths, grades(ExactMatch(), items))
        met = report(name, judge.judge_id, ours, base) and met
        out[name] = {"judge": judge.judge_id, **ours, "baseline_kappa": base["kappa"]}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    if args.record:
        record(args.judge, judge.judge_id, args.labels.name, out)
    return 0 if met or args.judge != "normalized-match" else 1


def record(name: str, judge_id: str, labels: str, figures: dict) -> None:
    """Keep `figures` in docs/judge_agreement.json: judge name -> labelled set -> benchmark."""
    recorded = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    entry = recorded.setdefault(name, {"judge_id": judge_id, "sets": {}})
    if entry.get("judge_id") != judge_id:  # a new version of the judge: its old figures no longer hold
        entry.update({"judge_id": judge_id, "sets": {}})
    keep = ("items", "accuracy", "abstain", "kappa", "wrong_as_correct", "baseline_kappa")
    entry["sets"][labels] = {bench: {k: round(v, 4) if isinstance(v, float) else v for k, v in f.items() if k in keep}
                             for bench, f in figures.items()}
    RECORD.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
