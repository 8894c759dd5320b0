"""Label matching: which option label (or option text) a short span of a response
names, with the guards that keep an article "A", a pronoun "I" or a negated
label ("not B") from being read as a choice.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evaluator.answers.common import _MISS


@lru_cache(maxsize=1024)
def _label_map(labels: tuple) -> dict:
    """Upper-cased label key -> the caller's label (returned verbatim)."""
    out = {}
    for lab in labels:
        key = str(lab).strip().strip("().").upper()
        if key:
            out[key] = lab
    return out


_NORM_RE = re.compile(r"[^\W_]+")


def _norm(s: str) -> str:
    """Lower-case words only: punctuation, markdown and spacing don't matter."""
    return " ".join(_NORM_RE.findall(s.lower()))


_OPT_PREFIX_RE = re.compile(r"\s*[\(\[]?([A-Za-z]|[0-9]{1,2})[\)\].:]\s+")
# A formula or a value ("O(n log n)", "0.1 s", "6%", "e − 1"): symbols or digits and at most
# two words of three letters. Its words alone say little ("o n" is inside "o n log² n"), so
# it is matched whole, symbols kept, never found inside a longer answer.
_FORMULA_CHARS_RE = re.compile(r"[0-9()^/²³−+=<>×·√%]")
_WORD3_RE = re.compile(r"[^\W\d_]{3,}")
_COMPACT_DROP_RE = re.compile(r"[\s*_`$\\]+")
_MARKUP_RE = re.compile(r"[*_`$\\]+")
_COMPACT_MAP = str.maketrans({"²": "^2", "³": "^3", "−": "-", "–": "-", "×": "*", "·": "*"})
# What may touch a formula found inside a longer answer: not a letter or digit, and not an
# operator that would make it part of a larger expression ("2" in "e/2", "0.5" in "10.5").
_FORMULA_GLUE = frozenset("./^*+-")


def _compact(s: str) -> str:
    """A formula as written, minus spacing, markdown and a closing period: "**O(n²)**." -> "o(n^2)"."""
    return _COMPACT_DROP_RE.sub("", s.lower().translate(_COMPACT_MAP)).rstrip(".")


def _spaced(s: str) -> str:
    """A formula with single spaces kept (so its edges can be seen), markdown dropped."""
    return " ".join(_MARKUP_RE.sub("", s.lower().translate(_COMPACT_MAP)).split()).rstrip(".")


def _formula_inside(formula: str, line: str) -> bool:
    """True if `formula` (spaced) stands on its own somewhere in `line` (spaced)."""
    n = len(formula)
    p = line.find(formula)
    while p >= 0:
        before, after, then = line[p - 1:p], line[p + n:p + n + 1], line[p + n + 1:p + n + 2]
        glued_before = before.isalnum() or (before != "" and before in _FORMULA_GLUE)
        # a closing period ends the sentence; "4.05" is another number
        glued_after = after.isalnum() or (after != "" and after in _FORMULA_GLUE and (after != "." or then.isdigit()))
        if not glued_before and not glued_after:
            return True
        p = line.find(formula, p + 1)
    return False


# A sequence of step numbers ("1, 3, 2, 4", "1 → 2 → 4 → 3") is matched by its numbers, as prose.
_SEQUENCE_RE = re.compile(r"\s*\d+(?:\s*[,;→>\-–]+\s*\d+)+\s*")


def _is_formula(s: str) -> bool:
    return (_FORMULA_CHARS_RE.search(s) is not None and len(_WORD3_RE.findall(s)) <= 2
            and _SEQUENCE_RE.fullmatch(s) is None)


