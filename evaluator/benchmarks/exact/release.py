"""ExAct's importer: metadata.jsonl and one video per item, checked (every unknown
activity spelling reported at once), golds moved to the answer key.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from evaluator.benchmarks.common import MissingVideos, OpaqueIds, Secret, find_video, read_jsonl, require, sort_by_id
from evaluator.benchmarks.exact.records import ACTIVITY_DOMAIN, NAME, make_item, normalise_activity
from evaluator.errors import ImportReleaseError
from evaluator.records import BenchmarkData


# The release layout `import --help` shows (and the importer reads).
RELEASE_LAYOUT = """\
<root>/metadata.jsonl (or <root>/data/metadata.jsonl): one JSON object per item, with
    file_name, domain (one of the 11 activities), is_ge, groundTruth (the expert's comment),
    negative_comments (4 strings), task_name and id
<root>/<file_name>, or under <root>/videos/ or <root>/data/: one .mp4 per item"""


def _metadata_file(root: Path) -> Path:
    meta = root / "metadata.jsonl"
    if not meta.is_file() and (root / "data" / "metadata.jsonl").is_file():
        meta = root / "data" / "metadata.jsonl"
    return meta


def _unmapped_error(meta: Path, unmapped: dict[str, list]) -> ImportReleaseError:
    """Every activity spelling that maps to none of the 11, at once, with counts."""
    lines = [f"  '{value}': {len(wheres)} item(s), first at {wheres[0]}" for value, wheres in unmapped.items()]
    return ImportReleaseError(
        f"{meta}: field 'domain': {len(unmapped)} value(s) name none of the 11 activities "
        f"({', '.join(ACTIVITY_DOMAIN)}):\n" + "\n".join(lines) +
        f"\nadd the spelling to ACTIVITY_ALIASES in evaluator/benchmarks/{NAME}/records.py if it is one of them")


def import_release(root: Path, secret: Secret) -> BenchmarkData:
    """Read the official layout: metadata.jsonl (one object per item) and one .mp4 per item.
    Item and video ids are opaque (the release's name the Ego-Exo4D take and time)."""
    meta = _metadata_file(Path(root))
    item_ids, video_ids = OpaqueIds(secret, f"{NAME}:item"), OpaqueIds(secret, f"{NAME}:video", f"{NAME}-")
    questions, answers, files, unmapped, spellings = [], [], {}, {}, Counter()
    missing = MissingVideos()
    for n, rec in read_jsonl(meta):
        where = f"{meta}:{n}"
        raw = require(rec, "domain", str, where)
        activity = normalise_activity(raw)
        negatives = require(rec, "negative_comments", list, where)
        if len(negatives) != 4 or not all(isinstance(x, str) for x in negatives):
            raise ImportReleaseError(f"{where}: 'negative_comments' must be a list of 4 strings")
        file_name = require(rec, "file_name", str, where)
        truth, is_ge = require(rec, "groundTruth", str, where), bool(require(rec, "is_ge", bool, where))
        if activity is None:
            unmapped.setdefault(raw, []).append(where)
            continue
        spellings[(raw, activity)] += 1
        release_id = str(rec.get("id") or Path(file_name).stem)
        item_id, video_id = item_ids(release_id), video_ids(file_name)
        q, a = make_item(item_id, video_id, activity, is_ge, str(rec.get("task_name", "")), truth, negatives,
                     secret, release_id)
        questions.append(q)
        answers.append(a)
        found = find_video(meta.parent, file_name, where, missing)
        if found is not None:
            files[video_id] = str(found)
    if unmapped:
        raise _unmapped_error(meta, unmapped)
    missing.raise_if_any()
    if not questions:
        raise ImportReleaseError(f"{meta}: no items")
    questions, answers = sort_by_id(questions, answers)
    notes = [f"activity '{raw}' read as {activity}: {count} item(s)"
             for (raw, activity), count in sorted(spellings.items()) if raw != activity]
    return BenchmarkData(NAME, questions, answers, videos={}, video_files=files, notes=notes)
