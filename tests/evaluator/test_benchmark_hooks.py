"""A benchmark folder declares its own breakdown buckets, paired-statistics hooks and
display tables (evaluator/benchmarks/hooks.py); the scoring and site code dispatch
through the registry, with safe defaults for a benchmark that declares none."""

from __future__ import annotations

import types

import pytest

from evaluator import benchmarks, paired
from evaluator.baselines import predictions
from evaluator.benchmarks import exact
from evaluator.benchmarks.hooks import LevelColumn, View
from evaluator.buckets import count_buckets
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.records import ScoringContext, ScoringOptions
from results import disclosure
from leaderboard.views.columns import display_tables


def bare(name: str, **declared) -> types.SimpleNamespace:
    """A benchmark package that declares only what every one must (ExAct's scorer)."""
    return types.SimpleNamespace(NAME=name, TITLE=name.title(), score=exact.score, **declared)


@pytest.fixture
def exact_scored(demo_suite):
    suite, key = demo_suite
    calls = [c for c in suite.calls if c.benchmark == exact.NAME]
    responses = as_responses(predictions("random", calls, seed=5))
    ctx = ScoringContext(judge=get_judge("normalized-match"), options=ScoringOptions())
    questions, answers = suite.questions[exact.NAME], key.answers[exact.NAME]
    return suite, questions, answers, responses, ctx, exact.score(questions, answers, responses, ctx)


def test_a_benchmark_without_hooks_has_no_buckets_and_a_ratio_overall(monkeypatch, exact_scored):
    suite, questions, answers, responses, ctx, scored = exact_scored
    monkeypatch.setitem(benchmarks.BENCHMARKS, "bare", bare("bare"))
    assert list(count_buckets("bare", scored.metrics, 10)) == []
    assert disclosure.suppress_benchmark("bare", scored.metrics, 10) == scored.metrics  # nothing hidden
    made = paired.collect_benchmark("bare", questions, answers, responses, ctx, scored, suite.id)
    ours = paired.collect_benchmark(exact.NAME, questions, answers, responses, ctx, scored, suite.id)
    assert [b.path for b in made] == [["overall"]] and len(ours) > 1  # ExAct's own buckets are its hooks'
    assert made[0].reducer == "ratio" and made[0].videos == ours[0].videos and made[0].stats == ours[0].stats


def test_a_wrong_reducer_is_named_with_the_folder_to_fix(monkeypatch, exact_scored):
    suite, questions, answers, responses, ctx, scored = exact_scored
    monkeypatch.setitem(paired.REDUCERS, "half", lambda sums: paired.REDUCERS["ratio"](sums) / 2)
    monkeypatch.setitem(benchmarks.BENCHMARKS, "bare", bare("bare", PAIRED_REDUCER="half"))
    with pytest.raises(ValueError, match=r"PAIRED_REDUCER in evaluator/benchmarks/bare/"):
        paired.collect_benchmark("bare", questions, answers, responses, ctx, scored, suite.id)


def test_a_row_key_that_groups_otherwise_than_the_scorer_fails_loudly(monkeypatch, exact_scored):
    suite, questions, answers, responses, ctx, scored = exact_scored
    monkeypatch.setitem(benchmarks.BENCHMARKS, "bare", bare("bare", paired_row_key=lambda q: "one"))
    with pytest.raises(ValueError, match=r"bare overall: \d+ rows of per-video statistics for 1 videos"):
        paired.collect_benchmark("bare", questions, answers, responses, ctx, scored, suite.id)


def test_unknown_benchmarks_get_the_defaults_too():
    assert list(count_buckets("not-a-benchmark", {"n_by_domain": {"x": 1}}, 10)) == []


def test_display_tables_come_from_the_declarations_in_their_order():
    registry = {
        "one": bare("one", DISPLAY_METRICS=("overall", "a"), METRIC_LABELS={"a": "A!"},
                    LEVEL_COLUMNS=(LevelColumn("a", "One A", 20),),
                    VIEWS=(View("one-x", "hop", "One: x", "by_x", order=5),
                           View("one-y", "domain", "One: y", "by_y", "f", "{}-y", order=30))),
        "two": bare("two", LEVEL_COLUMNS=(LevelColumn("b", "Two B", 10),),
                    VIEWS=(View("two-z", "domain", "Two: z", "by_z", order=30),)),
        "three": bare("three"),
    }
    tables = display_tables(registry)
    assert tables.metrics == {"one": ("overall", "a"), "two": ("overall",), "three": ("overall",)}
    assert tables.labels["a"] == "A!" and tables.labels["overall"] == "Overall"
    assert tables.levels == (("two.b", "Two B"), ("one.a", "One A"))
    assert tables.domain_views == ("one-y", "two-z") and tables.hop_views == ("one-x",)  # ties: registry order
    assert list(tables.breakdowns) == ["one-y", "two-z", "one-x"]
    assert tables.breakdowns["one-y"].column == "one.by_y" and tables.breakdowns["one-y"].group_label == "{}-y"


