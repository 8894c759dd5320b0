"""The Hugging Face Jobs dispatcher (worker/dispatch.py) over the Hub stand-in, whose
Jobs endpoints run each job's command as a real local process (tests/standin_jobs.py):
the real HfApi (run_job, inspect_job, fetch_job_logs, cancel_job) over HTTP, the real
worker CLI inside the job, the real queue and stores on the stand-in's repos."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from evaluator.baselines import predictions
from worker.dispatch import Dispatcher
from worker.dispatch_rules import (JOB_OOM, JOB_STOPPED, NOT_STARTED, JobEnd, choose_flavor, gpu_count, job_command,
                                   job_error_message, job_failure, job_killed_message, outcome_line)
from evaluator.predictions import write_predictions
from results import aggregate
from results.aggregate import load_table
from space_config.settings import JobsSettings, Quotas, get_settings, parse_flavors
from submissions.queue import Queue
from submissions.requests import Reason, Request, Status, request_log_path
from submissions.submit import Identity, submit_predictions

ROOT = Path(__file__).resolve().parents[2]
OWNER = "org"
IMAGE = "hf.co/spaces/org/leaderboard-worker"


@pytest.fixture
def hub(hub_standin, tmp_path, monkeypatch, demo_dir, demo_suite):
    """The stand-in with the demo suite published and the dispatcher's settings in the
    environment (a child process reads them there too)."""
    suite, _ = demo_suite
    env = hub_standin.env() | {"LEADERBOARD_STORE": "hub", "LEADERBOARD_HUB_OWNER": OWNER,
                               "LEADERBOARD_HUB_PREFIX": hub_standin.prefix, "LEADERBOARD_BOOTSTRAP_SAMPLES": "20",
                               "LEADERBOARD_JOBS_IMAGE": IMAGE, "LEADERBOARD_JOBS_POLL_SECONDS": "0.2",
                               "HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    stores = hub_standin.stores(OWNER, cache_dir=tmp_path / "cache")
    stores.suite.upload_folder(suite.id, demo_dir / "suite")
    stores.answers.upload_folder(suite.id, demo_dir / "answers")
    yield hub_standin, stores, suite, env
    get_settings.cache_clear()


def submit(stores, suite, tmp_path: Path, seed: int = 1) -> Request:
    """A prediction file through the site's own submit path."""
    path = tmp_path / f"preds-{seed}.jsonl"
    write_predictions(path, predictions("random", suite.calls, seed=seed))
    settings = dataclasses.replace(get_settings(), quotas=Quotas(per_user=100, per_org=100, pending_per_user=100))
    return submit_predictions(stores, settings, Identity("alice"), path, f"random seed {seed}", suite_id=suite.id)


def dispatch_in_thread(stores, standin) -> tuple[Dispatcher, threading.Thread]:
    dispatcher = Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="disp")
    thread = threading.Thread(target=dispatcher.drain, daemon=True)
    thread.start()
    return dispatcher, thread


def private_log(stores, request_id: str) -> str:
    found = stores.private.read(request_log_path(request_id))
    return found.data.decode() if found else ""


def commits(standin, store: str) -> int:
    return len(standin.history(f"{OWNER}/{standin.prefix}-{store}"))


# -- end to end -------------------------------------------------------------------------------

