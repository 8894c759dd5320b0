"""`python -m worker`: the same command as `python -m evaluator.worker` (worker/main.py)."""

from worker.main import exit_now, main

exit_now(main())
