"""Import layers: no import cycle, no arrow from a lower layer to a higher one.

Every .py module of the project (every top-level package, plus app.py and worker_app.py) is
parsed with `ast`; every `import`/`from ... import` (absolute or relative, at module level or
inside a function: a lazy import is still an arrow) that names a project module is an
arrow importer -> imported. Imports under `if TYPE_CHECKING:` COUNT too: an annotation is
a dependency, and a type-only cycle still means a type lives in the wrong module.
Importing `a.b.c` does not count as an arrow to the packages `a` and `a.b`. Imports by
string (importlib.import_module) are not seen; the project only uses them for third-party
modules. There is no allow-list: none was needed.

Layers are packages, bottom to top (LAYERS: a module may import its own package and the
packages below it): settings (space_config/), evaluator/ (benchmarks, answers, judges, video,
runners, scoring), submissions/ (requests, queue, stores), results/ (the published table the
worker writes and the site reads), worker/, the site (leaderboard/, app.py), and cli/ (the
command lines). The commands users have always typed (`python -m evaluator`, ...) stay where
they were as ENTRY_POINTS that forward to cli/, placed on top. A new package needs a line.

Private names stay in their module: `from a import _x` or `a._x` in another module fails
(test_no_module_imports_another_modules_private_names).

KNOWN_IMPORTS is empty and should stay so: a violation listed there is tolerated only
until fixed (the test fails if a listed one is gone, or a new one appears).

Size limits (modules, functions) are checked in tests/project/test_code_size.py, same mechanism.
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ["app.py", "worker_app.py"]

# One line per package, bottom to top: a module may import its own package and those below it.
LAYERS: list[tuple[str, list[str]]] = [
    ("settings", ["space_config"]),
    ("evaluator", ["evaluator"]),  # benchmarks, answers, judges, video, runners, scoring
    ("submissions", ["submissions"]),  # requests, the queue, the stores, submission checks
    ("results", ["results"]),  # the published table, exports, disclosure, ranks: the worker writes, the site reads
    ("worker", ["worker", "worker_app"]),
    ("site", ["leaderboard", "app"]),
    ("cli", ["cli"]),  # the command lines, above every package they drive
]
# The commands users type, kept where they always were and forwarding to cli/: entry points, on top.
ENTRY_POINTS = {"evaluator.__main__", "evaluator.worker", "worker.__main__", "submissions.cli"}
TOP = LAYERS[-1][0]

# Violations left to fix (none: keep it so). A new one fails the test with the arrow to move.
KNOWN_IMPORTS: set[str] = set()


@dataclass(frozen=True)
class Arrow:
    src: str
    dst: str
    where: str  # file:line


def packages(root: Path = ROOT) -> list[str]:
    """Every top-level package of the project (a folder with an __init__.py), tests aside."""
    return sorted(p.parent.name for p in root.glob("*/__init__.py") if p.parent.name != "tests")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    files = [f for p in packages(root) for f in sorted((root / p).rglob("*.py")) if "__pycache__" not in f.parts]
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
    """The layer of `mod`'s package (an entry point's: the top one); none for a package not in LAYERS."""
    if mod in ENTRY_POINTS:
        return [TOP]
    return [name for name, packages in LAYERS if _package(mod) in packages]


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
                f"{mods[mod].relative_to(root)}: its package is not in LAYERS (add a line for it)")
    for (src, dst), lines in sorted(where.items()):
        ls, ld = layer_of(src), layer_of(dst)
        if len(ls) != 1 or len(ld) != 1:
            continue
        if order.index(ls[0]) < order.index(ld[0]):
            found[f"arrow: {src} -> {dst}"].append(
                f"{', '.join(lines)}: layer {ls[0]} imports layer {ld[0]} (above it)")
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
                   "layer table at the top of tests/project/test_import_layers.py):\n" + _report(problems, new))
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
        "evaluator/records.py": "def f():\n    from submissions import queue\n",  # lazy, upward
        "evaluator/scoring.py": "from . import records\n",
        "evaluator/video.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from evaluator.frame_plans import X\n",
        "evaluator/frame_plans.py": "from .video import Y\n",
        "evaluator/worker.py": "import worker.loop\n",  # an entry point: the top layer may
        "mystery/__init__.py": "",
        "submissions/__init__.py": "",
        "submissions/queue.py": "from results import aggregate\n",
        "results/__init__.py": "",
        "results/aggregate.py": "from submissions import queue\n",
        "worker/__init__.py": "",
        "worker/loop.py": "",
    }))
    assert "arrow: evaluator.records -> submissions.queue" in found
    assert "evaluator/records.py:2" in found["arrow: evaluator.records -> submissions.queue"][0]
    assert "arrow: submissions.queue -> results.aggregate" in found
    assert "cycle: results.aggregate, submissions.queue" in found
    assert "cycle: evaluator.frame_plans, evaluator.video" in found  # a type-only cycle inside one package
    assert "unplaced: mystery" in found
    assert not [k for k in found if "evaluator.worker" in k]
    assert "arrow: evaluator.scoring -> evaluator.records" not in found


# --- private names stay in their module ---

def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_aliases(tree: ast.AST, mod: str, mods: dict[str, Path]) -> dict[str, str]:
    """Names a module binds to other project modules: `import a.b as c`, `from a import b`."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {a.asname: a.name for a in node.names if a.asname and a.name in mods and a.name != mod}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            bound |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names
                      if f"{node.module}.{a.name}" in mods and f"{node.module}.{a.name}" != mod}
    return bound


def private_imports(root: Path = ROOT) -> list[str]:
    """`from a.b import _name`, or `b._name` on an imported project module b, in a module
    other than a.b: a private name shared across modules is a seam in the wrong place (make
    it public, or move the code)."""
    mods = module_files(root)
    found = []
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = _module_aliases(tree, mod, mods)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module and node.module != mod \
                    and _resolve(node.module, mods) is not None:
                found += [f"{path.relative_to(root)}:{node.lineno}: {node.module}.{a.name}"
                          for a in node.names if _private(a.name)]
            elif isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return sorted(set(found))


def test_no_module_imports_another_modules_private_names():
    found = private_imports()
    assert not found, "private names imported across modules (make them public):\n  " + "\n  ".join(found)


def test_the_private_import_check_can_fail(tmp_path):
    found = private_imports(_tree(tmp_path, {
        "evaluator/__init__.py": "", "evaluator/a.py": "_x = 1\n",
        "evaluator/b.py": "from evaluator.a import _x\nfrom evaluator.a import __doc__\n",
        "evaluator/c.py": "from evaluator import a\nimport evaluator.a as b\nprint(a._x, b._x, a.__doc__)\n",
    }))
    assert found == ["evaluator/b.py:1: evaluator.a._x", "evaluator/c.py:3: evaluator.a._x"]
