"""The protocol side of a comparison: how the Compare tab's pickers mark each row, and
where the protocol cards of the two rows compared differ, field by field and benchmark
by benchmark. Pure, no gradio; the cards and each row's status are the table columns of
results/protocol_status.py.

    picker_options(rows)             # [(label · protocol status, id)] for the two pickers
    gap = protocol_gap(row_a, row_b)   # ProtocolGap: what differs, where; rows without a card
    gap.note(), gap.mark("exact")    # the summary's paragraph; the Note of one benchmark's rows

Two rows "differ" in a score-changing field (evaluator/protocol_card.py REFERENCE_FIELDS) when
both cards state it and the values differ, or when exactly one of the two rows deviates
from the suite's reference in it. A field a card does not state (a prediction file's
runner) is not counted, as for the reference. The judge and the suite are not here:
rows of different ones are never compared at all (leaderboard/compare.py check_pair).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from results import markup, protocol_status

EVERY = "*"  # a field that concerns every benchmark (resolution, thinking...)
FIELDS = ("frames", "prompts", "resolution", "generation", "scoring", protocol_status.OLDER)


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


def status_text(row: dict[str, Any]) -> str:
    """"✓ reference", "≠ scoring", "? protocol unknown"...: the Protocol column's text."""
    given = _text(row.get("protocol_text"))
    if given:
        return given
    return protocol_status.label(_text(row.get(protocol_status.STATUS)) or protocol_status.UNKNOWN,
                               _text(row.get(protocol_status.DEVIATIONS)) or None)


def picker_options(rows: pd.DataFrame) -> list[tuple[str, str]]:
    """(label, id) of each row, the label followed by its protocol status as the
    Leaderboard's Protocol column writes it: rows off the suite's reference read ≠."""
    return [(f"{label} · {status_text(row)}", str(row["id"]))
            for label, row in zip(rows["label"], rows.to_dict("records"))]


def card_of(row: dict[str, Any]) -> dict[str, Any] | None:
    raw = row.get(protocol_status.CARD)
    return json.loads(raw) if isinstance(raw, str) and raw else None


def _deviations(row: dict[str, Any]) -> set[str]:
    return {d.strip() for d in _text(row.get(protocol_status.DEVIATIONS)).split(",") if d.strip()}


@dataclass(frozen=True)
class ProtocolGap:
    """Where two rows' protocols differ. `fields`: field -> what differs ("" when only
    one row's deviation from the reference says so); `where`: field -> benchmarks it
    concerns (EVERY: all); `unknown`: "A" / "B" for a row without a card."""

    fields: dict[str, str] = field(default_factory=dict)
    where: dict[str, set[str]] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()

    @property
    def differs(self) -> bool:
        return bool(self.fields)

    def mark(self, benchmark: str) -> str:
        """The Note of a compared row of `benchmark`: "≠ protocols differ: frames"; "" where they agree."""
        if self.unknown:
            return f"? protocol of model {' and '.join(self.unknown)} unknown"
        names = [f for f in self.fields if EVERY in self.where.get(f, {EVERY}) or benchmark in self.where[f]]
        return f"≠ protocols differ: {', '.join(names)}" if names else ""

    def note(self) -> str:
        """The summary's paragraph on protocols (Markdown; card values escaped)."""
        if self.unknown:
            return (f"⚠️ **Protocol unknown** for model {' and '.join(self.unknown)}: a result written before "
                    "results carried a protocol card. Whether the two rows were run the same way cannot be told, "
                    "so A − B may mix the models' difference with a difference of protocol.")
        if not self.differs:
            return ("**Same protocol**: the two rows' protocol cards agree in every field that changes scores, "
                    "so A − B compares the models.")
        what = "; ".join(f"{name} ({markup.escape(detail)})" if detail else name
                         for name, detail in self.fields.items())
        return (f"⚠️ **Different protocols**: these two rows were not run the same way. They differ in {what}. "
                "A − B therefore mixes the difference between the models with the difference between the "
                "protocols; the rows concerned are marked ≠ in Note. Compare two rows run under the same protocol "
                "to compare the models alone.")


