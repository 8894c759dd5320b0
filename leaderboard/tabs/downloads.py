"""The Downloads tab: the shown suite's snapshot (JSON, Parquet), where the JSON endpoint
is, and the signed-in user's model runs' raw outputs (leaderboard/downloads.py does the work).

    downloads = DownloadHandlers(h, snapshots)   # h: leaderboard.ui.Handlers
    downloads.snapshot(suite)                    # (info, JSON button, Parquet button)
    downloads.runs(chosen, profile)              # (the picker of the user's runs, status)
    downloads.outputs(submission, profile)       # (the raw-outputs button, status)
    downloads.own_outputs(user, submission)      # (file name, bytes) for leaderboard/outputs_api.py
    build(h, suite, generation, signature)       # layout and wiring, inside build_ui's gr.Tabs

Raw outputs never go through Gradio's file route, which serves a file to anyone holding its
link: the button has the browser fetch them from the site's own route (leaderboard/outputs_api.py),
which checks the sign-in of that very request.

Callbacks never raise into the page: a refusal is shown as its own message, anything
else as a generic one (logged).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import gradio as gr

from results import markup
from leaderboard import api, downloads, reported_export, views
from leaderboard.errors import DownloadRefused, LeaderboardError
from results.errors import ResultsError
from leaderboard.tabs.common import current_user, fill_when_open  # current_user: the site's one notion of who is signed in
from submissions.stores.sharded import read_sharded

if TYPE_CHECKING:
    from leaderboard.tabs.base import BaseHandlers

log = logging.getLogger("leaderboard.downloads_tab")

GENERIC_ERROR = "Something went wrong on our side; the maintainers have the details in the site's log."
INTRO = (f"The leaderboard of the suite shown, as data: every verified result with its scores, intervals and "
         f"settings, the same table the site reads. JSON and Parquet hold the same rows; both name their "
         f"suite, judges and code version and carry a `table_version` that changes whenever a result does. "
         f"Programs can fetch them from `{api.PREFIX}/leaderboard.json?suite=<suite id>` (and `.parquet`; "
         f"`{api.PREFIX}/index.json` lists the suites); the README documents the format. "
         f"The papers' reported rows are here too: pick 📄 Papers' reported results above (or fetch "
         f"`{api.PREFIX}/reported.json`).")
PAPERS_NOTE = (f"The papers' reported rows: pick 📄 Papers' reported results above, or fetch "
               f"`{api.PREFIX}/reported.json`.")
OUTPUTS_INTRO = ("**Your model runs' raw outputs.** For a model you submitted by its Hub id, the worker keeps "
                 "what the model answered to each call. They are yours to download: one JSON line per call "
                 "(`id`, `response`, and `confidence` / `context` where there is one), the prediction-file "
                 "format, so the file can be checked or submitted again. They never say which answers were "
                 "right: per-item results would give the answer key away.")


class DownloadHandlers:
    """The tab's callbacks, as plain methods the tests call."""

    def __init__(self, h: BaseHandlers, snapshots: downloads.Snapshots):
        self.h = h
        self.snapshots = snapshots

    # -- the snapshot ---------------------------------------------------------------------

    def snapshot(self, suite: str | None) -> tuple:
        """The info line and the two buttons for the suite shown (disabled where it has no
        snapshot: the papers' rows, a suite with no verified result yet)."""
        try:
            if suite == views.REPORTED_SUITE:
                return self.papers()
            entry = next((e for e in self.snapshots.index().suites if e.suite_id == suite), None)
            if entry is None:
                return (f"No snapshot for this choice: only suites with verified results have one "
                        f"({', '.join(f'`{s}`' for s in self.snapshots.suites()) or 'none yet'}). {PAPERS_NOTE}",
                        _button(None), _parquet(None))
            files = [self._public_file(entry, kind) for kind in ("json", "parquet")]
            info = (f"Suite `{entry.suite_id}` · **{entry.rows}** results · table version "
                    f"`{entry.table_version}` · written {entry.table_updated_at or 'not yet'}")
            return info, _button(files[0]), _parquet(files[1])
        except (LeaderboardError, ResultsError) as e:
            return markup.escape(str(e)), _button(None), _parquet(None)
        except Exception:  # noqa: BLE001 - the page stays usable
            log.exception("the snapshot of %s could not be prepared", suite)
            return GENERIC_ERROR, _button(None), _parquet(None)

    def papers(self) -> tuple:
        """The papers' reported rows: their JSON (with each row's paper, table and citation);
        no Parquet, as their columns differ from paper to paper."""
        data = reported_export.document()
        version = reported_export.version().split(":")[-1]
        path = _folder() / reported_export.FILE_NAME.replace(".json", f"-{version}.json")
        if not path.exists():
            _write(path, data)
        info = (f"The papers' reported rows · **{json.loads(data)['rows']}** rows, each with its paper, table and "
                f"citation · version `{reported_export.version()}` · JSON only "
                f"(`{api.PREFIX}/reported.json`)")
        return info, _button(str(path)), _parquet(None, NO_PARQUET)

    def _public_file(self, entry, kind: str) -> str:
        """The snapshot as a local file for gr.DownloadButton; its name carries the
        version, so an existing file is current."""
        version = entry.table_version.split(":")[-1]
        path = _folder() / f"leaderboard-{entry.suite_id}-{version}.{kind}"
        if not path.exists():
            data = self.snapshots.json(entry.suite_id) if kind == "json" else self.snapshots.parquet(entry.suite_id)
            _write(path, data)
        return str(path)

    # -- raw outputs --------------------------------------------------------------------------

    def _user(self, profile) -> str | None:
        return current_user(profile, self.h.settings)

    def runs(self, chosen: str | None, profile: gr.OAuthProfile | None) -> tuple:
        """The picker of the signed-in user's finished model runs (the choice stays while it exists)."""
        try:
            user = self._user(profile)
            choices = downloads.run_choices(self.h.queue.requests(), user)
        except Exception:  # noqa: BLE001
            log.exception("listing model runs failed")
            return gr.skip(), GENERIC_ERROR
        ids = [i for _, i in choices]
        if not user:
            note = downloads.SIGN_IN
        elif not choices:
            note = "You have no finished model run yet (a prediction file is already yours)."
        elif chosen in ids:
            note = gr.skip()  # what the last download said stays
        else:
            note = "Pick one of your model runs."
        return gr.update(choices=choices, value=chosen if chosen in ids else None), note

    def outputs(self, submission: str | None, profile: gr.OAuthProfile | None) -> tuple:
        """The raw-outputs button, on for one of the user's own runs (the download itself asks
        the site's route, which checks again); a refusal otherwise."""
        if not submission:
            return _enabled(False), ""
        try:
            name, data = self.own_outputs(self._user(profile), submission)
        except DownloadRefused as e:
            return _enabled(False), f"❌ {markup.escape(str(e))}"
        except Exception:  # noqa: BLE001
            log.exception("raw outputs of %s could not be prepared", submission)
            return _enabled(False), f"❌ {GENERIC_ERROR}"
        lines = data.count(b"\n")
        # the name is made of [A-Za-z0-9._-] only (downloads.outputs_name): safe in a code span as it is
        return _enabled(True), f"✅ {lines} calls answered in `{name}`."

    def own_outputs(self, user: str | None, submission: str) -> tuple[str, bytes]:
        """(file name, bytes) of one of `user`'s own runs; DownloadRefused otherwise."""
        return downloads.own_outputs(self.h.queue.requests(), user, submission, self._read_private, self.h.calls_for)

    def _read_private(self, path: str) -> bytes | None:
        found = read_sharded(self.h.stores.private, path)[1]  # a run's from before sharding where it is
        return found.data if found is not None else None