def test_a_request_runs_end_to_end_as_a_job(hub, tmp_path):
    standin, stores, suite, env = hub
    request = submit(stores, suite, tmp_path)
    before = commits(standin, "requests")
    key = {"LEADERBOARD_JUDGE_API_KEY": "sk-judge-secret"}  # a remote judge's key travels as a secret too
    run = subprocess.run([sys.executable, "-m", "evaluator.worker", "--dispatch", "hf-jobs", "--once",
                          "--worker-id", "disp"], cwd=ROOT, env={**os.environ, **env, **key}, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]

    done = Queue(stores.requests).get(request.id)
    assert done.status == Status.FINISHED and done.runs == 1, done.failure
    assert done.worker_id.startswith("disp-")
    assert request.id in set(load_table(stores.results)["id"])  # published
    job = standin.jobs.only()
    assert job.stage == "COMPLETED" and job.returncode == 0
    # the job: the worker image, the request under the dispatcher's claim, no GPU for a file
    assert job.spec["spaceId"] == "org/leaderboard-worker" and job.spec["flavor"] == "cpu-upgrade"
    assert job.spec["command"] == job_command(request.id, done.worker_id)
    assert job.spec["secrets"] == {"HF_TOKEN": standin.token, **key}
    assert "HF_TOKEN" not in job.spec["environment"] and standin.token not in str(job.spec["environment"])
    assert "sk-judge-secret" not in str(job.spec["environment"])
    assert job.spec["environment"]["LEADERBOARD_HUB_OWNER"] == OWNER
    assert job.spec["environment"]["LEADERBOARD_BOOTSTRAP_SAMPLES"] == "20"  # the worker's settings, forwarded
    assert "LEADERBOARD_JOBS_IMAGE" not in job.spec["environment"]
    assert job.spec["timeoutSeconds"] == int(get_settings().worker.job_timeout_seconds + 600)
    assert job.spec["labels"]["leaderboard-request"] == request.id
    # the dispatcher showed the job's stage and its output
    assert f"job {job.id} RUNNING -> COMPLETED" in run.stderr
    assert f"request {request.id} ended FINISHED" in run.stderr  # a line of the job's own output
    # the job's output is in the private log, after the job's worker's own lines
    text = private_log(stores, request.id)
    assert f"job {job.id} (cpu-upgrade, worker {done.worker_id}) ended COMPLETED" in text
    assert "| " in text and f"request {request.id} ended FINISHED" in text
    assert text.index("claimed " + request.id) < text.index(f"job {job.id} (cpu-upgrade")
    # the commit budget: claim, the job id in the progress, finish; nothing per poll
    assert commits(standin, "requests") - before == 3


def test_a_request_cancelled_while_its_job_runs_cancels_the_job(hub, tmp_path, monkeypatch):
    standin, stores, suite, _ = hub
    monkeypatch.setenv("LEADERBOARD_WORKER_HOLD_SECONDS", "120")  # forwarded: the job's worker holds its claim
    request = submit(stores, suite, tmp_path)
    dispatcher, thread = dispatch_in_thread(stores, standin)
    job = standin.jobs.wait_for(lambda j: "holding 120 s" in j.output)
    running = Queue(stores.requests).get(request.id)
    assert running.status == Status.RUNNING  # the job id in the progress, recorded at launch:
    assert running.progress.stage.startswith(f"hf job {job.id} on cpu-upgrade: ")
    started = time.monotonic()

    Queue(stores.requests).cancel(request.id)
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert time.monotonic() - started < 30  # the job was stopped, not waited for
    assert job.stage == "CANCELED" and job.cancel_requested and job.returncode is not None
    ended = Queue(stores.requests).get(request.id)
    assert ended.status == Status.CANCELLED and ended.failure is None
    assert request.id not in set(load_table(stores.results).get("id", []))  # nothing published
    assert stores.results.read(aggregate.result_path(request.id)) is None
    text = private_log(stores, request.id)
    assert f"job {job.id}" in text and "cancelled: the request is CANCELLED" in text


