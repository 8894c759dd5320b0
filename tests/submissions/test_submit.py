"""The submit service (submissions/submit.py) and quotas (submissions/quotas.py), on real
local stores holding a real demo suite: identity, duplicates, quotas, and that a refused
submission stores nothing and costs nothing."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from datetime import timedelta
from pathlib import Path

import gradio as gr
import pytest
from test_validation import SHA, TAG_SHA, FakeHub, model_payload

from evaluator.baselines import predictions
from evaluator.predictions import write_predictions
from evaluator.shards import shard
from space_config.settings import Quotas, get_settings
from submissions.errors import ConflictError, NotFoundError, Refused, SubmissionUnconfirmed, TransientStoreError
from submissions.queue import Queue
from submissions.quotas import check_quota, counts_against_quota, quota_usage
from submissions.requests import Failure, Reason, Request, Status, utcnow
from submissions.stores import RetryingStore, Stores
from submissions.submit import (
    CALL_LISTS_KEPT,
    Identity,
    clear_call_lists,
    read_calls,
    remaining_quota,
    submit_model,
    submit_predictions,
)

from submissions.suites import resolve_suite_id  # noqa: E402

ALICE = Identity("alice")
BOB = Identity("bob")


@pytest.fixture
def stores(tmp_path, demo_dir) -> Stores:
    """Five local stores with the demo suite published, as the site's first start does."""
    from evaluator.suite import load_suite

    suite_id = load_suite(demo_dir / "suite").id
    stores = Stores.local(tmp_path / "home")
    stores.suite.upload_folder(suite_id, demo_dir / "suite")
    stores.answers.upload_folder(suite_id, demo_dir / "answers")
    return stores


@pytest.fixture
def suite_id(demo_suite) -> str:
    return demo_suite[0].id


def make_settings(tmp_path, **quotas):
    base = get_settings()
    return dataclasses.replace(base, home=tmp_path / "home", quotas=dataclasses.replace(Quotas(), **quotas))


@pytest.fixture
def settings(tmp_path):
    return make_settings(tmp_path, per_user=5, per_org=10, pending_per_user=10)


@pytest.fixture
def hub() -> FakeHub:
    fake = FakeHub()
    for name in ("acme/vid-7b", "acme/vid-13b", "acme/vid-2b", "other/cam-1b"):
        fake.add(model_payload(name), revisions={"v1.0": model_payload(name, sha=TAG_SHA)})
    fake.add(model_payload("acme/unlicensed", cardData={"language": ["en"]}, tags=["transformers"]))
    return fake


def preds_file(tmp_path: Path, suite, name: str = "preds.jsonl", baseline: str = "random") -> Path:
    path = tmp_path / name
    write_predictions(path, predictions(baseline, suite.calls))
    return path


def bad_file(tmp_path: Path, suite) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": suite.calls[0].id, "response": "A"}) + "\n"
                    + json.dumps({"id": suite.calls[1].id, "answer": "B"}) + "\n")
    return path


def stored_requests(stores: Stores) -> list[Request]:
    return Queue(stores.requests).all()


def put(stores: Stores, request: Request) -> Request:
    """Write a request as another part of the system (worker, maintainer) would have."""
    stores.requests.write(request.path, request.to_bytes())
    return request


def old_request(submitter: str, days_ago: float, suite_id: str, model: str = "someone/model", **fields) -> Request:
    fields.setdefault("kind", "model")
    return Request(submitter=submitter, suite_id=suite_id, model=model, revision=f"{int(days_ago * 1000):040d}",
                   precision="bfloat16", submitted_at=utcnow() - timedelta(days=days_ago), **fields)


# -- suites --------------------------------------------------------------------------------

def test_demo_resolves_to_the_published_demo_suite(stores, settings, suite_id):
    assert suite_id.startswith("demo-")
    assert resolve_suite_id(stores, settings) == suite_id


def test_a_configured_suite_that_is_not_published_is_a_clear_error(stores, settings, suite_id):
    with pytest.raises(NotFoundError) as caught:
        resolve_suite_id(stores, dataclasses.replace(settings, suite="official-v1-abc"))
    assert "Suite 'official-v1-abc' (LEADERBOARD_SUITE) is not in the suite store" in str(caught.value)
    assert suite_id in str(caught.value)  # says what is there
    assert resolve_suite_id(stores, dataclasses.replace(settings, suite=suite_id)) == suite_id