@lru_cache(maxsize=65536)  # above the largest suite's MCQ count
def _norm_options(options: tuple, labels: tuple) -> tuple:
    """(matchable option text, label, spaced formula or None) triples; cached because
    the same question is scored for every submitted model. Prose is matched by its
    words (a leading "Because", as CausalStep's options open, dropped: answers leave it
    out); a formula or value (`_is_formula`) by its compact form when whole, and by its
    spaced form standing on its own inside a longer answer."""
    keys = {str(lab).strip().strip("().").upper() for lab in labels}
    out = []
    for lab, opt in zip(labels, options):
        if opt is None:
            continue
        s = str(opt)
        # Some datasets keep "A. " inside the option text itself.
        m = _OPT_PREFIX_RE.match(s)
        if m and m.group(1).upper() == str(lab).strip().upper():
            s = s[m.end():]
        if _is_formula(s):
            ns = _compact(s)
            if ns and (len(ns) >= 2 or ns.upper() not in keys):  # "e" would read as label E
                out.append((ns, lab, _spaced(s)))
            continue
        ns = _norm(s)
        if ns.startswith("because ") and len(ns) > 12:
            ns = ns[len("because "):]
        if len(ns) >= 2:  # a 1-char option text would collide with labels
            out.append((ns, lab, None))
    return tuple(out)


# An option that is a step number ("3", as ExpVid's completeness questions give them) or
# opens with one ("Step 3: Add the buffer").
_STEP_OPTION_RE = re.compile(r"\s*(?:(?i:step)\s*)?(\d{1,3})\s*(?:$|[:.)\-–—]\s)")


@lru_cache(maxsize=65536)
def _option_numbers(options: tuple, labels: tuple) -> dict:
    """Step number -> label, when the labels are letters and every option is or opens
    with its own step number: then "\\boxed{3}" and "Answer: Step 3" name the option
    of step 3. Empty otherwise (a number is then a label or nothing)."""
    if not options or any(str(lab).strip().isdigit() for lab in labels):
        return {}
    out = {}
    for lab, opt in zip(labels, options):
        m = _STEP_OPTION_RE.match(str(opt or ""))
        if m is None or m.group(1) in out:
            return {}
        out[str(int(m.group(1)))] = lab
    return out


@lru_cache(maxsize=65536)
def _opts_shape(opts) -> tuple[int, bool]:
    """(longest matchable text, whether any option is a formula) of a question's options."""
    return max((len(ns) for ns, _, _ in opts), default=0), any(spaced is not None for _, _, spaced in opts)


def _option_exact(line: str, opts) -> object:
    # Normalising only drops characters, so a line more than twice as long as
    # the longest option (plus slack for markdown) cannot match: skip the work.
    longest, formulas = _opts_shape(opts)
    if len(line) > 2 * longest + 40:
        return _MISS
    ln, lc = _norm(line), (_compact(line) if formulas else "")
    if ln.startswith("because "):
        ln = ln[len("because "):]
    if not ln and not lc:
        return _MISS
    hits = {lab for ns, lab, spaced in opts if ns == (ln if spaced is None else lc)}
    if len(hits) == 1:
        return hits.pop()
    return None if hits else _MISS


def _option_contained(line: str, opts) -> object:
    """Label whose option text occurs (whole words) in ``line``.

    Several hits: the longest wins only if every other hit is part of it
    ("dark red" beats "red"); otherwise the line is ambiguous -> _MISS.
    """
    ln = " " + _norm(line) + " "
    if len(ln) <= 3:
        return _MISS
    sl = _spaced(line) if _opts_shape(opts)[1] else ""
    hits = [(ns if spaced is None else spaced, lab) for ns, lab, spaced in opts
            if ((" " + ns + " ") in ln if spaced is None else _formula_inside(spaced, sl))]
    if not hits:
        return _option_opening(ln.strip(), opts)
    if len(hits) == 1:
        return hits[0][1]
    hits.sort(key=lambda h: len(h[0]), reverse=True)
    best_ns, best_lab = hits[0]
    padded = " " + best_ns + " "
    for ns, lab in hits[1:]:
        if lab != best_lab and (len(ns) == len(best_ns) or (" " + ns + " ") not in padded):
            return _MISS
    return best_lab


def _option_opening(ln: str, opts) -> object:
    """The one option whose text the answer repeats from its start, leaving off only a
    tail ("A droplet was left hanging on the tip" for "... in the previous segment"):
    at least five words and three fifths of the option; else _MISS."""
    if ln.startswith("because "):
        ln = ln[len("because "):]
    words = ln.count(" ") + 1
    if words < 5:
        return _MISS
    hits = {lab for ns, lab, spaced in opts
            if spaced is None and ns.startswith(ln + " ") and words >= 0.6 * (ns.count(" ") + 1)}
    return hits.pop() if len(hits) == 1 else _MISS


