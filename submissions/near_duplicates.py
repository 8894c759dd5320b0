"""Near-duplicate prediction files: a file that changes only a few answers of an earlier
one is refused before it is stored or counted.

Two scores of files that differ on one item tell whether that item was right: the
difference of the benchmark's overall (or of any published breakdown bucket) is that
one item's grade. So a new file is compared with the earlier prediction files on the
same suite of the same submitter, and of anyone who submitted under the same model
name; it is refused when, against any of them, some published score (a benchmark, or a
bucket of it: a level, domain, hop...) would move on 1 to `minimum - 1` changed items.
A difference then only ever speaks of `minimum` items at once or more, as a published
bucket does (LEADERBOARD_MIN_BUCKET_ITEMS); the default `minimum` is that same number.
docs/protocol.md says what this leaves an attacker.

Earlier files that failed or were cancelled are not compared: they were never scored.

    groups = item_groups(stores.suite, suite_id)   # (benchmark, item) -> the scores it counts in
    close = check(new_responses, earlier, calls, groups, minimum, published)
    # Refused("near_duplicate"), or the buckets to publish without their score
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from evaluator import benchmarks
from evaluator.buckets import bucket_paths
from evaluator.records import Call
from evaluator.suite import record
from submissions.errors import Refused
from submissions.stores.base import Store

Item = tuple[str, str]  # (benchmark, item id)
Score = tuple[str, ...]  # a published score: (benchmark,) or (benchmark, *path of a bucket in its metrics)


@dataclass(frozen=True)
class Earlier:
    """An earlier prediction file to compare with: its submission id, whether it is the
    submitter's own (only then is its id named), and its responses."""

    id: str
    own: bool
    responses: Mapping[str, str]


def responses_of(data: bytes) -> dict[str, str]:
    """A prediction file's responses by call id (and run), lines that cannot be read left
    out: the file was validated already, this only compares."""
    found = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
            key = f"{record['id']}#{record.get('run') or 1}"
            found[key] = str(record.get("response", "")).strip()
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return found


def item_groups(store: Store, suite_id: str) -> dict[Item, list[Score]]:
    """Every scored item of the suite with the published scores it counts in: its
    benchmark and each breakdown bucket, read from the suite's public question files."""
    groups: dict[Item, list[Score]] = {}
    manifest = store.read(f"{suite_id}/suite.json")
    names = list(json.loads(manifest.data).get("benchmarks", {})) if manifest else []
    for name in names:
        found = store.read(f"{suite_id}/{name}/questions.jsonl")
        if found is None or name not in benchmarks.BENCHMARKS:
            continue
        question = benchmarks.get(name).Question
        for line in found.data.decode("utf-8").splitlines():
            if line.strip():
                q = record(question, json.loads(line))
                groups[(name, q.id)] = [(name,), *((name, *p) for p in bucket_paths(name, q))]
    return groups


def changed_items(new: Mapping[str, str], old: Mapping[str, str], calls: Mapping[str, Call]) -> set[Item]:
    """The items whose responses differ between two files (a call answered in one only
    counts as a difference)."""
    changed = set()
    for key in new.keys() | old.keys():
        if new.get(key) != old.get(key):
            call = calls.get(key.rsplit("#", 1)[0])
            if call is not None:
                changed.add((call.benchmark, call.item))
    return changed


def close_scores(changed: Iterable[Item], groups: Mapping[Item, list[Score]], minimum: int,
                 published: int) -> list[tuple[Score, int]]:
    """(score, changed items) of each published score that moves on 1..minimum-1 items: a
    benchmark's own score, or a bucket of at least `published` items (smaller ones are
    published without a score anyway)."""
    sizes = Counter(g for found in groups.values() for g in found)
    counts = Counter(g for item in changed for g in groups.get(item, [(item[0],)]))
    return sorted((g, n) for g, n in counts.items() if 0 < n < minimum and (len(g) == 1 or sizes[g] >= published))


def check(new: Mapping[str, str], earlier: Iterable[Earlier], calls: Mapping[str, Call],
          groups: Mapping[Item, list[Score]], minimum: int, published: int) -> list[Score]:
    """Refuse a file whose benchmark score would tell it apart from an earlier file by
    fewer than `minimum` items; return the breakdown buckets that would (hidden when its
    result is published: the file is otherwise a genuinely different one). `minimum` 0 or
    1 turns the check off."""
    if minimum <= 1:
        return []
    hidden: set[Score] = set()
    for old in earlier:
        close = close_scores(changed_items(new, old.responses, calls), groups, minimum, published)
        whole = [(g, n) for g, n in close if len(g) == 1]
        if whole:
            (name,), n = min(whole, key=lambda s: s[1])
            score = getattr(benchmarks.BENCHMARKS.get(name), "TITLE", name)
            which = (f"your submission {old.id}" if old.own else
                     "a file submitted earlier under the same model name")
            raise Refused("near_duplicate", (
                f"This file differs from {which} on only {n} {score} item{'s' * (n != 1)} (fewer than "
                f"{minimum}). Two {score} scores that differ on so few items would tell how those items were "
                f"graded, so files this close are not scored (a file is scored where it differs from earlier ones "
                f"in at least {minimum} items of each benchmark it changes). To have your model's own answers "
                f"scored again, submit the model by its Hub id: our worker then answers every call. Nothing was "
                f"stored or counted against your quota."))
        hidden.update(g for g, _ in close)
    return sorted(hidden)
