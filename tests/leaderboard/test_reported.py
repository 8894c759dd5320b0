"""The papers' reported results (leaderboard/reported.py, each benchmark folder's reported.json):
the transcription against the papers' tables, the papers' own arithmetic, and the flat rows."""

from __future__ import annotations

import json

import pytest

from leaderboard.reported import (
    FLAT_KEYS,
    ReportedDataError,
    ReportedTable,
    load_reported,
    load_table,
    reported_rows,
)

# ExpVid: 22 model rows (19 models, 3 with and without thinking) + Human.
# Video-MMMU: Random + Human Expert + 15 models (Qwen2-VL is named but has no row).
ROW_COUNTS = {"expvid": 23, "causalstep": 17, "exact": 11, "videommmu": 17, "videosimpleqa": 40}
EXACT_N = {"Sports": 1569, "Bike Repair": 309, "Cooking": 365, "Health": 364, "Music": 475, "Dance": 439}


@pytest.fixture(scope="module")
def tables() -> dict[str, ReportedTable]:
    return {t.benchmark: t for t in load_reported()}


def test_every_file_loads_in_benchmark_order(tables):
    from evaluator.benchmarks import ORDER

    assert [t.benchmark for t in load_reported()] == ORDER  # every benchmark's folder has its paper's table
    for t in tables.values():
        assert t.paper.title and t.table and t.judge and t.notes
        assert {r.kind for r in t.rows} <= {"model", "human", "random"}


@pytest.mark.parametrize("benchmark, count", sorted(ROW_COUNTS.items()))
def test_row_counts(tables, benchmark, count):
    assert len(tables[benchmark].rows) == count


def test_row_kinds_and_baselines(tables):
    kinds = {b: sorted(r.model for r in t.rows if r.kind != "model") for b, t in tables.items()}
    assert kinds == {
        "expvid": ["Human Performance"],
        "causalstep": ["Human"],
        "exact": ["Human Expert", "Human Non-Expert", "Random Choice"],
        "videommmu": ["Human Expert", "Random Choice"],
        "videosimpleqa": ["Human Closed-book", "Human Open-book"],
    }
    names = [r.model for r in tables["causalstep"].rows]
    assert not any(n.startswith(("Best", "Maximum")) for n in names)


def test_judges_and_papers(tables):
    assert tables["expvid"].judge == "Phi-3-mini (paper)"
    assert tables["videosimpleqa"].judge == "o3 (paper)"
    for b in ("causalstep", "exact", "videommmu"):
        assert tables[b].judge == "none (rule-based)"
    assert (tables["exact"].paper.arxiv, tables["exact"].paper.version) == ("2506.06277", "v1")
    assert (tables["videommmu"].paper.arxiv, tables["videommmu"].paper.version) == ("2501.13826", "v1")
    assert (tables["videosimpleqa"].paper.arxiv, tables["videosimpleqa"].paper.version) == ("2503.18923", "v2")


# ------------------------------------------------------------------ spot checks against the specs

def test_expvid_cells(tables):
    t = tables["expvid"]
    gpt5 = t.row("GPT-5")
    assert gpt5.scores["level3"] == 56.4 and gpt5.scores["generation"] == 66.9
    assert gpt5.thinking is True and gpt5.open is False and gpt5.frames == 128
    flash_think, flash = t.row("Gemini-2.5-Flash", thinking=True), t.row("Gemini-2.5-Flash", thinking=False)
    assert (flash_think.scores["level1"], flash.scores["level1"]) == (60.2, 58.6)
    assert t.row("Qwen2.5-VL-72B-Instruct").scores["prediction"] == 0.3
    assert t.row("InternVL3-78B").scores["level2"] == 41.9 and t.row("InternVL3-78B").params_b == 78
    assert t.row("Intern-S1").scores["level2"] == 36.0  # published, although tasks imply ~41.6
    assert t.row("MiMo-VL-7B-RL", thinking=True).frames == 512
    assert t.row("Seed1.5-VL").model == "Seed-VL-1.5" and t.row("Seed-VL-1.5").frames == 256
    assert t.row("Claude-Sonnet-4").frames == 96
    kimi = t.row("Kimi-VL-A3B-Thinking")
    assert kimi.params_b is None and kimi.open is True
    assert t.row("Keye-VL-1.5-8B").params_b == 8
    human = t.row("Human Performance")
    assert human.scores["level1"] == 37.6 and human.scores["verification"] == 45.6
    assert not {"analysis", "discovery", "level3", "overall"} & set(human.scores)


