"""Import layers (issue 13): no import cycle, no arrow from a lower layer to a higher one.

Every .py module of the project (PACKAGES below, plus app.py and worker_app.py) is parsed
with `ast`; every `import`/`from ... import` (absolute or relative, at module level or
inside a function: a lazy import is still an arrow) that names a project module is an
arrow importer -> imported. Imports under `if TYPE_CHECKING:` COUNT too: an annotation is
a dependency, and a type-only cycle still means a type lives in the wrong module.
Importing `a.b.c` does not count as an arrow to the packages `a` and `a.b`. Imports by
string (importlib.import_module) are not seen; the project only uses them for third-party
modules. There is no allow-list: none was needed.

Layers, bottom to top (a module may import its own layer and the layers below it):

  0 foundation  settings (space_config/), each package's errors, plain records and constants
  1 domain      benchmarks, answer extraction, judges, video/frames, metrics, model backends
  2 scoring     runners, scoring, paired statistics, protocol card and result, baselines, demo suite
  3 stores      queue, stores, submission checks, and the published table format that the
                worker writes and the site reads (leaderboard.aggregate and what it needs)
  4 worker      worker/ (claim, run, publish) and worker_app.py
  5 top         the site (leaderboard/ UI and views), the CLIs, app.py

A module's layer comes from LAYERS (fnmatch on dotted names). A name written without
wildcards beats a wildcard pattern of another layer; otherwise a module must match
exactly one layer: a new module must be placed here.

Package rule: below the top layer, a package only imports packages to its left in
PACKAGES (space_config < evaluator < submissions < leaderboard < worker). This is what
keeps the orchestrator (worker/) out of the packages it orchestrates.

KNOWN_IMPORTS is empty and should stay so: a violation listed there is tolerated only
until fixed (the test fails if a listed one is gone, or a new one appears).

Size limits (modules, functions) are checked in tests/test_code_size.py, same mechanism.
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["space_config", "evaluator", "submissions", "leaderboard", "worker"]
SCRIPTS = ["app.py", "worker_app.py"]

LAYERS: list[tuple[str, list[str]]] = [
    ("foundation", [
        "space_config", "space_config.*",
        "evaluator", "submissions", "leaderboard",  # top package __init__s: keep them import-free
        "evaluator.errors", "submissions.errors", "leaderboard.errors", "worker.errors",
        "evaluator.runners.errors",
        "evaluator.records", "evaluator.prompts", "evaluator.polling",
        "evaluator.shards",  # where a store keeps one file per submission
        "submissions.requests",
    ]),
    ("domain", [
        "evaluator.answers", "evaluator.answers.*",
        "evaluator.benchmarks", "evaluator.benchmarks.*",
        "evaluator.judges", "evaluator.judges.*",
        "evaluator.video", "evaluator.video.*", "evaluator.frames", "evaluator.synth",
        "evaluator.metrics", "evaluator.buckets", "evaluator.bootstrap",
        "evaluator.predictions", "evaluator.suite", "evaluator.release_check",
        "evaluator.raw_outputs",  # a model run's answers file: records only
        "evaluator.reference", "evaluator.reference_text",  # each benchmark's protocol.toml, and as text
        # Loading and calling a model (transformers / vLLM): judges use them as well as runners.
        "evaluator.backends", "evaluator.backends.*",
        "evaluator.runners.backends", "evaluator.runners.vllm_inputs",
        "evaluator.runners.costs",  # measured by the backends, summarised by the runner
        "evaluator.runners.transformers_backend", "evaluator.runners.vllm_backend",
        "evaluator.runners.generation", "evaluator.runners.hub",  # GenRequest; finding a model
    ]),
    ("scoring", [
        "evaluator.runners", "evaluator.runners.*",
        "evaluator.scoring", "evaluator.paired", "evaluator.protocol", "evaluator.result", "evaluator.runs",
        "evaluator.judge_frames",
        "evaluator.baselines", "evaluator.demo",
    ]),
    ("stores", [
        "submissions.queue", "submissions.request_files", "submissions.stores", "submissions.stores.*",
        "submissions.quotas", "submissions.validation", "submissions.suites", "submissions.submit",
        "submissions.near_duplicates",
        # The published table's format: written by the worker, read by the site.
        "leaderboard.aggregate", "leaderboard.disclosure", "leaderboard.protocol_card",
        "leaderboard.markup", "leaderboard.table_format",
        "leaderboard.exports",  # the open exports: written with the table, in the same step
        "leaderboard.ranking", "leaderboard.bands",  # ranks and bands: the Leaderboard's and the exports'
        "leaderboard.number_format",  # how a number is written, on the site and in its exports
    ]),
    ("worker", [
        "worker", "worker.*", "worker_app",
    ]),
    ("top", [
        "leaderboard.*", "app",
        "evaluator.__main__", "submissions.cli",
        "evaluator.worker",  # `python -m evaluator.worker` (design.md): a few-line entry point into worker/
    ]),
]
TOP = LAYERS[-1][0]

# Violations left to fix (none: keep it so). A new one fails the test with the arrow to move.
KNOWN_IMPORTS: set[str] = set()


@dataclass(frozen=True)
class Arrow:
    src: str
    dst: str
    where: str  # file:line


def module_files(root: Path = ROOT) -> dict[str, Path]:
    files = [f for p in PACKAGES if (root / p).is_dir() for f in sorted((root / p).rglob("*.py"))]
    files += [root / s for s in SCRIPTS if (root / s).exists()]
    mods = {}
    for f in files:
        parts = list(f.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = f
    return mods


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    """The project module `name` names: itself, else its longest project prefix."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in mods:
            return ".".join(parts[:n])
    return None


