"""Every document the code points a reader at ships with the repo.

A comment or docstring that cites a design section, an implementer's spec or an issue number
sends a newcomer to something they cannot open; one that cites `docs/<name>` must name a file
that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("app.py", "worker_app.py", "README.md", "Makefile")
FOLDERS = ("space_config", "evaluator", "submissions", "results", "leaderboard", "worker", "cli", "bench", "tests", "docs")
SUFFIXES = {".py", ".md", ".toml", ".txt", ".json"}

# Documents that do not ship: the design notes, the per-benchmark specs, the issue tracker.
UNSHIPPED = re.compile(r"design §|design\.md|shared/specs|spec §|\bissue #?\d+")
DOC_PATH = re.compile(r"\bdocs/[\w.-]+\.(?:md|json)")


def project_files() -> list[Path]:
    found = [ROOT / name for name in SOURCES]
    for folder in FOLDERS:
        found += [p for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts]
    return [p for p in found if p.is_file() and p != Path(__file__)]


def test_no_reference_to_a_document_that_does_not_ship():
    hits = []
    for path in project_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if UNSHIPPED.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert hits == [], "\n".join(hits)


def test_every_docs_path_named_exists():
    missing = set()
    for path in project_files():
        for name in DOC_PATH.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not (ROOT / name).exists():
                missing.add(f"{path.relative_to(ROOT)} names {name}")
    assert not missing, sorted(missing)


def test_the_checks_can_fail():
    assert UNSHIPPED.search("see design §4") and UNSHIPPED.search("(issue 14)")
    assert UNSHIPPED.search("Spec: shared/specs/exact.md") and not UNSHIPPED.search("paper §4.1")
    assert DOC_PATH.findall("read docs/nowhere.md first") == ["docs/nowhere.md"]
