"""Option texts: matching an answer to the text of an option rather than its label:
whole ("Answer: Inelastic"), contained in a short reply, or opening it; values and
formulas ("0.1 s", "O(n²)") only whole or standing on their own; step numbers that name
their option (ExpVid's completeness options); an option text that is only negated ("not
a price floor") never counts.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evaluator.answers.common import MISS
from evaluator.answers.statements import ROMAN_ANSWER_RE, roman_sets, said_statements

_NORM_RE = re.compile(r"[^\W_]+")


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def norm(s: str) -> str:
    """Lower-case words only: punctuation, markdown, spacing and subscripts ("C₂H₆" is
    "C2H6") don't matter."""
    return " ".join(_NORM_RE.findall(s.lower().translate(_SUBSCRIPTS)))


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


_TEX_FRAC_RE = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


_PAREN_FRACTION_RE = re.compile(r"\((\d+\s*/\s*\d+)\)")


def _frac(m: re.Match) -> str:
    """\\frac{a}{b} as "a/b", a part that is not one term bracketed: "C/(r - g)"."""
    return "/".join(x if _ONE_TERM_RE.fullmatch(x) else f"({x})" for x in (m[1].strip(), m[2].strip()))


_ONE_TERM_RE = re.compile(r"[\w.^\\]+")


def _plain_math(s: str) -> str:
    """LaTeX fractions as "a/b", and a bracketed fraction unbracketed: "(1/2)MR^2" and
    "\\tfrac{1}{2}MR^2" are one formula, "\\frac{C}{r - g}" is "C/(r - g)"."""
    if "frac" in s:
        s = _TEX_FRAC_RE.sub(_frac, s)
    return _PAREN_FRACTION_RE.sub(r"\1", s) if "(" in s else s


# "4.0" is "4": a whole number written with a decimal point (not "4.05", not "10.0.1")
_WHOLE_DECIMAL_RE = re.compile(r"(?<![\d.])(\d+)\.0+(?![\d.])")


def _compact(s: str) -> str:
    """A formula as written, minus spacing, markdown and a closing period: "**O(n²)**." -> "o(n^2)",
    "$\\frac{1}{2}MR^2$" -> "1/2mr^2"."""
    s = _COMPACT_DROP_RE.sub("", _plain_math(s).lower().translate(_COMPACT_MAP)).rstrip(".")
    return _WHOLE_DECIMAL_RE.sub(r"\1", s) if ".0" in s else s


# spaces around an operator; a sign keeps its space before ("is -2")
_OPERATOR_SPACE_RE = re.compile(r" ?([/=*^]) ?| ([+-]) ")


def _spaced(s: str) -> str:
    """A formula with single spaces kept (so its edges can be seen), markdown dropped, and no
    space around an operator ("C / (r − g)" is "c/(r-g)")."""
    s = " ".join(_MARKUP_RE.sub("", _plain_math(s).lower().translate(_COMPACT_MAP)).split()).rstrip(".")
    return _OPERATOR_SPACE_RE.sub(lambda m: m[1] or m[2], s)


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
    words = _WORD3_RE.findall(s)  # two long words are prose with a value ("Incubating overnight at 4 °C")
    return (_FORMULA_CHARS_RE.search(s) is not None and len(words) <= 2 and sum(len(w) >= 8 for w in words) < 2
            and _SEQUENCE_RE.fullmatch(s) is None)


