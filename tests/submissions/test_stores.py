"""The stores: one contract, run against every backend.

Backends of the contract suite:
- "local": LocalStore in a temporary folder, always.
- "hub-fake": HubStore over an in-memory stand-in for HfApi (no network). It checks the
  HubStore's own logic (head commits as versions, parent_commit, create-only, prefixes);
  the stand-in raises huggingface_hub's real error types, built from real HTTP responses.
- "hub-standin": HubStore through the real HfApi, over HTTP, against tests/hub_standin.py
  (a local server speaking the Hub's API): the client's requests, headers and error
  parsing are exercised for real, without the network.
- "hub": HubStore against the real Hugging Face Hub, in a temporary private dataset repo
  created for the session and deleted at its end; only when HF_TOKEN and
  LEADERBOARD_TEST_OWNER are set.

Then local-only tests (path escapes, real multi-process compare-and-swap, atomic writes),
HubStore error mapping, RetryingStore, open_stores and the create-repos command.
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import hashlib
import inspect
import json
import logging
import multiprocessing
import os
import socket
import stat
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, RepoFile
from huggingface_hub.errors import Response as HubResponse
from huggingface_hub.utils import hf_raise_for_status

from submissions.errors import ConflictError, NotFoundError, StoreError, SubmissionError, TransientStoreError
from submissions.stores import LocalStore, RetryingStore, Stores, open_stores
from submissions.stores.base import PUBLIC, STORE_NAMES, Versioned
from submissions.stores.hub import HubStore
from submissions.stores.local import INTERNAL
from hub_standin import blob_sha as git_blob

HUB_SKIP = "set HF_TOKEN and LEADERBOARD_TEST_OWNER to run the Hub store contract tests"


# ---- huggingface_hub's real errors, from real HTTP responses ---------------------------------

def _http_module():
    # the HTTP client this huggingface_hub is built on (httpx2 here; httpx or requests in others)
    import importlib

    return importlib.import_module(HubResponse.__module__.split(".")[0])


def hub_http_error(status: int, url: str = "https://huggingface.co/api/datasets/o/r/commit/main",
                   headers: dict | None = None, message: str = "") -> Exception:
    """The exception huggingface_hub itself raises for this HTTP answer."""
    http = _http_module()
    response = http.Response(status, request=http.Request("POST", url), headers=headers or {},
                             json={"error": message or f"status {status}"})
    try:
        hf_raise_for_status(response)
    except Exception as e:  # noqa: BLE001 - whatever huggingface_hub chose to raise
        return e
    raise AssertionError(f"hf_raise_for_status did not raise for {status}")


def conflict_412() -> Exception:
    return hub_http_error(412, message="A commit has happened since. Please refresh and try again.")


def repo_not_found() -> Exception:
    return hub_http_error(404, "https://huggingface.co/api/datasets/o/r", {"X-Error-Code": "RepoNotFound"})


def entry_not_found(path: str) -> Exception:
    return hub_http_error(404, f"https://huggingface.co/datasets/o/r/resolve/main/{path}",
                          {"X-Error-Code": "EntryNotFound"})


def matches_hfapi(method):
    """Check every call against the real HfApi method's signature, so the fake cannot
    accept a call that huggingface_hub would refuse."""
    from huggingface_hub import HfApi

    real = inspect.signature(getattr(HfApi, method.__name__))

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        real.bind(self, *args, **kwargs)
        return method(self, *args, **kwargs)

    return checked


class FakeHubApi:
    """An in-memory dataset repo behind the HfApi calls HubStore makes.

    Keeps every commit's tree (downloads at a revision see that revision), refuses a commit
    whose parent_commit is not the head with the Hub's 412, skips commits that change nothing
    (as huggingface_hub does before sending them), and records every create_commit call.
    `fail` holds errors to raise on the next calls, first in first out."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.head = self._new_sha()
        self.trees = {self.head: {".gitattributes": b"*.bin filter=lfs diff=lfs merge=lfs -text\n"}}
        self.commits: list[dict] = []
        self.fail: list[Exception] = []

    @staticmethod
    def _new_sha() -> str:
        return hashlib.sha1(uuid.uuid4().bytes).hexdigest()

    def _call(self) -> None:
        if self.fail:
            raise self.fail.pop(0)

    def _tree(self, revision: str | None) -> dict[str, bytes]:
        return self.trees[revision or self.head]

    @matches_hfapi
    def repo_info(self, repo_id, *, repo_type=None, expand=None, **_):
        self._call()
        return SimpleNamespace(sha=self.head)

    @matches_hfapi
    def hf_hub_download(self, repo_id, filename, *, repo_type=None, revision=None, cache_dir=None, **_):
        self._call()
        tree = self._tree(revision)
        if filename not in tree:
            raise entry_not_found(filename)
        out = Path(cache_dir) / "snapshots" / (revision or self.head) / filename
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(tree[filename])
        return str(out)

    @matches_hfapi
    def file_exists(self, repo_id, filename, *, repo_type=None, revision=None, **_):
        self._call()
        return filename in self._tree(revision)

    @matches_hfapi
    def get_paths_info(self, repo_id, paths, *, repo_type=None, revision=None, **_):
        self._call()
        tree = self._tree(revision)
        return [RepoFile(path=p, oid=git_blob(tree[p]), size=len(tree[p]), type="file") for p in paths if p in tree]

    @matches_hfapi
    def list_repo_tree(self, repo_id, path_in_repo=None, *, recursive=False, revision=None, repo_type=None, **_):
        self._call()
        tree = self._tree(revision)
        base = f"{path_in_repo}/" if path_in_repo else ""
        found = [RepoFile(path=p, oid=git_blob(d), size=len(d), type="file") for p, d in sorted(tree.items())
                 if p.startswith(base)]
        if path_in_repo and not found:
            raise entry_not_found(path_in_repo)
        return found

    @matches_hfapi
    def list_repo_files(self, repo_id, *, repo_type=None, revision=None, **_):
        self._call()
        return sorted(self._tree(revision))

    @matches_hfapi
    def snapshot_download(self, repo_id, *, repo_type=None, cache_dir=None, allow_patterns=None, **_):
        self._call()
        folder = Path(cache_dir) / "snapshots" / self.head
        for path, data in self._tree(None).items():
            if allow_patterns is None or any(fnmatch.fnmatch(path, p) for p in allow_patterns):
                (folder / path).parent.mkdir(parents=True, exist_ok=True)
                (folder / path).write_bytes(data)
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder)

    @matches_hfapi
    def create_commit(self, repo_id, operations, *, commit_message, repo_type=None, parent_commit=None, **_):
        self._call()
        operations = list(operations)
        self.commits.append({"parent_commit": parent_commit, "message": commit_message, "repo_type": repo_type,
                             "paths": [op.path_in_repo for op in operations]})
        tree = dict(self._tree(None))
        for op in operations:
            if isinstance(op, CommitOperationAdd):
                source = op.path_or_fileobj
                tree[op.path_in_repo] = source if isinstance(source, bytes) else Path(source).read_bytes()
            elif isinstance(op, CommitOperationDelete):
                if op.path_in_repo not in tree:
                    raise hub_http_error(404, headers={"X-Error-Code": "EntryNotFound"},
                                         message="A file with this name doesn't exist")
                del tree[op.path_in_repo]
        if tree == self._tree(None) and all(isinstance(op, CommitOperationAdd) for op in operations):
            return SimpleNamespace(oid=self.head)  # nothing changed: huggingface_hub sends no commit
        if parent_commit is not None and parent_commit != self.head:
            raise conflict_412()
        self.head = self._new_sha()
        self.trees[self.head] = tree
        for op in operations:  # as huggingface_hub does once the commit is sent
            op._is_committed = True
        return SimpleNamespace(oid=self.head)


