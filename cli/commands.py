"""What every command line shares: a sub-command whose --help is written for its users, and
running a parsed command so that every entry point prints errors and exits the same way."""

from __future__ import annotations

import argparse
import sys
import textwrap

HELP_WIDTH = 88  # a command's description, wrapped here: its details keep their own lines


def add_command(subparsers, name: str, summary: str, details: str = "",
                examples: list[str] | None = None) -> argparse.ArgumentParser:
    """A sub-command whose --help opens with `summary` (the line the command list shows), then
    `details` (written wrapped), and ends with its examples."""
    description = textwrap.fill(f"{summary[0].upper()}{summary[1:]}.", HELP_WIDTH)
    description += f"\n\n{details}" if details else ""
    epilog = "Examples:\n" + "\n".join(f"  {e}" for e in examples) if examples else None
    return subparsers.add_parser(name, help=summary, description=description, epilog=epilog,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed command (its `func`): 0, or 2 after printing `error: ...` for an
    expected failure (a bad input, a refused change, a missing file)."""
    from evaluator.errors import EvaluatorError
    from submissions.errors import SubmissionError

    try:
        args.func(args)
    except (EvaluatorError, SubmissionError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # bad option values, unknown judge names
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0
