"""Model identity: which model, and which variant of it, a result is about, so that one
model's rows from the five papers, and our verified runs of it, can be put together.

The papers name one model differently (Qwen2.5-VL-72B-Instruct / Qwen2.5-VL-72B), and
some print one name twice, told apart by a setting (thinking on or off). The reviewed
table `leaderboard/reported_data/models.json` has one entry per model and variant with
the names each paper prints for it: a paper row resolves only through those names, never
by a guess. A verified result resolves by its Hub id, or by its prediction file's display
name; one the table does not know gets an identity of its own (`listed` False).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from evaluator import benchmarks
from leaderboard.reported import DATA_DIR, MODELS_FILE, ROW_KINDS, ReportedDataError

SCHEMA_VERSION = 1
HUB_URL = "https://huggingface.co/"
KEY = re.compile(r"[a-z0-9][a-z0-9.-]*")  # listed keys; unlisted ones carry a "hub:" or "name:" prefix


@dataclass(frozen=True)
class Identity:
    key: str  # stable: what rows are grouped by
    name: str  # the model without its variant (shared by a model's variants)
    display: str  # as shown; unique in the table
    kind: str = "model"  # "model" | "human" | "random"
    hub_id: str | None = None  # open weights only
    thinking: bool | None = None  # the variant; None where the setting tells no rows apart
    frames: int | None = None
    names: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (benchmark, names its paper prints)
    notes: str = ""
    listed: bool = True  # False: made for a verified result the table does not know

    def paper_names(self, benchmark: str) -> tuple[str, ...]:
        return dict(self.names).get(benchmark, ())

    @property
    def hub_url(self) -> str | None:
        return hub_url(self.hub_id) if self.hub_id else None


@dataclass(frozen=True)
class ModelTable:
    schema_version: int
    identities: tuple[Identity, ...]
    notes: tuple[str, ...] = ()


def hub_url(hub_id: str) -> str:
    """The model's page on the Hugging Face Hub."""
    return HUB_URL + hub_id


def _norm(text: str) -> str:
    # Papers differ in case and separators only ("Claude-Sonnet-4" / "Claude Sonnet 4").
    return re.sub(r"[^a-z0-9.]+", "-", text.casefold()).strip("-")


def _identity(raw: dict[str, Any], where: str) -> Identity:
    variant = raw.get("variant", {})
    if not KEY.fullmatch(raw.get("key") or "") or not raw.get("name"):
        raise ReportedDataError(f"{where}: needs a key (lower case, digits, '.', '-') and a name")
    if raw.get("kind", "model") not in ROW_KINDS or set(variant) - {"thinking", "frames"}:
        raise ReportedDataError(f"{where}: unknown kind or variant field")
    if not isinstance(variant.get("thinking", False), bool) or type(variant.get("frames", 0)) is not int:
        raise ReportedDataError(f"{where}: variant thinking must be true/false, frames a whole number")
    if set(raw.get("names", {})) - set(benchmarks.BENCHMARKS) or not raw.get("names"):
        raise ReportedDataError(f"{where}: names must map known benchmarks to the names their papers print")
    return Identity(
        key=raw["key"], name=raw["name"], display=raw.get("display", raw["name"]), kind=raw.get("kind", "model"),
        hub_id=raw.get("hub_id"), thinking=variant.get("thinking"), frames=variant.get("frames"),
        names=tuple((b, tuple(n)) for b, n in raw["names"].items()), notes=raw.get("notes", ""))


def load_models(path: Path | None = None) -> ModelTable:
    """The reviewed table (default: reported_data/models.json), checked for its schema
    version and for unique keys and display names."""
    path = Path(path) if path is not None else DATA_DIR / MODELS_FILE
    raw = json.loads(path.read_text())
    if raw.get("schema_version") != SCHEMA_VERSION:
        raise ReportedDataError(f"{path.name}: schema_version {raw.get('schema_version')!r}, "
                                f"this code reads {SCHEMA_VERSION}")
    identities = tuple(_identity(r, f"{path.name}: identities[{i}]") for i, r in enumerate(raw["identities"]))
    for attr in ("key", "display"):
        values = [getattr(i, attr) for i in identities]
        if len(set(values)) != len(values):
            raise ReportedDataError(f"{path.name}: two identities share a {attr}")
    return ModelTable(schema_version=raw["schema_version"], identities=identities, notes=tuple(raw.get("notes", ())))


@lru_cache(maxsize=1)
def _default_table() -> ModelTable:
    return load_models()


def _fits(identity: Identity, thinking: bool | None, frames: int | None) -> bool:
    # An unset side (the identity's or the row's) does not tell variants apart.
    return all(mine is None or theirs is None or mine == theirs
               for mine, theirs in ((identity.thinking, thinking), (identity.frames, frames)))


def _one(found: list[Identity], what: str) -> Identity | None:
    """The single identity found; None for none; several is the table's mistake."""
    if len(found) > 1:
        raise KeyError(f"{what}: {len(found)} identities match ({', '.join(i.key for i in found)})")
    return found[0] if found else None


def resolve_paper_row(benchmark: str, name: str, thinking: bool | None = None, frames: int | None = None,
                      table: ModelTable | None = None) -> Identity:
    """The identity of a paper's row: `name` as printed in `benchmark`'s paper (or one of the
    row's aliases), told apart from a same-named row by its thinking/frames fields."""
    table = table or _default_table()
    found = [i for i in table.identities if name in i.paper_names(benchmark) and _fits(i, thinking, frames)]
    identity = _one(found, f"{benchmark} row {name!r} (thinking={thinking}, frames={frames})")
    if identity is None:
        raise KeyError(f"{benchmark} row {name!r} (thinking={thinking}, frames={frames}) is not in {MODELS_FILE}")
    return identity


def resolve_hub_model(hub_id: str, thinking: bool = False, table: ModelTable | None = None) -> Identity:
    """The identity of a verified run of a Hub model (case-insensitive, as on the Hub); its
    thinking setting picks the variant. A model the table does not list gets its own."""
    table = table or _default_table()
    found = [i for i in table.identities
             if i.hub_id and i.hub_id.casefold() == hub_id.casefold() and _fits(i, thinking, None)]
    return _one(found, f"Hub model {hub_id!r} (thinking={thinking})") or Identity(
        key=f"hub:{hub_id.casefold()}", name=hub_id, display=hub_id, hub_id=hub_id, listed=False)


def resolve_prediction(display_name: str, hub_id: str | None = None, thinking: bool = False,
                       table: ModelTable | None = None) -> Identity:
    """The identity of a prediction file's result: by its declared Hub id when it has one,
    else by its display name against the table's names (ignoring case and separators). A
    name that matches nothing, or several models, gets an identity of its own."""
    if hub_id:
        return resolve_hub_model(hub_id, thinking, table)
    table = table or _default_table()
    wanted = _norm(display_name)
    found = [i for i in table.identities if i.kind == "model" and _fits(i, thinking, None)
             and wanted in {_norm(n) for n in (i.name, i.display, *(n for _, ns in i.names for n in ns))}]
    if len(found) == 1:
        return found[0]
    shown = display_name.strip()
    return Identity(key=f"name:{wanted}", name=shown, display=shown, listed=False)
