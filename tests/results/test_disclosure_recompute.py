"""No hidden cell can be recomputed from the published ones (results/disclosure.py).

For every benchmark this file writes down, on its own, the identities its metrics define
(a benchmark's overall is the item-weighted mean of its domains; ExpVid's overall is the
mean of its levels, a level the weighted mean of its tasks and of its discipline cells;
Video-MMMU's Δknowledge x wrong-before = wrong→right - right→wrong...). Each identity is
first checked to hold on the private result, so none is made up. Then, on the public copy,
every cell hidden for size is an unknown, every shown cell a number, and the identities a
linear system: a hidden cell is recomputable when it lies in the row space of the
unknowns' coefficients. None may be. Where two or more hidden cells are tied only by their
sum, that sum can still pin them all when it is an extreme (all right or all wrong); that
must only happen for hidden cells that hold at least the minimum of items together, which
says no more than a published bucket of that size, or for a group hidden whole, where the
published score above it says it alone (an overall of 0% says every item was wrong). A
bucket that is its parent's only member (one category holding every item) is the parent's
own published score over the same items: it counts as published.

Results: the demo suite, a larger synthetic suite, and a suite imported from each
benchmark's official release layout (the small releases the benchmarks' import tests
write), each scored for several baselines, published at several minimums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from evaluator.baselines import predictions
from evaluator.benchmarks.expvid.records import TASK_LEVEL
from evaluator.judges import get_judge
from evaluator.predictions import as_responses
from evaluator.records import ScoringOptions
from evaluator.scoring import score_responses
from results import disclosure

Cell = tuple[str, ...]  # a path into one benchmark's metrics, down to a number
ROUNDING = 0.006  # published scores carry two decimals


@dataclass
class Identity:
    """sum(weight x cell) == 0 over cells; `sizes`: each percentage cell's item count."""

    terms: list[tuple[float, Cell]]
    sizes: dict[Cell, int]


def get(metrics: dict, cell: Cell):
    value = metrics
    for key in cell:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def weighted(parent: Cell, members: dict[Cell, int], mean: bool = False) -> Identity | None:
    """parent x N == sum(n_i x member_i) (or the plain mean of the members, `mean`)."""
    members = {c: n for c, n in members.items() if n}
    if not members:
        return None
    total = len(members) if mean else sum(members.values())
    return Identity([(-float(total), parent), *((1.0 if mean else float(n), c) for c, n in members.items())],
                    dict(members))


def keyed(metrics: dict, group: str, counts: str, parent: str = "overall", key: str | None = None) -> list[Identity]:
    n = metrics.get(counts) or {}
    sub = (key,) if key else ()
    return [i for i in [weighted((parent,), {(group, g, *sub): c for g, c in n.items()})] if i]


def identities(name: str, m: dict) -> list[Identity]:
    found: list[Identity | None] = []
    if name == "exact":
        found += keyed(m, "by_domain", "n_by_domain") + keyed(m, "by_activity", "n_by_activity")
        found.append(weighted(("overall",), {(c,): n for c, n in (m.get("n_by_category") or {}).items()}))
    elif name == "videommmu":
        found.append(weighted(("overall",), {(t,): n for t, n in (m.get("n_by_track") or {}).items()}))
        found += keyed(m, "by_discipline", "n_by_discipline")
        right, wrong = m.get("n_right_before"), m.get("n_wrong_before")
        if right is not None and wrong is not None:
            found.append(Identity([(1.0, ("n_wrong_to_right",)), (-1.0, ("n_right_to_wrong",)),
                                   (-wrong / 100, ("delta_knowledge",))], {}))
            found.append(Identity([(wrong / 100, ("wrong_to_right",)), (-1.0, ("n_wrong_to_right",))],
                                  {("wrong_to_right",): wrong}))
            found.append(Identity([(right / 100, ("right_to_wrong",)), (-1.0, ("n_right_to_wrong",))],
                                  {("right_to_wrong",): right}))
            adaptation = (m.get("n_by_track") or {}).get("adaptation")
            if adaptation == right + wrong:  # every Adaptation item answered both ways: right after, both ways
                found.append(Identity([(adaptation / 100, ("adaptation",)), (-1.0, ("n_right_before",)),
                                       (-1.0, ("n_wrong_to_right",)), (1.0, ("n_right_to_wrong",))],
                                      {("adaptation",): adaptation}))
    elif name == "expvid":
        levels = m.get("n_by_level") or {}
        found.append(weighted(("overall",), {(lv,): n for lv, n in levels.items()}, mean=True))
        tasks = m.get("n_by_task") or {}
        disciplines = m.get("n_by_discipline") or {}
        for level in levels:
            found.append(weighted((level,), {(t,): n for t, n in tasks.items() if f"level{TASK_LEVEL[t]}" == level}))
            found.append(weighted((level,), {("by_discipline", d, level): ls.get(level, 0)
                                             for d, ls in disciplines.items()}))
        for d, ls in disciplines.items():
            found.append(weighted(("by_discipline", d, "overall"),
                                  {("by_discipline", d, lv): n for lv, n in ls.items()}, mean=True))
    elif name == "videosimpleqa":
        for key in ("correct", "incorrect", "not_attempted"):
            found += keyed(m, "by_hop", "n_by_hop", key, key) + keyed(m, "by_category", "n_by_category", key, key)
    elif name == "causalstep":
        for key in ("csr", "ws", "rf", "amcl"):
            found += keyed(m, "by_category", "n_by_category", key, key)
    return [i for i in found if i is not None]