# ---- the backends ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def real_hub():
    """(api, repo id) of a temporary private dataset repo on the real Hub, deleted at the end."""
    token, owner = os.environ.get("HF_TOKEN"), os.environ.get("LEADERBOARD_TEST_OWNER")
    if not (token and owner):
        pytest.skip(HUB_SKIP)
    from huggingface_hub import HfApi, constants

    api = HfApi(token=token)
    repo_id = f"{owner}/leaderboard-store-test-{uuid.uuid4().hex[:10]}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(constants, "HF_HUB_OFFLINE", False)  # conftest sets HF_HUB_OFFLINE=1
        api.create_repo(repo_id, repo_type="dataset", private=True)
    try:
        yield api, repo_id
    finally:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(constants, "HF_HUB_OFFLINE", False)
            api.delete_repo(repo_id, repo_type="dataset", missing_ok=True)


@pytest.fixture(params=["local", "hub-fake", "hub-standin", "hub"])
def backend(request, tmp_path, monkeypatch):
    """(store, base): a store, and a folder name unique to this test (the real Hub repo is
    shared by the whole session, so every test works under its own folder)."""
    base = f"t-{uuid.uuid4().hex[:8]}"
    if request.param == "local":
        return LocalStore(tmp_path / "store", "requests"), base
    if request.param == "hub-fake":
        return HubStore("o/r", "requests", None, api=FakeHubApi(tmp_path), cache_dir=tmp_path / "cache"), base
    if request.param == "hub-standin":
        return request.getfixturevalue("hub_standin").stores("o", cache_dir=tmp_path / "cache").requests.inner, base
    api, repo_id = request.getfixturevalue("real_hub")
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # for this test only
    return HubStore(repo_id, "requests", api.token, api=api, cache_dir=tmp_path / "cache"), base


# ---- the contract ---------------------------------------------------------------------------

def test_read_missing_is_none(backend):
    store, base = backend
    assert store.read(f"{base}/nothing.json") is None


def test_write_then_read(backend):
    store, base = backend
    version = store.write(f"{base}/a.json", b'{"x": 1}', "first")
    found = store.read(f"{base}/a.json")
    assert found.data == b'{"x": 1}'
    assert found.version == version


def test_versions_change_on_write(backend):
    store, base = backend
    v1 = store.write(f"{base}/a.json", b"one")
    v2 = store.write(f"{base}/a.json", b"two")
    assert v1 != v2
    assert store.read(f"{base}/a.json") == Versioned(b"two", v2)


def test_write_if_with_the_version_read_succeeds(backend):
    store, base = backend
    store.write(f"{base}/a.json", b"one")
    found = store.read(f"{base}/a.json")
    new_version = store.write_if(f"{base}/a.json", b"two", found.version, "swap")
    assert new_version != found.version
    assert store.read(f"{base}/a.json").data == b"two"
    assert store.read(f"{base}/a.json").version == new_version


def test_write_if_with_a_stale_version_conflicts(backend):
    store, base = backend
    store.write(f"{base}/a.json", b"one")
    stale = store.read(f"{base}/a.json").version
    store.write(f"{base}/a.json", b"two")  # someone else, in between
    with pytest.raises(ConflictError, match="re-read"):
        store.write_if(f"{base}/a.json", b"three", stale)
    assert store.read(f"{base}/a.json").data == b"two"  # their write survives


def test_write_if_after_a_delete_conflicts(backend):
    store, base = backend
    store.write(f"{base}/a.json", b"one")
    seen = store.read(f"{base}/a.json").version
    store.delete(f"{base}/a.json")
    with pytest.raises(ConflictError):
        store.write_if(f"{base}/a.json", b"two", seen)
    assert store.read(f"{base}/a.json") is None


def test_write_if_none_creates_only_once(backend):
    store, base = backend
    store.write_if(f"{base}/new.json", b"first", None)
    with pytest.raises(ConflictError, match="already exists"):
        store.write_if(f"{base}/new.json", b"second", None)
    with pytest.raises(ConflictError, match="already exists"):
        store.write_if(f"{base}/new.json", b"first", None)  # even with the same bytes
    assert store.read(f"{base}/new.json").data == b"first"


def test_write_if_with_a_stale_version_conflicts_even_with_the_same_bytes(backend):
    # two writers read 5 and both write 6: only one of them may succeed
    store, base = backend
    store.write(f"{base}/n.txt", b"5")
    stale = store.read(f"{base}/n.txt").version
    current = store.write_if(f"{base}/n.txt", b"6", stale)
    with pytest.raises(ConflictError):
        store.write_if(f"{base}/n.txt", b"6", stale)
    assert store.read(f"{base}/n.txt") == Versioned(b"6", current)


def test_write_if_that_changes_nothing_keeps_the_version(backend):
    store, base = backend
    version = store.write(f"{base}/a.json", b"same")
    assert store.write_if(f"{base}/a.json", b"same", version) == version
    assert store.read(f"{base}/a.json") == Versioned(b"same", version)


def test_list_by_folder_prefix(backend):
    store, base = backend
    paths = [f"{base}/a.json", f"{base}/sub/b.json", f"{base}/sub/deeper/c.json", f"{base}/subx.json",
             f"{base}/other/d.json"]
    for i, path in enumerate(paths):
        store.write(path, str(i).encode())
    assert store.list(base) == sorted(paths)
    # a prefix names a folder: "sub" does not match "subx.json"
    assert store.list(f"{base}/sub") == [f"{base}/sub/b.json", f"{base}/sub/deeper/c.json"]
    assert store.list(f"{base}/sub/") == store.list(f"{base}/sub")
    assert store.list(f"{base}/missing") == []
    everything = store.list()
    assert set(paths) <= set(everything)
    assert everything == sorted(everything)
    assert not any(p.startswith(INTERNAL) or p == ".gitattributes" for p in everything)


