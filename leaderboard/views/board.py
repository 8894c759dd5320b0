"""The prepared board: derived columns (badge, type, size, frames), sorting, ranks and bands."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from results import number_format, protocol_status, ranking
from results.ranking import interval_ranks, overall_columns  # noqa: F401 - views.interval_ranks
from leaderboard.views.models import search_names
from leaderboard.views.columns import (
    BASELINE, BENCHMARKS, MODEL_BUDGET_FRAMES, REPORTED, SIZES, SUITE_DEFAULT_FRAMES, TITLES, UNSTATED_FRAMES,
    VERIFIED_FILE, VERIFIED_RUN, column_or_empty, flags, as_numbers, as_text, in_words,
)


# -- derived columns ----------------------------------------------------------------------------------------

def badge(frame: pd.DataFrame) -> pd.Series:
    source = column_or_empty(frame, "source").astype("string").fillna("")
    kind = column_or_empty(frame, "kind").astype("string").fillna("")
    # only a model we ran is a run: a prediction file, or a row that does not say, is a file
    verified = np.where(kind == "model", VERIFIED_RUN, VERIFIED_FILE)
    out = np.where(source == "reported", REPORTED, np.where(kind == "baseline", BASELINE, verified))
    return pd.Series(out, index=frame.index, dtype=object)


def params_billions(frame: pd.DataFrame) -> pd.Series:
    """Parameters in billions: the paper's `params_b`, else the submission's `params`
    text ("7.62", "7B", "500M", or a raw count such as "7615616512")."""
    text = column_or_empty(frame, "params").astype("string").str.strip()
    parts = text.str.extract(r"^([0-9]*\.?[0-9]+)\s*([kKmMbBtT]?)", expand=True)
    number = as_numbers(parts[0])
    unit = parts[1].astype("string").str.upper().map({"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3})
    number = number * as_numbers(unit).fillna(1.0)
    number = number.where(~(number > 1e5), number / 1e9)  # a raw count, not billions
    return as_numbers(column_or_empty(frame, "params_b")).fillna(number)


def size_bucket(params_b: pd.Series) -> pd.Series:
    out = np.select([params_b < 10, params_b <= 40, params_b > 40], list(SIZES[:3]), default=SIZES[3])
    return pd.Series(out, index=params_b.index, dtype=object)


def model_type(frame: pd.DataFrame) -> pd.Series:
    """open / closed / baseline / human / random / unspecified."""
    kind = column_or_empty(frame, "kind").astype("string")
    row_kind = column_or_empty(frame, "row_kind").astype("string")
    declared = flags(column_or_empty(frame, "open")).fillna(flags(column_or_empty(frame, "meta.open")))
    conditions = [
        (kind == "baseline").fillna(False).to_numpy(bool),
        (row_kind == "human").fillna(False).to_numpy(bool),
        (row_kind == "random").fillna(False).to_numpy(bool),
        (kind == "model").fillna(False).to_numpy(bool),  # a Hub model: public weights (validation insists)
        declared.eq(True).fillna(False).to_numpy(bool),  # a nullable boolean: NA matches neither
        declared.eq(False).fillna(False).to_numpy(bool),
    ]
    out = np.select(conditions, ["baseline", "human", "random", "open", "open", "closed"], default="unspecified")
    return pd.Series(out, index=frame.index, dtype=object)


def frames_used(frame: pd.DataFrame) -> pd.Series:
    """The frame count: the run's own, else the one a prediction file's submitter stated."""
    return as_numbers(column_or_empty(frame, "frames")).fillna(as_numbers(column_or_empty(frame, "meta.frames")))


def _own_budgets(frame: pd.DataFrame) -> np.ndarray:
    """Rows of model runs whose frame budgets (runner.frame_budgets) differ from the protocols' defaults."""
    from evaluator.reference import default_budgets

    defaults = default_budgets()

    def own(text: object) -> bool:
        budgets = json.loads(text) if isinstance(text, str) and text.startswith("{") else {}
        return any(defaults.get(k, v) != v for k, v in budgets.items())
    return np.array([own(t) for t in column_or_empty(frame, "runner.frame_budgets")], dtype=bool)


def frames_label(frame: pd.DataFrame, frames: pd.Series) -> pd.Series:
    """What the frames filter offers: "32", or SUITE_DEFAULT_FRAMES / MODEL_BUDGET_FRAMES / UNSTATED_FRAMES."""
    reported = (column_or_empty(frame, "source").astype("string") == "reported").fillna(False).to_numpy(bool)
    missing = np.where(reported, UNSTATED_FRAMES, np.where(_own_budgets(frame), MODEL_BUDGET_FRAMES,
                                                           SUITE_DEFAULT_FRAMES))
    text = frames.map(lambda v: f"{v:g}", na_action="ignore").astype(object)
    return text.where(frames.notna(), pd.Series(missing, index=frame.index, dtype=object))


def thinking_text(frame: pd.DataFrame) -> pd.Series:
    flag = flags(column_or_empty(frame, "thinking"))
    declared = flags(column_or_empty(frame, "meta.thinking"))
    flag = flag.where(~declared.eq(True).fillna(False), True)  # a prediction file's stated thinking mode
    out = np.select([flag.eq(True).fillna(False).to_numpy(bool), flag.eq(False).fillna(False).to_numpy(bool)],
                    ["on", "off"], default="")
    return pd.Series(out, index=frame.index, dtype=object)


