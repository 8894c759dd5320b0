"""The Models view, the site's first page: one row per model (and variant) across the five
benchmarks, each cell the overall score our worker verified or, where it has none, the one
the benchmark's paper reports, with the paper's beside a verified one.

    rows = model_rows(papers, verified)          # one ModelRow per identity (leaderboard/models.py)
    shown = model_view(rows, sort_by="ExAct", search="qwen")

Reported numbers come from five papers' protocols, so no Average is made of them: a row
gets one only where all five of its cells are verified on one suite. A rank is given
within the column the view is sorted by, to models only (human and random baselines, the
papers' and our own built-in ones, are shown unranked), and over every model: a search
shows fewer rows, each with the rank it has in the whole list.

A verified number is ranked beside the papers' only where it means what theirs mean: a
row of an official suite (the benchmarks' own data) at each paper's reference protocol,
graded, where the benchmark needs a judge, by a language model as the paper's was (the
offline matcher's verdicts are not comparable with it). Another verified number (a demo
suite's synthetic videos; OFF_MARK: a run off the protocol, or a matcher's grades) is
shown, sorted by its value, unranked; where the paper reports the model, the row is ranked
by the paper's number and shows ours beside it.

A third kind of number, what a model's own authors report on its Hub page (the maintainers'
scan: leaderboard/author_results.py), is shown beside the others marked AUTHOR_MARK and is
never ranked: a cell holding only an author's number has no value to sort or rank by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from results import coverage, markup
from results.protocol_status import matcher_graded
from leaderboard import models
from results.number_format import score
from leaderboard.views.columns import AVERAGE, BENCHMARKS, MODEL, RANK, TITLES, as_text, name_matches, search_terms
from leaderboard.views.suites import is_official

VERIFIED_MARK, REPORTED_MARK, AUTHOR_MARK, OFF_MARK = "✓", "📄", "✍", "≠"
BASELINE_RANK = "—"  # a human or random row: a reference point, never ranked
DEMO_RANK = "demo"  # a run on a suite that is not the benchmarks' own data: shown, not ranked beside the papers'
SCORE_COLUMNS = tuple(TITLES[b] for b in BENCHMARKS)
NO_AVERAGE = (f"No Average of papers' numbers: a row has one where all {len(BENCHMARKS)} scores are verified on "
              "one suite.")


@dataclass
class ModelRow:
    """One model (and variant): its verified and reported overall score per benchmark."""

    identity: models.Identity
    verified: dict[str, float] = field(default_factory=dict)
    reported: dict[str, float] = field(default_factory=dict)
    authors: dict[str, float] = field(default_factory=dict)  # the model's authors' own (never ranked)
    apart: set[str] = field(default_factory=set)  # benchmarks whose verified number is not the papers' kind
    differs: set[str] = field(default_factory=set)  # of them, off the paper's protocol or judge (OFF_MARK)
    partial: set[str] = field(default_factory=set)  # benchmarks whose verified run left calls unanswered
    demo: bool = False  # its verified numbers come from a demo suite (synthetic videos)

    def score(self, benchmark: str) -> float | None:
        """The number the row is sorted by in this benchmark's column (see rankable)."""
        mine, paper = self.verified.get(benchmark), self.reported.get(benchmark)
        return mine if mine is not None and (benchmark not in self.apart or paper is None) else paper

    def rankable(self, benchmark: str) -> bool:
        """Whether score(benchmark) may be ranked: a paper's number, or a comparable verified one."""
        return self.identity.kind == "model" and (benchmark in self.reported or
                                                   (benchmark in self.verified and benchmark not in self.apart))

    @property
    def average_rankable(self) -> bool:
        """Whether the Average may be ranked: a model's, every one of its verified numbers comparable."""
        return self.identity.kind == "model" and not self.apart and self.average is not None

    @property
    def average(self) -> float | None:
        if len(self.verified) == len(BENCHMARKS):
            return round(sum(self.verified.values()) / len(BENCHMARKS), 2)
        return None


