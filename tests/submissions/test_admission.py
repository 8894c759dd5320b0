"""Admission under a race: the per-user quota, the pending cap, the per-org quota and the
duplicate rule hold when 16 submitters arrive at once, in threads and in separate
processes, on the local store and on the Hub (the HTTP stand-in, driven through the real
HfApi client). Whatever the interleaving: never more admitted than the limit, one file
queued once, and no upload left behind by a refused submission."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from test_validation import FakeHub, model_payload

from evaluator.baselines import predictions
from evaluator.predictions import write_predictions
from space_config.settings import Quotas, get_settings
from submissions.errors import Refused
from submissions.queue import Queue
from submissions.stores import Stores
from submissions.submit import Identity, submit_model, submit_predictions

ROOT = Path(__file__).resolve().parents[2]
RACERS = 16

SUBMITTER = """
import json, sys
from pathlib import Path
from space_config.settings import get_settings
from submissions.errors import Refused
from submissions.stores import open_stores
from submissions.submit import Identity, submit_predictions

user, file, suite_id = sys.argv[1:4]
settings = get_settings()
stores = open_stores(settings)
sys.stdin.readline()  # start together
try:
    request = submit_predictions(stores, settings, Identity(user), Path(file), "racer", suite_id=suite_id)
    print(json.dumps({"admitted": request.id}))
except Refused as e:
    print(json.dumps({"refused": e.reason}))
"""


@dataclasses.dataclass
class Deployment:
    """Stores with the demo suite's call list published, and how a child process opens them."""

    stores: Stores
    env: dict[str, str]
    suite_id: str


