"""`python -m evaluator eval-results ...`: the maintainers' commands between the leaderboard and
the models' Hub pages (cli/evaluator.py adds them).

    eval-results pr ID         open (or find) the pull request putting a verified result on its model's page
    eval-results scan          read the models' own .eval_results files into the authors' rows of the site

Both use the settings of the site and the worker (LEADERBOARD_STORE, LEADERBOARD_HOME,
LEADERBOARD_HUB_OWNER, HF_TOKEN): the pull request is opened with HF_TOKEN's account.
"""

from __future__ import annotations

from cli.commands import add_command

HELP = "maintainers: put verified results on models' Hub pages, and read the models' own results in"
DETAILS = """\
A verified result goes on its model's page as a pull request on the model repo adding the Hub's
evaluation-results files (.eval_results/<benchmark>.yaml), opened with HF_TOKEN's account. The
scan reads the .eval_results files of every model the leaderboard knows (its verified rows and
the reviewed model table) and keeps the results on the five benchmarks: the site shows them as
rows reported by the models' authors, never ranked. LEADERBOARD_HUB_OWNER names the benchmark
dataset the results refer to (<owner>/<prefix>-suite)."""
EXAMPLES = ["python -m evaluator eval-results pr 0d5c2a9e1f", "python -m evaluator eval-results scan",
            "python -m evaluator eval-results scan --model acme/video-7b --dry-run"]


def _context():
    from leaderboard.eval_results import Site
    from space_config.settings import get_settings
    from submissions.stores import open_stores

    settings = get_settings()
    return settings, open_stores(settings), Site.from_settings(settings)


def _api(token: str | None):
    from huggingface_hub import HfApi

    return HfApi(token=token)


def _cmd_pr(args) -> None:
    from results import aggregate
    from leaderboard.eval_results import HubResultsError
    from leaderboard.model_pages import open_results_pr, verified_row

    settings, stores, site = _context()
    if not settings.hf_token:
        raise HubResultsError("HF_TOKEN is not set: the pull request is opened with its Hugging Face account.")
    row = verified_row(aggregate.load_table(stores.results), args.id)
    opened = open_results_pr(_api(settings.hf_token), row, site)
    if opened.new:
        print(f"opened pull request #{opened.num} on {row['model']}: {opened.url}")
        print("files: " + ", ".join(opened.files))
    else:
        print(f"{args.id} already has pull request #{opened.num} on {row['model']} ({opened.status}): {opened.url}; "
              f"nothing new was opened")


def _cmd_scan(args) -> None:
    from results import aggregate
    from leaderboard import author_results

    settings, stores, site = _context()
    models = args.model or author_results.known_models(aggregate.load_table(stores.results))
    previous = author_results.load(stores.results)
    report = author_results.scan(_api(settings.hf_token), models, site, previous)
    if args.model:  # a partial scan keeps the other models' rows
        report.rows = [r for r in previous.rows if r.get("model") not in models] + report.rows
        report.models = sorted(set(previous.models) | set(models), key=str.casefold)
    counts: dict[str, int] = {}
    for row in report.rows:
        counts[row["model"]] = counts.get(row["model"], 0) + 1
    print(f"read {len(models)} models: {len(report.rows)} results on the five benchmarks"
          + (f" ({', '.join(f'{m} {n}' for m, n in sorted(counts.items()))})" if counts else ""))
    for problem in report.problems:
        print(f"  {problem}")
    if args.dry_run:
        print("dry run: nothing written")
        return
    author_results.save(stores.results, report)
    print(f"wrote {author_results.AUTHOR_PATH} to the {stores.results.name} store: the site shows them under "
          f"Models, reported by the models' authors")


def add_commands(subparsers) -> None:
    """Add `eval-results` and its sub-commands to an argparse sub-command set; each sets `func`."""
    group = add_command(subparsers, "eval-results", HELP, DETAILS, EXAMPLES)
    sub = group.add_subparsers(dest="eval_results_command", required=True, title="commands", metavar="{pr,scan}")
    s = add_command(sub, "pr", "open a pull request putting one verified result on its model's Hub page (or show "
                               "the one already open)",
                    "The pull request adds one .eval_results/<benchmark>.yaml file per benchmark the result has\n"
                    "a score on: the score, the run's date, a link to its row on the site, and the suite version\n"
                    "and protocol in its notes. Asking again finds the open one and opens nothing new.",
                    ["python -m evaluator eval-results pr 0d5c2a9e1f"])
    s.add_argument("id", help="the submission id of a verified run of a Hub model (the first column of `queue list`)")
    s.set_defaults(func=_cmd_pr)
    s = add_command(sub, "scan", "read the models' own .eval_results files and store their results on the five "
                                 "benchmarks for the site",
                    "Reads each model repo's main branch; a model the Hub fails for keeps the results the last\n"
                    "scan found. Problems in the files are listed; the files are never changed.",
                    ["python -m evaluator eval-results scan", "python -m evaluator eval-results scan --model "
                                                              "acme/video-7b --dry-run"])
    s.add_argument("--model", action="append", metavar="ID",
                   help="scan only this Hub model id (repeat for several), keeping the others' stored results; "
                        "default: every model of the verified rows and of the reviewed model table")
    s.add_argument("--dry-run", action="store_true", help="print what the scan finds and write nothing")
    s.set_defaults(func=_cmd_scan)