def _number(value) -> float | None:
    """One cell as a number (None where it holds none), read as _numbers reads a column."""
    value = pd.to_numeric(value, errors="coerce") if value is not None else np.nan
    return None if pd.isna(value) else float(value)


def _score(row: pd.Series, benchmark: str) -> float | None:
    return _number(row.get(f"{benchmark}.overall"))


def _paper_identity(row: pd.Series, benchmark: str, table: models.ModelTable) -> models.Identity | None:
    thinking = row.get("thinking")
    frames = _number(row.get("frames"))
    try:
        return models.resolve_paper_row(benchmark, str(row["model"]),
                                        thinking=thinking if isinstance(thinking, bool) else None,
                                        frames=None if frames is None else int(frames), table=table)
    except KeyError:
        return None  # a row the reviewed table lacks: the papers' own tab still shows it


def search_names(board: pd.DataFrame, table: models.ModelTable | None = None) -> pd.Series:
    """The names a Leaderboard search matches on each row: its own, and for a paper's row also
    the Models page's name for its model (the ExpVid paper's "Gemini-2.5-Flash" is found as
    "Gemini 2.5 Flash (thinking)", as the Models page shows it)."""
    table = table or models.load_models()
    names = [(name,) for name in as_text(board["model"])]
    ids = as_text(board["id"]) if "id" in board else pd.Series("", index=board.index)
    for i in [i for i, row_id in enumerate(ids) if row_id.startswith("reported/")]:  # papers' rows only
        if found := _paper_identity(board.iloc[i], ids.iloc[i].split("/")[1], table):
            names[i] = tuple(dict.fromkeys((*names[i], found.display, found.name)))
    return pd.Series(names, index=board.index, dtype=object)


def _verified_identity(row: pd.Series, table: models.ModelTable) -> models.Identity:
    thinking = str(row.get("thinking_text", "")) == "on"
    if str(row.get("kind")) == "baseline":  # a built-in baseline (random, first option): a reference point, no model
        name = str(row["model"])
        return models.Identity(key=f"baseline:{name.casefold()}", name=name, display=name, kind="baseline", listed=False)
    if str(row.get("kind")) == "model":
        return models.resolve_hub_model(str(row["model"]), thinking=thinking, table=table)
    declared = row.get("meta.hub_id")
    return models.resolve_prediction(str(row["model"]), declared if isinstance(declared, str) and declared else None,
                                     thinking=thinking, table=table)


def _author_identity(model: str, table: models.ModelTable) -> models.Identity:
    try:
        return models.resolve_hub_model(model, thinking=False, table=table)
    except KeyError:  # several variants list this Hub id and none is the plain one
        return models.Identity(key=f"hub:{model.casefold()}", name=model, display=model, hub_id=model, listed=False)


def model_rows(papers: pd.DataFrame, verified: pd.DataFrame | None = None,
               table: models.ModelTable | None = None, authors: Sequence[dict] = ()) -> list[ModelRow]:
    """Every model of the papers' prepared rows and of one suite's prepared verified rows
    (leaderboard.views.prepare), grouped by identity. A model with several verified rows
    takes the best-placed ranked one (the board's order), else its first. `authors`: the
    rows the models' authors report (author_results.Report.rows), the first per benchmark."""
    table = table or models.load_models()
    found: dict[str, ModelRow] = {}
    for _, row in papers.iterrows():
        benchmark = str(row.get("id", "")).split("/")[1] if str(row.get("id", "")).startswith("reported/") else None
        identity = _paper_identity(row, benchmark, table) if benchmark else None
        score = _score(row, benchmark) if identity else None
        if identity is not None and score is not None:
            found.setdefault(identity.key, ModelRow(identity)).reported.setdefault(benchmark, score)
    if verified is not None and len(verified):
        rows = verified[verified["source_kind"] == "verified"]
        order = rows.assign(_unranked=~rows["ranked"].astype(bool)).sort_values("_unranked", kind="stable")
        taken: set[str] = set()
        for _, row in order.iterrows():
            identity = _verified_identity(row, table)
            if identity.key in taken:
                continue
            taken.add(identity.key)
            entry = found.setdefault(identity.key, ModelRow(identity))
            entry.verified = {b: s for b in BENCHMARKS if (s := _score(row, b)) is not None}
            # off the protocol: every number differs; a demo suite's: none is the papers' kind (—); an
            # official suite's: those the offline matcher graded differ from the papers' judge
            official, off = is_official(row.get("suite_id")), not bool(row["ranked"])
            entry.differs = set(entry.verified) if off else set(entry.verified) & matcher_graded(row) if official \
                else set()
            entry.apart = set(entry.verified) if off or not official else entry.differs
            entry.partial = set(coverage.unanswered(row)) & set(entry.verified)
            entry.demo = not official
    for reported in authors:
        value = _number(reported.get("value"))
        if reported.get("benchmark") in BENCHMARKS and value is not None and reported.get("model"):
            identity = _author_identity(str(reported["model"]), table)
            found.setdefault(identity.key, ModelRow(identity)).authors.setdefault(reported["benchmark"], value)
    return list(found.values())


