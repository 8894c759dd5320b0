"""The Hub stand-in's pull requests and discussions (tests/hub_standin.py routes these here),
as huggingface_hub's HfApi reaches them, for model and dataset repos alike:

    POST /api/{type}s/{id}/preupload/main?create_pr=1    upload modes, checked against main
    POST /api/{type}s/{id}/commit/main?create_pr=1       a commit on a new ref, refs/pr/N, made from
                                                          main's head (or `parentCommit`); discussion N
                                                          opened with the commit's summary as title and
                                                          its description as first comment; the answer's
                                                          pullRequestUrl ends in /discussions/N
    GET  /api/{type}s/{id}/discussions?p=&type=&status=&author=   get_repo_discussions: newest first,
                                                                    PAGE discussions a page, with count
                                                                    and start so the client pages on
    GET  /api/{type}s/{id}/discussions/{num}             get_discussion_details (events, base, diff)
    POST /api/{type}s/{id}/discussions/{num}/merge       merge_pull_request: the PR's changes onto main
    POST /api/{type}s/{id}/discussions/{num}/status      change_discussion_status (open / closed)

Discussions and pull requests share one numbering per repo, from 1, as on the Hub. Who may do
what (the stand-in's token model, HubStandin.add_user): the stand-in's own token everything; a
user's token with role "write" may open pull requests on any repo it can see, and merge or close
them on repos of its own namespace; a token with role "read" may read and list, and gets 403
when it tries to open one (the Hub answers a token without write rights so). A PR commit keeps
the stand-in's strictness: a parent that is not main's head is refused with 412 only when the
commit targets main itself; a PR is made from the parent named.

Not modelled: draft PRs, comments other than the first, pushing more commits to an open PR,
conflicts (a merge applies the PR's changed files onto main as it is now).
"""

from __future__ import annotations

import difflib
import itertools
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

PAGE = 50  # discussions per page of the listing, as the Hub's
BASE_REF = "refs/heads/main"


@dataclass
class Discussion:
    num: int
    title: str
    author: str
    is_pull_request: bool
    description: str = ""
    status: str = "open"  # open | closed | merged
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat().replace("+00:00", "Z"))
    base_sha: str | None = None  # the commit the PR was made from
    merge_commit: str | None = None
    events: list[dict] = field(default_factory=list)