def arrows(mods: dict[str, Path], root: Path = ROOT) -> list[Arrow]:
    out = []
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: from the importer's package, one level up per extra dot
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                # `from pkg import sub` is an arrow to pkg.sub when that is a module.
                targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in mods else stem for a in node.names]
            rel = path.relative_to(root)
            for t in targets:
                dst = _resolve(t, mods)
                if dst is not None and dst != mod:
                    out.append(Arrow(mod, dst, f"{rel}:{node.lineno}"))
    return out


def layer_of(mod: str) -> list[str]:
    """The layers `mod` is placed in (a wildcard-free name beats a wildcard pattern)."""
    exact = [name for name, pats in LAYERS if mod in pats]
    if exact:
        return exact
    return [name for name, pats in LAYERS if any(fnmatchcase(mod, p) for p in pats)]


def _package(mod: str) -> str:
    return mod.split(".")[0]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected sets of 2+ modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def cycle_path(graph: dict[str, set[str]], members: list[str]) -> list[str]:
    """A shortest cycle through the first member, inside the strongly connected set."""
    start, inside = members[0], set(members)
    prev: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v] & inside):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start, *reversed(path[:-1]), start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return members


def violations(root: Path = ROOT) -> dict[str, list[str]]:
    """Violation key -> the lines that explain it (file:line, layers, cycle path)."""
    mods = module_files(root)
    found: dict[str, list[str]] = defaultdict(list)
    all_arrows = arrows(mods, root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    where: dict[tuple[str, str], list[str]] = defaultdict(list)
    for a in all_arrows:
        graph[a.src].add(a.dst)
        if a.where not in where[a.src, a.dst]:  # `from x import a, b` is one line, not two
            where[a.src, a.dst].append(a.where)
    order = [name for name, _ in LAYERS]
    for mod in mods:
        placed = layer_of(mod)
        if len(placed) != 1:
            found[f"unplaced: {mod}"].append(
                f"{mods[mod].relative_to(root)} is in layers {placed or 'none'}: add it to exactly one in LAYERS")
    for (src, dst), lines in sorted(where.items()):
        ls, ld = layer_of(src), layer_of(dst)
        if len(ls) != 1 or len(ld) != 1:
            continue
        if order.index(ls[0]) < order.index(ld[0]):
            found[f"arrow: {src} -> {dst}"].append(
                f"{', '.join(lines)}: layer {ls[0]} imports layer {ld[0]} (above it)")
        ps, pd = _package(src), _package(dst)
        if ls[0] != TOP and ps in PACKAGES and pd in PACKAGES and PACKAGES.index(ps) < PACKAGES.index(pd):
            found[f"package: {src} -> {dst}"].append(
                f"{', '.join(lines)}: package {ps} imports package {pd} (to its right); "
                f"only the top layer may (layer of {src}: {ls[0]})")
    for members in cycles(graph):
        path = cycle_path(graph, members)
        steps = [f"{a} -> {b} ({', '.join(where[a, b])})" for a, b in zip(path, path[1:])]
        lines = ["cycle " + " ; ".join(steps)]
        if len(members) <= 6:  # a big tangle: the backward arrows above are where to start
            inside = [f"{a} -> {b}" for a in members for b in sorted(graph[a] & set(members))]
            lines.append("all arrows inside: " + ", ".join(inside))
        found[f"cycle: {', '.join(members)}"] += lines
    return dict(found)


def _report(problems: dict[str, list[str]], keys) -> str:
    return "\n".join(f"  {k}\n      " + "\n      ".join(problems[k]) for k in sorted(keys))


def test_imports_follow_the_layers():
    problems = violations()
    new = set(problems) - KNOWN_IMPORTS
    fixed = KNOWN_IMPORTS - set(problems)
    msg = []
    if new:
        msg.append("New import violations (move code down a layer, or the importer up; see the\n"
                   "layer table at the top of tests/test_import_layers.py):\n" + _report(problems, new))
    if fixed:
        msg.append("Fixed, so delete from KNOWN_IMPORTS:\n  " + "\n  ".join(sorted(fixed)))
    assert not msg, "\n".join(msg)


# --- the checker itself, on small made-up trees (so a silent checker cannot pass) ---

def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_checker_sees_lazy_relative_and_type_only_arrows(tmp_path):
    found = violations(_tree(tmp_path, {
        "evaluator/__init__.py": "",
        "evaluator/records.py": "def f():\n    from evaluator import scoring\n",  # lazy, upward
        "evaluator/scoring.py": "from . import records\n",
        "evaluator/video.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from evaluator.frames import X\n",
        "evaluator/frames.py": "from .video import Y\n",
        "evaluator/mystery.py": "",
        "evaluator/worker.py": "import submissions.queue\n",  # an entry point: the top layer may
        "submissions/__init__.py": "",
        "submissions/queue.py": "from leaderboard import aggregate\n",  # same layer, package to its right
        "leaderboard/__init__.py": "",
        "leaderboard/aggregate.py": "",
    }))
    assert "arrow: evaluator.records -> evaluator.scoring" in found
    assert "evaluator/records.py:2" in found["arrow: evaluator.records -> evaluator.scoring"][0]
    assert "cycle: evaluator.records, evaluator.scoring" in found
    assert "cycle: evaluator.frames, evaluator.video" in found
    assert "unplaced: evaluator.mystery" in found
    assert "package: submissions.queue -> leaderboard.aggregate" in found
    assert "arrow: submissions.queue -> leaderboard.aggregate" not in found
    assert not [k for k in found if k.startswith(("package: evaluator.worker", "arrow: evaluator.worker"))]
    assert "arrow: evaluator.scoring -> evaluator.records" not in found
