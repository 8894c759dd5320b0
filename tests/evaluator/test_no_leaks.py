"""No call list, public suite file or error message contains an answer string.

Answer strings are every text in the hidden answer records and the hidden calls'
prompts (Video SimpleQA sub-questions name earlier hops' answers), except texts
that are public by design: an MCQ's options (the gold one among them, unmarked).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict

import pytest

from conftest import run_cli
from evaluator.errors import PredictionFileError
from evaluator.predictions import parse_predictions


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _public_options(suite) -> set[str]:
    options = set()
    for records in suite.questions.values():
        for q in records:
            for key in ("options", "steps", "step_list", "full_steps", "segment_steps"):
                options.update(_strings(getattr(q, key, None) or []))
            for seg in getattr(q, "segments", None) or []:
                options.update(_strings(asdict(seg) if hasattr(seg, "__dataclass_fields__") else seg))
    for call in suite.calls:
        options.update(call.options or [])
    return {o.strip().casefold() for o in options}


def secrets(suite, key) -> set[str]:
    public = _public_options(suite)
    # texts the public record of the same item carries anyway (ids, task names)
    item_public = {q.id: {t.strip().casefold() for t in _strings(asdict(q))}
                   for records in suite.questions.values() for q in records}
    found = set()
    for records in key.answers.values():
        for record in records:
            shown = item_public.get(getattr(record, "id", None), set())
            for text in _strings(asdict(record)):
                text = text.strip()
                # long enough to be meaningful, not a lone label or step number
                if (len(text) >= 4 and re.search(r"[A-Za-z]", text) and text.casefold() not in public
                        and text.casefold() not in shown):
                    found.add(text)
    for call in key.hidden_calls:
        found.add(call.prompt.strip())
    return found


def contains_any(text: str, needles: set[str]) -> list[str]:
    low = text.casefold()
    return [n for n in needles if re.search(r"(?<!\w)" + re.escape(n.casefold()) + r"(?!\w)", low)]


def test_answer_key_has_secrets_to_hide(demo_suite):
    suite, key = demo_suite
    hidden = secrets(suite, key)
    # the scan is only meaningful if it scans for something: free-text golds, sub-questions
    assert len(hidden) >= 10
    assert any(c.benchmark == "videosimpleqa" for c in key.hidden_calls)


def test_public_files_and_call_list_contain_no_answer(demo_dir, demo_suite, tmp_path):
    suite, key = demo_suite
    hidden = secrets(suite, key)
    template = tmp_path / "calls.jsonl"
    assert run_cli("template", "--suite", str(demo_dir / "suite"), "--out", str(template)).returncode == 0
    files = [template] + [p for p in (demo_dir / "suite").rglob("*") if p.is_file() and p.suffix != ".mp4"]
    assert len(files) >= 8
    for path in files:
        leaked = contains_any(path.read_text(encoding="utf-8"), hidden)
        assert not leaked, f"{path.name} contains answer text: {leaked[:3]}"


def test_error_messages_contain_no_answer(demo_suite):
    suite, key = demo_suite
    hidden = secrets(suite, key)
    calls = suite.calls_by_id()
    some = [c.id for c in suite.calls if c.context is None][:5]
    in_context = next(c for c in suite.calls if c.context is not None)
    bad_files = [
        b"{broken\n",
        "".join(json.dumps({"id": i, "response": "A"}) + "\n" for i in some * 2).encode(),
        json.dumps({"id": in_context.id, "response": "A"}).encode(),
        json.dumps({"id": in_context.id, "response": "A", "context": "??"}).encode(),
        "".join(json.dumps({"id": c.id + "x", "response": "A"}) + "\n" for c in key.hidden_calls).encode(),
        json.dumps({"id": some[0], "response": 1, "confidence": "x"}).encode(),
    ]
    # hidden (worker-only) call ids are unknown to a public submission
    assert key.hidden_calls
    sub = "".join(json.dumps({"id": c.id, "response": "A"}) + "\n" for c in key.hidden_calls[:3]).encode()
    bad_files.append(sub)
    for data in bad_files:
        with pytest.raises(PredictionFileError) as info:
            parse_predictions(data, calls)
        assert not contains_any(str(info.value), hidden)
