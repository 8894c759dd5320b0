"""The papers' reported rows as a download (leaderboard/reported_export.py): every row the
site shows badged "📄 ... paper", with the paper, table and citation fields of its data file
(tests/leaderboard/test_site_downloads.py fetches the same bytes over HTTP from the real site)."""

from __future__ import annotations

import json

from evaluator.benchmarks import ORDER
from leaderboard import reported, reported_export
from leaderboard.views import REPORTED_SUITE


def document() -> dict:
    return json.loads(reported_export.document())


def data_files() -> dict[str, dict]:
    files = (json.loads(p.read_text()) for p in reported.reported_files())
    return {f["benchmark"]: f for f in files}


def test_every_row_the_site_shows_is_in_it_once_with_its_id():
    results = document()["results"]
    shown = [row["id"] for row in reported.reported_rows(REPORTED_SUITE)]
    assert [r["id"] for r in results] == shown and len(set(shown)) == len(shown)
    assert document()["rows"] == len(results) == sum(len(f["rows"]) for f in data_files().values())


def test_each_row_carries_its_paper_table_and_citation_as_the_data_file_has_them():
    files = data_files()
    rows = {name: iter(f["rows"]) for name, f in files.items()}
    for record in document()["results"]:
        source = files[record["benchmark"]]
        raw = next(rows[record["benchmark"]])
        paper = source["paper"]
        assert record["paper"]["title"] == paper["title"] and record["paper"]["arxiv"] == paper.get("arxiv")
        assert record["paper"]["version"] == paper.get("version")
        assert paper["title"] in record["paper"]["citation"]
        assert record["table"] == raw.get("table", source["table"]) and record["judge"] == source["judge"]
        assert record["model"] == raw["model"] and record["scores"] == raw["scores"]
        assert record["row_kind"] == raw["kind"] and record["aliases"] == raw.get("aliases", [])
        assert "rank" not in record and "band" not in record  # never ranked beside ours


def test_the_papers_are_listed_with_their_notes_and_the_model_table_is_not():
    papers = document()["papers"]
    files = data_files()
    assert [p["benchmark"] for p in papers] == ORDER == list(files)
    for paper in papers:
        source = files[paper["benchmark"]]
        assert paper["notes"] == source["notes"] and paper["derived"] == source.get("derived", {})
        assert paper["table"] == source["table"]
    assert "models" not in {r["benchmark"] for r in document()["results"]}


def test_its_version_changes_exactly_with_the_rows():
    tables = reported.load_reported()
    data, version = reported_export.build(tables)
    assert data == reported_export.document() and version == reported_export.version()
    assert json.loads(data)["table_version"] == version and json.loads(data)["kind"] == reported_export.KIND
    assert reported_export.build(tables[:2])[1] != version
