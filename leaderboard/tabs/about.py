"""The About tab: the judges and their measured agreement, small buckets, how answers stay
hidden, and the docs/ pages."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from leaderboard import disclosure, judge_figures
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import read_text

ROOT = Path(__file__).resolve().parent.parent.parent
PROTOCOL_PATH = ROOT / "docs" / "protocol.md"
FAQ_PATH = ROOT / "docs" / "faq.md"
COMPARE_PATH = ROOT / "docs" / "compare.md"
EXPORTS_PATH = ROOT / "docs" / "exports.md"
JUDGES_PATH = ROOT / "docs" / "judges.md"

HIDDEN_ANSWERS = """## How the answers stay hidden
- The public suite (questions, videos, the call list) and its answer key are stored apart. The answer
  key lives in a private store that only the evaluation worker can read; this website is never given
  access to it.
- Prompts in the call list never contain an answer. Video SimpleQA's sub-questions name earlier hops'
  answers, so they are never published: only the worker asks them.
- Error messages name the file, line and field that is wrong, never the expected answer. A prediction
  file gets no per-item feedback, only the aggregated scores.
- Logs and uploaded prediction files are private; each submitter sees the tail of their own logs under
  *Queue → My submissions*, nobody else's."""

PLACEHOLDER_FAQ = "*The FAQ is not written yet (`docs/faq.md`).*"


def build(h: BaseHandlers) -> None:
    judges = judge_figures.judges_markdown(h.settings.judge, h.settings.judges.by_benchmark,
                                           judge_figures.load_figures(), h.settings.judges.frames)
    with gr.Tab("About", id="about", elem_id="tab-about"):
        gr.Markdown(f"{judges}\n\n{HIDDEN_ANSWERS}", elem_id="about-judge")
        gr.Markdown(f"## Small buckets\nOn this site a breakdown bucket with fewer than "
                    f"**{h.settings.min_bucket_items}** items (LEADERBOARD_MIN_BUCKET_ITEMS) is published as "
                    f"\"{disclosure.REASON} (n=...)\" instead of a score: a bucket of one item would tell its "
                    f"submitter whether that one answer was right. Overall scores always use every item.",
                    elem_id="about-buckets")
        gr.Markdown(read_text(PROTOCOL_PATH, "*docs/protocol.md is missing.*"), elem_id="about-protocol")
        gr.Markdown(read_text(JUDGES_PATH, "*docs/judges.md is missing.*"), elem_id="about-judges")
        gr.Markdown(read_text(COMPARE_PATH, "*docs/compare.md is missing.*"), elem_id="about-compare")
        gr.Markdown(read_text(EXPORTS_PATH, "*docs/exports.md is missing.*"), elem_id="about-exports")
        gr.Markdown(read_text(ROOT / "docs" / "no_video_and_cost.md", ""), elem_id="about-no-video-cost")
        gr.Markdown(read_text(FAQ_PATH, PLACEHOLDER_FAQ), elem_id="about-faq")  # the file has its heading
