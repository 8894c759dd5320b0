"""Protocol cards on the site: table columns, the status of each row, the card as text.
Pure pandas and strings, no gradio (the wiring is leaderboard/tabs/protocol_panel.py).

    row.update(row_columns(result))          # aggregate.result_row: the card in the table
    board["protocol_status"] = statuses(board)   # views.prepare
    card_markdown(board_row)                 # the card shown for one row

A row's status:
    reference   our worker ran the model with the suite's reference protocol (or a
                built-in baseline, our own code answering the suite's call list)
    declared    a prediction file: what the server controls (call list, judge, scoring)
                is the reference, the runner is the submitter's word, not verified
    differs     some score-changing field differs from the reference (which ones: the card)
    unknown     a result written before results carried a card
    paper       a paper-reported number, made with that paper's own protocol
Only RANKED_STATUSES rows are ranked. Every row is shown by default: `differs` and
`unknown` rows are marked (the Protocol column) and never ranked; the protocol filter can
keep only DEFAULT_STATUSES.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from evaluator.benchmarks import JUDGED
from evaluator.protocol_card import PROTOCOL_SCHEMA_VERSION
from results import coverage, markup, number_format

REFERENCE, DECLARED, DIFFERS, UNKNOWN, PAPER = "reference", "declared", "differs", "unknown", "paper"
DEFAULT_STATUSES = (REFERENCE, DECLARED, PAPER)
RANKED_STATUSES = (REFERENCE, DECLARED)

# What the filter offers (label, value); the value is what views.Filters.protocols takes.
# The default shows every row: off-protocol rows are marked and unranked, never hidden.
REFERENCE_ONLY, ALL_PROTOCOLS = "reference", "all"
FILTER_CHOICES = [("All rows (off-protocol marked ≠, not ranked)", ALL_PROTOCOLS),
                  ("Reference protocol only", REFERENCE_ONLY)]
DEFAULT_FILTER = ALL_PROTOCOLS
MARKED_STATUSES = (DIFFERS, UNKNOWN)  # rows the Protocol column is there for

# Table columns (results.aggregate rows).
STATUS, HASH, DEVIATIONS, CARD = "protocol_status", "protocol_hash", "protocol_deviations", "protocol_card"


OLDER = "an older protocol"  # the deviation of a card compared with an earlier reference


def _older(card) -> bool:
    """A card written under an earlier reference protocol (an older card schema): what it
    was compared with is not today's reference, so it is not compared (a rerun is)."""
    return card.schema_version < PROTOCOL_SCHEMA_VERSION


def status_of(card) -> str:
    if card is None:
        return UNKNOWN
    if card.deviations or _older(card):
        return DIFFERS
    return REFERENCE if card.verified else DECLARED


def row_columns(result) -> dict[str, Any]:
    """The card's columns of a result's table row; an old result without a card gets
    status "unknown" and nothing else."""
    card = result.protocol
    if card is None:
        return {STATUS: UNKNOWN, HASH: None, DEVIATIONS: None, CARD: None}
    deviations = [OLDER] if _older(card) else card.deviations
    return {STATUS: status_of(card), HASH: card.hash, DEVIATIONS: ", ".join(deviations) or None,
            CARD: card.model_dump_json()}


def statuses(frame: pd.DataFrame) -> pd.Series:
    """Every row's status: papers' rows "paper", rows without one "unknown"."""
    given = frame[STATUS].astype("string") if STATUS in frame.columns else pd.Series(pd.NA, index=frame.index,
                                                                                     dtype="string")
    reported = (frame["source"].astype("string") == "reported").fillna(False).to_numpy(bool) \
        if "source" in frame.columns else np.zeros(len(frame), bool)
    out = given.fillna(UNKNOWN).astype(object)
    out[reported] = PAPER
    return out


def label(status: str, deviations: str | None) -> str:
    """The Protocol column's text."""
    if status == DIFFERS:
        return f"≠ {deviations}" if deviations else "≠ differs"
    return {REFERENCE: "✓ reference", DECLARED: "reference (declared)", UNKNOWN: "? protocol unknown",
            PAPER: "paper's own"}.get(status, status)


def labels(frame: pd.DataFrame) -> pd.Series:
    deviations = frame[DEVIATIONS] if DEVIATIONS in frame.columns else pd.Series(None, index=frame.index)
    out = [label(s, d if isinstance(d, str) else None) for s, d in zip(frame["protocol_status"], deviations)]
    return pd.Series(out, index=frame.index, dtype=object)


