"""The Submit tab: a prediction file or a Hub model, the signed-in user's quota, the call list."""

from __future__ import annotations

import json
import logging
import re
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr

from evaluator import reference
from evaluator.protocol_card import declared_frames_differ
from evaluator.errors import EvaluatorError
from evaluator.suite import with_video_files
from results import markup
from leaderboard import views
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import GENERIC_ERROR, current_user, done, failsafe, on_space, status
from leaderboard.views.submit_notes import budget_name, checked_text, unread_text, videos_text
from submissions.errors import SubmissionError
from submissions.submit import Identity, read_calls, remaining_quota, submit_model, submit_predictions
from submissions.suites import explain_refusal, suite_manifest

log = logging.getLogger("leaderboard.ui")

PREDICTION_STEPS = """1. Download the call list: one JSON record per call (its prompt, and per video its file, a path
   inside the suite's folder named above, and the frame times to show).
2. Answer every call with your model and write one JSON line per call:
   `{"id": "<the call's id>", "response": "<your model's output>"}`, optionally with `"confidence": 0-100`
   (Video SimpleQA: its prompt asks for a `confidence_score` inside the reply, which is read where this field
   is absent; the field wins where both are given).
   - **CausalStep** calls answered in context (their record has `context`) hold `context.placeholder` where your
     model's previous answer goes: take the option your model chose for the call(s) in `context.after`, put
     that option's text from `context.choices` in place of the placeholder, and add its label to the line:
     `"context": "B"`. Where those calls got different labels, write one line per label.
   - **Video SimpleQA**'s protocol averages three runs at temperature 1.0: give runs 2 and 3 as further lines
     with `"run": 2` and `"run": 3` (one run is scored too, and its protocol card says so).
3. Upload the file: it is checked at once, and every problem is listed with its line. A refused file is not
   stored and does not count against your quota."""


BUDGETS_NOTE = ("**Frame budgets.** Where a paper let each model choose how many frames it sees, you may too, "
                "within the paper's range. Leave a field blank for the paper's own count where the paper ran your "
                "model, else its default. Rows within the ranges are ranked together; the card shows each count.")


def budget_rules() -> dict:
    """The frame budgets a model's author may choose (evaluator/reference.py), in order."""
    return {key: rule for key, rule in reference.frame_rules().items() if rule.budget}


def budget_keys() -> list[str]:
    return list(budget_rules())


def budget_label(key: str) -> str:
    rule = budget_rules().get(key)
    return rule.name if rule else key


def optional_number(text: str | float | None, what: str, integer: bool) -> float | int | None:
    """A form's optional positive number; ValueError naming the field otherwise."""
    if text is None or not str(text).strip():
        return None
    try:
        value = float(str(text).strip())
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf") or (integer and not value.is_integer()):
        kind = "a whole number" if integer else "a number"
        raise ValueError(f"{what}: give {kind} above 0 (you wrote {str(text).strip()[:40]!r}), or leave it empty.")
    return int(value) if integer else value


def declared_metadata(params: str | float | None, weights: str | None, frames: str | float | None,
                      thinking: bool) -> dict[str, str]:
    """What a prediction file's submitter states about it, as the request's metadata;
    ValueError naming the field that is wrong."""
    size = optional_number(params, "Parameters (billions)", integer=False)
    count = optional_number(frames, "Frames per video", integer=True)
    metadata = {}
    if size is not None:
        metadata["params"] = f"{size:g}"
    if weights in ("open", "closed"):
        metadata["open"] = "yes" if weights == "open" else "no"
    if count is not None:
        metadata["frames"] = str(count)
    if thinking:
        metadata["thinking"] = "true"
    return metadata


HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def hub_model(text: str | None) -> dict[str, str]:
    """The Hub model a prediction file comes from, if the submitter names one: the row is
    then that model's (linked to its page, beside the papers' rows of it)."""
    text = (text or "").strip()
    if not text:
        return {}
    if not HUB_ID.fullmatch(text):
        raise ValueError(f"Hub model: give a model id as org/name (you wrote {text[:60]!r}), or leave it empty.")
    return {"hub_id": text}