def test_no_demo_suite_is_a_clear_error(tmp_path, settings):
    with pytest.raises(NotFoundError, match="No demo suite in the suite store"):
        resolve_suite_id(Stores.local(tmp_path / "empty"), settings)


# -- the call list, parsed once per suite version ------------------------------------------------

def test_the_call_list_is_parsed_once_and_shared_read_only(stores, suite_id):
    clear_call_lists()
    first = read_calls(stores.suite, suite_id)
    assert read_calls(stores.suite, suite_id) is first
    with pytest.raises(TypeError):
        first["x"] = first[next(iter(first))]  # shared by every submission: nobody may change it


def test_a_changed_call_list_under_the_same_suite_id_is_read_again(stores, settings, suite_id, demo_suite,
                                                                   tmp_path):
    """Validation stays exact: a call removed from the published list is an unknown id at once."""
    suite = demo_suite[0]
    path = preds_file(tmp_path, suite)
    assert submit_predictions(stores, settings, ALICE, path, "before").status == Status.PENDING
    removed = suite.calls[0].id
    lines = stores.suite.read(f"{suite_id}/calls.jsonl").data.decode().splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line)["id"] != removed]
    stores.suite.write(f"{suite_id}/calls.jsonl", "".join(kept).encode())
    assert removed not in read_calls(stores.suite, suite_id)
    with pytest.raises(Refused, match=f"unknown call id '{removed}'"):
        submit_predictions(stores, settings, BOB, path, "after")


def test_only_a_few_call_lists_are_kept(stores, suite_id):
    clear_call_lists()
    path = f"{suite_id}/calls.jsonl"
    original = stores.suite.read(path).data
    first = read_calls(stores.suite, suite_id)
    for n in range(CALL_LISTS_KEPT):  # other versions push the first one out
        stores.suite.write(path, original + b"\n" * (n + 1))  # blank lines: same calls, new version
        read_calls(stores.suite, suite_id)
    stores.suite.write(path, original)
    again = read_calls(stores.suite, suite_id)
    assert again is not first and again == first


# -- identity --------------------------------------------------------------------------------

def test_identity_comes_from_the_oauth_profile():
    profile = gr.OAuthProfile({"name": "Alice A.", "preferred_username": "alice",
                               "profile": "https://huggingface.co/alice", "picture": ""})
    assert Identity.from_oauth(profile) == ALICE


@pytest.mark.parametrize("profile", [None, {"preferred_username": ""}])
def test_missing_login_is_refused(profile):
    with pytest.raises(Refused) as caught:
        Identity.from_oauth(profile)
    assert caught.value.reason == "login"
    assert str(caught.value) == "Sign in with Hugging Face to submit."


def test_submitting_without_login_stores_nothing(stores, settings, hub, demo_suite, tmp_path):
    with pytest.raises(Refused, match="Sign in with Hugging Face"):
        submit_model(stores, settings, None, {"model": "acme/vid-7b"}, hub)
    with pytest.raises(Refused, match="Sign in with Hugging Face"):
        submit_predictions(stores, settings, None, preds_file(tmp_path, demo_suite[0]), "my model")
    assert stored_requests(stores) == [] and stores.private.list() == []
    assert hub.calls == []


def test_a_forged_submitter_in_the_form_is_ignored(stores, settings, hub):
    form = {"model": "acme/vid-7b", "submitter": "mallory", "metadata": {"submitter": "mallory"}}
    request = submit_model(stores, settings, ALICE, form, hub)
    assert request.submitter == "alice"
    stored = stores.requests.read(request.path).data.decode()
    assert Request.from_bytes(stored.encode()).submitter == "alice"
    assert "mallory" not in stored


def test_the_oauth_profile_can_be_passed_directly(stores, settings, hub):
    profile = gr.OAuthProfile({"name": "", "preferred_username": "alice", "profile": "", "picture": ""})
    assert submit_model(stores, settings, profile, {"model": "acme/vid-7b"}, hub).submitter == "alice"


# -- model submissions ------------------------------------------------------------------------------