def _cell_text(row: ModelRow, benchmark: str) -> str | None:
    """The number sorted by first, then the others beside it: "61.20 ✓ · 📄 58.10"."""
    mine, paper, author = row.verified.get(benchmark), row.reported.get(benchmark), row.authors.get(benchmark)
    ours = (f"{VERIFIED_MARK}{OFF_MARK if benchmark in row.differs else ''}"
            f"{coverage.PARTIAL_MARK if benchmark in row.partial else ''}")
    parts = [(mine, ours), (paper, REPORTED_MARK)]
    if mine is not None and paper is not None and benchmark in row.apart:
        parts.reverse()  # ranked by the paper's number: ours beside it
    parts = [p for p in [*parts, (author, AUTHOR_MARK)] if p[0] is not None]
    if not parts:
        return None
    (first, mark), *rest = parts
    return f"{score(first)} {mark}" + "".join(f" · {m} {score(v)}" for v, m in rest)


def _unranked(row: ModelRow, differs: bool) -> str:
    """The Rank cell of a row shown unranked: a paper's people or chance, or our baseline on an
    official suite (—); a run on a demo suite, our baselines' too (demo); a run off the protocol (≠)."""
    if row.identity.kind != "model" and not (row.identity.kind == "baseline" and row.demo):
        return BASELINE_RANK
    return OFF_MARK if differs else DEMO_RANK


def _model_cell(identity: models.Identity) -> str:
    """The model's name as Markdown, a link to its Hub page where it has one (the name is
    escaped: a prediction file's name is the submitter's text)."""
    name = markup.escape(identity.display)
    return f"[{name}]({identity.hub_url})" if identity.hub_url else name


def sort_choices(rows: Sequence[ModelRow]) -> list[str]:
    """The columns the view can be ranked by: each benchmark, and Average where a model has
    one that can be ranked (an Average of demo or off-protocol runs would rank nothing)."""
    return [*SCORE_COLUMNS, *([AVERAGE] if any(r.average_rankable for r in rows) else [])]


def default_sort(rows: Sequence[ModelRow]) -> str:
    """The benchmark with the most scored models (the first in the site's order on a tie)."""
    counts = {TITLES[b]: sum(r.score(b) is not None for r in rows) for b in BENCHMARKS}
    return max(SCORE_COLUMNS, key=lambda c: (counts[c], -SCORE_COLUMNS.index(c)))


def _matches(row: ModelRow, terms: list[str]) -> bool:
    if not terms:
        return True
    names = [row.identity.display, row.identity.hub_id or "", *(n for _, ns in row.identity.names for n in ns)]
    return any(name_matches(name, terms) for name in names)


