"""The submit service: what the Submit tab calls.

    login -> validate -> duplicate? quota? -> store the upload -> admit: PENDING request

Every refusal raises `Refused(reason, message)` before the request is written, so a
refused submission leaves no request, no file and no trace in anyone's quota. The
duplicate and quota rules are decided by `Queue.admit` in one compare-and-swap, so
parallel submissions cannot all pass a check made before any of them was stored. The submitter is
always the signed-in Hugging Face user (`Identity.from_oauth`); no form field can set it.

Suites: `settings.suite` names the suite submissions are evaluated on; "demo" means the
demo suite in the suite store (the folder whose name starts with "demo-").
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from evaluator.hashing import file_sha256
from evaluator.records import Call
from evaluator.reference import budget_errors, budgets_for
from evaluator.shards import sharded
from space_config.settings import Settings
from submissions import near_duplicates
from submissions.errors import NotFoundError, Refused, SubmissionUnconfirmed
from submissions.queue import Queue
from submissions.quotas import check_quota, model_org, quota_usage, same_user
from submissions.requests import Request, Status, new_id, utcnow
from submissions.stores.base import Store
from submissions.suites import explain_refusal, resolve_suite_id, suite_manifest
from submissions.validation import (
    HubClient,
    ModelForm,
    ValidatedModel,
    clean_metadata,
    validate_model,
    validate_predictions,
)

if TYPE_CHECKING:
    from submissions.stores import Stores

log = logging.getLogger(__name__)

MAX_NAME = 100


# -- who submits --------------------------------------------------------------------------

@dataclass(frozen=True)
class Identity:
    """The signed-in submitter. Only built from the login, never from form data."""

    username: str

    @classmethod
    def from_oauth(cls, profile: Any) -> Identity:
        """From gradio's `gr.OAuthProfile` (None when nobody is signed in)."""
        if profile is None:
            raise Refused("login", "Sign in with Hugging Face to submit.")
        username = getattr(profile, "username", None)
        if username is None and isinstance(profile, Mapping):
            username = profile.get("preferred_username")  # the OAuth claim gradio reads it from
        if not isinstance(username, str) or not username.strip():
            raise Refused("login", "Sign in with Hugging Face to submit.")
        return cls(username.strip())


def _identity(who: Identity | Any) -> Identity:
    # The app may hand us its OAuth profile directly; both mean the same signed-in user.
    return who if isinstance(who, Identity) else Identity.from_oauth(who)


# Parsed call lists kept in the site process: the current suite and one more, so a switch
# of suite does not thrash; a full-size call list is about 17k calls (tens of MB parsed).
CALL_LISTS_KEPT = 2


class _ParsedCallLists:
    """Call lists by (path, store version), least recently used dropped first.

    Parsing calls.jsonl is most of a submission's cost at full size, and the file only
    changes with the suite; keying by the version the store read it at (content hash
    locally, head commit on the Hub) re-parses exactly when it changed."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._parsed: OrderedDict[tuple[str, str], Mapping[str, Call]] = OrderedDict()
        self._lock = threading.Lock()  # the site validates uploads on several threads

    def get(self, key: tuple[str, str], data: bytes) -> Mapping[str, Call]:
        with self._lock:
            if key in self._parsed:
                self._parsed.move_to_end(key)
                return self._parsed[key]
        calls = _parse_calls(data)  # outside the lock: a miss must not stall other submissions
        with self._lock:
            self._parsed[key] = calls
            self._parsed.move_to_end(key)
            while len(self._parsed) > self.size:
                self._parsed.popitem(last=False)
        return calls

    def clear(self) -> None:
        with self._lock:
            self._parsed.clear()


_call_lists = _ParsedCallLists(CALL_LISTS_KEPT)


def clear_call_lists() -> None:
    """Forget every parsed call list (benchmarks time the uncached path with it)."""
    _call_lists.clear()


def _parse_calls(data: bytes) -> Mapping[str, Call]:
    calls = (Call.from_json(json.loads(line)) for line in data.decode("utf-8").splitlines() if line.strip())
    # Read-only: every submission shares this mapping.
    return MappingProxyType({c.id: c for c in calls})


def call_list_bytes(store: Store, suite_id: str):
    """The suite's calls.jsonl as read from the store (Versioned: data and version)."""
    path = f"{suite_id}/calls.jsonl"
    found = store.read(path)
    if found is None:
        raise NotFoundError(f"No suite '{suite_id}' in the {store.name} store (no {path}).")
    return found