def test_causalstep_cells(tables):
    t = tables["causalstep"]
    o4 = t.row("o4-mini-2025-04-16")
    assert o4.scores["ws"] == 55.06 and o4.scores["csr"] == 51 and o4.scores["rf"] == 1.69
    assert t.row("Gemini-2.5-Flash").scores["rf"] == 1.68
    assert t.row("Human").scores == {"csr": 79, "amcl": 8.03, "mcl": 46, "rf": 0.74, "ws": 62.39, "dua": 92.0,
                                     "icra": 76.8, "overall": 90.74}
    assert t.row("LLaVA-Onevision").scores["icra"] == 15.2
    assert t.row("Gemma3-27b-it").params_b == 27 and t.row("Gemma3-27b-it").open is True
    assert t.row("Claude-3.5-Sonnet-20241022").open is False
    assert all(r.frames is None for r in t.rows)
    assert "overall" in t.derived and any("derived" in n.lower() for n in t.notes)


def test_exact_cells(tables):
    t = tables["exact"]
    assert t.row("GPT-4o").scores["by_domain"]["Music"] == 33.89
    assert t.row("GPT-4o").scores["overall"] == 44.70
    assert t.row("Human Expert").scores["overall"] == 82.02
    assert t.row("Human Non-Expert").scores["by_domain"]["Music"] == 59.22
    assert t.row("Qwen2.5-VL-72B-Instruct").scores["by_domain"]["Sports"] == 35.62
    assert t.row("Random Choice").scores["by_domain"] == dict.fromkeys(EXACT_N, 20.0)
    assert all(r.frames == 32 for r in t.rows if r.kind == "model")
    assert t.row("Gemini 1.5 Pro").open is False and t.row("PerceptionLM-8B").params_b == 8
    assert list(t.row("GPT-4o").scores["by_domain"]) == list(EXACT_N)


def test_videommmu_cells(tables):
    t = tables["videommmu"]
    aria = t.row("Aria")
    assert aria.scores["by_discipline"]["Art"] == 71.43 and aria.frames == 64 and aria.params_b is None
    assert t.row("InternVL2-8B").scores["delta_knowledge"] == -8.5
    assert t.row("Claude-3.5-Sonnet").scores["overall"] == 65.78 and t.row("Claude-3.5-Sonnet").frames == 20
    assert t.row("GPT-4o").frames == 50 and t.row("Gemini 1.5 Pro").frames is None
    assert t.row("Llama-3.2-11B").frames == 10
    assert t.row("Human Expert").scores["delta_knowledge"] == 33.1
    # Table 4's spellings are merged into the Table 2 rows.
    assert t.row("VILA-1.5-40B").model == "VILA1.5-40B"
    assert t.row("VILA1.5-40B").scores["delta_knowledge"] == 9.4
    assert t.row("Gemini-1.5-Pro").scores["wrong_to_right"] == 29.5
    assert t.row("Gemini 1.5 Flash").scores["delta_knowledge"] == -3.3
    longva = t.row("LongVA")
    assert longva.model == "LongVA-7B"
    assert (longva.scores["right_to_wrong"], longva.scores["n_wrong_to_right"]) == (54.0, 29)
    assert t.row("InternVL2-8B").scores["right_to_wrong"] == 55.0
    # 14 models + humans have Table 4 values; Llama-3.2-11B and Random do not.
    with_gain = sorted(r.model for r in t.rows if "delta_knowledge" in r.scores)
    assert len(with_gain) == 15
    assert "Llama-3.2-11B" not in with_gain and "Random Choice" not in with_gain