def residual(identity: Identity, metrics: dict) -> float:
    return sum(w * float(get(metrics, c)) for w, c in identity.terms)


def recomputable(public: dict, private: dict, minimum: int, equations: list[Identity]) -> list[str]:
    """The hidden cells of one public benchmark that the identities give back."""
    usable = [e for e in equations if all(get(public, c) is not None or get(private, c) is not None
                                          for _, c in e.terms)]
    # A bucket that is its parent's only member (one category holding every item) is the
    # parent's own score, published over the same items: hiding it keeps nothing back.
    same = {c: get(public, e.terms[0][1]) for e in usable if len(e.sizes) == 1 for c in e.sizes
            if e.terms[0][1] not in e.sizes and get(public, e.terms[0][1]) is not None}
    unknown = sorted({c for e in usable for _, c in e.terms if get(public, c) is None} - set(same))
    if not unknown:
        return []
    index = {c: i for i, c in enumerate(unknown)}
    rows = np.zeros((len(usable), len(unknown)))
    for r, e in enumerate(usable):
        for w, c in e.terms:
            if c in index:
                rows[r, index[c]] += w
    rank = np.linalg.matrix_rank(rows)
    found = []
    for c, i in index.items():
        probe = np.zeros(len(unknown))
        probe[i] = 1.0
        if np.linalg.matrix_rank(np.vstack([rows, probe])) == rank:
            found.append(f"{'/'.join(c)} (a linear combination of published cells)")
    for e in usable:  # a sum pinned at an extreme pins every hidden cell in it
        hidden = [(w, c) for w, c in e.terms if c in index]
        if len(hidden) < 2 or any(c not in e.sizes for _, c in hidden):
            continue
        if all(c in index for c in e.sizes):
            continue  # every member hidden: the published parent alone says it (a 0% overall: all wrong)
        known = sum(w * float(same[c] if c in same else get(public, c)) for w, c in e.terms if c not in index)
        low = sum(min(0.0, 100 * w) for w, _ in hidden)
        high = sum(max(0.0, 100 * w) for w, _ in hidden)
        tolerance = ROUNDING * sum(abs(w) for w, _ in e.terms) + 1e-9
        pinned = abs(-known - low) <= tolerance or abs(-known - high) <= tolerance
        if pinned and sum(e.sizes[c] for _, c in hidden) < minimum:
            found.append(f"{', '.join('/'.join(c) for _, c in hidden)} (all right or all wrong together, "
                         f"{sum(e.sizes[c] for _, c in hidden)} items < {minimum})")
    return found


