"""Label matching: which option label (or option text) a short span of a response
names, with the guards that keep an article "A", a pronoun "I" or a negated
label ("not B") from being read as a choice.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evaluator.answers.common import MISS
from evaluator.answers.options import option_contained, option_exact
from evaluator.answers.rewrite import NUMBER_WORDS


@lru_cache(maxsize=1024)
def label_map(labels: tuple) -> dict:
    """Upper-cased label key -> the caller's label (returned verbatim)."""
    out = {}
    for lab in labels:
        key = str(lab).strip().strip("().").upper()
        if key:
            out[key] = lab
    return out


# A label at a known position (after an answer marker, at the start of the
# response, inside a box).  Leading junk: markdown, quotes, colon leftovers,
# inline-math openers, \text{ wrappers, and words like "option".
LEAD_RE = re.compile(
    r"""[\s*_#>`'"“”‘’:：=\-–—]{0,40}
        (?:\\\(|\\\[|\$\$?)?\s*
        (?:\\(?:text|textbf|mathrm|mathbf)\s*\{\s*)?
        (?:(?i:the\s+)?(?:(?P<w>(?i:option|choice|letter|statement|step|feedback))\b\s*[:：\#]?\s*)?
           (?i:number\s*[:：]?\s*)?
          |选项|選項)?
        (?P<o>[\(\[（【])?\s*
        (?P<l>[A-Za-z]|[0-9]{1,2})(?![A-Za-z0-9])
        (?:\s*(?P<c>[\)\]）】]))?
    """,
    re.X,
)
# A reply that is a label and nothing else: "B", "(B).", "**B**", "Option 3", "✅ 2", "«1»"
SHORT_RE = re.compile(
    r"""[\s*_#`'"“”(\[«‹✅✔☑👉→]{0,10}
        (?:(?i:the\s+)?(?i:answer|option|choice|letter|statement|number|step|feedback)\s*[:：]?\s*|选项|選項)?
        [\(\[]?\s*(?P<l>[A-Za-z]|[0-9]{1,2})\s*[\)\]]?\s*[.:]?[\s*_`'"”)\]»›]{0,10}""",
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


def is_article(t: str, end: int, tok: str) -> bool:
    """True if capital ``tok`` ("A"/"I") ending at ``end`` starts running text."""
    m = _NEXT_WORD_RE.match(t, end)
    if m is None:
        return False
    return m.group(1) not in (_A_LABEL_NEXT if tok == "A" else _I_LABEL_NEXT)


# a letter then its reason or a filler ("answer is d because ...", "it's number 4 tbh"): not running
# text (a number then "because" may be a step of the reasoning: "I'll say 1 because ... so 5")
_FILLERS = "tbh|imo|imho|honestly"
_FILLER = re.compile(rf"[ \t]+(?:{_FILLERS})\b", re.I)
_EXPLAINED = re.compile(rf"[ \t]+(?:because|since|{_FILLERS})\b", re.I)
# "A Qubit fluorometer is used", "A 20-10-10 fertilizer is": the article before a name or an amount
ARTICLE_BEFORE_RE = re.compile(r" (?:[A-Z][\w-]+|\d[\d.,-]*) [a-z]")
# Characters that end a label token cleanly ("B.", "B)", "**B**", "B:").
_DELIMS = frozenset(".,:;!?*)]}\n\r\"'`_$\\<”’，。；：！？、）】」』")
# "A or B", "(A) and (C)", "B/C", "B, D": two different labels given.
_AMBIG_RE = re.compile(
    r"\s*(?:,|/|&|\bor\b|\band\b)\s*(?:(?i:maybe|perhaps|possibly|probably)\s+)?(?:(?i:option|choice)\s+)?"
    r"[\(\[]?\s*([A-Z]|[0-9]{1,2})(?![A-Za-z0-9])"
)


# A label followed by a question mark is asked about, not answered.
QUESTIONED_RE = re.compile(r"[\s*_)\]）]{0,4}[?？]")


def label_at(t: str, pos: int, lab: dict, strict: bool):
    """Parse a label at ``pos``.

    Returns (label | None-for-ambiguous | MISS, article_like).  article_like
    flags an uppercase "A " followed by a lowercase word, which may be the
    English article starting an option text ("A man is running").
    """
    m = LEAD_RE.match(t, pos)
    if not m:
        return MISS, False
    ltok = m.group("l")
    label = lab.get(ltok.upper())
    if label is None and (m.group("w") or "").lower() in ("option", "choice"):
        # "option 8" where the labels are letters A-H; "option B" where they are numbers 1-5
        label = _nth_letter(lab, int(ltok)) if ltok.isdigit() else nth_number(lab, ltok)
    if label is None:
        return MISS, False  # e.g. "F" when labels are A-E: not an answer
    end = m.end()
    nxt = t[end:end + 2]
    c0 = nxt[:1]
    c1 = nxt[1:2]
    if (c0 in "'’" and c1.isalpha()) or (c0 == "_" and c1.isalnum()):
        return MISS, False  # an elided word ("D'après", "L'option", "I'm") or a subscript ("d_i")
    wrapped = m.group("o") is not None or m.group("c") is not None
    delim = ((not c0) or c0 in _DELIMS or (c0 in " \t" and (not c1 or c1 in "-–—(\n*"))
             or (c1 == "→" and t[end + 2:end + 5].lstrip()[:1] in "\"'“‘")  # '1 → "The steps are too large"'
             or (_FILLER if ltok.isdigit() else _EXPLAINED).match(t, end))
    article = False
    if ltok.isdigit():
        # "3.5 seconds" or "1,000" is a number, not option 3 / 1; nor is "-3" (but "Answer:-2" is 2)
        s = m.start("l")
        if ((c0 == "." or c0 == ",") and c1.isdigit()) or (t[s - 1:s] in ("-", "−") and t[s - 2:s - 1] not in (":", "：")):
            return MISS, False
    elif ltok.islower():
        # Lowercase only when it cannot be running text: "answer is b." yes,
        # "answer is a cup" no.
        if not (wrapped or delim):
            return MISS, False
    elif not wrapped and ltok == "I" and c0 and c0 in "'’":
        return MISS, False  # "I'm", "I'd", "I've": the pronoun
    elif not wrapped and ltok == "A" and ARTICLE_BEFORE_RE.match(t, end):
        return MISS, False  # the article before a name or an amount
    elif not wrapped and ltok in "AI" and is_article(t, end, ltok):
        if ltok == "I":
            return MISS, False  # pronoun: "Answer: I think ..."
        article = True
    if strict and not (wrapped or delim):
        return MISS, False
    if QUESTIONED_RE.match(t, end):
        return None, False  # "The answer is A?": a guess put as a question
    # a second label after it offers two ("A, B"), unless a bracket closed the first: "(my pick: A), option B ..."
    am = _AMBIG_RE.match(t, end) if not (m.group("c") and m.group("o") is None) else None
    if am:
        tok2 = am.group(1)
        lab2 = lab.get(tok2)
        if lab2 is not None and lab2 != label:
            # Mid-sentence, a capital "A" after "B and" is a label, not the article.
            if not (tok2 == "I" and is_article(t, am.end(), tok2)):
                return None, False
    return label, article


_SENTENCE_END_RE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？])\s*|\n")
FLUFF = " \t\r\n,:;.!—–-…。！"


