"""The Space cards parse as Hugging Face Space cards and carry what the Hub needs."""

from __future__ import annotations

import pytest
from huggingface_hub import SpaceCard

from conftest import ROOT

TAGS = {"leaderboard", "modality:video", "submission:automatic", "test:private", "judge:auto"}


@pytest.mark.parametrize("card, app_file, sdk", [("space_config/README.md", "app.py", "gradio"),
                                                 ("space_config/worker/README.md", "worker_app.py", "docker")])
def test_space_card(card, app_file, sdk):
    data = SpaceCard.load(ROOT / card).data
    assert data.sdk == sdk and data.app_file == app_file
    assert (ROOT / app_file).is_file()
    assert data.to_dict()["hf_oauth"] is True
    assert TAGS <= set(data.tags)


def test_worker_page_counts_statuses_only(tmp_path):
    from submissions.queue import Queue
    from submissions.requests import Request
    from submissions.stores import Stores
    from worker_app import queue_counts

    queue = Queue(Stores.local(tmp_path).requests)
    for model in ("a", "b"):
        queue.add(Request(kind="predictions", submitter="alice", suite_id="s", model=model))
    queue.claim("w1", 60)
    counts = dict(zip(queue_counts(queue)["status"], queue_counts(queue)["requests"]))
    assert counts == {"PENDING": 1, "RUNNING": 1}
    assert "alice" not in queue_counts(queue).to_string()
