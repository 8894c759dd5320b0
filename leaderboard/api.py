"""The stable HTTP endpoint of the open exports, served by the site's own process (app.py
hands these routes to Gradio's FastAPI app, ahead of Gradio's own):

    GET /api/v1/leaderboard.json[?suite=<suite id or name>]      one suite's snapshot as JSON
    GET /api/v1/leaderboard.parquet[?suite=<suite id or name>]   the same as Parquet
    GET /api/v1/index.json                               every suite with a snapshot, its version
    GET /api/v1/reported.json                            the papers' reported rows, with their sources

Without `suite`, the site's own suite (LEADERBOARD_SUITE) is meant. The bodies are the
files of results/exports.py, byte for byte, and the papers' rows of
leaderboard/reported_export.py (docs/exports.md documents both); `?suite=` naming the papers'
rows as the site's suite picker does ("official (paper-reported)") gets those as JSON too.
Each answer has an ETag (the snapshot's table_version): a client that sends it back in
If-None-Match gets 304 until the suite's rows change. Errors are JSON,
{"error": "...", "suites": [...]}: 400 for a malformed suite id, 404 for a suite with no
verified result (the suites that have one are listed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute

from results import exports
from leaderboard import reported_export
from leaderboard.downloads import Snapshots
from leaderboard.views.columns import REPORTED_SUITE
from leaderboard.errors import SnapshotNotFound
from results.errors import ExportError

log = logging.getLogger(__name__)

PREFIX = "/api/v1"
FORMATS = {"json": "application/json", "parquet": "application/vnd.apache.parquet"}


def _error(status: int, message: str, suites: list[str]) -> JSONResponse:
    return JSONResponse({"error": message, "suites": suites}, status_code=status)


def routes(snapshots: Snapshots, default_suite: Callable[[], str | None],
           named: Callable[[str], str | None] = lambda name: None) -> list[APIRoute]:
    """The endpoint's routes; `default_suite()` names the suite meant when none is given, and
    `named(name)` the id of a suite given by its name ("official": the newest of that name)."""

    def serve(kind: str, request: Request, suite: str | None) -> Response:
        if suite in (REPORTED_SUITE, reported_export.KIND):
            return papers(kind, request)
        try:
            index = snapshots.index()
            known = [entry.suite_id for entry in index.suites]
            suite_id = suite or default_suite()
            if not suite_id:
                return _error(404, "This site has no suite of its own yet; name one with ?suite=<suite id>.", known)
            exports.check_suite_id(suite_id)
            if suite_id not in known:
                suite_id = named(suite_id) or suite_id
            entry = next((e for e in index.suites if e.suite_id == suite_id), None)
            tag = f'"{entry.table_version}-{kind}"' if entry is not None else None
            if tag is not None and request.headers.get("if-none-match") == tag:
                return Response(status_code=304, headers={"ETag": tag})
            data = snapshots.json(suite_id) if kind == "json" else snapshots.parquet(suite_id)
        except ExportError as e:
            return _error(400, str(e), [])
        except SnapshotNotFound as e:
            return _error(404, str(e), e.suites)
        except Exception:  # noqa: BLE001 - the site stays up; details go to its log
            log.exception("serving the %s snapshot of %s failed", kind, suite)
            return _error(503, "The results store could not be read just now; try again shortly.", [])
        headers = {"Cache-Control": "no-cache",
                   "Content-Disposition": f'inline; filename="leaderboard-{suite_id}.{kind}"'}
        if tag is not None:
            headers["ETag"] = tag
        return Response(data, media_type=FORMATS[kind], headers=headers)

    def leaderboard_json(request: Request, suite: str | None = None) -> Response:
        return serve("json", request, suite)

    def leaderboard_parquet(request: Request, suite: str | None = None) -> Response:
        return serve("parquet", request, suite)

    def reported_json(request: Request) -> Response:
        return papers("json", request)

    def index_json() -> Response:
        try:
            index = snapshots.index()
        except Exception:  # noqa: BLE001
            log.exception("reading the exports index failed")
            return _error(503, "The results store could not be read just now; try again shortly.", [])
        return Response(index.model_dump_json(indent=1), media_type="application/json",
                        headers={"Cache-Control": "no-cache"})

    return [APIRoute(f"{PREFIX}/leaderboard.json", leaderboard_json, methods=["GET"], name="leaderboard_json"),
            APIRoute(f"{PREFIX}/leaderboard.parquet", leaderboard_parquet, methods=["GET"],
                     name="leaderboard_parquet"),
            APIRoute(f"{PREFIX}/index.json", index_json, methods=["GET"], name="exports_index"),
            APIRoute(f"{PREFIX}/reported.json", reported_json, methods=["GET"], name="reported_json")]


def papers(kind: str, request: Request) -> Response:
    """The papers' reported rows (JSON only: their columns differ from paper to paper)."""
    if kind != "json":
        return _error(404, f"The papers' reported rows come as JSON only: {PREFIX}/reported.json.", [])
    try:
        data, tag = reported_export.document(), f'"{reported_export.version()}-json"'
    except Exception:  # noqa: BLE001 - the site stays up; details go to its log
        log.exception("building the papers' rows failed")
        return _error(503, "The papers' rows could not be read just now; try again shortly.", [])
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers={"ETag": tag})
    return Response(data, media_type=FORMATS["json"],
                    headers={"Cache-Control": "no-cache", "ETag": tag,
                             "Content-Disposition": f'inline; filename="{reported_export.FILE_NAME}"'})