def test_frame_budgets_are_checked_before_the_hub_is_asked(stores, settings, hub):
    with pytest.raises(Refused, match=r"Video-MMMU lectures: 70 frames is outside the paper's range 10-64"):
        submit_model(stores, settings, ALICE, {"model": "acme/vid-7b", "frame_budgets": {"videommmu": 70}}, hub)
    with pytest.raises(Refused, match=r"not both"):
        submit_model(stores, settings, ALICE, {"model": "acme/vid-7b", "frames": 8,
                                               "frame_budgets": {"videommmu": 20}}, hub)
    assert hub.calls == [] and stored_requests(stores) == []
    request = submit_model(stores, settings, ALICE, {"model": "acme/vid-7b", "frame_budgets": {"videommmu": 20}},
                           hub)
    assert request.frame_budgets["videommmu"] == 20 and request.frames is None


def test_model_submission_is_queued_pending_pinned_to_the_commit(stores, settings, hub, suite_id):
    form = {"model": "acme/vid-7b", "revision": "v1.0", "precision": "float16", "frames": 64, "thinking": True,
            "metadata": {"model_type": "instruct"}}
    request = submit_model(stores, settings, ALICE, form, hub)
    assert Queue(stores.requests).get(request.id) == request
    assert (request.kind, request.status, request.suite_id) == ("model", Status.PENDING, suite_id)
    assert (request.model, request.revision, request.precision, request.frames, request.thinking) == \
        ("acme/vid-7b", TAG_SHA, "float16", 64, True)
    assert request.metadata["model_type"] == "instruct" and request.metadata["license"] == "apache-2.0"
    assert request.metadata["revision_requested"] == "v1.0"
    assert request.max_attempts == settings.worker.max_attempts
    assert stores.private.list() == []  # nothing uploaded for a model id


def test_a_refused_model_stores_nothing_and_costs_no_quota(stores, tmp_path, hub):
    settings = make_settings(tmp_path, per_user=1, per_org=10, pending_per_user=10)
    with pytest.raises(Refused, match="declares no license") as caught:
        submit_model(stores, settings, ALICE, {"model": "acme/unlicensed"}, hub)
    assert caught.value.reason == "validation"
    assert stored_requests(stores) == []
    assert remaining_quota(stores, settings, ALICE)["per_user"]["used"] == 0
    assert submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub).status == Status.PENDING


@pytest.mark.parametrize("status", [Status.PENDING, Status.RUNNING, Status.FINISHED, Status.FAILED,
                                    Status.CANCELLED])
def test_a_duplicate_model_is_refused_in_any_status(stores, settings, hub, status):
    first = submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    moved = first.moved(status)
    if status == Status.FAILED:
        moved.failure = Failure(reason=Reason.OUT_OF_MEMORY, message="CUDA out of memory")
    put(stores, moved)
    # the same user, another spelling of the id, and the commit itself rather than "main"
    with pytest.raises(Refused) as caught:
        submit_model(stores, settings, Identity("Alice"), {"model": "ACME/vid-7b", "revision": SHA}, hub)
    assert caught.value.reason == "duplicate"
    assert first.id in str(caught.value) and f"now {status.value}" in str(caught.value)
    assert len(stored_requests(stores)) == 1


def test_duplicates_are_per_submitter_and_never_name_someone_elses(stores, settings, hub):
    """Whoever submits a model first must not block its other users, nor be named to them."""
    first = submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    second = submit_model(stores, settings, BOB, {"model": "ACME/vid-7b", "revision": SHA}, hub)
    assert second.submitter == "bob" and second.id != first.id
    with pytest.raises(Refused) as caught:
        submit_model(stores, settings, BOB, {"model": "acme/vid-7b"}, hub)
    assert second.id in str(caught.value) and first.id not in str(caught.value)
    assert len(stored_requests(stores)) == 2


def test_a_different_setting_is_not_a_duplicate(stores, settings, hub):
    submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    for form in ({"precision": "float16"}, {"frames": 16}, {"thinking": True}, {"revision": "v1.0"}):
        submit_model(stores, settings, ALICE, {"model": "acme/vid-7b", **form}, hub)
    assert len(stored_requests(stores)) == 5


# -- prediction files ---------------------------------------------------------------------------------

