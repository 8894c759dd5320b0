"""The About tab: an overview, then one sub-tab per page (the protocol, the judges, how
answers stay hidden, comparing rows, exports, the no-video score and cost, the FAQ), so
nobody has to scroll one very long page to find a section."""

from __future__ import annotations

import re
from pathlib import Path

import gradio as gr

from results import disclosure
from leaderboard import judge_figures
from leaderboard.tabs.base import BaseHandlers
from leaderboard.tabs.common import read_text

ROOT = Path(__file__).resolve().parent.parent.parent
PROTOCOL_PATH = ROOT / "docs" / "protocol.md"
FAQ_PATH = ROOT / "docs" / "faq.md"
COMPARE_PATH = ROOT / "docs" / "compare.md"
EXPORTS_PATH = ROOT / "docs" / "exports.md"
JUDGES_PATH = ROOT / "docs" / "judges.md"
NO_VIDEO_PATH = ROOT / "docs" / "no_video_and_cost.md"

# (sub-tab label, its id, what it holds): the overview lists them in this order
PAGES = [
    ("Protocol", "about-page-protocol", "how every score is computed, benchmark by benchmark, and where our "
                                        "reference protocol differs from the papers'"),
    ("Judges", "about-page-judges", "the judges of free-text answers on this site, how each one grades, and how "
                                    "well it agrees with the papers' grading rules"),
    ("Hidden answers", "about-page-hidden", "how the answer key stays private, and why small breakdown buckets "
                                            "show no score"),
    ("Comparing rows", "about-page-compare", "the Compare tab's paired intervals, and the rank bands"),
    ("Exports", "about-page-exports", "the leaderboard as data: downloads and the open API"),
    ("No-video & cost", "about-page-no-video-cost", "the \"no video\" score and the cost columns of model-id runs"),
    ("FAQ", "about-page-faq", "submitting, refusals, failures, quotas and other common questions"),
]

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


def overview() -> str:
    """The first sub-tab: what each of the others holds."""
    items = "\n".join(f"- **{label}**: {what}." for label, _, what in PAGES)
    return f"## About this leaderboard\nEach tab above is one page:\n\n{items}"


def anchor(heading: str) -> str:
    """The id gr.Markdown(header_links=True) gives a heading: "h-" and GitHub's slug (lower
    case, punctuation dropped, spaces to hyphens). The browser test follows every link."""
    return "h-" + re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def with_contents(markdown: str) -> str:
    """A long page with links to its `##` sections, put before the first of them."""
    sections = re.findall(r"^## (.+)$", markdown, re.MULTILINE)
    if len(sections) < 2:
        return markdown
    links = "\n".join(f"- [{title.strip()}](#{anchor(title)})" for title in sections)
    head, _, body = markdown.partition("\n## ")
    return f"{head}\n\n**On this page:**\n\n{links}\n\n## {body}"


def buckets_text(min_items: int, near_duplicate_items: int) -> str:
    return (f"## Small buckets\nOn this site a breakdown bucket with fewer than "
            f"**{min_items}** items (LEADERBOARD_MIN_BUCKET_ITEMS) is published as "
            f"\"{disclosure.REASON} (n=...)\" instead of a score: a bucket of one item would tell its "
            f"submitter whether that one answer was right. Beside it, the smallest buckets that would "
            f"give it back (the overall less the others), and the figures computed from a hidden "
            f"bucket's items, are shown as \"{disclosure.COMPLEMENT} (n=...)\". Overall scores always "
            f"use every item. A prediction file that changes only a few answers of an earlier file of "
            f"its submitter is refused, and buckets it changes on fewer than **{near_duplicate_items}** "
            f"items are published without their score (\"{disclosure.COMPLEMENT}\" too; About → "
            f"Protocol, *Near-duplicate files*).")


def build(h: BaseHandlers) -> None:
    judges = judge_figures.judges_markdown(h.settings.judge, h.settings.judges.by_benchmark,
                                           judge_figures.load_figures(), h.settings.judges.frames)
    protocol = with_contents(read_text(PROTOCOL_PATH, "*docs/protocol.md is missing.*"))
    texts = {  # each page's Markdown blocks, by elem_id (the tests find them by it)
        "about-page-protocol": {"about-protocol": protocol},
        "about-page-judges": {"about-judge": judges,
                              "about-judges": read_text(JUDGES_PATH, "*docs/judges.md is missing.*")},
        "about-page-hidden": {"about-hidden": HIDDEN_ANSWERS,
                              "about-buckets": buckets_text(h.settings.min_bucket_items,
                                                            h.settings.near_duplicate_items)},
        "about-page-compare": {"about-compare": read_text(COMPARE_PATH, "*docs/compare.md is missing.*")},
        "about-page-exports": {"about-exports": read_text(EXPORTS_PATH, "*docs/exports.md is missing.*")},
        "about-page-no-video-cost": {"about-no-video-cost": read_text(NO_VIDEO_PATH, "")},
        "about-page-faq": {"about-faq": read_text(FAQ_PATH, PLACEHOLDER_FAQ)},  # the file has its heading
    }
    with gr.Tab("About", id="about", elem_id="tab-about"):
        # "wrap": on a phone every page's tab stays in sight rather than behind an overflow menu
        with gr.Tabs(elem_id="about-pages", overflow_behavior="wrap"):
            with gr.Tab("Overview", id="about-page-overview", elem_id="about-page-overview"):
                gr.Markdown(overview(), elem_id="about-overview")
            for label, page, _ in PAGES:
                with gr.Tab(label, id=page, elem_id=page):
                    for elem_id, text in texts[page].items():
                        # the protocol's headings get ids: its contents link to them
                        gr.Markdown(text, elem_id=elem_id, header_links=elem_id == "about-protocol")