def _folder() -> Path:
    return Path(tempfile.gettempdir()) / "video-reasoning-leaderboard" / "exports"


def _button(path: str | None):
    return gr.update(value=path, interactive=path is not None)


PARQUET = "Download the leaderboard (Parquet)"
NO_PARQUET = "No Parquet for the papers' rows (JSON only)"  # their columns differ from paper to paper


def _parquet(path: str | None, label: str = PARQUET):
    """The Parquet button: its label says why it is off where the choice has no Parquet."""
    return gr.update(value=path, interactive=path is not None, label=label)


def _enabled(on: bool):
    return gr.update(interactive=on)


# The picked run's raw outputs from the site's route, as a link the browser follows: its own
# cookies go with it, and the route's Content-Disposition names and saves the file.
FETCH_OUTPUTS = f"""(submission) => {{
    if (!submission) return;
    const link = document.createElement("a");
    link.href = new URL({json.dumps(downloads.OUTPUTS_PATH.lstrip("/") + "/")} + encodeURIComponent(submission),
                        document.baseURI).href;
    link.download = "";
    document.body.appendChild(link);
    link.click();
    link.remove();
}}"""


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(path)


def build(h: BaseHandlers, suite, generation, signature, opened) -> DownloadHandlers:
    """The tab, inside build_ui's gr.Tabs (filled when opened); returns its handlers (their
    Snapshots and raw outputs are what the site's routes serve)."""
    snapshots = downloads.Snapshots(h.stores.results, h.source, h.settings)
    d = DownloadHandlers(h, snapshots)
    with gr.Tab("Downloads", id="downloads", elem_id="tab-downloads") as tab:
        gr.Markdown(INTRO, elem_id="downloads-intro")
        info = gr.Markdown(elem_id="snapshot-info")
        with gr.Row():
            as_json = gr.DownloadButton("Download the leaderboard (JSON)", interactive=False,
                                        elem_id="download-snapshot-json")
            as_parquet = gr.DownloadButton(PARQUET, interactive=False,
                                           elem_id="download-snapshot-parquet")
        gr.Markdown(OUTPUTS_INTRO, elem_id="outputs-intro")
        with gr.Row():
            # custom values: the API may name a submission; `outputs` hands out only the caller's own
            pick = gr.Dropdown([], value=None, label="Your model run", allow_custom_value=True, scale=2,
                               elem_id="outputs-pick")
            # no file of its own (gradio would serve it to anyone holding the link): FETCH_OUTPUTS on click
            get = gr.DownloadButton("Download raw outputs (JSONL)", interactive=False, scale=1,
                                    elem_id="download-outputs")
        note = gr.Markdown(elem_id="outputs-status", latex_delimiters=[])
    fill_when_open(tab, "downloads", opened, suite, generation, d.snapshot, [suite], [info, as_json, as_parquet],
                   "snapshot_files", show_progress="hidden")
    gr.on([tab.select, signature.change], d.runs, [pick], [pick, note], api_name="my_model_runs",
          show_progress="hidden")
    pick.change(d.outputs, [pick], [get, note], api_name="my_raw_outputs")
    get.click(None, [pick], None, js=FETCH_OUTPUTS, api_visibility="private")
    return d