def test_predictions_submitted_end_to_end(stores, settings, demo_suite, tmp_path, suite_id):
    path = preds_file(tmp_path, demo_suite[0])
    request = submit_predictions(stores, settings, ALICE, path, "My VideoLM", metadata={"notes": "8 frames"})
    assert Queue(stores.requests).get(request.id) == request
    assert (request.kind, request.status, request.submitter, request.model, request.suite_id) == \
        ("predictions", Status.PENDING, "alice", "My VideoLM", suite_id)
    assert request.predictions_path == f"predictions/{shard(request.id)}/{request.id}.jsonl"
    stored = stores.private.read(request.predictions_path).data
    assert stored == path.read_bytes()
    assert request.predictions_sha256 == hashlib.sha256(stored).hexdigest()
    assert request.metadata == {"notes": "8 frames"}
    assert stores.private.list() == [request.predictions_path]


def test_a_bad_prediction_file_is_refused_before_anything_is_stored_or_counted(stores, tmp_path, demo_suite):
    settings = make_settings(tmp_path, per_user=1, per_org=10, pending_per_user=10)
    before = remaining_quota(stores, settings, ALICE)
    with pytest.raises(Refused) as caught:
        submit_predictions(stores, settings, ALICE, bad_file(tmp_path, demo_suite[0]), "my model")
    assert caught.value.reason == "bad_predictions"
    assert "line 2: unknown field 'answer'" in str(caught.value)
    assert stored_requests(stores) == [] and stores.private.list() == []
    assert remaining_quota(stores, settings, ALICE) == before
    # the one slot is still free for a good file
    assert submit_predictions(stores, settings, ALICE, preds_file(tmp_path, demo_suite[0]), "m").status == \
        Status.PENDING


@pytest.mark.parametrize("status", [Status.PENDING, Status.FINISHED, Status.FAILED])
def test_the_same_prediction_file_twice_is_a_duplicate_in_any_status(stores, settings, demo_suite, tmp_path,
                                                                      status):
    path = preds_file(tmp_path, demo_suite[0])
    first = submit_predictions(stores, settings, ALICE, path, "run 1")
    moved = first.moved(status)
    if status == Status.FAILED:
        moved.failure = Failure(reason=Reason.INTERNAL, message="worker crashed")
    put(stores, moved)
    copy = tmp_path / "renamed.jsonl"
    copy.write_bytes(path.read_bytes())
    with pytest.raises(Refused) as caught:
        submit_predictions(stores, settings, ALICE, copy, "run 2")
    assert caught.value.reason == "duplicate" and "this exact prediction file" in str(caught.value)
    assert len(stored_requests(stores)) == 1 and stores.private.list() == [first.predictions_path]
    other = preds_file(tmp_path, demo_suite[0], "other.jsonl", baseline="first-option")
    assert submit_predictions(stores, settings, ALICE, other, "run 3").status == Status.PENDING


def test_someone_elses_copy_of_a_file_is_not_a_duplicate(stores, settings, demo_suite, tmp_path):
    path = preds_file(tmp_path, demo_suite[0])
    first = submit_predictions(stores, settings, ALICE, path, "run 1")
    theirs = submit_predictions(stores, settings, BOB, path, "copied run")
    assert theirs.status == Status.PENDING and theirs.predictions_sha256 == first.predictions_sha256
    with pytest.raises(Refused) as caught:
        submit_predictions(stores, settings, BOB, path, "again")
    assert theirs.id in str(caught.value) and first.id not in str(caught.value)


def test_an_unknown_suite_is_refused_and_nothing_stored(stores, settings, demo_suite, tmp_path):
    with pytest.raises(NotFoundError, match="No suite 'nope-v1-000'"):
        submit_predictions(stores, settings, ALICE, preds_file(tmp_path, demo_suite[0]), "m", suite_id="nope-v1-000")
    assert stored_requests(stores) == [] and stores.private.list() == []


def test_a_failed_enqueue_leaves_no_orphan_upload(stores, settings, demo_suite, tmp_path, monkeypatch):
    def refuse(self, request, check):
        raise ConflictError("other submissions kept arriving")

    monkeypatch.setattr(Queue, "admit", refuse)
    with pytest.raises(ConflictError):
        submit_predictions(stores, settings, ALICE, preds_file(tmp_path, demo_suite[0]), "m")
    assert stores.private.list() == []  # read back: no request, so the upload was not needed


