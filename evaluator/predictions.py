"""Reading and validating prediction files.

JSON Lines, UTF-8, one object per call:

    {"id": "<call id>", "response": "<raw model output>", "confidence": 87}

`confidence` (0-100) is optional. CausalStep calls answered in context also carry
`"context": "<label>"`: the option label of the model's own previous answer that
was put into the prompt; such a call may appear once per distinct context.
`"run": 2` (optional) marks an answer of a repeated run, where the call's benchmark
protocol asks for several (Video SimpleQA: 3 runs); no `run` is run 1.

Every problem is reported with its line number; the file is refused as a whole if
any line is bad, so a submission is never scored on a silently partial file.
Messages quote ids and field names, never answers (the validator has none); what
they quote from the file is clipped and has its control characters written as
escapes, so a quoted value stays on one line.

Stricter than Python's `json`: NaN and Infinity (not JSON), integer literals longer
than any valid field needs, a key twice in one object, nesting Python cannot read,
and strings that cannot be UTF-8 (an escaped lone surrogate) are each a problem of
their line, never an exception from the parser.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields as dataclass_fields
from pathlib import Path

from evaluator.errors import PredictionFileError, Problem
from evaluator.records import Call, Prediction, Responses

MAX_PROBLEMS = 50
FIELDS = ("id", "response", "confidence", "context", "run")
_FIELD_SET = frozenset(FIELDS)
TEXT_FIELDS = ("id", "response", "context")
# No valid field holds a long integer (confidence is 0-100); refusing long literals
# early also keeps Python's own int-string limit (4300 digits) out of the way.
MAX_INT_DIGITS = 100


class _Unreadable(ValueError):
    """A line that is JSON-shaped but that this format refuses (raised from the parser's hooks)."""


def _clip(text: str, limit: int = 80) -> str:
    """`text` quoted in a message: clipped, control and other unprintable characters
    (newlines, NUL, lone surrogates) as escapes, so the message stays readable and on one line."""
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for ch in text)


class _BadNumber(_Unreadable):
    """NaN, Infinity or an integer too long to read: which field holds it is found after."""


def _no_constant(name: str) -> float:
    raise _BadNumber(f"{name}, which is not a JSON number")


def _too_long(digits: str) -> str | None:
    """What is wrong with an integer too long to read ("a number with 5000 digits"), else None."""
    n = len(digits.lstrip("-"))
    return f"a number with {n} digits" if n > MAX_INT_DIGITS else None


def _bounded_int(digits: str) -> int:
    if (wrong := _too_long(digits)) is not None:
        raise _BadNumber(wrong)
    return int(digits)


class _Odd:
    """Stands in for a refused number while a line is read again to name its field."""

    def __init__(self, what: str):
        self.what = what


def _odd_int(digits: str) -> object:
    wrong = _too_long(digits)
    return int(digits) if wrong is None else _Odd(wrong)


_EXPECTED = {"confidence": "a number from 0 to 100", "run": "a whole number"}  # anything else: a string


def _bad_number(line: str, what: str) -> str:
    """Where a refused number stands ("'response' holds NaN, ...; it must be a string")."""
    try:
        record = _LENIENT.decode(line)
    except (ValueError, RecursionError):
        record = None
    field = next((k for k, v in record.items() if isinstance(v, _Odd)), None) if isinstance(record, dict) else None
    if field is None:
        return f"{what} where a field's value was expected; give each field its expected value"
    return f"'{_clip(field)}' holds {what}; it must be {_EXPECTED.get(field, 'a string')}"


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise _Unreadable(f"field '{_clip(key)}' appears twice in one object; give it once")
        seen[key] = value
    return seen


# One decoder for every line: json.loads with hooks would build a new one per line,
# which is most of its cost on a file of 20k short lines.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_int=_bounded_int, object_pairs_hook=_unique_keys)
_LENIENT = json.JSONDecoder(parse_constant=lambda name: _Odd(f"{name}, which is not a JSON number"),
                            parse_int=_odd_int)  # read again only to name a refused number's field
