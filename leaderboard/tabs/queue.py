"""The Queue tab: every request by state, and the signed-in user's own submissions and logs."""

from __future__ import annotations

import logging
from collections.abc import Callable

import gradio as gr
import pandas as pd

from results import markup
from leaderboard import views
from leaderboard.tabs import model_pages
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import GENERIC_ERROR, LOG_TAIL_LINES, current_user, done, failsafe, status
from leaderboard.tabs.submit import declared_metadata
from submissions.errors import SubmissionError
from submissions.submit import Identity, correct_declared
from submissions.stores.sharded import read_sharded


log = logging.getLogger("leaderboard.ui")


class QueueHandlers(BaseHandlers):
    """The Queue tab's callbacks: a user sees only their own submissions and logs."""

    @failsafe(outputs=4)
    def queue_tables(self) -> tuple:
        shown = views.queue_view(self.queue.requests())
        return shown.pending, shown.running, shown.finished, shown.failed

    def _read_log(self, request_state: tuple) -> Callable[[str], str | None]:
        def read(path: str) -> str | None:
            key = (path, request_state)
            if key not in self._logs:
                found = read_sharded(self.stores.private, path)[1]  # a log from before sharding where it is
                if len(self._logs) > 1000:
                    self._logs.clear()
                self._logs[key] = found.data.decode("utf-8", errors="replace") if found else None
            return self._logs[key]
        return read

    @failsafe()
    def my_submissions(self, profile: gr.OAuthProfile | None) -> pd.DataFrame:
        """The signed-in user's own requests, newest first; nobody else's. A finished one
        says where its row is (ranked, or shown unranked and why)."""
        user = current_user(profile, self.settings)
        requests = self.queue.requests()
        finished = [r for r in requests if r.status.value == "FINISHED" and user and r.submitter == user]
        places = {r.id: views.place_text(self.board(r.suite_id), r.id) for r in finished}
        return views.my_submissions(requests, user, places)

    @failsafe()
    def correctable(self, profile: gr.OAuthProfile | None, chosen: str | None) -> gr.Dropdown:
        """The user's own prediction files whose declared settings can be corrected."""
        user = current_user(profile, self.settings)
        mine = [r for r in self.queue.requests() if user and r.submitter == user and r.kind == "predictions"
                and r.status.value in ("FINISHED", "PENDING")]
        ids = [r.id for r in mine]
        return gr.Dropdown(choices=[(f"{r.model} · {r.id}", r.id) for r in mine],
                           value=chosen if chosen in ids else None)

    @failsafe(outputs=4)
    def declared(self, profile: gr.OAuthProfile | None, submission: str | None) -> tuple[str, str, str, bool]:
        """What the user declared about one of their own prediction files, to start the form from."""
        user = current_user(profile, self.settings)
        found = [r for r in self.queue.requests() if r.id == submission and user and r.submitter == user]
        return views.declared_fields(found[0].metadata if found else {})

    def correct(self, submission: str | None, params: str, weights: str, frames: str, thinking: bool,
                profile: gr.OAuthProfile | None) -> str:
        """Replace the declared settings of one of the user's own prediction files; it is
        scored again with them (no upload, no quota)."""
        user = current_user(profile, self.settings)
        if not user:
            return status("Sign in with Hugging Face to correct your submissions.", ok=False)
        if not submission:
            return status("Pick one of your prediction files first.", ok=False)
        try:
            declared = declared_metadata(params, weights, frames, thinking)
            request = correct_declared(self.stores, self.settings, Identity(user), submission, declared)
        except (ValueError, SubmissionError) as e:
            return status(str(e), ok=False)
        except Exception:  # noqa: BLE001
            log.exception("correcting %s failed", submission)
            return status(GENERIC_ERROR, ok=False)
        self.queue.requests(fresh=True)
        self.wake_worker()
        return done(f"Corrected: `{request.id}` is {request.status.value} and will be scored again with "
                    f"{markup.escape(views.declared_summary(declared))}; its row is replaced when that is done.")

    @failsafe()
    def log_picker(self, profile: gr.OAuthProfile | None, chosen: str | None) -> gr.Dropdown:
        """The user's own submissions to pick a log from (the choice stays while it exists)."""
        mine = self.my_submissions(profile)
        ids = list(mine["Submission"])
        labels = [f"{model} · {status} · {sid}" for sid, model, status in
                  zip(ids, mine["Model"], mine["Status"])]
        return gr.Dropdown(choices=list(zip(labels, ids)), value=chosen if chosen in ids else None)

    @failsafe()
    def my_log(self, profile: gr.OAuthProfile | None, submission: str | None) -> str:
        """The end of the log of one of the user's own submissions (views.my_log)."""
        user = current_user(profile, self.settings)
        requests = [r for r in self.queue.requests() if r.id == submission]
        # A log is read again only when its request moved (status, progress, attempt).
        state = tuple((r.id, r.status.value, r.progress.done, r.attempt, r.log_path) for r in requests)
        return views.my_log(requests, user, submission, self._read_log(state), LOG_TAIL_LINES)


