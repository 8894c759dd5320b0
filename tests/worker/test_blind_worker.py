"""The worker with the blind pass on (LEADERBOARD_BLIND_PASS=1): a real tiny VLM answers
the demo suite twice, with the video and with black frames; the result carries the
"no video" headlines and the run's cost beside the real scores, the table gets their
columns, and the leaderboard shows them as optional columns (prediction-file rows empty)."""

from __future__ import annotations

import math

import pytest
import torch
from test_runner_worker import add_model_request, deployment, settings  # noqa: F401 - a fixture
from tiny_vlms import build_tiny_gemma3

from evaluator.result import Result
from evaluator.runners import costs
from evaluator.runners.model import BLANK_FRAMES, BLIND_STAGE
from results import aggregate
from leaderboard.views import run_columns as rc
from leaderboard import views
from results.aggregate import load_table
from space_config.settings import get_settings
from submissions.requests import Status, request_log_path

HERE = costs.device_name(1 if torch.cuda.is_available() else 0)  # where the tiny model runs
BENCHMARKS = {"expvid", "causalstep", "exact", "videommmu", "videosimpleqa"}


@pytest.fixture(scope="module")
def tiny_gemma(tmp_path_factory):
    return build_tiny_gemma3(tmp_path_factory.mktemp("gemma3"))


def test_the_blind_pass_is_a_maintainer_setting_off_by_default(monkeypatch):
    monkeypatch.delenv("LEADERBOARD_BLIND_PASS", raising=False)
    get_settings.cache_clear()
    assert get_settings().worker.blind_pass is False
    monkeypatch.setenv("LEADERBOARD_BLIND_PASS", "1")
    get_settings.cache_clear()
    assert get_settings().worker.blind_pass is True
    get_settings.cache_clear()


def test_a_blind_run_publishes_no_video_scores_and_its_cost(deployment, tiny_gemma):  # noqa: F811
    from worker.loop import Worker

    stores, suite_id = deployment
    request = add_model_request(stores, suite_id, str(tiny_gemma), frames=2, precision="float32")

    ran = Worker(stores, settings(blind_pass=True), worker_id="gpu-1").run_once()

    assert ran.status == Status.FINISHED, ran.failure
    result = Result.model_validate_json(stores.results.read(aggregate.result_path(request.id)).data)
    # the real scores keep the published metric keys; the blind pass has a block of its own
    assert set(result.scores) == BENCHMARKS and "level1" in result.scores["expvid"]
    assert set(result.blind_scores) == BENCHMARKS
    for name, metrics in result.blind_scores.items():
        assert set(metrics) == {"overall", "overall_ci95"}, name
        assert 0 <= metrics["overall"] <= 100
    assert all(result.blind_counts[name]["attempted"] for name in BENCHMARKS)
    assert result.blind_counts["videosimpleqa"]["calls"] == result.counts["videosimpleqa"]["calls"]
    assert result.runner["blind_pass"] == BLANK_FRAMES
    # cost of the real pass, the blind pass's own inside it, both on this machine
    cost = result.cost
    assert cost["device"] == HERE and cost["calls"] == result.runner["generations"]
    assert cost["blind_pass"]["calls"] > 0 and cost["blind_pass"]["device"] == HERE
    assert cost["ttft_s"]["median"] > 0 and cost["gpu_seconds_per_call"]["mean"] > 0

    # progress: the blind pass's stages follow the real ones, in the same job
    stages = [stage for status, _, _, stage in stores.requests.seen[request.id] if status == Status.RUNNING]
    assert stages.index(f"{BLIND_STAGE}: expvid") > stages.index("videosimpleqa with sub-questions")
    log = stores.private.read(request_log_path(request.id)).data.decode()
    assert "blind pass scored" in log

    table = load_table(stores.results).set_index("id")
    row = table.loc[request.id]
    for name in BENCHMARKS:
        assert row[f"blind.{name}.overall"] == result.blind_scores[name]["overall"]
    assert row["cost.device"] == HERE
    assert row["cost.gpu_seconds_per_call"] == pytest.approx(cost["gpu_seconds_per_call"]["mean"])
    assert row["cost.ttft_s"] == pytest.approx(cost["ttft_s"]["median"])
    baselines = table[table.index != request.id]
    assert len(baselines) and baselines["cost.gpu_seconds_per_call"].isna().all()
    assert baselines["blind.expvid.overall"].isna().all()

    # the leaderboard: hidden by default, beside the real score when chosen
    board = views.prepare(views.select_suite(table.reset_index(), suite_id))
    default = views.leaderboard_view(board)
    assert not set(default.columns) & {*rc.NO_VIDEO_COLUMNS, *rc.COST_COLUMNS}
    shown = views.leaderboard_view(board, views.OPTIONAL_COLUMNS)
    columns = list(shown.columns)
    for title in views.SCORE_COLUMNS:
        assert columns.index(rc.no_video_label(title)) == columns.index(title) + 1
    ours = shown[shown[views.MODEL] == str(tiny_gemma)].iloc[0]
    assert ours[rc.no_video_label("ExpVid")] == result.blind_scores["expvid"]["overall"]
    assert ours[rc.NO_VIDEO_AVERAGE] == row["blind.average"] and not math.isnan(ours[rc.NO_VIDEO_AVERAGE])
    assert ours[rc.DEVICE] == HERE and ours[rc.TTFT] == round(cost["ttft_s"]["median"], 3)
    others = shown[shown[views.MODEL] != str(tiny_gemma)]
    assert others[rc.GPU_SECONDS].isna().all() and others[rc.no_video_label("ExAct")].isna().all()
    assert (others[rc.DEVICE] == "").all()
