"""`python -m evaluator`: maintainers' and submitters' tools (`--help` lists the commands,
`python -m evaluator COMMAND --help` explains one). The suite, prediction and protocol
commands are here; the queue's are in cli/queue.py, create-repos and squash-history in
cli/deploy.py, rebuild-table in cli/table.py, eval-results in cli/eval_results.py. Every command's help is written for its users: what it
does, each option and its default, an example (tests/cli/test_cli_help.py checks them)."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

from evaluator.errors import EvaluatorError


def _cmd_demo_suite(args) -> None:
    from evaluator.demo import build_demo_suite
    from evaluator.suite import read_secret

    suite = build_demo_suite(args.out, read_secret(args.secret_from) if args.secret_from else None)
    print(f"demo suite {suite.id}: public part in {args.out}/suite, answer key in {args.out}/answers")
    for name, c in suite.manifest["benchmarks"].items():
        print(f"  {name:14s} {c['items']:4d} items  {c['calls']:4d} calls  {c['videos']:3d} videos")


def _cmd_import(args) -> None:
    from evaluator.benchmarks import BENCHMARKS
    from evaluator.benchmarks.common import Secret
    from evaluator.suite import build_suite, read_secret

    releases = {name: getattr(args, name) for name in BENCHMARKS if getattr(args, name)}
    if not releases:
        raise EvaluatorError("give at least one release folder, e.g. --exact path/to/ExAct")
    if not args.check and args.out is None:
        raise EvaluatorError("give --out FOLDER for the suite, or --check to only report what the releases hold")
    secret = read_secret(args.secret_from) if args.secret_from else Secret.new()
    if args.check:
        _check_releases(releases, secret)
        return
    datasets = [BENCHMARKS[name].import_release(Path(path), secret) for name, path in releases.items()]
    suite = build_suite(args.out, args.name, args.version, datasets, None, secret)
    print(f"suite {suite.id}: public part in {args.out}/suite, answer key in {args.out}/answers")


def _check_releases(releases: dict[str, str], secret) -> None:
    """Read every release and print what was found; writes nothing. A release that
    cannot be read is reported and the others are still checked."""
    from evaluator.benchmarks import BENCHMARKS
    from evaluator.release_check import summary

    failed = []
    for name, path in releases.items():
        try:
            data = BENCHMARKS[name].import_release(Path(path), secret)
        except EvaluatorError as e:
            failed.append(name)
            print(f"{name}: {path}\n  NOT READABLE: {e}")
            continue
        print("\n".join(summary(data, path)))
    if failed:
        raise EvaluatorError(f"{len(failed)} release(s) could not be read: {', '.join(failed)} (see above)")
    print("nothing written (--check)")


def _cmd_publish_suite(args) -> None:
    from space_config.settings import get_settings
    from submissions.stores import open_stores
    from worker.suites import publish_with_baselines

    settings = get_settings()
    suite_id, scored = publish_with_baselines(open_stores(settings), args.folder)
    where = f"the local store at {settings.home} (LEADERBOARD_HOME)" if settings.store == "local" else \
        f"the Hub stores of {settings.hub_owner}"
    print(f"published suite {suite_id} to {where}: public part to the suite store, answer key to the answers store")
    print("wrote the suite store's dataset card (README.md) and eval.yaml, naming every published suite")
    if scored:
        print(f"scored the built-in baselines on it ({', '.join(scored)}): its board opens with their rows")


def _cmd_template(args) -> None:
    from evaluator.records import to_dict
    from evaluator.suite import load_suite, with_video_files

    suite = load_suite(args.suite)
    calls = [c for c in suite.calls if not args.benchmark or c.benchmark in args.benchmark]
    files = {vid: meta.file for vid, meta in suite.videos.items()}
    with open(args.out, "w", encoding="utf-8") as f:
        for call in calls:
            f.write(json.dumps(with_video_files(to_dict(call), files), ensure_ascii=False) + "\n")
    print(f"wrote {len(calls)} calls of suite {suite.id} to {args.out}")


def _cmd_baseline(args) -> None:
    from evaluator.baselines import predictions
    from evaluator.predictions import write_predictions
    from evaluator.suite import load_suite

    suite = load_suite(args.suite)
    preds = predictions(args.name, suite.calls, seed=args.seed)
    write_predictions(args.out, preds)
    print(f"wrote {len(preds)} predictions of baseline '{args.name}' to {args.out}")


def _cmd_score(args) -> None:
    from evaluator.benchmarks import JUDGED, ORDER
    from evaluator.judges import get_judge, judges_from
    from evaluator.reference import reading_options
    from evaluator.scoring import score_file
    from evaluator.suite import load_answers, load_suite
    from space_config.settings import get_settings

    settings = get_settings()
    suite = load_suite(args.suite)
    key = load_answers(args.answers, suite)
    cache = args.judge_cache or settings.judge_cache  # model judgements are slow and must be reproducible
    if args.judge:
        judge = get_judge(args.judge, **settings.judges.options(args.judge))
        if judge.kind == "llm":
            from evaluator.judges import CachedJudge, JudgementCache

            judge = CachedJudge(judge, JudgementCache(cache))
    else:
        judge = judges_from(settings, cache, judged=JUDGED)  # LEADERBOARD_JUDGE, LEADERBOARD_JUDGE_<BENCHMARK>
    given = {name: getattr(args, f"{name}_reading", None) for name in ORDER}  # --causalstep-reading
    readings = {**settings.readings, **{name: reading for name, reading in given.items() if reading}}
    options = reading_options(readings, grade_truncated_reasoning=settings.grade_truncated_reasoning)
    result = score_file(suite, key, Path(args.predictions), judge, options, settings.max_prediction_bytes,
                        worker_run=args.worker_run, bootstrap_samples=settings.bootstrap_samples)
    result.write(Path(args.out))
    print(f"scored against suite {suite.id} with judge {judge.judge_id}; result in {args.out}")
    if hasattr(judge, "stats"):
        print(f"  judgements: {judge.stats['judged']} new, {judge.stats['cached']} from the cache")
    for name, metrics in result.scores.items():
        ci = metrics.get("overall_ci95")
        ci_text = f"  [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
        print(f"  {name:14s} overall {metrics['overall']}{ci_text}")


DESCRIPTION = """\
Tools of the video reasoning leaderboard: build and publish test suites, write a suite's
call list or a baseline's predictions, score a prediction file, print the benchmarks'
reference protocols, manage the submission queue and the Hub stores, and carry results
between the leaderboard and the models' Hub pages."""
EPILOG = """\
Commands that read or write the stores (publish-suite, queue, create-repos, squash-history,
eval-results) use the settings of the site and the worker: LEADERBOARD_STORE (local or hub),
LEADERBOARD_HOME for a local store, LEADERBOARD_HUB_OWNER and HF_TOKEN for the Hub.

Examples:
  python -m evaluator demo-suite --out demo     build a demo suite in ./demo
  python -m evaluator publish-suite demo        publish it and score the baselines on it
  python -m evaluator queue list                the submission queue
  python -m evaluator score --help              one command's options"""
