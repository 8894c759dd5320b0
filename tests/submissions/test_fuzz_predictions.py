"""Fuzzing the prediction-file path: hundreds of bad files, each mutated from a
valid file of the demo suite by a seeded generator, submitted through `submit_predictions`
on real local stores.

Every bad file must be refused with the project's own error (Refused "bad_predictions"),
whose message names where (a line, or the file) and what, quotes nothing hidden and stays
short; nothing may be queued, stored or charged. Mutations are grouped by kind, one test
per kind, so a failure names the kind that broke and lists the variants that failed.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluator.baselines import predictions
from evaluator.predictions import write_predictions
from space_config.settings import Quotas, get_settings
from submissions.errors import Refused
from submissions.queue import Queue
from submissions.stores import Stores
from submissions.submit import Identity, read_calls, submit_predictions
from submissions.validation import validate_predictions

SEED = 20240611
PER_KIND = 22  # variants drawn per kind (duplicates are dropped; some kinds have fewer)
QUOTA = 3
MAX_MESSAGE = 8000  # a refusal quotes at most a clipped piece of each line
MAX_BYTES = 1_000_000  # the size limit of these tests; the long lines stay under it
MALLORY = Identity("mallory")


# -- a valid file and its mutations -------------------------------------------------------------

@dataclass(frozen=True)
class Bad:
    """One bad file: what was done, its bytes, where the error must point (line numbers,
    0 for the file as a whole) and a pattern the message must hold to say what is wrong."""

    what: str
    data: bytes
    line: int
    says: str


class Base:
    """The valid file as lines of JSON text, and the facts mutations need."""

    def __init__(self, suite, path: Path):
        write_predictions(path, predictions("random", suite.calls, seed=3))
        self.lines = path.read_text(encoding="utf-8").splitlines()
        self.records = [json.loads(line) for line in self.lines]
        self.plain = [i for i, r in enumerate(self.records) if "context" not in r]
        self.in_context = [i for i, r in enumerate(self.records) if "context" in r]
        self.labels = {c.id: c.context.choices for c in suite.calls if c.context}

    def file(self, lines: list[str]) -> bytes:
        return ("\n".join(lines) + "\n").encode("utf-8")

    def with_line(self, i: int, text: str) -> bytes:
        lines = list(self.lines)
        lines[i] = text
        return self.file(lines)

    def with_record(self, i: int, record: dict) -> bytes:
        return self.with_line(i, json.dumps(record, ensure_ascii=False))


def _word(rng: random.Random, n: int = 8) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(n))


def json_syntax(base: Base, rng: random.Random) -> Iterator[Bad]:
    i = rng.randrange(len(base.lines))
    line = base.lines[i]
    cut = rng.randrange(1, len(line) - 1)
    yield Bad(f"line {i + 1} cut at {cut}", base.with_line(i, line[:cut]), i + 1, "not valid JSON")
    yield Bad(f"line {i + 1} with trailing {cut % 7}", base.with_line(i, line + ["x", ",", "}", "]", "1", "{}",
                                                                          '"a"'][cut % 7]),
              i + 1, "not valid JSON")
    yield Bad(f"line {i + 1} in single quotes", base.with_line(i, line.replace('"', "'")), i + 1, "not valid JSON")
    yield Bad(f"line {i + 1} with a trailing comma", base.with_line(i, line[:-1] + ",}"), i + 1, "not valid JSON")
    yield Bad(f"line {i + 1} unquoted keys", base.with_line(i, re.sub(r'"(\w+)":', r"\1:", line)), i + 1,
              "not valid JSON")
    j = rng.randrange(len(base.lines))
    yield Bad(f"lines {i + 1} and {j + 1} on one line", base.with_line(i, line + " " + base.lines[j]), i + 1,
              "not valid JSON: Extra data.*one JSON object on each line")
    pretty = json.dumps(base.records[i], indent=2).splitlines()
    lines = base.lines[:i] + pretty + base.lines[i + 1:]
    yield Bad(f"line {i + 1} pretty-printed", base.file(lines), i + 1, "not valid JSON")
    yield Bad("truncated last line", base.file(base.lines)[:-(cut % 20 + 2)], len(base.lines), "not valid JSON")


def encoding(base: Base, rng: random.Random) -> Iterator[Bad]:
    i = rng.randrange(len(base.lines))
    raw = base.file(base.lines)
    at = raw.index(b'"response": "', sum(len(x) + 1 for x in base.lines[:i]))
    for junk in (b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80\x80", bytes([rng.randrange(0xf8, 0x100)])):
        yield Bad(f"byte {junk!r} in line {i + 1}", raw[:at + 13] + junk + raw[at + 13:], i + 1, "not UTF-8")
    latin = base.with_record(i, {**base.records[i], "response": "café " + _word(rng)})
    yield Bad(f"Latin-1 text in line {i + 1}", latin.decode("utf-8").encode("latin-1"), i + 1, "not UTF-8")
    yield Bad("UTF-16", codecs.BOM_UTF16_LE + base.file(base.lines).decode().encode("utf-16-le"), 1, "not UTF-8")
    multi = base.with_record(len(base.lines) - 1, {**base.records[-1], "response": "é" * 3})
    yield Bad("cut inside a character", multi[:multi.rindex("é".encode()) + 1], len(base.lines), "not UTF-8")
    if i:  # a BOM is accepted at the start only (editors add it there)
        yield Bad(f"BOM before line {i + 1}", base.with_line(i, "\ufeff" + base.lines[i]), i + 1, "not valid JSON")


def nul_bytes(base: Base, rng: random.Random) -> Iterator[Bad]:
    for _ in range(PER_KIND):
        i = rng.randrange(len(base.lines))
        line = base.lines[i]
        at = rng.randrange(len(line) + 1)
        yield Bad(f"NUL at {at} of line {i + 1}", base.with_line(i, line[:at] + "\0" + line[at:]), i + 1,
                  "not valid JSON")
    yield Bad("only NUL bytes", b"\0" * 64, 1, "not valid JSON")


def numbers(base: Base, rng: random.Random) -> Iterator[Bad]:
    for _ in range(6):
        i = rng.choice(base.plain)
        digits = rng.choice([101, 4301, 5000, 20000, 100_000])
        big = str(rng.randrange(1, 10)) + "7" * (digits - 1)
        line = base.lines[i][:-1] + f', "confidence": {big}}}'
        yield Bad(f"{digits}-digit confidence on line {i + 1}", base.with_line(i, line), i + 1,
                  f"'confidence' holds a number with {digits} digits; it must be a number from 0 to 100")
        field = rng.choice(["id", "response"])
        yield Bad(f"{digits}-digit {field} on line {i + 1}",
                  base.with_line(i, json.dumps({**base.records[i], field: 0}).replace(f'"{field}": 0', f'"{field}": -{big}')),
                  i + 1, f"'{field}' holds a number with {digits} digits; it must be a string")
    for constant in ("NaN", "Infinity", "-Infinity"):
        i = rng.choice(base.plain)
        yield Bad(f"{constant} confidence on line {i + 1}", base.with_line(i, base.lines[i][:-1] +
                                                                          f', "confidence": {constant}}}'),
                  i + 1, f"'confidence' holds {constant}, which is not a JSON number")
        yield Bad(f"{constant} response on line {i + 1}",
                  base.with_line(i, base.lines[i].replace('"response": ', f'"response": {constant}, "x": ', 1)),
                  i + 1, f"'response' holds {constant}, which is not a JSON number; it must be a string")
    for value in ("1e400", "-1e999", "101", "-0.5", "100.0001", "1" + "0" * 99, '"87"', "true", "[87]", "{}"):
        i = rng.choice(base.plain)
        yield Bad(f"confidence {value[:12]} on line {i + 1}", base.with_line(i, base.lines[i][:-1] +
                                                                            f', "confidence": {value}}}'),
                  i + 1, "'confidence' must be")


def nesting(base: Base, rng: random.Random) -> Iterator[Bad]:
    for depth in (1000, 3000, 10_000, 100_000, rng.randrange(2000, 50_000)):
        i = rng.randrange(len(base.lines))
        yield Bad(f"[ x{depth} on line {i + 1}", base.with_line(i, "[" * depth), i + 1, "nested too deeply")
        yield Bad(f"closed [ x{depth} on line {i + 1}", base.with_line(i, "[" * depth + "]" * depth), i + 1,
                  "nested too deeply")
        nested = '{"id": ' + '{"a": ' * depth + "1" + "}" * depth + ', "response": "A"}'
        yield Bad(f"object x{depth} in 'id' on line {i + 1}", base.with_line(i, nested), i + 1, "nested too deeply")
    i = rng.randrange(len(base.lines))
    yield Bad(f"a shallow list as 'response' on line {i + 1}",
              base.with_record(i, {**base.records[i], "response": [[["A"]]]}), i + 1, "'response' must be a string")


def not_objects(base: Base, rng: random.Random) -> Iterator[Bad]:
    for value in ("[]", "[1, 2]", '"A"', "42", "null", "true", "false", "-0.5", '[{"id": "x", "response": "A"}]'):
        i = rng.randrange(len(base.lines))
        yield Bad(f"{value} on line {i + 1}", base.with_line(i, value), i + 1, "expected a JSON object")
    yield Bad("the whole file as one JSON array", (json.dumps(base.records) + "\n").encode(), 1,
              "expected a JSON object")


def fields(base: Base, rng: random.Random) -> Iterator[Bad]:
    def record(i: int, **changes) -> bytes:
        r = {**base.records[i], **changes}
        return base.with_record(i, {k: v for k, v in r.items() if v is not ...})

    for _ in range(2):
        i = rng.choice(base.plain)
        yield Bad(f"no id on line {i + 1}", record(i, id=...), i + 1, "missing 'id'")
        yield Bad(f"no response on line {i + 1}", record(i, response=...), i + 1, "missing 'response'")
        name = _word(rng)
        yield Bad(f"extra field {name} on line {i + 1}", record(i, **{name: "x"}), i + 1, f"unknown field '{name}'")
        yield Bad(f"'answer' for 'response' on line {i + 1}", record(i, response=..., answer="A"), i + 1,
                  "unknown field 'answer'")
        for wrong in (7, None, ["a"], {"id": "a"}, True):
            yield Bad(f"id {wrong!r} on line {i + 1}", record(i, id=wrong), i + 1, "'id' must be a string")
        for wrong in (7, ["A"], {"text": "A"}, False, 1.5):
            yield Bad(f"response {wrong!r} on line {i + 1}", record(i, response=wrong), i + 1,
                      "'response' must be a string")
        yield Bad(f"id given twice on line {i + 1}", base.with_line(i, base.lines[i][:-1] + f', "id": "{_word(rng)}"}}'),
                  i + 1, "field 'id' appears twice")
        yield Bad(f"context on a plain call, line {i + 1}", record(i, context="A"), i + 1,
                  "'context' is only for calls answered in context")
    for _ in range(3):
        i = rng.choice(base.in_context)
        yield Bad(f"context missing on line {i + 1}", record(i, context=...), i + 1, "is answered in context")
        yield Bad(f"context 7 on line {i + 1}", record(i, context=7), i + 1, "is answered in context")
        label = rng.choice(["Z", "", "a", "AB", _word(rng, 3)])
        yield Bad(f"context {label!r} on line {i + 1}", record(i, context=label), i + 1, "'context' must be one of")


def call_ids(base: Base, rng: random.Random) -> Iterator[Bad]:
    for _ in range(5):
        i, j = sorted(rng.sample(range(len(base.lines)), 2))
        lines = list(base.lines)
        lines.insert(j + 1, base.lines[i])  # line i copied after line j: the copy is the duplicate
        yield Bad(f"line {i + 1} repeated after line {j + 1}", base.file(lines), j + 2,
                  f"duplicate id .*\\(first on line {i + 1}\\)")
    for _ in range(4):
        i = rng.choice(base.plain)
        real = base.records[i]["id"]
        for fake in (real.upper(), real + "/", " " + real, real[:-1], _word(rng, 12), real + "\u200b"):
            yield Bad(f"id {fake!r} on line {i + 1}", base.with_record(i, {**base.records[i], "id": fake}), i + 1,
                      "unknown call id")
    for markup in ("```\n<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "**bold** [x](javascript:y)",
                   "![i](https://example.org/x.png)", "$$\\href{x}{y}$$", "a\u2028b\rc\0d"):
        i = rng.randrange(len(base.lines))
        yield Bad(f"markup id {markup[:10]!r} on line {i + 1}",
                  base.with_record(i, {**base.records[i], "id": markup}), i + 1, "unknown call id")
    for field in ("id", "response"):
        i = rng.choice(base.plain)
        line = base.lines[i].replace(f'"{field}": "', f'"{field}": "\\ud83d', 1)
        yield Bad(f"lone surrogate in {field} on line {i + 1}", base.with_line(i, line), i + 1,
                  f"'{field}' holds .*surrogate")


def whole_file(base: Base, rng: random.Random) -> Iterator[Bad]:
    for blank in (b"", b"\n", b"\n\n\n", b"   ", b"\r\n\r\n", b"\t\n \n", b" \x0c\n"):
        yield Bad(f"blank {blank!r}", blank, 0, "the file is empty")
    yield Bad("a BOM alone", codecs.BOM_UTF8, 0, "the file holds no predictions")
    yield Bad("a BOM and blank lines", codecs.BOM_UTF8 + b"\n\n", 0, "the file holds no predictions")
    yield Bad("non-breaking spaces", "\u00a0\n\u3000\n".encode(), 0, "the file holds no predictions")
    padding = b"\n" * (MAX_BYTES + 1 - len(base.file(base.lines)))
    yield Bad("over the size limit", base.file(base.lines) + padding, 0, "the file is .* MB; the limit is")


def line_endings(base: Base, rng: random.Random) -> Iterator[Bad]:
    for _ in range(8):
        i = rng.randrange(len(base.lines) - 1)
        sep = rng.choice(["\r", "\u2028", "\u0085", "\x0b", "\x1e"])
        lines = base.lines[:i] + [base.lines[i] + sep + base.lines[i + 1]] + base.lines[i + 2:]
        yield Bad(f"{sep!r} between lines {i + 1} and {i + 2}", base.file(lines), i + 1, "not valid JSON")
    old_mac = "\r".join(base.lines).encode() + b"\r"
    yield Bad("old Mac line endings", old_mac, 1, "not valid JSON")


def long_lines(base: Base, rng: random.Random) -> Iterator[Bad]:
    size = rng.randrange(MAX_BYTES // 5, MAX_BYTES // 2)
    i = rng.randrange(len(base.lines))
    yield Bad(f"{size}-character unknown id on line {i + 1}",
              base.with_record(i, {**base.records[i], "id": _word(rng) * (size // 8)}), i + 1, "unknown call id")
    yield Bad(f"{size}-character field name on line {i + 1}",
              base.with_record(i, {**base.records[i], "k" * size: 1}), i + 1, "unknown field")
    yield Bad(f"{size} characters of garbage on line {i + 1}", base.with_line(i, "x" * size), i + 1, "not valid JSON")
    yield Bad(f"{size}-character context on line {i + 1}",
              base.with_record(i, {**base.records[i], "context": "Q" * size}), i + 1, "context")


KINDS: dict[str, Callable[[Base, random.Random], Iterator[Bad]]] = {
    f.__name__: f for f in (json_syntax, encoding, nul_bytes, numbers, nesting, not_objects, fields, call_ids,
                            whole_file, line_endings, long_lines)}


def cases(base: Base, kind: str) -> list[Bad]:
    """The kind's distinct variants, the same on every run."""
    rng = random.Random(f"{SEED}:{kind}")
    found: dict[bytes, Bad] = {}
    for _ in range(PER_KIND):
        for bad in KINDS[kind](base, rng):
            found.setdefault(bad.data, bad)
        if len(found) >= PER_KIND:
            break
    return list(found.values())


