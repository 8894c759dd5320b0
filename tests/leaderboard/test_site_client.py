"""The site's public API through gradio_client, against `python app.py` in a subprocess.

Anyone can call a Gradio app's endpoints without the page, so the API is tested as an
attacker would use it: every named endpoint is listed, and every one is called with
plausible arguments (each choice of every dropdown, a good and a malformed prediction
file). No answer may come back that holds an answer-key string of the demo suite (the
`secrets` of tests/evaluator/test_no_leaks.py), and nobody but the submitter sees a submission's
log: the dev user submits first, then the same home is served to an anonymous visitor
and to another signed-in user, and their calls must return nothing of that log.
Files behind the site (answer key, logs, uploads) must not be served over HTTP either.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from gradio_client import Client, handle_file
from site_server import DEV_USER, SiteServer, wait_until, write_baseline_predictions
from test_no_leaks import contains_any, secrets

from evaluator.shards import shard
from submissions.requests import request_log_path

MODEL = "Client Test Model"
SCORED_TIMEOUT = 240.0  # submit -> FINISHED by the embedded worker (a bound on waiting)
# Endpoints the site cannot work without; any other endpoint is swept all the same.
CORE_ENDPOINTS = {"/leaderboard", "/check_file", "/submit_file", "/my_submissions", "/queue_tables"}
MAX_CALLS_PER_ENDPOINT = 16
ROOT = Path(__file__).resolve().parents[2]
STATIC_TEXTS = [ROOT / "docs" / "protocol.md", ROOT / "docs" / "faq.md",
                *sorted(ROOT.glob("evaluator/benchmarks/*/citation.bib"))]


# -- what must never come out -------------------------------------------------------------------------------

def answer_strings(home: Path) -> set[str]:
    """Every answer-key text of the app's demo suite (read here from LEADERBOARD_HOME/answers:
    the test may, the site may not)."""
    from site_server import demo_suite_id

    from evaluator.suite import load_answers, load_suite

    suite_id = demo_suite_id(home)
    suite = load_suite(home / "suite" / suite_id)
    found = secrets(suite, load_answers(home / "answers" / suite_id, suite))
    # The About and Citation tabs show the repository's own documents, written before and
    # apart from any suite; a word they share with the synthetic demo key (docs/protocol.md
    # uses the chemical "2,4-D" as a normalisation example) is not a leak.
    static = "\n".join(p.read_text(encoding="utf-8") for p in STATIC_TEXTS if p.is_file())
    coincident = set(contains_any(static, found))
    assert len(coincident) <= 3, f"the site's static texts share many answer strings: {sorted(coincident)}"
    found -= coincident
    assert len(found) >= 10, "the scan needs answer strings to look for"
    return found


@dataclass(frozen=True)
class Submitted:
    id: str
    log_lines: list[str]  # the private log, line by line, as the worker wrote it
    owner_view: str  # what /my_submissions answered its submitter

    def private_texts(self) -> list[str]:
        """Texts only the submitter may see: each log line and where its files are stored."""
        return [*self.log_lines, request_log_path(self.id), f"predictions/{shard(self.id)}/{self.id}.jsonl"]


def strings(value) -> list[str]:
    """Every string inside an endpoint's answer (dataframes come as {"headers", "data"})."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings(k) + strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings(v)]
    return [] if value is None else [str(value)]


def as_text(value) -> str:
    """An answer as text, with the content of any file it handed back (downloaded by the client)."""
    parts = strings(value)
    for s in list(parts):
        if len(s) < 4096 and s.startswith("/"):
            path = Path(s)
            if path.is_file() and path.stat().st_size < 50_000_000:
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


# -- calling every endpoint ---------------------------------------------------------------------------------

def choices(parameter: dict) -> list:
    """The values a dropdown, radio or checkbox group offers (an array parameter: one at a time)."""
    schema = parameter.get("type") or {}
    if schema.get("type") == "array":
        return [[v] for v in (schema.get("items") or {}).get("enum") or []]
    return list(schema.get("enum") or [])


def plausible(parameter: dict, files: dict[str, Path]):
    """A value a visitor could send for a parameter that has no default."""
    python_type = (parameter.get("python_type") or {}).get("type", "")
    name = parameter.get("parameter_name") or ""
    if parameter.get("component") == "File" or python_type == "filepath":
        return handle_file(str(files["good"]))
    if python_type == "str":  # optional text fields (sizes, frames...) left empty
        return {"search": "qwen", "name": "API Sweep Model", "model": "some-org/some-model"}.get(name, "")
    if python_type == "bool":
        return False
    return None  # numbers left empty, dropdowns without choices


