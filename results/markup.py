"""Text from users or files, made safe to show in Markdown and HTML.

The site shows error messages, model names and file names in gr.Markdown (and in
toasts, which render HTML). Such text may hold a code fence, emphasis, a link, an
image or an HTML tag; shown as written it could close the block it sits in or
inject markup. `escape` turns every character that can start markup into a
character reference: Markdown renderers (CommonMark, GFM, marked) decode a
reference to the plain character and never read it as syntax, and HTML decodes it
the same way, so one escaped string is safe in both. Quotes are left as written:
they matter only inside HTML attributes, where this text never goes.

Pure functions, no gradio import.
"""

from __future__ import annotations

import re

# Characters that open or close Markdown/HTML syntax anywhere in a line: code spans and
# fences, emphasis, links and images, HTML tags and entities, tables, strikethrough,
# math ($, which gradio's KaTeX reads), backslash escapes, e-mail autolinks (@).
_ANYWHERE = {ch: f"&#{ord(ch)};" for ch in "\\`*_[]<>&|~$@"}
_ANYWHERE.update({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# GFM turns bare "https://..." and "www...." into links: break the two markers.
_AUTOLINK = re.compile(r"(?i)(?<=www)\.|:(?=//)")
# At the start of a line: blanks (4 make a code block), then a block marker: heading,
# list, quote, setext underline, ordered list ("1." / "1)").
_BLOCK_START = re.compile(r"^([ \t]*)([#>+=-]|\d{1,9}[.)])?")
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")


def escape(text: object) -> str:
    """`text` as inline Markdown that renders to exactly that text, on one line (line
    breaks become spaces: a break could end the paragraph or open a new block)."""
    flat = _LINE_BREAKS.sub(" ", str(text))
    escaped = "".join(_ANYWHERE.get(ch, ch) for ch in flat)
    escaped = _AUTOLINK.sub(lambda m: f"&#{ord(m.group())};", escaped)
    return _BLOCK_START.sub(_block_marker, escaped, count=1)


def _reference(text: str) -> str:
    return "".join(f"&#{ord(ch)};" for ch in text)


def _block_marker(match: re.Match) -> str:
    # The marker's last character is what makes it a block (the "." of "1.", the "-" of "-").
    indent, marker = match.group(1), match.group(2) or ""
    return _reference(indent) + marker[:-1] + _reference(marker[-1:])