FRAMES_OFF = ("⚠️ **One count of {count} frames for every call is outside this suite's reference protocol**, which "
              "gives each benchmark its paper's frames: {differ} differ from {count}{matching}. The row will be "
              "shown on the Leaderboard marked **≠ frames** and not ranked. Leave the field empty if your model saw "
              "the frames the call list gives; you can correct it later under Queue → My submissions.")

SUBMITTED = "✅ Submitted"  # how the status of a submission that was taken starts (SubmitHandlers._submitted)
FILE_SENT = " The file was sent and the file box emptied: choose a file to submit another."


class SubmitHandlers(BaseHandlers):
    """The Submit tab's callbacks: the submitter is always the signed-in user, never a form field."""

    def account(self, profile: gr.OAuthProfile | None) -> tuple[str, str]:
        """Who is signed in, and their remaining quota."""
        return self.signed_in(profile), self.quota(profile)

    def signed_in(self, profile: gr.OAuthProfile | None) -> str:
        user = current_user(profile, self.settings)
        if user and profile is None:
            return f"Signed in as **{markup.escape(user)}** (local development: LEADERBOARD_DEV_USER)."
        if user:
            return f"Signed in as **{markup.escape(user)}**."
        if on_space():
            return "Not signed in. Use **Sign in with Hugging Face** to submit."
        return ("Not signed in. Signing in with Hugging Face works on the Space; to submit on a local copy, "
                "start it with `LEADERBOARD_DEV_USER=<your name>`.")

    def quota(self, profile: gr.OAuthProfile | None) -> str:
        user = current_user(profile, self.settings)
        if not user:
            return "Sign in to see how many submissions you have left."
        try:
            q = remaining_quota(self.stores, self.settings, Identity(user))
        except Exception:  # the quota is information, not a gate (submit checks it again)
            log.exception("could not compute the quota of %s", user)
            return "Your remaining quota could not be read right now."
        used, pending = q["per_user"], q["pending"]
        text = (f"**{used['remaining']} of {used['limit']}** submissions left in the rolling {q['window_days']}-day "
                f"window; {pending['used']} of yours waiting or running now (at most {pending['limit']} at once).")
        if used["remaining"] == 0 and used["frees_at"]:
            text += f" The next slot frees at {used['frees_at'][:16].replace('T', ' ')} UTC."
        return text

    def calls_for(self, suite_id: str) -> dict:
        """The suite's call list (read_calls keeps it per store version: a changed list is re-read)."""
        return read_calls(self.stores.suite, suite_id)

    def target_text(self, page_suite: str | None = None) -> str:
        """The Submit tab's line on where submissions go: the suite on the page."""
        try:
            target = self.submission_suite(page_suite)
        except SubmissionError as e:
            return status(str(e), ok=False)
        shown = "" if target == page_suite else \
            " (the papers' reported results shown on the page take no submissions)" \
            if page_suite == views.REPORTED_SUITE else " (the suite shown on the page takes no submissions)"
        return (f"Your submission will be scored on **{markup.escape(views.suite_label(target))}**{shown}. To "
                "submit to another suite, pick it under Show. The suite's answers are never published. A submission "
                "that fails for our reasons (download, worker crash) does not count against your quota. "
                + videos_text(self.settings, self.stores.suite, target))

    def check_file(self, file: str | None, page_suite: str | None = None) -> str:
        """Validate an upload at once: every problem by line, or how many predictions it holds."""
        if not file:
            return ""
        try:
            suite_id = self.submission_suite(page_suite)
            checked = self.checker.check(file, self.stores.suite, suite_id, self.settings, read_answers=True)
        except (SubmissionError, EvaluatorError) as e:
            return status(str(e), ok=False)
        except Exception:
            log.exception("validating an upload failed")
            return status(GENERIC_ERROR, ok=False)
        if not checked.ok:
            return status(explain_refusal(self.stores, file, suite_id, checked.message), ok=False)
        return done(checked_text(checked, suite_id) + unread_text(checked))

    def _submitted(self, request) -> str:
        self.wake_worker()
        self.queue.requests(fresh=True)
        where = (" It will be shown there marked **≠ frames** and not ranked: the frame count you declared is "
                 "outside the suite's reference protocol (correct it under Queue → My submissions)."
                 if self.frames_off(request.metadata.get("frames"), request.suite_id) else "")
        return done(f"Submitted: `{request.id}` ({markup.escape(request.model)}) went into the queue for "
                    f"suite `{request.suite_id}`. Follow it under Queue → My submissions; once scored, its row is on "
                    f"the Leaderboard under Show → \"{markup.escape(views.suite_label(request.suite_id))}\".{where}")

    def frames_off(self, frames: str | None, suite_id: str) -> dict | None:
        """The suite's frame budgets when a declared count departs from them, else None."""
        budgets = suite_manifest(self.stores.suite, suite_id).get("frame_budgets") or {}
        return budgets if frames and declared_frames_differ(str(frames), budgets) else None

    @failsafe()
    def frames_note(self, frames: str | None, page_suite: str | None = None) -> str:
        """Under the Frames field, before anything is submitted: what a count off the
        suite's reference protocol does to the row."""
        try:
            count = optional_number(frames, "Frames per video", integer=True)
        except ValueError as e:
            return status(str(e), ok=False)
        budgets = self.frames_off(str(count) if count else None, self.submission_suite(page_suite))
        if budgets is None:
            return ""
        differ = ", ".join(f"{budget_name(k)} {v}" for k, v in sorted(budgets.items()) if int(v) not in (count, 1))
        same = ", ".join(budget_name(k) for k, v in sorted(budgets.items()) if int(v) == count)
        return FRAMES_OFF.format(count=count, differ=markup.escape(differ),
                                 matching=f" (it is the reference for {markup.escape(same)})" if same else "")

    def _submit(self, profile, do: Callable[[Identity], Any]) -> tuple[str, str]:
        user = current_user(profile, self.settings)
        if not user:
            return status("Sign in with Hugging Face to submit.", ok=False), self.quota(profile)
        try:
            message = self._submitted(do(Identity(user)))
        except (SubmissionError, EvaluatorError) as e:
            message = status(str(e), ok=False)
        except Exception:
            log.exception("a submission by %s failed", user)
            message = status(GENERIC_ERROR, ok=False)
        return message, self.quota(profile)

    def submit_file(self, file: str | None, name: str, params: str, weights: str, frames: str, thinking: bool,
                    page_suite: str | None, profile: gr.OAuthProfile | None,
                    hub_id: str | None = None) -> tuple[str, str]:
        """Queue an uploaded prediction file on the page's suite; the submitter is the signed-in user."""
        if not file:
            return status("Choose a prediction file to upload first.", ok=False), self.quota(profile)
        try:
            metadata = {"file_name": Path(file).name[:200]} | declared_metadata(params, weights, frames, thinking)
            metadata |= hub_model(hub_id)
        except ValueError as e:
            return status(str(e), ok=False), self.quota(profile)
        message, quota = self._submit(profile, lambda who: self._submit_checked(who, Path(file), name, metadata,
                                                                                page_suite))
        return (message + FILE_SENT if message.startswith(SUBMITTED) else message), quota

    def _submit_checked(self, who: Identity, file: Path, name: str, metadata: dict, page_suite: str | None) -> Any:
        """Validate in the checker's process, then queue (submit_predictions skips the second
        validation when the file still has the hash that was validated)."""
        suite_id = self.submission_suite(page_suite)
        checked = self.checker.check(file, self.stores.suite, suite_id, self.settings)
        if not checked.ok:
            raise SubmissionError(explain_refusal(self.stores, file, suite_id, checked.message))
        return submit_predictions(self.stores, self.settings, who, file, name, suite_id=suite_id, metadata=metadata,
                                  checked_sha256=checked.sha256)

    budget_form_keys: tuple[str, ...] = ()  # the frame-budget fields the form was built with, in order

    def submit_model(self, model: str, revision: str, precision: str, thinking: bool, page_suite: str | None,
                     profile: gr.OAuthProfile | None, *budgets: str | float | None) -> tuple[str, str]:
        """Queue a Hub model on the page's suite, pinned to the commit its revision resolves to.
        `budgets`: the frame-budget fields, in the order the form shows them (blank: the
        paper's rule)."""
        declared = {}
        try:
            for key, value in zip(self.budget_form_keys or tuple(budget_keys()), budgets):
                count = optional_number("" if value is None else str(value), budget_label(key), integer=True)
                if count is not None:
                    declared[key] = count
        except ValueError as e:
            return status(str(e), ok=False), self.quota(profile)
        form = {"model": model or "", "revision": revision or "main", "precision": precision,
                "frame_budgets": declared, "thinking": bool(thinking)}
        return self._submit(profile, lambda who: submit_model(self.stores, self.settings, who, form, hub=self.hub,
                                                              suite_id=self.submission_suite(page_suite)))

    @failsafe()
    def calls_file(self, page_suite: str | None = None) -> str:
        """The call list of the suite a submission would go to, as a local file for gr.DownloadButton."""
        suite_id = self.submission_suite(page_suite)
        # "with-files": call lists written before each call named its video file are not reused
        path = Path(tempfile.gettempdir()) / "video-reasoning-leaderboard" / "with-files" / f"calls-{suite_id}.jsonl"
        if not path.exists():  # suite ids carry a content hash: an existing file is current
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            partial.write_bytes(self._call_list_with_files(suite_id))
            partial.replace(path)
        return str(path)

    def _call_list_with_files(self, suite_id: str) -> bytes:
        """calls.jsonl with each frame plan's video file (as `python -m evaluator template` writes it)."""
        found = {name: self.stores.suite.read(f"{suite_id}/{name}") for name in ("calls.jsonl", "videos.jsonl")}
        for name, versioned in found.items():
            if versioned is None:
                raise EvaluatorError(f"Suite {suite_id} has no {name} in the suite store.")
        files = {v["id"]: v["file"] for v in map(json.loads, found["videos.jsonl"].data.decode().splitlines()) if v}
        lines = (line for line in found["calls.jsonl"].data.decode("utf-8").splitlines() if line.strip())
        return "".join(json.dumps(with_video_files(json.loads(line), files), ensure_ascii=False) + "\n"
                       for line in lines).encode("utf-8")


