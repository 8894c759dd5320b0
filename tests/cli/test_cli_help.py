"""Every command's --help, as a maintainer runs it (`python -m evaluator ... --help`,
`python -m evaluator.worker --help`, `python -m submissions.cli ... --help`), in a real
subprocess: it exits 0, says what the command does, gives every option and argument a help
text (an option that takes a value also its default, or that it is required), lists each
sub-command with a line of its own, and never shows notes meant for the code's authors."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# words that belong in the code, never in a user's help: design notes, tracker numbers, module paths
INTERNAL = re.compile(r"design|§|\bissues?\b|\.py\b|\bmodules?\b|\bHfApi\b|\bTODO\b|space_config", re.IGNORECASE)
SECTION = re.compile(r"^(options|positional arguments):$")


def parsers() -> list[tuple[str, list[str], argparse.ArgumentParser]]:
    """(module, sub-command path, parser) of every command of the three entry points."""
    from cli.evaluator import parser as evaluator_parser
    from cli.queue import parser as queue_parser
    from cli.worker import parser as worker_parser

    found = []
    for module, top in (("evaluator", evaluator_parser()), ("evaluator.worker", worker_parser()),
                        ("submissions.cli", queue_parser())):
        found += [(module, path, p) for path, p in walk(top, [])]
    return found


def walk(p: argparse.ArgumentParser, path: list[str]):
    yield path, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from walk(child, [*path, name])


COMMANDS = parsers()


def command_id(command) -> str:
    module, path, _ = command
    return " ".join([module, *path])


@pytest.fixture(scope="module", params=COMMANDS, ids=command_id)
def helped(request):
    """A command, its parser, and what `--help` printed in a subprocess."""
    module, path, p = request.param
    done = subprocess.run([sys.executable, "-m", module, *path, "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    return p, done


def test_help_exits_0_and_says_what_the_command_does(helped):
    p, done = helped
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ") and not done.stderr
    assert p.description and p.description.strip()[0].isupper(), "a description opening the help"
    assert p.description.split("\n\n")[0] in done.stdout


def test_every_option_and_argument_has_a_help_text(helped):
    p, done = helped
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {a.dest: a.help for a in action._choices_actions}
            assert set(listed) == set(action.choices), "a sub-command without a line in the list"
            assert all(h and h.strip() for h in listed.values()), listed
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"{name} has no help text"
        assert (action.option_strings[-1] if action.option_strings else action.dest) in done.stdout
        if action.option_strings and action.nargs != 0:  # an option that takes a value
            said = ("required",) if action.required else ("default", "required")  # "required unless --check"
            assert any(word in action.help for word in said), f"{name} does not say its default"
    assert not listed_without_help(done.stdout)


def listed_without_help(text: str) -> list[str]:
    """Entries of argparse's `options:` and `positional arguments:` sections that have no text
    beside or under them (read from the printed help, whatever the parser objects say)."""
    lines, missing, in_section = text.splitlines(), [], False
    for i, line in enumerate(lines):
        if SECTION.match(line) or not line.strip():
            in_section = bool(SECTION.match(line))
            continue
        entry = re.match(r"^  (\S.*?)(?:\s{2,}(\S.*))?$", line)
        if in_section and entry and not entry.group(2):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if not re.match(r"^ {4,}\S", following):
                missing.append(entry.group(1))
    return missing


def test_help_has_no_notes_for_the_codes_authors(helped):
    _, done = helped
    found = sorted({m.group(0) for m in INTERNAL.finditer(done.stdout)})
    assert not found, f"internal words in the help: {found}"


def test_the_commands_are_all_there():
    # other tools call these names: renaming one breaks them
    named = {" ".join(path) for module, path, _ in COMMANDS if module == "evaluator"}
    assert {"demo-suite", "import", "publish-suite", "template", "baseline", "score", "protocol", "queue",
            "queue list", "queue show", "queue requeue", "queue rerun", "queue cancel", "queue priority",
            "queue archive",
            "create-repos", "squash-history"} <= named


def test_the_checks_catch_a_missing_help_and_an_internal_note():
    assert listed_without_help("options:\n  -h, --help  show this\n  --out OUT\n  --seed SEED  a seed\n") == [
        "--out OUT"]
    assert listed_without_help("options:\n  --judge-cache JUDGE_CACHE\n                sqlite file\n") == []
    assert INTERNAL.search("see the design, section 4") and INTERNAL.search("(worker/dispatch.py)")
    assert not INTERNAL.search("python -m evaluator queue list")


def test_every_name_users_type_runs_the_command_line_in_cli():
    """`python -m worker` and `python -m evaluator.worker` are one command; `python -m evaluator`
    and `python -m submissions.cli` reach the same queue commands (cli/ holds them)."""
    def helped(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", *args, "--help"], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert helped("worker") == helped("evaluator.worker")
    def body(text: str) -> str:  # past the usage lines, which wrap by the program's name
        return text.split("\n\n", 1)[1]

    assert body(helped("evaluator", "queue", "archive")) == body(helped("submissions.cli", "queue", "archive"))
    assert "eval-results" in helped("evaluator")