def argument_sets(parameters: list[dict], files: dict[str, Path]) -> list[list]:
    """The defaults, then each parameter's every choice with the rest at their defaults,
    and for a file the malformed one too."""
    base = [p["parameter_default"] if p.get("parameter_has_default") else plausible(p, files) for p in parameters]
    sets = [base]
    for i, parameter in enumerate(parameters):
        variants = [c for c in choices(parameter) if c != base[i]]
        if parameter.get("component") == "File":
            variants.append(handle_file(str(files["bad"])))
        for value in variants:
            sets.append([*base[:i], value, *base[i + 1:]])
    return sets[:MAX_CALLS_PER_ENDPOINT]


def endpoints(client: Client) -> dict[str, dict]:
    return client.view_api(return_format="dict", print_info=False)["named_endpoints"]


def call(client: Client, api_name: str, files: dict[str, Path] | None = None, **given):
    """Call an endpoint with the arguments named in `given`, every other one at its
    default or a plausible value (so a new optional form field does not break the test)."""
    parameters = endpoints(client)[api_name]["parameters"]
    args = [given[p["parameter_name"]] if p["parameter_name"] in given
            else p["parameter_default"] if p.get("parameter_has_default") else plausible(p, files or {})
            for p in parameters]
    return client.predict(*args, api_name=api_name)


def sweep(client: Client, files: dict[str, Path]) -> dict[str, list[str]]:
    """Call every named endpoint with every argument set; each answer's text, by endpoint.
    An endpoint that raises is recorded with its error text (which is scanned as well)."""
    answers: dict[str, list[str]] = {}
    for name, info in endpoints(client).items():
        for args in argument_sets(info["parameters"], files):
            try:
                text = as_text(client.predict(*args, api_name=name))
            except Exception as e:  # noqa: BLE001 - an error's message reaches the caller too
                text = f"ERROR {type(e).__name__}: {e}"
            answers.setdefault(name, []).append(text)
    return answers


def table_rows(answer) -> list[list]:
    """The rows of every Dataframe in an answer (one value, or a tuple of outputs);
    a Dataframe comes as {"headers": [...], "data": [[...], ...]}."""
    if isinstance(answer, dict) and "headers" in answer:
        return list(answer.get("data") or [])
    if isinstance(answer, dict) and isinstance(answer.get("value"), dict):  # a component update
        return table_rows(answer["value"])
    if isinstance(answer, (list, tuple)):
        return [row for part in answer for row in table_rows(part)]
    return []


# -- fixtures -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("client") / "home"


@pytest.fixture(scope="module")
def files(home, tmp_path_factory, submitted) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("files")
    good = write_baseline_predictions(home, folder / "random.jsonl", name="random")
    bad = folder / "bad.jsonl"
    bad.write_text('{"id": "no-such-call", "response": "A"}\n{not json\n')
    return {"good": good, "bad": bad}