def build(h: SubmitHandlers, suite: gr.Radio) -> tuple[gr.Markdown, gr.Markdown, gr.Tab, gr.DownloadButton]:
    """The tab; `suite` is the page's suite picker, which submissions follow."""
    settings = h.settings
    with gr.Tab("Submit", id="submit", elem_id="tab-submit") as tab:
        with gr.Row():
            if on_space():
                gr.LoginButton(elem_id="login")
            signed = gr.Markdown(elem_id="signed-in")
        quota = gr.Markdown(elem_id="quota")
        target = gr.Markdown(h.target_text(suite.value), elem_id="submit-suite")
        with gr.Tabs():
            download = _file_tab(h, suite, quota)
            with gr.Tab("Hub model", id="submit-model"):
                gr.Markdown("A public model on the Hugging Face Hub, pinned to the commit its revision resolves "
                            "to now. It needs a license, safetensors weights and a config transformers can load.")
                with gr.Row():
                    model = gr.Textbox(label="Model id (org/name)", elem_id="model-id")
                    revision = gr.Textbox(label="Revision (branch, tag or commit)", value="main",
                                          elem_id="model-revision")
                    precision = gr.Dropdown(list(settings.model_rules.precisions),
                                            value=settings.model_rules.precisions[0], label="Precision",
                                            elem_id="model-precision")
                    model_thinking = gr.Checkbox(label="Thinking mode", value=False, elem_id="model-thinking")
                gr.Markdown(BUDGETS_NOTE, elem_id="model-budgets-note")
                h.budget_form_keys = tuple(budget_rules())  # the handler reads the fields in this order
                with gr.Row():
                    model_budgets = [gr.Textbox(label=f"{budget_label(key)}: frames ({rule.range_text()})",
                                                placeholder=f"blank: {rule.reference} or the paper's count",
                                                elem_id=f"model-frames-{key}")
                                     for key, rule in budget_rules().items()]
                send_model = gr.Button("Submit model", variant="primary", elem_id="submit-model-button")
                # each sub-tab its own status: a file's refusal is not shown under the model form
                model_result = gr.Markdown(elem_id="submit-model-status", latex_delimiters=[])
    send_model.click(h.submit_model, [model, revision, precision, model_thinking, suite, *model_budgets],
                     [model_result, quota], concurrency_limit=4, api_name="submit_model")
    # the target line and the call list follow the suite on the page
    gr.on([suite.change, tab.select], h.target_text, [suite], target, show_progress="hidden", api_visibility="private")
    gr.on([suite.change, tab.select], h.calls_file, [suite], download, api_name="calls_file")
    return signed, quota, tab, download