def protocol_gap(row_a: dict[str, Any], row_b: dict[str, Any]) -> ProtocolGap:
    """Where the protocols of two table rows differ (see the module docstring)."""
    cards = card_of(row_a), card_of(row_b)
    unknown = tuple(name for name, card in zip("AB", cards) if card is None)
    if unknown:
        return ProtocolGap(unknown=unknown)
    a, b = cards
    found: dict[str, tuple[str, set[str]]] = {}
    for name, check in _CHECKS.items():
        result = check(a, b)
        if result is not None:
            found[name] = result
    for name in _deviations(row_a) ^ _deviations(row_b):  # one row off the reference there, the other not
        found.setdefault(name, ("", {EVERY}))
    ordered = sorted(found, key=lambda f: FIELDS.index(f) if f in FIELDS else len(FIELDS))
    return ProtocolGap(fields={f: found[f][0] for f in ordered}, where={f: found[f][1] for f in ordered})


# -- one field each: (what differs, the benchmarks it concerns) or None ------------------------------------

def _benchmark_of(key: str, benchmarks: set[str]) -> str:
    """The benchmark a frame-budget key or scoring option belongs to ("videommmu_question_only"
    -> videommmu, "causalstep_restart" -> causalstep); EVERY for one named after none."""
    owners = [b for b in benchmarks if key == b or key.startswith(f"{b}_")]
    return max(owners, key=len) if owners else EVERY


def _per_benchmark(a: dict, b: dict) -> set[str]:
    return {name for name in set(a) | set(b) if a.get(name) != b.get(name)}


def _frames(a: dict, b: dict) -> tuple[str, set[str]] | None:
    times = _per_benchmark(a.get("frame_times_sha256") or {}, b.get("frame_times_sha256") or {})
    counts_a, counts_b = a.get("frames") or {}, b.get("frames") or {}
    keys = sorted(_per_benchmark(counts_a, counts_b))
    if not times and not keys:
        return None
    benchmarks = set(a.get("frame_times_sha256") or {}) | set(b.get("frame_times_sha256") or {})
    detail = ", ".join(f"{k}: {counts_a.get(k, '—')} vs {counts_b.get(k, '—')} frames per call" for k in keys)
    return detail or "the frame times of the calls", times | {_benchmark_of(k, benchmarks) for k in keys}


def _prompts(a: dict, b: dict) -> tuple[str, set[str]] | None:
    changed = _per_benchmark(a.get("prompts_sha256") or {}, b.get("prompts_sha256") or {})
    return ("the prompt texts of " + ", ".join(sorted(changed)), changed) if changed else None


def _resolution(a: dict, b: dict) -> tuple[str, set[str]] | None:
    ra, rb = a.get("resolution"), b.get("resolution")
    return (f"{ra} vs {rb}", {EVERY}) if ra is not None and rb is not None and ra != rb else None


def _thinking(card: dict) -> bool | None:
    """Thinking as run (a model run's generation) or as declared (a prediction file); None: not stated."""
    if card.get("generation") is not None:
        return bool(card["generation"].get("thinking"))
    declared = (card.get("declared") or {}).get("thinking")
    return None if declared is None else declared == "true"


def _generation(a: dict, b: dict) -> tuple[str, set[str]] | None:
    parts, where = [], set()
    ta, tb = _thinking(a), _thinking(b)
    if ta is not None and tb is not None and ta != tb:
        parts.append(f"thinking {'on' if ta else 'off'} vs {'on' if tb else 'off'}")
        where.add(EVERY)
    ga, gb = a.get("generation"), b.get("generation")
    if ga is not None and gb is not None:
        per_a, per_b = ga.get("benchmarks") or {}, gb.get("benchmarks") or {}
        for name in sorted(_per_benchmark(per_a, per_b)):
            sa, sb = per_a.get(name) or {}, per_b.get(name) or {}
            keys = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
            parts.append(f"{name}: " + ", ".join(f"{k} {sa.get(k)} vs {sb.get(k)}" for k in keys))
            where.add(name)
    return ("; ".join(parts), where) if parts else None


def _scoring(a: dict, b: dict) -> tuple[str, set[str]] | None:
    sa, sb = a.get("scoring") or {}, b.get("scoring") or {}
    keys = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
    if not keys:
        return None
    benchmarks = set(a.get("frame_times_sha256") or {}) | set(b.get("frame_times_sha256") or {})
    return ", ".join(f"{k}: {sa.get(k)} vs {sb.get(k)}" for k in keys), {_benchmark_of(k, benchmarks) for k in keys}


def _schema(a: dict, b: dict) -> tuple[str, set[str]] | None:
    va, vb = int(a.get("schema_version") or 1), int(b.get("schema_version") or 1)
    if va == vb:
        return None
    return f"model {'A' if va < vb else 'B'} was scored under an older reference protocol", {EVERY}


_CHECKS = {"frames": _frames, "prompts": _prompts, "resolution": _resolution, "generation": _generation,
           "scoring": _scoring, protocol_status.OLDER: _schema}