@pytest.fixture(params=["local", "hub"])
def deployment(request, tmp_path, demo_dir, demo_suite) -> Deployment:
    suite = demo_suite[0]
    env = {"PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "user-home"), "HF_HUB_OFFLINE": "1"}
    if request.param == "local":
        stores = Stores.local(tmp_path / "home")
        env |= {"LEADERBOARD_STORE": "local", "LEADERBOARD_HOME": str(tmp_path / "home")}
    else:
        standin = request.getfixturevalue("hub_standin")
        stores = standin.stores("racers", cache_dir=tmp_path / "cache")
        env |= standin.env() | {"LEADERBOARD_STORE": "hub", "LEADERBOARD_HUB_OWNER": "racers",
                                "LEADERBOARD_HUB_PREFIX": standin.prefix}
    for name in ("suite.json", "calls.jsonl"):  # all that validating a prediction file reads
        stores.suite.write(f"{suite.id}/{name}", (demo_dir / "suite" / name).read_bytes())
    return Deployment(stores, env, suite.id)


def prediction_files(tmp_path: Path, suite, count: int) -> list[Path]:
    """`count` different valid files (the random baseline, one seed each)."""
    paths = []
    for seed in range(count):
        path = tmp_path / f"preds-{seed}.jsonl"
        write_predictions(path, predictions("random", suite.calls, seed=seed))
        paths.append(path)
    return paths


def settings_with(**quotas: int):
    return dataclasses.replace(get_settings(), quotas=dataclasses.replace(Quotas(), **quotas))


def race_in_threads(attempts) -> list[str]:
    """Run the zero-argument callables at the same instant; each outcome as "admitted"
    or the refusal's reason."""
    barrier = threading.Barrier(len(attempts))
    outcomes: list[str] = []

    def run(attempt):
        barrier.wait()
        try:
            attempt()
            outcomes.append("admitted")
        except Refused as e:
            outcomes.append(e.reason)
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            outcomes.append(f"error: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=run, args=(a,)) for a in attempts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return outcomes


def race_in_processes(deployment: Deployment, submissions: list[tuple[str, Path]], per_user: int,
                      pending: int) -> list[str]:
    env = {**os.environ, **deployment.env, "LEADERBOARD_QUOTA_PER_USER": str(per_user),
           "LEADERBOARD_QUOTA_PENDING": str(pending)}
    procs = [subprocess.Popen([sys.executable, "-c", SUBMITTER, user, str(path), deployment.suite_id], cwd=ROOT,
                              env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for user, path in submissions]
    for p in procs:  # every process has imported everything and waits: release them together
        p.stdin.write("go\n")
        p.stdin.flush()
    outcomes = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        result = json.loads(out.strip().splitlines()[-1])
        outcomes.append("admitted" if "admitted" in result else result["refused"])
    return outcomes


def race(mode: str, deployment: Deployment, submissions: list[tuple[str, Path]], per_user: int,
         pending: int) -> list[str]:
    """The submissions (user, file) at the same instant, each as the Submit tab sends it."""
    if mode == "processes":
        return race_in_processes(deployment, submissions, per_user, pending)
    settings = settings_with(per_user=per_user, pending_per_user=pending)
    return race_in_threads([
        lambda user=user, path=path: submit_predictions(deployment.stores, settings, Identity(user), path, "racer",
                                                        suite_id=deployment.suite_id)
        for user, path in submissions])


def queued(deployment: Deployment):
    return Queue(deployment.stores.requests).all()


def uploads(deployment: Deployment) -> list[str]:
    return deployment.stores.private.list("predictions")


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_the_per_user_quota_holds_under_a_race(deployment, mode, tmp_path, demo_suite):
    files = prediction_files(tmp_path, demo_suite[0], RACERS)
    outcomes = race(mode, deployment, [("alice", f) for f in files], per_user=5, pending=RACERS)
    assert Counter(outcomes) == {"admitted": 5, "quota": RACERS - 5}, outcomes
    requests = queued(deployment)
    assert len(requests) == 5
    assert sorted(uploads(deployment)) == sorted(r.predictions_path for r in requests)  # no orphan upload


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_one_file_is_queued_once_under_a_race(deployment, mode, tmp_path, demo_suite):
    [path] = prediction_files(tmp_path, demo_suite[0], 1)
    outcomes = race(mode, deployment, [("alice", path)] * RACERS, per_user=RACERS, pending=RACERS)
    assert Counter(outcomes) == {"admitted": 1, "duplicate": RACERS - 1}, outcomes
    [request] = queued(deployment)
    assert uploads(deployment) == [request.predictions_path]


def test_the_pending_cap_holds_under_a_race(deployment, tmp_path, demo_suite):
    files = prediction_files(tmp_path, demo_suite[0], RACERS)
    outcomes = race("threads", deployment, [("alice", f) for f in files], per_user=RACERS, pending=2)
    assert Counter(outcomes) == {"admitted": 2, "quota": RACERS - 2}, outcomes
    assert len(queued(deployment)) == 2


def test_limits_are_per_user_under_a_race(deployment, tmp_path, demo_suite):
    """Four users racing with four files each and a limit of 2: two each, whatever the order."""
    files = prediction_files(tmp_path, demo_suite[0], RACERS)
    users = [f"user{i % 4}" for i in range(RACERS)]
    outcomes = race("threads", deployment, list(zip(users, files)), per_user=2, pending=RACERS)
    assert Counter(outcomes) == {"admitted": 8, "quota": 8}, outcomes
    assert Counter(r.submitter for r in queued(deployment)) == {f"user{i}": 2 for i in range(4)}


def test_the_per_org_quota_holds_across_users_under_a_race(deployment):
    """Sixteen users each submit a different checkpoint of one org's models; the org's limit is 3."""
    hub = FakeHub()
    for i in range(RACERS):
        hub.add(model_payload(f"acme/ckpt-{i}"))
    settings = dataclasses.replace(settings_with(per_user=RACERS, per_org=3, pending_per_user=RACERS),
                                   suite=deployment.suite_id)
    outcomes = race_in_threads([
        lambda i=i: submit_model(deployment.stores, settings, Identity(f"user{i}"), {"model": f"acme/ckpt-{i}"}, hub)
        for i in range(RACERS)])
    assert Counter(outcomes) == {"admitted": 3, "quota": RACERS - 3}, outcomes
    assert len(queued(deployment)) == 3
