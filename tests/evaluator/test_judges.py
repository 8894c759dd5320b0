"""Tests for evaluator.judges: the rule-based judge, the LLM judge on a tiny random
model built here (no download), the sqlite cache, the registry and the prompt files."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.judges import (
    CORRECT, INCORRECT, LABELS, NOT_ATTEMPTED, UNPARSEABLE, UNSCORED,
    CachedJudge, Judgement, JudgementCache, JudgeRequest, LLMJudge, NormalizedMatchJudge,
    UnknownJudgeError, fill_prompt, get_judge, load_prompt, parse_label, summarize,
)

from tiny_models import build_tiny_judge

REPO = Path(__file__).resolve().parents[2]

# --- NormalizedMatchJudge ------------------------------------------------------------

S, B = "simpleqa", "blank"
C, I, N = CORRECT, INCORRECT, NOT_ATTEMPTED

NORMALIZED_CASES = [
    # (task, gold, prediction, expected)
    # numbers: equal to the gold's last significant figure
    (S, "1994", "1994", C),
    (S, "1994", "1995", I),
    (S, "1994", "It was 1994.", C),
    (S, "12.5", "12.50", C),
    (S, "12.5", "12.54 m", C),
    (S, "12.5", "12.6", I),
    (S, "1,000", "1000 people", C),
    (S, "1,000", "1,001", I),
    (S, "3.2 km", "3.2 kilometres", C),
    (S, "3.2 km", "3 km", I),
    (S, "1.2 million", "1,200,000", C),
    (S, "45%", "45 percent", C),
    (S, "-5 °C", "\u22125 degrees", C),
    (S, "-5 °C", "5 degrees", I),
    (S, "3", "three", C),
    (S, "1994", "In 1994, at the age of 45", C),
    (S, "1994", "1994 or 1995", I),
    (S, "1994", "1973", I),
    (S, "1994", "Skylab", I),
    # vague bounds and approximations
    (S, "1994", "around 1990", N),
    (S, "1994", "about 1994", C),
    (S, "100", "more than 100", N),
    (S, "100", "at least 90", N),
    (S, "1994", "the 1990s", N),
    (S, "1990s", "1990s", C),
    (B, "1994", "around 1990", I),
    (B, "100", "more than 100", I),
    # text: normalisation and short phrases
    (S, "Paris", "paris", C),
    (S, "Paris", "The city of Paris.", C),
    (S, "The Beatles", "beatles", C),
    (S, "Hewlett-Packard", "Hewlett Packard", C),
    (S, "Café Müller", "CAFÉ MÜLLER", C),
    (S, "Paris", "not Paris", I),
    (S, "Paris", "Paris or Lyon", I),
    (S, "Paris", "Lyon", I),
    (S, "Paris", "Paris is the capital of France, where the river Seine runs through", C),  # detail is fine
    (S, "vitamin A", "vitamin C", I),
    (S, "11 September", "11 November", I),
    (B, "phosphate-buffered saline", "Phosphate buffered saline (PBS)", C),
    (B, "centrifugation", "spin", I),
    # refusals, hedges and empty answers
    (S, "Paris", "I don't know", N),
    (S, "Paris", "I'm not sure.", N),
    (S, "Skylab", "Cannot be determined from the video", N),
    (S, "1973", "unable to determine", N),
    (S, "Least Concern", "N/A", N),
    (S, "Paris", "Unknown", N),
    (S, "Paris", "", N),
    (S, "Paris", "   \n", N),
    (B, "Paris", "I don't know", I),
    (B, "Paris", "", I),
    # found by the third labelled set (tests/data/judge_labels_final/)
    (S, "Cello", "A string instrument", N),  # a kind of thing, not which
    (S, "Seine", "A river in Paris", N),
    (S, "5", "Multiple storeys", N),
    (S, "10,935 m", "Nearly 11,000 m", N),  # approximate, not the gold's figure
    (S, "1911", "Early 1900s", N),
    (S, "4", "I'm not sure; the video doesn't say.", N),
    (S, "Hilary Hahn", "Unknown violinist", N),
    (S, "Queen", "Queen + Adam Lambert", I),  # the gold and another name
    (S, "Santa María", "Santa Maria della Salute", I),  # part of a longer name
    (S, "8 minutes 20 seconds", "8 minutes", I),
    (S, "64.4 m", "211 ft 5 in", C),  # one amount in two units
    (S, "1,435 mm", "4 ft 8½ in", C),
    (S, "1911", "MCMXI", C),
    (S, "2.5", "two and a half", C),
    (S, "250 g", "A quarter of a kilogram", C),
    (S, "8.5 km", "8,5 km", C),  # a decimal comma
    (S, "8 April 2024", "04/08/2024", C),  # day and month in either order
    (S, "8 April 2024", "04/09/2024", I),
    (S, "Inca", "The Incas", C),
    (S, "Airbus", "Airbus SE", C),
    (S, "Andromeda Galaxy", "Andromeda", C),  # the kind of thing left off
    (S, "Ford Motor Company", "Ford", C),
    (B, "quenched", "quenching", C),  # another ending of one stem
    (B, "phenolphthalein", "phenolphtalein", C),  # a letter dropped inside a long word
    (B, "10×", "x10", C),
    # found by the fourth labelled set (tests/data/judge_labels_final2/)
    (S, "26 April 1986", "25 or 26 April 1986", I),  # two days offered
    (S, "88", "88 keys (52 white and 36 black)", C),  # amounts in brackets are detail
    (S, "553.3 m", "1,815 ft", C),  # a conversion rounds to its own unit
    (S, "Granada", "Granada, Andalusia, Spain", UNSCORED),  # the gold placed, or another Granada
    (S, "Saint Petersburg", "St. Petersburg, Florida", UNSCORED),
    (S, "snow leopard", "Panthera uncia", UNSCORED),  # a scientific name: only knowledge says
    (S, "828 m", "Very tall.", N),
    (S, "Titan", "One of Saturn's moons.", N),
    (S, "Johann Strauss I", "Insufficient information.", N),
    (B, "10 °C/min", "10 °C/s", I),  # a rate's time unit counts
    (B, "µmol/L", "mmol/L", I),
    # found by the fifth and sixth labelled sets (tests/data/judge_labels_fresh*/)
    (S, "Lincoln Memorial", "This looks like a memorial in Washington, D.C., but I can't tell which one.", N),
    (S, "Lake Bled", "It's Lake Bled or Bohinj, I can't tell which.", I),  # two candidates: a guess
    (S, "Tteokbokki", "It's a Korean dish.", N),
    (S, "Sputnik 1", "Explorer 1", I),  # the amount matches, the name does not
    (S, "Sputnik 1", "It was Sputnik 1.", C),
    (S, "XIV", "14th", C),
    (S, "Guinea", "Guinea-Bissau", I),
    (B, "5% non-fat milk", "5% BSA", I),
    (B, "5% CO2", "5% O2", I),
    (B, "10% FBS", "10% fetal bovine serum", C),
    (B, "1 × 10^5 cells/cm²", "1 × 10^5 cells/mL", UNSCORED),  # never CORRECT: per area is not per volume
    (B, "acetaminophen", "paracetamol", C),
    (B, "dichloromethane", "methylene chloride", C),
    (B, "sodium hypochlorite", "NaOCl", C),
    # other ways of writing the gold, and refusals of the very thing asked
    (S, "Frank Gehry", "Frank O. Gehry", C),
    (S, "Saturn V", "Saturn 5", C),
    (S, "Louis XIV", "Louis 14", C),
    (S, "2017", "21/08/2017", C),
    (S, "2017", "August 21, 2016", I),
    (S, "magnesium", "Mg", C),
    (S, "hydrogen", "H₂", C),
    (S, "Soviet Union", "USSR", UNSCORED),  # an abbreviation it cannot expand: abstain
    (S, "NASA", "ESA", I),
    (S, "Cretaceous", "Late Cretaceous", C),
    (S, "monotremes", "marsupials", I),  # a plural answer to a plural gold: another group
    (S, "cumulonimbus", "cumulus", UNSCORED),
    (S, "sushi", "The dish is a kind of Japanese food.", N),
    (S, "House of Windsor", "The monarch belongs to a European royal family.", N),
    (S, "Pisa", "An Italian city, I think, but I can't name it.", N),
    (S, "Buñol", "A small town near Valencia; I don't remember its name.", N),
    (S, "Indonesia", "Southeast Asia somewhere; I can't be more specific.", N),
    (S, "polo", "polo, I guess? Not sure.", I),  # a hedged guess
    (S, "Budapest", "Budapest, I suppose.", I),
    # a partial answer that contradicts nothing is not attempted, as the paper's grader has it
    (S, "Gabriel García Márquez", "Gabriel", N),
    (S, "Andre Geim and Konstantin Novoselov", "Andre Geim", N),
    (S, "Ivan IV", "Ivan", N),
    (S, "1508–1512", "It was begun in 1508.", N),
    (S, "1508–1512", "1508 to 1512", C),
    # added detail the matcher cannot check: abstain, never CORRECT
    (S, "Alexander Fleming", "Alexander Fleming, in 1938.", UNSCORED),
    (S, "Salar de Uyuni", "Salar de Uyuni, in Chile", UNSCORED),
    (S, "The Beatles", "The Beatles, for Let It Be", UNSCORED),
    (S, "Budapest", "Budapest, the capital.", C),
    # the same kind of name with another in the place that tells them apart
    (S, "Marie Curie", "Pierre Curie", I),
    (S, "Sicilian Defence", "French Defence", I),
    (S, "Sicilian Defence", "Sicilian Defense", UNSCORED),  # spelled alike: another spelling?
    (S, "Blue whale", "A baleen whale.", N),
    (S, "FeS2", "FeS", I),
]


@pytest.mark.parametrize("task,gold,prediction,expected", NORMALIZED_CASES)
def test_normalized_match_cases(task, gold, prediction, expected):
    judge = NormalizedMatchJudge()
    [judgement] = judge.judge([JudgeRequest(task, "question?", gold, prediction)])
    assert judgement == Judgement(expected, "normalized-match@5", None)


def test_normalized_match_identity_and_order():
    judge = NormalizedMatchJudge()
    assert (judge.judge_id, judge.kind) == ("normalized-match@5", "normalized-match")
    reqs = [JudgeRequest(S, "q", "Paris", "Lyon"), JudgeRequest(S, "q", "Paris", "Paris"),
            JudgeRequest(B, "q", "x", "")]
    assert [j.label for j in judge.judge(reqs)] == [INCORRECT, CORRECT, INCORRECT]
    assert judge.judge([]) == []


def test_normalized_match_repeated_requests_stay_consistent():
    # The judge caches gold analysis; repeats must grade the same (speed is in bench/).
    judge = NormalizedMatchJudge()
    pairs = [("Paris", "The city of Paris"), ("12.5", "about 12.54 km"), ("1994", "I don't know"),
             ("Danube", "Rhine")]
    labels = [j.label for j in judge.judge([JudgeRequest(S, "q", g, p) for g, p in pairs] * 500)]
    assert labels == [CORRECT, CORRECT, NOT_ATTEMPTED, INCORRECT] * 500


# --- label parser and prompts -----------------------------------------------------

@pytest.mark.parametrize("task,text,expected", [
    (S, "A", CORRECT), (S, "B.", INCORRECT), (S, "The grade is C", NOT_ATTEMPTED),
    (S, " (B) ", INCORRECT), (S, "CORRECT", CORRECT), (S, "INCORRECT", INCORRECT),
    (S, "NOT_ATTEMPTED", NOT_ATTEMPTED), (S, "not attempted", NOT_ATTEMPTED),
    (S, "<think>maybe A</think> B", INCORRECT), (S, "a correct answer", CORRECT),
    (S, "garbage", UNPARSEABLE), (S, "", UNPARSEABLE), (S, "yes", UNPARSEABLE), (S, "ABC", UNPARSEABLE),
    (B, "yes", CORRECT), (B, "No.", INCORRECT), (B, "YES, they match", CORRECT),
    (B, "correct", CORRECT), (B, "Incorrect", INCORRECT), (B, "not correct", INCORRECT),
    (B, "garbage", UNPARSEABLE), (B, "A", UNPARSEABLE), (B, "nothing", UNPARSEABLE),
])
def test_parse_label(task, text, expected):
    assert parse_label(task, text) == expected


@pytest.mark.parametrize("task", ["blank", "simpleqa"])
def test_prompt_files_have_placeholders_and_fill(task):
    template = load_prompt(task)
    for name in ("{question}", "{gold}", "{prediction}"):
        assert template.count(name) == 1, name
    question = "What does f'{x}' print when x = {'a': 1}?"
    filled = fill_prompt(template, question, "{'a': 1}", "a dict {}")
    assert question in filled and "{'a': 1}" in filled and "a dict {}" in filled
    for name in ("{question}", "{gold}", "{prediction}"):
        assert name not in filled


def test_fill_prompt_is_single_pass():
    # A text that contains a placeholder name must be kept as written.
    out = fill_prompt("Q={question}|G={gold}|P={prediction}", "{gold}", "{}", "{question}")
    assert out == "Q={gold}|G={}|P={question}"


# --- LLMJudge on a tiny random model -----------------------------------------------

@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("tiny-judges")
    return {
        "random": build_tiny_judge(root / "random", silent=False),
        "silent": build_tiny_judge(root / "silent", silent=True),
    }


LLM_REQUESTS = [
    JudgeRequest(S, "Which city is shown?", "Paris", "Lyon"),
    JudgeRequest(S, "In which year {exactly} was it built?", "1994", "about 1994, I think"),
    JudgeRequest(B, "The sample was spun at ____ for ____.", "4000 g", "4,000 x g"),
    JudgeRequest(B, "Cells were washed in ____.", "PBS", ""),
    JudgeRequest(S, "Who designed it?", "Gaudí", "I don't know"),
]


def test_llm_judge_random_model_runs_and_labels_everything(tiny_models):
    path = str(tiny_models["random"])
    judge = LLMJudge(path, backend="transformers", max_new_tokens=4, batch_size=2, device="cpu")
    assert judge.kind == "llm"
    assert judge.judge_id == f"llm:{path}@local" and path in judge.judge_id
    judgements = judge.judge(LLM_REQUESTS)
    assert len(judgements) == len(LLM_REQUESTS)
    for request, j in zip(LLM_REQUESTS, judgements):
        allowed = {CORRECT, INCORRECT, UNPARSEABLE} | ({NOT_ATTEMPTED} if request.task == S else set())
        assert j.label in allowed
        assert j.judge_id == judge.judge_id and isinstance(j.raw, str)
        assert j.label == parse_label(request.task, j.raw)  # the label comes from the kept raw text
    assert summarize(judgements)["total"] == len(LLM_REQUESTS)
    # Left padding: batching must not change greedy outputs.
    one_by_one = LLMJudge(path, backend="transformers", max_new_tokens=4, batch_size=1, device="cpu")
    assert [j.raw for j in one_by_one.judge(LLM_REQUESTS)] == [j.raw for j in judgements]


def test_llm_judge_known_output_is_parsed(tiny_models):
    judge = get_judge(f"llm:{tiny_models['silent']}", backend="transformers", max_new_tokens=3)
    judgements = judge.judge(LLM_REQUESTS)
    assert all(j.raw.split() == ["B", "B", "B"] for j in judgements)
    # "B" is grade B for simpleqa, but not a yes/no: the blank replies are UNPARSEABLE, kept and counted.
    assert [j.label for j in judgements] == [INCORRECT, INCORRECT, UNPARSEABLE, UNPARSEABLE, INCORRECT]
    assert summarize(judgements) == {CORRECT: 0, INCORRECT: 3, NOT_ATTEMPTED: 0, UNPARSEABLE: 2, UNSCORED: 0,
                                     "total": 5}


def test_llm_judge_reassembles_results_in_request_order():
    judge = LLMJudge("no/such-model", revision="abc123", backend="transformers")
    assert judge.judge_id == "llm:no/such-model@abc123"
    seen = []

    def fake_generate(prompts):  # stands in for the model: answers from the prompt text
        seen.extend(prompts)
        return ["A" if "apple" in p else "no" for p in prompts]

    judge._generate = fake_generate
    reqs = [JudgeRequest(S, "q", "apple", "x"), JudgeRequest(B, "q", "pear", "x"),
            JudgeRequest(S, "q", "pear", "x" * 50)]
    assert [j.label for j in judge.judge(reqs)] == [CORRECT, INCORRECT, UNPARSEABLE]
    assert len(seen) == 3 and "Gold target: apple" in seen[0]


def test_import_needs_no_torch():
    code = ("import sys, evaluator.judges as j; j.get_judge('llm:x'); "
            "print(sorted({'torch', 'transformers', 'vllm'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- cache ------------------------------------------------------------------------

class CountingJudge:
    """A fake inner judge: records every call; 'garbage' predictions come back UNPARSEABLE."""

    judge_id = "fake@1"
    kind = "llm"

    def __init__(self):
        self.calls: list[list[JudgeRequest]] = []

    def judge(self, requests):
        self.calls.append(list(requests))
        return [Judgement(UNPARSEABLE if r.prediction == "garbage" else CORRECT, self.judge_id,
                          f"raw:{r.prediction}") for r in requests]


def _requests():
    a = JudgeRequest(S, "q1", "Paris", "Paris")
    b = JudgeRequest(S, "q1", "Paris", "garbage")
    c = JudgeRequest(B, "q2 {braces}", "PBS", "saline\0with NUL")
    return [a, b, a, c, b, a]


def test_cached_judge_sends_each_miss_once_and_persists(tmp_path):
    db = tmp_path / "sub" / "judgements.sqlite"
    inner = CountingJudge()
    cached = CachedJudge(inner, JudgementCache(db))
    assert (cached.judge_id, cached.kind) == ("fake@1", "llm")
    first = cached.judge(_requests())
    assert len(inner.calls) == 1 and len(inner.calls[0]) == 3  # three distinct requests, once each
    assert [j.label for j in first] == [CORRECT, UNPARSEABLE, CORRECT, CORRECT, UNPARSEABLE, CORRECT]
    assert first[1].raw == "raw:garbage"
    assert cached.stats == {"cached": 0, "judged": 3}

    assert cached.judge(_requests()) == first  # all hits, UNPARSEABLE included
    assert len(inner.calls) == 1
    assert cached.stats == {"cached": 6, "judged": 3}

    inner2 = CountingJudge()
    reopened = CachedJudge(inner2, JudgementCache(db))
    assert reopened.judge(_requests()) == first and inner2.calls == []
    assert len(JudgementCache(db)) == 3

    # Only the new request is judged.
    new = JudgeRequest(S, "q1", "Paris", "Lyon")
    reopened.judge(_requests() + [new])
    assert inner2.calls == [[new]]


def test_cache_keys_depend_on_judge_id_and_config_digest(tmp_path):
    cache = JudgementCache(tmp_path / "c.sqlite")
    reqs = _requests()[:2]
    cache.put_many("judge-a", reqs, [Judgement(CORRECT, "judge-a"), Judgement(INCORRECT, "judge-a", "x")])
    assert cache.get_many("judge-a", reqs) == {
        0: Judgement(CORRECT, "judge-a"), 1: Judgement(INCORRECT, "judge-a", "x"),
    }
    assert cache.get_many("judge-b", reqs) == {}
    with pytest.raises(ValueError):
        cache.put_many("judge-a", reqs, [])

    inner = CountingJudge()
    inner.config_digest = "prompt-v1"
    CachedJudge(inner, cache).judge(reqs)
    inner.config_digest = "prompt-v2"  # an edited prompt must not reuse old judgements
    CachedJudge(inner, cache).judge(reqs)
    assert len(inner.calls) == 2


def test_llm_judge_digest_follows_prompts_and_settings():
    a, b = LLMJudge("m"), LLMJudge("m", max_new_tokens=9)
    assert a.config_digest == LLMJudge("m").config_digest != b.config_digest


def _write_many(path: str, worker: int) -> None:
    cache = JudgementCache(path)
    for batch in range(10):
        reqs = [JudgeRequest(S, f"w{worker}", "g", f"p{batch}-{k}") for k in range(20)]
        cache.put_many("fake@1", reqs, [Judgement(CORRECT, "fake@1", str(worker))] * len(reqs))


def test_cache_is_safe_with_several_processes(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    JudgementCache(path)
    procs = [multiprocessing.get_context("spawn").Process(target=_write_many, args=(path, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert len(JudgementCache(path)) == 4 * 10 * 20


# --- registry and summary -------------------------------------------------------------

def test_get_judge_unknown_name_lists_known_names():
    with pytest.raises(UnknownJudgeError) as info:
        get_judge("nope")
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "'nope'" in message and "'normalized-match'" in message and "'llm'" in message and "llm:<" in message
    with pytest.raises(UnknownJudgeError):
        get_judge("llm:")


def test_get_judge_known_names():
    assert isinstance(get_judge("normalized-match"), NormalizedMatchJudge)
    judge = get_judge("llm:/models/phi3", revision="r1", batch_size=4)
    assert isinstance(judge, LLMJudge) and judge.judge_id == "llm:/models/phi3@r1" and judge.batch_size == 4
    assert get_judge("llm", model="org/name").judge_id == "llm:org/name@local"
    with pytest.raises(ValueError):
        LLMJudge("m", backend="tensorrt")


def test_summarize_counts_every_label():
    js = [Judgement(CORRECT, "x"), Judgement(UNPARSEABLE, "x", "??"), Judgement(CORRECT, "x")]
    assert summarize(js) == {CORRECT: 2, INCORRECT: 0, NOT_ATTEMPTED: 0, UNPARSEABLE: 1, UNSCORED: 0, "total": 3}
    assert summarize([]) == {**{label: 0 for label in LABELS}, "total": 0}
