"""The "no video" score and the cost columns in a real browser.

A home after its first start, plus one model-ID run of a real tiny VLM scored by the
worker with the blind pass on (LEADERBOARD_BLIND_PASS=1); then `python app.py` on it
and headless chromium: the optional columns are hidden by default, ticking them shows
each benchmark's no-video score right beside its real score and the run's cost, the
prediction-file rows stay empty there, and the About tab explains them. (The tiny run is
not the suite's reference protocol: its row is shown, marked ≠, as every row is.) Screenshots:
test-artifacts/screenshots/no-video-cost.png and about-no-video-cost.png.
"""

from __future__ import annotations

import dataclasses
import os

import pytest
from site_server import (
    ARTIFACTS,
    VIEWPORT,
    WAIT_MS,
    demo_suite_id,
    open_leaderboard,
    open_page,
    open_tab,
    prepare_home,
    show_suite,
    SiteServer,
    tick,
)

from playwright.sync_api import expect

from results import aggregate
from leaderboard.views import run_columns as rc
from leaderboard import views

COST = [rc.GPU_SECONDS, rc.TTFT, rc.TOKENS_PER_S, rc.DEVICE]


def run_blind(home, model_path):
    """One model-ID request answered by the tiny model, blind pass on; its Result."""
    from evaluator.result import Result
    from worker.loop import Worker
    from space_config.settings import get_settings
    from submissions.queue import Queue
    from submissions.requests import Request, Status
    from submissions.stores import Stores

    saved = {k: os.environ.get(k) for k in ("LEADERBOARD_HOME", "LEADERBOARD_BOOTSTRAP_SAMPLES")}
    os.environ.update(LEADERBOARD_HOME=str(home), LEADERBOARD_BOOTSTRAP_SAMPLES="50")
    get_settings.cache_clear()
    try:
        stores = Stores.local(home)
        request = Queue(stores.requests).add(Request(kind="model", submitter="maintainer", suite_id=demo_suite_id(home),
                                                     model=str(model_path), frames=2, precision="float32"))
        base = get_settings()
        settings = dataclasses.replace(base, worker=dataclasses.replace(
            base.worker, backend="transformers", max_new_tokens=3, blind_pass=True))
        ran = Worker(stores, settings, worker_id="gpu-test").run_once()
        assert ran.status == Status.FINISHED, ran.failure
        return Result.model_validate_json(stores.results.read(aggregate.result_path(request.id)).data)
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
        get_settings.cache_clear()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from tiny_vlms import build_tiny_gemma3

    home = prepare_home(tmp_path_factory.mktemp("site") / "home")
    model = build_tiny_gemma3(tmp_path_factory.mktemp("model") / "tiny-gemma3")
    result = run_blind(home, model)
    with SiteServer(home) as server:
        yield server, result, str(model)


@pytest.fixture(scope="module")
def page(browser, site):
    server, _, _ = site
    opened = open_page(browser, server.url, {**VIEWPORT, "width": 2000})
    open_leaderboard(opened)
    yield opened


def headers(page) -> list[str]:
    # a header's text ends with its menu button's "⋮"
    texts = page.locator("#leaderboard-table [role=columnheader]").all_text_contents()
    return [t.replace("⋮", "").strip() for t in texts]


def wait_headers(page, wanted: list[str], absent: tuple[str, ...] = ()) -> list[str]:
    """The headers, once every `wanted` one is among them and no `absent` one (a bounded wait)."""
    for _ in range(WAIT_MS // 200):
        shown = headers(page)
        if set(wanted) <= set(shown) and not set(absent) & set(shown):
            return shown
        page.wait_for_timeout(200)
    raise AssertionError(f"columns {wanted} not shown within {WAIT_MS // 1000} s; headers: {headers(page)}")


def row_texts(page, model: str) -> list[str]:
    row = page.locator("#leaderboard-table [role=row]").filter(has_text=model).first
    return [c.strip() for c in row.locator("[role=gridcell]").all_inner_texts()]


def test_no_video_and_cost_columns_appear_when_chosen(page, site):
    server, result, model = site
    show_suite(page, server.suite_id())
    # a 2-frame, 3-token CPU run is not the suite's reference protocol: shown, marked, not ranked
    expect(page.locator("#leaderboard-table [role=row]").filter(has_text=model)).to_have_count(1)
    shown = headers(page)
    assert "ExpVid" in shown and not {rc.no_video_label("ExpVid"), *COST} & set(shown)  # hidden by default

    for label in [rc.NO_VIDEO_AVERAGE, *(rc.no_video_label(t) for t in views.SCORE_COLUMNS), *COST]:
        tick(page, "columns", label, True)
    shown = wait_headers(page, COST)
    for title in views.SCORE_COLUMNS:
        assert shown.index(rc.no_video_label(title)) == shown.index(title) + 1, shown  # beside the real score
    assert len(row_texts(page, model)) == len(shown), (shown, row_texts(page, model))
    ours = dict(zip(shown, row_texts(page, model)))
    for name, title in (("exact", "ExAct"), ("expvid", "ExpVid"), ("videosimpleqa", "Video SimpleQA")):
        assert float(ours[rc.no_video_label(title)]) == result.blind_scores[name]["overall"]
    assert ours[rc.DEVICE] == result.cost["device"] and ours[rc.DEVICE]
    assert float(ours[rc.TTFT]) == pytest.approx(result.cost["ttft_s"]["median"], abs=1e-3)
    assert float(ours[rc.GPU_SECONDS]) == pytest.approx(result.cost["gpu_seconds_per_call"]["mean"], abs=1e-3)
    # a baseline scored from a prediction file: nothing measured, no blind pass
    baseline = dict(zip(shown, row_texts(page, "first-option")))
    assert baseline[rc.DEVICE] == baseline[rc.GPU_SECONDS] == baseline[rc.no_video_label("ExAct")] == ""

    # the picture: the real and no-video scores of two benchmarks, and the cost, in one view
    for label in [rc.no_video_label(t) for t in ("CausalStep", "Video-MMMU", "Video SimpleQA")] + [
            "CausalStep", "Video-MMMU", "Video SimpleQA", views.PARAMS, views.FRAMES]:
        tick(page, "columns", label, False)
    wait_headers(page, [*COST, rc.no_video_label("ExpVid")], absent=("CausalStep", views.FRAMES))
    page.wait_for_timeout(1500)  # the last untick's update settles: the picture shows the table, not a spinner
    wait_headers(page, [*COST, rc.no_video_label("ExpVid")], absent=("CausalStep", views.FRAMES))
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "no-video-cost.png"), full_page=True)


def test_the_about_tab_explains_the_no_video_score_and_the_cost(page):
    open_tab(page, "About")
    open_tab(page, "No-video & cost")  # the About tab's page of docs/no_video_and_cost.md
    about = page.locator("#about-no-video-cost")
    expect(about).to_contain_text("black frame of the same size")
    expect(about).to_contain_text("time to first token")
    expect(about).to_contain_text("depend on the hardware")
    about.scroll_into_view_if_needed()
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    about.screenshot(path=str(folder / "about-no-video-cost.png"))