# The fast first reading of a line (_quick_line): the same number hooks, but an object
# comes back as a tuple of its (key, value) pairs, built in C (a Python hook per object
# costs as much as the parse). A line it reads as one flat object without a key twice, and
# that passes, is what _DECODER would read; anything else is read again by _DECODER.
_SCAN_PAIRS = json.JSONDecoder(parse_constant=_no_constant, parse_int=_bounded_int, object_pairs_hook=tuple).scan_once


def _load(line: str) -> tuple[object, str | None]:
    """The line's JSON value, or why it cannot be read (never an exception)."""
    if line.startswith("\ufeff"):  # json.loads refuses this itself; the decoder does not look
        return None, "not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) (column 1)"
    try:
        return _DECODER.decode(line), None
    except _BadNumber as e:
        return None, _bad_number(line, str(e))
    except json.JSONDecodeError as e:
        hint = "; put one JSON object on each line" if e.msg == "Extra data" else ""
        return None, f"not valid JSON: {e.msg} (column {e.colno}){hint}"
    except _Unreadable as e:
        return None, str(e)
    except RecursionError:
        return None, 'nested too deeply to read; expected a flat JSON object like {"id": "...", "response": "..."}'


def _not_utf8(record: dict) -> str | None:
    """The first text field holding a lone surrogate escape (\\ud800), which UTF-8 cannot encode."""
    for field in TEXT_FIELDS:
        value = record.get(field)
        if isinstance(value, str) and not value.isascii():  # isascii is O(1): most lines stop here
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as e:
                return (f"'{field}' holds {_clip(value[e.start])}, half of a surrogate pair, which is not "
                        f"valid Unicode text; write the character itself")
    return None


def _fast_prediction(call_id: str, response: str, confidence: float | None, context: str | None,
                     run: int | None) -> Prediction:
    """Prediction(...), the same record, built without the frozen dataclass's __init__ (an
    object.__setattr__ a field: a third of a valid line's cost after its parse)."""
    pred = _NEW(Prediction)
    _SET(pred, "__dict__", {"id": call_id, "response": response, "confidence": confidence, "context": context,
                            "run": run})
    return pred


_NEW, _SET = object.__new__, object.__setattr__  # the ordinary way if the record has changed:
_new_prediction = (_fast_prediction if [f.name for f in dataclass_fields(Prediction)] == list(FIELDS)
                   and not hasattr(Prediction, "__post_init__") else Prediction)