def model_view(rows: Sequence[ModelRow], sort_by: str | None = None, search: str = "") -> pd.DataFrame:
    """Rank, Model (Markdown), the five benchmarks (numbers; their "61.20 ✓" text in
    attrs["display"]) and Average where any row has one, sorted by `sort_by` (best first,
    rows without that score last) and ranked in it: 1 + the models scoring strictly
    higher, so ties share a rank. Ranks are over every row, searched or not; attrs["total"]
    is how many rows there are before the search."""
    chosen = [r for r in rows if _matches(r, search_terms(search))]
    opening = default_sort(rows)
    sort_by = sort_by if sort_by in sort_choices(rows) else opening
    key = {TITLES[b]: b for b in BENCHMARKS}

    def value(row: ModelRow) -> float | None:
        return row.average if sort_by == AVERAGE else row.score(key[sort_by])

    def rankable(row: ModelRow) -> bool:
        return row.average_rankable if sort_by == AVERAGE else row.rankable(key[sort_by])

    def differs(row: ModelRow) -> bool:  # what keeps a model's shown number from a rank: ≠, else —
        return bool(row.differs) if sort_by == AVERAGE else key[sort_by] in row.differs
    chosen.sort(key=lambda r: (value(r) is None, -(value(r) or 0.0), r.identity.display.lower()))
    ranked = [value(r) for r in rows if rankable(r)]
    # the column ranked by comes first after the model: on a phone it is the one in view
    scores = [*SCORE_COLUMNS, *([AVERAGE] if AVERAGE in sort_choices(rows) else [])]
    columns = [RANK, MODEL, sort_by, *(c for c in scores if c != sort_by)]
    data: dict[str, list] = {RANK: [], MODEL: [], **{c: [] for c in columns[2:]}}
    texts: dict[str, list] = {c: [] for c in columns[2:]} | {RANK: []}
    for row in chosen:
        v = value(row)
        rank = 1 + sum(other > v for other in ranked) if rankable(row) else None
        data[RANK].append(float(rank) if rank is not None else np.nan)
        # a demo run says so on every row, also where it has no number in the column ranked by
        texts[RANK].append(None if rank is not None or v is None and row.identity.kind == "model" and not row.demo
                           else _unranked(row, differs(row)))
        data[MODEL].append(_model_cell(row.identity))
        for b in BENCHMARKS:
            data[TITLES[b]].append(row.score(b) if row.score(b) is not None else np.nan)
            texts[TITLES[b]].append(_cell_text(row, b))
        if AVERAGE in data:
            data[AVERAGE].append(row.average if row.average is not None else np.nan)
            mark = VERIFIED_MARK + coverage.PARTIAL_MARK * bool(row.partial)
            texts[AVERAGE].append(f"{score(row.average)} {mark}" if row.average is not None else None)
    out = pd.DataFrame(data, columns=columns)
    out[RANK] = out[RANK].astype("Int64") if len(out) else out[RANK]
    out.attrs["display"] = texts
    out.attrs["sort_by"] = sort_by
    out.attrs["default"] = sort_by == opening  # the column the page opens on
    out.attrs["total"] = len(rows)
    out.attrs["baselines"] = sum(r.identity.kind != "model" for r in rows)
    out.attrs["partial"] = any(r.partial for r in rows)
    return out


@lru_cache(maxsize=1)
def derived_overall() -> tuple[str, ...]:
    """The benchmarks whose paper prints no overall score (its reported table says how the
    one shown is computed from the paper's numbers)."""
    from leaderboard.reported import load_reported

    return tuple(TITLES[t.benchmark] for t in load_reported() if "overall" in t.derived)