class OutageAfterCreate:
    """A requests store whose multi-file write lands, then loses its reply; every call
    after that fails too, for `down` more calls (a Hub outage right after a commit)."""

    def __init__(self, inner, down: int):
        self.inner, self.name, self.down = inner, inner.name, down
        self.landed = False

    def _outage(self):
        if self.landed and self.down > 0:
            self.down -= 1
            raise TransientStoreError("503 Service Unavailable")

    def write_files(self, files, expected=None, message=""):
        self._outage()
        self.inner.write_files(files, expected, message)
        self.landed = True
        raise TransientStoreError("the connection dropped after the commit was sent")

    def read(self, path):
        self._outage()
        return self.inner.read(path)

    def local_folder(self, prefix):
        self._outage()
        return self.inner.local_folder(prefix)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("down", [0, 1000])
def test_a_create_that_landed_during_an_outage_keeps_its_upload(stores, settings, demo_suite, tmp_path, down):
    """The request is stored but the reply is lost and the store stays down: nothing may be
    deleted. Once it answers again, the submission is there with its file, and submitting
    the same file again is refused as the user's own duplicate."""
    requests = RetryingStore(OutageAfterCreate(stores.requests.inner, down), attempts=3, base_delay=0.001)
    flaky = dataclasses.replace(stores, requests=requests)
    path = preds_file(tmp_path, demo_suite[0])
    if down:
        with pytest.raises(SubmissionUnconfirmed, match="Nothing was deleted"):
            submit_predictions(flaky, settings, ALICE, path, "m")
    else:
        assert submit_predictions(flaky, settings, ALICE, path, "m").status == Status.PENDING
    [stored] = stored_requests(stores)
    assert stores.private.read(stored.predictions_path).data == path.read_bytes()
    with pytest.raises(Refused, match=stored.id):
        submit_predictions(stores, settings, ALICE, path, "m again")


@pytest.mark.parametrize("name", ["", "   ", "x" * 101, "two\nlines"])
def test_a_prediction_submission_needs_a_display_name(stores, settings, demo_suite, tmp_path, name):
    with pytest.raises(Refused, match="Give the model a name"):
        submit_predictions(stores, settings, ALICE, preds_file(tmp_path, demo_suite[0]), name)


# -- quotas through the service ------------------------------------------------------------------------

def test_per_user_quota_over_a_rolling_window(stores, tmp_path, hub, suite_id):
    settings = make_settings(tmp_path, per_user=2, per_org=100, pending_per_user=100, window_days=7)
    put(stores, old_request("alice", 8, suite_id))  # left the window: does not count
    oldest = put(stores, old_request("alice", 6, suite_id))
    submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    with pytest.raises(Refused) as caught:
        submit_model(stores, settings, ALICE, {"model": "acme/vid-13b"}, hub)
    message = str(caught.value)
    assert caught.value.reason == "quota"
    assert "your 2 submissions of the last 7 days (2 counted)" in message
    assert f"{oldest.submitted_at + timedelta(days=7):%Y-%m-%d %H:%M} UTC" in message
    # another user is not affected
    assert submit_model(stores, settings, BOB, {"model": "acme/vid-13b"}, hub).submitter == "bob"


def test_per_org_quota_counts_every_submitter(stores, tmp_path, hub):
    settings = make_settings(tmp_path, per_user=100, per_org=2, pending_per_user=100)
    submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    submit_model(stores, settings, BOB, {"model": "acme/vid-13b"}, hub)
    with pytest.raises(Refused) as caught:
        submit_model(stores, settings, Identity("carol"), {"model": "acme/vid-2b"}, hub)
    assert caught.value.reason == "quota"
    assert "Models of 'acme' have had 2 submissions in the last 7 days" in str(caught.value)
    assert "the limit per model org is 2" in str(caught.value)
    assert submit_model(stores, settings, Identity("carol"), {"model": "other/cam-1b"}, hub).model == "other/cam-1b"


def test_pending_quota_frees_when_a_submission_finishes(stores, tmp_path, hub):
    settings = make_settings(tmp_path, per_user=100, per_org=100, pending_per_user=1)
    first = submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    with pytest.raises(Refused, match="1 submissions waiting or running") as caught:
        submit_model(stores, settings, ALICE, {"model": "acme/vid-13b"}, hub)
    assert caught.value.reason == "quota"
    put(stores, first.moved(Status.FINISHED))
    assert submit_model(stores, settings, ALICE, {"model": "acme/vid-13b"}, hub).status == Status.PENDING