def test_videosimpleqa_cells(tables):
    t = tables["videosimpleqa"]
    qwen = t.row("Qwen2.5-VL-72B")
    assert qwen.scores["overall"] == 39.5 and qwen.frames == 32 and qwen.params_b == 72 and qwen.open is True
    small = t.row("InternVL3-1B")
    assert small.scores["correct"] == 11.3 and small.table == "Table 6" and small.frames == 16
    assert t.row("o3").scores["overall"] == 66.3 and t.row("o3").open is False
    assert t.row("Gemini 2.5 Pro").scores["by_category"]["SCI"] == 67.1
    assert t.row("Human Closed-book").scores["overall"] == 66.5
    assert t.row("LLaVA-OneVision-0.5B").params_b == 0.5
    assert t.row("DeepSeek-VL2-Tiny").frames == 2 and t.row("DeepSeek-VL2").params_b is None
    assert t.row("Kimi-VL").params_b is None and t.row("Keye-VL").frames == 32
    assert t.row("Claude 3.7 Sonnet").frames == 16
    assert sum(r.table == "Table 6" for r in t.rows) == 5


# ------------------------------------------------------------------ the papers' own arithmetic

def test_videosimpleqa_f_and_cga_follow_from_counts(tables):
    for r in tables["videosimpleqa"].rows:
        s = r.scores
        assert s["overall"] == pytest.approx(s["correct"] / (1 - s["not_attempted"] / 200), abs=0.15), r.model
        assert s["cga"] == pytest.approx(100 * s["correct"] / (s["correct"] + s["incorrect"]), abs=0.15), r.model
        assert s["correct"] + s["incorrect"] + s["not_attempted"] == pytest.approx(100, abs=0.11), r.model


def test_exact_overall_is_the_item_weighted_domain_mean(tables):
    total = sum(EXACT_N.values())
    assert total == 3521
    for r in tables["exact"].rows:
        weighted = sum(r.scores["by_domain"][d] * n for d, n in EXACT_N.items()) / total
        if r.model == "Human Non-Expert":  # its Music cell is a copy error
            assert abs(r.scores["overall"] - weighted) > 0.1
        else:
            assert r.scores["overall"] == pytest.approx(weighted, abs=0.01), r.model


def test_videommmu_overall_is_the_track_mean(tables):
    for r in tables["videommmu"].rows:
        s = r.scores
        mean = (s["perception"] + s["comprehension"] + s["adaptation"]) / 3
        if r.model == "LongVA-7B":  # 23.98 vs 24.00
            assert abs(s["overall"] - mean) > 0.015
        else:
            assert s["overall"] == pytest.approx(mean, abs=0.02), r.model


def test_expvid_overall_is_the_mean_of_the_level_averages(tables):
    rows = tables["expvid"].rows
    for r in rows:
        s = r.scores
        if all(k in s for k in ("level1", "level2", "level3")):
            assert s["overall"] == pytest.approx((s["level1"] + s["level2"] + s["level3"]) / 3, abs=0.005)
        else:
            assert "overall" not in s
    assert sum("overall" in r.scores for r in rows) == 22


def test_expvid_level_averages_except_the_flagged_rows(tables):
    """L2 and L3 averages are about the task means; the rows that break this are
    exactly the ones the spec lists as inconsistent (kept verbatim)."""
    off = set()
    for r in tables["expvid"].rows:
        s = r.scores
        l2 = (s["ordering"] + s["generation"] + s["verification"] + s["prediction"]) / 4
        if abs(s["level2"] - l2) > 0.25:
            off.add((r.model, r.thinking))
        if "level3" in s:
            assert s["level3"] == pytest.approx((s["analysis"] + s["discovery"]) / 2, abs=0.15), r.model
    assert off == {("Intern-S1", True), ("MiMo-VL-7B-RL", False), ("InternVL3-8B", False),
                   ("Gemini-2.5-Pro", False)}
    notes = " ".join(tables["expvid"].notes)
    assert all(name in notes for name, _ in off)


