"""The Hub stand-in's LFS side (tests/hub_standin.py routes these here), as huggingface_hub
uploads and downloads a file the Hub keeps in LFS:

    POST /datasets/{owner}/{name}.git/info/lfs/objects/batch   the upload's batch: for each object
                                                                not stored yet, where to PUT it and
                                                                where to verify it ("basic" transfer)
    PUT  /lfs-upload/{oid}                                      the bytes (their sha256 must be oid)
    POST /lfs-verify/{oid}                                      200 once stored
    GET  /lfs-objects/{oid}                                     the bytes (HEAD too, and Range)

Which files go to LFS is decided per file, as the Hub does: a path that a `filter=lfs`
pattern of the repo's .gitattributes matches, or a file over LFS_THRESHOLD bytes. A commit
names such a file by an `lfsFile` line (its sha256 and size); the tree lists it with its
`lfs` block and the oid of its pointer file; resolving it answers 302 to /lfs-objects/ with
X-Linked-Etag (its sha256) and X-Linked-Size, as the Hub's CDN redirect does.

Not modelled: Xet (the client's Xet path is turned off where this is used:
HF_HUB_DISABLE_XET), multipart uploads, and LFS objects' deletion.
"""

from __future__ import annotations

import fnmatch
import hashlib
import threading
from typing import Mapping

LFS_THRESHOLD = 10 * 1024 * 1024  # the Hub sends bigger files to LFS whatever .gitattributes says


def pointer(data: bytes) -> bytes:
    """The git-lfs pointer file that stands in the repo for `data`."""
    return (f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}\n"
            f"size {len(data)}\n").encode()


def lfs_patterns(gitattributes: bytes | None) -> list[str]:
    return [line.split()[0] for line in (gitattributes or b"").decode(errors="replace").splitlines()
            if "filter=lfs" in line.split()[1:]]


def goes_to_lfs(path: str, size: int, patterns: list[str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    return size > LFS_THRESHOLD or any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(path, p) for p in patterns)


class LfsStandin:
    def __init__(self, standin):
        self.standin = standin
        self.objects: dict[str, bytes] = {}  # sha256 -> bytes
        self._lock = threading.Lock()

    def route(self, request):
        from hub_standin import HubError, Reply

        m, s = request.method, request.segments
        if len(s) == 7 and s[0] == "datasets" and s[2].endswith(".git") and s[3:] == ["info", "lfs", "objects",
                                                                                            "batch"] and m == "POST":
            return "lfs_batch", self._batch
        if len(s) == 2 and s[0] == "lfs-upload" and m == "PUT":
            return "lfs_upload", lambda r: self._upload(r, s[1])
        if len(s) == 2 and s[0] == "lfs-verify" and m == "POST":
            return "lfs_verify", lambda r: Reply.json({}) if s[1] in self.objects else _raise(
                HubError(404, "Object not found"))
        if len(s) == 2 and s[0] == "lfs-objects" and m in ("GET", "HEAD"):
            return "lfs_download", lambda r: self._download(r, s[1])
        return None

    def _batch(self, request):
        import json

        from hub_standin import Reply

        self.standin._authorised(request)
        body = json.loads(request.body)
        out = []
        for obj in body.get("objects", []):
            entry = {"oid": obj["oid"], "size": obj["size"]}
            if obj["oid"] not in self.objects:
                base = self.standin.endpoint
                entry["actions"] = {"upload": {"href": f"{base}/lfs-upload/{obj['oid']}", "header": {}},
                                    "verify": {"href": f"{base}/lfs-verify/{obj['oid']}", "header": {}}}
            out.append(entry)
        return Reply.json({"transfer": "basic", "objects": out, "hash_algo": "sha256"})

    def _upload(self, request, oid: str):
        from hub_standin import HubError, Reply

        if hashlib.sha256(request.body).hexdigest() != oid:
            raise HubError(400, f"the uploaded bytes do not hash to {oid}")
        with self._lock:
            self.objects[oid] = request.body
        return Reply(200, {}, b"")

    def _download(self, request, oid: str):
        from hub_standin import HubError, Reply, _range_start

        data = self.objects.get(oid)
        if data is None:
            raise HubError(404, "Object not found")
        headers = {"ETag": f'"{oid}"', "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"}
        start = _range_start(request.headers.get("Range"), len(data))
        if start:
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            return Reply(206, headers, data[start:])
        return Reply(200, headers, data)

    def stored(self, oid: str) -> bytes:
        from hub_standin import HubError

        if oid not in self.objects:
            raise HubError(400, f"LFS object {oid} was never uploaded")
        return self.objects[oid]

    def entry(self, path: str, data: bytes) -> dict:
        """A tree / paths-info entry of a file kept in LFS."""
        kept = pointer(data)
        from hub_standin import blob_sha

        return {"type": "file", "oid": blob_sha(kept), "size": len(data), "path": path,
                "lfs": {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": len(kept)}}

    def redirect(self, commit_sha: str, data: bytes) -> dict[str, str]:
        """The headers of a resolve that the Hub answers with its CDN redirect."""
        from hub_standin import blob_sha

        oid = hashlib.sha256(data).hexdigest()
        # the Hub's CDN is another host: "localhost" for the stand-in's 127.0.0.1, so the client
        # reads the file's metadata off this redirect and downloads from there without the token
        cdn = self.standin.endpoint.replace("127.0.0.1", "localhost")
        return {"Location": f"{cdn}/lfs-objects/{oid}", "X-Linked-Etag": f'"{oid}"',
                "X-Linked-Size": str(len(data)), "X-Repo-Commit": commit_sha, "ETag": f'"{blob_sha(pointer(data))}"'}


def _raise(error: Exception):
    raise error


__all__ = ["LFS_THRESHOLD", "LfsStandin", "goes_to_lfs", "lfs_patterns", "pointer"]
