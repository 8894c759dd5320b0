"""The evaluation core: benchmarks, suites, prediction files, judges and scoring.

Start at `cli/evaluator.py` (the command line, `python -m evaluator`) or `evaluator/scoring.py` (how a
prediction file becomes a result).
"""

CODE_VERSION = "0.1.0"
