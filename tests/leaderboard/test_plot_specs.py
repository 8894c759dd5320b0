"""The Plots tab's Vega-Lite specs (leaderboard/views/plots.py), read as data: parameters on a
log axis of a few round ticks, both axes reaching past every point (none drawn on the plot's
frame), the legend below the plot with labels that name each series whole. The browser checks
of the drawn plots, at 1400 px and on a phone, are in test_site_layout.py."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from leaderboard import views
from leaderboard.tabs.plots import drawn

MIN_ROOM = 0.03  # of the axis: the least room between a point and the plot's frame


@pytest.fixture(scope="module")
def papers() -> pd.DataFrame:
    """The papers' rows, as the site shows them while no official suite exists."""
    return views.prepare(views.select_suite(pd.DataFrame(), views.REPORTED_SUITE))


def paper_points(papers) -> list[pd.DataFrame]:
    found = [views.score_vs_params(papers, b) for _, b in views.plot_benchmarks()]
    return [points for points in found if not points.empty]


def where_on_axis(value: float, domain: list[float], log: bool) -> float:
    """0 at the axis' start, 1 at its end."""
    scale = math.log10 if log else float
    return (scale(value) - scale(domain[0])) / (scale(domain[1]) - scale(domain[0]))


def assert_round(ticks: list[float]) -> None:
    for tick in ticks:
        mantissa = tick / 10 ** math.floor(math.log10(tick))
        assert any(math.isclose(mantissa, m) for m in (1, 2, 3, 5)), f"{tick} is not a round tick"


def test_parameters_are_on_a_log_axis_of_a_few_round_ticks_that_holds_every_point(papers):
    everything = paper_points(papers)
    assert max(p["params_b"].max() for p in everything) >= 78  # the largest model the papers list
    sizes = [[11.0], [78.0], [0.5, 2.0, 7.0, 78.0], [0.5, 2000.0], [1.0, 1.1], [0.1, 10000.0]]
    everything += [pd.DataFrame({"model": [f"m{i}" for i in range(len(s))], "params_b": s,
                                 "score": [50.0] * len(s), "source": ["📄 reported"] * len(s),
                                 "type": ["open"] * len(s)}) for s in sizes]
    for points in everything:
        x = views.score_vs_params_spec(points)["encoding"]["x"]
        domain, ticks = x["scale"]["domain"], x["axis"]["values"]
        assert x["scale"]["type"] == "log" and x["scale"]["nice"] is False  # the domain as written here
        assert 2 <= len(ticks) <= views.MAX_TICKS, ticks
        assert_round(ticks)
        assert all(domain[0] <= t <= domain[1] for t in ticks), (domain, ticks)
        for size in points["params_b"]:
            assert MIN_ROOM <= where_on_axis(size, domain, log=True) <= 1 - MIN_ROOM, (size, domain)


def test_scores_are_drawn_inside_the_frame_with_round_ticks(papers):
    profile = views.level_profile(papers, views.profile_defaults(papers))
    for spec in (views.score_vs_params_spec(paper_points(papers)[0]), views.level_profile_spec(profile)):
        y = (spec.get("encoding") or spec["layer"][0]["encoding"])["y"]
        domain, ticks = y["scale"]["domain"], y["axis"]["values"]
        assert y["scale"]["nice"] is False and ticks == [0, 20, 40, 60, 80, 100]
        for score in (0, 100):  # a score of 0 or 100 is drawn inside the frame, not on it
            assert MIN_ROOM <= where_on_axis(score, domain, log=False) <= 1 - MIN_ROOM


def test_a_spec_holds_every_point_of_its_frame(papers):
    points = paper_points(papers)[0]
    spec = views.score_vs_params_spec(points)
    assert pd.DataFrame(spec["data"]["values"])[list(points.columns)].equals(points.reset_index(drop=True))
    assert spec["autosize"]["type"] == "fit-x" and "width" not in spec  # as wide as the page
    json.dumps(spec)  # plain JSON: what the page is sent
    profile = views.level_profile(papers, views.profile_defaults(papers))
    lines = views.level_profile_spec(profile)
    shown = pd.DataFrame(lines["data"]["values"])
    assert len(shown) == len(profile) and set(shown["model"]) == set(profile["model"])
    # a line joins one benchmark's levels only: none runs across a benchmark a model lacks
    assert lines["layer"][0]["encoding"]["detail"]["field"] == "benchmark"
    assert set(shown["benchmark"]) <= set(views.TITLES.values())
    assert dict(zip(shown["level"], shown["benchmark"]))["ExpVid L1"] == "ExpVid"
    sent = drawn(points, views.score_vs_params_spec, "scatter")
    assert sent.chart == "scatter" and json.loads(sent.plot) == spec


def test_the_legend_is_below_the_plot_and_names_each_series_whole(papers):
    profile = views.level_profile(papers, views.profile_defaults(papers))
    models = list(dict.fromkeys(profile["model"]))
    assert len({m.rsplit(" (", 1)[1] for m in models}) == 1  # the defaults: one paper's rows
    color = views.level_profile_spec(profile)["layer"][0]["encoding"]["color"]
    legend = color["legend"]
    assert legend["orient"] == "bottom" and legend["direction"] == "vertical"
    # no fixed width to cut labels at (Vega's own is 160 px): the column's, and a long label wraps
    assert set(legend["labelLimit"]) == {"expr"} and "containerSize()" in legend["labelLimit"]["expr"]
    assert "split(" in legend["labelExpr"]
    paper = models[0].rsplit(" (", 1)[1]
    assert color["title"] == f"model ({paper}"  # the paper said once, in the title
    entries = color["scale"]["domain"]
    assert [f"{e} ({paper}" for e in entries] == models and len(set(entries)) == len(entries)


def test_legend_labels_stay_whole_unless_every_label_shares_an_ending():
    mixed = ["GPT-5 (ExpVid paper)", "Gemini-2.5-Flash (thinking) (ExpVid paper)", "o3 (CausalStep paper)"]
    assert views.legend_names(mixed) == ({label: label for label in mixed}, "")
    names, tail = views.legend_names(mixed[:2])
    assert tail == "(ExpVid paper)" and names == {mixed[0]: "GPT-5", mixed[1]: "Gemini-2.5-Flash (thinking)"}
    assert views.legend_names(["acme/Vid-7B", "Closed Giant"])[1] == ""
    assert views.legend_names([]) == ({}, "")


def test_an_empty_frame_still_makes_a_spec():
    """A hidden plot's frame is empty: its spec must not fail."""
    empty_points = pd.DataFrame(columns=["model", "params_b", "score", "source", "type"])
    assert views.score_vs_params_spec(empty_points)["data"]["values"] == []
    assert views.level_profile_spec(pd.DataFrame(columns=["model", "level", "score"]))["data"]["values"] == []
