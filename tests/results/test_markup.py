"""Escaping what the site echoes (results/markup.py), and the Submit handler's status
block with hostile call ids and names, rendered by markdown-it (CommonMark with raw HTML
on and GFM tables and strikethrough: at least as permissive as the site's renderer)."""

from __future__ import annotations

import html
import json
import re

import pytest
from markdown_it import MarkdownIt
from test_ui_handlers import (  # noqa: F401 - the site fixtures, shared
    baseline_file,
    calls,
    handlers,
    home,
    hub,
    settings,
    source,
    stores,
    suite_id,
    write_file,
)

from results.markup import escape
from leaderboard.ui import GENERIC_ERROR, status
from submissions.queue import Queue

MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

HOSTILE = [
    "```\n<img src=x onerror=alert(1)>",
    "<img src=x onerror=alert(1)>",
    "</code></pre><script>alert(1)</script>",
    "~~~\n# heading\n~~~",
    "**bold** _em_ `code` ~~gone~~",
    "[click](javascript:alert(1)) ![img](https://example.org/x.png)",
    "<https://example.org> https://example.org www.example.org a@example.org",
    "    indented code",
    "# heading",
    "> quote",
    "- item",
    "1. item",
    "2) item",
    "---",
    "===",
    "| a | b |\n|---|---|\n| c | d |",
    "&lt;img&gt; &amp; &#60;",
    "\\`not code\\`",
    "$$x^2$$ and $y$",
    "line\r\nbreak\rand\u2028separator\n\nnew paragraph",
]


def rendered_text(markdown: str) -> str:
    """The text a reader sees: the rendered HTML without its tags, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", MD.render(markdown)))


def blocks(markdown: str) -> list[str]:
    """The top-level blocks markdown-it makes of `markdown`."""
    return [t.type for t in MD.parse(markdown) if t.level == 0 and t.nesting == 1]


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_renders_as_itself_in_one_plain_paragraph(text):
    escaped = escape(text)
    assert blocks(escaped) == ["paragraph_open"]
    assert MD.render(escaped).count("<") == 2  # <p> and </p>: no tag of the text's own
    flat = re.sub(r"\r\n|[\r\n\u2028]", " ", text)
    assert rendered_text(escaped).strip() == flat.strip()


def test_plain_text_stays_readable():
    assert escape("bad.jsonl line 3: unknown call id 'acme/x-1' (first on line 2)") == \
        "bad.jsonl line 3: unknown call id 'acme/x-1' (first on line 2)"


def test_escaped_text_is_safe_as_html_text():
    assert "<" not in escape("<b onmouseover=x>&") and "&amp;" in escape("&")


def test_a_multi_line_status_is_one_line_and_one_list():
    message = "f.jsonl: the prediction file was refused:\n  - line 2: unknown call id '```'\n  - line 3: <b>x</b>"
    assert blocks(status(message, ok=False)) == ["paragraph_open", "bullet_list_open"]
    assert "<b>" not in MD.render(status(message, ok=False))


# -- the Submit handler, driven with hostile files ------------------------------------------------------------

@pytest.mark.parametrize("call_id", [HOSTILE[0], HOSTILE[2], HOSTILE[5], "a\n\n<img src=x>\n\n```"])
def test_a_hostile_call_id_stays_inside_the_status_block(handlers, stores, calls, tmp_path, call_id):
    first = next(iter(calls))
    path = write_file(tmp_path / "hostile.jsonl", [{"id": first, "response": "A"}, {"id": call_id, "response": "B"},
                                                    {"id": call_id, "response": 7}])
    before = len(Queue(stores.requests).all())
    for message in (handlers.check_file(path), handlers.submit_file(path, "m", "", "", "", False, None, None)[0]):
        assert message.startswith("❌") and GENERIC_ERROR not in message
        page = MD.render(message)
        assert "<img" not in page and "<script" not in page and "<a " not in page and "<pre" not in page
        assert blocks(message) == ["paragraph_open", "bullet_list_open"]  # the status line, then its problems
        shown = rendered_text(message)
        assert "line 2: unknown call id" in shown and "line 3: unknown call id" in shown
    assert len(Queue(stores.requests).all()) == before


def test_a_hostile_file_name_and_model_name_are_escaped(handlers, calls, tmp_path):
    folder = tmp_path / "<img src=x onerror=alert(1)>"
    folder.mkdir()
    bad = write_file(folder / "```<img src=y>.jsonl", ["{not json"])
    assert "<img" not in MD.render(handlers.check_file(bad))
    good = baseline_file(tmp_path / "named.jsonl", calls, "random", 4242)
    message, _ = handlers.submit_file(good, "**Mine** <img src=z onerror=alert(1)>", "", "", "", False, None, None)
    assert message.startswith("✅ Submitted"), message
    page = MD.render(message)
    assert "<img" not in page and "<strong>" not in page
    assert "**Mine** <img src=z onerror=alert(1)>" in rendered_text(message)


def test_hostile_lines_never_reach_the_generic_error(handlers, calls, tmp_path):
    first = next(iter(calls))
    huge = '{"id": "%s", "response": "A", "confidence": %s}' % (first, "9" * 5000)
    for n, line in enumerate((huge, "[" * 100_000, json.dumps({"id": first, "response": "A"}) + " garbage")):
        message = handlers.check_file(write_file(tmp_path / f"h{n}.jsonl", [line]))
        assert message.startswith("❌") and GENERIC_ERROR not in message and "line 1:" in message, message

