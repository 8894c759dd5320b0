"""`python -m evaluator.worker`: the worker's command by the name maintainers and jobs type,
forwarded to the command line itself (cli/worker.py); the worker is the package worker/."""

from cli.worker import exit_now, main

if __name__ == "__main__":
    exit_now(main())
