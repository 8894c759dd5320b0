"""`python -m worker`: the same command as `python -m evaluator.worker` (cli/worker.py)."""

from cli.worker import exit_now, main

if __name__ == "__main__":
    exit_now(main())
