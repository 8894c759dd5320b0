"""`python -m evaluator ...`: the command users type, forwarded to the command line itself
(cli/evaluator.py), which sits above every package it drives."""

import sys

from cli.evaluator import main

if __name__ == "__main__":
    sys.exit(main())
