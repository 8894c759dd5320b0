"""The papers' reported rows as a download: one JSON document, the same for every suite,
handed out by the Downloads tab and by GET /api/v1/reported.json (leaderboard/api.py).

    data = document()      # bytes (built once per process: the data files ship with the code)
    version()              # its "sha256:<16 hex>", for the endpoint's ETag

The rows are those the site shows badged "📄 ... paper" (leaderboard/reported.py reads them
from leaderboard/reported_data/), each with where it comes from, so a number can be traced
to the paper's table:

    {"schema_version", "kind": "paper-reported", "code_version", "table_version", "rows",
     "papers":  [{benchmark, title, arxiv, version, citation, table, judge, notes, derived}],
     "results": [{id, benchmark, model, aliases, row_kind, thinking, open, frames, params_b,
                  paper: {title, arxiv, version, citation}, table, judge, scores}]}

`scores` are the paper's cells as printed (`scores[metric]`, a breakdown `scores[name][label]`);
`table` is the paper's table the row was read from; the paper's notes say what was derived
or looks like a misprint. Rows come by benchmark (the site's order), then as the paper prints
them. Nothing here is ours: no rank or band (a paper's rows are never ranked beside ours).
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from evaluator import CODE_VERSION
from leaderboard import reported

SCHEMA_VERSION = 1
KIND = "paper-reported"
FILE_NAME = "leaderboard-paper-reported.json"


def _paper(table: reported.ReportedTable) -> dict[str, Any]:
    paper = table.paper
    return {"title": paper.title, "arxiv": paper.arxiv, "version": paper.version, "citation": paper.citation()}


def paper_entry(table: reported.ReportedTable) -> dict[str, Any]:
    """One paper: its citation fields, the table(s) read, its judge, notes and derived values."""
    return {"benchmark": table.benchmark, **_paper(table), "table": table.table, "judge": table.judge,
            "notes": list(table.notes), "derived": dict(table.derived)}


def records(tables: list[reported.ReportedTable]) -> list[dict[str, Any]]:
    """Every paper's rows, with the ids the site gives them."""
    ids = iter(row["id"] for row in reported.reported_rows(KIND, tables))  # one per row, in this order
    out = []
    for table in tables:
        for row in table.rows:
            out.append({"id": next(ids), "benchmark": table.benchmark, "model": row.model,
                        "aliases": list(row.aliases), "row_kind": row.kind, "thinking": row.thinking,
                        "open": row.open, "frames": row.frames, "params_b": row.params_b,
                        "paper": _paper(table), "table": row.table or table.table, "judge": table.judge,
                        "scores": row.scores})
    return out


def build(tables: list[reported.ReportedTable] | None = None) -> tuple[bytes, str]:
    """The document for these tables (default: the site's data files) and its version."""
    tables = reported.load_reported() if tables is None else tables
    results, papers = records(tables), [paper_entry(t) for t in tables]
    # the version covers the papers' notes too: a download cached under it must not outlive a change
    body = json.dumps({"papers": papers, "results": results}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    tag = "sha256:" + hashlib.sha256(body.encode()).hexdigest()[:16]
    header = {"schema_version": SCHEMA_VERSION, "kind": KIND, "code_version": CODE_VERSION, "table_version": tag,
              "rows": len(results), "papers": papers}
    return json.dumps({**header, "results": results}, ensure_ascii=False, indent=1).encode(), tag


@functools.lru_cache(maxsize=1)
def _built() -> tuple[bytes, str]:
    return build()


def document() -> bytes:
    return _built()[0]


def version() -> str:
    return _built()[1]