def test_a_job_that_crashes_is_retried_then_fails_its_request_with_a_reason(hub, tmp_path, monkeypatch):
    standin, stores, suite, _ = hub
    request = submit(stores, suite, tmp_path)
    settings = get_settings()
    # a setting the job's worker refuses at start (the dispatcher's own were read before)
    monkeypatch.setenv("LEADERBOARD_MIN_BUCKET_ITEMS", "-1")
    dispatcher = Dispatcher(stores, settings, api=standin.api(), dispatcher_id="disp")
    thread = threading.Thread(target=dispatcher.drain, daemon=True)
    thread.start()
    thread.join(timeout=180)
    assert not thread.is_alive()

    # the job's worker died without recording why: each attempt gets a job, as after a worker crash
    jobs = list(standin.jobs.jobs.values())
    assert len(jobs) == request.max_attempts == 3
    assert all(job.stage == "ERROR" and job.returncode == 1 for job in jobs)
    failed = Queue(stores.requests).get(request.id)
    assert failed.status == Status.FAILED and failed.attempt == 3
    assert failed.failure.reason == Reason.INTERNAL and failed.failure.message == job_error_message(1, 3, 3)
    assert "stopped with an error (exit code 1)" in failed.failure.message
    assert "attempt 3 of 3" in failed.failure.message
    assert standin.token not in failed.to_bytes().decode() and "Traceback" not in failed.failure.message
    assert failed.log_path == request_log_path(request.id)
    text = private_log(stores, request.id)  # the crash itself is for the maintainers
    assert "LEADERBOARD_MIN_BUCKET_ITEMS must be a whole number" in text and "FAILED internal" in text
    assert text.count("back to the queue: its Hugging Face Job stopped with an error (exit code 1)") == 2
    assert request.id not in set(load_table(stores.results).get("id", []))


def test_the_dispatcher_holds_the_lease_while_the_job_waits_for_hardware(hub, tmp_path, monkeypatch):
    standin, stores, suite, _ = hub
    # a lease far shorter than the job's wait: unrenewed, it would run out, the next claim
    # would take the request back and a second job would run it
    monkeypatch.setenv("LEADERBOARD_LEASE_SECONDS", "1.5")
    standin.jobs.start_delay = 3.0
    request = submit(stores, suite, tmp_path)
    dispatcher, thread = dispatch_in_thread(stores, standin)
    thread.join(timeout=120)
    assert not thread.is_alive()
    done = Queue(stores.requests).get(request.id)
    assert done.status == Status.FINISHED and done.attempt == 0, done.history
    job = standin.jobs.only()
    assert job.stage == "COMPLETED" and (job.started_at - job.created_at).total_seconds() >= 3.0
    assert job.spec["environment"]["LEADERBOARD_LEASE_SECONDS"] == "1.5"  # the job's worker renews as often


def test_why_a_job_failed_reads_its_final_stage():
    def failure(stage, message=None, total=10):
        return job_failure(stage, message, total, timeout_seconds=100, attempt=3, max_attempts=3)

    crashed = failure("ERROR", "Job failed with exit code: 1")
    assert crashed == JobEnd(Reason.INTERNAL, job_error_message(1, 3, 3),
                             "its Hugging Face Job stopped with an error (exit code 1)")
    killed = failure("ERROR", "Job failed with exit code: 137")  # a bare SIGKILL: the platform, or memory
    assert killed == JobEnd(Reason.INTERNAL, job_killed_message(137, 3, 3),
                            "its Hugging Face Job was killed (exit code 137)")
    assert "killed (exit code 137)" in killed.message and "attempt 3 of 3" in killed.message
    assert "memory" in killed.message  # the other reason a job is killed, and what to do then
    assert failure("ERROR", "Job failed with exit code: 143").retry == "its Hugging Face Job was killed (exit code 143)"
    assert failure("ERROR").retry == "its Hugging Face Job stopped with an error"  # no message at all
    # not retried: the same limit, memory or decision would stop it again
    assert failure("ERROR", "Job timeout")[:2] == (Reason.TIMEOUT, failure("ERROR", "Job timeout").message)
    assert failure("ERROR", "Job timeout").retry == "" and failure("ERROR", None, total=100).reason == Reason.TIMEOUT
    for said in ("Job failed with exit code: 137 (OOM killed)", "Job failed with exit code: 137 (OOMKilled)",
                 "The container ran out of memory"):
        assert failure("ERROR", said) == JobEnd(Reason.OUT_OF_MEMORY, JOB_OOM), said
    assert failure("CANCELED") == JobEnd(Reason.INTERNAL, JOB_STOPPED)  # stopped on the Hub, not by a maintainer
    assert failure("DELETED", "Job failed with exit code: 137") == JobEnd(Reason.INTERNAL, JOB_STOPPED)
    assert failure("ERROR", "Zoomed out").retry  # "oom" as a word only
    assert "took longer than the time limit of 100 s" in failure("ERROR", "Job timeout").message
    # what the private log says became of the request
    assert outcome_line(killed, 1, 3) == ("back to the queue: its Hugging Face Job was killed (exit code 137) "
                                          "(attempt 2 of 3 next)")
    assert outcome_line(killed, 3, 3) == f"FAILED internal: {killed.message}"
    assert outcome_line(JobEnd(Reason.OUT_OF_MEMORY, JOB_OOM), 1, 3) == f"FAILED out_of_memory: {JOB_OOM}"


