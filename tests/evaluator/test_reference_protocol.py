"""Each benchmark's reference protocol as data in its folder (evaluator/benchmarks/<name>/protocol.toml,
read by evaluator/reference.py): the CLI prints all five, docs/protocol.md holds the tables it
prints, every "differs" row shows on every card, and a value changed in one folder changes what
the runner asks, how the scorer scores and what the card compares, with no code touched."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT, SECRET, run_cli
from evaluator import prompts, reference, reference_text
from evaluator.baselines import predictions as baseline_predictions
from evaluator.benchmarks import ORDER, causalstep
from evaluator.errors import EvaluatorError
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.protocol_card import model_card
from evaluator.records import Prediction, ScoringOptions
from evaluator.runners.model import ModelRunner, RunnerSettings
from evaluator.scoring import score_responses
from results import protocol_status

TITLES = {"expvid": "ExpVid", "causalstep": "CausalStep", "exact": "ExAct", "videommmu": "Video-MMMU",
          "videosimpleqa": "Video SimpleQA"}


# -- the five protocols, printed and documented ---------------------------------------------------

def test_the_cli_prints_all_five_protocols_and_one_on_request():
    every = run_cli("protocol")
    assert every.returncode == 0, every.stderr
    for name, title in TITLES.items():
        assert f"{title} ({name}):" in every.stdout
    for expected in ("generation: temperature 1.0, up to 1,024 new tokens (4,096 thinking), 3 runs",  # Video SimpleQA
                     "generation: temperature 0.1, up to 8,192 new tokens, one run",  # ExpVid
                     "frames videommmu: 10-64, chosen per model (default 32",
                     "frames expvid_level3: 96-512, chosen per model (default 128",
                     "resolution: 796x448", "scoring: the prose reading by default"):
        assert expected in every.stdout, expected
    one = run_cli("protocol", "--benchmark", "exact")
    assert one.returncode == 0 and "ExAct (exact):" in one.stdout and "Video-MMMU" not in one.stdout
    wrong = run_cli("protocol", "--benchmark", "nope")
    assert wrong.returncode != 0 and "invalid choice: 'nope'" in wrong.stderr


def test_docs_protocol_md_holds_exactly_the_printed_tables():
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    printed = run_cli("protocol", "--markdown").stdout.strip()
    assert printed == reference_text.markdown_tables(reference.names())
    assert printed in page, "docs/protocol.md is out of date: paste `python -m evaluator protocol --markdown`"
    for title in TITLES.values():
        assert f"### {title}: paper, official code and ours" in printed


def test_every_difference_from_a_paper_is_on_every_card_and_says_why():
    shown = protocol_status.paper_differences(ORDER)
    differs = [(name, row) for name in ORDER for row in reference.protocol(name).differences()]
    assert differs  # the judges, at least
    for name, row in differs:
        assert row.why and f"{reference.protocol(name).title}, {row.point.lower()}: paper {row.paper}" in shown
        assert f"*Why:* {row.why}." in shown


def test_every_protocol_value_names_its_source():
    for name in ORDER:
        proto = reference.protocol(name)
        sources = [rule.source for rule in proto.frames.values()] + [
            proto.resolution.source, proto.prompt.source, proto.generation.source, proto.judge.source]
        assert all(s.strip() for s in sources), name


def test_a_malformed_protocol_file_is_refused_with_its_path(tmp_path, monkeypatch):
    root = folders_with_copy(tmp_path, monkeypatch, "exact")
    edit(root, "exact", "temperature = 0.0", "temprature = 0.0")
    with pytest.raises(EvaluatorError, match=r"exact/protocol.toml: not a valid reference protocol"):
        reference.protocol("exact")


# -- one value changed in one folder -------------------------------------------------------------

def folders_with_copy(tmp_path: Path, monkeypatch, name: str) -> Path:
    """The benchmark folders' data files as the code reads them (prompts.BENCHMARKS_DIR),
    with `name`'s copied so a test may edit it; the others are the real folders."""
    root = tmp_path / "benchmarks"
    root.mkdir()
    for real in Path(prompts.BENCHMARKS_DIR).iterdir():
        if (real / reference.PROTOCOL_FILE).exists():
            if real.name == name:
                shutil.copytree(real, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
            else:
                (root / real.name).symlink_to(real)
    monkeypatch.setattr(prompts, "BENCHMARKS_DIR", root)
    prompts.templates.cache_clear()
    return root


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name / reference.PROTOCOL_FILE
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


class Recording:
    """A backend that answers every request with option A and keeps what it was asked."""

    name = "recording"
    settings = {"backend": "recording", "model": "m"}

    def __init__(self):
        self.requests = []

    def generate(self, requests):
        self.requests += requests
        return ["A"] * len(requests)


def run(suite, key, request=None):
    backend = Recording()
    runner = ModelRunner(backend, RunnerSettings(batch_calls=64))
    request = request or SimpleNamespace(frames=None, frame_budgets={}, thinking=False)
    made = runner.run(request, suite, key.hidden_calls)
    return backend, runner, made


def card_of(suite, key, runner, made, request=None, options=None):
    request = request or SimpleNamespace(frames=None, frame_budgets={}, thinking=False)
    _, counts = score_responses(suite, key, as_responses(made), get_judge("normalized-match"), options,
                                worker_run=True, bootstrap_samples=10)
    return model_card(suite, request, runner.name, runner.settings, get_judge("normalized-match"),
                      options or ScoringOptions(), counts)


def test_exacts_generation_changed_in_its_folder_reaches_the_runner_and_the_card(demo_suite, tmp_path,
                                                                                   monkeypatch):
    suite, key = demo_suite
    before_backend, before_runner, before_made = run(suite, key)
    before = card_of(suite, key, before_runner, before_made)
    assert before.deviations == []

    root = folders_with_copy(tmp_path, monkeypatch, "exact")
    edit(root, "exact", "temperature = 0.0\nmax_new_tokens = 1024", "temperature = 0.5\nmax_new_tokens = 64")
    backend, runner, made = run(suite, key)
    exact_calls = {c.prompt for c in suite.calls if c.benchmark == "exact"}
    sent = {(r.temperature, r.max_new_tokens, r.seed is not None) for r in backend.requests if r.prompt in exact_calls}
    was = {(r.temperature, r.max_new_tokens, r.seed is not None) for r in before_backend.requests
           if r.prompt in exact_calls}
    assert was == {(0.0, 1024, False)} and sent == {(0.5, 64, True)}  # the runner's requests follow the file
    card = card_of(suite, key, runner, made)
    assert card.generation["benchmarks"]["exact"] == {"temperature": 0.5, "max_new_tokens": 64, "runs": 1}
    assert card.deviations == []  # the run follows the (new) reference
    # and the run made under the old file no longer does: the card's reference moved with the file
    assert card_of(suite, key, before_runner, before_made).deviations == ["generation"]


def test_video_simpleqas_runs_changed_in_its_folder_reach_the_runner_scorer_and_card(demo_suite, tmp_path,
                                                                                     monkeypatch):
    suite, key = demo_suite
    root = folders_with_copy(tmp_path, monkeypatch, "videosimpleqa")
    edit(root, "videosimpleqa", "runs = 3", "runs = 2")
    backend, runner, made = run(suite, key)
    simpleqa = [c for c in [*suite.calls, *key.hidden_calls] if c.benchmark == "videosimpleqa"]
    assert len([r for r in backend.requests if r.temperature == 1.0]) == 2 * len(simpleqa)  # each call twice
    assert {p.run for p in made if p.id.startswith("videosimpleqa/")} == {None, 2}
    scores, counts = score_responses(suite, key, as_responses(made), get_judge("normalized-match"),
                                     worker_run=True, bootstrap_samples=10)
    assert counts["videosimpleqa"]["runs"] == 2 and len(counts["videosimpleqa"]["overall_per_run"]) == 2
    card = card_of(suite, key, runner, made)
    assert card.runs["videosimpleqa"]["runs"] == 2 and card.deviations == []
    assert card.generation["benchmarks"]["videosimpleqa"]["runs"] == 2


def test_causalsteps_reading_changed_in_its_folder_changes_the_score_and_the_card(demo_suite, tmp_path,
                                                                                  monkeypatch):
    suite, key = demo_suite
    answers = as_responses(baseline_predictions("random", suite.calls, seed=3))
    judge = get_judge("normalized-match")

    def scored():
        scores, _ = score_responses(suite, key, answers, judge, bootstrap_samples=10)
        return scores["causalstep"]

    prose = scored()
    root = folders_with_copy(tmp_path, monkeypatch, "causalstep")
    edit(root, "causalstep", 'reading = "prose"', 'reading = "algo"')
    algo = scored()
    assert (prose["ws"], prose["rf"]) != (algo["ws"], algo["rf"])  # the scorer follows the file
    assert reference.resolve_options().of("causalstep") == {"restart": "algo", "points": "algo"}
    # a perfect N-segment video: 1 + N(N-1)/2 under the prose reading, N(N+1)/2 under Algorithm 1
    assert causalstep.metrics.perfect_score(4, "prose") == 7 and causalstep.metrics.perfect_score(4, "algo") == 10


def test_a_frame_default_changed_in_its_folder_changes_the_call_list_and_the_budgets(tmp_path, monkeypatch):
    from evaluator.benchmarks import videommmu
    from evaluator.suite import build_suite

    root = folders_with_copy(tmp_path, monkeypatch, "videommmu")
    edit(root, "videommmu", "default = 32\nmin = 10", "default = 12\nmin = 10")
    assert reference.default_budgets()["videommmu"] == 12
    assert reference.budgets_for("acme/new-model")["videommmu"] == {
        "frames": 12, "why": "the default for a model the paper did not run"}
    suite = build_suite(tmp_path / "built", "t", "v1", [videommmu.demo(SECRET)], None, SECRET, write_videos=True)
    lecture = [c for c in suite.calls if c.kind != "question-only"]
    assert lecture and all(len(c.frames[0].times) == min(12, suite.videos[c.frames[0].video].frame_count)
                           for c in lecture)
    assert all(re.search(r"\b12 frames", c.prompt) for c in lecture
               if suite.videos[c.frames[0].video].frame_count >= 12)


def test_a_budget_outside_the_range_is_named_and_a_models_paper_count_is_used():
    assert reference.budget_errors({"videommmu": 9}) == [
        "Video-MMMU lectures: 9 frames is outside the paper's range 10-64 (default 32)"]
    assert "not a frame budget a submission may choose" in reference.budget_errors({"exact": 16})[0]
    assert reference.budgets_for("lmms-lab/LLaVA-Video-7B-Qwen2")["videommmu"] == {
        "frames": 64, "why": "the paper's count for this model"}
    assert reference.budgets_for("meta-llama/llama-3.2-11b-vision-instruct")["videommmu"]["frames"] == 10  # any case
    assert reference.budgets_for("x/y", {"videosimpleqa": 8})["videosimpleqa"] == {
        "frames": 8, "why": "declared by the model's author"}


def test_a_prediction_files_run_numbers_follow_the_protocol(demo_suite):
    from evaluator.errors import PredictionFileError
    from evaluator.predictions import parse_predictions

    suite, _ = demo_suite
    calls = suite.calls_by_id()
    simple = next(c for c in suite.calls if c.benchmark == "videosimpleqa")
    exact = next(c for c in suite.calls if c.benchmark == "exact")
    lines = [f'{{"id": "{simple.id}", "response": "x"}}', f'{{"id": "{simple.id}", "response": "y", "run": 3}}']
    parsed = parse_predictions("\n".join(lines).encode(), calls)
    assert parsed.by_id[simple.id].response == "x" and parsed.runs[3].by_id[simple.id] == Prediction(
        simple.id, "y", run=3)
    bad = [f'{{"id": "{simple.id}", "response": "x", "run": 4}}', f'{{"id": "{exact.id}", "response": "1", "run": 2}}',
           f'{{"id": "{simple.id}", "response": "x", "run": "2"}}']
    with pytest.raises(PredictionFileError) as refused:
        parse_predictions("\n".join(bad).encode(), calls)
    text = str(refused.value)
    assert "videosimpleqa has runs 1 to 3, not 4" in text and "exact has only run 1" in text
    assert "'run' must be a whole number, not str" in text


def test_a_videommmu_file_without_question_only_answers_gets_not_computed_with_the_reason(demo_suite, tmp_path):
    """Scored from a real file through score_file, published in a table, shown on the site."""
    from evaluator.predictions import write_predictions
    from evaluator.scoring import score_file
    from results import aggregate
    from leaderboard import views

    suite, key = demo_suite
    made = [p for p in baseline_predictions("first-option", suite.calls) if not p.id.endswith("/question-only")]
    path = tmp_path / "no-before.jsonl"
    write_predictions(path, made)
    result = score_file(suite, key, path, get_judge("normalized-match"), ScoringOptions(), 10**7,
                        submission={"id": "nb", "model": "No Before", "submitter": "u"}, bootstrap_samples=10)
    scores = result.scores["videommmu"]
    assert scores["delta_knowledge"] is None and scores["adaptation"] is not None
    assert scores["delta_knowledge_note"].startswith("not computed: the submission has no question-only answers")
    assert result.counts["videommmu"]["delta_knowledge_pairs"] == 0

    board = views.prepare(views.select_suite(aggregate.build_table([result]), suite.id))
    shown = views.shown_text(views.benchmark_view(board, "videommmu"))
    assert list(shown["Δknowledge"]) == ["not computed: the submission has no question-only answers"]


def test_a_run_with_its_own_frame_budgets_is_labelled_so_in_the_frames_filter(demo_suite):
    from evaluator.scoring import make_result
    from results import aggregate
    from leaderboard import views

    suite, key = demo_suite
    judge = get_judge("normalized-match")
    scores, counts = score_responses(suite, key, as_responses(baseline_predictions("first-option", suite.calls)),
                                     judge, bootstrap_samples=10)

    def result(row_id: str, budgets: dict):
        return make_result(suite, scores, counts, judge, ScoringOptions(), {"id": row_id, "model": row_id,
                                                                            "kind": "model", "submitter": "u"},
                           runner={"name": "transformers", "frame_budgets": budgets})

    own = result("own", reference.default_budgets() | {"videommmu": 64})
    plain = result("plain", reference.default_budgets())
    board = views.prepare(views.select_suite(aggregate.build_table([own, plain]), suite.id))
    labels = dict(zip(board["id"], board["frames_label"]))
    assert labels == {"own": views.MODEL_BUDGET_FRAMES, "plain": views.SUITE_DEFAULT_FRAMES}
    assert views.frame_choices(board) == [views.SUITE_DEFAULT_FRAMES, views.MODEL_BUDGET_FRAMES]


def test_a_files_repeated_run_must_answer_the_calls_of_run_1_and_shows_on_its_card(demo_suite, tmp_path):
    from evaluator.errors import PredictionFileError
    from evaluator.predictions import parse_predictions, write_predictions
    from evaluator.scoring import score_file

    suite, key = demo_suite
    first = baseline_predictions("first-option", suite.calls)
    simple = [p for p in first if p.id.startswith("videosimpleqa/")]
    partial = [*first, *(Prediction(p.id, p.response, run=2) for p in simple[:3])]
    with pytest.raises(PredictionFileError) as refused:
        parse_predictions("\n".join(_lines(partial)).encode(), suite.calls_by_id())
    assert f"run 2 answers 3 videosimpleqa calls and run 1 answers {len(simple)}" in str(refused.value)

    path = tmp_path / "three-runs.jsonl"
    write_predictions(path, [*first, *(Prediction(p.id, p.response, run=r) for r in (2, 3) for p in simple)])
    result = score_file(suite, key, path, get_judge("normalized-match"), ScoringOptions(), 10**7,
                        submission={"id": "f3", "model": "Three Runs", "submitter": "u"}, bootstrap_samples=10)
    assert result.protocol.runs["videosimpleqa"]["runs"] == 3 and result.protocol.deviations == []


def _lines(predictions) -> list[str]:
    import json

    return [json.dumps({"id": p.id, "response": p.response, **({"run": p.run} if p.run else {})})
            for p in predictions]


def test_results_scored_under_the_older_reference_are_marked_and_baselines_rescored(demo_suite, tmp_path):
    import json

    from results import aggregate
    from submissions.stores import Stores
    from worker.suites import baseline_id, ensure_baselines, first_start

    stores = Stores.local(tmp_path / "home")
    suite_id = first_start(stores)
    name = baseline_id("random", suite_id)
    old = json.loads(stores.results.read(aggregate.result_path(name)).data)
    old["protocol"]["schema_version"] = 1  # as written before the papers' protocols were followed
    stores.results.write(aggregate.result_path(name), json.dumps(old).encode())
    table = aggregate.rebuild(stores.results).set_index("id")
    assert table.loc[name, "protocol_status"] == protocol_status.DIFFERS
    assert table.loc[name, "protocol_deviations"] == protocol_status.OLDER
    assert "Scored under an older reference protocol" in protocol_status.card_markdown(
        table.loc[name].to_dict() | {"id": name})
    assert ensure_baselines(stores, suite_id) == ["random"]  # scored again under today's protocol
    row = aggregate.load_table(stores.results).set_index("id").loc[name]
    assert row["protocol_status"] == protocol_status.REFERENCE


def test_a_request_from_before_budgets_runs_with_the_papers_count_for_its_model(demo_suite):
    from evaluator.runners.reference_run import frames_asked

    suite, _ = demo_suite
    old = SimpleNamespace(model="meta-llama/Llama-3.2-11B-Vision-Instruct", frames=None, frame_budgets={})
    assert frames_asked(suite, old)["videommmu"] == 10  # §4.1's count for this model
    legacy = SimpleNamespace(model="x/y", frames=6, frame_budgets={"videommmu": 40})
    asked = frames_asked(suite, legacy)  # one count for every call wins: it is outside every protocol
    assert asked["videommmu"] == 6 == asked["exact"] and asked["videommmu_question_only"] == 1


@pytest.mark.parametrize("frames, problem", [
    ('count = 32\nmin = 2', "a fixed `count` takes no `min`"),
    ('default = 32\nmin = 40\nmax = 64', "a budget needs 1 <= min <= default <= max"),
])
def test_a_frame_rule_that_cannot_be_is_refused(tmp_path, monkeypatch, frames, problem):
    root = folders_with_copy(tmp_path, monkeypatch, "exact")
    edit(root, "exact", "count = 32", frames)
    with pytest.raises(EvaluatorError, match=re.escape(problem)):
        reference.protocol("exact")


def test_a_papers_model_count_outside_its_own_range_is_refused(tmp_path, monkeypatch):
    root = folders_with_copy(tmp_path, monkeypatch, "videommmu")
    edit(root, "videommmu", '"rhymes-ai/Aria" = 64', '"rhymes-ai/Aria" = 640')
    with pytest.raises(EvaluatorError, match=r"paper_models outside 10-64: \{'rhymes-ai/Aria': 640\}"):
        reference.protocol("videommmu")
