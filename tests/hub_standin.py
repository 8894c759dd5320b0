"""A stand-in for the Hugging Face Hub: a real HTTP server speaking the part of the Hub's
HTTP API that huggingface_hub's HfApi uses for the stores, so tests drive the
real client (httpx2, hf_raise_for_status, the download cache) over real sockets.

    standin = HubStandin().start()
    stores = standin.stores("racers", cache_dir=tmp / "cache")   # five repos, created over HTTP
    subprocess.run(..., env={**os.environ, **standin.env()})      # a child process reaches it too
    standin.stop()

What it models (read from huggingface_hub's own requests and error parsing):
- dataset repos only, each a chain of immutable commits (tree: path -> bytes) with 40-hex
  shas on one branch, "main"; a new repo starts with a .gitattributes commit, as on the Hub;
- repo info (`/api/datasets/{id}[/revision/{rev}]`), create (`/api/repos/create`, 409 when
  it exists), settings (visibility), delete;
- `/datasets/{id}/resolve/{rev}/{path}` (HEAD and GET) with ETag (the git blob sha),
  X-Repo-Commit, Content-Length and Range; errors carry X-Error-Code (RepoNotFound,
  RevisionNotFound, EntryNotFound) as the client expects;
- the tree listing with cursor pagination through `Link: <...>; rel="next"`;
- preupload (always "regular", with the blob oid of a file already there, so the client
  skips unchanged files) and the NDJSON commit (file / deletedFile / deletedFolder) with
  `parentCommit`: a parent that is not the head gets the Hub's 412. Commits are applied
  under one lock, so of two racing commits on the same parent one wins, one gets 412;
- paths-info (`/api/datasets/{id}/paths-info/{rev}`: the blob id of each path asked for);
- a cap on a folder's entries (`entry_cap`, off by default; the Hub's is 10,000): a commit
  that would put more in one folder is refused;
- a commit quota per repository (off by default; the Hub's "exceeded our hourly quotas
  for action: commit"): over it a commit gets 429;
- a repo that slows down with its history (`slow_after`, off by default). The Hub does not
  document it; what users see on repos with some thousands of commits is every commit
  taking longer, and some failing with a gateway timeout, until the history is squashed
  (super_squash_history, the Hub's advice). So: once a repo's history holds N commits,
  each further commit waits `delay` seconds before it is applied, and every `fail_every`-th
  one is answered 504 without landing. A squash leaves one commit: the repo is fast again;
- per-token request quotas (off by default): every response under one carries the IETF
  `RateLimit` / `RateLimit-Policy` headers the Hub documents, and over quota a request gets
  429 with them; `Retry-After`, which the Hub does not promise, only when a test asks (LFS
  objects going to and from storage count against no quota: on the Hub that is S3 and a CDN);
- Jobs (`/api/jobs/...`: run_job, inspect_job, fetch_job_logs, cancel_job, list_jobs), each
  job a real local process: see tests/standin_jobs.py (`standin.jobs`);
- model repos beside the dataset repos (`/api/models/{id}/...`, `/{id}/resolve/{rev}/{path}`),
  with the same routes; users' tokens (`add_user`: a name and a role, "write" or "read") beside
  the stand-in's own; pull requests and discussions (a commit with `create_pr`, refs/pr/N, the
  listing and details get_repo_discussions / get_discussion_details read, merge, close): see
  tests/standin_prs.py (`standin.prs`);
- fault injection: `fail_next` (answer an error status), `lose_reply_next` (apply the
  request, then lose its reply: drop the connection, answer 500, answer 504 as the Hub's
  gateway does when the work outlasts its wait, or hold the reply past the client's
  timeout), optionally only for a commit whose message holds some text; and `counts` of
  requests by kind.

LFS as the Hub decides it per file (.gitattributes patterns, size): the batch upload, the
`lfsFile` commit line, the tree's `lfs` entries and the resolve's CDN redirect, in
tests/standin_lfs.py (`standin.lfs`).

What it does not model: Xet uploads or downloads (HF_HUB_DISABLE_XET for every client), Space
repos, branches other than main (a PR's ref aside), tags, copies, fine-grained token scopes and
organisations (the stand-in's token may do everything; a user's token opens PRs, or only reads;
private repos are hidden from every token but the stand-in's), gated repos, and the exact wording
of most error messages.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import re
import secrets
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType
from typing import Mapping
from urllib.parse import parse_qs, unquote, urlsplit

CONFLICT_MESSAGE = "A commit has happened since. Please refresh and try again."
GITATTRIBUTES = (b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
                 b"*.mp4 filter=lfs diff=lfs merge=lfs -text\n")  # as the Hub's default .gitattributes


def blob_sha(data: bytes) -> str:
    """The git blob id of `data`: what the Hub calls a regular file's oid and ETag."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True)
