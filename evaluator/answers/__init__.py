"""Reading answers out of raw model outputs: what the benchmarks share.

A benchmark's own reading lives in its folder (evaluator/benchmarks/<name>/answers.py);
this package holds what several call: reasoning stripping and boxed answers
(`common`), option-label matching (`labels`; `options`, an option's text;
`markers`, where a choice is stated, and `languages`, its markers in other languages;
`mentions`, labels named in passing; `checklists`; `json_replies`; `rewrite`, a
label's other spellings; `framing`, how a reply frames its answer; `corrections`, what a
self-correction replaces; `final_line`, a closing "Answer: ..." line read on its own;
`values`, options that are amounts or dates; `statements`, sets of statements; `choice`: `extract_choice`;
`final_box`, its fast path for a reply that closes on its one box) and numbers (`numbers`: `extract_number`).

Video-language models answer in many shapes: a bare letter, "The answer is
(B)", markdown, LaTeX ``\\boxed{}``, long chains of thought that mention every
option before settling on one, ``<think>`` blocks, or the option *text* instead
of its label.  Every extractor here follows the same order of trust:

1. drop the reasoning block (``strip_reasoning``); if nothing is left, use the
   text inside a closed block, but never a cut-off one (no final answer);
   a ``<answer>...</answer>`` tag, when present, is the answer;
2. the last ``\\boxed{}`` / ``\\fbox{}``;
3. the LAST explicit answer marker ("answer is", "Answer:", "I choose", ...);
4. shape-based fallbacks (a bare label, the first/last line, the last number).

Ambiguity yields ``None`` rather than a guess (see ``extract_choice``).

Speed matters: a scoring pass runs this on ~20k responses and must stay within
a small multiple of json-parsing the prediction file (extract_choice takes
about 55 us a response over the corpora of bench/extraction_corpus.py).  Hence: ``in``/``find`` checks
before any regex, regexes compiled once at import and written to start with a
literal or character class (so the engine skips ahead instead of trying every
position), markers looked for in the last 64 characters before the whole
text, anchored ``match`` at known positions, bounded quantifiers only (no
catastrophic backtracking), and size caps on anything handed to json/ast.
Pure standard library.
"""

from evaluator.answers.choice import extract_choice
from evaluator.answers.common import last_boxed, read_cut_off_reasoning, reasoning_cut_off, strip_reasoning
from evaluator.answers.numbers import extract_number

__all__ = [
    "strip_reasoning",
    "reasoning_cut_off",
    "read_cut_off_reasoning",
    "last_boxed",
    "extract_choice",
    "extract_number",
]
