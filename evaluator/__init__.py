"""The evaluation core: benchmarks, suites, prediction files, judges and scoring.

Start at `cli/evaluator.py` (the command line, `python -m evaluator`) or `evaluator/scoring.py` (how a
prediction file becomes a result).
"""

import os

CODE_VERSION = "0.1.0"

# After a threaded product (the bootstrap's, evaluator/bootstrap.py) OpenBLAS keeps its idle
# threads spinning for about 0.1 s: CPU time every scoring pays, a sixth of it on two cores
# (bench/score_speed.py). With the shortest wait they sleep at once; the threads, and so the
# numbers, stay the same. OpenBLAS reads this once, when numpy loads it: set here, before the
# evaluator imports numpy (app.py imports this package first for the same reason).
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