def test_a_job_finishes_its_request_after_the_dispatcher_is_gone(hub, tmp_path):
    standin, stores, suite, _ = hub
    request = submit(stores, suite, tmp_path)
    Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="gone").step()  # launch, then never again
    job = standin.jobs.wait_for(lambda j: j.stage in ("COMPLETED", "ERROR"), timeout=120)
    assert job.stage == "COMPLETED"  # the job's worker held its own lease and finished
    done = Queue(stores.requests).get(request.id)
    assert done.status == Status.FINISHED and done.worker_id.startswith("gone-")
    assert request.id in set(load_table(stores.results)["id"])


def test_no_more_jobs_run_at_once_than_the_setting_allows(hub, tmp_path, monkeypatch):
    standin, stores, suite, _ = hub
    monkeypatch.setenv("LEADERBOARD_WORKER_HOLD_SECONDS", "120")
    monkeypatch.setenv("LEADERBOARD_JOBS_MAX_RUNNING", "2")
    get_settings.cache_clear()
    ids = [submit(stores, suite, tmp_path, seed).id for seed in range(3)]
    dispatcher = Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="disp")
    dispatcher.step()
    dispatcher.step()
    assert len(standin.jobs.jobs) == 2 and len(dispatcher.running) == 2
    statuses = [Queue(stores.requests).get(i).status for i in ids]
    assert statuses == [Status.RUNNING, Status.RUNNING, Status.PENDING]  # the oldest first
    Queue(stores.requests).cancel(ids[0])
    # ids[0]'s job is either holding (the dispatcher cancels it) or still starting (its worker then
    # finds the request cancelled and leaves without doing anything): either way it ends
    first = standin.jobs.wait_for(lambda j: ids[0] in " ".join([*j.spec["command"], *(j.spec.get("arguments") or [])]))
    dispatcher.step()
    standin.jobs.wait_for(lambda j: j is first and j.stage in ("CANCELED", "COMPLETED"), timeout=30)
    assert "Traceback" not in first.output
    dispatcher.step()  # its slot is free again: the third request gets a job
    assert len(standin.jobs.jobs) == 3 and Queue(stores.requests).get(ids[2]).status == Status.RUNNING


def test_a_job_the_hub_refuses_gives_the_request_back_and_backs_off(hub, tmp_path):
    standin, stores, suite, _ = hub
    request = submit(stores, suite, tmp_path)
    dispatcher = Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="disp")
    standin.fail_next(1, status=400, kind="run_job")
    dispatcher.step()
    back = Queue(stores.requests).get(request.id)
    assert back.status == Status.PENDING and back.attempt == 1 and back.worker_id is None
    assert "gave it back: its Hugging Face Job could not be started (attempt 2 of 3 next)" in back.history[-1].note
    assert "could not start a Hugging Face Job on cpu-upgrade" in private_log(stores, request.id)
    assert not dispatcher.running and not standin.jobs.jobs
    dispatcher.step()  # backing off: no claim at all
    assert Queue(stores.requests).get(request.id).status == Status.PENDING


def test_give_back_fails_the_request_once_its_attempts_are_used(hub, tmp_path):
    _, stores, suite, _ = hub
    request = submit(stores, suite, tmp_path)
    queue = Queue(stores.requests)
    for attempt in range(request.max_attempts):
        claimed = queue.claim("w", 60)
        assert claimed.id == request.id
        back = queue.give_back(request.id, "w", "refused", NOT_STARTED)
    assert back.status == Status.FAILED and back.failure.reason == Reason.INTERNAL
    assert back.failure.message == NOT_STARTED and back.attempt == request.max_attempts


