"""What the Hub makes of our published data: the public suite repo's dataset card and
eval.yaml (evaluator/suite_card.py, written by worker/suites.py when a suite is published)
and the results repo's card (results/results_card.py, written with the table).

Real deployments: the demo suite published into a local store by the embedded first start
(and a second suite by `publish_with_baselines`), the cards read with PyYAML and the repos
loaded with `datasets.load_dataset` exactly as a user loads a local copy; and one round trip
through the Hub stand-in (tests/hub_standin.py) with the real huggingface_hub client.
"""

from __future__ import annotations

from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
import yaml
from conftest import SECRET

from evaluator.benchmarks import BENCHMARKS, exact
from evaluator.suite import build_suite, load_suite
from evaluator.benchmarks.hooks import DEFAULT_HEADLINE
from evaluator.suite_card import CARD_PATH, EVAL_PATH, EVALUATION_FRAMEWORK, headline
from results import aggregate, exports, results_card, table_format
from space_config.settings import get_settings
from submissions.stores import Stores
from worker.suites import first_start, publish_with_baselines

datasets.disable_progress_bars()


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A local deployment after its first start: the demo suite and its baselines."""
    monkeypatch.setenv("LEADERBOARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "50")
    get_settings.cache_clear()
    stores = Stores.local(tmp_path / "home")
    yield stores, first_start(stores)
    get_settings.cache_clear()


def front_matter(text: str) -> dict:
    """The YAML block a card opens with, as the Hub reads it."""
    assert text.startswith("---\n"), "a card opens with its YAML front matter"
    return yaml.safe_load(text.split("---\n", 2)[1])


def card(store) -> tuple[dict, str]:
    text = store.read(CARD_PATH).data.decode()
    return front_matter(text), text


def load(folder: Path, config: str | None, split: str, tmp_path: Path) -> datasets.Dataset:
    return datasets.load_dataset(str(folder), config, split=split, cache_dir=str(tmp_path / "datasets-cache"))


def config_paths(meta: dict) -> dict[str, str]:
    """Config name -> its one data file, each config with one split."""
    out = {}
    for config in meta["configs"]:
        (files,) = config["data_files"]
        out[config["config_name"]] = files["path"]
    return out


def build_official(tmp_path: Path) -> Path:
    """A second suite, named "official", holding ExAct only (a suite may hold any benchmarks)."""
    out = tmp_path / "official"
    build_suite(out, "official", "v1", [exact.demo(SECRET)], None, SECRET, write_videos=True)
    return out


# -- the results repo ----------------------------------------------------------------------------------

def test_the_results_repo_loads_with_datasets_as_the_worker_wrote_it(home, tmp_path):
    stores, suite_id = home
    root = stores.results.root
    table = aggregate.load_table(stores.results)
    assert datasets.get_dataset_config_names(str(root)) == ["demo", suite_id, results_card.ALL_CONFIG]

    rows = load(root, "demo", results_card.SPLIT, tmp_path)  # the suite by its name
    _, snapshot = exports.read_parquet(stores.results.read(exports.parquet_path(suite_id)).data)
    assert rows.num_rows == len(table) == 2 and rows.column_names == snapshot.column_names
    assert rows.column_names[:2] == ["rank", "band"]
    assert rows["id"] == snapshot["id"].to_pylist() and set(rows["id"]) == set(table["id"])
    assert rows["exact.overall"] == snapshot["exact.overall"].to_pylist()
    assert set(rows["suite_id"]) == {suite_id} and set(rows["source"]) == {"verified"}

    assert load(root, suite_id, results_card.SPLIT, tmp_path)["id"] == rows["id"]  # by its id
    everything = load(root, results_card.ALL_CONFIG, results_card.SPLIT, tmp_path)
    assert sorted(everything["id"]) == sorted(table["id"]) and "scores_json" in everything.column_names
    assert load(root, None, results_card.SPLIT, tmp_path)["id"] == rows["id"]  # the default


def test_the_results_card_names_its_configs_licence_suites_and_every_column(home):
    stores, suite_id = home
    meta, text = card(stores.results)
    assert meta["license"] == results_card.LICENSE and "leaderboard" in meta["tags"]
    paths = config_paths(meta)
    assert paths == {"demo": exports.parquet_path(suite_id), suite_id: exports.parquet_path(suite_id),
                     "all": table_format.TABLE_PATH}
    assert [c["config_name"] for c in meta["configs"] if c.get("default")] == ["demo"]
    assert all(stores.results.read(path) is not None for path in paths.values())
    assert f"| `demo` | `{suite_id}` | demo | v1 | 2 |" in text and "How rows are verified" in text

    # every column of the table and of the snapshot is described, by name or by its family
    named = {n.strip() for key in results_card.COLUMNS for n in key.split(",") if "<" not in n and "*" not in n}
    families = ("blind.", "cost.", "protocol_", "runner.", "meta.")
    columns = pq.read_schema(stores.results.root / exports.parquet_path(suite_id)).names
    undescribed = [c for c in columns if c not in named and not c.startswith(families)
                   and c.split(".")[0] not in BENCHMARKS]
    assert not undescribed, f"columns the card does not describe: {undescribed}"
    assert set(table_format.META_COLUMNS) <= named


def test_the_card_is_written_in_the_tables_own_step(home):
    """One writer: every change of the table writes the card with it (one commit on the Hub)."""
    stores, suite_id = home
    writes = []
    inner = stores.results.write_files

    def recording(files, expected=None, message=""):
        writes.append(list(files))
        return inner(files, expected, message)

    stores.results.write_files = recording
    aggregate.rebuild(stores.results)
    assert len(writes) == 1 and {results_card.CARD_PATH, aggregate.TABLE_PATH} <= set(writes[0])
    assert writes[0][-1] == aggregate.TABLE_PATH


# -- the suite repo ------------------------------------------------------------------------------------

def test_the_suite_card_and_eval_yaml_parse_and_the_calls_load(home, tmp_path):
    stores, suite_id = home
    meta, text = card(stores.suite)
    assert meta["license"] == "other" and meta["license_name"]
    assert "video-text-to-text" in meta["task_categories"] and "benchmark" in meta["tags"]
    assert config_paths(meta) == {"demo": f"{suite_id}/calls.jsonl", suite_id: f"{suite_id}/calls.jsonl"}
    assert "version v1" in text and all(module.TITLE in text for module in BENCHMARKS.values())
    assert "How to submit" in text and "answers" in text.lower()

    spec = yaml.safe_load(stores.suite.read(EVAL_PATH).data)
    assert set(spec) == {"name", "description", "evaluation_framework", "tasks"}  # the Hub's fields only
    assert spec["evaluation_framework"] == EVALUATION_FRAMEWORK
    assert spec["tasks"] == [{"id": name, "config": "demo", "split": "test"} for name in BENCHMARKS]
    assert all(headline(name) in " ".join(spec["description"].split()) for name in BENCHMARKS)

    calls = load(stores.suite.root, "demo", "test", tmp_path)
    suite = load_suite(stores.suite.local_folder(suite_id))
    assert calls["id"] == [c.id for c in suite.calls] and set(calls["benchmark"]) == set(BENCHMARKS)
    assert not {"answer", "gold"} & set(calls.column_names)


def test_a_second_suite_joins_both_cards_and_becomes_their_headline(home, tmp_path):
    stores, demo_id = home
    official_id, scored = publish_with_baselines(stores, build_official(tmp_path))
    assert scored and official_id.startswith("official-v1-")

    meta, _ = card(stores.suite)
    assert [c["config_name"] for c in meta["configs"]][0] == "official" and meta["configs"][0]["default"]
    assert set(config_paths(meta)) == {"official", "demo", official_id, demo_id}
    spec = yaml.safe_load(stores.suite.read(EVAL_PATH).data)
    assert spec["tasks"] == [{"id": "exact", "config": "official", "split": "test"}]  # the benchmarks it holds
    assert len(load(stores.suite.root, "official", "test", tmp_path)) == len(exact.demo(SECRET).questions)
    assert set(load(stores.suite.root, "demo", "test", tmp_path)["benchmark"]) == set(BENCHMARKS)

    meta, text = card(stores.results)
    assert meta["configs"][0]["config_name"] == "official" and meta["configs"][0]["default"]
    official = load(stores.results.root, "official", results_card.SPLIT, tmp_path)
    assert set(official["suite_id"]) == {official_id} and official.num_rows == 2
    assert set(load(stores.results.root, "demo", results_card.SPLIT, tmp_path)["suite_id"]) == {demo_id}
    assert f"`{official_id}` | official | v1 |" in text


def test_a_store_published_before_cards_gets_its_suite_card_at_the_next_start(home):
    stores, _ = home
    for path in (CARD_PATH, EVAL_PATH):
        stores.suite.delete(path)
    first_start(stores)
    assert stores.suite.read(CARD_PATH) is not None and stores.suite.read(EVAL_PATH) is not None


# -- through the Hub --------------------------------------------------------------------------------------

def test_publishing_over_the_hub_writes_the_cards_and_a_copy_of_the_repo_loads(hub_standin, tmp_path, demo_dir,
                                                                                   monkeypatch):
    monkeypatch.setenv("LEADERBOARD_BOOTSTRAP_SAMPLES", "50")
    get_settings.cache_clear()
    stores = hub_standin.stores("org", cache_dir=tmp_path / "cache")
    suite_id, _ = publish_with_baselines(stores, demo_dir)

    suite_files = hub_standin.files(stores.suite.repo_id)
    results_files = hub_standin.files(stores.results.repo_id)
    assert {CARD_PATH, EVAL_PATH} <= set(suite_files) and CARD_PATH in results_files
    assert f'load_dataset("{stores.suite.repo_id}", "demo", split="test")' in suite_files[CARD_PATH].decode()
    assert f'load_dataset("{stores.results.repo_id}", "demo"' in results_files[CARD_PATH].decode()
    assert yaml.safe_load(suite_files[EVAL_PATH])["tasks"][0] == {"id": "expvid", "config": "demo", "split": "test"}
    # the card landed in the commit that wrote the table, not in one of its own
    last = hub_standin.history(stores.results.repo_id)[0]
    assert {CARD_PATH, aggregate.TABLE_PATH} <= set(last.tree) and "table row" in last.message

    copy = stores.results.local_folder("")  # the repo as the real client downloads it
    rows = load(copy, "demo", results_card.SPLIT, tmp_path)
    assert set(rows["suite_id"]) == {suite_id} and rows.num_rows == 2
    calls = load(stores.suite.local_folder(""), "demo", "test", tmp_path)
    assert calls.num_rows == sum(1 for line in (demo_dir / "suite" / "calls.jsonl").open() if line.strip())
    get_settings.cache_clear()


def test_the_cards_name_only_what_is_published():
    """No suite, no card; no exports index, no results card (a config must name files that exist)."""
    from evaluator.suite_card import card_files

    with pytest.raises(ValueError):
        card_files({})
    assert results_card.card_files(None, None) == {}
    assert results_card.parse_suite_id("my-suite-v2-0123456789ab") == ("my-suite", "v2")
    assert results_card.parse_suite_id("odd") == ("odd", "")
    # each benchmark says in its own folder what its headline score is (a new one gets the default)
    assert all(headline(name) != DEFAULT_HEADLINE for name in BENCHMARKS)
