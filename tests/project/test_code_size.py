"""Size limits: no module over MAX_MODULE_LINES lines and no function over
MAX_FUNCTION_LINES lines, unless the reason is written down:

- a function: its docstring says "Long because ..." ;
- a module: a comment line at module level starting with `# size:` gives the reason.

Lines are physical lines (a module: the whole file; a function: from `def` to its last
line, nested functions included). Modules: those of tests/project/test_import_layers.py
(the project packages, app.py, worker_app.py).

KNOWN is empty and should stay so: an offender listed there may shrink but not grow past
its listed size; once under the limit (or given a reason) its line must be deleted, and
any new offender fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from test_import_layers import ROOT, module_files

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
SIZE_COMMENT = re.compile(r"^# size: \S", re.MULTILINE)
LONG_BECAUSE = "Long because"

# Offenders still to split (none: keep it so).
KNOWN: dict[str, int] = {}


def _functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, node) of every function and method, nested ones too."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def oversize(root: Path = ROOT) -> dict[str, int]:
    found = {}
    for path in module_files(root).values():
        text = path.read_text()
        rel = path.relative_to(root).as_posix()
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES and not SIZE_COMMENT.search(text):
            found[rel] = lines
        for name, node in _functions(ast.parse(text, rel)):
            size = node.end_lineno - node.lineno + 1
            if size > MAX_FUNCTION_LINES and LONG_BECAUSE not in (ast.get_docstring(node) or ""):
                found[f"{rel}::{name}"] = size
    return found


def test_no_oversize_module_or_function_without_a_reason():
    found = oversize()
    new = {k: v for k, v in found.items() if k not in KNOWN}
    grown = {k: (KNOWN[k], v) for k, v in found.items() if k in KNOWN and v > KNOWN[k]}
    fixed = sorted(set(KNOWN) - set(found))
    msg = []
    if new:
        msg.append(f"Over the limit ({MAX_MODULE_LINES} lines a module, {MAX_FUNCTION_LINES} a function); "
                   f"split it, or write why (docstring '{LONG_BECAUSE} ...' / module comment '# size: ...'):\n  "
                   + "\n  ".join(f"{k}: {v} lines" for k, v in sorted(new.items())))
    if grown:
        msg.append("Known offenders grew (split them rather):\n  "
                   + "\n  ".join(f"{k}: {a} -> {b} lines" for k, (a, b) in sorted(grown.items())))
    if fixed:
        msg.append("Now within limits, so delete from KNOWN:\n  " + "\n  ".join(fixed))
    assert not msg, "\n".join(msg)


def test_reasons_exempt_and_missing_reasons_count(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "evaluator").mkdir()
    (tmp_path / "evaluator" / "__init__.py").write_text("")
    (tmp_path / "evaluator" / "big.py").write_text(
        "class A:\n    def long(self):\n" + body.replace("    ", "        ") + "\n\n"
        f'def excused():\n    """Long because a table of cases reads best in one place."""\n{body}\n'
        + "\n" * MAX_MODULE_LINES)
    (tmp_path / "evaluator" / "reasoned.py").write_text("# size: generated table\n" + "\n" * MAX_MODULE_LINES)
    found = oversize(tmp_path)
    assert found == {"evaluator/big.py": len((tmp_path / "evaluator" / "big.py").read_text().splitlines()),
                     "evaluator/big.py::A.long": MAX_FUNCTION_LINES + 1}