# A label at a known position (after an answer marker, at the start of the
# response, inside a box).  Leading junk: markdown, quotes, colon leftovers,
# inline-math openers, \text{ wrappers, and words like "option".
_LEAD_RE = re.compile(
    r"""[\s*_#>`'"“”‘’:：=\-–—]{0,40}
        (?:\\\(|\\\[|\$\$?)?\s*
        (?:\\(?:text|textbf|mathrm|mathbf)\s*\{\s*)?
        (?:(?i:the\s+)?(?:(?P<w>(?i:option|choice|letter|statement|step|feedback))\b\s*[:：\#]?\s*)?
           (?i:number\s*[:：]?\s*)?
          |选项|選項)?
        (?P<o>[\(\[（])?\s*
        (?P<l>[A-Za-z]|[0-9]{1,2})(?![A-Za-z0-9])
        (?:\s*(?P<c>[\)\]）]))?
    """,
    re.X,
)
# Words after which a capital "A"/"I" is an option label rather than the
# article/pronoun: "A or B", "A is wrong", "I and J" vs "A man", "I think".
_A_LABEL_NEXT = frozenset(
    "or and nor is was are were both seems seem looks look vs because since as would could might can does "
    "fits matches best correct describes shows appears also only isn't doesn't".split()
)
_I_LABEL_NEXT = frozenset("or and nor is are were both vs seems fits matches appears".split())


_NEXT_WORD_RE = re.compile(r" ([a-z][a-z'’]{0,12})")


def _is_article(t: str, end: int, tok: str) -> bool:
    """True if capital ``tok`` ("A"/"I") ending at ``end`` starts running text."""
    m = _NEXT_WORD_RE.match(t, end)
    if m is None:
        return False
    return m.group(1) not in (_A_LABEL_NEXT if tok == "A" else _I_LABEL_NEXT)


# Characters that end a label token cleanly ("B.", "B)", "**B**", "B:").
_DELIMS = frozenset(".,:;!?*)]}\n\r\"'`_$\\<”’，。；：！？、）】」』")
# "A or B", "(A) and (C)", "B/C", "B, D": two different labels given.
_AMBIG_RE = re.compile(
    r"\s*(?:,|/|&|\bor\b|\band\b)\s*(?:(?i:maybe|perhaps|possibly|probably)\s+)?(?:(?i:option|choice)\s+)?"
    r"[\(\[]?\s*([A-Z]|[0-9]{1,2})(?![A-Za-z0-9])"
)


# A label followed by a question mark is asked about, not answered.
_QUESTIONED_RE = re.compile(r"[\s*_)\]）]{0,4}[?？]")


def _label_at(t: str, pos: int, lab: dict, strict: bool):
    """Parse a label at ``pos``.

    Returns (label | None-for-ambiguous | _MISS, article_like).  article_like
    flags an uppercase "A " followed by a lowercase word, which may be the
    English article starting an option text ("A man is running").
    """
    m = _LEAD_RE.match(t, pos)
    if not m:
        return _MISS, False
    ltok = m.group("l")
    label = lab.get(ltok.upper())
    if label is None and ltok.isdigit() and (m.group("w") or "").lower() in ("option", "choice"):
        label = _nth_letter(lab, int(ltok))  # "The correct answer is option 8." with labels A-H
    if label is None:
        return _MISS, False  # e.g. "F" when labels are A-E: not an answer
    end = m.end()
    nxt = t[end:end + 2]
    c0 = nxt[:1]
    c1 = nxt[1:2]
    if c0 in "'’" and c1.isalpha():
        return _MISS, False  # an elided word: "D'après", "L'option", "I'm"
    wrapped = m.group("o") is not None or m.group("c") is not None
    delim = (not c0) or c0 in _DELIMS or (c0 in " \t" and (not c1 or c1 in "-–—(\n*"))
    article = False
    if ltok.isdigit():
        # "3.5 seconds" or "1,000" is a number, not option 3 / 1.
        if (c0 == "." or c0 == ",") and c1.isdigit():
            return _MISS, False
    elif ltok.islower():
        # Lowercase only when it cannot be running text: "answer is b." yes,
        # "answer is a cup" no.
        if not (wrapped or delim):
            return _MISS, False
    elif not wrapped and ltok == "I" and c0 and c0 in "'’":
        return _MISS, False  # "I'm", "I'd", "I've": the pronoun
    elif not wrapped and ltok in "AI" and _is_article(t, end, ltok):
        if ltok == "I":
            return _MISS, False  # pronoun: "Answer: I think ..."
        article = True
    if strict and not (wrapped or delim):
        return _MISS, False
    if _QUESTIONED_RE.match(t, end):
        return None, False  # "The answer is A?": a guess put as a question
    am = _AMBIG_RE.match(t, end)
    if am:
        tok2 = am.group(1)
        lab2 = lab.get(tok2)
        if lab2 is not None and lab2 != label:
            # Mid-sentence, a capital "A" after "B and" is a label, not the article.
            if not (tok2 == "I" and _is_article(t, am.end(), tok2)):
                return None, False
    return label, article