SUITE_HELP = "the suite's public folder, or the folder holding its suite/ and answers/; required"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evaluator", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND")
    _add_suite_commands(sub)  # demo-suite, import, publish-suite
    _add_prediction_commands(sub)  # template, baseline, score
    _add_protocol_command(sub)  # protocol

    from cli.queue import add_queue_commands
    from cli.deploy import add_commands as add_deploy_commands

    add_queue_commands(sub)  # queue list|show|requeue|rerun|cancel|priority|archive
    add_deploy_commands(sub)  # create-repos, squash-history
    from cli.table import add_commands as add_table_commands

    add_table_commands(sub)  # rebuild-table
    from cli.eval_results import add_commands as add_eval_results_commands

    add_eval_results_commands(sub)  # eval-results pr|scan
    return p


def _add_suite_commands(sub) -> None:
    """The maintainers' commands that build and publish a suite."""
    from cli.commands import add_command

    s = add_command(sub, "demo-suite", "build a small demo suite of synthetic videos, to try the site with",
                    "Its public part (questions, videos, call list) goes to OUT/suite, its answer key to\n"
                    "OUT/answers; publish-suite OUT puts it on the site.",
                    ["python -m evaluator demo-suite --out demo"])
    s.add_argument("--out", required=True, type=Path, help="folder to write suite/ and answers/ into; required")
    _secret_from_argument(s)
    s.set_defaults(func=_cmd_demo_suite)
    _add_import_command(sub)

    s = add_command(sub, "publish-suite", "upload a built suite to the stores and score the built-in baselines "
                                          "on it",
                    "The public part goes to the suite store, the answer key to the private answers store;\n"
                    "the baselines' rows (random, first-option) open the suite's board. The suite store's\n"
                    "dataset card (README.md) and eval.yaml, its registration as a Hub benchmark, are\n"
                    "written again to name every published suite.",
                    ["python -m evaluator publish-suite demo",
                     "LEADERBOARD_STORE=hub LEADERBOARD_HUB_OWNER=my-org HF_TOKEN=hf_... "
                     "python -m evaluator publish-suite official-v1"])
    s.add_argument("folder", type=Path, help="the folder holding suite/ and answers/ (written by demo-suite or "
                                             "import --out)")
    s.set_defaults(func=_cmd_publish_suite)