def test_a_copied_folders_view_keys_are_refused():
    copy = bare("mybench", VIEWS=exact.VIEWS)
    with pytest.raises(ValueError, match=r"benchmarks/mybench/display.py: view key 'exact-domain' is also exact's"):
        display_tables({"exact": exact, "mybench": copy})
    odd = bare("odd", VIEWS=(View("odd-x", "by-week", "Odd", "by_x"),))
    with pytest.raises(ValueError, match=r"benchmarks/odd/display.py: .*tab 'by-week'; use one of domain, hop"):
        display_tables({"odd": odd})


def test_every_declared_view_and_level_is_a_metric_the_scorer_publishes(demo_suite):
    """The registry's declarations name real keys of the demo suite's scores."""
    from evaluator.scoring import score_responses

    suite, key = demo_suite
    calls = suite.calls + key.hidden_calls
    scores, _ = score_responses(suite, key, as_responses(predictions("random", calls, seed=2)),
                                get_judge("normalized-match"), ScoringOptions(), worker_run=True,
                                bootstrap_samples=10)
    tables = display_tables(benchmarks.BENCHMARKS)
    for name, metrics in tables.metrics.items():
        assert set(metrics) <= set(scores[name]), name
    for column, _ in tables.levels:
        name, metric = column.split(".")
        assert metric in scores[name], column
    for view in tables.breakdowns.values():
        name, metric = view.column.split(".")
        assert isinstance(scores[name].get(metric), dict), view.column


def test_every_package_exports_what_it_lists():
    for name, module in benchmarks.BENCHMARKS.items():
        missing = [attr for attr in module.__all__ if not hasattr(module, attr)]
        assert not missing, f"{name} lists {missing} in __all__ but does not import them"