class Commit:
    sha: str
    parent: str | None
    message: str
    tree: Mapping[str, bytes]
    lfs: frozenset = frozenset()  # the paths kept in LFS (tests/standin_lfs.py)


@dataclass
class Repo:
    id: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    head: str = ""
    refs: dict[str, str] = field(default_factory=dict)  # "refs/pr/N" -> commit sha (tests/standin_prs.py)
    discussions: list = field(default_factory=list)  # standin_prs.Discussion, numbered from 1

    def at(self, revision: str) -> Commit:
        sha = self.head if revision == "main" else self.refs.get(revision, revision)
        if sha not in self.commits:
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return self.commits[sha]


class HubError(Exception):
    """An error answer, as the Hub sends it: a status, a JSON {"error": ...}, an X-Error-Code."""

    def __init__(self, status: int, message: str, code: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.headers = status, message, code, headers or {}


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes = b""
    stream: object = None  # a callable giving more chunks after `body`, the connection held open meanwhile

    @classmethod
    def json(cls, payload, status: int = 200, headers: dict | None = None) -> Reply:
        return cls(status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(payload).encode())

    @classmethod
    def error(cls, e: HubError) -> Reply:
        headers = dict(e.headers)
        if e.code:
            headers["X-Error-Code"] = e.code
        headers["X-Error-Message"] = e.message
        return cls.json({"error": e.message}, e.status, headers)


@dataclass
class Request:
    method: str
    segments: list[str]  # the path, split on "/" and then unquoted (a quoted "/" stays inside a segment)
    query: dict[str, list[str]]
    headers: Mapping[str, str]
    body: bytes

    @property
    def token(self) -> str | None:
        value = self.headers.get("Authorization") or ""
        return value[len("Bearer "):] if value.startswith("Bearer ") else None


@dataclass
class Fault:
    kind: str | None  # None: any request
    remaining: int
    status: int = 503
    retry_after: int | None = None
    lose: str | None = None  # None: fail before handling; else handle, then lose the reply (LOSSES)
    message: str | None = None  # only a commit whose message holds this text


# How a reply is lost after the request was carried out: the connection dropped; a 500; the
# Hub's gateway giving up with 504 while the work goes on; held past the client's timeout.
LOSSES = ("reset", "500", "504", "slow")


class RateLimit:
    """A fixed-window request quota per token and resource ("api" or "resolvers"), as the Hub's:
    every response under it carries `RateLimit` (what is left, the seconds to the reset) and
    `RateLimit-Policy`; `Retry-After`, which the Hub does not promise, only with `retry_after`."""

    def __init__(self, quota: int, window_seconds: float, clock=time.monotonic, message: str | None = None,
                 retry_after: bool = False):
        self.quota, self.window, self.clock, self.message = quota, window_seconds, clock, message
        self.retry_after = retry_after
        self.windows: dict[tuple[str, str], tuple[float, int]] = {}  # (token, resource) -> (start, used)

    def spend(self, token: str | None, resource: str) -> None:
        """Use up the current window's quota now (others sharing the token just did)."""
        self.windows[(token or "anonymous", resource)] = (self.clock(), self.quota)

    def check(self, token: str | None, resource: str) -> dict[str, str]:
        """Count one request (HubError 429 over the quota); the headers its reply carries."""
        key, now = (token or "anonymous", resource), self.clock()
        start, used = self.windows.get(key, (now, 0))
        if now - start >= self.window:
            start, used = now, 0
        reset = max(1, math.ceil(self.window - (now - start)))
        if used >= self.quota:
            headers = self.headers(resource, 0, reset)
            if self.retry_after:
                headers["Retry-After"] = str(reset)
            raise HubError(429, self.message or f"You have exceeded our rate limit for {resource} requests",
                           headers=headers)
        self.windows[key] = (start, used + 1)
        return self.headers(resource, self.quota - used - 1, reset)

    def headers(self, resource: str, remaining: int, reset: int) -> dict[str, str]:
        return {"RateLimit": f'"{resource}";r={remaining};t={reset}',
                "RateLimit-Policy": f'"fixed window";"{resource}";q={self.quota};w={self.window}'}

    def refund(self, token: str | None, resource: str) -> None:
        """Give back one use (a commit the Hub refused with 412 never landed)."""
        key = (token or "anonymous", resource)
        start, used = self.windows.get(key, (self.clock(), 1))
        self.windows[key] = (start, max(0, used - 1))


class HubStandin:
    def __init__(self, prefix: str = "lb", page_size: int = 1000):
        self.prefix = prefix  # repo names are <owner>/<prefix>-<store>, as the stores expect
        self.page_size = page_size  # tree entries per page (the Hub's is 1000)
        self.token = "hf_standin_" + secrets.token_hex(8)
        self.admin_name = "standin-admin"  # the user the stand-in's own token belongs to
        self.users: dict[str, tuple[str, str]] = {}  # a user's token -> (name, role): add_user
        self.counts: Counter[str] = Counter()
        self.repos: dict[str, Repo] = {}
        self._lock = threading.Lock()  # every read and change of repos, faults and quotas
        self._faults: list[Fault] = []
        self._limits: dict[str, RateLimit] = {}
        self._commit_limit: RateLimit | None = None  # per repository, keyed by repo id
        self.entry_cap: int | None = None  # the most entries a folder may hold (the Hub: 10,000); None: no cap
        self._slow: tuple[int, float, int | None] | None = None  # slow_after's (commits, delay, fail_every)
        self.reply_hold = 5.0  # seconds a "slow" lost reply is held (past the client's timeout)
        self._serial = itertools.count()
        self._server: ThreadingHTTPServer | None = None
        from standin_jobs import JobsStandin  # beside this file, on the tests' path
        from standin_lfs import LfsStandin
        from standin_prs import PullRequestsStandin

        self.jobs = JobsStandin(self)
        self.lfs = LfsStandin(self)
        self.prs = PullRequestsStandin(self)

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> HubStandin:
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        self.jobs.stop()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "start() the stand-in first"
        return f"http://127.0.0.1:{self._server.server_port}"

    def env(self) -> dict[str, str]:
        """What a child process needs to reach the stand-in through huggingface_hub."""
        return {"HF_ENDPOINT": self.endpoint, "HF_TOKEN": self.token, "HF_HUB_OFFLINE": "0",
                "HF_HUB_DISABLE_XET": "1",  # uploads and downloads as plain HTTP, never a Xet CAS
                "HF_HUB_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
                "NO_PROXY": "127.0.0.1,localhost"}

    def api(self):
        from huggingface_hub import HfApi

        return HfApi(endpoint=self.endpoint, token=self.token)

    def stores(self, owner: str, cache_dir: Path | None = None):
        """The five stores of a deployment, in repos created over HTTP the way
        `python -m evaluator create-repos` does, with an HfApi pointed at the stand-in."""
        from submissions.stores import Stores
        from submissions.stores.deploy import create_repos

        api = self.api()
        create_repos(owner, self.prefix, self.token, api=api)
        return Stores.hub(owner, self.prefix, self.token, api=api, cache_dir=cache_dir)

    # -- test controls --------------------------------------------------------------------

    def add_user(self, name: str, role: str = "write") -> str:
        """A user's token: "write" opens pull requests (and changes those of repos in its own
        namespace), "read" only reads. The user writes no repo directly."""
        if role not in ("write", "read"):
            raise ValueError(f"role is write or read, not {role!r}")
        token = f"hf_user_{name}_" + secrets.token_hex(6)
        with self._lock:
            self.users[token] = (name, role)
        return token

    def fail_next(self, n: int = 1, status: int = 503, kind: str | None = None,
                  retry_after: int | None = None) -> None:
        """Answer the next `n` requests (of `kind`, or any) with `status`, doing nothing."""
        with self._lock:
            self._faults.append(Fault(kind, n, status, retry_after))

    def lose_reply_next(self, kind: str = "commit", how: str = "reset", message: str | None = None) -> None:
        """Carry out the next request of `kind` (with `message`: the next commit whose message
        holds that text), then lose its reply: drop the connection ("reset"), answer 500
        ("500") or 504 ("504", the Hub's gateway giving up on a slow commit that still lands),
        or hold it `reply_hold` seconds, past the client's timeout ("slow"). The client
        cannot tell whether it landed."""
        if how not in LOSSES:
            raise ValueError(f"how is one of {', '.join(LOSSES)}, not {how!r}")
        with self._lock:
            self._faults.append(Fault(kind, 1, 500, lose=how, message=message))

    def rate_limit(self, quota: int, window_seconds: float = 300, resource: str = "api",
                   retry_after: bool = False, clock=time.monotonic, spent: bool = False) -> None:
        """Allow each token `quota` requests of `resource` ("api" or "resolvers") per window
        (timed by `clock`); over it a 429 with the RateLimit headers (and Retry-After only
        when `retry_after`). `spent`: this token's window starts now, already used up."""
        with self._lock:
            self._limits[resource] = limit = RateLimit(quota, window_seconds, clock=clock, retry_after=retry_after)
            if spent:
                limit.spend(self.token, resource)

    def slow_after(self, commits: int | None, delay: float = 0.0, fail_every: int | None = None) -> None:
        """Once a repo's history holds `commits` commits, each further commit there waits
        `delay` seconds before it is applied, and every `fail_every`-th is answered 504
        without landing (what the Hub does is described at the top). None: off."""
        with self._lock:
            self._slow = None if commits is None else (commits, delay, fail_every)

    def commit_quota(self, quota: int, window_seconds: float = 3600) -> None:
        """Allow each repository `quota` commits per window (the Hub's hourly commit quota;
        a test or a bench shortens the window to compress an hour)."""
        with self._lock:
            self._commit_limit = RateLimit(quota, window_seconds, message="exceeded our hourly quotas for action: "
                                                                          "commit")

    # for assertions: the state, read directly (no request, no quota)

    def head(self, repo_id: str) -> str:
        with self._lock:
            return self._repo(repo_id, self.token).head

    def files(self, repo_id: str, revision: str = "main", repo_type: str = "dataset") -> dict[str, bytes]:
        """The files of a repo at `revision` ("main", a sha, or a PR's "refs/pr/N")."""
        with self._lock:
            return dict(self._repo(repo_key(repo_id, repo_type), self.token).at(revision).tree)

    def discussions(self, repo_id: str, repo_type: str = "model") -> list:
        """A repo's discussions and pull requests (standin_prs.Discussion), oldest first."""
        with self._lock:
            return list(self._repo(repo_key(repo_id, repo_type), self.token).discussions)

    def repo_kind(self, key: str) -> tuple[str, str]:
        """("model" | "dataset", repo id) of the repo stored under `key` (repo_key)."""
        return ("model", key[len(MODELS):]) if key.startswith(MODELS) else ("dataset", key)

    def repo_url(self, key: str) -> str:
        """The repo's page, as the Hub writes it in commit and pull request URLs."""
        kind, repo_id = self.repo_kind(key)
        return f"{self.endpoint}/{repo_id}" if kind == "model" else f"{self.endpoint}/datasets/{repo_id}"

    def history(self, repo_id: str) -> list[Commit]:
        """The commits of main, newest first."""
        with self._lock:
            repo = self._repo(repo_id, self.token)
            out, sha = [], repo.head
            while sha is not None:
                out.append(repo.commits[sha])
                sha = repo.commits[sha].parent
            return out

    # -- serving --------------------------------------------------------------------------

    def serve(self, request: Request) -> tuple[Reply, str | None]:
        """The reply to a request, and how to lose it (None: send it)."""
        kind, handler = self._route(request)
        with self._lock:
            self.counts[kind] += 1
            fault = self._take_fault(kind, request)
        if fault is not None and fault.lose is None:
            self._count("injected")
            headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
            return Reply.error(HubError(fault.status, f"injected failure ({fault.status})", headers=headers)), None
        try:
            resource = limit_resource(kind)
            limited: dict[str, str] = {}
            with self._lock:
                if resource in self._limits:
                    limited = self._limits[resource].check(request.token, resource)
            reply = handler(request)
            reply.headers.update(limited)
        except HubError as e:
            if e.status == 429:
                self._count("rate_limited")
            reply = Reply.error(e)
        if fault is not None:
            self._count("lost_reply")
            return reply, fault.lose
        return reply, None

    def _count(self, kind: str) -> None:
        with self._lock:  # handler threads count at once; Counter's += is not atomic
            self.counts[kind] += 1

    def _take_fault(self, kind: str, request: Request) -> Fault | None:
        for fault in self._faults:
            if fault.kind in (None, kind) and (fault.message is None or _commit_message(request, fault.message)):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self._faults.remove(fault)
                return fault
        return None

    def _route(self, request: Request):
        m, s = request.method, request.segments
        if s[:3] == ["api", "repos", "create"] and m == "POST":
            return "create_repo", self._create_repo
        if s[:2] == ["api", "validate-yaml"] and m == "POST":  # the client checks a README's card first
            return "validate_yaml", lambda r: Reply.json({})
        if s[:3] == ["api", "repos", "delete"] and m == "DELETE":
            return "delete_repo", self._delete_repo
        if len(s) >= 4 and s[0] == "api" and s[1] in ("datasets", "models"):
            repo_id, rest = repo_key(f"{s[2]}/{s[3]}", s[1][:-1]), s[4:]
            discussions = self.prs.route(request, repo_id, rest)
            if discussions is not None:
                return discussions
            if not rest and m == "GET":
                return "repo_info", lambda r: self._repo_info(r, repo_id, "main")
            if len(rest) == 2 and rest[0] == "revision" and m == "GET":
                return "repo_info", lambda r: self._repo_info(r, repo_id, rest[1])
            if len(rest) >= 2 and rest[0] == "tree" and m == "GET":
                return "tree", lambda r: self._tree(r, repo_id, rest[1], "/".join(rest[2:]))
            if len(rest) == 2 and rest[0] == "preupload" and m == "POST":
                return "preupload", lambda r: self._preupload(r, repo_id, rest[1])
            if len(rest) == 2 and rest[0] == "paths-info" and m == "POST":
                return "paths_info", lambda r: self._paths_info(r, repo_id, rest[1])
            if len(rest) == 2 and rest[0] == "commit" and m == "POST":
                return "commit", lambda r: self._commit(r, repo_id, rest[1])
            if rest == ["settings"] and m == "PUT":
                return "settings", lambda r: self._settings(r, repo_id)
            if len(rest) == 2 and rest[0] == "super-squash" and m == "POST":
                return "squash", lambda r: self._squash(r, repo_id, rest[1])
        if len(s) >= 6 and s[0] == "datasets" and s[3] == "resolve" and m in ("HEAD", "GET"):
            repo_id, path = f"{s[1]}/{s[2]}", "/".join(s[5:])
            return ("head" if m == "HEAD" else "download"), lambda r: self._resolve(r, repo_id, s[4], path)
        if len(s) >= 5 and s[0] not in ("api", "datasets", "spaces") and s[2] == "resolve" and m in ("HEAD", "GET"):
            repo_id, path = repo_key(f"{s[0]}/{s[1]}", "model"), "/".join(s[4:])
            return ("head" if m == "HEAD" else "download"), lambda r: self._resolve(r, repo_id, s[3], path)
        if s[:2] == ["api", "jobs"]:
            return self.jobs.route(request)
        lfs = self.lfs.route(request)
        if lfs is not None:
            return lfs
        return "unknown", lambda r: _raise(HubError(404, f"the stand-in does not serve {m} /{'/'.join(s)}"))

    # -- repos ----------------------------------------------------------------------------

    def _repo(self, repo_id: str, token: str | None, write: bool = False) -> Repo:
        """The repo, as the holder of `token` may see it (call under the lock)."""
        repo = self.repos.get(repo_id)
        if repo is None or (repo.private and token != self.token):
            raise HubError(404 if token else 401, "Repository not found", "RepoNotFound")
        if write and token != self.token:
            raise HubError(403, "You don't have the rights to write to this repo")
        return repo

    def _authorised(self, request: Request) -> None:
        if request.token is not None and request.token != self.token and request.token not in self.users:
            raise HubError(401, "Invalid credentials in Authorization header")
        if request.token is None:
            raise HubError(401, "You must be authenticated to do this")

    def _new_commit(self, repo: Repo, tree: Mapping[str, bytes], message: str, lfs: frozenset = frozenset(),
                    parent: str | None = None, move_head: bool = True) -> Commit:
        """A commit on main (on `parent`, for a pull request's ref: `move_head` False)."""
        parent = parent or repo.head or None
        digest = hashlib.sha1(json.dumps([repo.id, parent, message, next(self._serial),
                                          sorted((p, blob_sha(d)) for p, d in tree.items())]).encode())
        commit = Commit(digest.hexdigest(), parent, message, MappingProxyType(dict(tree)), frozenset(lfs) & set(tree))
        repo.commits[commit.sha] = commit
        if move_head:
            repo.head = commit.sha
        return commit

    def _slow_down(self, repo_id: str) -> None:
        """What a long history costs a commit (slow_after): a wait outside the lock, as the
        Hub's other repos and reads do not wait for it, or a 504 before anything lands."""
        with self._lock:
            slow, repo = self._slow, self.repos.get(repo_id)
            slow = slow if slow is not None and repo is not None and len(repo.commits) >= slow[0] else None
            if slow is not None:
                self.counts["slow_commit"] += 1
                if slow[2] is not None and self.counts["slow_commit"] % slow[2] == 0:
                    self.counts["gateway_timeout"] += 1
                    raise HubError(504, "Gateway Time-out")
        if slow is not None:
            time.sleep(slow[1])

    def _squash(self, request: Request, repo_id: str, branch: str) -> Reply:
        """super_squash_history: main becomes one commit holding the head's files; the old
        commits are gone (a read at one of them is RevisionNotFound)."""
        self._authorised(request)
        if branch != "main":
            raise HubError(400, "the stand-in squashes main only")
        message = json.loads(request.body or b"{}").get("message") or "Super-squash"
        with self._lock:
            repo = self._repo(repo_id, request.token, write=True)
            head = repo.at("main")
            repo.commits.clear()
            repo.head = ""
            commit = self._new_commit(repo, head.tree, message, head.lfs)
        return Reply.json({"commitId": commit.sha})

    def _create_repo(self, request: Request) -> Reply:
        self._authorised(request)
        payload = json.loads(request.body or b"{}")
        kind = payload.get("type") or "model"  # the client leaves the type out for a model
        if kind not in ("dataset", "model"):
            raise HubError(400, "the stand-in holds dataset and model repos only")
        repo_id = f"{payload['organization']}/{payload['name']}" if payload.get("organization") else payload["name"]
        key = repo_key(repo_id, kind)
        url = self.repo_url(key)
        with self._lock:
            if key in self.repos:
                raise HubError(409, f"You already created this {kind} repo")
            private = payload.get("visibility") == "private" or bool(payload.get("private"))
            repo = self.repos[key] = Repo(repo_id, private)
            self._new_commit(repo, {".gitattributes": GITATTRIBUTES}, "initial commit")
        return Reply.json({"url": url, "name": repo_id})

    def _delete_repo(self, request: Request) -> Reply:
        self._authorised(request)
        payload = json.loads(request.body or b"{}")
        repo_id = f"{payload['organization']}/{payload['name']}" if payload.get("organization") else payload["name"]
        key = repo_key(repo_id, payload.get("type") or "model")
        with self._lock:
            self._repo(key, request.token, write=True)
            del self.repos[key]
        return Reply.json({})

    def _settings(self, request: Request, repo_id: str) -> Reply:
        self._authorised(request)
        payload = json.loads(request.body or b"{}")
        with self._lock:
            repo = self._repo(repo_id, request.token, write=True)
            if "visibility" in payload:
                repo.private = payload["visibility"] == "private"
        return Reply.json({})

    def _repo_info(self, request: Request, repo_id: str, revision: str) -> Reply:
        with self._lock:
            repo = self._repo(repo_id, request.token)
            commit = repo.at(revision)
        info = {"_id": hashlib.sha1(repo_id.encode()).hexdigest()[:24], "id": repo.id, "sha": commit.sha,
                "private": repo.private, "author": repo.id.split("/")[0],
                "siblings": [{"rfilename": path} for path in sorted(commit.tree)]}
        wanted = request.query.get("expand")
        if wanted:  # only the properties asked for (and the ids), as the Hub does
            info = {k: v for k, v in info.items() if k in ("_id", "id") or k in wanted}
        return Reply.json(info)

    # -- files ----------------------------------------------------------------------------

    def _resolve(self, request: Request, repo_id: str, revision: str, path: str) -> Reply:
        with self._lock:
            commit = self._repo(repo_id, request.token).at(revision)
        headers = {"X-Repo-Commit": commit.sha}
        if path not in commit.tree:
            raise HubError(404, "Entry not found", "EntryNotFound", headers=headers)
        data = commit.tree[path]
        if path in commit.lfs:  # the Hub's CDN redirect, with the object's own etag and size
            return Reply(302, headers | self.lfs.redirect(commit.sha, data))
        headers |= {"ETag": f'"{blob_sha(data)}"', "Accept-Ranges": "bytes",
                    "Content-Type": "application/octet-stream"}
        start = _range_start(request.headers.get("Range"), len(data))
        if start:
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            return Reply(206, headers, data[start:])
        return Reply(200, headers, data)

    def _tree(self, request: Request, repo_id: str, revision: str, folder: str) -> Reply:
        cursor = request.query.get("cursor", [None])[0]
        with self._lock:
            repo = self._repo(repo_id, request.token)
            # a cursor pins the commit of the first page, so the pages of one listing agree
            sha, offset = cursor.split(":") if cursor else (repo.at(revision).sha, "0")
            commit = repo.at(sha)
        recursive = request.query.get("recursive", ["false"])[0].lower() in ("1", "true")
        entries = self._lfs_entries(_tree_entries(commit.tree, folder, recursive), commit)
        if folder and not entries:
            raise HubError(404, f"{folder} does not exist on main", "EntryNotFound")
        start, end = int(offset), int(offset) + self.page_size
        headers = {}
        if end < len(entries):
            query = f"recursive={str(recursive).lower()}&cursor={sha}:{end}"
            kind, plain = self.repo_kind(repo_id)
            url = f"{self.endpoint}/api/{kind}s/{plain}/tree/{revision}" + (f"/{folder}" if folder else "")
            headers["Link"] = f'<{url}?{query}>; rel="next"'
        return Reply.json(entries[start:end], headers=headers)

    def _lfs_entries(self, entries: list[dict], commit: Commit) -> list[dict]:
        """Tree entries with a file kept in LFS listed as the Hub lists it."""
        return [self.lfs.entry(e["path"], commit.tree[e["path"]]) if e["type"] == "file" and e["path"] in commit.lfs
                else e for e in entries]

    def _paths_info(self, request: Request, repo_id: str, revision: str) -> Reply:
        paths = parse_qs(request.body.decode()).get("paths", [])
        with self._lock:
            commit = self._repo(repo_id, request.token).at(revision)
        entries = self._lfs_entries(_tree_entries(commit.tree, "", recursive=True), commit)
        return Reply.json([e for e in entries if e["path"] in paths])

    # -- writing --------------------------------------------------------------------------

    def _preupload(self, request: Request, repo_id: str, revision: str) -> Reply:
        self._authorised(request)
        files = json.loads(request.body)["files"]
        with self._lock:
            if self.prs.wants_pr(request):  # a pull request's files: checked against main, by one who may open it
                repo = self._repo(repo_id, request.token)
                self.prs.may_open(request, repo)
                commit = repo.at(revision)
            else:
                commit = self._repo(repo_id, request.token, write=True).at(revision)
        from standin_lfs import goes_to_lfs, lfs_patterns

        patterns = lfs_patterns(commit.tree.get(".gitattributes"))
        answers = []
        for file in files:
            lfs = goes_to_lfs(file["path"], int(file.get("size") or 0), patterns)
            answer = {"path": file["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False}
            if file["path"] in commit.tree and not lfs:  # lets the client drop a file that would not change
                answer["oid"] = blob_sha(commit.tree[file["path"]])
            answers.append(answer)
        return Reply.json({"files": answers, "commitOid": commit.sha})

    def _commit(self, request: Request, repo_id: str, revision: str) -> Reply:
        self._authorised(request)
        if revision != "main":
            raise HubError(400, "the stand-in commits to main only")
        lines = [json.loads(line) for line in request.body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise HubError(400, "the first line of a commit must be its header")
        header = lines[0]["value"]
        if self.prs.wants_pr(request):  # a new ref and discussion, main untouched (tests/standin_prs.py)
            with self._lock:
                return Reply.json(self.prs.commit(request, repo_id, lines))
        self._slow_down(repo_id)
        with self._lock:  # check the parent and apply in one step: commits are serialised
            repo = self._repo(repo_id, request.token, write=True)
            if self._commit_limit is not None:
                self._commit_limit.check(repo_id, "commit")
            parent = header.get("parentCommit")
            if parent is not None and parent != repo.head:
                if self._commit_limit is not None:
                    self._commit_limit.refund(repo_id, "commit")
                raise HubError(412, CONFLICT_MESSAGE)
            tree, lfs = self._apply_lines(repo.at("main"), lines[1:])
            crowded = _crowded_folder(tree, self.entry_cap) if self.entry_cap else None
            if crowded is not None:
                if self._commit_limit is not None:
                    self._commit_limit.refund(repo_id, "commit")
                raise HubError(400, f"A folder cannot hold more than {self.entry_cap} entries ({crowded!r} would)")
            commit = self._new_commit(repo, tree, header.get("summary", ""), frozenset(lfs))
        return Reply.json({"success": True, "commitOid": commit.sha, "hookOutput": "",
                           "commitUrl": f"{self.repo_url(repo_id)}/commit/{commit.sha}",
                           "pullRequestUrl": None})

    def _apply_lines(self, base: Commit, lines: list[dict]) -> tuple[dict[str, bytes], set[str]]:
        """The tree and LFS paths after a commit's operation lines, applied to `base`."""
        tree, lfs = dict(base.tree), set(base.lfs)
        for line in lines:
            if line["key"] == "lfsFile":  # a file uploaded to LFS before the commit
                value = line["value"]
                tree[value["path"]] = self.lfs.stored(value["oid"])
                lfs.add(value["path"])
                continue
            lfs.discard(line["value"].get("path"))
            _apply(tree, line["key"], line["value"])
        return tree, lfs


MODELS = "models/"  # model repos are kept under this prefix beside the dataset repos


def repo_key(repo_id: str, repo_type: str = "dataset") -> str:
    """Where a repo is kept in HubStandin.repos: a dataset by its id, a model by MODELS + id."""
    if repo_type not in ("dataset", "model"):
        raise ValueError(f"the stand-in holds dataset and model repos, not {repo_type!r}")
    return repo_id if repo_type == "dataset" else MODELS + repo_id


def _commit_message(request: Request, text: str) -> bool:
    """Whether `request` is a commit whose message (its header's summary) holds `text`."""
    try:
        header = json.loads(request.body.split(b"\n", 1)[0])
    except ValueError:
        return False
    return header.get("key") == "header" and text in str(header.get("value", {}).get("summary", ""))


def _crowded_folder(tree: Mapping[str, bytes], cap: int) -> str | None:
    """A folder of `tree` holding more than `cap` entries (files and folders), or None."""
    entries: dict[str, set[str]] = {}
    for path in tree:
        parts = path.split("/")
        for depth in range(len(parts)):
            entries.setdefault("/".join(parts[:depth]), set()).add(parts[depth])
    return next((folder or "/" for folder, names in entries.items() if len(names) > cap), None)


def limit_resource(kind: str) -> str | None:
    """The quota a request counts against: the resolve routes, or the API; LFS objects
    going to and from storage (S3, the CDN the resolve redirects to) against none."""
    if kind in ("lfs_upload", "lfs_download"):
        return None
    return "resolvers" if kind in ("head", "download") else "api"


def _apply(tree: dict[str, bytes], key: str, value: dict) -> None:
    """One operation line of a commit."""
    path = value["path"]
    if key == "file":
        if value.get("encoding") != "base64":
            raise HubError(400, f"unsupported encoding {value.get('encoding')!r}")
        tree[path] = base64.b64decode(value["content"])
    elif key == "deletedFile":
        if path not in tree:
            raise HubError(404, "A file with this name doesn't exist", "EntryNotFound")
        del tree[path]
    elif key == "deletedFolder":
        folder = path.rstrip("/") + "/"
        doomed = [p for p in tree if p.startswith(folder)]
        if not doomed:
            raise HubError(404, "A folder with this name doesn't exist", "EntryNotFound")
        for p in doomed:
            del tree[p]
    else:  # lfsFile: the stand-in never asks for LFS, so a client sending it is a bug
        raise HubError(400, f"the stand-in does not accept {key!r} operations")


def _tree_entries(tree: Mapping[str, bytes], folder: str, recursive: bool) -> list[dict]:
    """Files and folders under `folder`, as the tree endpoint lists them."""
    base = folder.strip("/") + "/" if folder.strip("/") else ""
    files, folders = {}, set()
    for path, data in tree.items():
        if not path.startswith(base):
            continue
        parts = path[len(base):].split("/")
        for depth in range(1, len(parts)):
            if recursive or depth == 1:
                folders.add(base + "/".join(parts[:depth]))
        if recursive or len(parts) == 1:
            files[path] = data
    entries = [{"type": "directory", "oid": hashlib.sha1(p.encode()).hexdigest(), "path": p} for p in folders]
    entries += [{"type": "file", "oid": blob_sha(d), "size": len(d), "path": p} for p, d in files.items()]
    return sorted(entries, key=lambda e: e["path"])


def _range_start(header: str | None, size: int) -> int:
    """The first byte of `Range: bytes=N-` (how the client resumes), else 0."""
    match = re.fullmatch(r"bytes=(\d+)-", header or "")
    return min(int(match.group(1)), size) if match else 0


def _raise(error: Exception):
    raise error


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops the SYNs of many processes connecting at once (1 s retries)


def _handler_for(standin: HubStandin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the client's connection pool expects
        disable_nagle_algorithm = True  # headers and body go out in two writes: don't wait 40 ms between

        def handle_one(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(size) if size else b""
            url = urlsplit(self.path)
            request = Request(self.command, [unquote(s) for s in url.path.strip("/").split("/")],
                              parse_qs(url.query), self.headers, body)
            reply, lose = standin.serve(request)
            if lose == "reset":  # the request was carried out; its answer never arrives
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if lose == "500":
                reply = Reply.error(HubError(500, "Internal Error - We're working hard to fix this"))
            if lose == "504":
                reply = Reply.error(HubError(504, "Gateway Time-out"))
            if lose == "slow":  # the client has given up by the time the answer goes out
                time.sleep(standin.reply_hold)
                try:
                    self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True
                return
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            if reply.stream is not None:  # a stream: no length, the end of the connection ends it
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)
                if reply.stream is not None:
                    self._send_stream(reply.stream)

        def _send_stream(self, chunks) -> None:
            try:
                for chunk in chunks():
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: as on the Hub
                pass

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = handle_one

        def log_message(self, *args) -> None:  # quiet: pytest shows failures, not traffic
            pass

    return Handler