def _quick_line(line: str, calls: Mapping[str, Call]) -> Prediction | None:
    """The Prediction of a line that passes, read and checked in one pass; else None, and the
    strict reader names its problem. A line this takes, the strict reader takes as the same."""
    try:
        pairs, end = _SCAN_PAIRS(line, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    if type(pairs) is not tuple or (end != len(line) and line[end:].strip(" \t\r")):
        return None
    if len(pairs) == 2 and pairs[0][0] == "id" and pairs[1][0] == "response":  # most lines
        call_id, response = pairs[0][1], pairs[1][1]
        if type(call_id) is not str or type(response) is not str:
            return None
        call = calls.get(call_id)
        if call is None or call.context is not None or ("\\u" in line and _not_utf8(dict(pairs))):
            return None
        return _new_prediction(call_id, response, None, None, None)
    record = dict(pairs)
    if len(record) != len(pairs) or not _FIELD_SET.issuperset(record):
        return None
    call_id, response = record.get("id"), record.get("response")
    if type(call_id) is not str or type(response) is not str:
        return None
    call = calls.get(call_id)
    if call is None or ("\\u" in line and _not_utf8(record)):
        return None
    confidence = record.get("confidence")
    if confidence is not None:
        if (type(confidence) is not int and type(confidence) is not float) or not 0 <= confidence <= 100:
            return None
        confidence = float(confidence)
    context = record.get("context")
    if call.context is None:
        if context is not None:
            return None
    elif type(context) is not str or context not in call.context.choices:
        return None
    run = 1
    if "run" in record:
        run, problem = _run(record["run"], call)
        if problem is not None:
            return None
    return _new_prediction(call_id, response, confidence, context, run if run > 1 else None)


def _read_line(line: str, calls: Mapping[str, Call]) -> tuple[Prediction | None, str | None]:
    """A Prediction, or the problem with this (non-blank) line. Most lines are plain
    objects that pass: they are read once, fast; any other is read again strictly, so
    its problem is named exactly as the strict reader names it."""
    pred = _quick_line(line, calls)
    return (pred, None) if pred is not None else _strict_line(line, calls)


def _strict_line(line: str, calls: Mapping[str, Call]) -> tuple[Prediction | None, str | None]:
    record, unreadable = _load(line)
    return (None, unreadable) if unreadable is not None else _check(record, calls)


def _check(record: object, calls: Mapping[str, Call]) -> tuple[Prediction | None, str | None]:
    """A Prediction, or the problem with this line."""
    if not isinstance(record, dict):
        return None, 'expected a JSON object like {"id": "...", "response": "..."}'
    if not record.keys() <= _FIELD_SET:
        unknown = next(k for k in record if k not in _FIELD_SET)
        return None, f"unknown field '{_clip(str(unknown))}' (allowed: {', '.join(FIELDS)})"
    call_id = record.get("id")
    if not isinstance(call_id, str):
        return None, "'id' must be a string" if "id" in record else "missing 'id'"
    bad_text = _not_utf8(record)
    if bad_text:
        return None, bad_text
    call = calls.get(call_id)
    if call is None:
        return None, f"unknown call id '{_clip(call_id)}' (not in this suite's call list)"
    response = record.get("response")
    if not isinstance(response, str):
        return None, ("missing 'response'" if "response" not in record
                      else f"'response' must be a string, not {type(response).__name__}")
    confidence = record.get("confidence")
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
            return None, f"'confidence' must be a number from 0 to 100, not {type(confidence).__name__}"
        if not 0 <= confidence <= 100:
            return None, f"'confidence' must be from 0 to 100, not {_clip(str(confidence), 30)}"
    run, problem = _run(record["run"], call) if "run" in record else (1, None)
    if problem is not None:
        return None, problem
    context = record.get("context")
    if call.context is None:
        if context is not None:
            return None, f"'context' is only for calls answered in context; '{_clip(call_id)}' is not one"
    else:
        if not isinstance(context, str):
            return None, (f"'{_clip(call_id)}' is answered in context: add \"context\": the label of your model's "
                          f"own answer to {' or '.join(call.context.after)}")
        if context not in call.context.choices:
            return None, (f"'context' must be one of {', '.join(call.context.choices)}, "
                          f"not '{_clip(context, 20)}'")
    return Prediction(call_id, response, float(confidence) if confidence is not None else None, context,
                      run if run > 1 else None), None


def _runs_of(benchmark: str) -> int:
    from evaluator.reference import protocol

    return protocol(benchmark).generation.runs


def _run(value: object, call: Call) -> tuple[int, str | None]:
    """A record's run number (1 when absent), or why it is not one."""
    if value == 1 and not isinstance(value, bool):
        return 1, None
    if isinstance(value, bool) or not isinstance(value, int):
        return 1, f"'run' must be a whole number, not {type(value).__name__}"
    runs = _runs_of(call.benchmark)
    if not 1 <= value <= runs:
        allowed = "only run 1 (leave 'run' out)" if runs == 1 else f"runs 1 to {runs}"
        return 1, f"'run' must be one of the protocol's runs: {call.benchmark} has {allowed}, not {value}"
    return value, None


def parse_predictions(data: bytes, calls: Mapping[str, Call], name: str = "predictions") -> Responses:
    """Validate the bytes of a prediction file against a call list."""
    problems: list[Problem] = []
    if not data or data.isspace():  # (not data.strip(): no copy of the file)
        raise PredictionFileError(name, [Problem(0, "the file is empty: expected one JSON object per line")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise PredictionFileError(name, [Problem(line, f"not UTF-8 (byte 0x{data[e.start]:02x} at "
                                                       f"offset {e.start}); save the file as UTF-8")]) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM is harmless; editors add it
    by_run: dict[int, tuple[dict, dict]] = {}  # what as_responses builds, built as the lines pass
    first_seen: dict[tuple[str, str | None, int | None], int] = {}
    quick = _quick_line
    for n, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        pred = quick(line, calls)
        if pred is None:
            pred, problem = _strict_line(line, calls)
        if pred is not None:
            key = (pred.id, pred.context, pred.run)
            if key not in first_seen:
                first_seen[key] = n
                _file_under(by_run, pred)
                continue
            what = (f"id '{_clip(pred.id)}'" + (f" with context '{pred.context}'" if pred.context else "")
                    + (f" in run {pred.run}" if pred.run else ""))
            problem = f"duplicate {what} (first on line {first_seen[key]})"
        problems.append(Problem(n, problem))
        if len(problems) >= MAX_PROBLEMS:
            raise PredictionFileError(name, problems, truncated=True)
    if len(by_run) > 1 or 1 not in by_run:  # a repeated run (most files have none)
        problems += _run_problems([p for found in by_run.values() for run in found for p in run.values()], calls)
    if problems:
        raise PredictionFileError(name, problems)
    if not by_run:
        raise PredictionFileError(name, [Problem(0, "the file holds no predictions: expected one JSON object "
                                                    "per line")])
    return _responses(by_run)


def _run_problems(kept: list[Prediction], calls: Mapping[str, Call]) -> list[Problem]:
    """A repeated run must answer, benchmark by benchmark, the very calls run 1 answers: a
    run answering a few would score the rest as unanswered and pull the mean down."""
    if not any(p.run for p in kept):
        return []  # run 1 only (most files): nothing to compare
    answered: dict[int, dict[str, set]] = {}
    for p in kept:
        answered.setdefault(p.run or 1, {}).setdefault(calls[p.id].benchmark, set()).add((p.id, p.context))
    first = answered.get(1, {})
    problems = []
    for run, per_benchmark in sorted(answered.items()):
        for benchmark, given in sorted(per_benchmark.items()):
            wanted = first.get(benchmark, set())
            if run > 1 and given != wanted:
                problems.append(Problem(0, f"run {run} answers {len(given)} {benchmark} calls and run 1 answers "
                                           f"{len(wanted)} ({len(given - wanted)} not in run 1, "
                                           f"{len(wanted - given)} missing): a repeated run answers the same "
                                           f"calls as run 1"))
    return problems


def read_predictions(path: Path, calls: Mapping[str, Call], max_bytes: int) -> Responses:
    path = Path(path)
    if not path.is_file():
        raise PredictionFileError(str(path), [Problem(0, "file not found")])
    size = path.stat().st_size
    if size > max_bytes:
        raise PredictionFileError(str(path), [Problem(0, f"the file is {size / 1e6:.1f} MB; the limit is "
                                                         f"{max_bytes / 1e6:.1f} MB")])
    return parse_predictions(path.read_bytes(), calls, str(path))


def write_predictions(path: Path, predictions: list[Prediction]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for p in predictions:
            record = {"id": p.id, "response": p.response}
            if p.confidence is not None:
                record["confidence"] = p.confidence
            if p.context is not None:
                record["context"] = p.context
            if p.run is not None:
                record["run"] = p.run
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def as_responses(predictions: list[Prediction]) -> Responses:
    """Responses from in-memory predictions (baselines, runners), no file round trip;
    a repeated run's predictions (`run` 2, 3...) go to `runs`."""
    by_run: dict[int, tuple[dict, dict]] = {}
    for p in predictions:
        _file_under(by_run, p)
    return _responses(by_run)


def _file_under(by_run: dict[int, tuple[dict, dict]], p: Prediction) -> None:
    """`p` into its run's predictions: (by id, by (id, context))."""
    by_id, by_context = by_run.get(p.run or 1) or by_run.setdefault(p.run or 1, ({}, {}))
    if p.context is None:
        by_id[p.id] = p
    else:
        by_context[(p.id, p.context)] = p


def _responses(by_run: dict[int, tuple[dict, dict]]) -> Responses:
    first = Responses(*by_run.pop(1, ({}, {})))
    first.runs = {run: Responses(*found) for run, found in sorted(by_run.items())}
    return first
