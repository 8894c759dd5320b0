"""The Models view (leaderboard/views/models.py): one row per model across the papers and
our verified runs, a cell per benchmark, ranks within the column sorted by."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leaderboard import models, views
from leaderboard.views import models as model_views

QWEN = "Qwen/Qwen2.5-VL-72B-Instruct"


@pytest.fixture(scope="module")
def papers() -> pd.DataFrame:
    return views.prepare(views.select_suite(pd.DataFrame(), views.REPORTED_SUITE))


def verified(*rows: dict) -> pd.DataFrame:
    """Prepared-board-like verified rows: only the columns the view reads."""
    base = {"source_kind": "verified", "ranked": True, "thinking_text": "", "kind": "predictions",
            "suite_id": "official-v1"}
    return pd.DataFrame([base | r for r in rows])


def row_of(rows, display: str) -> model_views.ModelRow:
    return next(r for r in rows if r.identity.display == display)


def test_every_paper_row_with_a_score_lands_in_one_model_row(papers):
    rows = model_views.model_rows(papers)
    cells = sum(len(r.reported) for r in rows)
    scored = int(papers[[f"{b}.overall" for b in views.BENCHMARKS]].notna().to_numpy().sum())
    assert cells == scored  # nothing dropped, nothing counted twice
    assert len({r.identity.key for r in rows}) == len(rows)
    qwen = next(r for r in rows if r.identity.hub_id == QWEN)
    assert len(qwen.reported) >= 2  # several papers, one row


def test_a_verified_file_naming_its_hub_model_joins_that_models_row(papers):
    scores = {f"{b}.overall": 40.0 + i for i, b in enumerate(views.BENCHMARKS)}
    mine = verified({"id": "sub-1", "model": "my qwen run", "meta.hub_id": QWEN, **scores})
    rows = model_views.model_rows(papers, mine)
    qwen = next(r for r in rows if r.identity.hub_id == QWEN)
    assert qwen.verified == {b: 40.0 + i for i, b in enumerate(views.BENCHMARKS)}
    assert qwen.average == round(sum(qwen.verified.values()) / 5, 2)  # all five verified: an Average
    shown = model_views.model_view(rows, "ExpVid", search="qwen2.5-vl-72b")
    text = shown.attrs["display"]
    assert len(shown) == 1 and "✓" in text["ExpVid"][0]
    both = [t for b, t in zip(views.BENCHMARKS, (text[views.TITLES[b]][0] for b in views.BENCHMARKS))
            if b in qwen.reported]
    assert all("✓" in t and "📄" in t for t in both)  # the paper's number beside ours
    assert shown.loc[0, views.MODEL] == f"[{qwen.identity.display}](https://huggingface.co/{QWEN})"
    assert views.AVERAGE in shown.columns and model_views.sort_choices(rows)[-1] == views.AVERAGE


def test_ranks_follow_the_sorted_column_and_ties_share_a_rank():
    table = models.load_models()
    pick = [i for i in table.identities if i.kind == "model"][:3]
    human = next(i for i in table.identities if i.kind == "human")
    rows = [model_views.ModelRow(pick[0], reported={"exact": 50.0}),
            model_views.ModelRow(pick[1], reported={"exact": 50.0, "expvid": 10.0}),
            model_views.ModelRow(pick[2], reported={"expvid": 30.0}),
            model_views.ModelRow(human, reported={"exact": 90.0})]
    by_exact = model_views.model_view(rows, "ExAct")
    assert list(by_exact["Model"])[0] == human.display and by_exact.attrs["display"]["Rank"][0] == "—"
    assert list(by_exact["Rank"].iloc[1:3]) == [1, 1]  # a tie shares rank 1
    assert pd.isna(by_exact["Rank"].iloc[3])  # no ExAct score: unranked, last
    by_expvid = model_views.model_view(rows, "ExpVid")
    assert model_views.model_names(by_expvid)[:2] == [pick[2].display, pick[1].display]
    assert list(by_expvid["Rank"].iloc[:2]) == [1, 2]
    assert views.AVERAGE not in by_expvid.columns  # no row has five verified scores
    assert np.isnan(by_expvid.loc[0, "ExAct"])


def test_the_default_column_is_the_one_with_the_most_models(papers):
    rows = model_views.model_rows(papers)
    counts = {views.TITLES[b]: sum(r.score(b) is not None for r in rows) for b in views.BENCHMARKS}
    assert model_views.default_sort(rows) == max(counts, key=counts.get)


def test_a_search_shows_each_model_with_its_rank_in_the_whole_list():
    table = models.load_models()
    pick = [i for i in table.identities if i.kind == "model"][:3]
    rows = [model_views.ModelRow(i, reported={"exact": score}) for i, score in zip(pick, (70.0, 60.0, 50.0))]
    found = model_views.model_view(rows, "ExAct", search=pick[2].display)
    assert model_views.model_names(found) == [pick[2].display]
    assert list(found["Rank"]) == [3]  # third of three, not first of the one shown
    assert found.attrs["total"] == 3 and model_views.model_view(rows, "ExAct").attrs["total"] == 3


def test_our_built_in_baselines_are_shown_but_never_ranked(papers):
    scores = {f"{b}.overall": 99.0 for b in views.BENCHMARKS}  # above every model: it would rank first
    mine = verified({"id": "baseline-random", "model": "Baseline: random", "kind": "baseline", **scores})
    rows = model_views.model_rows(papers, mine)
    shown = model_views.model_view(rows, "ExpVid")
    at = model_views.model_names(shown).index("Baseline: random")
    assert pd.isna(shown["Rank"].iloc[at]) and shown.attrs["display"]["Rank"][at] == "—"
    assert list(shown["Rank"].dropna())[0] == 1  # the best model is still first
    # on a demo suite its number is of synthetic videos: said as for any run there
    demo = model_views.model_rows(papers, verified({"id": "baseline-random", "model": "Baseline: random",
                                                    "kind": "baseline", "suite_id": "demo-v1-abc", **scores}))
    shown = model_views.model_view(demo, "ExpVid")
    assert shown.attrs["display"]["Rank"][model_views.model_names(shown).index("Baseline: random")] == "demo"
    human = next(i for i, r in enumerate(model_views.model_names(shown)) if r.startswith("Human"))
    assert shown.attrs["display"]["Rank"][human] == "—"  # a paper's people stay a reference point


def test_verified_numbers_not_comparable_with_the_papers_are_shown_unranked(papers):
    """A demo suite's run and a run off the protocol: each shown, sorted by its number, never
    ranked among the papers' numbers; a model the paper reports is ranked by the paper's."""
    high = {f"{b}.overall": 99.0 for b in views.BENCHMARKS}  # above every model: it would rank first
    for suite, ranked, mark in (("demo-v1-abc", True, "demo"), ("official-v1", False, "≠")):
        mine = verified({"id": "sub-new", "model": "brand-new-model", "suite_id": suite, "ranked": ranked, **high},
                        {"id": "sub-qwen", "model": "my qwen", "meta.hub_id": QWEN, "suite_id": suite,
                         "ranked": ranked, **high})
        rows = model_views.model_rows(papers, mine)
        shown = model_views.model_view(rows, "ExpVid")
        names, text = model_views.model_names(shown), shown.attrs["display"]
        new = names.index("brand-new-model")
        assert new == 0 and pd.isna(shown["Rank"].iloc[new]) and text["Rank"][new] == mark, (suite, text["Rank"][new])
        assert text["ExpVid"][new] == ("99.00 ✓" if ranked else "99.00 ✓≠")
        qwen = next(r for r in rows if r.identity.hub_id == QWEN)
        at = names.index(qwen.identity.display)
        paper = qwen.reported["expvid"]
        assert shown.loc[at, "ExpVid"] == paper and text["ExpVid"][at].startswith(f"{paper:.2f} 📄 · ✓")
        assert shown["Rank"].iloc[at] == 1 + sum(v > paper for v in (r.reported.get("expvid") for r in rows
                                                                   if r.identity.kind == "model") if v is not None)
        assert list(shown["Rank"].dropna())[0] == 1  # the best paper-reported model is still first
        assert views.AVERAGE not in model_views.sort_choices(rows)  # these Averages rank nothing
    # a demo run with no number in the column ranked by still says it is one (a paper's model there is blank)
    half = verified({"id": "sub-half", "model": "half-model", "suite_id": "demo-v1-abc", "ranked": True,
                     "expvid.overall": 20.0})
    shown = model_views.model_view(model_views.model_rows(papers, half), "ExAct")
    at = model_views.model_names(shown).index("half-model")
    assert pd.isna(shown["Rank"].iloc[at]) and shown.attrs["display"]["Rank"][at] == "demo"


def test_the_line_above_says_why_this_column_and_what_is_not_ranked(papers):
    rows = model_views.model_rows(papers)
    opened = model_views.model_view(rows)
    note = model_views.models_note(opened, official=False)
    assert f"ranked by **{opened.attrs['sort_by']}** only, the benchmark with the most models scored" in note
    assert "no rank across benchmarks" in note  # the first page is not an overall ranking
    assert "**demo** runs on this demo suite" in note and "**≠**" in note and "**—**" in note
    baselines = sum(r.identity.kind != "model" for r in rows)
    assert note.startswith(f"{len(rows) - baselines} models and {baselines} baselines, ranked by")
    other = next(c for c in model_views.SCORE_COLUMNS if c != opened.attrs["sort_by"])
    picked = model_views.models_note(model_views.model_view(rows, other), official=True)
    assert f"ranked by **{other}** only ·" in picked and "demo" not in picked
    legend = model_views.models_legend("✓ Demo suite (demo-v1)", official=False)
    assert "**demo**: a run on Demo suite (demo-v1), our built-in baselines' too, shown unranked here" in legend
    assert "ExpVid's and CausalStep's overall: computed from the paper's numbers" in legend  # as their tables say
    assert "demo" not in model_views.models_legend("✓ official-v1", official=True)


def test_a_number_the_offline_matcher_graded_is_not_ranked_beside_the_papers_judges(papers):
    """On an official suite at the reference protocol: a judged benchmark the matcher graded
    is shown ≠, unranked (the papers used a language model); one a language model graded ranks."""
    import json

    card = json.dumps({"judge": {"id": "set", "kind": "judge-set", "by_benchmark": {
        "videosimpleqa": {"id": "match", "kind": "normalized-match"}, "expvid": {"id": "gpt", "kind": "llm"}}}})
    high = {f"{b}.overall": 99.0 for b in views.BENCHMARKS}
    rows = model_views.model_rows(papers, verified({"id": "sub-new", "model": "brand-new-model",
                                                   "protocol_card": card, **high}))
    by_vsqa = model_views.model_view(rows, "Video SimpleQA")
    at = model_views.model_names(by_vsqa).index("brand-new-model")
    assert pd.isna(by_vsqa["Rank"].iloc[at]) and by_vsqa.attrs["display"]["Rank"][at] == "≠"
    assert by_vsqa.attrs["display"]["Video SimpleQA"][at] == "99.00 ✓≠"
    by_expvid = model_views.model_view(rows, "ExpVid")
    at = model_views.model_names(by_expvid).index("brand-new-model")
    assert by_expvid["Rank"].iloc[at] == 1 and by_expvid.attrs["display"]["ExpVid"][at] == "99.00 ✓"
    assert views.AVERAGE not in model_views.sort_choices(rows)  # one of its five is not comparable
    plain = model_views.model_rows(papers, verified({"id": "sub-llm", "model": "brand-new-model", "judge_kind": "llm",
                                                     **high}))
    assert model_views.model_view(plain, "Video SimpleQA")["Rank"].iloc[0] == 1
    assert views.AVERAGE in model_views.sort_choices(plain)


def test_a_verified_number_that_counts_unanswered_calls_is_marked(papers):
    """A prediction file that left ExpVid calls unanswered: its ExpVid number (and the
    Average) carries the mark, the note names it; a fully answered benchmark does not."""
    high = {f"{b}.overall": 99.0 for b in views.BENCHMARKS}
    counts = {"expvid.n_calls": 60, "expvid.n_answered": 13, "exact.n_calls": 22, "exact.n_answered": 22}
    rows = model_views.model_rows(papers, verified({"id": "sub-half", "model": "half-model", "judge_kind": "llm",
                                                   **high, **counts}))
    shown = model_views.model_view(rows, "ExpVid")
    at = model_views.model_names(shown).index("half-model")
    text = shown.attrs["display"]
    assert text["ExpVid"][at] == "99.00 ✓◐" and text["ExAct"][at] == "99.00 ✓"
    assert text[views.AVERAGE][at] == "99.00 ✓◐"
    assert "**◐** calls left unanswered" in model_views.models_note(shown, official=True)
    assert "◐" not in model_views.models_note(model_views.model_view(model_views.model_rows(papers)), official=True)
    legend = model_views.models_legend("✓ official-v1", official=True)
    assert "**◐**: some of the benchmark's calls were never answered" in legend


def test_a_search_finds_a_model_however_a_paper_spells_it(papers):
    rows = model_views.model_rows(papers)
    for spelled in ("gemini 2.5 pro", "Gemini-2.5-Pro", "GEMINI2.5PRO"):
        names = model_views.model_names(model_views.model_view(rows, search=spelled))
        assert names and all("Gemini 2.5 Pro" in n for n in names), (spelled, names)
    assert "GPT-4o" in model_views.model_names(model_views.model_view(rows, search="gpt 4o"))
    found = model_views.model_names(model_views.model_view(rows, search="o3"))
    assert "o3" in found and not any("Video-34B" in n for n in found)  # not "vide-o3-4b"


def test_the_names_table_shows_which_papers_rows_each_model_joins(papers):
    table = models.load_models()
    lines = [line for line in model_views.names_table(table).splitlines() if line.startswith("| ")]
    header, body = lines[0], lines[1:]
    assert header == "| Model | ExpVid | CausalStep | ExAct | Video-MMMU | Video SimpleQA | Note |"
    # one line per model of the Models page, each with a cell per benchmark and the note
    shown = {r.identity.display for r in model_views.model_rows(papers)}
    assert len(body) == len(table.identities) and shown <= {line.split(" | ")[0][2:] for line in body}
    gpt = next(line for line in body if line.startswith("| GPT-4o |")).split(" | ")
    assert gpt[2] == "GPT-4o-2024-11-20" and gpt[3] == "GPT-4o" and "snapshot" in gpt[6]  # the dated row it joins
    assert all(line.count(" | ") == 6 for line in body)  # no name or note breaks a row (escaped "|")
    odd = models.ModelTable(schema_version=1, notes=(), identities=(models.Identity(
        key="x", name="A|B", display="A|B", names=(("exact", ("A|B [v2]",)),)),))
    assert model_views.names_table(odd).splitlines()[-1] == "| A&#124;B |  |  | A&#124;B &#91;v2&#93; |  |  |  |"


def test_the_leaderboard_search_finds_a_papers_row_by_its_models_page_name(papers):
    table = views.leaderboard_table(papers)
    rows = model_views.model_rows(papers)
    flash = row_of(rows, "Gemini 2.5 Flash (thinking)")  # the Models page's name: no paper prints it
    assert not papers["model"].eq(flash.identity.display).any()
    found = views.filter_rows(table, views.Filters(search=flash.identity.display))
    # every paper row the Models row joins, each as its paper prints it, and not the other variant
    assert set(found["model"]) == {n for _, names in flash.identity.names for n in names}
    assert not found[views.MODEL].str.contains("no thinking").any()
    # a search by a paper's own spelling still works as before
    assert len(views.filter_rows(table, views.Filters(search="Gemini-2.5-Flash"))) > len(found)