def parsed_calls(key: tuple[str, str], data: bytes) -> Mapping[str, Call]:
    """A call list's bytes parsed, kept per `key` (store path, version) like read_calls does;
    for a process that gets the bytes from elsewhere (the site's validation process)."""
    return _call_lists.get(key, data)


def read_calls(store: Store, suite_id: str) -> Mapping[str, Call]:
    """A suite's call list by id, read from the store's calls.jsonl alone (read-only).

    Validating a prediction file needs nothing else; loading the whole suite folder
    would make the Space download every video of the suite from the Hub. The file is
    read every time (its version decides), parsed only when that version is new."""
    found = call_list_bytes(store, suite_id)
    return parsed_calls(call_list_key(store, suite_id, found.version), found.data)


def call_list_key(store: Store, suite_id: str, version: str) -> tuple[str, str]:
    return f"{store.name}/{suite_id}/calls.jsonl", version


# -- shared steps -------------------------------------------------------------------------------

def _check_duplicate(candidate: Request, requests: list[Request]) -> None:
    """Refuse what this submitter already submitted (any status). Only their own
    requests are compared: someone else submitting the same file or model first must
    neither block them nor be named to them."""
    key = candidate.dedup_key()
    for r in requests:
        if same_user(r.submitter, candidate.submitter) and r.dedup_key() == key:
            what = ("this exact prediction file" if candidate.kind == "predictions" else
                    f"'{candidate.model}' at commit {candidate.revision[:12]} with the same precision, frames "
                    f"and thinking settings")
            after = {"FAILED": " A maintainer can requeue it.", "CANCELLED": " A maintainer can requeue it.",
                     "FINISHED": " Its result is on the leaderboard."}.get(r.status.value, "")
            raise Refused("duplicate", f"You already submitted {what} on suite {candidate.suite_id} "
                                       f"(your submission {r.id}, now {r.status.value}).{after}")


def _check_near_duplicates(stores: Stores, settings: Settings, who: Identity, name: str, suite_id: str,
                           file_path: Path, requests: list[Request]) -> list[list[str]]:
    """Refuse a file that changes too few answers of an earlier scored (or queued) file of
    this submitter or of this model name (submissions/near_duplicates.py); the breakdown
    buckets it changes too little, to be published without their score."""
    minimum = settings.near_duplicate_items
    earlier = [r for r in requests if r.kind == "predictions" and r.suite_id == suite_id and r.predictions_path
               and r.status not in (Status.FAILED, Status.CANCELLED)
               and (same_user(r.submitter, who.username) or r.model.casefold() == name.casefold())]
    if minimum <= 1 or not earlier:
        return []
    new = near_duplicates.responses_of(file_path.read_bytes())
    calls = read_calls(stores.suite, suite_id)
    groups = near_duplicates.item_groups(stores.suite, suite_id)
    hidden: set[tuple[str, ...]] = set()
    for r in earlier:
        found = stores.private.read(r.predictions_path)
        if found is not None:
            old = near_duplicates.Earlier(r.id, same_user(r.submitter, who.username),
                                          near_duplicates.responses_of(found.data))
            hidden.update(near_duplicates.check(new, [old], calls, groups, minimum, settings.min_bucket_items))
    return [list(score) for score in sorted(hidden)]


