"""The Citation tab: the benchmarks' BibTeX entries, each from its own folder
(evaluator/benchmarks/<name>/citation.bib), in the registry's order."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from evaluator import benchmarks
from leaderboard.tabs.common import read_text

CITATION_FILE = "citation.bib"
HEADER = ("% The benchmarks shown on this leaderboard. Please cite the papers of the benchmarks you report,\n"
          "% and say which suite and judge your numbers come from.\n")


def citations() -> str:
    """Every registered benchmark's entry; a folder without one says so, naming the file to add."""
    entries = []
    for name, module in benchmarks.BENCHMARKS.items():
        path = Path(module.__file__).parent / CITATION_FILE
        missing = f"% {module.TITLE}: no BibTeX entry yet (evaluator/benchmarks/{name}/{CITATION_FILE})\n"
        entries.append(read_text(path, missing).strip())
    return HEADER + "\n" + "\n\n".join(entries) + "\n"


def build() -> None:
    with gr.Tab("Citation", id="citation", elem_id="tab-citation"):
        gr.Markdown("Please cite the benchmarks' papers when you use these results.")
        # long lines wrap: a phone shows each entry whole rather than its first 40 characters
        gr.Code(citations(), language=None, label="BibTeX", interactive=False,
                elem_id="citations", buttons=["copy"], wrap_lines=True)
