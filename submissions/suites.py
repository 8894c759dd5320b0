"""The published suites: their ids and names, which one a setting or a page means, and
which one a prediction file was built for.

    resolve_suite_id(stores, settings)            # LEADERBOARD_SUITE: a name ("official") or an id
    resolve_suite_id(stores, settings, "demo")    # the newest suite named "demo"
    suite_built_for(stores, path, "demo-v3-...")  # another published suite whose calls the file answers
    explain_refusal(stores, path, suite_id, message)  # a refusal in one line when it does
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from space_config.settings import Settings
from submissions.errors import NotFoundError
from submissions.stores.base import Store

if TYPE_CHECKING:
    from submissions.stores import Stores

DEMO_PREFIX = "demo-"


def published_suites(store: Store) -> list[str]:
    """Ids of the suites in the suite store: top-level folders holding a suite.json."""
    return sorted(path.split("/")[0] for path in store.list() if path.count("/") == 1
                  and path.endswith("/suite.json"))


def suite_manifest(store: Store, suite_id: str) -> dict:
    """A published suite's suite.json ({} when it is missing or unreadable)."""
    found = store.read(f"{suite_id}/suite.json")
    try:
        return json.loads(found.data) if found else {}
    except ValueError:
        return {}


def newest(store: Store, suite_ids: list[str]) -> str:
    """The most recently built of these suites (several demo suites exist once the demo
    generator has changed: the newest is current)."""
    return _newest({s: suite_manifest(store, s) for s in suite_ids})


def _newest(manifests: Mapping[str, dict]) -> str:
    return max(manifests, key=lambda s: (str(manifests[s].get("created", "")), s))


def named_suite(wanted: str, manifests: Mapping[str, dict]) -> str | None:
    """Of the published suites (id -> its suite.json), the one `wanted` names: that id, or
    the newest suite of that name; None when it names none."""
    if wanted in manifests:
        return wanted
    named = {s: m for s, m in manifests.items()
             if m.get("name") == wanted or (wanted == "demo" and s.startswith(DEMO_PREFIX))}
    return _newest(named) if named else None


def resolve_suite_id(stores: Stores, settings: Settings, wanted: str | None = None) -> str:
    """The id of a published suite named by its id or by its name ("demo", "official": the
    newest suite of that name). `wanted` defaults to the site's suite, LEADERBOARD_SUITE."""
    published = published_suites(stores.suite)
    wanted = (wanted or settings.suite).strip()
    if wanted in published:
        return wanted  # no manifest to read
    manifests = {s: suite_manifest(stores.suite, s) for s in published}
    found = named_suite(wanted, manifests)
    if found is not None:
        return found
    if wanted == "demo" and not published:
        raise NotFoundError(f"No demo suite in the {stores.suite.name} store: build and publish it first "
                            f"(`python app.py` does on its first start), or set LEADERBOARD_SUITE to the name "
                            f"or id of a published suite.")
    what = "(LEADERBOARD_SUITE) " if wanted == settings.suite.strip() else ""
    raise NotFoundError(f"Suite '{wanted}' {what}is not in the {stores.suite.name} store; set it "
                        f"to the name or id of one that is: {describe_suites(manifests)}.")


def describe_suites(manifests: Mapping[str, dict]) -> str:
    """"demo (demo-v3-1a2b...), official (official-v1-9f8e...)", or "none published"."""
    return ", ".join(f"{m.get('name') or s} ({s})" for s, m in manifests.items()) or "none published"


# -- which suite a prediction file was built for ----------------------------------------------

SAMPLED_LINES = 50  # a file's first lines are enough to tell which suite's calls it answers
SAMPLED_BYTES = 1 << 20  # and never more than this is read of it (a refused file may be huge)
_ID_RE = re.compile(rb'"id"\s*:\s*"([^"\\]{1,200})"')
_call_ids: OrderedDict[str, frozenset[bytes]] = OrderedDict()  # suite id -> its call ids, recent last
CALL_ID_LISTS_KEPT = 16


def suite_ids_of(store: Store, suite_id: str) -> frozenset[bytes]:
    """The ids of a suite's calls, kept per suite (a suite id names its content); a suite
    without a call list has none (not kept: it may be published later)."""
    if suite_id in _call_ids:
        _call_ids.move_to_end(suite_id)
        return _call_ids[suite_id]
    found = store.read(f"{suite_id}/calls.jsonl")
    if found is None:
        return frozenset()
    ids = frozenset(m.group(1) for line in found.data.splitlines() if (m := _ID_RE.search(line)))
    _call_ids[suite_id] = ids
    while len(_call_ids) > CALL_ID_LISTS_KEPT:
        _call_ids.popitem(last=False)
    return ids


def suite_built_for(stores: Stores, path: Path, target: str) -> str | None:
    """Another published suite whose calls a prediction file answers, when it answers almost
    none of `target`'s: the file was built for that suite. None otherwise."""
    with open(path, "rb") as f:
        head = f.read(SAMPLED_BYTES)
    sampled = [m.group(1) for line in head.splitlines()[:SAMPLED_LINES] if (m := _ID_RE.search(line))]
    if not sampled:
        return None

    def share(suite_id: str) -> float:
        ids = suite_ids_of(stores.suite, suite_id)
        return sum(x in ids for x in sampled) / len(sampled)

    if share(target) >= 0.5:
        return None
    shares = {s: share(s) for s in published_suites(stores.suite) if s != target}
    best = max(shares, key=shares.get, default=None)
    return best if best is not None and shares[best] >= 0.8 else None


def explain_refusal(stores: Stores, path: Path, target: str, message: str) -> str:
    """A refused prediction file's message: one line naming the suite it was built for when
    it answers another published suite's calls (not a line per unknown call id), else
    `message` as it is."""
    try:
        built_for = suite_built_for(stores, Path(path), target)
    except Exception:  # noqa: BLE001 - a Hub hiccup must not hide the refusal itself
        return message
    return message if built_for is None else wrong_suite_message(stores, built_for, target)


def wrong_suite_message(stores: Stores, built_for: str, target: str) -> str:
    """One line for a file built for another suite than the one it is submitted to."""
    name = suite_manifest(stores.suite, built_for).get("name") or built_for
    return (f"This file answers the calls of suite '{name}' ({built_for}), not of {target}, where you are "
            f"submitting: pick '{name}' under Show and submit there, or download {target}'s call list and answer "
            f"its calls.")


__all__ = ["DEMO_PREFIX", "describe_suites", "explain_refusal", "named_suite", "newest", "published_suites", "resolve_suite_id", "suite_built_for",
           "suite_ids_of", "suite_manifest", "wrong_suite_message"]
