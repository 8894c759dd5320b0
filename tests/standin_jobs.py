"""The Hub stand-in's Jobs endpoints (tests/hub_standin.py routes `/api/jobs/...` here),
as huggingface_hub's HfApi calls them:

    POST /api/jobs/{namespace}                 run_job: the job spec (dockerImage or spaceId,
                                               command, environment, secrets, flavor,
                                               timeoutSeconds, labels) -> JobInfo JSON
    GET  /api/jobs/{namespace}                 list_jobs (label=k=v filters)
    GET  /api/jobs/{namespace}/{id}            inspect_job -> JobInfo JSON
    GET  /api/jobs/{namespace}/{id}/logs       fetch_job_logs: server-sent events,
                                               `data: {"timestamp": ..., "data": line}`
    POST /api/jobs/{namespace}/{id}/cancel     cancel_job

A job is a real local process: the image is not pulled; its command runs in the repository
with this interpreter standing in for the image's `python`. Its environment is what a Jobs
container gets: the job's `environment` and `secrets` (nothing of the test process's own
environment but PATH), plus the platform's way to the Hub (HF_ENDPOINT: the stand-in).
Stages follow the process: SCHEDULING for `start_delay` seconds, RUNNING while it runs,
then COMPLETED (exit 0), ERROR ("Job failed with exit code: N", or "Job timeout" when it ran
past `timeoutSeconds` and was killed), CANCELED, or DELETED (`delete`: removed on the service).
`kill` is the platform killing a container (SIGKILL: "exit code: 137"); with `out_of_memory`
the message also says "(OOMKilled)", the reason Kubernetes gives for its memory killer (the
Hub's exact words are not known here). Output (stdout and stderr together) is
kept line by line, with the Hub's "===== Job started" line first.

A running job's log stream stays open as the service's does (new lines as they come, a
keep-alive every 30 s), so a non-following fetch returns only once the client gives up
waiting (5 s without a byte); `logs_stay_open = False` replays and closes instead. A
container killed by a signal exits 128 + the signal (SIGKILL: 137).

Not modelled: images, hardware (every flavor is this machine), attempts/retries, volumes,
ports, scheduled jobs, metrics, and the exact wording of the Hub's messages.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TERMINAL = ("COMPLETED", "CANCELED", "ERROR", "DELETED")


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _event(at: datetime, text: str) -> str:
    return f"data: {json.dumps({'timestamp': _iso(at), 'data': text})}\n\n"


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class StandinJob:
    id: str
    namespace: str
    spec: dict
    created_at: datetime = field(default_factory=_now)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    stage: str = "SCHEDULING"
    message: str | None = None
    process: subprocess.Popen | None = None
    lines: list[tuple[datetime, str]] = field(default_factory=list)
    cancel_requested: bool = False
    timed_out: bool = False
    deleted: bool = False  # deleted on the service: the DELETED stage
    out_of_memory: bool = False  # killed by the platform for its memory (`kill`)
    returncode: int | None = None

    @property
    def output(self) -> str:
        return "\n".join(text for _, text in self.lines)

    def info(self) -> dict:
        end = self.finished_at or _now()
        image = ({"spaceId": self.spec["spaceId"]} if "spaceId" in self.spec
                 else {"dockerImage": self.spec.get("dockerImage")})
        return {
            "id": self.id, "createdAt": _iso(self.created_at), "startedAt": _iso(self.started_at),
            "finishedAt": _iso(self.finished_at), **image, "command": self.spec.get("command"),
            "arguments": self.spec.get("arguments", []), "environment": self.spec.get("environment", {}),
            "secrets": {name: None for name in self.spec.get("secrets") or {}},  # names only, never values
            "flavor": self.spec.get("flavor"), "labels": self.spec.get("labels"),
            "status": {"stage": self.stage, "message": self.message},
            "owner": {"id": hashlib.sha1(self.namespace.encode()).hexdigest()[:24], "name": self.namespace,
                      "type": "org"},
            "durations": {
                "schedulingSecs": int(((self.started_at or end) - self.created_at).total_seconds()),
                "runningSecs": int((end - self.started_at).total_seconds()) if self.started_at else None,
                "totalSecs": int((end - self.created_at).total_seconds())},
        }


class JobsStandin:
    def __init__(self, standin, cwd: Path = ROOT, python: str = sys.executable):
        self.standin = standin
        self.cwd, self.python = cwd, python
        self.start_delay = 0.0  # seconds a new job stays SCHEDULING (waiting for hardware)
        # A running job's log stream stays open, as the service's does, sending a keep-alive
        # comment every `keepalive_seconds` (the service: 30) until the job ends or the client
        # hangs up (huggingface_hub's fetch_job_logs stops after 5 s without a byte).
        self.logs_stay_open = True
        self.keepalive_seconds = 30.0
        self.jobs: dict[str, StandinJob] = {}
        self._lock = threading.Lock()
        self._homes = Path(tempfile.mkdtemp(prefix="standin-jobs-"))

    # -- for tests ----------------------------------------------------------------------

    def only(self) -> StandinJob:
        with self._lock:
            assert len(self.jobs) == 1, f"{len(self.jobs)} jobs ran"
            return next(iter(self.jobs.values()))

    def delete(self, job: StandinJob) -> None:
        """Delete a job on the service (as its owner might on the Hub's page): its container
        is stopped and the job reports the DELETED stage."""
        with self._lock:
            job.deleted = True
        self._kill(job)
        with self._lock:
            if job.process is None or job.process.poll() is not None:
                job.stage, job.finished_at = "DELETED", job.finished_at or _now()

    def kill(self, job: StandinJob, out_of_memory: bool = False) -> None:
        """The platform kills the job's container at once (SIGKILL: it exits 137), as when it
        takes the machine back or, with `out_of_memory`, when the job ran out of memory."""
        with self._lock:
            job.out_of_memory = out_of_memory
        os.killpg(job.process.pid, signal.SIGKILL)

    def wait_for(self, predicate, timeout: float = 60.0) -> StandinJob:
        """The first job for which `predicate(job)` holds, waiting up to `timeout` seconds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                found = [job for job in self.jobs.values() if predicate(job)]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError(f"no job matched within {timeout} s: "
                             f"{[(j.id, j.stage, j.output[-2000:]) for j in self.jobs.values()]}")

    def stop(self) -> None:
        for job in list(self.jobs.values()):
            self._kill(job)
        shutil.rmtree(self._homes, ignore_errors=True)

    # -- routing ------------------------------------------------------------------------

    def route(self, request):
        """(kind, handler) for a `/api/jobs/...` request, or None if not a Jobs route."""
        from hub_standin import HubError, _raise

        m, s = request.method, request.segments
        if len(s) == 3 and s[2] != "hardware":
            namespace = s[2]
            if m == "POST":
                return "run_job", lambda r: self._run(r, namespace)
            if m == "GET":
                return "list_jobs", lambda r: self._list(r, namespace)
        if len(s) >= 4:
            namespace, job_id, rest = s[2], s[3], s[4:]
            if m == "GET" and not rest:
                return "inspect_job", lambda r: self._reply(self._job(r, namespace, job_id).info())
            if m == "GET" and rest == ["logs"]:
                return "job_logs", lambda r: self._logs(r, namespace, job_id)
            if m == "POST" and rest == ["cancel"]:
                return "cancel_job", lambda r: self._cancel(r, namespace, job_id)
        return "unknown", lambda r: _raise(HubError(404, f"the stand-in does not serve {m} /{'/'.join(s)}"))

    @staticmethod
    def _reply(payload):
        from hub_standin import Reply

        return Reply.json(payload)

    def _job(self, request, namespace: str, job_id: str) -> StandinJob:
        from hub_standin import HubError

        self.standin._authorised(request)
        with self._lock:
            job = self.jobs.get(job_id)
        if job is None or job.namespace != namespace:
            raise HubError(404, f"Job {job_id} not found")
        return job

    # -- the endpoints --------------------------------------------------------------------

    def _run(self, request, namespace: str):
        from hub_standin import HubError

        self.standin._authorised(request)
        spec = json.loads(request.body or b"{}")
        if not spec.get("command") or not (spec.get("dockerImage") or spec.get("spaceId")):
            raise HubError(400, "a job needs an image (dockerImage or spaceId) and a command")
        job = StandinJob(secrets.token_hex(12), namespace, spec)
        with self._lock:
            self.jobs[job.id] = job
        threading.Timer(self.start_delay, self._start, args=(job,)).start()
        return self._reply(job.info())

    def _list(self, request, namespace: str):
        self.standin._authorised(request)
        wanted = dict(label.split("=", 1) for label in request.query.get("label", []))
        with self._lock:
            jobs = [j for j in self.jobs.values() if j.namespace == namespace]
        return self._reply([j.info() for j in jobs
                            if all((j.spec.get("labels") or {}).get(k) == v for k, v in wanted.items())])

    def _logs(self, request, namespace: str, job_id: str):
        from hub_standin import Reply

        job = self._job(request, namespace, job_id)
        with self._lock:
            lines = list(job.lines)
        tail = request.query.get("tail")
        if tail:
            lines = lines[-int(tail[0]):]
        body = "".join(_event(at, text) for at, text in lines)
        stream = (lambda: self._more_lines(job, len(job.lines))) if self.logs_stay_open and job.stage not in TERMINAL \
            else None
        return Reply(200, {"Content-Type": "text/event-stream"}, body.encode(), stream=stream)

    def _more_lines(self, job: StandinJob, sent: int):
        """A running job's new log lines as they come, keep-alives between, until it ends."""
        quiet_since = time.monotonic()
        while True:
            with self._lock:
                new, ended = job.lines[sent:], job.stage in TERMINAL
            sent += len(new)
            if new:
                quiet_since = time.monotonic()
                yield "".join(_event(at, text) for at, text in new).encode()
            if ended:
                return
            if time.monotonic() - quiet_since >= self.keepalive_seconds:
                quiet_since = time.monotonic()
                yield b": keep-alive\n\n"
            time.sleep(0.1)

    def _cancel(self, request, namespace: str, job_id: str):
        job = self._job(request, namespace, job_id)
        with self._lock:
            if job.stage in TERMINAL:
                return self._reply({})
            job.cancel_requested = True
            if job.process is None:  # still scheduling: it never starts
                job.stage, job.finished_at = "CANCELED", _now()
        self._kill(job)
        return self._reply({})

    # -- the process ----------------------------------------------------------------------

    def _start(self, job: StandinJob) -> None:
        if job.cancel_requested or job.deleted or self.standin._server is None:
            return  # cancelled while it waited for hardware, or the stand-in is gone: it never starts
        spec = job.spec
        command = list(spec["command"]) + list(spec.get("arguments") or [])
        if command[0] in ("python", "python3"):  # the image's python: this interpreter, in the repo
            command[0] = self.python
        home = self._homes / job.id
        home.mkdir(parents=True)
        platform = {k: v for k, v in self.standin.env().items() if k != "HF_TOKEN"}  # the token only as a secret
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home),
               "PYTHONPATH": str(self.cwd), "PYTHONUNBUFFERED": "1", **platform,
               **{k: str(v) for k, v in (spec.get("environment") or {}).items()},
               **{k: str(v) for k, v in (spec.get("secrets") or {}).items()}}
        with self._lock:
            if job.cancel_requested:
                return
            job.started_at = _now()
            job.lines.append((job.started_at, f"===== Job started at {_iso(job.started_at)} ====="))
            job.process = subprocess.Popen(command, cwd=self.cwd, env=env, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, start_new_session=True)
            job.stage = "RUNNING"
        timeout = spec.get("timeoutSeconds")
        if timeout:
            timer = threading.Timer(float(timeout), self._time_out, args=(job,))
            timer.daemon = True
            timer.start()
        threading.Thread(target=self._read, args=(job,), daemon=True).start()

    def _read(self, job: StandinJob) -> None:
        for raw in job.process.stdout:
            with self._lock:
                job.lines.append((_now(), raw.decode(errors="replace").rstrip("\n")))
        code = job.process.wait()
        code = 128 - code if code < 0 else code  # a container killed by signal N exits 128 + N (SIGKILL: 137)
        with self._lock:
            job.returncode, job.finished_at = code, _now()
            if job.deleted:
                job.stage = "DELETED"
            elif job.cancel_requested:
                job.stage = "CANCELED"
            elif job.timed_out:
                job.stage, job.message = "ERROR", "Job timeout"
            elif code == 0:
                job.stage = "COMPLETED"
            else:
                job.stage, job.message = "ERROR", f"Job failed with exit code: {code}" + (
                    " (OOMKilled)" if job.out_of_memory else "")

    def _time_out(self, job: StandinJob) -> None:
        with self._lock:
            if job.stage in TERMINAL:
                return
            job.timed_out = True
        self._kill(job)

    @staticmethod
    def _kill(job: StandinJob) -> None:
        """SIGTERM to the job's process group, SIGKILL if it is still there 3 s later."""
        process = job.process
        if process is None or process.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue
