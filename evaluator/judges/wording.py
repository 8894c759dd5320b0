"""How a short answer is worded, for the offline matcher (evaluator/judges/normalized.py):
its normal form, and whether it refuses, hedges, asks back or stays vague.

    normal("Mt. Fuji")              # "mount fuji": accents, case, punctuation, articles, abbreviations
    stance("Probably Prague")       # "hedge"; also "refusal", "question", or None
    vague_bound("more than 300 m")  # ("more", text after the bound) for a number's bound
    initials("United Nations")      # "un", for acronyms
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from evaluator.judges.dates import parse_date
from evaluator.judges.quantities import roman_value, fold

_ARTICLES = frozenset({"a", "an", "the"})
_ABBREVIATIONS = {"mt": "mount", "st": "saint", "ste": "sainte", "ft": "fort", "&": "and", "bce": "bc", "ce": "ad",
                  "jr": "junior", "sr": "senior", "dr": "doctor", "vs": "versus"}
_GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "κ": "kappa", "μ": "mu", "ω": "omega",
          "Δ": "delta", "λ": "lambda", "σ": "sigma", "τ": "tau"}


_GREEK_SPELLED = str.maketrans(_GREEK)


def strip_accents(text: str) -> str:
    if text.isascii():
        return text  # nothing to decompose (most answers)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


# The patterns below run on every answer the matcher reads: compiled once.
_ROMAN_RE = re.compile(r"\b[IVXLC]{2,}\b")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
_DECIMAL_POINT_RE = re.compile(r"(?<=\d)\.(?=\d)")
_MINUS_RE = re.compile(r"(?<![\w.])-(?=\d)")
_APOSTROPHE_RE = re.compile(r"['\u2018\u2019`]")
_NOT_WORD_RE = re.compile(r"[^\w]+|_")


def words(text: str) -> list[str]:
    """The answer's words: folded, Greek letters spelled out, accents and case dropped,
    punctuation and hyphens as spaces, common abbreviations written out ("Mt." -> mount)."""
    text = fold(text).translate(_GREEK_SPELLED)
    text = _ROMAN_RE.sub(lambda m: str(roman_value(m[0]) or m[0]), text)  # "Super Bowl XLVIII" is 48
    text = _THOUSANDS_RE.sub("", text)  # 1,000: one number
    text = _DECIMAL_POINT_RE.sub("point", text)  # 1.5 stays apart from 15
    text = _MINUS_RE.sub("minus", text)  # -70 stays apart from 70
    text = strip_accents(text).casefold().replace("&", " and ")
    text = _APOSTROPHE_RE.sub("", text)
    return [_ABBREVIATIONS.get(w, w) for w in _NOT_WORD_RE.sub(" ", text).split()]


@lru_cache(maxsize=65536)
def normal(text: str) -> str:
    """The answer's words without articles (a final "a" kept: "vitamin a")."""
    tokens = words(text)
    last = len(tokens) - 1
    return " ".join(t for i, t in enumerate(tokens) if i == last or t not in _ARTICLES)


def singular(word: str) -> str:
    """A plural's singular, roughly: "frameworks" -> framework, "cristae" -> crista,
    "chiasmata" -> chiasma, "species" stays."""
    if len(word) > 5 and word.endswith("ata"):
        return word[:-2]
    if len(word) > 4 and word.endswith("ae"):
        return word[:-1]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_SPELLINGS = tuple((re.compile(p), r) for p, r in (
    (r"(?<=[a-z])is(e|ed|er|ers|es|ing|ation|ations)\b", r"iz\1"), (r"(?<=[a-z])our\b", "or"),
    (r"(?<=[a-z])tre\b", "ter"), (r"sulph", "sulf"), (r"aluminium", "aluminum"), (r"(?<=[a-z])ae", "e"),
    (r"(?<=[a-z])oe", "e")))


@lru_cache(maxsize=65536)
def loose(text: str) -> str:
    """normal() with every word singular, British spellings American ("plasticiser",
    "colour", "sulphate"), and spaces dropped: "metal-organic frameworks" and "Metal
    organic framework" meet."""
    joined = " ".join(singular(w) for w in normal(text).split())
    for pattern, repl in _SPELLINGS:
        joined = pattern.sub(repl, joined)
    return joined.replace(" ", "")


_STOP = frozenset("of and for the in on at to de du la le von van der".split())


def initials(text: str) -> str:
    """The first letters of the words that carry meaning: "United Nations Educational,
    Scientific and Cultural Organization" -> "unesco"."""
    return "".join(w[0] for w in words(text) if w not in _STOP)


_NOT_LETTERS_RE = re.compile(r"[^a-z]+")


def abbreviates(short: str, phrase: str) -> bool:
    """`short` ("GAPDH", "siRNA", "EtBr") can be read off `phrase` ("glyceraldehyde-3-phosphate
    dehydrogenase"): its letters, in order, begin each of the phrase's words and otherwise
    come from inside the word they follow; one word may be passed over."""
    letters = _NOT_LETTERS_RE.sub("", strip_accents(short).lower())
    parts = [x for x in _NOT_LETTERS_RE.split(strip_accents(phrase).lower()) if x and x not in _STOP]
    if len(letters) < 2 or len(parts) < 2:
        return False
    return _read_off(letters, parts, skips=1)


def _read_off(letters: str, parts: list[str], skips: int) -> bool:
    if not letters:
        return not parts or (len(parts) <= skips)
    if not parts:
        return False
    word, rest = parts[0], parts[1:]
    if letters[0] == word[0]:
        # take the first letter, then any further letters of the acronym found in order in the word
        for used in range(len(letters), 0, -1):
            if in_order(letters[1:used], word[1:]) and _read_off(letters[used:], rest, skips):
                return True
    return skips > 0 and _read_off(letters, rest, skips - 1)


def in_order(needle: str, hay: str) -> bool:
    it = iter(hay)
    return all(c in it for c in needle)


def is_acronym(text: str) -> bool:
    """Written as an acronym: 2-7 letters, mostly capitals, no spaces ("UN", "FDR", "qPCR")."""
    t = text.strip().replace(".", "")  # "L.A." is LA
    return bool(_ACRONYM_RE.fullmatch(t)) and sum(c.isupper() for c in t) >= 2


_ACRONYM_RE = re.compile(r"[A-Za-z][A-Za-z0-9]{1,6}")
_CODED_RE = re.compile(r"\d|[a-z][A-Z]|^[A-Z]{2,}")


def looks_coded(text: str) -> bool:
    """A code, formula or brand rather than plain words: digits or inner capitals
    ("NaOH", "MK-801", "CHIR99021", "qPCR", "Eliquis" is not)."""
    return any(_CODED_RE.search(w) for w in fold(text).split())


# -- stance ------------------------------------------------------------------------------

_REFUSAL = re.compile(
    r"\b(?:(?:i|we) (?:do not|dont|cannot|cant|can not|am unable to|am not able to|could not|couldnt|"
    r"have no|dont have|do not have|wont|would rather not|am not sure|am uncertain|dont recognize)\b|im (?:not sure|"
    r"uncertain|unable|not able|sorry)\b|"
    r"not (?:sure|certain) which|not (?:enough|sufficient) information|insufficient information|no information|no idea|not visible|"
    r"not (?:shown|provided|mentioned|specified|legible|readable|possible to (?:tell|determine|say))|"
    r"cannot be determined|cant be determined|(?:cannot|cant) (?:tell|determine|identify|say|answer|see)|"
    r"unable to|impossible to (?:tell|determine|say)|unknown|not sure|unsure|uncertain|unclear|"
    r"need more (?:frames|information|context)|as an ai|sorry|n a|no answer|unanswerable|not answerable|"
    r"cannot be answered)\b")
_PLACEHOLDER = re.compile(r"^(?:\W*|n ?a|none|null|nan|tbd|unknown|answer|your answer here|\[?answer\]?|"
                          r"pass|skip|\.\.\.|-+|\?+)$")
_HEDGE = re.compile(
    r"\b(?:possibly|probably|perhaps|maybe|might|could be|could have|may be|seems|seem to|appears? to be|"
    r"likely|presumably|i think|i believe|i guess|id guess|my (?:best )?guess|best guess|guessing|"
    r"not (?:fully|completely|entirely|100) (?:sure|certain)|im not certain|not certain|if i had to|"
    r"cant be (?:sure|certain)|cannot be (?:sure|certain)|or maybe|if im not mistaken|if i remember (?:correctly|"
    r"right)|id say|i would say|i suspect|my hunch|i suppose|i reckon|i assume)\b")
_QUESTION = re.compile(r"^(?:which|what|who|where|when|could you|can you|do you|is it|are you|please|need)\b")
_SENTENCE_END_RE = re.compile(r"(?<=[.?!])\s+")
_SHORT_QUESTION_RE = re.compile(r"^\W*\w[^?]{0,40}\?")  # "Melbourne?"


