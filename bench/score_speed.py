"""Scoring speed at the papers' full sizes (about 15,600 items over the five benchmarks).

Prints, measured in this run (medians of --repeats), each as CPU time of this process (what
the work costs, whatever else the machine runs) and as wall-clock time:
  parse        merely json-parsing every line of the prediction file (the baseline)
  score        validating the file and scoring it (normalized-match judge) with the 95%
               intervals (1,000 video resamples per benchmark), as the worker does
               (goal: at most 4x parse); once in a process whose caches are cold (the
               resample weights of a suite are drawn on its first scoring, then reused),
               then as every later submission on the same suite
  no intervals the same without the intervals, for comparison
  demo         building the demo suite with its real video files (target: under a minute)

and where the score time goes, in further runs interleaved with the others: the main
thread's CPU time by part, sampled every few milliseconds (SIGPROF; each sample charged to
the part its Python stack is in, the innermost one; C time to where the interpreter next
looks at signals, nearly always the same part), and the other threads' CPU time (BLAS):
  validation      reading and checking the prediction file (evaluator/predictions.py)
  answer reading  the readers: evaluator/answers/ (extract_choice, extract_number, the
                  cut-off reasoning check) and each benchmark's answers.py / blanks.py
  judge           the judge (here the offline matcher, evaluator/judges/)
  scorer          the benchmarks' score() less the above: lookups, tallies, breakdowns
  intervals       evaluator/bootstrap.py (the resampled 95% intervals)
  other           score_responses' own bookkeeping, the harness
  BLAS and other threads   OpenBLAS would spin its idle threads for about 0.1 s after a
                  threaded product (ExpVid's interval: its statistics are not whole
                  numbers); evaluator/__init__.py sets their wait to the shortest
  all but answer reading   the parts above less the reading: what scoring would cost if
                  reading the answers took no time
and a floor: parsing the file plus a minimal pure-Python pass that touches each response
once (one regex search of its text, one dict per response), the work no Python scorer
can avoid, as a ratio to parse.

The figure is the CPU-time ratio score / parse: on a shared machine the wall-clock ratio
also counts the time other processes take from this one, unevenly between a 50 ms baseline
and a scoring fifteen times longer (one version of the code gave 10x to 38x in wall clock
under load, 20x to 22x in CPU time), so it is printed beside it only.

Usage: python bench/score_speed.py [--scale 1.0] [--repeats 5] [--no-profile]
Exit status 1 if the scoring ratio (CPU time) misses the goal.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import re
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from itertools import chain
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluator import benchmarks, bootstrap  # noqa: E402
from evaluator.answers import options as answer_options  # noqa: E402
from evaluator.baselines import predictions  # noqa: E402
from evaluator.demo import build_demo_suite, synthetic_suite  # noqa: E402
from evaluator.judges import quantities, wording  # noqa: E402
from evaluator.judges.normalized import NormalizedMatchJudge  # noqa: E402
from evaluator.predictions import read_predictions, write_predictions  # noqa: E402
from evaluator.records import Prediction  # noqa: E402
from evaluator.scoring import score_responses  # noqa: E402
from evaluator.suite import load_answers, load_suite  # noqa: E402

REASONING = ("Looking at the frames, the person first picks up the tool, then adjusts the setting. "
             "Several options mention similar steps, so I compare them with what is visible: the second "
             "and third statements describe actions that never happen in the clip, while the remaining ones "
             "differ in a detail. Taking the motion in the last frames into account, ")


def realistic(preds: list[Prediction], seed: int = 0) -> list[Prediction]:
    """Baseline answers dressed like real outputs: reasoning first, answer last."""
    rng = random.Random(seed)
    out = []
    for p in preds:
        if p.response.startswith("{"):
            out.append(p)  # Video SimpleQA answers are JSON already
            continue
        text = REASONING[: rng.randint(80, len(REASONING))] + f"the final answer is \\boxed{{{p.response}}}."
        out.append(Prediction(p.id, text, p.confidence, p.context))
    return out


GOAL = 4.0


def timed(fn) -> tuple[float, float]:
    """(CPU seconds of this process, wall-clock seconds) that fn takes."""
    gc.collect()  # each run starts from a collected heap, not with the garbage of the one before
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def forget_caches() -> None:
    """What a fresh worker process has not computed yet."""
    bootstrap._resample_counts.cache_clear()
    answer_options.norm_options.cache_clear()
    forget_answer_caches()


def forget_answer_caches() -> None:
    """What the matcher remembers of answers: another submission's answers are new to it,
    so every timed run starts without them (the gold side would stay warm in a worker,
    but is cleared too: an upper bound)."""
    for cached in (quantities.fold, quantities.parse_unit, wording.normal, wording.loose):
        cached.cache_clear()


PARTS = ("validation", "answer reading", "judge", "scorer", "intervals", "other")
_READING = re.compile(r"evaluator\.answers(\..*)?$|evaluator\.benchmarks\.\w+\.(answers|blanks)$")


class Sampler:
    """Where the CPU time of a scoring goes: a SIGPROF every few milliseconds of this
    process's CPU time (ITIMER_PROF: the kernel's tick, 4 ms on most Linux machines), each
    charged with the main thread's CPU time since the one before to the part running then,
    read off the Python stack: nothing wrapped, no timer read per call, so the parts run as
    in an ordinary scoring. Other threads' CPU time (BLAS threads: OpenBLAS spins its idle
    threads for a while after a threaded product) is counted apart, as process CPU time less
    the main thread's; the figure counts it too."""

    def __init__(self) -> None:
        self.spent: Counter = Counter()  # part -> main-thread CPU seconds
        self.samples = 0
        self.other_threads = 0.0
        self.scorers = {m.score.__code__ for m in benchmarks.BENCHMARKS.values()}

    def part(self, frame) -> str:
        stack = []
        while frame is not None:
            stack.append(frame)
            frame = frame.f_back
        part = "other"
        for f in reversed(stack):  # outermost first: a part called inside another is the inner one,
            module = f.f_globals.get("__name__", "")  # except readers and judges calling each other
            if module == "evaluator.predictions":
                part = "validation"
            elif module == "evaluator.bootstrap":
                part = "intervals"
            elif f.f_code in self.scorers:
                part = "scorer"
            elif part in ("scorer", "other") and _READING.match(module):
                part = "answer reading"
            elif part in ("scorer", "other") and module.startswith("evaluator.judges"):
                part = "judge"
        return part

    def _sample(self, signum, frame) -> None:
        now = time.thread_time()
        self.spent[self.part(frame)] += now - self.mark
        self.mark = now
        self.samples += 1

    def __enter__(self) -> "Sampler":
        self.previous = signal.signal(signal.SIGPROF, self._sample)
        self.start, self.mark = time.process_time(), time.thread_time()
        self.thread_start = self.mark
        signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
        return self

    def __exit__(self, *exc) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, self.previous)
        now = time.thread_time()
        self.spent["other"] += now - self.mark  # since the last sample: the harness, returning
        self.other_threads += (time.process_time() - self.start) - (now - self.thread_start)


