"""The evaluation core: benchmarks, suites, prediction files, judges and scoring.

Start at `evaluator/__main__.py` (the CLI) or `evaluator/scoring.py` (how a
prediction file becomes a result).
"""

CODE_VERSION = "0.1.0"
