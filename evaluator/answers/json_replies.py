"""JSON replies and tool calls: the label an answer object gives ({"option": "2"}, {"letter":
"d"}, a tool call's {"name": "select_option", "arguments": {"option": "2"}}, or written as a call,
'submit_answer(choice="1")'), or the option whose text its only value is ({"current": "1.5 A"}),
for `choice`.
"""

from __future__ import annotations

import re

from evaluator.answers.common import MISS, parse_obj
from evaluator.answers.labels import SHORT_RE
from evaluator.answers.options import option_exact

# Keys of a JSON answer object that hold the choice ("selected_option",
# "Answer Letter"): only these words, at least one of them core; "answer"
# keys outrank the rest.  "options_considered" is not one.
_JSON_KEY_WORDS = frozenset("answer final option choice letter selected selection select chosen label pick number "
                            "correct best my your the feedback".split())
_JSON_KEY_CORE = frozenset("answer final option choice letter selected selection select chosen label pick".split())
_JSON_KEY_SPLIT_RE = re.compile(r"[^a-z]+")
# where a tool call keeps its arguments (OpenAI's "arguments" may be a JSON string)
_CALL_ARGUMENTS = ("arguments", "parameters", "args", "input")
# the tools that answer ("submit_answer", "select_option", "final_answer"), not "eliminate_option"
_ANSWER_TOOL = r"(?i:submit|select|choose|pick|give|final|answer)[\w.-]*"
_ANSWER_TOOL_RE = re.compile(_ANSWER_TOOL)
# a tool call written as code: 'submit_answer(choice="1")', "select_option('C')"
_CALL_RE = re.compile(r"\s*`*" + _ANSWER_TOOL + r"\(\s*(?:(?i:answer|choice|option|label|letter|"
                      r"selection|selected|pick)\s*=\s*)?([\"']?)([A-Za-z]|\d{1,2})\1\s*\)`*\s*;?\s*")


def _json_answer_key(key: str) -> bool:
    words = {w for w in _JSON_KEY_SPLIT_RE.split(key) if w}
    return bool(words & _JSON_KEY_CORE) and words <= _JSON_KEY_WORDS


def choice_from_json(t: str, lab: dict, opts=None):
    """Label in a JSON/dict reply ({"option": "2"}, {"letter": "d"}), or the option whose
    text the reply's only value is ({"current": "1.5 A"}), or MISS.

    Several answer keys naming different labels -> None."""
    if (m := _CALL_RE.fullmatch(t)) is not None:
        return lab.get(m.group(2).upper(), MISS)
    i = t.find("{")
    j = t.rfind("}")
    if i < 0 or j <= i or t[i + 1:i + 40].lstrip()[:1] not in ("\"", "'"):
        return MISS  # not an object with quoted keys (e.g. LaTeX braces): skip the parsers
    d = parse_obj(t[i:j + 1])
    if not isinstance(d, dict):
        return MISS
    d = _call_arguments(d)
    tiers: tuple[set, set] = (set(), set())
    for k, v in d.items():
        key = str(k).lower()
        if not _json_answer_key(key) or isinstance(v, bool) or not isinstance(v, (str, int)):
            continue
        sv = str(v).strip()
        m = SHORT_RE.fullmatch(sv) if len(sv) <= 40 else None
        lb = lab.get(m.group("l").upper()) if m else None
        if lb is not None:
            tiers[0 if "answer" in key else 1].add(lb)
    values = [v for v in d.values() if isinstance(v, str)]
    for found in tiers:
        if len(found) == 1:
            r = found.pop()
            said = {option_exact(v, opts) for v in values} - {MISS, None} if opts else set()
            return None if said - {r} else r  # {"answer": "C", "value": "<option A's text>"}
        if found:
            return None
    if opts and len(values) == 1:
        return option_exact(values[0], opts)  # {"current": "1.5 A"}: the option's own text
    return MISS


def _call_arguments(d: dict) -> dict:
    """A tool call's arguments ({"name": "select_option", "arguments": {"option": "2"}}), else `d`
    (a tool that does not answer, {"name": "describe_option", ...}: no arguments read)."""
    tool = d.get("name") or d.get("function") or d.get("tool")
    if isinstance(tool, str) and not _ANSWER_TOOL_RE.fullmatch(tool):
        return {}
    for key in _CALL_ARGUMENTS:
        args = d.get(key)
        if isinstance(args, str) and args.lstrip().startswith("{"):
            args = parse_obj(args)
        if isinstance(args, dict):
            return args
    return d


__all__ = ["choice_from_json"]