@lru_cache(maxsize=65536)  # above the largest suite's MCQ count
def norm_options(options: tuple, labels: tuple) -> tuple:
    """(matchable option text, label, spaced formula or None) triples; cached because
    the same question is scored for every submitted model. Prose is matched by its
    words (a leading "Because" or "Next,", as CausalStep's options open, dropped: answers
    leave it out); a formula or value (`_is_formula`) by its compact form when whole, and by its
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
        ns = norm(s)
        ns = _lead_dropped(ns) if len(ns) > 12 else ns
        if len(ns) >= 2:  # a 1-char option text would collide with labels
            out.append((ns, lab, None))
    return tuple(out)


# An option that is a step number ("3", as ExpVid's completeness questions give them) or
# opens with one ("Step 3: Add the buffer").
_STEP_OPTION_RE = re.compile(r"\s*(?:(?i:step)\s*)?(\d{1,3})\s*(?:$|[:.)\-–—]\s)")


def option_numbers(options: tuple, labels: tuple, text: str = "") -> dict:
    """Step number -> label, when the labels are letters and every option is or opens
    with its own step number: then "\\boxed{3}" and "Answer: Step 3" name the option
    of step 3. Empty otherwise (a number is then a label or nothing). Where the options are
    bare step numbers and the reply `text` never says "step", or are bare numbers and it says
    "option N", a number that is also another option's place names none: "The answer is 2." for
    "Step 2", "Step 4", "Step 6" (A, or the second?), "Option 2" for "3", "5", "2", "4"."""
    out = _step_numbers(options, labels)
    if not out:
        return out
    text = str(text)
    clash = ((not _SAYS_STEP_RE.search(text) and all(_BARE_STEP_RE.fullmatch(str(o)) for o in options))
             or (SAYS_OPTION_RE.search(text) and all(str(o).strip().isdigit() for o in options)))
    if not clash:
        return out
    return {n: lb for n, lb in out.items() if not (1 <= int(n) <= len(labels) and labels[int(n) - 1] != lb)}


@lru_cache(maxsize=65536)
def _step_numbers(options: tuple, labels: tuple) -> dict:
    if not options or any(str(lab).strip().isdigit() for lab in labels):
        return {}
    out = {}
    for lab, opt in zip(labels, options):
        m = _STEP_OPTION_RE.match(str(opt or ""))
        if m is None or m.group(1) in out:
            return {}
        out[str(int(m.group(1)))] = lab
    return out


_BARE_STEP_RE = re.compile(r"\s*(?i:step)\s*\d{1,2}\s*")
SAYS_OPTION_RE = re.compile(r"(?i:option|choice)\s*#?\s*\d")
_SAYS_STEP_RE = re.compile(r"(?i:step)\s*\d")  # "Step 2", not "step by step"


# -- paraphrase: an option told in other words ----------------------------------------------

_STOP = frozenset("a an the to of and or in on at for with so it its is are was were be been being that this these "
                  "those he she they his her their them him we you your i my me as by from than then there here "
                  "should would could can will do does did has have had just very also because which who what when "
                  "into onto over up down off out more less too".split())
_NEGATION_WORDS = frozenset("not no never nor without".split())
_WORDS_RE = re.compile(r"[a-z]+(?:['’]t)?|\d+")  # numbers too: "ethanol at 70 percent" for "70% ethanol"


def _stem(word: str) -> str:
    """A rough stem, enough to meet "curls"/"curled"/"curling", "rotate"/"rotated" and "mix"/"mixing"."""
    for suffix in ("ing", "ed", "es", "s", "ly", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= (3 if suffix in ("ing", "ed") else 4):
            return word[:-len(suffix)]
    return word


@lru_cache(maxsize=65536)
def _distinctive(opts) -> dict:
    """stem -> label, for the stems that stand in exactly one prose option."""
    owners: dict = {}
    for ns, lab, spaced in opts:
        if spaced is not None:
            continue
        for stem in {_stem(x) for x in ns.split() if x not in _STOP}:
            owners.setdefault(stem, set()).add(lab)
    return {stem: next(iter(labs)) for stem, labs in owners.items() if len(labs) == 1}


def option_paraphrase(line: str, opts, least: int = 2) -> object:
    """The option a short reply retells in its own words: at least two of the reply's
    words stand in that option and in no other, and none in any other option ("He
    thinks his serve was in but the judge called it out." for "Because his serve was
    called out although it looked in"), or at least three, and one in at most one other
    option ("The cook curls her fingertips under while cutting, keeping them safe from
    the blade.", where "cutting" is another option's). `least`=3: at least three, and none
    in another option. A reply with a negation ("It isn't 2: the legs do
    the work") may be ruling an option out: MISS, as when no option stands out."""
    distinctive = _distinctive(opts)
    words = _WORDS_RE.findall(line.lower())
    if not distinctive or any(x in _NEGATION_WORDS or x.endswith(("'t", "’t")) for x in words):
        return MISS
    hits: dict = {}
    for word in words:
        if word in _STOP:
            continue
        owner = distinctive.get(_stem(word))
        if owner is not None:
            hits.setdefault(owner, set()).add(_stem(word))
    ranked = sorted(hits.items(), key=lambda kv: len(kv[1]), reverse=True)
    if not ranked or (len(ranked) > 2 or (len(ranked) == 2 and (len(ranked[0][1]) < 3 or len(ranked[1][1]) > 1))):
        return MISS
    owner, stems = ranked[0]
    if len(stems) < least or (least != 2 and len(ranked) != 1):
        return MISS
    own = {x for ns, lab, spaced in opts if lab == owner for x in _WORDS_RE.findall(spaced or ns)}
    # an option with a number, told with another: "Incubating overnight at 13 °C" is not "... at 4 °C"
    numbered = any(x.isdigit() for x in own)
    return MISS if numbered and any(x.isdigit() and x not in own for x in words) else owner


@lru_cache(maxsize=65536)
def _opts_shape(opts) -> tuple[int, bool]:
    """(longest matchable text, whether any option is a formula) of a question's options."""
    return max((len(ns) for ns, _, _ in opts), default=0), any(spaced is not None for _, _, spaced in opts)


def option_exact(line: str, opts) -> object:
    # Normalising only drops characters, so a line more than twice as long as
    # the longest option (plus slack for markdown) cannot match: skip the work.
    longest, formulas = _opts_shape(opts)
    if len(line) > 2 * longest + 40:
        return MISS
    ln, lc = norm(line), (_compact(line) if formulas else "")
    ln = _lead_dropped(ln)
    if not ln and not lc:
        return MISS
    hits = {lab for ns, lab, spaced in opts if ns == (ln if spaced is None else lc)}
    if len(hits) == 1:
        return hits.pop()
    return None if hits else MISS


def option_contained(line: str, opts) -> object:
    """Label whose option text occurs (whole words) in ``line``.

    Several hits: the longest wins only if every other hit is part of it
    ("dark red" beats "red"); otherwise the line is ambiguous -> MISS.
    """
    ln = " " + norm(line) + " "
    if len(ln) <= 3:
        return MISS
    sets = roman_sets(opts)
    if sets:  # "I, III and IV" holds "III and IV" but is another set: only the same set names an option
        said = ROMAN_ANSWER_RE.match(line)
        return sets.get(said_statements(said.group()), MISS) if said else MISS
    sl = _spaced(line) if _opts_shape(opts)[1] else ""
    hits = [(ns if spaced is None else spaced, lab) for ns, lab, spaced in opts
            if ((" " + ns + " ") in ln and not _negated_text(ln, " " + ns + " ") if spaced is None
                else _formula_inside(spaced, sl) and (not spaced.isdigit() or _numbered(spaced, sl)))]
    if not hits:
        return _option_opening(ln.strip(), opts)
    if len(hits) == 1:
        return hits[0][1]
    hits.sort(key=lambda h: len(h[0]), reverse=True)
    best_ns, best_lab = hits[0]
    padded = " " + best_ns + " "
    for ns, lab in hits[1:]:
        if lab != best_lab and (len(ns) == len(best_ns) or (" " + ns + " ") not in padded):
            return MISS
    return best_lab


def _numbered(number: str, line: str) -> bool:
    """A bare number found inside an answer names an option when no word follows it ("The
    step not performed is 4.") or a word names it ("step 10"); not in "wait 10 minutes"."""
    return re.search(rf"(?<![\d.]){number}(?!\s*[^\W\d_])|(?:step|étape|etape|schritt|paso|passo|option|number|no\.?|#)\s*{number}\b", line) is not None


_NEGATED_TEXT_RE = re.compile(r"(?:\bnot|\bnt|\bno|\bnever)\s+(?:because\s+)?(?:an?\s+|the\s+)?$")


def _negated_text(line: str, text: str) -> bool:
    """True if `text` stands in `line` only after a negation: "it is not a price floor",
    "not because the pipes need to warm up"."""
    p = line.find(text)
    while p >= 0:
        if not _NEGATED_TEXT_RE.search(line[max(0, p - 24):p + 1]):
            return False
        p = line.find(text, p + 1)
    return True


def _lead_dropped(ns: str) -> str:
    """A normalised text without the "Because" or "Next," that CausalStep's options open with
    (answers leave it out)."""
    for lead in ("because ", "next "):
        if ns.startswith(lead):
            return ns[len(lead):]
    return ns


def _option_opening(ln: str, opts) -> object:
    """The one option whose text the answer repeats from its start, leaving off only a
    tail ("A droplet was left hanging on the tip" for "... in the previous segment"):
    at least five words and three fifths of the option; else MISS."""
    ln = _lead_dropped(ln)
    words = ln.count(" ") + 1
    if words < 5:
        return MISS
    hits = {lab for ns, lab, spaced in opts
            if spaced is None and ns.startswith(ln + " ") and words >= 0.6 * (ns.count(" ") + 1)}
    return hits.pop() if len(hits) == 1 else MISS