def _add_import_command(sub) -> None:
    from evaluator.benchmarks import BENCHMARKS, ORDER
    from cli.commands import add_command

    s = add_command(sub, "import", "build a suite from the benchmarks' official release folders",
                    "Give at least one release folder. With --check, nothing is written: each release is read\n"
                    "and what it holds is listed, every missing video with the folders searched.",
                    ["python -m evaluator import --exact ExAct --videommmu Video-MMMU --out official-v1",
                     "python -m evaluator import --exact ExAct --check"])
    s.epilog = "Each release folder (DIR, shown as <root>) in its official layout:\n\n" + "\n\n".join(
        f"--{name} DIR: {BENCHMARKS[name].TITLE}\n" + textwrap.indent(BENCHMARKS[name].RELEASE_LAYOUT, "  ")
        for name in ORDER) + "\n\n" + s.epilog
    for name in ORDER:
        s.add_argument(f"--{name}", metavar="DIR",
                       help=f"the {BENCHMARKS[name].TITLE} release folder (layout below); default: left out")
    s.add_argument("--out", type=Path, help="folder to write suite/ and answers/ into; required unless --check")
    s.add_argument("--check", action="store_true",
                   help="only read the releases and print, per benchmark, the items, levels or tracks, "
                        "categories with counts, options per question and what was repaired or skipped; "
                        "writes nothing")
    s.add_argument("--name", default="official",
                   help="the suite's name (LEADERBOARD_SUITE may name the suite by it); default: official")
    s.add_argument("--version", default="v1", help="the suite's version, part of its id; default: v1")
    _secret_from_argument(s)
    s.set_defaults(func=_cmd_import)


def _reading_arguments(s) -> None:
    """--<benchmark>-reading for each benchmark whose protocol.toml has readings of its paper
    (--causalstep-reading prose|algo)."""
    from evaluator.benchmarks import BENCHMARKS, ORDER
    from evaluator.reference import scoring_options

    for name in ORDER:
        keys, readings, reference_reading = scoring_options(name)
        if readings:
            s.add_argument(f"--{name}-reading", choices=list(readings), dest=f"{name}_reading",
                           help=f"{BENCHMARKS[name].TITLE}'s {' and '.join(keys)} rules, all from one reading of "
                                f"its paper; default: LEADERBOARD_{name.upper()}_READING, else the benchmark's "
                                f"reference protocol ({reference_reading})")


