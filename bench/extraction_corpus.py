"""Multiple-choice answer extraction over the committed corpus
(tests/data/extraction_corpus/*.jsonl, about 1,200 generated responses per benchmark,
plus "heldout": 525 responses hand-written by a tester who had not seen the extractor,
the honest figure of the lot).

Prints per benchmark, measured in this run:
  responses, correct, wrong (must be 0), unscored rate   for extract_choice
  baseline wrong / unscored                               for a naive reader: the last
                                                          capital letter (or digit) that is a label
  speed ratio                                             extract_choice time / baseline time

A response labelled "no answer" that is read as a label counts as wrong.

Usage: python bench/extraction_corpus.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.answers import extract_choice  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "extraction_corpus"
BENCHMARKS = ("exact", "videommmu", "expvid", "causalstep", "heldout")
_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9])([A-Z]|[0-9]{1,2})(?![A-Za-z0-9])")


def naive_choice(text: str, labels, options=None) -> str | None:
    """The baseline: the last standalone capital letter or number that is a label."""
    found = None
    for m in _TOKEN_RE.finditer(text):
        if m.group(1) in labels:
            found = m.group(1)
    return found


def tally(rows: list[dict], reader) -> tuple[int, int, int]:
    """(correct, wrong, unscored) of `reader` over the rows."""
    correct = wrong = unscored = 0
    for r in rows:
        got = reader(r["text"], r["labels"], r["options"])
        if got == r["intended"]:
            correct += 1
        elif got is None:
            unscored += 1
        else:
            wrong += 1
    return correct, wrong, unscored


def best_time(rows: list[dict], reader, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for r in rows:
            reader(r["text"], r["labels"], r["options"])
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"{'benchmark':<11} {'responses':>9} {'correct':>7} {'wrong':>5} {'unscored':>8} "
          f"{'base wrong':>10} {'base unscored':>13} {'us/resp':>7} {'time ratio':>10}")
    failed = False
    for bench in BENCHMARKS:
        with open(CORPUS / f"{bench}.jsonl", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        correct, wrong, unscored = tally(rows, extract_choice)
        _, base_wrong, base_unscored = tally(rows, naive_choice)
        ours = best_time(rows, extract_choice, args.repeats)
        base = best_time(rows, naive_choice, args.repeats)
        n = len(rows)
        print(f"{bench:<11} {n:>9} {correct:>7} {wrong:>5} {unscored / n:>8.1%} "
              f"{base_wrong:>10} {base_unscored / n:>13.1%} {1e6 * ours / n:>7.1f} {ours / base:>9.1f}x")
        failed = failed or wrong > 0
    print("wrong options must be 0" + (": FAILED" if failed else ": ok"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