# -- choices ------------------------------------------------------------------------------------

def model_request(billions: str | None, precision: str = "bfloat16") -> Request:
    metadata = {"params_billions": billions} if billions is not None else {}
    return Request(kind="model", submitter="a", suite_id="s", model="org/m", precision=precision, metadata=metadata)


@pytest.mark.parametrize("billions, precision, flavor", [
    ("0.50", "bfloat16", "l4x1"), ("3.00", "bfloat16", "l4x1"), ("7.62", "bfloat16", "l40sx1"),
    ("7.62", "float32", "a100-large"), ("13.00", "float16", "a100-large"), ("34.00", "bfloat16", "h200"),
    ("72.70", "bfloat16", "h200x2"), ("200.00", "bfloat16", "h200x4"), (None, "bfloat16", "h200"),
    ("many", "bfloat16", "h200"),
])
def test_the_flavor_follows_the_models_size(billions, precision, flavor):
    assert choose_flavor(model_request(billions, precision), JobsSettings()) == flavor


def test_prediction_files_need_no_gpu_and_the_table_is_a_setting():
    file = Request(kind="predictions", submitter="a", suite_id="s", model="my file")
    assert choose_flavor(file, JobsSettings()) == "cpu-upgrade" and gpu_count("cpu-upgrade") == 0
    custom = JobsSettings(flavors=parse_flavors("10:a10g-large, 2:t4-small"), predictions_flavor="t4-small")
    assert choose_flavor(model_request("1.5"), custom) == "t4-small"
    assert choose_flavor(model_request("9"), custom) == "a10g-large"
    assert choose_flavor(file, custom) == "t4-small"
    assert [gpu_count(f) for f in ("l4x1", "h200", "h200x2", "a10g-largex4", "rtx-pro-6000")] == [1, 1, 2, 4, 1]
    with pytest.raises(ValueError, match="LEADERBOARD_JOBS_FLAVORS.*'big'"):
        parse_flavors("8:l40sx1,big")


def test_the_dispatcher_refuses_to_start_without_its_settings(tmp_path):
    from worker.errors import DispatchError
    from submissions.stores import Stores

    settings = get_settings()
    stores = Stores.local(tmp_path)
    with pytest.raises(DispatchError, match="LEADERBOARD_STORE=hub"):
        Dispatcher(stores, dataclasses.replace(settings, store="local"), api=object())
    with pytest.raises(DispatchError, match="LEADERBOARD_JOBS_IMAGE"):
        Dispatcher(stores, dataclasses.replace(settings, store="hub", jobs=JobsSettings(namespace="o")), api=object())


def test_the_time_limit_counts_from_running_and_the_wait_for_hardware_has_its_own(hub, tmp_path, monkeypatch):
    """A job that waits for its machine longer than its time limit is not failed as too slow;
    a job that waits longer than LEADERBOARD_JOBS_HARDWARE_WAIT is cancelled and its request
    goes back to the queue, saying which wait ran out. (The dispatcher's clock is moved on by
    hand: the stand-in's job really waits.)"""
    standin, stores, suite, _ = hub
    monkeypatch.setenv("LEADERBOARD_JOB_TIMEOUT", "100")
    monkeypatch.setenv("LEADERBOARD_JOBS_TIMEOUT_GRACE", "0")
    monkeypatch.setenv("LEADERBOARD_JOBS_HARDWARE_WAIT", "1000")
    monkeypatch.setenv("LEADERBOARD_JOBS_MAX_RUNNING", "1")  # the cancelled job's slot stays taken: no new claim
    get_settings.cache_clear()
    standin.jobs.start_delay = 60.0  # SCHEDULING for the whole test
    now = [0.0]
    request = submit(stores, suite, tmp_path)
    dispatcher = Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="disp", clock=lambda: now[0])
    dispatcher.step()  # launched at 0
    now[0] = 500.0  # five times the time limit, all of it waiting for hardware
    dispatcher.step()
    job = standin.jobs.only()
    assert job.stage == "SCHEDULING" and not job.cancel_requested  # not failed as too slow
    assert Queue(stores.requests).get(request.id).status == Status.RUNNING
    now[0] = 1001.0  # past the wait for hardware
    dispatcher.step()
    standin.jobs.wait_for(lambda j: j.stage == "CANCELED", timeout=30)
    assert Queue(stores.requests).get(request.id).status == Status.RUNNING  # given back once the job has ended
    dispatcher.step()  # given back, then claimed again by this round (a new job, a new wait)
    back = Queue(stores.requests).get(request.id)
    assert back.attempt == 1 and len(standin.jobs.jobs) == 2
    assert any("waited 1000 s for a cpu-upgrade machine without starting" in (e.note or "") for e in back.history)
    assert "waited 1000 s for a cpu-upgrade machine" in private_log(stores, request.id)