def test_delete(backend):
    store, base = backend
    store.write(f"{base}/a.json", b"1")
    store.write(f"{base}/b.json", b"2")
    store.delete(f"{base}/a.json", "remove a")
    assert store.read(f"{base}/a.json") is None
    assert store.list(base) == [f"{base}/b.json"]
    store.delete(f"{base}/a.json")  # already gone: no error
    assert store.read(f"{base}/b.json").data == b"2"


def test_upload_file_folder_and_local_folder_round_trip(backend, tmp_path):
    store, base = backend
    source = tmp_path / "suite-src"
    files = {"manifest.json": b'{"id": "demo"}', "videos/v1.mp4": bytes(range(256)) * 64,
             "videos/nested/v2.mp4": b"\x00\xff" * 1000, "calls.jsonl": "caf\u00e9\n".encode()}
    for rel, data in files.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_bytes(data)
    store.upload_folder(f"{base}/suite", source, "upload the suite")
    assert store.list(f"{base}/suite") == sorted(f"{base}/suite/{rel}" for rel in files)

    folder = store.local_folder(f"{base}/suite")
    got = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert got == files

    big = tmp_path / "preds.jsonl"
    big.write_bytes(b'{"id": "c1", "response": "A"}\n' * 5000)
    store.upload_file(f"{base}/predictions/r1.jsonl", big, "upload predictions")
    assert store.read(f"{base}/predictions/r1.jsonl").data == big.read_bytes()

    with pytest.raises(NotFoundError, match="nothing stored under"):
        store.local_folder(f"{base}/no-such-suite")
    with pytest.raises(NotFoundError, match="no such file"):
        store.upload_file(f"{base}/x", tmp_path / "missing.jsonl")


def test_paths_with_sub_folders(backend):
    store, base = backend
    deep = f"{base}/a/b/c/d.json"
    version = store.write_if(deep, b"deep", None)
    assert store.read(deep).version == version
    assert store.read(f"{base}/a/b/c/d.json").data == b"deep"
    assert store.list(f"{base}/a/b") == [deep]


@pytest.mark.parametrize("bad", ["../outside.json", "/etc/passwd", "a/../../outside.json", "", f"{INTERNAL}/lock"])
def test_paths_that_leave_the_store_are_refused(backend, bad):
    store, _ = backend
    with pytest.raises(StoreError, match="store 'requests'"):
        store.write(bad, b"x")
    with pytest.raises(StoreError):
        store.read(bad)


# ---- local only -----------------------------------------------------------------------------