def _labels(frame: pd.DataFrame) -> pd.Series:
    """Unique names for the plots' and the protocol card's pickers: the model as the table
    names it (model_text), the paper for reported rows, and the end of the id where two
    rows would still read the same."""
    ids = as_text(column_or_empty(frame, "id"))
    label = as_text(frame["model_text"]).where(as_text(frame["model_text"]) != "", ids)
    paper_bench = _paper_benchmark(frame)
    label = label.where(paper_bench.isna(), label + " (" + paper_bench.astype(str) + " paper)")
    return label.where(~label.duplicated(keep=False), label + " #" + ids.str[-6:])


def prepare(rows: pd.DataFrame) -> pd.DataFrame:
    """The suite's rows with the columns every view needs, in the Leaderboard's order with
    each row's rank and band (results/ranking.py `ranked`: reported rows have none).
    Ranking happens here, before any filter, so a filter never renumbers rows."""
    out = rows.copy()
    for column in ("model", "id", "average", *overall_columns()):
        if column not in out.columns:
            out[column] = np.nan
    out["badge"] = badge(out)
    out["model_type"] = model_type(out)
    out["params_b"] = params_billions(out)
    out["size"] = size_bucket(out["params_b"])
    out["frames_n"] = frames_used(out)
    out["frames_label"] = frames_label(out, out["frames_n"])
    out["thinking_text"] = thinking_text(out)
    out["date"] = as_text(column_or_empty(out, "created")).str[:10]
    # sorted and ranked as the open exports are (results/ranking.py): papers' rows grouped by
    # paper, so a CausalStep number is never ordered against a Video SimpleQA one
    out = ranking.ranked(out)
    out["model_text"] = _variant_names(out)
    out["search_names"] = search_names(out)
    out["runner_text"] = as_text(column_or_empty(out, "runner")).where(out["source_kind"] == "verified", "paper")
    out["protocol_text"] = protocol_status.labels(out)
    out["label"] = _labels(out)
    return out


def _variant_names(frame: pd.DataFrame) -> pd.Series:
    """Model names as shown, "(thinking)" / "(no thinking)" added where one paper prints a
    name twice for the two settings (the Thinking column is not shown by default)."""
    names = as_text(frame["model"])
    paper = _paper_benchmark(frame)
    twice = pd.DataFrame({"p": paper, "m": names}).duplicated(keep=False).to_numpy(bool) & paper.notna().to_numpy(bool)
    thinking = frame["thinking_text"].to_numpy()
    suffix = np.where(thinking == "on", " (thinking)", np.where(thinking == "off", " (no thinking)", ""))
    return names.where(~twice, names + suffix)


def suite_benchmarks(board: pd.DataFrame) -> list[str]:
    """The benchmarks the board's verified rows have scores on (its papers' rows', where it
    has only those), in the site's order: what a view of this suite can show (a suite may
    hold any of the five)."""
    verified = board[board["source_kind"] == "verified"] if "source_kind" in board.columns else board
    rows = verified if len(verified) else board
    return [b for b in BENCHMARKS if as_numbers(column_or_empty(rows, f"{b}.overall")).notna().any()]


def average_note(board: pd.DataFrame) -> str:
    """What Average means on this board when its suite does not hold every benchmark
    ("" when it does, or when nothing is scored)."""
    held = suite_benchmarks(board)
    if not held or len(held) == len(BENCHMARKS):
        return ""
    listed = in_words([TITLES[b] for b in held])
    return (f"This suite holds {len(held)} of the {len(BENCHMARKS)} benchmarks ({listed}): **Average** is the mean of "
            f"{'its overall score' if len(held) == 1 else f'these {len(held)} overall scores'}, and rows are "
            f"ranked by it.")


def ci_text(frame: pd.DataFrame, benchmark: str) -> pd.Series:
    """"[6.00, 15.63]" for display (results/number_format.py); a text column of its own so the
    score column sorts as numbers."""
    low = column_or_empty(frame, f"{benchmark}.overall_ci_low").to_numpy()
    high = column_or_empty(frame, f"{benchmark}.overall_ci_high").to_numpy()
    return pd.Series([number_format.interval(lo, hi) or "" for lo, hi in zip(low, high)], index=frame.index,
                     dtype=object)


def _paper_benchmark(frame: pd.DataFrame) -> pd.Series:
    """The benchmark whose paper a reported row comes from (its id: reported/<benchmark>/...)."""
    ids = as_text(column_or_empty(frame, "id"))
    return ids.str.extract(r"^reported/([^/]+)/", expand=False).map(TITLES, na_action="ignore")


def source_text(frame: pd.DataFrame) -> pd.Series:
    """The Source column: the badge, and for a paper's row which paper ("📄 ExAct paper")."""
    paper = _paper_benchmark(frame)
    named = "📄 " + paper.astype(str) + " paper"
    return named.where(paper.notna(), frame["badge"]).astype(object)
