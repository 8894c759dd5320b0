"""The Models page's table of results reported by the models' own authors (their Hub pages'
`.eval_results` files, read in by the maintainers' scan: leaderboard/author_results.py): one
row per result, never ranked, each with a link to its source.

    shown = author_view(report.rows, search="qwen")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote

import numpy as np
import pandas as pd

from results import markup
from leaderboard import models
from results.number_format import score
from leaderboard.views.columns import BENCHMARKS, MODEL, TITLES, name_matches, search_terms

KIND_BADGE = "✍ model's authors"  # the row kind, beside ✓ verified and 📄 a paper's
BENCHMARK, SCORE, DATE, SOURCE_LINK, NOTES, KIND = "Benchmark", "Score", "Date", "Source", "Notes", "Kind"
AUTHOR_COLUMNS = (MODEL, BENCHMARK, SCORE, KIND, DATE, SOURCE_LINK, NOTES)
MARKDOWN_COLUMNS = (MODEL, SOURCE_LINK)


def _link(text: str, url: str | None) -> str:
    """A Markdown link whose text is escaped and whose address cannot close it early."""
    shown = markup.escape(text)
    return f"[{shown}]({quote(url, safe=':/?&=#%+~,;@!$*')})" if url else shown


def _matches(row: Mapping, terms: list[str]) -> bool:
    return not terms or name_matches(str(row.get("model", "")), terms)


def author_view(rows: Sequence[Mapping], search: str = "") -> pd.DataFrame:
    """Model (a link to its Hub page), Benchmark, Score (a number; its text in attrs["display"]),
    Kind (the badge), Date, Source (a link: the source the file names, else the file itself),
    Notes; in the site's benchmark order per model, models by name."""
    terms = search_terms(search)
    chosen = sorted((r for r in rows if _matches(r, terms) and r.get("benchmark") in BENCHMARKS),
                    key=lambda r: (str(r["model"]).casefold(), BENCHMARKS.index(r["benchmark"]), str(r.get("file"))))
    data: dict[str, list] = {c: [] for c in AUTHOR_COLUMNS}
    for r in chosen:
        data[MODEL].append(_link(str(r["model"]), models.hub_url(str(r["model"]))))
        data[BENCHMARK].append(TITLES[r["benchmark"]])
        value = r.get("value")
        data[SCORE].append(float(value) if isinstance(value, (int, float)) else np.nan)
        data[KIND].append(KIND_BADGE)
        data[DATE].append(str(r.get("date") or ""))
        named = r.get("source_name") or ("the model's page" if r.get("source_url") else r.get("file") or "file")
        data[SOURCE_LINK].append(_link(str(named), r.get("source_url") or r.get("file_url")))
        data[NOTES].append(str(r.get("notes") or ""))  # a plain text column: shown as written
    out = pd.DataFrame(data, columns=list(AUTHOR_COLUMNS))
    out.attrs["display"] = {SCORE: [score(v) if not pd.isna(v) else None for v in data[SCORE]]}
    return out


def author_note(count: int, scanned_at: str | None) -> str:
    if not scanned_at:
        return ("No scan of the models' Hub pages has run yet: results their authors report there "
                "(`.eval_results` files) appear here once a maintainer runs one.")
    when = scanned_at[:16].replace("T", " ")
    return (f"{count} result{'s' if count != 1 else ''} the models' authors report on their Hub pages "
            f"(`.eval_results` files, read {when} UTC). Their own setups: shown beside our rows, never ranked.")
