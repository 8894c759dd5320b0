"""The worker Space's entry point: runs the evaluation worker in the background and
shows what it is doing. Same repository as the site (see space_config/worker/README.md)."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from worker.loop import start_in_process
from space_config.settings import get_settings
from submissions.queue import Queue
from submissions.stores import open_stores


def queue_counts(queue: Queue) -> pd.DataFrame:
    """How many requests are in each status (no names, no logs: this page may be seen)."""
    statuses = pd.Series([r.status.value for r in queue.all()], dtype="string")
    return statuses.value_counts().rename_axis("status").reset_index(name="requests")


def build_app() -> gr.Blocks:
    settings = get_settings()
    stores = open_stores(settings)
    scheduler = start_in_process(stores, settings)
    queue = Queue(stores.requests)
    with gr.Blocks(title="Leaderboard worker") as demo:
        gr.Markdown(f"# Evaluation worker `{scheduler.worker.worker_id}`\nPolling the queue every "
                    f"{settings.worker.poll_seconds:g} s.")
        table = gr.Dataframe(queue_counts(queue), interactive=False)
        gr.Timer(10).tick(lambda: queue_counts(queue), outputs=table)
    return demo


if __name__ == "__main__":
    build_app().launch(server_name="0.0.0.0")