def last_sentence(t: str) -> str:
    """The reply's last sentence, without the punctuation and markup around it."""
    parts = [p for p in _SENTENCE_END_RE.split(t.strip()) if p.strip(FLUFF)]
    if not parts:
        return ""
    head = parts[-1].lstrip()
    return ("-" if head[:1] in "-−" and head[1:2].isdigit() else "") + parts[-1].strip(FLUFF + "*_")  # "-3": a number


def bare_label(s: str, lab: dict):
    """The label if ``s`` is nothing but one ("Option 3.", "(B)", "Five." where the labels
    are numbers), else None."""
    m = SHORT_RE.fullmatch(s) if len(s) <= 40 else None
    if m is None and s.lower() in NUMBER_WORDS and "1" in lab and "A" not in lab:
        return lab.get(str(NUMBER_WORDS[s.lower()]))
    return lab.get(m.group("l").upper()) if m else None


def _nth_letter(lab: dict, n: int):
    """The n-th of letter labels (position n, 1-based), or None where the labels are not letters."""
    letters = [v for k, v in lab.items() if k.isalpha()]
    return letters[n - 1] if letters and len(letters) == len(lab) and 1 <= n <= len(letters) else None


def nth_number(lab: dict, letter: str):
    """The label at a letter's position (B: the second) where the labels are numbers 1, 2, ..."""
    n = ord(letter.upper()) - ord("A") + 1
    return lab.get(str(n)) if lab and all(k.isdigit() for k in lab) and len(letter) == 1 else None


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
NO_ANSWER_RE = re.compile(
    r"""[\s*_#>`'"“”:：=\-–—]{0,10}(?:n/?a\b|none\b|neither\b|no\s+(?:correct\s+|right\s+|single\s+)?(?:answer|option|choice)
        |(?:cannot|can['’]?t)\s+(?:be\s+)?determine|unknown\b|unclear\b|insufficient\b|not\s+enough\b)""",
    re.X | re.I,
)