@pytest.fixture(scope="module")
def submitted(home, tmp_path_factory) -> Submitted:
    """The dev user submits a prediction file through the API; the site's worker scores it."""
    with SiteServer(home) as site:
        client = Client(site.url, verbose=False)
        predictions = write_baseline_predictions(home, tmp_path_factory.mktemp("owner") / "first-option.jsonl")
        message, _quota = call(client, "/submit_file", file=handle_file(str(predictions)), name=MODEL)
        found = re.search(r"\b(\d{8}T\d{6}-[0-9a-f]{10})\b", message)
        assert found and "Submitted" in message, message
        submission = found.group(1)

        def finished() -> str | None:
            view = client.predict(api_name="/my_submissions")
            rows = [r for r in table_rows(view) if submission in r]
            if not rows or "FINISHED" not in rows[0]:
                return None
            return as_text(view) + as_text(client.predict(submission, api_name="/my_log"))  # the log, on demand

        owner_view = wait_until(f"submission {submission} to be FINISHED", finished, SCORED_TIMEOUT, interval=1.0)
    log = home / "private" / request_log_path(submission)
    lines = [line.strip() for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    return Submitted(submission, lines, owner_view)


@pytest.fixture(scope="module")
def anonymous(home, submitted):
    """The same home served with nobody signed in (as a Space serves a visitor who is not logged in)."""
    with SiteServer(home, dev_user=None) as site:
        yield site


# -- the tests --------------------------------------------------------------------------------------------------

def test_the_submitter_sees_their_own_log(submitted):
    # the control for the tests below: there is a log, and its owner gets it
    assert len(submitted.log_lines) >= 5
    assert submitted.log_lines[-1] in submitted.owner_view
    assert MODEL in submitted.owner_view


def test_every_public_endpoint_is_listed(anonymous):
    client = Client(anonymous.url, verbose=False)
    api = client.view_api(return_format="dict", print_info=False)
    named = set(api["named_endpoints"])
    assert CORE_ENDPOINTS <= named, f"missing endpoints: {sorted(CORE_ENDPOINTS - named)}"
    assert not api["unnamed_endpoints"], f"endpoints without a name: {list(api['unnamed_endpoints'])}"


def test_anonymous_calls_reveal_no_answer_and_no_log(anonymous, submitted, files, home):
    client = Client(anonymous.url, verbose=False)
    answers = sweep(client, files)
    assert set(answers) == set(endpoints(client))  # every endpoint was called
    # with its defaults every endpoint answers (callbacks are fail-safe); a changed choice may be refused
    failing = {name: texts[0][:300] for name, texts in answers.items() if texts[0].startswith("ERROR")}
    assert not failing, f"endpoints that fail with their default arguments: {failing}"
    hidden, private = answer_strings(home), submitted.private_texts()
    for name, texts in answers.items():
        for text in texts:
            leaked = contains_any(text, hidden)
            assert not leaked, f"{name} returned answer-key text: {leaked[:3]}"
            shown = [p for p in private if p in text]
            assert not shown, f"{name} showed an anonymous caller the dev user's private log/files: {shown[:2]}"
    # nobody is signed in: no submissions are "mine", and submitting is refused
    assert table_rows(client.predict(api_name="/my_submissions")) == []
    message, _quota = call(client, "/submit_file", file=handle_file(str(files["good"])), name="Anonymous")
    assert "Sign in" in message and "Submitted" not in message


def test_another_user_sees_no_log_of_the_submitter(home, submitted, files):
    with SiteServer(home, dev_user="someone-else") as site:
        client = Client(site.url, verbose=False)
        mine = client.predict(api_name="/my_submissions")
        assert all(submitted.id not in row for row in table_rows(mine))
        assert client.predict(submitted.id, api_name="/my_log") == ""  # asking by its id gets nothing
        answers = sweep(client, files)
    private = submitted.private_texts()
    for name, texts in answers.items():
        for text in texts:
            shown = [p for p in private if p in text]
            assert not shown, f"{name} showed user someone-else the log/files of {DEV_USER}: {shown[:2]}"


def test_a_signed_out_upload_check_names_the_line_and_no_answer(anonymous, files, home):
    client = Client(anonymous.url, verbose=False)
    message = call(client, "/check_file", file=handle_file(str(files["bad"])))
    assert "❌" in message and re.search(r"line [12]\b", message), message
    assert not contains_any(message, answer_strings(home))


def test_files_behind_the_site_are_not_served(anonymous, submitted, home):
    suite_id = next(p.name for p in (home / "answers").iterdir() if p.name.startswith("demo-"))
    private_files = [home / "answers" / suite_id / "answers.json", home / "private" / request_log_path(submitted.id),
                     home / "private" / "predictions" / shard(submitted.id) / f"{submitted.id}.jsonl"]
    for path in private_files:
        assert path.is_file()  # they exist; the site must still not hand them out
        for route in ("gradio_api/file=", "file="):
            status, body = http_get(anonymous.url + route + urllib.parse.quote(str(path)))
            assert status != 200 or path.read_text()[:200] not in body, f"{route}{path} is served to anyone"
    # the page's own configuration (every component's first value) holds no answer either
    status, config = http_get(anonymous.url + "config")
    assert status == 200 and "GPT-4o" in config  # it does show the leaderboard (the papers' rows first)...
    assert not contains_any(config, answer_strings(home))  # ...and nothing of the answer key
    assert not [p for p in submitted.private_texts() if p in config]


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", errors="replace")


def test_the_sweep_would_catch_a_leak(submitted, home):
    # the scan itself: a log line or an answer string in an answer is found
    hidden = answer_strings(home)
    sample = min(hidden)
    assert contains_any(json.dumps({"data": [[f"x {sample} y"]]}), hidden)
    assert any(p in as_text({"data": [["a", submitted.log_lines[1]]]}) for p in submitted.private_texts())


def test_parallel_submits_through_the_api_respect_the_pending_cap(tmp_path_factory):
    """Eight different files sent at once to /submit_file of a running site, with a cap of two
    waiting at once (no worker runs, so nothing frees a slot): exactly two are queued."""
    from concurrent.futures import ThreadPoolExecutor

    from submissions.queue import Queue
    from submissions.stores import Stores

    home = tmp_path_factory.mktemp("racing") / "home"
    env = {"LEADERBOARD_QUOTA_PENDING": "2", "LEADERBOARD_EMBEDDED_WORKER": "0"}
    with SiteServer(home, env=env) as site:
        folder = tmp_path_factory.mktemp("racing-files")
        # different files (not near-duplicates of each other): two baselines, the random one with 7 seeds
        paths = [write_baseline_predictions(home, folder / f"{name}-{seed}.jsonl", name=name, seed=seed)
                 for name, seed in [("first-option", 0), *(("random", s) for s in range(7))]][:8]

        def send(path: Path) -> str:
            client = Client(site.url, verbose=False)
            return call(client, "/submit_file", file=handle_file(str(path)), name=f"Racer {path.stem}")[0]

        with ThreadPoolExecutor(len(paths)) as pool:
            messages = list(pool.map(send, paths))
    submitted = [m for m in messages if "Submitted" in m]
    assert len(submitted) == 2, messages
    assert sum("waiting or running" in m for m in messages) == 6, messages
    assert len(Queue(Stores.local(home).requests).all()) == 2