class PullRequestsStandin:
    def __init__(self, standin):
        self.standin = standin
        self._events = itertools.count(1)

    # -- routing (hub_standin._route calls these) -------------------------------------------------------

    def route(self, request, key: str, rest: list[str]):
        """(kind, handler) for a discussions route of the repo stored under `key`, or None."""
        m = request.method
        if rest == ["discussions"] and m == "GET":
            return "discussions", lambda r: self._list(r, key)
        if len(rest) == 2 and rest[0] == "discussions" and rest[1].isdigit() and m == "GET":
            return "discussion", lambda r: self._details(r, key, int(rest[1]))
        if len(rest) == 3 and rest[0] == "discussions" and rest[1].isdigit() and m == "POST":
            if rest[2] == "merge":
                return "merge", lambda r: self._merge(r, key, int(rest[1]))
            if rest[2] == "status":
                return "discussion_status", lambda r: self._status(r, key, int(rest[1]))
        return None

    @staticmethod
    def wants_pr(request) -> bool:
        return request.query.get("create_pr", ["0"])[0] in ("1", "true", "True")

    # -- rights -----------------------------------------------------------------------------------------

    def user(self, request) -> tuple[str, str]:
        """(name, role) of the request's token (the stand-in's own: its admin, "write")."""
        from hub_standin import HubError

        hub = self.standin
        if request.token == hub.token:
            return hub.admin_name, "admin"
        if request.token in hub.users:
            return hub.users[request.token]
        raise HubError(401, "Invalid credentials in Authorization header")

    def may_open(self, request, repo) -> str:
        """The author name of a PR opened with the request's token; 403 for a read-only token."""
        from hub_standin import HubError

        name, role = self.user(request)
        if role == "read":
            raise HubError(403, f"You don't have the rights to open a pull request on {repo.id}: this token "
                                f"can only read")
        return name

    def _may_change(self, request, repo) -> None:
        from hub_standin import HubError

        name, role = self.user(request)
        if role != "admin" and repo.id.split("/")[0] != name:
            raise HubError(403, f"You don't have the rights to change pull requests of {repo.id}")

    # -- opening one ------------------------------------------------------------------------------------

    def commit(self, request, key: str, lines: list[dict]) -> dict:
        """A commit with create_pr: a new ref and discussion (call under the stand-in's lock,
        after its checks of the header)."""
        from hub_standin import HubError

        hub = self.standin
        repo = hub._repo(key, request.token)
        author = self.may_open(request, repo)
        header = lines[0]["value"]
        parent = header.get("parentCommit") or repo.head
        if parent not in repo.commits:
            raise HubError(400, f"Invalid parent commit {parent}")
        tree, lfs = hub._apply_lines(repo.commits[parent], lines[1:])
        commit = hub._new_commit(repo, tree, header.get("summary", ""), frozenset(lfs), parent=parent,
                                 move_head=False)
        num = len(repo.discussions) + 1
        repo.refs[f"refs/pr/{num}"] = commit.sha
        found = Discussion(num, header.get("summary", ""), author, True, header.get("description", ""),
                           base_sha=parent)
        found.events = [self._event("comment", author, {"edited": False, "hidden": False,
                                                        "latest": {"raw": found.description}}),
                        self._event("commit", author, {"subject": commit.message, "oid": commit.sha})]
        repo.discussions.append(found)
        url = hub.repo_url(key)
        return {"success": True, "commitOid": commit.sha, "commitUrl": f"{url}/commit/{commit.sha}",
                "pullRequestUrl": f"{url}/discussions/{num}", "hookOutput": ""}

    def _event(self, kind: str, author: str, data: dict) -> dict:
        return {"id": f"{next(self._events):024x}", "type": kind, "author": {"name": author},
                "createdAt": datetime.now(UTC).isoformat().replace("+00:00", "Z"), "data": data}

    # -- reading ----------------------------------------------------------------------------------------

    def _item(self, key: str, d: Discussion) -> dict:
        kind, repo_id = self.standin.repo_kind(key)
        return {"num": d.num, "title": d.title, "status": d.status, "author": {"name": d.author},
                "createdAt": d.created_at, "isPullRequest": d.is_pull_request,
                "repo": {"name": repo_id, "type": kind}}

    def _list(self, request, key: str):
        from hub_standin import HubError, Reply

        q = {k: v[0] for k, v in request.query.items()}
        wanted_type, wanted_status = q.get("type", "all"), q.get("status", "all")
        if wanted_type not in ("all", "discussion", "pull_request") or wanted_status not in ("all", "open",
                                                                                             "closed"):
            raise HubError(400, "Invalid type or status")
        with self.standin._lock:
            found = list(reversed(self.standin._repo(key, request.token).discussions))
        found = [d for d in found
                 if (wanted_type == "all" or d.is_pull_request == (wanted_type == "pull_request"))
                 and (wanted_status == "all" or (d.status == "open") == (wanted_status == "open"))
                 and ("author" not in q or d.author == q["author"])]
        start = int(q.get("p", "0")) * PAGE
        return Reply.json({"discussions": [self._item(key, d) for d in found[start:start + PAGE]],
                           "count": len(found), "start": start,
                           "numClosedDiscussions": sum(d.status != "open" for d in found)})

    def _discussion(self, request, key: str, num: int):
        from hub_standin import HubError

        repo = self.standin._repo(key, request.token)
        if not 1 <= num <= len(repo.discussions):
            raise HubError(404, "Discussion not found")
        return repo, repo.discussions[num - 1]

    def _details(self, request, key: str, num: int):
        from hub_standin import Reply

        with self.standin._lock:
            repo, found = self._discussion(request, key, num)
            diff = self._diff(repo, found) if found.is_pull_request else None
        payload = self._item(key, found) | {"events": found.events, "filesWithConflicts": []}
        if found.is_pull_request:
            payload["changes"] = {"base": BASE_REF} | ({"mergeCommitId": found.merge_commit}
                                                      if found.merge_commit else {})
            payload["diff"] = diff
        return Reply.json(payload)

    def _diff(self, repo, found: Discussion) -> str:
        before = repo.commits[found.base_sha].tree
        after = repo.at(f"refs/pr/{found.num}").tree
        out = []
        for path in sorted(set(before) | set(after)):
            if before.get(path) != after.get(path):
                old = (before.get(path) or b"").decode(errors="replace").splitlines(keepends=True)
                new = (after.get(path) or b"").decode(errors="replace").splitlines(keepends=True)
                out += difflib.unified_diff(old, new, f"a/{path}", f"b/{path}")
        return "".join(out)

    # -- changing ---------------------------------------------------------------------------------------

    def _merge(self, request, key: str, num: int):
        from hub_standin import HubError, Reply

        with self.standin._lock:
            repo, found = self._discussion(request, key, num)
            self._may_change(request, repo)
            if not found.is_pull_request or found.status != "open":
                raise HubError(400, f"Pull request #{num} is not open")
            before = repo.commits[found.base_sha].tree
            after = repo.at(f"refs/pr/{num}").tree
            tree = dict(repo.at("main").tree)
            for path in set(before) | set(after):
                if before.get(path) != after.get(path):
                    if path in after:
                        tree[path] = after[path]
                    else:
                        tree.pop(path, None)
            name = self.user(request)[0]
            commit = self.standin._new_commit(repo, tree, f"Merge pull request #{num}: {found.title}")
            found.status, found.merge_commit = "merged", commit.sha
            found.events.append(self._event("status-change", name, {"status": "merged"}))
        return Reply.json({})

    def _status(self, request, key: str, num: int):
        from hub_standin import HubError, Reply

        wanted = json.loads(request.body or b"{}").get("status")
        if wanted not in ("open", "closed"):
            raise HubError(400, "Invalid status")
        with self.standin._lock:
            repo, found = self._discussion(request, key, num)
            self._may_change(request, repo)
            if found.status == "merged":
                raise HubError(400, f"Pull request #{num} is merged")
            found.status = wanted
            event = self._event("status-change", self.user(request)[0], {"status": wanted})
            found.events.append(event)
        return Reply.json({"newStatus": event})
