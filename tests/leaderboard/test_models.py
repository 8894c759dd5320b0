"""Model identity (leaderboard/models.py, leaderboard/reported_data/models.json): every paper
row resolves to one identity, distinct models never collapse, one model under several
names is one identity, and verified results find theirs by Hub id or display name."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from huggingface_hub.utils import HFValidationError, validate_repo_id

from leaderboard.models import (
    SCHEMA_VERSION,
    ModelTable,
    hub_url,
    load_models,
    resolve_hub_model,
    resolve_paper_row,
    resolve_prediction,
)
from leaderboard.reported import DATA_DIR, MODELS_FILE, ReportedDataError, load_reported


@pytest.fixture(scope="module")
def table() -> ModelTable:
    return load_models()


@pytest.fixture(scope="module")
def resolved(table):
    """(benchmark, row, identity) for every row of every paper."""
    return [(t.benchmark, r, resolve_paper_row(t.benchmark, r.model, r.thinking, r.frames, table))
            for t in load_reported() for r in t.rows]


def _raw() -> dict:
    return json.loads((DATA_DIR / MODELS_FILE).read_text())


def _write(tmp_path, identities, version=SCHEMA_VERSION):
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"schema_version": version, "identities": identities}))
    return path


# ------------------------------------------------------------------ the file

def test_the_file_parses_and_carries_its_schema_version(table):
    assert _raw()["schema_version"] == SCHEMA_VERSION == table.schema_version
    assert len(table.identities) == len(_raw()["identities"]) and table.notes


def test_a_wrong_schema_version_or_a_shared_display_is_refused(tmp_path):
    entry = {"key": "m", "name": "M", "names": {"exact": ["M"]}}
    with pytest.raises(ReportedDataError, match="schema_version"):
        load_models(_write(tmp_path, [entry], version=SCHEMA_VERSION + 1))
    with pytest.raises(ReportedDataError, match="display"):
        load_models(_write(tmp_path, [entry, {**entry, "key": "m2"}]))
    with pytest.raises(ReportedDataError, match="names"):
        load_models(_write(tmp_path, [{**entry, "names": {"no-such-benchmark": ["M"]}}]))


def test_every_hub_id_is_a_valid_repo_id(table):
    hub_ids = [i.hub_id for i in table.identities if i.hub_id]
    assert hub_ids
    for hub_id in hub_ids:
        validate_repo_id(hub_id)
        assert hub_id.count("/") == 1, hub_id
    with pytest.raises(HFValidationError):  # the check itself refuses a bad id
        validate_repo_id("not a/valid--id")


# ------------------------------------------------------------------ paper rows

def test_every_reported_row_resolves_to_exactly_one_identity(table, resolved):
    assert len(resolved) == sum(len(t.rows) for t in load_reported())
    for benchmark, row, identity in resolved:
        matching = [i for i in table.identities if row.model in i.paper_names(benchmark)
                    and (i.thinking is None or row.thinking is None or i.thinking == row.thinking)]
        assert matching == [identity], (benchmark, row.model, [i.key for i in matching])
        assert identity.kind == row.kind and identity.listed
        for alias in row.aliases:  # the paper's other spelling names the same identity
            assert resolve_paper_row(benchmark, alias, row.thinking, row.frames, table) == identity


def test_a_name_no_paper_prints_does_not_resolve(table):
    with pytest.raises(KeyError):
        resolve_paper_row("expvid", "GPT-4o", table=table)  # ExpVid has no GPT-4o row
    with pytest.raises(KeyError):  # printed twice, so the thinking field must tell which
        resolve_paper_row("expvid", "Gemini-2.5-Pro", table=table)


def test_the_table_lists_only_names_the_papers_print_and_every_entry_is_used(table, resolved):
    printed = {(t.benchmark, n) for t in load_reported() for r in t.rows for n in (r.model, *r.aliases)}
    for identity in table.identities:
        for benchmark, names in identity.names:
            assert {(benchmark, n) for n in names} <= printed, identity.key
    assert {i.key for _, _, i in resolved} == {i.key for i in table.identities}


def test_two_rows_of_one_paper_never_share_an_identity(resolved):
    keys = defaultdict(list)
    for benchmark, row, identity in resolved:
        keys[benchmark].append(identity.key)
    for benchmark, found in keys.items():
        assert len(found) == len(set(found)), benchmark


def test_an_identitys_rows_agree_on_size_and_openness(table, resolved):
    rows = defaultdict(list)
    for _, row, identity in resolved:
        rows[identity.key].append(row)
    for identity in table.identities:
        mine = rows[identity.key]
        assert len({r.params_b for r in mine if r.params_b is not None}) <= 1, identity.key
        assert len({r.open for r in mine}) == 1, identity.key
        if identity.hub_id:  # open weights only; a closed API model has none
            assert mine[0].open is True, identity.key
        elif mine[0].open:  # open weights without a Hub id: the table says why
            assert identity.notes, identity.key


def test_paper_names_are_unique_and_shared_only_between_variants(table):
    claims = defaultdict(list)
    for identity in table.identities:
        for benchmark, names in identity.names:
            assert len(names) == len(set(names)), identity.key
            for name in names:
                claims[benchmark, name].append(identity)
    for (benchmark, name), owners in claims.items():
        if len(owners) > 1:  # one model under several settings in one paper
            assert len({i.name for i in owners}) == 1, (benchmark, name)
            assert len({(i.thinking, i.frames) for i in owners}) == len(owners), (benchmark, name)
            assert None not in {i.thinking for i in owners}, (benchmark, name)


def test_distinct_hub_ids_never_share_an_identity(table):
    by_hub = defaultdict(list)
    for identity in table.identities:
        if identity.hub_id:
            by_hub[identity.hub_id.casefold()].append(identity)
    for hub_id, owners in by_hub.items():  # several only as variants of one model
        assert len({i.name for i in owners}) == 1, hub_id
        assert len({(i.thinking, i.frames) for i in owners}) == len(owners), hub_id
    by_name = defaultdict(set)
    for identity in table.identities:
        by_name[identity.name].add((identity.hub_id or "").casefold())
    assert all(len(hubs) == 1 for hubs in by_name.values())


@pytest.mark.parametrize("first, second", [
    (("expvid", "Qwen2.5-VL-72B-Instruct", None), ("videosimpleqa", "Qwen2.5-VL-72B", None)),
    (("expvid", "Qwen2.5-VL-72B-Instruct", None), ("causalstep", "Qwen2.5-VL-72B", None)),
    (("expvid", "Claude-Sonnet-4", None), ("videosimpleqa", "Claude Sonnet 4", None)),
    (("expvid", "Gemini-2.5-Pro", True), ("videosimpleqa", "Gemini 2.5 Pro", None)),
])
def test_one_model_under_two_papers_names_is_one_identity(table, first, second):
    a = resolve_paper_row(first[0], first[1], first[2], table=table)
    b = resolve_paper_row(second[0], second[1], second[2], table=table)
    assert a == b and first[1] != second[1]


def test_a_name_printed_by_two_papers_is_one_identity(resolved):
    printed_twice = {(b, r.model) for b, r, _ in resolved
                     if sum(1 for b2, r2, _ in resolved if (b2, r2.model) == (b, r.model)) > 1}
    by_name = defaultdict(set)
    for benchmark, row, identity in resolved:
        if (benchmark, row.model) not in printed_twice:
            by_name[row.model].add(identity.key)
    assert {n: keys for n, keys in by_name.items() if len(keys) > 1} == {}
    assert sum(1 for keys in by_name.values() if keys) > 10


def test_thinking_and_non_thinking_rows_are_two_identities(table, resolved):
    rows = defaultdict(list)
    for benchmark, row, identity in resolved:
        rows[benchmark, row.model].append((row, identity))
    pairs = {name for (_, name), found in rows.items() if len(found) > 1}
    assert {"Gemini-2.5-Pro", "Gemini-2.5-Flash", "MiMo-VL-7B-RL"} <= pairs
    for (benchmark, name), found in rows.items():
        if len(found) > 1:
            assert len({i.key for _, i in found}) == len(found)
            assert len({i.display for _, i in found}) == len(found)
            assert len({i.name for _, i in found}) == 1
            assert all(row.thinking == i.thinking for row, i in found)


# ------------------------------------------------------------------ verified results

def test_a_hub_id_and_a_thinking_setting_name_one_identity(table):
    for hub_id in {i.hub_id for i in table.identities if i.hub_id}:
        for thinking in (False, True):
            found = resolve_hub_model(hub_id.upper(), thinking, table)  # the Hub ignores case
            assert found.listed and found.hub_id == hub_id
    mimo = [i for i in table.identities if i.name.startswith("MiMo-VL")]
    assert mimo and mimo[0].hub_id
    think, plain = (resolve_hub_model(mimo[0].hub_id, t, table) for t in (True, False))
    assert think != plain and think.display != plain.display and (think.thinking, plain.thinking) == (True, False)


def test_a_hub_model_the_table_does_not_know_gets_its_own_identity(table):
    found = resolve_hub_model("some-org/Some-Model-7B", table=table)
    assert (found.listed, found.hub_id, found.display) == (False, "some-org/Some-Model-7B", "some-org/Some-Model-7B")
    assert found.key not in {i.key for i in table.identities}
    assert found.hub_url == "https://huggingface.co/some-org/Some-Model-7B"


def test_a_prediction_file_resolves_by_declared_hub_id_then_by_name(table):
    claude = resolve_paper_row("expvid", "Claude-Sonnet-4", table=table)
    assert resolve_prediction("  claude sonnet 4 ", table=table) == claude  # case and separators
    qwen = resolve_paper_row("exact", "Qwen2.5-VL-72B-Instruct", table=table)
    assert resolve_prediction("Claude Sonnet 4", hub_id=qwen.hub_id, table=table) == qwen  # the Hub id wins
    pro_off = resolve_paper_row("expvid", "Gemini-2.5-Pro", thinking=False, table=table)
    pro_on = resolve_paper_row("expvid", "Gemini-2.5-Pro", thinking=True, table=table)
    assert resolve_prediction("Gemini 2.5 Pro", thinking=False, table=table) == pro_off
    assert resolve_prediction("Gemini 2.5 Pro", thinking=True, table=table) == pro_on
    mine = resolve_prediction(" My Own Model ", table=table)
    assert (mine.listed, mine.display, mine.hub_id) == (False, "My Own Model", None)
    assert mine.key not in {i.key for i in table.identities}
    assert resolve_prediction("Human Expert", table=table).listed is False  # a baseline is not a model


def test_a_frames_variant_tells_rows_apart(tmp_path):
    entry = {"name": "M", "names": {"exact": ["M"]}}
    small = load_models(_write(tmp_path, [
        {**entry, "key": "m-16", "display": "M (16 frames)", "variant": {"frames": 16}},
        {**entry, "key": "m-32", "display": "M (32 frames)", "variant": {"frames": 32}},
    ]))
    assert resolve_paper_row("exact", "M", frames=32, table=small).key == "m-32"
    assert resolve_paper_row("exact", "M", frames=16, table=small).key == "m-16"
    with pytest.raises(KeyError):
        resolve_paper_row("exact", "M", table=small)


def test_hub_url():
    assert hub_url("Qwen/Qwen2.5-VL-7B-Instruct") == "https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct"