def px(*percent: int) -> list[str]:
    """Column widths in pixels, as shares of a 1,200 px table: a phone scrolls the table
    sideways instead of squeezing "FINISHED" into a few letters."""
    return [f"{round(12 * p)}px" for p in percent]


def build(h: QueueHandlers, signature: gr.State) -> None:
    with gr.Tab("Queue", id="queue", elem_id="tab-queue"):
        gr.Markdown("Every submission and where it stands; failures stay here with their reason. "
                    "Tables refresh by themselves; an empty table means no submission is in that state now.",
                    elem_id="queue-intro")
        with gr.Accordion("Failed", open=True):
            failed = gr.Dataframe(pd.DataFrame(columns=list(views.FAILED_COLUMNS)), interactive=False, wrap=True,
                                  label="Failed", elem_id="queue-failed",
                                  column_widths=px(17, 13, 9, 10, 12, 10, 29))
        with gr.Accordion("Running", open=True):
            running = gr.Dataframe(pd.DataFrame(columns=list(views.RUNNING_COLUMNS)), interactive=False,
                                   label="Running", elem_id="queue-running")
        with gr.Accordion("Pending", open=True):
            pending = gr.Dataframe(pd.DataFrame(columns=list(views.PENDING_COLUMNS)), interactive=False,
                                   label="Pending", elem_id="queue-table")
        with gr.Accordion("Finished", open=False):
            finished = gr.Dataframe(pd.DataFrame(columns=list(views.FINISHED_COLUMNS)), interactive=False,
                                    label="Finished", elem_id="queue-finished")
        with gr.Accordion("My submissions", open=True):
            mine = gr.Dataframe(pd.DataFrame(columns=list(views.MINE_COLUMNS)), interactive=False, wrap=True,
                                label="My submissions", elem_id="my-submissions",
                                column_widths=px(19, 14, 10, 13, 9, 22, 13))
            model_pages.build(h, signature, mine)  # a verified model run onto its model's Hub page
            with gr.Accordion("Correct the declared settings of a prediction file", open=False,
                              elem_id="correct-settings"):
                gr.Markdown("What you stated about a file (frames, parameters, weights, thinking) decides how its "
                            "row is labelled and whether it is ranked. Pick the file: the form shows what you "
                            "stated; change what is wrong. The file is scored again with the new settings; no "
                            "upload, nothing counted against your quota.")
                with gr.Row():
                    fix_pick = gr.Dropdown([], value=None, label="Prediction file", scale=2, elem_id="correct-pick",
                                           allow_custom_value=True)
                    fix_params = gr.Textbox(label="Parameters (billions)", elem_id="correct-params")
                    fix_weights = gr.Radio(["open", "closed", "not stated"], value="not stated", label="Weights",
                                           elem_id="correct-open")
                    fix_frames = gr.Textbox(label="Frames per video (empty: as the call list gives)",
                                            elem_id="correct-frames")
                    fix_thinking = gr.Checkbox(label="Thinking mode", value=False, elem_id="correct-thinking")
                fix = gr.Button("Correct and score again", elem_id="correct-button")
                fixed = gr.Markdown(elem_id="correct-status", latex_delimiters=[])
            with gr.Row():
                # custom values: the API may name a submission; my_log shows only the caller's own
                chosen = gr.Dropdown([], value=None, label="Show the log of", scale=1, elem_id="log-pick",
                                     allow_custom_value=True)
                shown_log = gr.Code("", language=None, label="Log (last lines)", interactive=False, scale=3,
                                    wrap_lines=True,
                                    elem_id="my-log", max_lines=LOG_TAIL_LINES)
    signature.change(h.queue_tables, None, [pending, running, finished, failed], api_name="queue_tables")
    signature.change(h.my_submissions, None, mine, api_name="my_submissions")
    signature.change(h.log_picker, [chosen], chosen, api_name="log_picker")
    signature.change(h.correctable, [fix_pick], fix_pick, api_visibility="private")
    fix_pick.change(h.declared, [fix_pick], [fix_params, fix_weights, fix_frames, fix_thinking],
                    api_visibility="private")
    fix.click(h.correct, [fix_pick, fix_params, fix_weights, fix_frames, fix_thinking], fixed,
              api_name="correct_settings", concurrency_limit=4)
    gr.on([chosen.change, signature.change], h.my_log, [chosen], shown_log, api_name="my_log")
