"""The attacker's view: with the public part of a suite and this code (both public),
try to rebuild the answer key. Every attack must score at chance.

Two suites of the same shape are built, each from a fresh secret: the target and a
placebo. An attack reads only the target's public folder (suite.json, calls.jsonl,
videos.jsonl, the question files) and runs any code of the project. Its guesses are
compared with the target's key and with the placebo's key (same construction, drawn
independently): a prior that comes from a benchmark's design, and is public by nature
(ExpVid's verification answer is never a segment's last step, as released), scores the
same against both; anything drawn from the target's own arrangement shows as excess.
Multiple-choice labels are also held against one over the number of options.

The attacks: rebuilding the suite from every public input the generator could take
(the manifest's fields, the fixed secret of the demo fingerprint); the former option
orders (a hash of the item id and a public seed); and reading tells off the public
texts (a numbered statement, the longest option, an order that agrees with the step
lists of sibling items).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluator import demo
from evaluator.benchmarks import BENCHMARKS, exact, videommmu
from evaluator.benchmarks.common import Secret
from evaluator.records import to_dict
from evaluator.suite import Suite, load_answers, load_suite, read_secret

SCALE = 0.1  # about 1,400 items: enough for each attack's chance to show
Leaves = dict[tuple[str, str], object]  # (item id, field path) -> value


# -- the two suites ------------------------------------------------------------------------------

@dataclass
class Built:
    public: Path  # what the attacker may read
    answers: Path  # what only the test reads, after the attack


@pytest.fixture(scope="module")
def target(tmp_path_factory) -> Built:
    out = tmp_path_factory.mktemp("target")
    demo.synthetic_suite(out, scale=SCALE)  # a fresh secret that no test code has seen
    return Built(out / "suite", out / "answers")


@pytest.fixture(scope="module")
def placebo(tmp_path_factory) -> Built:
    out = tmp_path_factory.mktemp("placebo")
    demo.synthetic_suite(out, scale=SCALE)
    return Built(out / "suite", out / "answers")


def key_records(built: Built) -> dict[str, list[dict]]:
    suite = load_suite(built.public)
    return {name: [to_dict(r) for r in records] for name, records in load_answers(built.answers, suite).answers.items()}


def key_leaves(built: Built, ids_of: Built | None = None) -> dict[str, Leaves]:
    """Every answer value of a suite's key, by benchmark and (item, field). With `ids_of`,
    each record takes the id of the record at the same place in that suite's key: item ids
    are opaque and keyed by each suite's secret, so a placebo's answers must be put under
    the target's ids to be compared at all (item by item, same construction)."""
    records = key_records(built)
    if ids_of is not None:
        others = key_records(ids_of)
        records = {name: [{**r, "id": o.get("id")} for r, o in zip(rs, others[name])] for name, rs in records.items()}
    return {name: {leaf: value for record in rs for leaf, value in _leaves(record)} for name, rs in records.items()}


def _leaves(record: dict):
    item = record.get("id")
    for name, value in record.items():
        if name in ("id", "schema_version", "task"):  # ids and task names are public anyway
            continue
        for path, leaf in _flatten(value, name):
            yield (item, path), leaf


def _flatten(value, path: str):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _flatten(v, f"{path}[{i}]")
    elif value is not None:
        yield path, value


# -- attacks: each returns guesses by benchmark, from the public folder alone ---------------------------

def rebuild(public: Path, scratch: Path) -> dict[str, Leaves]:
    """Run the generator again on everything public that could seed it, and take the answers
    of the first candidate whose public files come out identical to the target's; failing
    that, the answers of the candidate built from the fingerprint's fixed secret."""
    manifest = json.loads((public / "suite.json").read_text())
    scale = float(manifest["version"].lstrip("x"))
    seeds = {str(manifest.get(k)) for k in ("seed", "id", "content_sha256", "generator") if manifest.get(k)}
    candidates = [demo._FINGERPRINT_SECRET, *(Secret(hashlib.sha256(s.encode()).digest()) for s in seeds | {"0"})]
    guesses = None
    for n, candidate in enumerate(candidates):
        out = scratch / f"candidate-{n}"
        rebuilt = demo.synthetic_suite(out, candidate, scale=scale)
        leaves = key_leaves(Built(out / "suite", out / "answers"))
        if rebuilt.manifest["content_sha256"] == manifest["content_sha256"]:
            return leaves  # the public part came out identical: this would be the key
        guesses = guesses or leaves
    return guesses


