"""Each shortcut taken for scoring speed gives what the longer way gives: the fast reading of
a prediction line, the byte-table word split, the hint checks before regexes, the bounded
searches. Each is checked against the longer way written out here, over tricky inputs
and random ones."""

from __future__ import annotations

import difflib
import json
import random
import re

import pytest

from evaluator import predictions as P
from evaluator.answers import framing, rewrite
from evaluator.judges import names, quantities
from evaluator.records import Call, Context

CALLS = {
    "q1": Call("q1", "exact", "i1", "mcq", "Which?", "choice", labels=["A", "B"]),
    "q2": Call("q2", "causalstep", "i2", "causal", "Which?", "choice", labels=["A", "B"],
               context=Context(["q1"], "{previous}", {"A": "a", "B": "b"})),
    "q3": Call("q3", "videosimpleqa", "i3", "short", "What?", "short"),
}

LINES = [
    '{"id": "q1", "response": "B"}',
    '{"id": "q1", "response": "B"}\r',
    '{"id": "q1", "response": "B"}  \t',
    ' {"id": "q1", "response": "B"}',
    '\ufeff{"id": "q1", "response": "B"}',
    '{"id": "q1", "response": "B", "confidence": 87}',
    '{"id": "q1", "response": "B", "confidence": 87.5}',
    '{"id": "q1", "response": "B", "confidence": NaN}',
    '{"id": "q1", "response": "B", "confidence": Infinity}',
    '{"id": "q1", "response": "B", "confidence": ' + "9" * 200 + "}",
    '{"id": "q1", "response": "B", "confidence": true}',
    '{"id": "q1", "response": "B", "confidence": 101}',
    '{"id": "q1", "response": "B", "run": 1}',
    '{"id": "q1", "response": "B", "run": 1.0}',
    '{"id": "q1", "response": "B", "run": true}',
    '{"id": "q1", "response": "B", "run": null}',
    '{"id": "q3", "response": "B", "run": 2}',
    '{"id": "q1", "response": "B", "run": 7}',
    '{"id": "q1", "response": "B", "id": "q1"}',
    '{"id": "q1", "response": "B", "\\u0069d": "q1"}',
    '{"id": "q1", "response": {"a": 1, "a": 2}}',
    '{"id": "q1", "response": {"a": 1}}',
    '{"id": "q1", "response": ["B"]}',
    '{"id": "q1", "response": "B", "extra": {"a": 1, "a": 2}}',
    '{"id": "q1", "response": "B", "extra": 1}',
    '{"id": "q1", "response": "\\ud800"}',
    '{"id": "q1", "response": "\\u00e9 \\ud83d\\ude00"}',
    '{"id": "q1", "response": "é 😀"}',
    '{"id": "\\udc00", "response": "B"}',
    '{"id": "q9", "response": "B"}',
    '{"id": 1, "response": "B"}',
    '{"response": "B"}',
    '{"id": "q1"}',
    '{"id": "q1", "response": "B"} {"id": "q1"}',
    '{"id": "q1", "response": "B"},',
    '[["id", "q1"], ["response", "B"]]',
    '[]',
    '{}',
    '"text"',
    '{"id": "q1", "response": "B"',
    '{"id": "q2", "response": "B", "context": "A"}',
    '{"id": "q2", "response": "B", "context": "C"}',
    '{"id": "q2", "response": "B"}',
    '{"id": "q1", "response": "B", "context": "A"}',
    '{"id": "q1", "response": "B", "context": null}',
    "[" * 5000 + "]" * 5000,
    '{"a": ' * 3000 + "1" + "}" * 3000,
]


def _strict(line: str):
    """What a line gives when read only the strict way."""
    record, unreadable = P._load(line)
    return (None, unreadable) if unreadable is not None else P._check(record, CALLS)


@pytest.mark.parametrize("line", LINES)
def test_a_line_reads_as_the_strict_reader_reads_it(line):
    assert P._read_line(line, CALLS) == _strict(line)


def _quick_agrees(line: str) -> bool:
    """The one-pass reading of a valid line gives what the strict reader gives, or passes it on (None)."""
    quick = P._quick_line(line, CALLS)
    return quick is None or (quick, None) == _strict(line)


@pytest.mark.parametrize("line", LINES + [
    '{"response": "B", "id": "q1"}', '{"id": "q2", "response": "B", "context": "A", "run": 1}',
    '{"id": "q3", "response": "B", "confidence": 0, "run": 3}', '{"id": "q1", "response": "\\u00e9"}',
    '{"id": "q1", "response": "B", "confidence": -0.0}', '{"id": "q2", "response": "B", "context": "A"}\r'])
def test_the_one_pass_reading_of_a_line_is_the_strict_one(line):
    assert _quick_agrees(line)