def test_causalstep_overall_is_ws_normalised(tables):
    for r in tables["causalstep"].rows:
        assert r.scores["overall"] == round(100 * r.scores["ws"] / 68.76, 2), r.model
    assert tables["causalstep"].row("o4-mini-2025-04-16").scores["overall"] == 80.08


def test_flagged_inconsistencies_are_noted(tables):
    assert any("Music" in n and "Non-Expert" in n for n in tables["exact"].notes)
    assert any("LongVA" in n and "23.98" in n for n in tables["videommmu"].notes)


# ------------------------------------------------------------------ flat rows

def test_reported_rows(tables):
    rows = reported_rows("suite-abc123")
    assert len(rows) == sum(ROW_COUNTS.values())
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == len(ids)
    for r in rows:
        assert set(FLAT_KEYS) <= set(r)
        assert r["source"] == "reported" and r["kind"] == "reported"
        assert r["suite_id"] == "suite-abc123"
        assert r["row_kind"] in {"model", "human", "random"}
        assert r["id"].startswith("reported/")
    by_id = {r["id"]: r for r in rows}
    gpt5 = by_id["reported/expvid/gpt-5"]
    assert gpt5["expvid.level3"] == 56.4 and gpt5["judge_id"] == "Phi-3-mini (paper)"
    assert gpt5["frames"] == 128 and gpt5["thinking"] is True
    assert "2510.11606" in gpt5["paper"]
    assert json.loads(gpt5["scores_json"])["expvid"]["level3"] == 56.4
    # a model printed twice gets distinct ids
    assert {"reported/expvid/gemini-2.5-pro-thinking", "reported/expvid/gemini-2.5-pro-no-thinking"} <= set(by_id)
    # missing metrics are present as None; breakdowns are JSON strings in the paper's order
    assert by_id["reported/expvid/human-performance"]["expvid.level3"] is None
    assert by_id["reported/expvid/human-performance"]["row_kind"] == "human"
    gpt4o = by_id["reported/exact/gpt-4o"]
    assert list(json.loads(gpt4o["exact.by_domain"])) == list(EXACT_N)
    assert json.loads(gpt4o["exact.by_domain"])["Music"] == 33.89
    llama = by_id["reported/videommmu/llama-3.2-11b"]
    assert llama["videommmu.delta_knowledge"] is None and llama["videommmu.overall"] == 30.0
    # no merging across benchmarks: GPT-4o has its own row in each paper that reports it
    assert sum(r["model"] == "GPT-4o" for r in rows) == 3
    # keys of one benchmark never leak into another's rows
    assert not any(k.startswith("expvid.") for k in by_id["reported/exact/gpt-4o"])


def test_rows_are_stable_for_a_given_suite():
    assert reported_rows("s1") == reported_rows("s1")
    assert {r["suite_id"] for r in reported_rows("other")} == {"other"}


def test_bad_files_are_refused(tmp_path):
    good = {"benchmark": "exact", "paper": {"title": "T"}, "table": "Table 2", "judge": "none (rule-based)",
            "notes": [], "rows": [{"model": "M", "kind": "model", "scores": {"overall": 1.0}}]}
    path = tmp_path / "exact.json"
    path.write_text(json.dumps(good))
    assert load_table(path).rows[0].model == "M"
    for bad_row in ({"model": "M", "kind": "robot", "scores": {"overall": 1.0}},
                    {"model": "M", "kind": "model", "scores": {"overall": "44.70"}},
                    {"model": "M", "kind": "model", "frames": "32", "scores": {"overall": 1.0}}):
        path.write_text(json.dumps(good | {"rows": [bad_row]}))
        with pytest.raises(ReportedDataError):
            load_table(path)
    path.write_text(json.dumps(good | {"benchmark": "nope"}))
    with pytest.raises(ReportedDataError):
        load_table(path)