def _rules(request: Request, settings: Settings, org: str | None) -> Callable[[list[Request]], None]:
    """The admission rules for `request`, as one check over the queue (see Queue.admit)."""
    def check(requests: list[Request]) -> None:
        _check_duplicate(request, requests)
        check_quota(requests, request.submitter, org, settings.quotas, utcnow())

    return check


def _display_name(name: str | None) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME or any(ch in name for ch in "\r\n\t"):
        raise Refused("validation", f"Give the model a name of 1 to {MAX_NAME} characters on one line; it is "
                                    f"shown on the leaderboard.")
    return name


def _metadata(metadata: Mapping[str, str] | None) -> dict[str, str]:
    try:
        return clean_metadata(metadata or {})
    except ValueError as e:
        raise Refused("validation", f"The submission's metadata has a problem: {e}.") from None


# -- the two kinds of submission ------------------------------------------------------------------

def submit_predictions(stores: Stores, settings: Settings, identity: Identity | Any, file_path: Path,
                       model_name: str, suite_id: str | None = None,
                       metadata: Mapping[str, str] | None = None, checked_sha256: str | None = None) -> Request:
    """Queue a prediction file for scoring. The file is validated against the suite's call
    list first; only then is it stored (private store, `predictions/<h>/<h>/<id>.jsonl`) and the
    PENDING request added. `checked_sha256`: the caller already validated a file with this
    hash against this suite (the site does it in a process of its own); it is validated
    again here unless the file still has that hash."""
    who = _identity(identity)
    name = _display_name(model_name)
    extra = _metadata(metadata)
    suite_id = suite_id or resolve_suite_id(stores, settings)
    file_path = Path(file_path)
    sha256 = file_sha256(file_path)
    if checked_sha256 is None or checked_sha256 != sha256:
        try:
            validate_predictions(file_path, read_calls(stores.suite, suite_id), settings)
        except Refused as e:  # a file built for another published suite: say so in one line
            raise Refused(e.reason, explain_refusal(stores, file_path, suite_id, str(e))) from None

    queue = Queue(stores.requests)
    close = _check_near_duplicates(stores, settings, who, name, suite_id, file_path, queue.all())
    request = Request(id=new_id(), kind="predictions", submitter=who.username, suite_id=suite_id, model=name,
                      predictions_sha256=sha256, metadata=extra, close_cells=close,
                      max_attempts=settings.worker.max_attempts)
    request.predictions_path = sharded("predictions", request.id, ".jsonl")  # one folder holds 10,000 at most
    rules = _rules(request, settings, None)
    rules(queue.all())  # refuse early, before uploading; the decision itself is admit's

    stores.private.upload_file(request.predictions_path, file_path,
                               message=f"Predictions of submission {request.id}")
    return _admit(queue, request, rules, stores)


def submit_model(stores: Stores, settings: Settings, identity: Identity | Any, form: Mapping[str, Any],
                 hub: HubClient | None = None, suite_id: str | None = None) -> Request:
    """Queue a Hub model for evaluation on `suite_id` (default: the site's suite), pinned to
    the commit its revision resolves to now."""
    who = _identity(identity)
    parsed = ModelForm.parse(form)  # unknown keys, a forged "submitter" included, are dropped here
    suite_id = resolve_suite_id(stores, settings, suite_id)
    if parsed.frames is not None and parsed.frame_budgets:
        raise Refused("validation", "Give frame budgets or one frame count for every call (`frames`, outside "
                                    "every paper's protocol), not both.")
    # before any Hub call; one count for every call replaces the budgets
    budgets = {} if parsed.frames is not None else frame_budgets(stores, suite_id, parsed.model, parsed.frame_budgets)
    model = validate_model(parsed, settings.model_rules, hub or HubClient(token=settings.hf_token))

    request = Request(id=new_id(), kind="model", submitter=who.username, suite_id=suite_id, model=model.model,
                      revision=model.sha, precision=model.precision, frames=parsed.frames,
                      frame_budgets={k: v["frames"] for k, v in budgets.items()},
                      frame_budget_notes={k: v["why"] for k, v in budgets.items()},
                      thinking=parsed.thinking, metadata=parsed.metadata | _model_metadata(model),
                      max_attempts=settings.worker.max_attempts)
    return _admit(Queue(stores.requests), request, _rules(request, settings, model_org(model.model)), stores)