def test_random_lines_read_as_the_strict_reader_reads_them():
    rng = random.Random(7)
    pieces = ['"id"', '"response"', '"confidence"', '"run"', '"context"', '"q1"', '"q2"', '"B"', '"\\ud800"',
              "1", "2", "87.5", "NaN", "null", "true", "{", "}", "[", "]", ",", ":", " "]
    accepted = 0
    for _ in range(3000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        if rng.random() < 0.5:
            line = "{" + line + "}"
        if line.strip():
            assert P._read_line(line, CALLS) == _strict(line), line
            assert _quick_agrees(line), line
            accepted += P._quick_line(line, CALLS) is not None
    fields = [('"id"', ['"q1"', '"q2"', '"q3"', '"q9"', "1"]), ('"response"', ['"B"', '"\\ud800"', "null"]),
              ('"confidence"', ["0", "100", "87.5", "101", "true", "null", '"5"']),
              ('"context"', ['"A"', '"C"', "null"]), ('"run"', ["1", "2", "3", "7", "1.0", "true", "null"])]
    for _ in range(3000):  # objects of the five fields, some left out, some twice, in any order
        chosen = [(k, vs[0] if rng.random() < 0.5 else rng.choice(vs)) for k, vs in fields if rng.random() < 0.7]
        chosen += rng.sample(chosen, k=min(len(chosen), rng.randint(0, 1)))
        rng.shuffle(chosen)
        line = "{" + ", ".join(f"{k}: {v}" for k, v in chosen) + "}"
        assert _quick_agrees(line), line
        accepted += P._quick_line(line, CALLS) is not None
    assert accepted > 100  # the one-pass reading was tried on lines it takes, not only passed on


def test_a_file_without_repeated_runs_has_no_run_problems():
    kept = [P._check(json.loads(x), CALLS)[0] for x in LINES[:2]]
    assert P._run_problems(kept, CALLS) == []


WORD_TEXTS = ["the third option_b is 2nd-best", "x_last", "first", "", "   ", "a1b2 c3 ?! _ -- 10th",
              "option one", "statement five, choice", "über erste", "第三个选项", "ſecond", "Ⅻ first"]


@pytest.mark.parametrize("text", WORD_TEXTS)
def test_words_split_by_the_byte_table_are_the_regex_words(text):
    found = set(rewrite._WORD_RE.findall(text.lower()))
    hinted, nouns = rewrite._hints(text.lower())
    assert hinted == rewrite._HINT_WORDS & found
    assert nouns == (not found.isdisjoint(rewrite._NOUNS))


def test_random_ascii_words_split_like_the_regex():
    rng = random.Random(3)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 _-.,:;!?()*'\"\t\n\x0b\x0c\x1c\x1f\x7f"
    words = ["first", "second", "third", "one", "two", "ten", "last", "option", "statement", "choice", "1st"]
    for _ in range(3000):
        text = "".join(rng.choice(words) if rng.random() < 0.2 else rng.choice(alphabet) for _ in range(40))
        found = set(rewrite._WORD_RE.findall(text))
        assert rewrite._hints(text) == (rewrite._HINT_WORDS & found, not found.isdisjoint(rewrite._NOUNS)), text


def _closing_start_unbounded(t: str) -> int:
    body = t.rstrip()
    end = len(body) - 1
    q = max(body.rfind(". ", 0, end), body.rfind("\n", 0, end), body.rfind("! ", 0, end), body.rfind("? ", 0, end))
    return max(q + 1, len(t) - rewrite._MAX_ORDINAL_TEXT)


def test_the_closing_sentence_starts_where_an_unbounded_search_finds_it():
    rng = random.Random(5)
    for _ in range(3000):
        t = "".join(rng.choice(["word ", ". ", "\n", "! ", "? ", "x", "  "]) for _ in range(rng.randint(0, 150)))
        assert rewrite._closing_start(t) == _closing_start_unbounded(t), t


@pytest.mark.parametrize("text", ["I'm not sure which", "i can’t tell", "cannot tell", "can't be sure", "hard to say which",
                                  "can't decide", "i’d need to", "would need to", "i'm torn", "could also be (b).",
                                  "it could also be c", "nothing here"])
def test_every_unsure_phrase_holds_one_of_its_hints(text):
    low = text.lower()
    if framing._UNSURE_RE.search(low):
        assert any(h in low for h in framing._UNSURE_HINTS)


def _number_words_every_time(text: str) -> str:
    """quantities._number_words without its hint check: every substitution is tried."""
    for pattern, repl in quantities._SPELLED:
        text = pattern.sub(repl, text)
    return quantities._WORD_RUN.sub(lambda m: f"{quantities._run_value(m[0])}", text)


@pytest.mark.parametrize("text", ["ſix", "SIX", "ſeventy", "one half", "an hour and a half", "a quarter of an hour",
                                  "three-quarters of a cup", "forty-eight", "twenty", "2 mL", "", "acetone", "K",
                                  "ONE HUNDRED AND ONE", "ﬁfty", "ﬁve"])
def test_number_words_are_read_where_the_hint_lets_them(text):
    assert quantities._number_words(text) == _number_words_every_time(text)


def test_spelled_alike_is_difflib_ratio():
    rng = random.Random(11)
    for _ in range(3000):
        a = "".join(rng.choice("abc de") for _ in range(rng.randint(0, 12)))
        b = "".join(rng.choice("abc de") for _ in range(rng.randint(0, 30)))
        assert names.spelled_alike(a, b) == (difflib.SequenceMatcher(None, a, b).ratio() >= 0.6), (a, b)


def test_the_pressure_unit_check_sees_every_unit_written_apart():
    for text in ("760 mm Hg", "10 cm  H2O", "mm HG", "mmHg", "5 mm", "cm h2o", "mm\tHg."):
        assert "H" in text or quantities._UNITS_APART.sub(r"\1\2", text) == text
    assert quantities.fold("760 mm Hg") == "760 mmHg"