def stance(text: str) -> str | None:
    """"refusal" (no answer: "I can't tell", "Not enough information", a placeholder),
    "question" (asks back), "hedge" ("possibly X", "I think X, not sure", "X?"), or None.
    A refusal that still names something is a hedge ("Not sure, possibly Kilimanjaro")."""
    plain = " ".join(words(text))
    if _PLACEHOLDER.match(plain) or _PLACEHOLDER.match(text.strip()):
        return "refusal"
    if any(s.strip().endswith("?") and _QUESTION.match(" ".join(words(s))) for s in _SENTENCE_END_RE.split(text)):
        return "question"
    hedged = bool(_HEDGE.search(plain)) or bool(_SHORT_QUESTION_RE.search(text.strip()))
    if _REFUSAL.search(plain) or _UNKNOWN_THING.match(plain):
        # a disclaimer beside a named candidate is a guess ("Melbourne? Not sure."), else a
        # refusal, whatever doubt it voices ("I'm not sure; the video doesn't say."); a
        # refusal of the very thing asked, beside only its kind, names no candidate ("a
        # memorial in Washington, but I can't tell which one")
        if _candidate(text) and not (_WHICH_REFUSAL.search(plain) and " or " not in f" {plain} "):
            return "hedge"
        return "hedge" if hedged and _leading_guess(plain) else "refusal"  # "polo, I guess? Not sure."
    return "hedge" if hedged else None


_WHICH_REFUSAL = re.compile(r"\b(?:cant|cannot|can not|couldnt|could not|unable to) (?:tell|say|identify|determine|name) "
                            r"(?:which|who|what|it|them|the|its|their)\b|\b(?:dont|do not|cant|cannot) (?:know|remember|recall) "
                            r"(?:its|their|his|her|the) (?:name|title)\b|\b(?:cant|cannot|can not|couldnt) be more specific\b|"
                            r"\bnot (?:sure|certain) which\b")
# "Unknown violinist", "N/A - cannot determine": nothing named
_UNKNOWN_THING = re.compile(r"^(?:unknown|unidentified|n a|na)\b")
_OPENING = frozenset("i im i'm i've sorry not the this that these it its it's unable cannot can't hmm as based "
                     "there no unfortunately while although however my without from in ai n a unknown".split())


_DIGIT_RE = re.compile(r"\d")
_SENTENCES_RE = re.compile(r"[.?!;\n]+")
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*")


def _leading_guess(plain: str) -> bool:
    """The reply opens with a short answer before its doubts ("polo i guess not sure"): one
    to three words, before the first hedge or refusal word, opening with no usual opening
    word nor an article ("an Italian city, I think, but I can't name it" describes)."""
    head = (_HEDGE.split(plain, 1)[0] + " ").split("  ")[0]
    head = _REFUSAL.split(head, 1)[0].split()
    return 0 < len(head) <= 3 and head[0] not in _OPENING and head[0] not in ("a", "an", "some")


def _candidate(text: str) -> bool:
    """The text names something: a number, or a capitalised word that is not a sentence's
    usual opening ("I", "Sorry", "The") nor any sentence's first word ("Insufficient
    information."), unless it is the sentence's only word ("Melbourne? Not sure.")."""
    if _DIGIT_RE.search(text):
        return True
    for sentence in _SENTENCES_RE.split(fold(text)):
        names = _CAPITALISED_RE.findall(sentence)
        opening = sentence.split()[:1]
        if names and opening and names[0] == opening[0].strip("\"'*(") and len(sentence.split()) > 1:
            names = names[1:]
        if any(word.lower().strip(".,;:!?'\"") not in _OPENING for word in names):
            return True
    return False

# -- vagueness -------------------------------------------------------------------------

_MORE = r"more than|over|above|greater than|at least|after|upwards of|in excess of|exceeding"
_LESS = r"less than|under|below|fewer than|at most|before|up to|no more than"
_MORE_RE = re.compile(_MORE)
_BOUND = re.compile(rf"\b(?P<kind>{_MORE}|{_LESS}|between)\b(?! sea level| zero| christ| par\b)", re.I)
_VAGUE_AMOUNT = re.compile(r"\b(?:hundreds|thousands|millions|billions|dozens|tens of|several|a few|many|multiple|"
                           r"various|numerous|countless|lots of|"
                           r"some|sometime|somewhere|centur(?:y|ies)|decades?|era|age|ages|period|recently|"
                           r"\d0s|early|late|mid|middle ages)\b", re.I)
