"""Queue tab, My submissions: put one of your verified model runs on its model's Hub page, as a
pull request on the model repo adding the Hub's evaluation-results files (leaderboard/model_pages.py).

The pull request is opened with the signed-in user's own Hugging Face token (on a Space, the
sign-in's token, which the Space card asks to be allowed to open pull requests; off a Space,
HF_TOKEN, the developer's), never with the site's: the Hub decides whether that account may
open it. Clicking a row of My submissions picks it; the button opens the pull request, or shows
the one already opened for that result. The button is disabled while the Hub is asked and
enabled again whatever the answer; nothing of the leaderboard's is written either way.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import gradio as gr

from results import markup
from leaderboard.eval_results import HubResultsError, Site
from leaderboard.model_pages import Opened, open_results_pr, verified_row
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import GENERIC_ERROR, current_user, done, failsafe, status

if TYPE_CHECKING:
    from huggingface_hub import HfApi

log = logging.getLogger("leaderboard.ui")

EXPLAIN = ("A verified run of a Hub model can be shown on the model's own Hugging Face page: the button opens a "
           "pull request on the model repo adding one `.eval_results/<benchmark>.yaml` file per benchmark (its "
           "score, the run's date, a link back to its row here, and the suite version and protocol in its notes). "
           "It is opened with your Hugging Face account and shows on the model page as community-provided until "
           "the model's owners merge it. Click a row above to pick it.")


class ModelPageHandlers(BaseHandlers):
    """Opening a results pull request on a model repo, for the result's own submitter."""

    def hub_api(self, token: str | None) -> HfApi:
        """An HfApi with `token`, on the endpoint of the site's Hub client (the tests' stand-in)."""
        from huggingface_hub import HfApi

        endpoint = getattr(getattr(self.hub, "api", None), "endpoint", None)
        return HfApi(endpoint=endpoint, token=token) if endpoint else HfApi(token=token)

    def user_token(self, oauth: gr.OAuthToken | None) -> str | None:
        """The signed-in user's token: the Space sign-in's; off a Space the developer's HF_TOKEN."""
        if oauth is not None and getattr(oauth, "token", None):
            return oauth.token
        return None if self.settings.on_space else self.settings.hf_token

    def _mine(self, user: str | None) -> list:
        """The user's finished model runs whose row is published, newest first."""
        if not user:
            return []
        frame = self.source.frame
        published = set(frame["id"].astype("string").dropna()) if "id" in frame.columns else set()
        runs = [r for r in self.queue.requests() if r.submitter.lower() == user.lower() and r.kind == "model"
                and r.status.value == "FINISHED" and r.id in published]
        return sorted(runs, key=lambda r: (r.submitted_at, r.id), reverse=True)

    @failsafe()
    def hub_choices(self, profile: gr.OAuthProfile | None, chosen: str | None) -> gr.Dropdown:
        mine = self._mine(current_user(profile, self.settings))
        ids = [r.id for r in mine]
        return gr.Dropdown(choices=[(f"{r.model} · {r.suite_id} · {r.id}", r.id) for r in mine],
                           value=chosen if chosen in ids else None)

    @failsafe(outputs=2)
    def pick_for_hub(self, evt: gr.SelectData, profile: gr.OAuthProfile | None):
        """A click on a row of My submissions: that run picked, the section opened, when it can go."""
        row = getattr(evt, "row_value", None) or []
        ids = [r.id for r in self._mine(current_user(profile, self.settings))]
        if not row or row[0] not in ids:
            return gr.skip(), gr.skip()
        return gr.update(value=row[0]), gr.update(open=True)

    def open_pr(self, submission: str | None, profile: gr.OAuthProfile | None,
                oauth: gr.OAuthToken | None) -> tuple[str, dict]:
        """Open (or find) the pull request for one of the user's own verified runs: the status
        line, and the button enabled again."""
        again = gr.update(interactive=True)
        user = current_user(profile, self.settings)
        if not user:
            return status("Sign in with Hugging Face to put your results on a model page.", ok=False), again
        if not submission or submission not in {r.id for r in self._mine(user)}:
            return status("Pick one of your own verified model runs first (it must be on the leaderboard).",
                          ok=False), again
        token = self.user_token(oauth)
        if not token:
            return status("Your sign-in carries no Hugging Face token: sign out and in again.", ok=False), again
        try:
            row = verified_row(self.source.frame, submission)
            opened = open_results_pr(self.hub_api(token), row, Site.from_settings(self.settings))
        except HubResultsError as e:
            return status(str(e), ok=False), again
        except Exception:  # noqa: BLE001
            log.exception("opening the results pull request of %s failed", submission)
            return status(GENERIC_ERROR, ok=False), again
        return done(opened_text(opened, str(row["model"]))), again


def opened_text(opened: Opened, model: str) -> str:
    """The success line, the pull request's link in it."""
    link = f"[#{opened.num}]({opened.url})"
    name = markup.escape(model)
    files = ", ".join(f"`{path}`" for path in opened.files)
    if opened.new:
        return (f"Pull request {link} opened on {name}, adding {files}. It shows on the model page as "
                f"community-provided until the model's owners merge it.")
    if opened.status == "merged":
        return f"This result's pull request {link} on {name} is merged: its scores are on the model page already."
    return f"This result's pull request {link} on {name} is already open: nothing new was opened."


def build(h: ModelPageHandlers, signature: gr.State, mine: gr.Dataframe) -> None:
    """The section under My submissions (inside its accordion)."""
    with gr.Accordion("Put a verified result on its model's Hub page", open=False, elem_id="hub-results") as section:
        gr.Markdown(EXPLAIN)
        with gr.Row():
            pick = gr.Dropdown([], value=None, label="Verified model run", scale=3, elem_id="hub-pick",
                               allow_custom_value=True)
            button = gr.Button("Open a pull request on the model's page", scale=1, elem_id="hub-pr-button")
        said = gr.Markdown(elem_id="hub-pr-status", latex_delimiters=[])
    signature.change(h.hub_choices, [pick], pick, api_visibility="private")
    mine.select(h.pick_for_hub, None, [pick, section], api_visibility="private")
    button.click(lambda: gr.update(interactive=False), None, button, queue=False, api_visibility="private").then(
        h.open_pr, [pick], [said, button], api_name="open_results_pr", concurrency_limit=4)