def test_local_refuses_escapes_and_writes_nothing_outside(tmp_path):
    store = LocalStore(tmp_path / "root", "private")
    for bad in ("../escape.json", "/tmp/escape.json", "x/../../escape.json"):
        with pytest.raises(StoreError, match="leave the store|absolute"):
            store.write_if(bad, b"x", None)
    assert not (tmp_path / "escape.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]


def test_local_version_is_the_content_hash_and_folder_is_the_real_one(tmp_path):
    store = LocalStore(tmp_path / "root", "suite")
    version = store.write("demo/manifest.json", b"{}")
    assert version == hashlib.sha256(b"{}").hexdigest()
    assert store.local_folder("demo") == tmp_path / "root" / "demo"
    assert (tmp_path / "root" / "demo" / "manifest.json").read_bytes() == b"{}"
    assert store.list() == ["demo/manifest.json"]  # the lock and staging files stay hidden
    assert (tmp_path / "root" / INTERNAL / "lock").exists()


def test_local_private_files_are_owner_only(tmp_path):
    public = LocalStore(tmp_path / "results", "results")
    private = LocalStore(tmp_path / "answers", "answers")
    public.write("r.json", b"{}")
    private.write("key.json", b"{}")
    assert stat.S_IMODE((tmp_path / "results" / "r.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "answers" / "key.json").stat().st_mode) == 0o600
    assert PUBLIC["results"] and not PUBLIC["answers"]


def _increment(root: str, increments: int, barrier, results) -> None:
    """One process: `increments` successful read + write_if increments of counter.txt."""
    store = LocalStore(Path(root), "requests")
    done = conflicts = 0
    barrier.wait()
    while done < increments:
        found = store.read("counter.txt")
        value = int(found.data) if found else 0
        try:
            store.write_if("counter.txt", str(value + 1).encode(), found.version if found else None)
            done += 1
        except ConflictError:
            conflicts += 1
    results.put((done, conflicts))


def test_local_compare_and_swap_loses_no_update_across_processes(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    processes, increments = 6, 40
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [ctx.Process(target=_increment, args=(str(tmp_path / "store"), increments, barrier, results))
               for _ in range(processes)]
    for w in workers:
        w.start()
    outcomes = [results.get(timeout=300) for _ in workers]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    successes = sum(done for done, _ in outcomes)
    final = int(LocalStore(tmp_path / "store", "requests").read("counter.txt").data)
    assert successes == processes * increments
    assert final == successes  # every successful swap counted exactly once: no lost update
    logging.getLogger(__name__).info("conflicts met and retried: %d", sum(c for _, c in outcomes))


def _rewrite(root: str, rounds: int, size: int) -> None:
    store = LocalStore(Path(root), "results")
    for i in range(rounds):
        store.write("table.bin", bytes([i % 256]) * size)


def test_local_readers_never_see_a_half_written_file(tmp_path):
    root = tmp_path / "store"
    store = LocalStore(root, "results")
    size = 1 << 20
    store.write("table.bin", b"\xff" * size)
    writer = multiprocessing.get_context("spawn").Process(target=_rewrite, args=(str(root), 60, size))
    writer.start()
    reads = 0
    while writer.is_alive() or reads == 0:
        data = store.read("table.bin").data
        assert len(data) == size and data.count(data[:1]) == size, "a reader saw a torn write"
        reads += 1
    writer.join()
    assert writer.exitcode == 0
    assert store.read("table.bin").data == bytes([59]) * size
    assert list((root / INTERNAL / "tmp").iterdir()) == []  # no staging file left behind


# ---- HubStore: calls made and errors mapped (no network) -----------------------------------------

@pytest.fixture
def fake(tmp_path):
    api = FakeHubApi(tmp_path)
    return api, HubStore("me/lb-requests", "requests", None, api=api, cache_dir=tmp_path / "cache")


def test_hub_write_if_passes_the_version_as_parent_commit(fake):
    api, store = fake
    store.write("a.json", b"1")
    assert api.commits[-1]["parent_commit"] is None  # plain writes are unconditional
    assert api.commits[-1]["repo_type"] == "dataset"
    seen = store.read("a.json").version
    assert seen.split(":")[0] == api.head  # the commit read at, then the content's ids
    store.write_if("a.json", b"2", seen, "claim")
    assert api.commits[-1]["parent_commit"] == seen.split(":")[0]
    assert api.commits[-1]["message"] == "claim"


def test_hub_create_only_commits_on_the_head_it_checked(fake):
    api, store = fake
    head = api.head
    store.write_if("new.json", b"1", None)
    assert api.commits[-1]["parent_commit"] == head


def test_hub_create_only_loses_to_a_file_created_in_between(fake):
    api, store = fake
    real_paths_info = api.get_paths_info

    def racing_paths_info(*args, **kwargs):
        absent = real_paths_info(*args, **kwargs)
        if not api.commits:  # the first check only
            api.create_commit("me/lb-requests", [CommitOperationAdd(path_in_repo="new.json",
                                                                    path_or_fileobj=b"them")],
                              commit_message="another writer")
        return absent

    api.get_paths_info = racing_paths_info
    with pytest.raises(ConflictError, match="already exists"):  # the 412, then the check at the new head
        store.write_if("new.json", b"us", None)
    api.get_paths_info = real_paths_info
    assert store.read("new.json").data == b"them"


def test_hub_upload_folder_is_one_commit(fake, tmp_path):
    api, store = fake
    (tmp_path / "src" / "v").mkdir(parents=True)
    for name in ("a.json", "v/1.mp4", "v/2.mp4"):
        (tmp_path / "src" / name).write_bytes(name.encode())
    before = len(api.commits)
    store.upload_folder("suite-x", tmp_path / "src")
    assert len(api.commits) == before + 1
    assert sorted(api.commits[-1]["paths"]) == ["suite-x/a.json", "suite-x/v/1.mp4", "suite-x/v/2.mp4"]


@pytest.mark.parametrize("error", [conflict_412, lambda: hub_http_error(409)])
def test_hub_a_refused_commit_is_made_again_when_the_file_is_unchanged(fake, error):
    # the head moved for another file: the file is checked at the new head, then committed on it
    api, store = fake
    store.write("a.json", b"0")
    seen = store.read("a.json")
    api.fail = [error()]  # refused before it is recorded
    store.write_if("a.json", b"x", seen.version)
    assert api.fail == [] and store.read("a.json").data == b"x"
    assert api.commits[-1]["parent_commit"] == seen.version.split(":")[0]


@pytest.mark.parametrize("error, expected, words", [
    (lambda: hub_http_error(503), TransientStoreError, "503"),
    (lambda: hub_http_error(500), TransientStoreError, "500"),
    (lambda: hub_http_error(429), TransientStoreError, "429"),
    (repo_not_found, NotFoundError, "create-repos"),
    (lambda: hub_http_error(403), StoreError, "HF_TOKEN needs write access"),
    (lambda: hub_http_error(400), StoreError, "400"),
    (lambda: _http_module().ConnectError("connection refused"), TransientStoreError, "could not be reached"),
    (lambda: _http_module().ReadTimeout("timed out"), TransientStoreError, "could not be reached"),
])
def test_hub_errors_on_write_if_are_mapped(fake, error, expected, words):
    api, store = fake
    store.write("a.json", b"0")
    version = store.read("a.json").version
    api.fail = [error()]
    with pytest.raises(expected, match=words) as caught:
        store.write_if("a.json", b"x", version)
    assert "me/lb-requests" in str(caught.value)  # the message names the repo
    if expected is StoreError:  # neither retried nor taken for a lost race
        assert not isinstance(caught.value, (TransientStoreError, ConflictError))


def test_hub_412_on_an_unconditional_write_is_worth_retrying(fake):
    # no parent_commit given: a 412 means another commit raced ours, not that our view is stale
    api, store = fake
    api.fail = [conflict_412()]
    with pytest.raises(TransientStoreError, match="same moment"):
        store.write("a.json", b"x")


def test_hub_missing_repo_says_how_to_create_it(fake):
    api, store = fake
    api.fail = [repo_not_found()]
    with pytest.raises(NotFoundError) as caught:
        store.read("a.json")
    message = str(caught.value)
    assert "me/lb-requests" in message
    assert "python -m evaluator create-repos --owner me --prefix lb" in message


def test_hub_refuses_a_version_that_is_not_a_commit(fake):
    api, store = fake
    with pytest.raises(StoreError, match="not a Hub file version"):
        store.write_if("a.json", b"x", hashlib.sha256(b"local version").hexdigest())
    assert api.commits == []


def test_hub_list_hides_the_repo_plumbing(fake):
    api, store = fake
    assert ".gitattributes" in api.list_repo_files("me/lb-requests")
    assert store.list() == []


# ---- HubStore over real HTTP: a real HfApi talking to a local stand-in for the Hub ------------

class MiniHub:
    """A local HTTP server answering the few Hub endpoints a test sets up (`routes`:
    (method, path) -> (status, headers, JSON body), or None to drop the connection); anything
    else is the Hub's 404 for a missing repo. `seen` records every request, body included."""

    def __init__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        hub = self
        self.routes: dict[tuple[str, str], tuple[int, dict, object]] = {}
        self.seen: list[tuple[str, str, bytes]] = []

        class Handler(BaseHTTPRequestHandler):
            def answer(self):
                size = int(self.headers.get("Content-Length") or 0)
                hub.seen.append((self.command, self.path, self.rfile.read(size) if size else b""))
                route = hub.routes.get((self.command, self.path.split("?")[0]),
                                       (404, {"X-Error-Code": "RepoNotFound"}, {"error": "Repository not found"}))
                if route is None:  # the connection drops without an answer
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, headers, payload = route
                body = json.dumps(payload).encode()
                self.send_response(status)
                for key, value in {**headers, "Content-Type": "application/json",
                                   "Content-Length": str(len(body))}.items():
                    self.send_header(key, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_POST = do_HEAD = answer

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


@pytest.fixture
def mini_hub(tmp_path, monkeypatch):
    import huggingface_hub.utils._http as hub_http
    from huggingface_hub import HfApi, constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # only this local server is contacted
    # huggingface_hub retries some 5xx answers itself, sleeping up to 8 s between tries
    monkeypatch.setattr(hub_http.time, "sleep", lambda seconds: None)
    hub = MiniHub()
    store = HubStore("me/lb-requests", "requests", None, api=HfApi(endpoint=hub.url, token="hf_test"),
                     cache_dir=tmp_path / "cache")
    hub.routes[("GET", "/api/datasets/me/lb-requests")] = (200, {}, {"id": "me/lb-requests", "sha": "a" * 40})
    yield hub, store
    hub.server.shutdown()
    hub.server.server_close()


def test_http_412_then_a_changed_file_is_a_conflict_and_parent_commit_is_sent(mini_hub):
    hub, store = mini_hub
    hub.routes[("POST", "/api/datasets/me/lb-requests/preupload/main")] = (
        200, {}, {"files": [{"path": "q.json", "uploadMode": "regular", "shouldIgnore": False}]})
    hub.routes[("POST", "/api/datasets/me/lb-requests/commit/main")] = (
        412, {}, {"error": "A commit has happened since. Please refresh and try again."})
    hub.routes[("POST", f"/api/datasets/me/lb-requests/paths-info/{'a' * 40}")] = (
        200, {}, [{"type": "file", "path": "q.json", "oid": git_blob(b"theirs"), "size": 6}])
    read_at = f"{'b' * 40}:{git_blob(b'mine')}:{hashlib.sha256(b'mine').hexdigest()}"
    with pytest.raises(ConflictError, match="changed since"):
        store.write_if("q.json", b"{}", read_at)
    commit = [body for method, path, body in hub.seen if path.endswith("/commit/main")]
    header = json.loads(commit[0].decode().splitlines()[0])
    assert header["value"]["parentCommit"] == "b" * 40
    assert any("paths-info" in path and b"q.json" in body for _, path, body in hub.seen)  # checked at the head


def test_http_missing_file_reads_as_none_at_the_head(mini_hub):
    hub, store = mini_hub
    hub.routes[("HEAD", f"/datasets/me/lb-requests/resolve/{'a' * 40}/q.json")] = (
        404, {"X-Error-Code": "EntryNotFound"}, {"error": "Entry not found"})
    assert store.read("q.json") is None
    assert any(path.startswith(f"/datasets/me/lb-requests/resolve/{'a' * 40}/") for _, path, _ in hub.seen)


def test_http_dropped_download_is_transient_not_a_missing_file(mini_hub):
    # huggingface_hub reports "could not ask" as LocalEntryNotFoundError, a kind of
    # EntryNotFoundError: it must not read as "no such file" (a lost request, a double create)
    hub, store = mini_hub
    hub.routes[("HEAD", f"/datasets/me/lb-requests/resolve/{'a' * 40}/q.json")] = (502, {}, {"error": "bad gateway"})
    with pytest.raises(TransientStoreError, match="could not be reached"):
        store.read("q.json")
    hub.routes[("HEAD", f"/datasets/me/lb-requests/resolve/{'a' * 40}/q.json")] = None
    with pytest.raises(TransientStoreError, match="could not be reached"):
        store.read("q.json")


@pytest.mark.parametrize("status, expected", [(503, TransientStoreError), (429, TransientStoreError),
                                              (500, TransientStoreError), (403, StoreError)])
def test_http_status_of_the_head_request_is_mapped(mini_hub, status, expected):
    hub, store = mini_hub
    hub.routes[("GET", "/api/datasets/me/lb-requests")] = (status, {}, {"error": "busy"})
    with pytest.raises(expected, match=str(status)) as caught:
        store.read("q.json")
    assert isinstance(caught.value, TransientStoreError) == (expected is TransientStoreError)


def test_http_missing_repo_is_not_found(mini_hub):
    hub, store = mini_hub
    del hub.routes[("GET", "/api/datasets/me/lb-requests")]
    with pytest.raises(NotFoundError, match="create-repos --owner me --prefix lb"):
        store.list()


def test_http_unreachable_hub_is_transient(tmp_path, monkeypatch):
    from huggingface_hub import HfApi, constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    store = HubStore("me/lb-requests", "requests", None, api=HfApi(endpoint=f"http://127.0.0.1:{port}"),
                     cache_dir=tmp_path)
    with pytest.raises(TransientStoreError, match="could not be reached"):
        store.read("q.json")


def test_offline_mode_is_a_clear_error_not_a_retry(tmp_path, monkeypatch):
    from huggingface_hub import HfApi, constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    store = HubStore("me/lb-requests", "requests", None, api=HfApi(), cache_dir=tmp_path)
    with pytest.raises(StoreError, match="HF_HUB_OFFLINE") as caught:
        store.read("q.json")
    assert not isinstance(caught.value, TransientStoreError)


# ---- over HTTP, against the Hub stand-in (tests/hub_standin.py) ----------------------------------

@pytest.fixture
def standin_store(hub_standin, tmp_path):
    """(stand-in, HubStore of its "me/lb-requests" repo, another client's HubStore of the same repo)."""
    hub_standin.stores("me", cache_dir=tmp_path / "one")
    repo_id = f"me/{hub_standin.prefix}-requests"
    one, other = (HubStore(repo_id, "requests", hub_standin.token, api=hub_standin.api(), cache_dir=tmp_path / name)
                  for name in ("one", "other"))
    return hub_standin, one, other


def test_standin_refuses_a_stale_parent_commit_and_the_changed_file_conflicts(standin_store):
    standin, one, other = standin_store
    seen = one.write("q.json", b"1")
    other.write("q.json", b"2")  # another client commits to the same file in between
    commits = standin.counts["commit"]
    with pytest.raises(ConflictError, match="q.json changed since"):
        one.write_if("q.json", b"3", seen)
    assert standin.counts["commit"] == commits + 1  # sent, refused with 412, then the file was checked
    assert standin.counts["paths_info"] == 1
    assert one.read("q.json").data == b"2"


def test_standin_a_commit_to_another_file_does_not_conflict(standin_store):
    # a worker's progress commit to another request must not fail this claim
    standin, one, other = standin_store
    one.write("q.json", b"1")
    seen = one.read("q.json").version
    other.write("r.json", b"someone else's request")
    version = one.write_if("q.json", b"3", seen)
    assert standin.files(one.repo_id)["q.json"] == b"3" and standin.files(one.repo_id)["r.json"]
    assert version.split(":")[0] == standin.head(one.repo_id)
    assert standin.counts["paths_info"] == 1  # one 412, one check, one commit on the new head


def test_standin_serialises_racing_commits_on_one_parent(standin_store):
    standin, one, _ = standin_store
    parent = one.write("n.txt", b"0")
    barrier, outcomes = threading.Barrier(8), []

    def race(i):
        barrier.wait()
        try:
            one.write_if("n.txt", str(i + 1).encode(), parent)
            outcomes.append("won")
        except ConflictError:
            outcomes.append("lost")

    threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == ["lost"] * 7 + ["won"]
    history = standin.history(one.repo_id)
    assert history[1].sha == parent.split(":")[0]  # exactly one commit on top of the parent
    assert one.read("n.txt").version.split(":")[0] == history[0].sha


def test_standin_rate_limit_is_a_429_with_ratelimit_headers_and_the_store_waits_for_it(standin_store):
    standin, one, _ = standin_store
    one.write("q.json", b"1")
    standin.rate_limit(quota=1, window_seconds=1)  # one "api" request per second per token; no Retry-After
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        time.sleep(seconds)

    store = RetryingStore(one, attempts=4, base_delay=0.01, sleep=sleep)
    assert store.read("q.json").data == b"1"  # uses the second's one request
    assert store.read("q.json").data == b"1"  # refused with 429, then retried once the window has passed
    assert standin.counts["rate_limited"] >= 1
    assert sleeps and sleeps[0] >= 1.0  # the RateLimit reset, not the 0.01 s backoff


def test_standin_long_rate_limit_fails_fast_naming_the_wait(standin_store):
    standin, one, _ = standin_store
    standin.rate_limit(quota=0, window_seconds=300)
    sleeps = []
    with pytest.raises(TransientStoreError, match="wait 300s") as caught:
        RetryingStore(one, sleep=sleeps.append).read("q.json")
    assert "wait 300s" in str(caught.value) and "429" in str(caught.value)
    assert caught.value.retry_after == 300
    assert sleeps == [] and standin.counts["rate_limited"] == 1


def test_the_wait_is_read_from_ratelimit_or_retry_after():
    from submissions.stores.hub_limits import wait_seconds

    assert wait_seconds({"RateLimit": '"api";r=0;t=120', "RateLimit-Policy": '"fixed window";"api";q=500;w=300'}) == 120
    assert wait_seconds({"ratelimit": '"api";r=12;t=120'}) is None  # requests left: no wait
    assert wait_seconds({"Retry-After": "30"}) == 30
    assert wait_seconds({"RateLimit": '"api";r=0;t=45', "Retry-After": "30"}) == 45
    assert wait_seconds({}) is None and wait_seconds(None) is None


@pytest.mark.parametrize("call,resource,quota", [("list", "api", 0), ("local_folder", "api", 1),
                                                 ("local_folder", "resolvers", 0), ("write", "api", 0)])
def test_no_call_of_ours_waits_out_a_300s_window_inside_the_client(standin_store, call, resource, quota):
    """huggingface_hub sleeps out a 429's whole window itself on some routes (tree pages,
    preupload, a download's HEAD), up to 5 times: 25 minutes for a 300 s window. Ours stop at
    once with the wait, for our own retry to decide, and the call returns within the budget.
    (list: a tree page; local_folder: a tree page after the head, or a download's HEAD;
    write: the preupload.)"""
    from submissions.stores.hub_limits import CLIENT_WAIT_BUDGET

    standin, one, _ = standin_store
    one.write("q.json", b"1")
    standin.rate_limit(quota=quota, window_seconds=300, resource=resource)
    started = time.monotonic()
    with pytest.raises(TransientStoreError) as caught:
        {"list": one.list, "local_folder": lambda: one.local_folder(""),
         "write": lambda: one.write("w.json", b"2")}[call]()
    assert time.monotonic() - started < CLIENT_WAIT_BUDGET
    assert 290 <= caught.value.retry_after <= 302, str(caught.value)
    assert "wait" in str(caught.value)


def test_standin_injected_5xx_are_retried(standin_store):
    standin, one, _ = standin_store
    one.write("q.json", b"1")
    standin.fail_next(2, status=503, kind="repo_info")
    assert RetryingStore(one, base_delay=0.001).read("q.json").data == b"1"
    assert standin.counts["injected"] == 2


@pytest.mark.parametrize("how", ["reset", "500"])
def test_standin_lost_commit_reply_is_read_back_not_redone(standin_store, how):
    standin, one, _ = standin_store
    sleeps = []
    store = RetryingStore(one, base_delay=0.001, sleep=sleeps.append)
    before = len(standin.history(one.repo_id))
    standin.lose_reply_next("commit", how=how)
    version = store.write_if("new.json", b"mine", None)  # lands; the reply is lost; the retry finds it
    history = standin.history(one.repo_id)
    assert len(history) == before + 1  # one commit: the work was not done twice
    assert version.split(":")[0] == history[0].sha and standin.files(one.repo_id)["new.json"] == b"mine"
    assert standin.counts["commit"] == 1 and standin.counts["lost_reply"] == 1
    assert len(sleeps) == 1  # the client did see a failure, and retried once


def test_standin_lost_reply_of_an_admission_admits_once(hub_standin, tmp_path):
    from submissions.queue import ADMISSION_LEDGER, Queue
    from test_queue import make_request

    stores = hub_standin.stores("me", cache_dir=tmp_path / "cache")
    queue = Queue(stores.requests)
    hub_standin.lose_reply_next("commit")
    request = make_request(0)
    assert queue.admit(request, lambda requests: None).id == request.id
    assert [r.id for r in queue.all()] == [request.id]
    assert json.loads(stores.requests.read(ADMISSION_LEDGER).data)["admitted"] == 1
    assert hub_standin.counts["lost_reply"] == 1


def test_standin_tree_listing_follows_pagination(standin_store):
    standin, one, _ = standin_store
    one.write_files({f"d/{i}.json": b"x" for i in range(5)})
    standin.page_size = 2
    standin.counts.clear()
    assert one.list("d") == [f"d/{i}.json" for i in range(5)]
    assert standin.counts["tree"] == 4  # .gitattributes, d/ and five files: 7 entries, 2 a page


def test_standin_private_repos_are_hidden_without_the_token(hub_standin, tmp_path):
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError

    hub_standin.stores("me", cache_dir=tmp_path)
    anonymous = HfApi(endpoint=hub_standin.endpoint, token=False)
    assert anonymous.repo_info(f"me/{hub_standin.prefix}-results", repo_type="dataset").private is False
    with pytest.raises(RepositoryNotFoundError):
        anonymous.repo_info(f"me/{hub_standin.prefix}-answers", repo_type="dataset")


# ---- RetryingStore --------------------------------------------------------------------------

class Flaky:
    """A store whose calls fail with TransientStoreError `failures` times, then work."""

    def __init__(self, inner, failures: int):
        self.inner, self.name, self.failures, self.calls = inner, inner.name, failures, 0

    def __getattr__(self, method):
        real = getattr(self.inner, method)

        def call(*args, **kwargs):
            self.calls += 1
            if self.failures > 0:
                self.failures -= 1
                raise TransientStoreError(f"store {self.name!r}: the Hub answered 503 (call {self.calls})")
            return real(*args, **kwargs)

        return call


def test_retry_succeeds_after_transient_failures(tmp_path):
    inner = LocalStore(tmp_path, "results")
    inner.write("r.json", b"ok")
    flaky, sleeps = Flaky(inner, failures=2), []
    store = RetryingStore(flaky, attempts=5, base_delay=0.2, sleep=sleeps.append)
    assert store.read("r.json").data == b"ok"
    assert flaky.calls == 3
    assert len(sleeps) == 2
    assert 0.2 <= sleeps[0] <= 0.3 and 0.4 <= sleeps[1] <= 0.6  # exponential, with jitter


def test_retry_never_retries_a_conflict(tmp_path):
    inner = LocalStore(tmp_path, "requests")
    inner.write("q.json", b"one")
    stale = inner.read("q.json").version
    inner.write("q.json", b"two")
    flaky, sleeps = Flaky(inner, failures=0), []
    with pytest.raises(ConflictError):
        RetryingStore(flaky, sleep=sleeps.append).write_if("q.json", b"three", stale)
    assert flaky.calls == 1 and sleeps == []


def test_retry_gives_up_with_a_clear_message(tmp_path):
    flaky, sleeps = Flaky(LocalStore(tmp_path, "results"), failures=100), []
    store = RetryingStore(flaky, attempts=3, base_delay=0.01, sleep=sleeps.append)
    with pytest.raises(TransientStoreError) as caught:
        store.write("r.json", b"x")
    message = str(caught.value)
    assert "store 'results'" in message and "write r.json failed 3 times" in message and "503" in message
    assert flaky.calls == 3 and len(sleeps) == 2
    assert isinstance(caught.value.__cause__, TransientStoreError)


class LostReply:
    """A store whose first write_if lands but whose reply is lost (a timeout after the commit)."""

    def __init__(self, inner):
        self.inner, self.name, self.lost = inner, inner.name, False

    def __getattr__(self, method):
        return getattr(self.inner, method)

    def write_if(self, path, data, expected, message=""):
        version = self.inner.write_if(path, data, expected, message)
        if not self.lost:
            self.lost = True
            raise TransientStoreError("store: read timed out")
        return version


def test_retry_recognises_its_own_write_that_landed(tmp_path):
    inner = LocalStore(tmp_path, "requests")
    store = RetryingStore(LostReply(inner), sleep=lambda s: None)
    version = store.write_if("new.json", b"mine", None)  # the retry meets the file we created
    assert inner.read("new.json") == Versioned(b"mine", version)


def test_retry_still_reports_a_real_conflict_after_a_lost_reply(tmp_path):
    inner = LocalStore(tmp_path, "requests")

    class OtherWins(LostReply):
        def write_if(self, path, data, expected, message=""):
            if not self.lost:
                self.lost = True
                self.inner.write_if(path, b"theirs", expected)  # someone else got there first
                raise TransientStoreError("store: read timed out")
            return self.inner.write_if(path, data, expected, message)

    with pytest.raises(ConflictError):
        RetryingStore(OtherWins(inner), sleep=lambda s: None).write_if("new.json", b"mine", None)
    assert inner.read("new.json").data == b"theirs"


# ---- open_stores ----------------------------------------------------------------------------

@pytest.fixture
def settings_env(monkeypatch):
    from space_config.settings import get_settings

    for name in ("LEADERBOARD_STORE", "LEADERBOARD_HUB_OWNER", "LEADERBOARD_HUB_PREFIX"):
        monkeypatch.delenv(name, raising=False)

    def settings(**env):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        get_settings.cache_clear()
        return get_settings()

    yield settings
    get_settings.cache_clear()


def test_open_local_stores_are_folders_under_home(settings_env, tmp_path):
    stores = open_stores(settings_env(LEADERBOARD_HOME=str(tmp_path / "home")))
    assert [name for name, _ in stores.items()] == list(STORE_NAMES)
    for name, store in stores.items():
        assert isinstance(store, RetryingStore) and isinstance(store.inner, LocalStore)
        assert store.name == name
    stores.requests.write_if("abc.json", b"{}", None)
    assert (tmp_path / "home" / "requests" / "abc.json").read_bytes() == b"{}"
    assert stores.results.read("abc.json") is None  # five separate stores


def test_open_hub_stores_names_the_repos_and_contacts_nothing(settings_env):
    stores = open_stores(settings_env(LEADERBOARD_STORE="hub", LEADERBOARD_HUB_OWNER="acme",
                                      LEADERBOARD_HUB_PREFIX="vlb"))
    assert {name: store.inner.repo_id for name, store in stores.items()} == {
        name: f"acme/vlb-{name}" for name in STORE_NAMES}


def test_open_hub_stores_needs_an_owner(settings_env):
    with pytest.raises(StoreError, match="LEADERBOARD_HUB_OWNER"):
        open_stores(settings_env(LEADERBOARD_STORE="hub"))
    with pytest.raises(StoreError, match="'local' or 'hub'"):
        open_stores(settings_env(LEADERBOARD_STORE="s3"))


def test_stores_local_round_trip(tmp_path):
    stores = Stores.local(tmp_path)
    stores.private.write("logs/r1.log", b"started\n")
    assert stores.private.root == tmp_path / "private"  # backend attributes reach through the wrapper
    assert stores.private.read("logs/r1.log").data == b"started\n"


# ---- create-repos ---------------------------------------------------------------------------

class FakeRepoApi:
    def __init__(self, existing: dict[str, bool] | None = None):
        self.private = dict(existing or {})  # repo id -> private
        self.created: list[tuple] = []
        self.updated: list[tuple] = []

    @matches_hfapi
    def create_repo(self, repo_id, *, repo_type=None, private=None, exist_ok=False, **_):
        self.created.append((repo_id, repo_type, private, exist_ok))
        if repo_id in self.private and not exist_ok:
            raise hub_http_error(409, "https://huggingface.co/api/repos/create")
        self.private.setdefault(repo_id, private)
        return f"https://huggingface.co/datasets/{repo_id}"

    @matches_hfapi
    def repo_info(self, repo_id, *, repo_type=None, expand=None, **_):
        return SimpleNamespace(private=self.private[repo_id])

    @matches_hfapi
    def update_repo_settings(self, repo_id, *, repo_type=None, private=None, **_):
        self.updated.append((repo_id, repo_type, private))
        self.private[repo_id] = private


def test_create_repos_names_and_visibility():
    from submissions.stores.deploy import create_repos

    api = FakeRepoApi()
    urls = create_repos("acme", "vlb", "hf_x", api=api)
    assert urls == {name: f"https://huggingface.co/datasets/acme/vlb-{name}" for name in STORE_NAMES}
    assert api.created == [(f"acme/vlb-{name}", "dataset", not PUBLIC[name], True) for name in STORE_NAMES]
    assert api.private == {"acme/vlb-requests": False, "acme/vlb-results": False, "acme/vlb-suite": False,
                           "acme/vlb-answers": True, "acme/vlb-private": True}
    assert api.updated == []
    create_repos("acme", "vlb", "hf_x", api=api)  # again: harmless
    assert api.updated == [] and len(api.created) == 10


def test_create_repos_makes_an_exposed_answer_repo_private(caplog):
    from submissions.stores.deploy import create_repos

    api = FakeRepoApi({"acme/vlb-answers": False, "acme/vlb-results": True})
    with caplog.at_level(logging.WARNING):
        create_repos("acme", "vlb", "hf_x", api=api)
    assert api.updated == [("acme/vlb-answers", "dataset", True)]
    assert api.private["acme/vlb-answers"] is True
    assert api.private["acme/vlb-results"] is True  # left alone: publishing is a person's decision
    assert "acme/vlb-results" in caplog.text and "acme/vlb-answers" in caplog.text


def test_create_repos_command_needs_a_token(monkeypatch):
    from cli.deploy import add_commands

    parser = argparse.ArgumentParser(prog="evaluator")
    add_commands(parser.add_subparsers())
    args = parser.parse_args(["create-repos", "--owner", "acme"])
    assert args.prefix == "video-reasoning-leaderboard"
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(SystemExit) as caught:
        args.func(args)
    assert "HF_TOKEN" in str(caught.value.code) and "acme" in str(caught.value.code)


def test_a_folder_entry_cap_holds_hundreds_of_requests_through_the_queue(standin_store):
    """With the stand-in's folder cap set low, a store refuses a crowded folder, and several
    hundred requests through the queue (sharded by id) keep every folder under it."""
    from submissions.queue import Queue
    from submissions.requests import Request

    standin, one, _ = standin_store
    standin.entry_cap = 50
    with pytest.raises(StoreError, match="cannot hold more than 50 entries"):
        one.write_files({f"flat/{i}.json": b"{}" for i in range(51)}, message="too many in one folder")
    queue = Queue(one)
    ids = [f"20261126T1200{i:02d}-{i:010x}" if i < 60 else f"req-{i:04d}" for i in range(300)]
    for id in ids:
        queue.add(Request(id=id, kind="predictions", submitter="alice", suite_id="s", model=f"m{id}",
                          predictions_sha256=id))
    assert sorted(r.id for r in queue.all()) == sorted(ids)  # nothing lost
    tree = standin.files(one.repo_id)
    folders: dict[str, int] = {}
    for path in tree:
        if "/" in path:
            folders[path.rsplit("/", 1)[0]] = folders.get(path.rsplit("/", 1)[0], 0) + 1
    assert folders and max(folders.values()) <= 50
    assert sum(1 for path in tree if "/" not in path) <= 50


def test_squashing_the_history_while_writers_commit_loses_nothing(hub_standin, tmp_path):
    """`python -m evaluator squash-history` while two writers add requests and a third
    changes them: every request is there afterwards with its last change, and the history is
    short again."""
    import threading

    from submissions.queue import Queue
    from submissions.requests import Request
    from submissions.stores.deploy import squash_histories

    stores = hub_standin.stores("sq", cache_dir=tmp_path / "cache")
    repo_id = f"sq/{hub_standin.prefix}-requests"
    queue = Queue(stores.requests, backoff_seconds=0.001)
    errors: list[BaseException] = []

    def add(prefix: str) -> None:
        try:
            for i in range(25):
                queue.add(Request(id=f"{prefix}-{i:03d}", kind="predictions", submitter=prefix, suite_id="s",
                                  model=f"{prefix}{i}", predictions_sha256=f"{prefix}{i}"))
                if i % 5 == 4:
                    queue.cancel(f"{prefix}-{i - 2:03d}")  # a change to an existing request
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    writers = [threading.Thread(target=add, args=(name,)) for name in ("alice", "bob")]
    for t in writers:
        t.start()
    squashed = 0
    while any(t.is_alive() for t in writers):
        squash_histories(stores, ["requests"])  # far more often than a schedule would
        squashed += 1
        time.sleep(0.2)
    for t in writers:
        t.join()
    assert not errors, errors
    assert squashed >= 1
    requests = {r.id: r for r in queue.all()}
    assert len(requests) == 50
    cancelled = {f"{p}-{i - 2:03d}" for p in ("alice", "bob") for i in range(25) if i % 5 == 4}
    assert {i for i, r in requests.items() if r.status.value == "CANCELLED"} == cancelled
    squash_histories(stores, ["requests"])
    assert len(hub_standin.history(repo_id)) == 1
    with pytest.raises(SubmissionError, match="not on the Hub"):
        squash_histories(Stores.local(tmp_path / "local"), ["requests"])


def test_a_suite_with_videos_and_parquet_round_trips_through_lfs(standin_store, tmp_path):
    """The stand-in keeps .mp4 and .parquet files in LFS, as the Hub's .gitattributes says: they
    go up through the LFS batch API and come down through the CDN redirect, byte for byte,
    beside regular files."""
    standin, one, _ = standin_store
    source = tmp_path / "suite"
    files = {"suite.json": b'{"id": "s"}', "videos/a.mp4": bytes(range(256)) * 300,
             "exact/table.parquet": b"PAR1" + bytes(5000) + b"PAR1", "calls.jsonl": b'{"id": "c"}\n'}
    for rel, data in files.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_bytes(data)
    one.upload_folder("s", source, "publish a suite")
    assert standin.counts["lfs_batch"] >= 1 and standin.counts["lfs_upload"] == 2
    head = standin.history(one.repo_id)[0]
    assert head.lfs == {"s/videos/a.mp4", "s/exact/table.parquet"}  # the regular files stay in git
    folder = one.local_folder("s")
    assert {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()} == files
    assert standin.counts["lfs_download"] == 2
    assert one.read("s/videos/a.mp4").data == files["videos/a.mp4"]
    uploads = standin.counts["lfs_upload"]
    one.upload_folder("s", source, "publish it again")  # nothing new: the stored objects are not sent again
    assert standin.counts["lfs_upload"] == uploads