def negated_label(t: str, pos: int) -> bool:
    """True if the label parsed at ``pos`` is rejected right after ("A is not correct")."""
    m = LEAD_RE.match(t, pos)
    if m is None or t[m.end():m.end() + 1] not in (" ", "*", ")", "\t"):
        return False  # a rejection needs a space after the label; most answers end there
    return NEG_AFTER_RE.match(t[m.end():m.end() + 100].lower()) is not None  # a gloss may come first


def decide_span(t: str, pos: int, lab: dict, opts, strict: bool):
    """Choice stated at ``pos`` (after a marker, or a box's content)."""
    if NO_ANSWER_RE.match(t, pos):
        return None  # "Answer: N/A": the response says it has no answer
    if _CHECKBOX_RE.match(t, pos):
        return MISS  # "Selected:\n- [ ] A. ...\n- [x] C. ...": the list's heading; its ticked box says
    line = None
    if opts:
        line = _first_line(t, pos)
        if not line:
            return MISS
        if len(line) > 1:
            r = option_exact(line, opts)
            if r is not MISS:
                return r
    r, article = label_at(t, pos, lab, strict)
    if r is not MISS:
        if article:
            # "Answer: A man is running" may be option text, not label A; with no
            # option text to tell, "Answer: A lot is missing" is no label at all.
            r2 = option_contained(line, opts) if opts else MISS
            return None if r2 is MISS else r2
        if r is not None and negated_label(t, pos):
            return None  # "Answer: A is not correct": rejects A, chooses nothing
        return r
    if opts and not strict:
        return option_contained(line, opts)
    return MISS


_CHECKBOX_RE = re.compile(r"\s*[-*•]?\s*\[[ xX✓✔]\]")
# "B is wrong", "(G) are not allowed", "C and B are wrong": a label (or a list) rejected
NEG_AFTER_RE = re.compile(
    r"(?:\s+\([^()\n]{1,60}\)(?=\s))?(?:"  # "B (Cubism) can be eliminated": its gloss first
    r"(?:\s*(?:,|and|or|&)\s*(?:option\s+)?\(?[a-z0-9]{1,2}\)?(?![\w'’]))*"
    r"\**\)?\**\s+(?:is|was|are|seems|appears|being|would|could|can|should)?\s*(?:(?:definitely|clearly|certainly|obviously|surely)\s+)?(?:not\b|incorrect|wrong|false|ruled\s+out|eliminated|unlikely|bad\b|inaccurate"
    r"|irrelevant|impossible|implausible|excluded|tempting\b[^.;\n]{0,12}\bbut)"
    r"|\**\)?\**\s+(?:isn't|can\s+be\s+ruled|can\s+be\s+eliminated)"
    r"|\**\)?\**\s*[❌✗✘✖](?!\s*\(?[A-Za-z0-9]{1,2}\b)"  # "A ❌ contradicts the video" (not "✅ B ❌ C")
    r"|\**\)?\**\s+is\s+[^.;!?\n]{0,40}?\b(?:and|so|which)\s+(?:can['’]t|cannot|could\s+not|couldn['’]t)\s+be\s+(?:right|correct))"
)
