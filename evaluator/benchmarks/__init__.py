"""The five benchmarks, one folder each (evaluator/benchmarks/<name>/), in a plain dict
registry. README.md ("One folder per benchmark") says what each folder holds and how
to add a benchmark.

Every benchmark package provides the same names:

    NAME, TITLE, PAPER_SIZE          PAPER_SIZE: the paper's size in demo()'s `size` units
    Question, Answer                 typed public record and hidden answer record
    import_release(root, secret)     -> BenchmarkData, from the official release layout
    RELEASE_LAYOUT                   that layout in words (`python -m evaluator import --help`)
    demo(secret, ...)                -> BenchmarkData with synthetic video specs
                                     (`secret`: the suite's common.Secret; every arrangement
                                     that depends on an answer is drawn from it)
    build_calls(questions, videos, budgets) -> list[Call]   the public call list
    hidden_calls(questions, answers, videos, budgets) -> list[Call]   (optional)
                                     calls only workers make (they would reveal answers)
    score(questions, answers, responses, ctx) -> BenchmarkScore

and may declare the optional hooks of evaluator/benchmarks/hooks.py (its breakdown
buckets, paired-statistics splits and site tables: buckets.py and display.py), read
through this registry with defaults for what it leaves out.
"""

from typing import Any

from evaluator.benchmarks import causalstep, exact, expvid, videommmu, videosimpleqa

BENCHMARKS = {m.NAME: m for m in (expvid, causalstep, exact, videommmu, videosimpleqa)}
ORDER = list(BENCHMARKS)


def hook(name: str, attr: str, default: Any = None) -> Any:
    """Benchmark `name`'s optional hook `attr` (evaluator/benchmarks/hooks.py), else `default`
    (an unknown benchmark: `default` too)."""
    return getattr(BENCHMARKS.get(name), attr, default)


# The benchmarks whose answers a judge grades (a JUDGE_TASK in their folder), in registry order.
JUDGED = tuple(name for name in BENCHMARKS if hook(name, "JUDGE_TASK"))


def get(name: str):
    from evaluator.errors import EvaluatorError

    try:
        return BENCHMARKS[name]
    except KeyError:
        raise EvaluatorError(f"unknown benchmark '{name}' (known: {', '.join(BENCHMARKS)})") from None
