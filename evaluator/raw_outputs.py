"""A model-ID run's raw outputs: what the model answered to each public call.

The worker keeps them in the private store, `outputs/<h>/<h>/<submission id>.jsonl` (sharded
by a hash of the id: evaluator/shards.py; a run's from before sharding stays at
`outputs/<submission id>.jsonl` and is read there), written in
the same step as the staged result (one commit on the Hub); the site hands them to the
run's submitter only (leaderboard/downloads.py).

The file is a prediction file, one JSON record per line:

    {"id": "<call id>", "response": "<raw model output>", "confidence": 87, "context": "B"}

`confidence` when the model gave one, `context` for CausalStep calls answered in context
(the label of the model's own previous answer), `run` for a repeated run's answers
(Video SimpleQA's runs 2 and 3), so the file can be submitted again as a prediction file. What it never holds: anything derived from the answer key (no
right/wrong, no extracted answer, no score), and no worker-only call (Video SimpleQA's
sub-questions name earlier hops' answers; their outputs could repeat them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from evaluator.records import Call, Prediction
from evaluator.shards import sharded

FOLDER = "outputs"
FIELDS = ("id", "response", "confidence", "context", "run")  # the prediction-file fields: nothing else


def outputs_path(submission_id: str) -> str:
    """Where a run's raw outputs live in the private store."""
    return sharded(FOLDER, submission_id, ".jsonl")


def _line(record: Mapping) -> bytes:
    kept = {key: record[key] for key in FIELDS if record.get(key) is not None}
    return (json.dumps(kept, ensure_ascii=False) + "\n").encode()


def encode(predictions: Iterable[Prediction], public_calls: Mapping[str, Call]) -> bytes:
    """The raw outputs of the public calls, in the call list's order (then by context);
    predictions for any other call (the answer key's hidden calls) are left out."""
    order = {call_id: i for i, call_id in enumerate(public_calls)}
    kept = sorted((p for p in predictions if p.id in order), key=lambda p: (p.run or 1, order[p.id], p.context or ""))
    return b"".join(_line({"id": p.id, "response": p.response, "confidence": p.confidence,
                           "context": p.context, "run": p.run}) for p in kept)


def public_only(data: bytes, public_calls: Mapping[str, Call]) -> bytes:
    """A stored raw-outputs file again, keeping only public calls' records and only the
    prediction-file fields (what the site hands out, whatever wrote the file)."""
    lines = []
    for text in data.decode("utf-8").splitlines():
        if not text.strip():
            continue
        record = json.loads(text)
        if isinstance(record, dict) and record.get("id") in public_calls:
            lines.append(_line(record))
    return b"".join(lines)
