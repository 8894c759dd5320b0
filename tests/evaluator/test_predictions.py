"""Prediction-file validation: each bad file is refused with a message that names
the line and the problem, through the library and through the real CLI."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from evaluator.errors import PredictionFileError
from evaluator.predictions import parse_predictions


@pytest.fixture(scope="module")
def calls(demo_suite):
    suite, _ = demo_suite
    return suite.calls_by_id()


@pytest.fixture(scope="module")
def plain_ids(demo_suite):
    suite, _ = demo_suite
    return [c.id for c in suite.calls if c.context is None]


def refused(data: bytes, calls) -> PredictionFileError:
    with pytest.raises(PredictionFileError) as info:
        parse_predictions(data, calls, "preds.jsonl")
    return info.value


def line(record) -> bytes:
    return (json.dumps(record) + "\n").encode()


def test_valid_file_is_read(calls, plain_ids):
    data = line({"id": plain_ids[0], "response": "B"}) + line({"id": plain_ids[1], "response": "x", "confidence": 55})
    responses = parse_predictions(data, calls)
    assert responses.get(plain_ids[0]).response == "B"
    assert responses.get(plain_ids[1]).confidence == 55.0


def test_malformed_json_names_the_line(calls, plain_ids):
    data = line({"id": plain_ids[0], "response": "A"}) + b'{"id": "x", "response": \n'
    error = refused(data, calls)
    assert [p.line for p in error.problems] == [2]
    assert "not valid JSON" in str(error)


def test_unknown_id(calls):
    error = refused(line({"id": "expvid/no-such-item", "response": "A"}), calls)
    assert "line 1" in str(error) and "unknown call id 'expvid/no-such-item'" in str(error)


def test_duplicate_id_points_at_first_line(calls, plain_ids):
    data = line({"id": plain_ids[0], "response": "A"}) * 2
    error = refused(data, calls)
    assert error.problems[0].line == 2
    assert "first on line 1" in error.problems[0].message


@pytest.mark.parametrize("record, message", [
    ({"response": "A"}, "missing 'id'"),
    ({"id": 7, "response": "A"}, "'id' must be a string"),
    ({"id": "ID", "response": 3}, "'response' must be a string, not int"),
    ({"id": "ID", "response": None}, "'response' must be a string, not NoneType"),
    ({"id": "ID"}, "missing 'response'"),
    ({"id": "ID", "response": "A", "confidence": "high"}, "'confidence' must be a number"),
    ({"id": "ID", "response": "A", "confidence": 140}, "from 0 to 100"),
    ({"id": "ID", "response": "A", "confidence": True}, "'confidence' must be a number"),
    ({"id": "ID", "response": "A", "answer": "B"}, "unknown field 'answer'"),
    ({"id": "ID", "response": "A", "context": "B"}, "'context' is only for calls answered in context"),
    (["ID", "A"], "expected a JSON object"),
])
def test_wrong_types(calls, plain_ids, record, message):
    if isinstance(record, dict) and record.get("id") == "ID":
        record = dict(record, id=plain_ids[0])
    error = refused(line(record), calls)
    assert error.problems[0].line == 1
    assert message in error.problems[0].message


def test_context_calls_need_a_valid_context(demo_suite):
    suite, _ = demo_suite
    calls = suite.calls_by_id()
    in_context = next(c for c in suite.calls if c.context is not None)
    error = refused(line({"id": in_context.id, "response": "A"}), calls)
    assert "answered in context" in str(error)
    error = refused(line({"id": in_context.id, "response": "A", "context": "Z9"}), calls)
    assert "'context' must be one of" in str(error)
    label = next(iter(in_context.context.choices))
    ok = parse_predictions(line({"id": in_context.id, "response": "A", "context": label}), calls)
    assert ok.in_context(in_context.id, label).response == "A"


def test_non_utf8_names_line_and_byte(calls, plain_ids):
    data = line({"id": plain_ids[0], "response": "A"}) + b'{"id": "x", "response": "caf\xe9"}\n'
    error = refused(data, calls)
    assert error.problems[0].line == 2
    assert "not UTF-8" in error.problems[0].message and "0xe9" in error.problems[0].message


def test_empty_file(calls):
    assert "empty" in str(refused(b"", calls))
    assert "empty" in str(refused(b"\n \n", calls))


def test_many_problems_are_capped(calls):
    data = b"not json\n" * 500
    error = refused(data, calls)
    assert error.truncated and len(error.problems) == 50


def test_cli_refuses_bad_files_without_traceback(demo_dir, plain_ids, tmp_path):
    cases = {
        "malformed.jsonl": b'{"id": 1\n',
        "unknown.jsonl": line({"id": "nope", "response": "A"}),
        "duplicate.jsonl": line({"id": plain_ids[0], "response": "A"}) * 2,
        "types.jsonl": line({"id": plain_ids[0], "response": ["A"]}),
        "latin1.jsonl": '{"id": "a", "response": "é"}\n'.encode("latin-1"),
        "empty.jsonl": b"",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        proc = run_cli("score", "--suite", str(demo_dir / "suite"), "--answers", str(demo_dir / "answers"),
                       "--predictions", str(path), "--out", str(tmp_path / "result.json"))
        assert proc.returncode == 2, (name, proc.stderr)
        assert "Traceback" not in proc.stderr, name
        assert "the prediction file was refused" in proc.stderr, name
        assert not (tmp_path / "result.json").exists()


def test_cli_refuses_oversize_file(demo_dir, plain_ids, tmp_path):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    path = tmp_path / "big.jsonl"
    path.write_bytes(line({"id": plain_ids[0], "response": "A" * 5000}))
    env = dict(os.environ, LEADERBOARD_MAX_PREDICTION_BYTES="1000")
    proc = subprocess.run([sys.executable, "-m", "evaluator", "score", "--suite", str(demo_dir / "suite"),
                           "--answers", str(demo_dir / "answers"), "--predictions", str(path),
                           "--out", str(tmp_path / "r.json")], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 2
    assert "the limit is 0.0 MB" in proc.stderr or "limit is" in proc.stderr
    assert "Traceback" not in proc.stderr
