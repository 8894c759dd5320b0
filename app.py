"""The Space entry point: builds the UI, nothing else.

In the embedded default (local store) the first start publishes the demo suite and
scores the built-in baselines, and a worker runs in this process.
"""

from __future__ import annotations

import gradio as gr

from evaluator.worker import start_in_process
from leaderboard import aggregate
from space_config.settings import get_settings
from submissions.stores import open_stores
from submissions.suites import first_start


def build_app() -> gr.Blocks:
    settings = get_settings()
    stores = open_stores(settings)
    if settings.store == "local":
        first_start(stores)
    if settings.embedded_worker:
        start_in_process(stores, settings)
    table = aggregate.load_table(stores.results)
    columns = [c for c in ["model", "average", "expvid.overall", "causalstep.overall", "exact.overall",
                           "videommmu.overall", "videosimpleqa.overall", "judge_id", "suite_id"] if c in table]
    with gr.Blocks(title="Video Reasoning Leaderboard") as demo:
        gr.Markdown("# Video Reasoning Leaderboard\nExpVid, CausalStep, ExAct, Video-MMMU and Video SimpleQA, "
                    "scored against hidden answers.")
        gr.Dataframe(table[columns], interactive=False)
    return demo


if __name__ == "__main__":
    build_app().launch(server_name="0.0.0.0")