def old_option_orders(public: Path) -> dict[str, Leaves]:
    """The former arrangement: options shuffled by sha256(seed:key) with the gold first in
    the pool, for the manifest's seed and the usual defaults."""
    manifest = json.loads((public / "suite.json").read_text())
    suite = load_suite(public)
    guesses: dict[str, Leaves] = {"exact": {}, "causalstep": {}}
    for seed in {manifest.get("seed", 0), 0, 1}:
        for q in suite.questions["exact"]:
            order = _old_permutation(f"exact:{q.id}", len(q.options), seed)
            guesses["exact"].setdefault((q.id, "label"), exact.LABELS[order.index(0)])
        for q in suite.questions["causalstep"]:
            for s in q.segments:
                for kind, mcq in (("desc", s.desc), ("causal", s.causal)):
                    if mcq is not None:
                        order = _old_permutation(f"causalstep:{q.id}:s{s.index}:{kind}", len(mcq.options), seed)
                        guesses["causalstep"].setdefault((q.id, f"{kind}[{s.index - 1}]"),
                                                         mcq.labels[order.index(0)])
    return guesses


def _old_permutation(key: str, n: int, seed: int) -> list[int]:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    order = list(range(n))
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def text_tells(public: Path) -> dict[str, Leaves]:
    """Labels read off the public texts."""
    suite = load_suite(public)
    guesses: dict[str, Leaves] = {"exact": {}, "causalstep": {}, "expvid": {}, "videommmu": {}}
    for q in suite.questions["exact"]:
        numbered = [i for i, o in enumerate(q.options) if re.search(r"\bdrill 1\.$", o)]
        pick = numbered[0] if len(numbered) == 1 else max(range(len(q.options)), key=lambda i: len(q.options[i]))
        guesses["exact"][(q.id, "label")] = exact.LABELS[pick]
    for q in suite.questions["causalstep"]:
        for s in q.segments:
            for kind, mcq in (("desc", s.desc), ("causal", s.causal)):
                if mcq is not None:
                    longest = max(range(len(mcq.options)), key=lambda i: len(mcq.options[i]))
                    guesses["causalstep"][(q.id, f"{kind}[{s.index - 1}]")] = mcq.labels[longest]
    guesses["expvid"] = _ordering_from_sibling_lists(suite)
    for q in suite.questions["videommmu"]:
        if q.options:
            longest = max(range(len(q.options)), key=lambda i: len(q.options[i]))
            guesses["videommmu"][(q.id, "labels[0]")] = videommmu.labels_for(q)[longest]
    return guesses


def _ordering_from_sibling_lists(suite: Suite) -> Leaves:
    """ExpVid ordering: the option whose steps come in the order of the full step list
    that other items of the same experiment print."""
    full: dict[str, list[str]] = {}
    for q in suite.questions["expvid"]:
        found = re.search(r"Full Step List:\n(.*)", q.question, re.S)
        if found:
            full[q.source] = [re.sub(r"^\d+\.\s*", "", line).strip() for line in found.group(1).splitlines()
                              if line.strip()]
    guesses: Leaves = {}
    for q in suite.questions["expvid"]:
        if q.task != "ordering" or q.source not in full:
            continue
        rank = {step: i for i, step in enumerate(full[q.source])}

        def in_list_order(option: str) -> bool:
            steps = [re.sub(r"^\d+\.\s*", "", line).strip() for line in option.splitlines() if line.strip()]
            positions = [rank.get(s, -1) for s in steps]
            return positions == sorted(positions)

        agreeing = [i for i, o in enumerate(q.options) if in_list_order(o)]
        if agreeing:
            guesses[(q.id, "label")] = q.labels[agreeing[0]]
    return guesses


ATTACKS = {"rebuild": rebuild, "old option orders": lambda public, scratch: old_option_orders(public),
           "text tells": lambda public, scratch: text_tells(public)}


# -- judging an attack --------------------------------------------------------------------------------

def hits(guesses: Leaves, key: Leaves) -> int:
    return sum(1 for leaf, value in guesses.items() if key.get(leaf) == value)


def excess(guesses: Leaves, target: Leaves, placebo: Leaves) -> tuple[int, int, float]:
    """(hits on the target, hits on the placebo, the margin allowed by chance): with no
    leak both counts are draws of the same binomial, so their difference stays within a
    few standard deviations."""
    on_target, on_placebo = hits(guesses, target), hits(guesses, placebo)
    pooled = (on_target + on_placebo) / (2 * max(len(guesses), 1))
    margin = 4 * math.sqrt(2 * len(guesses) * pooled * (1 - pooled)) + 3
    return on_target, on_placebo, margin


@pytest.fixture(scope="module")
def keys(target, placebo):
    return key_leaves(target), key_leaves(placebo, ids_of=target)


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_attacks_on_the_public_suite_score_at_chance(attack, target, keys, tmp_path):
    target_key, placebo_key = keys
    guesses = ATTACKS[attack](target.public, tmp_path)
    tried = 0
    for name, leaves in guesses.items():
        if not leaves:
            continue
        on_target, on_placebo, margin = excess(leaves, target_key[name], placebo_key[name])
        assert on_target - on_placebo <= margin, (
            f"{attack} recovers {name} answers: {on_target} of {len(leaves)} right on the target against "
            f"{on_placebo} on an independent key")
        tried += len(leaves)
    assert tried > 500, f"{attack} made too few guesses to tell anything"