# -- the stores, the settings and the secrets ------------------------------------------------------

@pytest.fixture(scope="module")
def base(demo_suite, tmp_path_factory) -> Base:
    return Base(demo_suite[0], tmp_path_factory.mktemp("base") / "valid.jsonl")


def deployment(home: Path, demo_dir: Path, suite_id: str, base: Base):
    """Local stores with the demo suite published, and settings with a small quota and
    the size limit MAX_BYTES."""
    stores = Stores.local(home)
    stores.suite.upload_folder(suite_id, demo_dir / "suite")
    quotas = dataclasses.replace(Quotas(), per_user=QUOTA, per_org=QUOTA, pending_per_user=QUOTA)
    settings = dataclasses.replace(get_settings(), home=home, quotas=quotas,
                                   max_prediction_bytes=MAX_BYTES)
    return stores, settings


@pytest.fixture
def site(tmp_path, demo_dir, demo_suite, base):
    """A fresh deployment per test: one kind's failure cannot show up as another's."""
    return deployment(tmp_path / "home", demo_dir, demo_suite[0].id, base)


@pytest.fixture
def stores(site) -> Stores:
    return site[0]


@pytest.fixture
def settings(site):
    return site[1]


@pytest.fixture(scope="module")
def secrets(demo_dir) -> set[str]:
    """Strings of the answer key that appear nowhere in the public suite."""
    public = "".join(p.read_text(encoding="utf-8") for p in (demo_dir / "suite").rglob("*.json*"))
    found: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, str) and len(value) >= 4 and value not in public:
            found.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in (demo_dir / "answers").rglob("*.json*"):
        text = path.read_text(encoding="utf-8")
        for document in ([text] if path.suffix == ".json" else text.splitlines()):
            if document.strip():
                walk(json.loads(document))
    assert found, "the demo answer key should hold strings the public suite does not"
    return found


