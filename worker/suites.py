"""Suites in the stores: publishing a built suite (public part and answer key apart, the
suite repo's dataset card and eval.yaml written again, then the built-in baselines scored
on it), and the embedded default's first start (demo suite, and the baselines on every
published suite)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from evaluator.baselines import BASELINES, predictions
from evaluator.judges import get_judge
from evaluator.paired import paired_path
from evaluator.paired import record as paired_record
from evaluator.predictions import as_responses
from evaluator.protocol_card import PROTOCOL_SCHEMA_VERSION
from evaluator.records import ScoringOptions
from evaluator.scoring import make_result, score_responses
from evaluator.suite import ANSWERS_DIR, SUITE_DIR, load_answers, load_suite
from evaluator.suite_card import CARD_PATH
from results import aggregate
from submissions.stores import Stores
from submissions.stores.sharded import read_sharded
from submissions.suites import DEMO_PREFIX, newest, published_suites, suite_manifest


def publish_suite(stores: Stores, folder: Path) -> str:
    """Upload a suite built by `python -m evaluator demo-suite|import` (the folder
    holding suite/ and answers/): the public part to the suite store, the answer key
    to the answers store, each under the suite id. Returns the id."""
    folder = Path(folder)
    suite = load_suite(folder / SUITE_DIR)
    load_answers(folder / ANSWERS_DIR, suite)  # refuses a key of another suite
    stores.answers.upload_folder(suite.id, folder / ANSWERS_DIR, message=f"Answer key of {suite.id}")
    stores.suite.upload_folder(suite.id, folder / SUITE_DIR, message=f"Suite {suite.id}")
    write_suite_card(stores)
    return suite.id


def write_suite_card(stores: Stores) -> list[str]:
    """The suite repo's dataset card (README.md) and eval.yaml, naming every published
    suite (evaluator/suite_card.py), in one step; the paths written."""
    from evaluator.suite_card import card_files

    manifests = {s: suite_manifest(stores.suite, s) for s in published_suites(stores.suite)}
    files = card_files(manifests, getattr(stores.suite, "repo_id", None))
    stores.suite.write_files(files, message="Dataset card and eval.yaml of the published suites")
    return list(files)


def ensure_demo_suite(stores: Stores) -> str:
    """The demo suite's id, building and publishing one (with a fresh secret) when the
    store holds none made by the current demo generator."""
    from evaluator.demo import build_demo_suite, demo_fingerprint

    current = demo_fingerprint()
    made_now = [s for s in published_suites(stores.suite)
                if s.startswith(DEMO_PREFIX) and suite_manifest(stores.suite, s).get("generator") == current]
    if made_now:
        return newest(stores.suite, made_now)
    with tempfile.TemporaryDirectory() as tmp:
        built = build_demo_suite(Path(tmp)).id
        publish_suite(stores, Path(tmp))
    return built


def ensure_baselines(stores: Stores, suite_id: str, judge_name: str = "normalized-match") -> list[str]:
    """Score the built-in baselines on a suite once, as verified rows of the table, with
    their per-video statistics for comparisons in the private store (also added to a
    store whose baselines were scored before comparisons existed)."""
    missing = [name for name in BASELINES if _stale(stores, baseline_id(name, suite_id))]
    if not missing:
        return []
    suite = load_suite(stores.suite.local_folder(suite_id))
    key = load_answers(stores.answers.local_folder(suite_id), suite)
    judge = get_judge(judge_name)
    for name in missing:
        responses = as_responses(predictions(name, suite.calls))
        collected: dict = {}
        scores, counts = score_responses(suite, key, responses, judge, paired=collected)
        result = make_result(suite, scores, counts, judge, ScoringOptions(),
                             {"id": baseline_id(name, suite_id), "kind": "baseline",
                              "model": f"Baseline: {name}", "submitter": "leaderboard"},
                             runner={"name": f"baseline:{name}", "seed": 0})
        stats = paired_record(result, collected, samples=1000)
        stores.private.write(paired_path(stats.submission_id), stats.model_dump_json().encode(),
                             message=f"Per-video statistics of {stats.submission_id} (private)")
        aggregate.publish(stores.results, result)
    return missing


def _stale(stores: Stores, result_id: str) -> bool:
    """A baseline to score (again): none yet, none of its comparison statistics, or scored
    under an earlier reference protocol (its card's schema is older than today's)."""
    found = read_sharded(stores.results, aggregate.result_path(result_id))[1]
    if found is None or read_sharded(stores.private, paired_path(result_id))[1] is None:
        return True
    card = json.loads(found.data).get("protocol") or {}
    return int(card.get("schema_version") or 0) < PROTOCOL_SCHEMA_VERSION


def baseline_id(name: str, suite_id: str) -> str:
    return f"baseline-{name}-{suite_id}"


def first_start(stores: Stores) -> str:
    """The embedded default's first start: demo suite published, the baselines scored on it
    and on every other published suite that lacks them (a new suite is never empty)."""
    suite_id = ensure_demo_suite(stores)
    for published in published_suites(stores.suite):
        ensure_baselines(stores, published)
    if stores.suite.read(CARD_PATH) is None:  # a store from before suites had a card
        write_suite_card(stores)
    return suite_id


def publish_with_baselines(stores: Stores, folder: Path) -> tuple[str, list[str]]:
    """Publish a built suite and score the built-in baselines on it, so its board opens with
    rows; the suite id and the baselines scored now."""
    suite_id = publish_suite(stores, folder)
    return suite_id, ensure_baselines(stores, suite_id)

