"""`python -m evaluator create-repos`: the five Hub dataset repos of a new deployment, and
`python -m evaluator squash-history`: their histories squashed on a maintainer's schedule
(the work itself: submissions/stores/deploy.py).

    HF_TOKEN=hf_... python -m evaluator create-repos --owner my-org [--prefix video-reasoning-leaderboard]
    LEADERBOARD_STORE=hub ... python -m evaluator squash-history [--store requests]
"""

from __future__ import annotations

import argparse
import logging
import sys

from submissions.errors import SubmissionError
from submissions.stores.base import PUBLIC, STORE_NAMES
from submissions.stores.deploy import DEFAULT_PREFIX, create_repos, squash_histories


def _command(args: argparse.Namespace) -> None:
    from space_config.settings import get_settings

    token = get_settings().hf_token
    if not token:
        sys.exit("error: create-repos needs HF_TOKEN: a Hugging Face token with write access to "
                 f"{args.owner!r} (https://huggingface.co/settings/tokens)")
    logging.basicConfig(level=logging.WARNING, format="warning: %(message)s")
    try:
        urls = create_repos(args.owner, args.prefix, token)
    except (SubmissionError, OSError, ValueError) as e:  # huggingface_hub's HTTP errors are OSErrors
        sys.exit(f"error: could not create the repos under {args.owner!r}: {e}")
    for name in STORE_NAMES:
        print(f"{name:9s} {'public ' if PUBLIC[name] else 'private'}  {urls[name]}")
    print(f"set LEADERBOARD_STORE=hub LEADERBOARD_HUB_OWNER={args.owner} LEADERBOARD_HUB_PREFIX={args.prefix}")


def _squash_command(args: argparse.Namespace) -> None:
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    try:
        done = squash_histories(open_stores(get_settings()), args.store or list(STORE_NAMES))
    except (SubmissionError, OSError, ValueError) as e:
        sys.exit(f"error: could not squash: {e}")
    for name, files in done.items():
        print(f"{name:9s} squashed: one commit holding its {files} files")


CREATE_DESCRIPTION = """\
Create the five Hub dataset repos of a new deployment: <owner>/<prefix>-<store> for the
stores requests, results and suite (public) and answers and private (private).

Running it again is harmless: existing repos are kept, and one that must be private but is
public is made private. Needs HF_TOKEN, a token with write access to the owner."""
CREATE_EPILOG = """\
Example (it ends by printing the settings that point the site and the worker at the repos):
  HF_TOKEN=hf_... python -m evaluator create-repos --owner my-org"""
SQUASH_DESCRIPTION = """\
Replace the history of each named Hub store by one commit holding its current files.

The Hub slows down on repos with some thousands of commits, and every claim, renewal and
finish of a request is a commit. Nothing is lost, and it is safe while workers and the site
write (they read again and commit again). Run it on a schedule, e.g. weekly. Needs
LEADERBOARD_STORE=hub, LEADERBOARD_HUB_OWNER and HF_TOKEN."""
SQUASH_EPILOG = """\
Example:
  LEADERBOARD_STORE=hub LEADERBOARD_HUB_OWNER=my-org HF_TOKEN=hf_... python -m evaluator squash-history"""


def add_commands(subparsers) -> None:
    """Add `create-repos` and `squash-history` to an argparse sub-command set (python -m evaluator)."""
    raw = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser("create-repos", help="maintainers: create the five Hub dataset repos of a new "
                                                   "deployment",
                              description=CREATE_DESCRIPTION, epilog=CREATE_EPILOG, formatter_class=raw)
    p.add_argument("--owner", required=True, help="Hugging Face user or organisation that will own the repos; "
                                                  "required")
    p.add_argument("--prefix", default=DEFAULT_PREFIX,
                   help=f"start of each repo's name (LEADERBOARD_HUB_PREFIX); default: {DEFAULT_PREFIX}")
    p.set_defaults(func=_command)
    p = subparsers.add_parser("squash-history", help="maintainers: squash Hub stores' histories into one commit "
                                                     "each",
                              description=SQUASH_DESCRIPTION, epilog=SQUASH_EPILOG, formatter_class=raw)
    p.add_argument("--store", action="append", choices=list(STORE_NAMES),
                   help="a store to squash (repeat for several); default: all five")
    p.set_defaults(func=_squash_command)