def test_a_running_job_is_held_to_its_time_limit_from_when_it_runs(hub, tmp_path, monkeypatch):
    standin, stores, suite, _ = hub
    monkeypatch.setenv("LEADERBOARD_WORKER_HOLD_SECONDS", "120")  # the job's worker holds: it would run long
    monkeypatch.setenv("LEADERBOARD_JOB_TIMEOUT", "100")
    monkeypatch.setenv("LEADERBOARD_JOBS_TIMEOUT_GRACE", "0")
    get_settings.cache_clear()
    now = [0.0]
    request = submit(stores, suite, tmp_path)
    dispatcher = Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="disp", clock=lambda: now[0])
    dispatcher.step()
    standin.jobs.wait_for(lambda j: j.stage == "RUNNING", timeout=30)
    now[0] = 50.0
    dispatcher.step()  # seen RUNNING at 50: its limit ends at 150 (+ a poll)
    now[0] = 140.0
    dispatcher.step()
    assert not standin.jobs.only().cancel_requested
    now[0] = 151.0
    dispatcher.step()
    standin.jobs.wait_for(lambda j: j.stage in ("CANCELED", "ERROR"), timeout=30)
    failed = Queue(stores.requests).get(request.id)
    assert failed.status == Status.FAILED and failed.failure.reason == Reason.TIMEOUT


def running_job(hub, tmp_path, monkeypatch):
    """A request whose job runs and holds (its worker waits before doing anything), dispatched
    in a thread: (stand-in, stores, request, the dispatcher's thread, the job)."""
    standin, stores, suite, _ = hub
    monkeypatch.setenv("LEADERBOARD_WORKER_HOLD_SECONDS", "120")
    get_settings.cache_clear()
    request = submit(stores, suite, tmp_path)
    _, thread = dispatch_in_thread(stores, standin)
    job = standin.jobs.wait_for(lambda j: j.stage == "RUNNING" and j.process is not None, timeout=60)
    return standin, stores, request, thread, job


def test_a_job_killed_by_the_platform_is_retried_and_its_next_job_finishes(hub, tmp_path, monkeypatch):
    """A container the platform kills (SIGKILL: it exits 137, as when the machine is taken
    back) leaves its request RUNNING: the request goes back to the queue and the next
    round starts a second job for it, which scores it."""
    standin, stores, request, thread, first = running_job(hub, tmp_path, monkeypatch)
    monkeypatch.delenv("LEADERBOARD_WORKER_HOLD_SECONDS")  # read at each launch: the next job does not hold
    standin.jobs.kill(first)
    thread.join(timeout=180)
    assert not thread.is_alive()

    assert first.returncode == 137 and first.message == "Job failed with exit code: 137"
    jobs = list(standin.jobs.jobs.values())
    assert len(jobs) == 2 and jobs[0] is first and jobs[1].stage == "COMPLETED"
    assert jobs[1].spec["command"] == job_command(request.id, jobs[1].spec["labels"]["leaderboard-worker"])
    done = Queue(stores.requests).get(request.id)
    assert done.status == Status.FINISHED and done.attempt == 1 and done.runs == 1 and done.failure is None
    assert any("gave it back: its Hugging Face Job was killed (exit code 137) (attempt 2 of 3 next)" in (e.note or "")
               for e in done.history)
    assert request.id in set(load_table(stores.results)["id"])
    text = private_log(stores, request.id)
    assert f"job {first.id} (cpu-upgrade" in text and "back to the queue: its Hugging Face Job was killed" in text