_APPROX = re.compile(r"\b(?:around|about|approximately|approx|roughly|circa|ca|some|estimated|nearly|almost)\b|"
                     r"[~\u2248]", re.I)


def vague_bound(text: str) -> tuple[str, str] | None:
    """("more"|"less"|"between", the text after the bound) when the answer's first number
    is given as a bound ("over 100 m", "between 20 and 30"; not "1886, after 17 years")."""
    folded = fold(text)
    m = _BOUND.search(folded)
    if not m or _DIGIT_RE.search(folded[:m.start()]):
        return None
    word = m["kind"].lower()
    kind = "between" if word == "between" else "more" if _MORE_RE.fullmatch(word) else "less"
    return kind, folded[m.end():]


def vague(text: str) -> bool:
    """An amount or time given loosely ("hundreds", "in the late 19th century", "1990s")."""
    return bool(_VAGUE_AMOUNT.search(fold(text)))


def approximate(text: str) -> bool:
    return bool(_APPROX.search(fold(text)))


# -- shared by the matcher's answer and blank rules ------------------------------------------

def numeric(gold: str) -> bool:
    """A gold that is an amount, a year or a date: digits and at most a few unit words (or
    a Roman numeral or an ordinal: "XIV", "Ninth")."""
    if _ROMAN_GOLD_RE.fullmatch(gold) or _ORDINAL_GOLD_RE.fullmatch(gold):
        return True
    folded = fold(gold)
    return bool(_DIGIT_RE.search(folded)) and (parse_date(gold) is not None or
                                                len(_WORD2_RE.findall(folded)) <= 3)


_ROMAN_GOLD_RE = re.compile(r"\s*[IVXLC]{2,}\s*")
_ORDINAL_GOLD_RE = re.compile(r"\s*(?:\d+(?:st|nd|rd|th)|[a-z]+th|first|second|third)\s*", re.I)
_WORD2_RE = re.compile(r"[^\W\d_]{2,}")


_NOT_NAMES = frozenset("of the a an and in at per x × about around approximately roughly to is was it its "
                       "hundred thousand million billion trillion dozen one two three four five six seven eight "
                       "nine ten eleven twelve half quarter".split())


_LETTER_RE = re.compile(r"[^\W\d_]")
_ROMAN_NUMERAL_RE = re.compile(r"[IVXLCDM]+")


def named_words(text: str) -> list[str]:
    """What an amount is of, beside its number and unit: "5% non-fat milk" -> non-fat, milk;
    "Sputnik 1" -> Sputnik; "1 × 10^5 cells/cm²" -> cells/cm2; "828 m" -> nothing."""
    from evaluator.judges.quantities import parse_unit  # (quantities imports nothing from here)
    out = []
    for token in fold(text).split():
        token = token.strip(".,;:()[]\"'*")
        if (token and not token[0].isdigit() and token[0] not in "-+~≈<>" and _LETTER_RE.search(token)
                and token.lower() not in _NOT_NAMES and parse_unit(token) is None
                and not _ROMAN_NUMERAL_RE.fullmatch(token)):  # a Roman numeral is the amount itself
            out.append(token)
    return out


def find(gold: list[str], said: list[str]) -> int | None:
    """Where the gold's words stand, in order and together, among the answer's; None if not."""
    for i in range(len(said) - len(gold) + 1):
        if said[i:i + len(gold)] == gold:
            return i
    return None


def acronym_of(gold: str, text: str) -> bool:
    one, other = (gold, text) if is_acronym(gold) else (text, gold)
    return is_acronym(one) and len(other.split()) >= 2 and (
        initials(other) == one.replace(".", "").lower() or abbreviates(one, other))


_LOWER_ROMAN_RE = re.compile(r"[ivxl]+")


def numeral(word: str) -> bool:
    return word.isdigit() or bool(_LOWER_ROMAN_RE.fullmatch(word))


_GLOSS_RE = re.compile(r"\s*(.+?)\s*\(([^()]{1,12})\)\s*\.?\s*")


def without_gloss(text: str) -> str:
    """The answer without a parenthesis that only abbreviates it: "Phosphate buffered saline
    (PBS)" is phosphate buffered saline."""
    m = _GLOSS_RE.fullmatch(text) if "(" in text else None
    return m[1] if m and abbreviates(m[2], m[1]) else text


__all__ = ["abbreviates", "acronym_of", "approximate", "find", "initials", "is_acronym", "numeral", "numeric",
           "without_gloss", "looks_coded", "loose", "normal", "singular", "stance",
           "strip_accents", "vague", "vague_bound", "words"]