def filter_mask(frame: pd.DataFrame, choice: str | None) -> pd.Series:
    """Rows the protocol filter keeps: REFERENCE_ONLY keeps DEFAULT_STATUSES; anything else keeps all."""
    if choice != REFERENCE_ONLY:
        return pd.Series(True, index=frame.index)
    return frame["protocol_status"].isin(DEFAULT_STATUSES)


# -- the card as text ------------------------------------------------------------------------

def _code(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    return f"`{text.replace('`', '')}`"


def _stated(value: Any, source: str) -> str:
    if value is None or value == {}:
        return {"prediction-file": "not stated (prediction file)",
                "baseline": "not used (a built-in baseline)"}.get(source, "not stated")
    return _code(value)


def _fields(pairs: dict[str, str]) -> list[str]:
    # a list, not a table: long hashes would squeeze a table's field column to a letter a line
    return [f"- **{name}**: {value}" for name, value in pairs.items()]


def card_markdown(row: dict | pd.Series) -> str:
    """One row's protocol card as Markdown (every field, with what it means for ranking)."""
    row = dict(row)
    model = str(row.get("model") or row.get("id") or "this row")
    status = str(row.get("protocol_status") or UNKNOWN)
    head = f"### Protocol card: {markup.escape(model)}\n"
    if status == PAPER:
        return head + ("**Paper's own protocol.** This number is printed in the benchmark's paper and was produced "
                       "with that paper's frames, prompts and judge, not by our worker, so nothing more about how it "
                       "was run is recorded here. It is ranked only among its paper's rows (\"3 📄\"), never beside "
                       "our verified rows. About → Protocol gives each paper's protocol, where ours differs, "
                       "and how an overall score a paper does not print (ExpVid's, CausalStep's) is computed from "
                       "its numbers.")
    raw = row.get(CARD)
    if status == UNKNOWN or not isinstance(raw, str) or not raw:
        return head + ("**Protocol unknown.** This result was written before results carried a protocol card: how it "
                       "was produced is not recorded here, so it is shown marked ? and not ranked. A rerun gives "
                       "it a card.")
    card = json.loads(raw)
    verified, source = bool(card.get("verified")), str(card.get("source"))
    verdict = _verdict(status, card, source)
    judge = card.get("judge") or {}
    generation = card.get("generation")
    # budgets, not counts: a call over a shorter video holds all its frames (the call list has each call's times)
    given = ("frames per call, at most (a shorter video gives all its frames; CausalStep: per segment)"
             + ("; the call list given" if source == "prediction-file" else ""))
    pairs = {
        "source": f"{source} ({'verified' if verified else _DECLARED_SOURCE})",
        "suite": _code(card.get("suite_id")),
        given: _code(card.get("frames")),
        "frame budgets": _budgets(card.get("frame_budgets")),
        "frame sampling": str(card.get("frame_sampling", "")).replace("|", "/"),
        "resolution": _stated(card.get("resolution"), source),
        "generation": _stated(generation, source),
        "repeated runs": _runs(card.get("runs"), source) + _fewer_runs(card.get("runs"), source,
                                                                         sorted(card.get("frame_times_sha256") or {})),
        "judge": _judge_text(judge) + _no_verdicts(row),
        "scoring options": _code(card.get("scoring")),
        # the submitter's own words: escaped, never inside a code span (which shows references as typed)
        "declared by the submitter (frames, thinking)": ", ".join(f"{markup.escape(k)} = {markup.escape(v)}"
                                               for k, v in sorted((card.get("declared") or {}).items())) or "nothing",
        "decoder": _stated(card.get("decoder"), source),
        "backend": _stated(" ".join(str(v) for v in (card.get("backend"), card.get("backend_version")) if v) or None,
                           source),
        "dtype": _stated(card.get("dtype"), source),
        "code version": _code(card.get("code_version")),
    }
    # what a reader compares between two cards, not reads: folded under the fields
    prints = {
        "frame times hash": _code(card.get("frame_times_sha256")),
        "prompts hash": _code(card.get("prompts_sha256")),
        "prompt template hashes": _code(card.get("prompt_templates")),
        "protocol hash": _code(card.get("hash")),
        "card schema": _code(card.get("schema_version")),
    }
    benchmarks = sorted(card.get("frame_times_sha256") or {})
    return "\n".join([head, verdict + _coverage(row, benchmarks), "", *_fields(pairs), "",
                      _folded("Fingerprints: equal hashes on two cards mean the same frames and prompts",
                              "\n".join(_fields(prints))),
                      _folded("Where our reference protocol differs from the papers'", paper_differences(benchmarks))])


def _coverage(row: dict, benchmarks: list[str]) -> str:
    """What the verdict adds where calls went unanswered: a low score may be partly calls never
    answered, so it is said before any field."""
    unanswered, skipped = coverage.coverage_text(row), coverage.not_answered(row, benchmarks)
    out = (f"\n\n**{coverage.PARTIAL_MARK} Answered in part**: {unanswered}. Each unanswered call counts as wrong "
           "in its benchmark's score.") if unanswered else ""
    return out + (f"\n\n**Not answered at all, so no score**: {', '.join(skipped)}." if skipped else "")


def _folded(title: str, body: str) -> str:
    """Markdown folded under a one-line title (an HTML details block; blank lines keep its Markdown)."""
    return f"<details><summary>{title}</summary>\n\n{body}\n\n</details>\n" if body else ""


_DECLARED_SOURCE = "answers scored by our worker; the runner declared, not verified"


def _verdict(status: str, card: dict, source: str) -> str:
    """The card's first line: where the row stands against the reference protocol."""
    if status == DIFFERS and int(card.get("schema_version") or 1) < PROTOCOL_SCHEMA_VERSION:
        return ("**≠ Scored under an older reference protocol** (before each benchmark's paper protocol was "
                "followed: frame budgets, decoding and runs as the papers ran them). Not comparable with "
                "today's rows, so shown, marked ≠, and not ranked; a rerun brings it up to date.")
    if status == DIFFERS:
        return (f"**≠ Differs from the suite's reference protocol in: {', '.join(card.get('deviations', []))}.** "
                "Shown, marked ≠, and not ranked.")
    if status == DECLARED:
        return ("**✓ Scored by our worker at the suite's reference protocol; how the answers were produced is the "
                "submitter's word.** The call list, judge and scoring are the suite's reference; the runner's fields "
                "(frames, decoding, resolution) are what the submitter declared, which we cannot check.")
    if source == "baseline":
        return "**✓ The suite's reference protocol**: a built-in baseline, our own code answering the call list."
    return "**✓ The suite's reference protocol**, run by our worker."


MATCHER_KIND = "normalized-match"  # the offline matcher's judge kind
MATCHER_NOTE = "string matching: not comparable with the paper's judge (About → Judges)"


def matcher_graded(row: dict | pd.Series) -> set[str]:
    """The judged benchmarks whose answers the offline matcher graded in this row, as its
    protocol card names each benchmark's judge (else the row's judge_kind)."""
    try:
        judge = json.loads(row.get(CARD) or "{}").get("judge") or {}
    except (TypeError, ValueError):
        judge = {}
    kinds = {b: (judge.get("by_benchmark") or {}).get(b, judge).get("kind", row.get("judge_kind")) for b in JUDGED}
    return {b for b, kind in kinds.items() if kind == MATCHER_KIND}


def _judge_text(judge: dict) -> str:
    """The judge of each judged benchmark; the offline matcher says it is not the paper's judge."""
    def one(j: dict) -> str:
        note = f"; {MATCHER_NOTE}" if j.get("kind") == MATCHER_KIND else ""
        return f"{_code(j.get('id'))} ({j.get('kind')}, pinned revision {_code(j.get('revision'))}{note})"
    by = judge.get("by_benchmark") or {}
    if not by:
        return one(judge)
    return "; ".join(f"{markup.escape(name)}: {one(j)}" for name, j in sorted(by.items()))


def _no_verdicts(row: dict) -> str:
    """"; no verdict on 12 videosimpleqa answers (scored as not correct)": where the judge
    abstained or failed, counted apart so a reader sees how much of the score it left out."""
    found = {name: row.get(f"{name}.judge_unscored") for name in JUDGED}
    given = {name: int(n) for name, n in found.items() if isinstance(n, (int, float)) and n == n and n > 0}
    if not given:
        return ""
    return "; no verdict on " + ", ".join(f"{n} {name}" for name, n in sorted(given.items())) + \
        " answers (scored as not correct; About → Judges)"


def _budgets(budgets: dict | None) -> str:
    """"videommmu: 64 (10-64; declared by the model's author)", one per choosable budget."""
    if not budgets:
        return "the suite's call list (no budget chosen)"
    return "; ".join(f"{markup.escape(k)}: {v.get('frames')} ({v.get('range')}; {markup.escape(str(v.get('why')))})"
                     for k, v in sorted(budgets.items()))


def _runs(runs: dict | None, source: str = "") -> str:
    """Each repeated benchmark's runs, their overalls and spread."""
    if not runs:
        return ("one run (a built-in baseline draws nothing at random: more runs would repeat it)"
                if source == "baseline" else "one run of every benchmark")
    return "; ".join(f"{name}: {r.get('runs')} runs, overall per run {_code(_scores(r.get('overall_per_run')))}"
                     + (f", sd {number_format.score(r['sd'])}" if isinstance(r.get("sd"), (int, float)) else "")
                     for name, r in sorted(runs.items()))


def _fewer_runs(runs: dict | None, source: str, benchmarks: list[str]) -> str:
    """For a prediction file: the benchmarks whose reference protocol averages several runs
    that the file gave fewer of (its score is then one run's, or a mean of fewer: the same
    expected score, a wider spread). A model-id run's card lists its runs; a deviation there
    is marked ≠ generation."""
    if source != "prediction-file":
        return ""
    from evaluator import reference
    from evaluator.benchmarks import BENCHMARKS

    short = []
    for name in benchmarks:
        wanted = reference.protocol(name).generation.runs if name in reference.names() else 1
        if wanted > 1 and int((runs or {}).get(name, {}).get("runs") or 1) < wanted:
            short.append(f"{BENCHMARKS[name].TITLE if name in BENCHMARKS else name} {wanted}")
    return (f"; the reference protocol averages more runs: {', '.join(short)} (a file may give each run of a "
            f"call as its own line, \"run\": 2 and 3)") if short else ""


def _scores(values: Any) -> Any:
    """A list of scores as the site writes them ("[52.80, 53.10]"); anything else as it is."""
    if not isinstance(values, list):
        return values
    return "[" + ", ".join(number_format.score(v) or "null" for v in values) + "]"


def paper_differences(benchmarks: list[str]) -> str:
    """Where our reference protocol differs from each paper's (their protocol.toml), for
    every row: a reader comparing a verified row with a paper's row needs to know."""
    from evaluator import reference

    lines = ["About → Protocol explains each point:"]
    for name in benchmarks:
        try:
            proto = reference.protocol(name)
        except Exception:  # noqa: BLE001 - a benchmark without a protocol file: nothing to list
            continue
        lines += [f"- {proto.title}, {row.point.lower()}: paper {row.paper}; ours {row.ours}. *Why:* {row.why}."
                  for row in proto.differences()]
    return "\n".join(lines) if len(lines) > 1 else ""


PICKER_ROWS = 300  # rows offered in the card picker (in board order); a clicked row is added


def card_options(board: pd.DataFrame, chosen: str | None = None) -> list[tuple[str, str]]:
    """(label, id) for the card picker: each row's name, then its protocol status; the
    first PICKER_ROWS rows (a large board would send thousands of choices to every page),
    plus `chosen` when it is further down."""
    if board.empty:
        return []
    ids = board["id"].astype(str)
    keep = pd.Series(range(len(board)), index=board.index) < PICKER_ROWS
    if chosen is not None:
        keep |= ids == chosen
    rows = board[keep.to_numpy(bool)]
    names = rows["label"] if "label" in rows.columns else rows["model"].astype(str)
    texts = rows["protocol_text"] if "protocol_text" in rows.columns else labels(rows)
    return [(f"{name} · {text}", str(row_id)) for name, text, row_id in zip(names, texts, rows["id"])]


def card_for(board: pd.DataFrame, row_id: str | None) -> str:
    """The card of the board's row `row_id`, or a prompt to pick one."""
    found = board[board["id"].astype("string") == row_id] if row_id else board.iloc[0:0]
    if found.empty:
        return "Pick a row (or click one in the table) to see how its numbers were produced."
    return card_markdown(found.iloc[0])