def test_a_job_killed_on_every_attempt_fails_its_request_saying_so(hub, tmp_path, monkeypatch):
    standin, stores, request, thread, job = running_job(hub, tmp_path, monkeypatch)
    killed: list[str] = []
    while True:
        standin.jobs.kill(job)
        killed.append(job.id)
        if len(killed) == request.max_attempts:
            break
        job = standin.jobs.wait_for(lambda j: j.id not in killed and j.stage == "RUNNING" and j.process is not None)
    thread.join(timeout=120)
    assert not thread.is_alive()

    assert len(standin.jobs.jobs) == request.max_attempts == 3  # no fourth job
    assert all(j.returncode == 137 and j.stage == "ERROR" for j in standin.jobs.jobs.values())
    failed = Queue(stores.requests).get(request.id)
    assert failed.status == Status.FAILED and failed.attempt == 3 and failed.failure.reason == Reason.INTERNAL
    assert failed.failure.message == job_killed_message(137, 3, 3)
    assert failed.failure.message.startswith("The evaluation job on Hugging Face Jobs was killed (exit code 137) "
                                             "before this submission was scored, on attempt 3 of 3")
    assert "no attempts left" in failed.history[-1].note and failed.log_path == request_log_path(request.id)
    text = private_log(stores, request.id)
    assert text.count("back to the queue: its Hugging Face Job was killed (exit code 137)") == 2
    assert f"FAILED internal: {failed.failure.message}" in text


def test_a_job_killed_for_running_out_of_memory_fails_at_once(hub, tmp_path, monkeypatch):
    """The same model, frames and machine would run out of memory again: no second job."""
    standin, stores, request, thread, job = running_job(hub, tmp_path, monkeypatch)
    standin.jobs.kill(job, out_of_memory=True)
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert job.returncode == 137 and job.message == "Job failed with exit code: 137 (OOMKilled)"
    assert len(standin.jobs.jobs) == 1
    failed = Queue(stores.requests).get(request.id)
    assert failed.status == Status.FAILED and failed.attempt == 0
    assert failed.failure.reason == Reason.OUT_OF_MEMORY and failed.failure.message == JOB_OOM


def test_following_running_jobs_never_waits_on_their_open_log_streams(hub, tmp_path, monkeypatch):
    """A running job's log stream stays open until the client gives up (5 s without a
    byte): a round of following two running jobs takes far less than one such wait."""
    standin, stores, suite, _ = hub
    assert standin.jobs.logs_stay_open
    monkeypatch.setenv("LEADERBOARD_WORKER_HOLD_SECONDS", "120")
    monkeypatch.setenv("LEADERBOARD_JOBS_MAX_RUNNING", "2")
    get_settings.cache_clear()
    for seed in range(2):
        submit(stores, suite, tmp_path, seed)
    dispatcher = Dispatcher(stores, get_settings(), api=standin.api(), dispatcher_id="disp")
    dispatcher.step()
    standin.jobs.wait_for(lambda j: sum(x.stage == "RUNNING" for x in standin.jobs.jobs.values()) == 2, timeout=60)
    for _ in range(3):
        started = time.monotonic()
        dispatcher.step()
        assert time.monotonic() - started < 2.5  # not 2 x 5 s waiting on two streams in turn
    for job in standin.jobs.jobs.values():
        job.cancel_requested = True
        standin.jobs._kill(job)


def test_a_job_deleted_on_the_service_fails_its_request_as_stopped(hub, tmp_path, monkeypatch):
    standin, stores, request, thread, job = running_job(hub, tmp_path, monkeypatch)
    standin.jobs.delete(job)
    thread.join(timeout=120)
    assert not thread.is_alive() and job.stage == "DELETED"
    failed = Queue(stores.requests).get(request.id)
    assert failed.status == Status.FAILED and failed.failure.reason == Reason.INTERNAL
    assert failed.failure.message == JOB_STOPPED
    assert "ended DELETED" in private_log(stores, request.id)
