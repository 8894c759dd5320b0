"""Prediction files validated in the site's validation process (leaderboard/checking.py), and
submit_predictions trusting that check only for the very file that was checked."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from evaluator.baselines import predictions
from leaderboard.checking import FileChecker
from leaderboard.views.submit_notes import unread_text
from space_config.settings import get_settings
from submissions.errors import Refused
from submissions.stores import Stores
from evaluator.hashing import file_sha256
from submissions.submit import Identity, read_calls, submit_predictions
from submissions.suites import resolve_suite_id
from worker.suites import first_start


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    home = tmp_path_factory.mktemp("checking") / "home"
    stores = Stores.local(home)
    first_start(stores)
    settings = dataclasses.replace(get_settings(), home=home, store="local", suite="demo", dev_user=None)
    return stores, settings, resolve_suite_id(stores, settings)


@pytest.fixture(scope="module")
def checker():
    made = FileChecker()
    yield made
    made.close()


def write(path, records) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return str(path)


def good_file(path, stores, suite_id) -> str:
    calls = list(read_calls(stores.suite, suite_id).values())
    return write(path, [{"id": p.id, "response": p.response, **({"context": p.context} if p.context else {})}
                        for p in predictions("random", calls, seed=3)])


def test_a_good_file_is_checked_in_another_process(deployment, checker, tmp_path):
    stores, settings, suite_id = deployment
    path = good_file(tmp_path / "good.jsonl", stores, suite_id)
    checked = checker.check(path, stores.suite, suite_id, settings)
    assert checked.ok and checked.missing == 0 and checked.calls == len(read_calls(stores.suite, suite_id))
    assert checked.sha256 == file_sha256(path)
    read = checker.check(path, stores.suite, suite_id, settings, read_answers=True)
    assert read.choice_answers > 0 and read.unread == ()  # the baseline names an option in every answer
    workers = set(checker._pool._processes)  # the pool's process ids
    assert workers and os.getpid() not in workers


def test_the_uploads_check_counts_the_choice_answers_that_name_no_option(deployment, checker, tmp_path):
    """Answering "A" everywhere: ExAct's options are numbered, so none of its answers names one;
    letters are fine elsewhere. Only the upload's check reads the answers, and says so."""
    stores, settings, suite_id = deployment
    calls = read_calls(stores.suite, suite_id)
    lines = [{"id": c.id, "response": "A", **({"context": c.labels[0]} if c.context else {})} for c in calls.values()]
    path = write(tmp_path / "all-a.jsonl", lines)
    checked = checker.check(path, stores.suite, suite_id, settings, read_answers=True)
    exact = [c.id for c in calls.values() if c.benchmark == "exact" and c.answer_format == "choice"]
    assert checked.ok and dict(checked.unread) == {"exact": len(exact)}
    assert checked.choice_answers >= len(exact) + 1 and set(checked.unread_examples) <= set(exact)
    shown = unread_text(checked)
    assert f"In {len(exact)} of {checked.choice_answers} multiple-choice answers (ExAct {len(exact)})" in shown
    assert f"`{checked.unread_examples[0]}`" in shown
    plain = checker.check(path, stores.suite, suite_id, settings)  # the submission's own check: no reading
    assert plain.ok and plain.unread == () and unread_text(plain) == ""


def test_a_bad_file_gets_every_problem_by_line(deployment, checker, tmp_path):
    stores, settings, suite_id = deployment
    path = write(tmp_path / "bad.jsonl", ['{"id": "nope", "response": "A"}', "{not json"])
    checked = checker.check(path, stores.suite, suite_id, settings)
    assert not checked.ok and not checked.sha256
    assert "line 1" in checked.message and "line 2" in checked.message and "bad.jsonl" in checked.message


def test_submit_validates_again_unless_the_file_is_the_one_checked(deployment, checker, tmp_path):
    stores, settings, suite_id = deployment
    good = good_file(tmp_path / "good.jsonl", stores, suite_id)
    bad = write(tmp_path / "bad.jsonl", ["{not json"])
    # a hash of another file (the good one) does not let the bad file through
    with pytest.raises(Refused, match="line 1"):
        submit_predictions(stores, settings, Identity("checker-test"), bad, "m", suite_id=suite_id,
                           checked_sha256=file_sha256(good))
    request = submit_predictions(stores, settings, Identity("checker-test"), good, "m", suite_id=suite_id,
                                 checked_sha256=checker.check(good, stores.suite, suite_id, settings).sha256)
    assert request.predictions_sha256 == file_sha256(good)