def models_note(shown: pd.DataFrame, official: bool) -> str:
    """The line above the table: what it is ranked by and why, and what the marks mean (in
    full: models_legend, under the table)."""
    total, others = shown.attrs.get("total", len(shown)), shown.attrs.get("baselines", 0)
    rows = f"{total - others} models and {others} baselines" if others else f"{total} models"
    count = rows if len(shown) == total else f"{len(shown)} of {rows} shown (ranks are over all of them)"
    why = (", the benchmark with the most models scored (no rank across benchmarks: each paper has its own "
           "protocol; the menu beside the search picks another)") if shown.attrs.get("default") else ""
    demo = "" if official else f"; **{DEMO_RANK}** runs on this demo suite"
    partial = f" · **{coverage.PARTIAL_MARK}** calls left unanswered" if shown.attrs.get("partial") else ""
    return (f"{count}, ranked by **{shown.attrs['sort_by']}** only{why} · {VERIFIED_MARK} verified by our worker · "
            f"{REPORTED_MARK} the paper's · {AUTHOR_MARK} the model's authors' · unranked: **{BASELINE_RANK}** "
            f"baselines{demo}; **{OFF_MARK}** off the paper's protocol{partial} · how this ranks: under the table.")


def models_legend(suite: str, official: bool) -> str:
    """How the page ranks, in full: which numbers are ranked together, which are shown
    unranked and why. `suite`: how the verified rows' suite is named."""
    demo = ("" if official else f" **{DEMO_RANK}**: a run on {suite.removeprefix(VERIFIED_MARK).strip()}, our "
            "built-in baselines' too, shown unranked here (its videos are not the benchmarks' own data; the "
            "Leaderboard ranks it within that suite).")
    derived = "'s and ".join(derived_overall())
    made = (f" {REPORTED_MARK} {derived}'s overall: computed from the paper's numbers, which give none (About → "
            f"Protocol)." if derived else "")
    return (f"Each model is ranked by one number per column: {VERIFIED_MARK} our worker's, where it ran on the "
            f"benchmarks' own data at the paper's protocol, else {REPORTED_MARK} the paper's; both are ranked together "
            f"(each paper its own setup: read a point or two as a tie; the Leaderboard keeps them apart, ranking a "
            f"paper's rows among themselves and a suite's verified rows among themselves). **{BASELINE_RANK}**: a "
            f"baseline (people, "
            f"chance, our built-in runs), a reference point, not ranked on this page.{demo} **{OFF_MARK}**: our run "
            f"on the benchmarks' own data (an official suite) off the paper's protocol, or graded by the offline "
            f"matcher where the paper used a language model "
            f"(ExpVid's blanks, Video SimpleQA), shown unranked (its protocol card says what differs); where the "
            f"paper reports the model, the row is ranked by the paper's number, ours beside it. {AUTHOR_MARK}: the "
            f"model's authors' own number on its Hub page, never ranked.{made} **{coverage.PARTIAL_MARK}**: some "
            f"of the benchmark's calls were never answered in our run (a prediction file left them out); each counts "
            f"as wrong in the score (the Leaderboard's protocol card says how many). {NO_AVERAGE}")


NAMES_INTRO = ("Each row above joins one model's numbers from the five papers, which often spell its name "
               "differently (a date, the size, \"-Instruct\" dropped). Below is every model's name in each paper, as "
               "reviewed (blank: the paper does not report it), with the reviewers' notes; the search finds a model "
               "by any of these names. A human row joins people of the same kind from different papers, not the "
               "same people.")


def names_table(table: models.ModelTable | None = None) -> str:
    """Markdown: the names each paper prints for every model (the reviewed identities,
    leaderboard/reported_data/models.json), so a reader can see which papers' rows a Models
    row joins."""
    table = table or models.load_models()
    head = [MODEL, *(TITLES[b] for b in BENCHMARKS), "Note"]
    lines = [NAMES_INTRO, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for identity in sorted(table.identities, key=lambda i: i.display.casefold()):
        cells = [identity.display, *(" · ".join(identity.paper_names(b)) for b in BENCHMARKS), identity.notes]
        lines.append("| " + " | ".join(markup.escape(c) for c in cells) + " |")
    return "\n".join(lines)


def model_names(view: pd.DataFrame) -> list[str]:
    """The Model column as plain names (tests and the API read it without its links)."""
    return [markup_text(v) for v in as_text(view[MODEL])]


def markup_text(cell: str) -> str:
    return cell[1:cell.index("](")] if cell.startswith("[") and "](" in cell else cell