def _nth_letter(lab: dict, n: int):
    """The n-th of letter labels (position n, 1-based), or None where the labels are not letters."""
    letters = [v for k, v in lab.items() if k.isalpha()]
    return letters[n - 1] if letters and len(letters) == len(lab) and 1 <= n <= len(letters) else None


def _first_line(t: str, pos: int) -> str:
    """First non-empty line from ``pos`` with markdown/quote decoration trimmed."""
    n = len(t)
    while pos < n:
        e = t.find("\n", pos)
        if e < 0:
            e = n
        line = t[pos:min(e, pos + 300)].strip(" \t\r*_#>`'\"“”:：-")
        if line:
            return line
        pos = e + 1
    return ""


# Phrases that state there is no answer ("Answer: N/A", "None of the above").
_NO_ANSWER_RE = re.compile(
    r"""[\s*_#>`'"“”:：=\-–—]{0,10}(?:n/?a\b|none\b|neither\b|no\s+(?:correct\s+|right\s+|single\s+)?(?:answer|option|choice)
        |(?:cannot|can['’]?t)\s+(?:be\s+)?determine|unknown\b|unclear\b|insufficient\b|not\s+enough\b)""",
    re.X | re.I,
)


def _negated_label(t: str, pos: int) -> bool:
    """True if the label parsed at ``pos`` is rejected right after ("A is not correct")."""
    m = _LEAD_RE.match(t, pos)
    if m is None or t[m.end():m.end() + 1] not in (" ", "*", ")", "\t"):
        return False  # a rejection needs a space after the label; most answers end there
    return _NEG_AFTER_RE.match(t[m.end():m.end() + 40].lower()) is not None


def _decide_span(t: str, pos: int, lab: dict, opts, strict: bool):
    """Choice stated at ``pos`` (after a marker, or a box's content)."""
    if _NO_ANSWER_RE.match(t, pos):
        return None  # "Answer: N/A": the response says it has no answer
    line = None
    if opts:
        line = _first_line(t, pos)
        if not line:
            return _MISS
        if len(line) > 1:
            r = _option_exact(line, opts)
            if r is not _MISS:
                return r
    r, article = _label_at(t, pos, lab, strict)
    if r is not _MISS:
        if article:
            # "Answer: A man is running" may be option text, not label A; with no
            # option text to tell, "Answer: A lot is missing" is no label at all.
            r2 = _option_contained(line, opts) if opts else _MISS
            return None if r2 is _MISS else r2
        if r is not None and _negated_label(t, pos):
            return None  # "Answer: A is not correct": rejects A, chooses nothing
        return r
    if opts and not strict:
        return _option_contained(line, opts)
    return _MISS


_NEG_AFTER_RE = re.compile(
    r"\**\)?\**\s+(?:is|was|seems|appears)?\s*(?:not\b|incorrect|wrong|false|ruled\s+out|eliminated|unlikely|bad\b|inaccurate"
    r"|irrelevant|impossible|implausible|excluded)"
    r"|\**\)?\**\s+(?:isn't|can\s+be\s+ruled|can\s+be\s+eliminated)"
)
