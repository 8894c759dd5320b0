"""The raw-outputs download, served by the site's own process beside the page (app.py hands
these routes to Gradio's FastAPI app, ahead of Gradio's own; the Downloads tab's button
fetches it):

    GET /raw-outputs/<submission id>     one of the caller's own model runs' raw outputs (JSONL)

Who the caller is comes from the request itself, never from the page: on a Space, the
Hugging Face sign-in that Gradio's OAuth keeps in the signed session cookie; off a Space,
LEADERBOARD_DEV_USER (leaderboard/tabs/common.py: current_user). The file is built for each
request (leaderboard/downloads.py: own_outputs) and never written where Gradio's public file
route (/gradio_api/file=...) would hand it to anyone holding the link. Refusals are JSON,
{"error": "..."}: 401 without a sign-in, 403 for a run that is not the caller's (the same
whether it is someone else's or does not exist), 404 for the caller's own run that has no
raw outputs, 503 when the stores cannot be read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute

from leaderboard.downloads import OUTPUTS_PATH
from leaderboard.errors import DownloadRefused, OutputsNotStored
from leaderboard.tabs.common import current_user  # the site's one notion of who is signed in

if TYPE_CHECKING:
    from space_config.settings import Settings

log = logging.getLogger(__name__)

Outputs = Callable[[str | None, str], tuple[str, bytes]]  # (user, submission) -> (file name, bytes)


def signed_in_profile(request: Request) -> dict[str, Any] | None:
    """The Hugging Face profile of the request's session, as gradio.oauth stores it after a
    sign-in (`oauth_info` -> `userinfo`), unless expired; None without a session (no
    SessionMiddleware runs off a Space) or a valid sign-in in it."""
    session = request.scope.get("session") or {}  # a cookie that fails its signature reads as empty
    info = session.get("oauth_info")
    if not isinstance(info, dict):
        return None
    expires = info.get("expires_at")
    if isinstance(expires, (int, float)) and expires < time.time():
        return None
    profile = info.get("userinfo")
    return profile if isinstance(profile, dict) else None


def _refusal(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={"Cache-Control": "no-store"})


def routes(outputs: Outputs, settings: Settings) -> list[APIRoute]:
    """The download's route; `outputs(user, submission)` is the owner's file or DownloadRefused."""

    def raw_outputs(request: Request, submission: str) -> Response:
        user = current_user(signed_in_profile(request), settings)
        try:
            name, data = outputs(user, submission)
        except OutputsNotStored as e:
            return _refusal(404, str(e))
        except DownloadRefused as e:
            return _refusal(401 if not user else 403, str(e))
        except Exception:  # noqa: BLE001 - the site stays up; details go to its log
            log.exception("serving the raw outputs of %s failed", submission)
            return _refusal(503, "The stores could not be read just now; try again shortly.")
        # the name is made of [A-Za-z0-9._-] only (downloads.outputs_name): safe in the header as it is
        return Response(data, media_type="application/jsonl", headers={
            "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "private, no-store",
            "X-Content-Type-Options": "nosniff"})

    return [APIRoute(f"{OUTPUTS_PATH}/{{submission}}", raw_outputs, methods=["GET"], name="raw_outputs")]