def _file_tab(h: SubmitHandlers, suite: gr.Radio, quota: gr.Markdown) -> gr.DownloadButton:
    """The prediction-file form, wired; returns its call-list button."""
    with gr.Tab("Prediction file", id="submit-predictions"):
        gr.Markdown(PREDICTION_STEPS, elem_id="submit-steps")
        download = gr.DownloadButton("Download the call list (calls.jsonl)", elem_id="download-calls")
        with gr.Row():
            name = gr.Textbox(label="Model name (shown on the leaderboard)", elem_id="submit-name")
            hub_id = gr.Textbox(label="Hub model it comes from (optional)", placeholder="org/name",
                                elem_id="submit-hub-id")
            params = gr.Textbox(label="Parameters (billions, optional)", placeholder="e.g. 7",
                                elem_id="submit-params")
            weights = gr.Radio(["open", "closed", "not stated"], value="not stated", label="Weights",
                               elem_id="submit-open")
            frames = gr.Textbox(label="Frames per video (optional)", placeholder="e.g. 32",
                                info="Empty: as the call list gives them", elem_id="submit-frames")
            thinking = gr.Checkbox(label="Thinking mode", value=False, elem_id="submit-thinking")
        frames_note = gr.Markdown(elem_id="submit-frames-note")
        upload = gr.File(label="Prediction file (JSON Lines)", file_types=[".jsonl", ".json"],
                         type="filepath", elem_id="submit-file")
        send = gr.Button("Submit prediction file", variant="primary", elem_id="submit-button")
        # No math: KaTeX would read "$$" in a quoted value, escaped or not.
        result = gr.Markdown(elem_id="submit-status", latex_delimiters=[])
    # Anyone may check a file before signing in; a small limit keeps big uploads from crowding the site.
    upload.upload(h.check_file, [upload, suite], result, api_name="check_file", concurrency_limit=2)
    upload.clear(kept_when_submitted, result, result, api_visibility="private")
    gr.on([frames.change, suite.change], h.frames_note, [frames, suite], frames_note, show_progress="hidden",
          trigger_mode="always_last", api_visibility="private")
    send.click(h.submit_file, [upload, name, params, weights, frames, thinking, suite, hub_id], [result, quota],
               concurrency_limit=4, api_name="submit_file"
               ).then(cleared_when_submitted, result, upload, show_progress="hidden", api_visibility="private")
    return download


def cleared_when_submitted(message: str | None):
    """After a click on Submit: the file box emptied when the file was taken (a second click
    cannot send it again), kept when it was refused (to fix and send again)."""
    return None if (message or "").startswith(SUBMITTED) else gr.skip()


def kept_when_submitted(message: str | None) -> str:
    """The status when the file box empties: a refusal or a check goes with its file, the
    line saying a submission was taken stays."""
    return message if (message or "").startswith(SUBMITTED) else ""
