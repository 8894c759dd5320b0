"""`python -m submissions.cli queue ...`: the queue's commands alone, forwarded to the command
line itself (cli/queue.py; `python -m evaluator queue ...` runs the same parser)."""

import sys

from cli.queue import main

if __name__ == "__main__":
    sys.exit(main())
