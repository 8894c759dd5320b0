"""Near-duplicate prediction files (submissions/near_duplicates.py): the differencing attack
(submit A, then A with one answer blanked, and read the difference of the two scores) is
refused before anything is stored or counted; a genuinely different file still scores.

On real local stores with the demo suite, through submit_predictions and a real worker."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from test_submit import ALICE, BOB, make_settings, stored_requests, stores, suite_id  # noqa: F401 - fixtures

from evaluator.baselines import predictions
from evaluator.suite import load_suite
from submissions import near_duplicates
from submissions.errors import Refused
from submissions.requests import Status
from submissions.submit import remaining_quota, submit_predictions
from worker.loop import Worker


@pytest.fixture
def settings(tmp_path):
    return dataclasses.replace(make_settings(tmp_path, per_user=10, per_org=20, pending_per_user=10),
                               bootstrap_samples=50)


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def lines_of(suite, baseline: str = "random", seed: int = 0) -> list[dict]:
    return [{k: v for k, v in dataclasses.asdict(p).items() if v is not None}
            for p in predictions(baseline, suite.calls, seed=seed)]


def blanked(lines: list[dict], call_id: str) -> list[dict]:
    """The same answers with one call's response emptied (the attacker's B file)."""
    return [{**line, "response": ""} if line["id"] == call_id else line for line in lines]


def smallest_bucket_call(suite, benchmark: str, groups) -> str:
    """A call of `benchmark` whose item sits in that benchmark's smallest breakdown bucket."""
    sizes: dict[tuple, int] = {}
    for (name, _), found in groups.items():
        for group in found[1:] if name == benchmark else ():
            sizes[group] = sizes.get(group, 0) + 1
    smallest = min(sizes, key=sizes.get)
    item = next(i for (name, i), found in groups.items() if name == benchmark and smallest in found)
    return next(c.id for c in suite.calls if c.benchmark == benchmark and c.item == item)


def used(stores, settings) -> int:
    return remaining_quota(stores, settings, ALICE)["per_user"]["used"]


@pytest.mark.parametrize("benchmark", ["exact", "videommmu"])
def test_a_file_that_blanks_one_answer_is_refused_and_costs_nothing(stores, settings, suite_id, tmp_path,
                                                                     demo_dir, benchmark):
    suite = load_suite(demo_dir / "suite")
    groups = near_duplicates.item_groups(stores.suite, suite_id)
    a = lines_of(suite)
    first = submit_predictions(stores, settings, ALICE, write(tmp_path / "a.jsonl", a), "Vid-7B")
    assert Worker(stores, settings).run_once().status == Status.FINISHED
    before, quota = len(stored_requests(stores)), used(stores, settings)

    call = smallest_bucket_call(suite, benchmark, groups)
    for name in ("b1.jsonl", "b2.jsonl"):  # one blanked answer; then the same answer changed another way
        lines = blanked(a, call) if name == "b1.jsonl" else [
            {**line, "response": line["response"] + " (revised)"} if line["id"] == call else line for line in a]
        with pytest.raises(Refused) as refused:
            submit_predictions(stores, settings, ALICE, write(tmp_path / name, lines), "Vid-7B (retry)")
        assert refused.value.reason == "near_duplicate"
        message = str(refused.value)
        title = {"exact": "ExAct", "videommmu": "Video-MMMU"}[benchmark]
        assert f"your submission {first.id} on only 1 {title} item (fewer than 10)" in message
        assert "Nothing was stored or counted" in message
        # it points to the Hub id, and never tells the submitter to alter answers until the file passes
        assert "submit the model by its Hub id" in message and "Change at least" not in message
    assert len(stored_requests(stores)) == before and used(stores, settings) == quota


def test_the_same_model_name_from_another_account_is_compared_too(stores, settings, suite_id, tmp_path, demo_dir):
    suite = load_suite(demo_dir / "suite")
    a = lines_of(suite)
    submit_predictions(stores, settings, ALICE, write(tmp_path / "a.jsonl", a), "Vid-7B")
    call = next(c.id for c in suite.calls if c.benchmark == "exact")
    with pytest.raises(Refused) as refused:
        submit_predictions(stores, settings, BOB, write(tmp_path / "b.jsonl", blanked(a, call)), "vid-7b")
    # Bob is not told Alice's submission id (nor that it is Alice's)
    assert "a file submitted earlier under the same model name" in str(refused.value)
    assert "alice" not in str(refused.value).lower()
    # another name from another account is not compared: nothing links the two
    assert submit_predictions(stores, settings, BOB, write(tmp_path / "c.jsonl", blanked(a, call)), "Other-2B")