def test_remaining_quota_for_the_submit_tab(stores, tmp_path, hub, suite_id):
    settings = make_settings(tmp_path, per_user=3, per_org=4, pending_per_user=2)
    oldest = put(stores, old_request("alice", 2, suite_id, model="acme/old"))
    submit_model(stores, settings, ALICE, {"model": "acme/vid-7b"}, hub)
    left = remaining_quota(stores, settings, ALICE, model="acme/anything")
    assert left["user"] == "alice" and left["window_days"] == 7
    assert left["per_user"] == {"used": 2, "limit": 3, "remaining": 1,
                                "frees_at": (oldest.submitted_at + timedelta(days=7)).isoformat()}
    assert left["pending"] == {"used": 2, "limit": 2, "remaining": 0, "frees_at": None}
    assert left["per_org"]["used"] == 2 and left["per_org"]["remaining"] == 2
    assert "per_org" not in remaining_quota(stores, settings, BOB)
    with pytest.raises(Refused, match="Sign in"):
        remaining_quota(stores, settings, None)


# -- quota rules, directly ----------------------------------------------------------------------------

QUOTAS = Quotas(per_user=2, per_org=3, pending_per_user=5, window_days=7)


def finished(r: Request) -> Request:
    return r.moved(Status.FINISHED)


def failed(r: Request, reason: Reason) -> Request:
    moved = r.moved(Status.FAILED)
    moved.failure = Failure(reason=reason, message="...")
    return moved


@pytest.mark.parametrize("reason", [Reason.DOWNLOAD, Reason.INTERNAL, Reason.TIMEOUT, Reason.OUT_OF_MEMORY])
def test_infrastructure_failures_and_cancellations_do_not_count(reason):
    history = [failed(old_request("alice", 1, "s"), reason), failed(old_request("alice", 2, "s"), reason),
               old_request("alice", 3, "s").moved(Status.CANCELLED)]
    assert not any(counts_against_quota(r) for r in history)
    check_quota(history, "alice", "someone", QUOTAS, utcnow())  # nothing counted: no refusal


def test_what_counts_against_the_user_quota():
    now = utcnow()
    history = [finished(old_request("alice", 1, "s")), failed(old_request("Alice", 2, "s"), Reason.BAD_PREDICTIONS)]
    with pytest.raises(Refused, match="your 2 submissions"):
        check_quota(history, "alice", None, QUOTAS, now)  # usernames compare without case
    # the window rolls: once the older one is 7 days old, there is room again
    check_quota(history, "alice", None, QUOTAS, now + timedelta(days=5, minutes=1))
    check_quota(history, "bob", None, QUOTAS, now)


def test_org_quota_counts_model_submissions_of_that_org_only():
    now = utcnow()
    history = [finished(old_request(user, 1, "s", model=f"ACME/m{i}")) for i, user in enumerate("abc")]
    history.append(old_request("d", 1, "s", model="acme/x", kind="predictions"))  # a display name, not a model
    usage = quota_usage(history, "z", "acme", QUOTAS, now)
    assert usage["per_org"].used == 3
    with pytest.raises(Refused, match="Models of 'acme'"):
        check_quota(history, "z", "acme", QUOTAS, now)
    check_quota(history, "z", "other", QUOTAS, now)
    check_quota(history, "z", None, QUOTAS, now)


def test_pending_counts_running_and_pending_whenever_submitted():
    quotas = Quotas(per_user=100, per_org=100, pending_per_user=2, window_days=7)
    history = [old_request("alice", 30, "s"), old_request("alice", 1, "s").moved(Status.RUNNING),
               finished(old_request("alice", 1, "s"))]
    assert quota_usage(history, "alice", None, quotas, utcnow())["pending"].used == 2
    with pytest.raises(Refused, match="2 submissions waiting or running"):
        check_quota(history, "alice", None, quotas, utcnow())


def test_a_zero_limit_closes_submissions_with_a_clear_message():
    with pytest.raises(Refused, match="Submissions are closed for you"):
        check_quota([], "alice", None, Quotas(per_user=0), utcnow())