def copied_benchmark(tmp_path, monkeypatch, name: str = "mybench"):
    """README "Adding a benchmark", steps 1, 2, 4 and 7 done for real: ExAct's folder copied,
    its imports, NAME/TITLE and frame-budget key renamed, the package registered (the one
    registry line)."""
    import importlib.util
    import shutil
    import sys
    from pathlib import Path

    from evaluator import prompts

    # the copy lives beside links to the real folders, where prompts.py looks for prompts.toml
    root = tmp_path / "benchmarks"
    root.mkdir()
    for real in Path(prompts.BENCHMARKS_DIR).iterdir():
        if real.is_dir() and (real / "prompts.toml").exists():
            (root / real.name).symlink_to(real)
    monkeypatch.setattr(prompts, "BENCHMARKS_DIR", root)
    prompts.templates.cache_clear()
    folder = root / name
    shutil.copytree(Path(exact.__file__).parent, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for source in folder.glob("*.py"):
        text = source.read_text().replace("evaluator.benchmarks.exact", f"evaluator.benchmarks.{name}")
        if source.name == "records.py":
            text = text.replace('NAME = "exact"', f'NAME = "{name}"').replace('TITLE = "ExAct"', 'TITLE = "My bench"')
        source.write_text(text)
    protocol = folder / "protocol.toml"  # step 4: its own frame-budget key (unique across benchmarks), name, title
    protocol.write_text(protocol.read_text().replace("[frames.exact]", f"[frames.{name}]")
                        .replace('benchmark = "exact"', f'benchmark = "{name}"').replace('"ExAct"', '"My bench"'))
    package = f"evaluator.benchmarks.{name}"
    assert package not in sys.modules
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module  # the test's `finally` removes it and its submodules
    spec.loader.exec_module(module)
    monkeypatch.setitem(benchmarks.BENCHMARKS, name, module)
    monkeypatch.setattr(benchmarks, "ORDER", list(benchmarks.BENCHMARKS))
    return module


def test_a_copied_folder_and_one_registry_line_make_a_working_benchmark(tmp_path, monkeypatch):
    import sys

    from evaluator import prompts

    package = "evaluator.benchmarks.mybench"
    try:
        _check_copy(tmp_path, copied_benchmark(tmp_path, monkeypatch))
    finally:
        prompts.templates.cache_clear()  # nothing cached from the copy's folder
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def _check_copy(tmp_path, mine) -> None:
    from conftest import SECRET
    from evaluator.demo import build_demo_suite
    from evaluator.scoring import score_responses
    from evaluator.suite import load_answers, load_suite

    assert mine.NAME == "mybench" and mine.score is not exact.score
    build_demo_suite(tmp_path / "demo", SECRET)
    suite = load_suite(tmp_path / "demo" / "suite")
    key = load_answers(tmp_path / "demo" / "answers", suite)
    ids = {name: {c.id for c in suite.calls if c.benchmark == name} for name in ("exact", "mybench")}
    assert ids["mybench"] and not ids["exact"] & ids["mybench"]  # its own call ids
    assert not {q.video for q in suite.questions["exact"]} & {q.video for q in suite.questions["mybench"]}
    from evaluator import reference

    assert suite.manifest["frame_budgets"]["mybench"] == 32  # its own protocol.toml, read like the others'
    assert reference.protocol("mybench").generation == reference.protocol("exact").generation
    collected: dict = {}
    scores, _ = score_responses(suite, key, as_responses(predictions("random", suite.calls, seed=4)),
                                get_judge("normalized-match"), ScoringOptions(), bootstrap_samples=10,
                                paired=collected)
    assert set(scores) >= {"exact", "mybench"} and set(scores["mybench"]) == set(scores["exact"])
    assert [b.path for b in collected["mybench"]][:2] == [["overall"], ["good_execution"]]
    assert disclosure.suppress_benchmark("mybench", scores["mybench"], 10).get("suppressed")  # its buckets
    tables = display_tables(benchmarks.BENCHMARKS)
    assert tables.metrics["mybench"] == exact.DISPLAY_METRICS
    assert {"mybench-domain", "mybench-activity"} <= set(tables.domain_views)
    assert tables.breakdowns["mybench-domain"].title == "My bench: domains"


def test_the_judged_benchmarks_are_those_whose_folder_names_a_grading_task_the_judge_has():
    from evaluator.judges.base import TASKS

    assert benchmarks.JUDGED == ("expvid", "videosimpleqa")  # registry order
    assert [benchmarks.hook(name, "JUDGE_TASK") for name in benchmarks.JUDGED] == ["blank", "simpleqa"]
    assert {benchmarks.hook(name, "JUDGE_TASK") for name in benchmarks.JUDGED} <= set(TASKS)
    assert benchmarks.hook("exact", "JUDGE_TASK") is None and benchmarks.hook("nosuch", "JUDGE_TASK", 1) == 1


def test_how_calls_are_asked_is_the_folders_declaration(monkeypatch):
    from evaluator.errors import EvaluatorError
    from evaluator.records import Call
    from evaluator.runners import schedule

    calls = [Call("bare/1", "bare", "1", "mcq", "?", "choice"), Call("bare/2", "bare", "2", "late", "?", "choice")]
    monkeypatch.setitem(benchmarks.BENCHMARKS, "bare", bare("bare"))
    assert [(p.stage, p.mode, len(p.calls)) for p in schedule.plan_passes(calls)] == [("bare", "independent", 2)]
    monkeypatch.setitem(benchmarks.BENCHMARKS, "bare", bare("bare", CALL_MODE="stepwise", SEPARATE_CALL_KINDS=("late",),
                                                            HIDDEN_CALLS_STAGE="with more"))
    assert [(p.stage, p.mode, len(p.calls)) for p in schedule.plan_passes(calls[:1], calls[1:])] == [
        ("bare with more", "stepwise", 1), ("bare late", "stepwise", 1)]
    monkeypatch.setitem(benchmarks.BENCHMARKS, "bare", bare("bare", CALL_MODE="sideways"))
    with pytest.raises(EvaluatorError, match=r"CALL_MODE in evaluator/benchmarks/bare/"):
        schedule.plan_passes(calls)


def test_judge_and_reading_settings_are_read_for_any_benchmark_name(monkeypatch):
    from space_config.settings import get_settings

    monkeypatch.setenv("LEADERBOARD_JUDGE_EXPVID", "llm:some/model")
    monkeypatch.setenv("LEADERBOARD_JUDGE_TIMEOUT", "30")  # a judge setting, not a benchmark's judge
    monkeypatch.setenv("LEADERBOARD_CAUSALSTEP_READING", "algo")
    get_settings.cache_clear()
    try:
        settings = get_settings()
    finally:
        get_settings.cache_clear()
    assert settings.judges.by_benchmark["expvid"] == "llm:some/model" and "timeout" not in settings.judges.by_benchmark
    assert settings.judges.timeout == 30 and settings.readings["causalstep"] == "algo"


def test_scoring_options_are_each_folders_readings_recorded_as_results_always_were():
    from evaluator import reference

    assert reference.resolve_options().record() == {"causalstep_restart": "prose", "causalstep_points": "prose",
                                                    "grade_truncated_reasoning": False}
    algo = reference.reading_options({"causalstep": "algo"}, grade_truncated_reasoning=True)
    assert algo.of("causalstep") == {"restart": "algo", "points": "algo"} and algo.grade_truncated_reasoning
    with pytest.raises(ValueError, match="LEADERBOARD_CAUSALSTEP_READING"):
        reference.reading_options({"causalstep": "poetry"})
    with pytest.raises(ValueError, match="exact has no scoring option"):
        reference.reading_options({"exact": "prose"})
    with pytest.raises(ValueError, match="unknown benchmarks: nosuch"):
        reference.reading_options({"nosuch": "prose"})
