"""`python -m evaluator rebuild-table`: the leaderboard table written again from every result
file, each in its public form under today's small-bucket rule (results/aggregate.py: rebuild).

    python -m evaluator rebuild-table          # the stores the environment names (LEADERBOARD_STORE, ...)
"""

from __future__ import annotations

from cli.commands import add_command

SUMMARY = "maintainers: write the leaderboard table again from every result file"
DETAILS = """\
Each result is published again in its public form, under today's small-bucket rule: breakdown
buckets under LEADERBOARD_MIN_BUCKET_ITEMS, the buckets that would give one back, and the
figures computed from a hidden bucket's items are hidden. Run it after an update that hides
more, so that rows published before follow it. No score changes and nothing hidden comes back.
Uses the stores the environment names (LEADERBOARD_STORE, LEADERBOARD_HOME or
LEADERBOARD_HUB_OWNER and HF_TOKEN), as the Space and the workers do."""


def _command(args) -> None:
    from results import aggregate
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    table = aggregate.rebuild(open_stores(get_settings()).results)
    print(f"leaderboard table written again: {len(table)} rows")


def add_commands(subparsers) -> None:
    """Add `rebuild-table` to an argparse sub-command set (python -m evaluator)."""
    p = add_command(subparsers, "rebuild-table", SUMMARY, DETAILS, examples=[
        "python -m evaluator rebuild-table",
        "LEADERBOARD_STORE=hub LEADERBOARD_HUB_OWNER=my-org HF_TOKEN=hf_... python -m evaluator rebuild-table"])
    p.set_defaults(func=_command)