@pytest.fixture(scope="module")
def official_layout(tmp_path_factory):
    """A suite imported from the five official release layouts (no video files decoded:
    the releases' placeholder videos get a length, which is all scoring needs)."""
    import test_causalstep
    import test_exact
    import test_expvid
    import test_videommmu
    import test_videosimpleqa
    from conftest import SECRET

    from evaluator.benchmarks import causalstep, exact, expvid, videommmu, videosimpleqa
    from evaluator.records import VideoSpec
    from evaluator.suite import build_suite, load_answers, load_suite

    root = tmp_path_factory.mktemp("official-layout")
    activities = ["basketball", "piano", "cpr", "cooking", "bike", "soccer"] * 4
    data = [
        exact.import_release(test_exact.write_release(
            root / "exact", [test_exact.record(i, a, i % 3 == 0) for i, a in enumerate(activities)]), SECRET),
        causalstep.import_release(test_causalstep.write_release(
            root / "causalstep", [test_causalstep.release_video(f"v{i}", n=3) for i in range(8)]), SECRET),
        videommmu.import_release(test_videommmu.write_release(root / "videommmu"), SECRET),
        expvid.import_release(test_expvid.release(root / "expvid"), SECRET),
        videosimpleqa.import_release(test_videosimpleqa.official_fixture(root / "videosimpleqa"), SECRET),
    ]
    for d in data:
        d.video_specs = {v: VideoSpec(seconds=120.0) for v in d.video_files} | d.video_specs
    build_suite(root / "suite", "official", "v1", data, None, SECRET, write_videos=False)
    suite = load_suite(root / "suite" / "suite")
    return suite, load_answers(root / "suite" / "answers", suite)


def results(suite, key):
    judge = get_judge("normalized-match")
    for baseline, seed in (("random", 0), ("random", 1), ("random", 7), ("first-option", 0)):
        responses = as_responses(predictions(baseline, suite.calls + key.hidden_calls, seed=seed))
        scores, _ = score_responses(suite, key, responses, judge, ScoringOptions(), worker_run=True,
                                    bootstrap_samples=20)
        yield f"{baseline}-{seed}", scores


@pytest.mark.parametrize("which", ["demo_suite", "synthetic", "official_layout"])
def test_no_hidden_cell_can_be_recomputed(which, request):
    suite, key = request.getfixturevalue(which)
    checked = hidden_cells = 0
    problems = []
    for label, scores in results(suite, key):
        for name, private in scores.items():
            equations = identities(name, private)
            assert equations, f"{name}: no identity written for it"
            for e in equations:  # each identity holds on the private numbers: none is made up
                if all(get(private, c) is not None for _, c in e.terms):
                    tolerance = ROUNDING * sum(abs(w) for w, _ in e.terms) + 1e-6
                    assert abs(residual(e, private)) <= tolerance, (name, label, e.terms)
                    checked += 1
            for minimum in (3, 5, 10, 20):
                public = disclosure.suppress_benchmark(name, private, minimum)
                hidden_cells += sum(1 for e in equations for _, c in e.terms if get(public, c) is None)
                problems += [f"{which} {label} {name} at {minimum}: {p}"
                             for p in recomputable(public, private, minimum, equations)]
    assert checked > 50 and hidden_cells > 50  # the test did look at something
    assert not problems, "\n".join(problems[:30])


@pytest.mark.parametrize("which", ["demo_suite", "synthetic"])
def test_a_bucket_hidden_as_a_near_duplicates_hides_what_would_give_it_back(which, request):
    """A near-duplicate file's changed buckets are hidden whatever their size (`close`), with
    their complements and the cells computed from their items: Video-MMMU's Adaptation track
    takes its knowledge-gain figures with it."""
    suite, key = request.getfixturevalue(which)
    problems, gain_hidden = [], 0
    for label, scores in results(suite, key):
        private = scores["videommmu"]
        for bucket in [(t,) for t in private.get("n_by_track") or {}]:
            public = disclosure.suppress_benchmark("videommmu", private, 10, close=[bucket])
            gain_hidden += bucket == ("adaptation",) and public.get("delta_knowledge") is None \
                and public.get("n_wrong_to_right") is None
            problems += [f"{label} {bucket}: {p}"
                         for p in recomputable(public, private, 10, identities("videommmu", private))]
    assert gain_hidden == 4 and not problems, problems[:10]


def test_the_check_finds_a_cell_hidden_alone():
    """Hiding one domain only, as the rule did before complements: the overall gives it back."""
    metrics = {"overall": 50.0, "by_domain": {"a": 40.0, "b": None, "c": 60.0},
               "n_by_domain": {"a": 10, "b": 4, "c": 10}}
    private = {**metrics, "by_domain": {"a": 40.0, "b": 50.0, "c": 60.0}}
    found = recomputable(metrics, private, 10, identities("exact", private))
    assert found == ["by_domain/b (a linear combination of published cells)"]
    both = {**metrics, "by_domain": {"a": None, "b": None, "c": 60.0}}
    assert recomputable(both, private, 10, identities("exact", private)) == []