def frame_budgets(stores: Stores, suite_id: str, model: str, declared: Mapping[str, int]) -> dict[str, dict]:
    """The frame budgets a model runs with on this suite (evaluator.reference.budgets_for),
    or Refused("validation") naming each paper's range a declared count lies outside."""
    names = list(suite_manifest(stores.suite, suite_id).get("benchmarks", {})) or None
    problems = budget_errors(dict(declared), names)
    if problems:
        raise Refused("validation", "Frame budgets: " + "; ".join(problems) + ".")
    return budgets_for(model, dict(declared), names)


def _model_metadata(model: ValidatedModel) -> dict[str, str]:
    """What validation learned, kept for display (facts from the Hub win over form text)."""
    found = {"params_billions": f"{model.params_billions:.2f}", "license": model.license,
             "revision_requested": model.revision}
    if model.architecture:
        found["architecture"] = model.architecture
    return found


def _admit(queue: Queue, request: Request, rules: Callable[[list[Request]], None], stores: Stores) -> Request:
    """Admit the request; on failure, remove its upload only once it is known that the
    request was not stored (an upload without a request is an orphan nobody scores, a
    request without its upload a submission that can only fail)."""
    try:
        return queue.admit(request, rules)
    except Refused:
        _discard_upload(stores, request)  # a refusal comes before anything is written
        raise
    except Exception as error:
        try:
            stored = queue.get(request.id)  # the outcome is unknown: look
        except NotFoundError:
            _discard_upload(stores, request)
            raise error from None
        except Exception:  # noqa: BLE001 - cannot tell: keep everything
            raise SubmissionUnconfirmed(
                f"The store stopped answering while your submission {request.id} was being queued, so we cannot "
                f"tell whether it was. Nothing was deleted. Look under Queue → My submissions in a few minutes: "
                f"if {request.id} is not there, submit again.") from error
        log.warning("queueing %s reported %s, but the request is stored: it was queued", request.id, error)
        return stored


def _discard_upload(stores: Stores, request: Request) -> None:
    if request.predictions_path:
        try:
            stores.private.delete(request.predictions_path, message=f"Undo upload of {request.id}")
        except Exception:  # noqa: BLE001 - an orphan upload is harmless; the refusal is what matters
            log.exception("could not remove the upload of refused submission %s", request.id)


def correct_declared(stores: Stores, settings: Settings, identity: Identity | Any, request_id: str,
                     declared: Mapping[str, str]) -> Request:
    """The signed-in submitter's correction of what they declared about their own
    prediction file (frames, parameters, weights, thinking): scored again with it, without
    a new upload and without spending quota (Queue.correct). Somebody else's submission
    is answered as unknown, so ids cannot be probed."""
    who = _identity(identity)
    queue = Queue(stores.requests)
    try:
        request = queue.get(request_id)
    except NotFoundError:
        request = None
    if request is None or not same_user(request.submitter, who.username):
        raise NotFoundError(f"You have no submission {request_id!r}.")
    return queue.correct(request_id, _metadata(declared))


# -- for the Submit tab ---------------------------------------------------------------------------------

def remaining_quota(stores: Stores, settings: Settings, identity: Identity | Any,
                    model: str | None = None) -> dict:
    """What the signed-in user may still submit: for each limit its use, limit, what
    remains and when the next slot frees (ISO time, None when nothing is counted).
    Pass `model` (a hub id) to include its org's limit."""
    who = _identity(identity)
    usage = quota_usage(Queue(stores.requests).all(), who.username, model_org(model) if model else None,
                        settings.quotas, utcnow())
    return {"user": who.username, "window_days": settings.quotas.window_days,
            **{name: u.as_dict() for name, u in usage.items()}}
