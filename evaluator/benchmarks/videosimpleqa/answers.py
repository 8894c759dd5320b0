"""Video SimpleQA's answer reading: a short answer and its stated confidence
(`extract_short_answer`), from JSON, salvaged JSON-like text or plain prose.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from evaluator.answers.common import parse_obj, prep
from evaluator.judges.base import CORRECT, INCORRECT, NOT_ATTEMPTED, UNSCORED
from evaluator.metrics import Tally
from evaluator.records import Prediction

_ANSWER_KEYS = ("answer", "final_answer", "final answer")
_CONF_KEYS = ("confidence_score", "confidence", "confidence score", "confidence_level")
# Broken JSON: keys quoted or not ({answer: "X"}), a comma missing ({"answer": "X" "confidence": 8})
_NEXT_FIELD = r"""(?=\s*(?:,\s*["']?[\w ]|}|$|["']?(?i:confidence)))"""
_SALVAGE_ANSWER_RE = re.compile(
    rf"""(?:["']|\b)(?i:answer|final_answer)["']?\s*:\s*
        (?:"([^\n]{{0,2000}}?)"{_NEXT_FIELD}
          |'([^\n]{{0,2000}}?)'{_NEXT_FIELD}
          |([^,}}\n"']{{1,200}}))""",
    re.X,
)
_SALVAGE_CONF_RE = re.compile(
    r"""(?:["']|\b)(?i:confidence_score|confidence)["']?\s*:\s*["']?\s*(-?[0-9]+(?:\.[0-9]+)?)\s*%?"""
)
# "**Answer:** X" on its own line, and "**Confidence:** 80%" (a markdown reply)
_MD_ANSWER_RE = re.compile(r"^[ \t]*(?:\*\*|__)?(?i:final\s+)?(?i:answer)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?[ \t]*"
                           r"(?:\*\*|__)?(.+?)(?:\*\*|__)?[ \t]*$", re.M)
_MD_CONF_RE = re.compile(r"^[ \t]*(?:\*\*|__)?(?i:confidence)(?:\s+score)?(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*"
                         r"([0-9]+(?:\.[0-9]+)?)\s*%?", re.M)


def _confidence(v) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, str):
        v = v.strip().rstrip("%").strip()
        try:
            v = float(v)
        except ValueError:
            return None
    if not isinstance(v, (int, float)):
        return None
    try:
        v = float(v)
    except OverflowError:
        return None
    if not math.isfinite(v) or v < 0 or v > 100:
        return None
    return v


def _answer_str(v) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, (list, tuple)):
        return ", ".join(_answer_str(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def _from_dict(d) -> tuple[str, float | None] | None:
    if not isinstance(d, dict):
        return None
    keys = {str(k).strip().lower(): k for k in d}
    ans_key = next((keys[k] for k in _ANSWER_KEYS if k in keys), None)
    if ans_key is None:
        return None
    conf_key = next((keys[k] for k in _CONF_KEYS if k in keys), None)
    try:
        conf = _confidence(d[conf_key]) if conf_key is not None else None
        return _answer_str(d[ans_key]), conf
    except (ValueError, RecursionError):  # e.g. str() of a 5000-digit int
        return None


def extract_short_answer(text: str) -> tuple[str, float | None]:
    """(answer, confidence 0-100 or None) from a {"answer", "confidence_score"} reply.

    Parses the first '{' .. last '}' (then the last '{' .. last '}' if that
    fails), tolerating ```json fences, single quotes, trailing commas, a
    'confidence' key and confidences given as '85' or '85%'.  If the JSON is
    broken but a quoted "answer" key is readable, that value is salvaged.
    Otherwise returns (the response without reasoning, trimmed of whitespace
    and quotes, None).  Confidence outside 0..100 -> None.
    """
    t, _ = prep(text)
    if not t:
        return "", None
    i = t.find("{")
    if i >= 0:
        j = t.rfind("}")
        if j > i:
            r = _from_dict(parse_obj(t[i:j + 1]))
            if r is None:
                k = t.rfind("{", i + 1, j)
                if k > i:
                    r = _from_dict(parse_obj(t[k:j + 1]))
            if r is not None:
                return r
        # Broken JSON (unescaped quotes, truncation): read the fields directly.
        last = None
        for m in _SALVAGE_ANSWER_RE.finditer(t, i):
            last = m
        if last is not None:
            raw = last.group(1)
            if raw is not None:
                try:
                    ans = json.loads('"' + raw + '"')
                except ValueError:
                    ans = raw
            else:
                ans = last.group(2) if last.group(2) is not None else last.group(3)
            conf = None
            for cm in _SALVAGE_CONF_RE.finditer(t, i):
                conf = _confidence(cm.group(1))
            return ans.strip().strip("\"'"), conf
    md = _MD_ANSWER_RE.search(t)
    if md is not None:
        conf = _MD_CONF_RE.search(t)
        return md.group(1).strip().strip("\"'“”‘’`").strip(), _confidence(conf.group(1)) if conf else None
    s = t
    if s.startswith("```"):
        s = s.strip("`")
        if s[:4].lower() == "json":
            s = s[4:]
    return s.strip().strip("\"'“”‘’`").strip(), None


def _stated_confidence(value: Any) -> float | None:
    """A stated confidence in 0-100, else None (such items stay out of calibration)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if 0.0 <= value <= 100.0 else None


def read_prediction(pred: Prediction | None, tally: Tally) -> tuple[str | None, float | None]:
    """(answer, confidence) of one prediction; answer None (missing or empty) grades
    NOT_ATTEMPTED without a judge call.

    The prediction record's `confidence` wins over the one inside the response.
    """
    tally.used += 1
    if pred is None:
        tally.missing += 1
        return None, None
    # Without JSON the extractor returns the raw text as the answer (as the official code).
    answer, stated = extract_short_answer(pred.response)
    confidence = _stated_confidence(pred.confidence if pred.confidence is not None else stated)
    if not answer or not answer.strip():
        tally.unparseable += 1  # nothing to read (empty, or only a reasoning block)
        return None, confidence
    return answer, confidence


def grade_of(label: str, tally: Tally) -> str:
    """A judge label as a grade: no verdict (UNSCORED) or an unreadable one counts as
    INCORRECT, and is counted apart (never silently wrong)."""
    if label in (CORRECT, INCORRECT, NOT_ATTEMPTED):
        return label
    if label == UNSCORED:
        tally.judge_unscored += 1
    else:
        tally.judge_unparseable += 1
    return INCORRECT
