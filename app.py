"""The Space entry point: builds the UI, nothing else.

Minimal site until the website issue lands: on first start it builds the demo
suite under LEADERBOARD_HOME, scores the built-in baselines, and shows their table.
"""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from leaderboard.bootstrap_demo import ensure_demo_results
from leaderboard.table import leaderboard_frame
from space_config.settings import get_settings


def build_app() -> gr.Blocks:
    settings = get_settings()
    results = ensure_demo_results(Path(settings.home))
    with gr.Blocks(title="Video Reasoning Leaderboard") as demo:
        gr.Markdown("# Video Reasoning Leaderboard\nExpVid, CausalStep, ExAct, Video-MMMU and Video SimpleQA, "
                    "scored against hidden answers. Showing the demo suite's built-in baselines.")
        gr.Dataframe(leaderboard_frame(results), interactive=False)
    return demo


if __name__ == "__main__":
    build_app().launch(server_name="0.0.0.0")