def test_a_genuinely_different_file_still_scores(stores, settings, suite_id, tmp_path, demo_dir):
    suite = load_suite(demo_dir / "suite")
    submit_predictions(stores, settings, ALICE, write(tmp_path / "a.jsonl", lines_of(suite)), "Vid-7B")
    other = submit_predictions(stores, settings, ALICE,
                               write(tmp_path / "b.jsonl", lines_of(suite, "first-option")), "Vid-7B v2")
    ran = [Worker(stores, settings).run_once() for _ in range(2)]
    assert {r.id for r in ran} >= {other.id} and all(r.status == Status.FINISHED for r in ran)


def test_the_check_can_be_turned_off(stores, settings, suite_id, tmp_path,
                                                                       demo_dir):
    suite = load_suite(demo_dir / "suite")
    a = lines_of(suite)
    call = next(c.id for c in suite.calls if c.benchmark == "videommmu")
    submit_predictions(stores, settings, ALICE, write(tmp_path / "a.jsonl", a), "Vid-7B")
    off = dataclasses.replace(settings, near_duplicate_items=0)
    assert submit_predictions(stores, off, ALICE, write(tmp_path / "b.jsonl", blanked(a, call)), "Vid-7B b")


def test_changes_spread_one_per_bucket_hide_those_buckets(demo_dir):
    """Ten changed items, each in a different bucket, would still tell each bucket's one item."""
    suite = load_suite(demo_dir / "suite")
    calls = {c.id: c for c in suite.calls}
    groups = {("b", f"i{k}"): [("b",), ("b", "by_domain", f"d{k}")] for k in range(10)}
    calls = {f"c{k}": dataclasses.replace(next(iter(calls.values())), id=f"c{k}", benchmark="b", item=f"i{k}")
             for k in range(10)}
    new = {f"c{k}#1": "A" for k in range(10)}
    old = near_duplicates.Earlier("r1", True, {f"c{k}#1": "B" for k in range(10)})
    # the benchmark's own score moves on 10 items: scored, with each one-item domain hidden
    close = near_duplicates.check(new, [old], calls, groups, minimum=10, published=1)
    assert close == sorted(("b", "by_domain", f"d{k}") for k in range(10))
    assert near_duplicates.check(new, [old], calls, {k: [("b",)] for k in groups}, minimum=10, published=1) == []
    with pytest.raises(Refused, match="on only 9 b items"):  # nine changes: the benchmark's score would tell
        near_duplicates.check(new, [near_duplicates.Earlier("r1", True, {**old.responses, "c0#1": "A"})], calls,
                              groups, minimum=10, published=1)


def test_a_bucket_changed_on_too_few_items_is_published_without_its_score(stores, settings, suite_id, tmp_path,
                                                                           demo_dir):
    """Enough changes for ExAct's own score, but one in the Sports domain: that domain's
    score would tell how the one changed item was graded, so it is published without it."""
    settings = dataclasses.replace(settings, min_bucket_items=3, near_duplicate_items=3)
    suite = load_suite(demo_dir / "suite")
    groups = near_duplicates.item_groups(stores.suite, suite_id)
    a = lines_of(suite)
    submit_predictions(stores, settings, ALICE, write(tmp_path / "a.jsonl", a), "Vid-7B")
    exact = [c for c in suite.calls if c.benchmark == "exact"]
    sports_score = ("exact", "by_domain", "Sports")
    sports = next(c for c in exact if sports_score in groups[("exact", c.item)])
    others = [c for c in exact if sports_score not in groups[("exact", c.item)]][:5]
    changed = {c.id for c in [sports, *others]}
    b = [{**line, "response": "" if line["response"] else "A"} if line["id"] in changed else line for line in a]
    request = submit_predictions(stores, settings, ALICE, write(tmp_path / "b.jsonl", b), "Vid-7B v2")
    assert list(sports_score) in request.close_cells
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEADERBOARD_MIN_BUCKET_ITEMS", "3")
        from space_config.settings import get_settings
        get_settings.cache_clear()
        ran = [Worker(stores, settings).run_once() for _ in range(2)]
        get_settings.cache_clear()
    assert all(r.status == Status.FINISHED for r in ran)
    path = {r.id: r.result_path for r in ran}
    public = json.loads(stores.results.read(path[request.id]).data)["scores"]["exact"]
    assert public["by_domain"]["Sports"] is None and public["suppressed"]["by_domain"]["Sports"] >= 3
    earlier = next(i for i in path if i != request.id)
    first = json.loads(stores.results.read(path[earlier]).data)["scores"]["exact"]
    assert first["by_domain"]["Sports"] is not None  # the earlier file's own result is unchanged