def refusal(stores: Stores, settings, path: Path, bad: Bad) -> str | None:
    """Submit `bad`; None if it was refused as it should be, else what went wrong."""
    path.write_bytes(bad.data)
    try:
        request = submit_predictions(stores, settings, MALLORY, path, "Fuzzed model")
    except Refused as e:
        if e.reason != "bad_predictions":
            return f"refused for {e.reason!r}, not as a bad file: {str(e)[:300]}"
        return check_message(str(e), bad)
    except Exception as e:  # noqa: BLE001 - what the test looks for
        return f"{type(e).__name__} instead of a refusal: {str(e)[:300]}"
    return f"accepted as {request.id}"


def check_message(message: str, bad: Bad) -> str | None:
    if len(message) > MAX_MESSAGE:
        return f"message of {len(message)} characters"
    where = "the file" if bad.line == 0 else f"line {bad.line}: "
    problems = message.split("\n", 1)[-1]
    if where not in problems:
        return f"no {where!r} in: {message[:400]}"
    if not re.search(bad.says, problems):
        return f"no /{bad.says}/ in: {message[:400]}"
    return None


def leaks(message: str, bad: Bad, secrets: set[str]) -> list[str]:
    text = bad.data.decode("utf-8", errors="replace")
    return [s for s in secrets if s in message and s not in text]