_FLOOR_RE = re.compile(r"answer is\W*(\w+)")


def floor_pass(responses) -> dict:
    """The least a Python scorer does besides parsing: touch each response once (one regex
    search of its text) and keep one dict per response."""
    out = {}
    for p in chain(responses.by_id.values(), responses.by_context.values()):
        m = _FLOOR_RE.search(p.response)
        out[p.id, p.context] = {"answer": m.group(1) if m else None, "confidence": p.confidence}
    return out


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    args.add_argument("--scale", type=float, default=1.0)
    args.add_argument("--repeats", type=int, default=5)
    args.add_argument("--no-profile", action="store_true", help="leave out the sampled runs and the floor")
    opts = args.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        start = time.perf_counter()
        synthetic_suite(tmp / "syn", scale=opts.scale)
        build_time = time.perf_counter() - start
        suite = load_suite(tmp / "syn" / "suite")
        key = load_answers(tmp / "syn" / "answers", suite)
        preds_path = tmp / "preds.jsonl"
        write_predictions(preds_path, realistic(predictions("random", suite.calls)))
        lines = preds_path.read_bytes().count(b"\n")
        calls = suite.calls_by_id()
        judge = NormalizedMatchJudge()

        def parse():
            with open(preds_path, "rb") as f:
                for line in f:
                    json.loads(line)

        def score(samples: int):
            forget_answer_caches()
            responses = read_predictions(preds_path, calls, 1 << 30)
            return score_responses(suite, key, responses, judge, bootstrap_samples=samples)

        def cold():
            forget_caches()
            score(1000)

        sampler = Sampler() if hasattr(signal, "setitimer") else None

        def profiled():
            with sampler:
                score(1000)

        responses = read_predictions(preds_path, calls, 1 << 30)
        floor_fn = lambda: floor_pass(responses)  # noqa: E731

        cold()
        profile = not opts.no_profile and sampler is not None
        names = ("parse", "score", "plain", "cold") + (("profiled", "floor") if profile else ())
        measured = {fn: [] for fn in names}
        for _ in range(opts.repeats):  # interleaved: all see the same machine load
            measured["parse"].append(timed(parse))
            measured["score"].append(timed(lambda: score(1000)))
            measured["plain"].append(timed(lambda: score(0)))
            measured["cold"].append(timed(cold))
            if profile:
                measured["profiled"].append(timed(profiled))
                measured["floor"].append(timed(floor_fn))
        t_parse, t_score, t_plain, t_cold = (medians(measured[k]) for k in ("parse", "score", "plain", "cold"))
        counts = score(0)[1]
        items = sum(c["items"] for c in counts.values())  # scored questions (CausalStep: per segment)

        with tempfile.TemporaryDirectory() as demo_tmp:
            start = time.perf_counter()
            build_demo_suite(Path(demo_tmp))
            t_demo = time.perf_counter() - start

    ratio = t_score[0] / t_parse[0]

    def row(name: str, t: tuple[float, float], note: str = "") -> None:
        print(f"{name:44s} {t[0] * 1000:8.1f} ms {t[0] / t_parse[0]:6.2f}x   "
              f"{t[1] * 1000:8.1f} ms {t[1] / t_parse[1]:6.2f}x   {note}".rstrip())

    print(f"suite: {items} scored items, {len(suite.calls)} public calls; prediction file: {lines} lines; "
          f"median of {opts.repeats}")
    print(f"synthetic suite build: {build_time:.2f} s (not part of scoring)")
    print(f"{'':44s} {'CPU time, x parse':>24s}   {'wall clock, x parse':>24s}")
    row("parse JSON lines (the baseline)", t_parse)
    row("validate + score + intervals", t_score, "the figure")
    row("  the same, first on this suite in a process", t_cold, "(resample weights drawn)")
    row("validate + score, no intervals", t_plain)
    print(f"figure: {ratio:.2f}x parse (CPU time; parse {t_parse[0] * 1000:.1f} ms in this run)   goal: <= {GOAL:g}x   "
          f"{'OK' if ratio <= GOAL else 'TOO SLOW'}")
    print(f"demo suite build: {t_demo:.2f} s (target < 60 s)")
    if profile:
        t_profiled, t_floor = medians(measured["profiled"]), medians(measured["floor"])
        runs = len(measured["profiled"])
        print(f"\nwhere the score time goes: {runs} sampled runs ({sampler.samples} samples), "
              f"CPU time a run (the main thread's by part, then the other threads'):")
        print(f"  {'part':22s} {'CPU ms':>8s} {'share':>6s} {'x parse':>8s}")
        rows = [(part, sampler.spent[part] / runs) for part in PARTS]
        rows.append(("BLAS and other threads", sampler.other_threads / runs))
        total = sum(t for _, t in rows)
        for part, t in rows:
            print(f"  {part:22s} {t * 1000:8.1f} {t / total * 100:5.1f}% {t / t_parse[0]:8.2f}")
        print(f"  {'total':22s} {total * 1000:8.1f}        {total / t_parse[0]:8.2f}   "
              f"(a sampled run: {t_profiled[0] * 1000:.1f} ms CPU, {(t_profiled[0] / t_score[0] - 1) * 100:+.0f}% "
              f"against the figure's runs)")
        rest = total - sampler.spent["answer reading"] / runs
        print(f"  {'all but answer reading':22s} {rest * 1000:8.1f}        {rest / t_parse[0]:8.2f}   "
              f"(the goal is {GOAL:g}x: the rest alone, with no reading at all)")
        floor = t_parse[0] + t_floor[0]
        print(f"floor: parse + one regex search and one dict per response ({t_floor[0] * 1000:.1f} ms) = "
              f"{floor * 1000:.1f} ms CPU, {floor / t_parse[0]:.2f}x parse: what no Python scorer avoids; "
              f"the figure is {t_score[0] / floor:.1f}x the floor")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
