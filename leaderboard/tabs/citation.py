"""The Citation tab: the benchmarks' BibTeX entries."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from leaderboard.tabs.common import read_text

ROOT = Path(__file__).resolve().parent.parent.parent
CITATIONS_PATH = ROOT / "leaderboard" / "citations.bib"

PLACEHOLDER_BIB = "% The BibTeX entries of the five papers are not added yet (leaderboard/citations.bib)."


def build() -> None:
    with gr.Tab("Citation", id="citation", elem_id="tab-citation"):
        gr.Markdown("Please cite the benchmarks' papers when you use these results.")
        # long lines wrap: a phone shows each entry whole rather than its first 40 characters
        gr.Code(read_text(CITATIONS_PATH, PLACEHOLDER_BIB), language=None, label="BibTeX", interactive=False,
                elem_id="citations", buttons=["copy"], wrap_lines=True)