# -- the tests ----------------------------------------------------------------------------------------

def test_the_unmutated_file_is_valid(stores, settings, base, demo_suite, tmp_path):
    """Each mutation must be what makes a file bad: the file it starts from passes, also
    with a BOM and Windows line endings (both accepted by the format)."""
    for name, data in (("plain", base.file(base.lines)), ("bom", codecs.BOM_UTF8 + base.file(base.lines)),
                       ("crlf", "\r\n".join(base.lines).encode() + b"\r\n")):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(data)
        responses = validate_predictions(path, read_calls(stores.suite, demo_suite[0].id), settings)
        assert len(responses.by_id) + len(responses.by_context) == len(base.lines), name


def test_there_are_over_200_distinct_bad_files(base):
    assert len({bad.data for kind in KINDS for bad in cases(base, kind)}) >= 200


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_bad_file_of_a_kind_gets_a_clear_refusal(kind, base, stores, settings, secrets, tmp_path):
    failures = []
    for n, bad in enumerate(cases(base, kind)):
        try:
            problem = refusal(stores, settings, tmp_path / f"upload-{n}.jsonl", bad)
        except Exception as e:  # noqa: BLE001 - reported with the variant
            problem = f"{type(e).__name__}: {e}"
        if problem is None:
            message = _message(stores, settings, tmp_path / f"again-{n}.jsonl", bad)
            leaked = leaks(message, bad, secrets)
            problem = f"echoes hidden answers {leaked[:3]}" if leaked else None
        if problem:
            failures.append(f"{kind} / {bad.what}: {problem}")
    assert not failures, f"{len(failures)} {kind} files were not refused clearly:\n" + "\n".join(failures)
    assert not Queue(stores.requests).all(), "a bad file was queued"
    assert not stores.private.list("predictions"), "a bad file was stored"