def _add_prediction_commands(sub) -> None:
    """The submitters' commands: a suite's call list, a baseline's predictions, scoring them."""
    from cli.commands import add_command
    from evaluator.benchmarks import ORDER

    s = add_command(sub, "template", "write a suite's call list: the calls a prediction file answers",
                    "JSON Lines, one call a line: its id, prompt, options and the frames of its video file to\n"
                    "show. Run your model on each call and write one prediction per call: a prediction file.",
                    ["python -m evaluator template --suite demo --out calls.jsonl"])
    s.add_argument("--suite", required=True, type=Path, help=SUITE_HELP)
    s.add_argument("--out", required=True, type=Path, help="where to write the call list (JSON Lines); required")
    s.add_argument("--benchmark", action="append",
                   help=f"only this benchmark's calls: {', '.join(ORDER)} "
                        "(repeat for several); default: every benchmark")
    s.set_defaults(func=_cmd_template)

    s = add_command(sub, "baseline", "write a built-in baseline's prediction file for a suite",
                    "random gives each call a random option (or value), the same for the same call and --seed;\n"
                    "first-option always gives the first option.",
                    ["python -m evaluator baseline --suite demo --name random --out random.jsonl"])
    s.add_argument("--suite", required=True, type=Path, help=SUITE_HELP)
    s.add_argument("--name", required=True, choices=["random", "first-option"], help="which baseline; required")
    s.add_argument("--seed", type=int, default=0, help="seed of the random baseline's choices; default: 0")
    s.add_argument("--out", required=True, type=Path, help="where to write the prediction file (JSON Lines); "
                                                           "required")
    s.set_defaults(func=_cmd_baseline)
    _add_score_command(sub)


def _add_score_command(sub) -> None:
    from cli.commands import add_command

    s = add_command(sub, "score", "score a prediction file against a suite's hidden answers",
                    "Writes the result (scores, intervals, breakdowns) as JSON and prints each benchmark's\n"
                    "overall score.",
                    ["python -m evaluator score --suite demo --answers demo --predictions random.jsonl "
                     "--out result.json"])
    s.add_argument("--suite", required=True, type=Path, help=SUITE_HELP)
    s.add_argument("--answers", required=True, type=Path,
                   help="the suite's answer-key folder, or the folder holding its suite/ and answers/; required")
    s.add_argument("--predictions", required=True, type=Path,
                   help="the prediction file: JSON Lines, one record per call; required")
    s.add_argument("--out", required=True, type=Path, help="where to write the result (JSON); required")
    s.add_argument("--judge", help="one judge for every judged benchmark: normalized-match, llm:<model id or path>, "
                                   "openai:<model> (with LEADERBOARD_JUDGE_BASE_URL and LEADERBOARD_JUDGE_API_KEY) "
                                   "or hf:<model>[:<provider>]; default: LEADERBOARD_JUDGE_<BENCHMARK>, else "
                                   "LEADERBOARD_JUDGE, else normalized-match")
    s.add_argument("--judge-cache", type=Path,
                   help="SQLite file keeping model judges' verdicts, so scoring again asks nothing twice; default: "
                        "LEADERBOARD_JUDGE_CACHE, else $LEADERBOARD_HOME/private/judge-cache.sqlite")
    _reading_arguments(s)
    s.add_argument("--worker-run", action="store_true",
                   help="also accept the hidden calls only a worker asks (Video SimpleQA's sub-questions), as in "
                        "a worker's own run")
    s.set_defaults(func=_cmd_score)


def _add_protocol_command(sub) -> None:
    from evaluator.benchmarks import ORDER
    from cli.commands import add_command

    s = add_command(sub, "protocol", "print each benchmark's reference protocol: the paper's settings as our "
                                     "workers run them",
                    "Frames, resolution, prompt, generation, judge and scoring, with the paper section each\n"
                    "value comes from and where ours differs from the paper.",
                    ["python -m evaluator protocol --benchmark exact"])
    s.add_argument("--benchmark", choices=ORDER, action="append",
                   help="only this benchmark (repeat for several); default: all five")
    s.add_argument("--markdown", action="store_true",
                   help="print Markdown tables (as in docs/protocol.md) instead of plain text")
    s.set_defaults(func=_cmd_protocol)


def _cmd_protocol(args) -> None:
    from evaluator import reference, reference_text

    names = args.benchmark or reference.names()
    if args.markdown:
        print(reference_text.markdown_tables(names))
        return
    print("\n\n".join(reference_text.text(name) for name in names))


def _secret_from_argument(parser) -> None:
    parser.add_argument("--secret-from", type=Path, metavar="DIR",
                        help="reuse the secret of an earlier build (its folder, or its answers/ folder), so option "
                             "orders stay as they were; default: a fresh secret, kept in the new answer key only")


def main(argv: list[str] | None = None) -> int:
    from cli.commands import run_command

    return run_command(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