def test_multiple_choice_guesses_are_right_about_one_time_in_options(target, keys, tmp_path):
    """ExAct (5 options) and CausalStep (6 or 8): whatever an attack picks, the share it gets
    right is one over the options, within a few standard deviations."""
    target_key, _ = keys
    suite = load_suite(target.public)
    options = {q.id: len(q.options) for q in suite.questions["exact"]}
    for attack in (old_option_orders, text_tells):
        guesses = attack(target.public)["exact"]
        right = hits(guesses, target_key["exact"])
        expected = sum(1 / options[item] for item, _ in guesses)
        assert right <= expected + 4 * math.sqrt(expected) + 2, (attack.__name__, right, expected)
    segments = {q.id: q for q in suite.questions["causalstep"]}
    guesses = old_option_orders(target.public)["causalstep"]
    right = hits(guesses, target_key["causalstep"])
    expected = sum(1 / len(_mcq(segments[item], path).options) for item, path in guesses)
    assert right <= expected + 4 * math.sqrt(expected) + 2, (right, expected)


def _mcq(question, path: str):
    kind, index = re.fullmatch(r"(desc|causal)\[(\d+)\]", path).groups()
    segment = question.segments[int(index)]
    return segment.desc if kind == "desc" else segment.causal


def test_the_attacks_would_catch_a_leak(target, keys, tmp_path):
    """The control: given the target's secret (as if it were published), rebuilding finds
    every answer and the check above fails loudly."""
    target_key, placebo_key = keys
    secret = read_secret(target.answers)
    manifest = json.loads((target.public / "suite.json").read_text())
    out = tmp_path / "with-the-secret"
    rebuilt = demo.synthetic_suite(out, secret, scale=float(manifest["version"].lstrip("x")))
    assert rebuilt.manifest["content_sha256"] == manifest["content_sha256"]
    guesses = key_leaves(Built(out / "suite", out / "answers"))
    for name in BENCHMARKS:
        on_target, on_placebo, margin = excess(guesses[name], target_key[name], placebo_key[name])
        assert on_target == len(guesses[name]) and on_target - on_placebo > margin, name


def test_nothing_public_names_the_secret(target):
    secret = read_secret(target.answers).hex()
    manifest = json.loads((target.public / "suite.json").read_text())
    assert "seed" not in manifest and "secret" not in manifest
    for path in target.public.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(encoding="utf-8", errors="replace"), path


def test_a_suite_key_is_new_at_every_build(target, placebo):
    """Two builds of the same generator share nothing of their keys but chance."""
    assert read_secret(target.answers).hex() != read_secret(placebo.answers).hex()
    assert load_suite(target.public).id != load_suite(placebo.public).id


def test_hedged_answers_earn_nothing(target):
    """Answers that list every candidate (every filler of the demo's public word list, every
    phrase, every plausible number) are not answers: the judge and the scorers grade them
    wrong, so hedging scores no more than chance."""
    from evaluator.benchmarks import expvid, videosimpleqa
    from evaluator.judges.normalized import NormalizedMatchJudge
    from evaluator.predictions import as_responses
    from evaluator.records import Prediction
    from evaluator.scoring import score_responses

    suite = load_suite(target.public)
    key = load_answers(target.answers, suite)
    every_number = ", ".join(str(n) for n in range(12, 4801))
    hedges = {
        "blanks": lambda call: "; ".join([" ".join(expvid.FILLERS)] * call.prompt.count("____")),
        "open": lambda call: "The answer is " + ", ".join(videommmu.PHRASES),
        "short": lambda call: json.dumps({"answer": every_number, "confidence_score": 90}),
    }
    responses = as_responses([Prediction(c.id, hedges[c.answer_format](c)) for c in suite.calls
                              if c.answer_format in hedges])
    scores, _ = score_responses(suite, key, responses, NormalizedMatchJudge())
    assert scores["expvid"]["level3"] == 0.0
    assert scores["videosimpleqa"]["correct"] == 0.0
    open_items = [a for a in key.answers["videommmu"] if a.texts]
    assert open_items and videosimpleqa.NAME in scores
    phrase_file = as_responses([Prediction(c.id, hedges["open"](c)) for c in suite.calls
                                if c.benchmark == "videommmu" and c.answer_format == "open"])
    phrase_scores, _ = score_responses(suite, key, phrase_file, NormalizedMatchJudge())
    assert phrase_scores["videommmu"]["overall"] == 0.0