def _message(stores: Stores, settings, path: Path, bad: Bad) -> str:
    path.write_bytes(bad.data)
    with pytest.raises(Refused) as caught:
        submit_predictions(stores, settings, MALLORY, path, "Fuzzed model")
    return str(caught.value)


def test_bad_files_cost_no_quota(base, demo_suite, tmp_path, demo_dir):
    """After bad files of every kind, the submitter still has the full quota."""
    stores, settings = deployment(tmp_path / "home", demo_dir, demo_suite[0].id, base)
    for kind in KINDS:
        for n, bad in enumerate(cases(base, kind)[:3]):
            assert refusal(stores, settings, tmp_path / f"{kind}-{n}.jsonl", bad) is None, (kind, bad.what)
    for seed in range(QUOTA):
        path = tmp_path / f"good-{seed}.jsonl"
        write_predictions(path, predictions("random", demo_suite[0].calls, seed=100 + seed))
        submit_predictions(stores, settings, MALLORY, path, f"Good {seed}")
    path = tmp_path / "one-too-many.jsonl"
    write_predictions(path, predictions("random", demo_suite[0].calls, seed=999))
    with pytest.raises(Refused) as caught:
        submit_predictions(stores, settings, MALLORY, path, "One too many")
    assert caught.value.reason == "quota"
    assert len(Queue(stores.requests).all()) == QUOTA
    assert len(stores.private.list("predictions")) == QUOTA
