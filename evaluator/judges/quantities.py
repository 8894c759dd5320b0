"""Quantities in short answers, for the offline matcher (evaluator/judges/normalized.py):
numbers as people write them, with units, signs, eras and dates, compared the way the
papers' graders compare them (right to the gold's last significant figure, in any unit).

    q = quantities("about 29,032 ft")        # [Quantity(value=8848.9..., unit dims of length, ...)]
    compare(gold_quantity, predicted)         # "match" | "differs" | "unknown"

Numbers: digits (1,000 / 1 000 / 1000.5), scientific forms (5 × 10⁴, 1e-3, 10^-3), scale
words (thousand, million, lakh, k), number words up to the hundreds ("forty-eight", "one
hundred and one", "a half", "three-quarters"), ordinals ("first", "14th") and fractions
("1/3"). Units: SI prefixes on SI and lab units, reduced to SI base dimensions, so "310
N/mm²" is "310 MPa" and "0.82 mol/L" is "820 mM"; common non-SI units (ft, mile, lb, °F,
psi, mmHg...) convert; an unknown unit makes a comparison "unknown", never a match.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺₀₁₂₃₄₅₆₇₈₉", "0123456789-+0123456789")
_PREFIXES = {"p": 1e-12, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "μ": 1e-6, "m": 1e-3, "c": 1e-2, "d": 1e-1,
             "k": 1e3, "M": 1e6, "G": 1e9}

# unit -> (factor to SI, {base dimension: exponent}); units written in full are lower-cased keys.
_M, _KG, _S, _MOL, _K, _A, _RAD = "m", "kg", "s", "mol", "K", "A", "rad"
_UNITS: dict[str, tuple[float, dict[str, int]]] = {
    "m": (1, {_M: 1}), "g": (1e-3, {_KG: 1}), "s": (1, {_S: 1}), "L": (1e-3, {_M: 3}), "l": (1e-3, {_M: 3}),
    "M": (1e3, {_MOL: 1, _M: -3}), "mol": (1, {_MOL: 1}), "E": (1, {_MOL: 1}), "K": (1, {_K: 1}),
    "A": (1, {_A: 1}), "Pa": (1, {_KG: 1, _M: -1, _S: -2}), "N": (1, {_KG: 1, _M: 1, _S: -2}),
    "J": (1, {_KG: 1, _M: 2, _S: -2}), "W": (1, {_KG: 1, _M: 2, _S: -3}), "Hz": (1, {_S: -1}),
    "V": (1, {_KG: 1, _M: 2, _S: -3, _A: -1}), "Ω": (1, {_KG: 1, _M: 2, _S: -3, _A: -2}),
    "eV": (1.602176634e-19, {_KG: 1, _M: 2, _S: -2}), "Da": (1.66053907e-27, {_KG: 1}),
    "a": (3.15576e7, {_S: 1}), "bar": (1e5, {_KG: 1, _M: -1, _S: -2}), "Å": (1e-10, {_M: 1}),
    "ε": (1, {}), "rad": (1, {_RAD: 1}), "°": (math.pi / 180, {_RAD: 1}), "%": (1e-2, {}), "‰": (1e-3, {}),
    "ppm": (1e-6, {}), "ppb": (1e-9, {}), "ppt": (1e-12, {}), "rpm": (1 / 60, {_S: -1, "rev": 1}),
    "°C": (1, {_K: 1}), "°F": (5 / 9, {_K: 1}), "yr": (3.15576e7, {_S: 1}), "y": (3.15576e7, {_S: 1}),
    "xg": (9.80665, {_M: 1, _S: -2}), "wt%": (1e-2, {"wt": 1}), "vol%": (1e-2, {"vol": 1}),
    "min": (60, {_S: 1}), "h": (3600, {_S: 1}), "hr": (3600, {_S: 1}), "day": (86400, {_S: 1}),
    "week": (604800, {_S: 1}), "month": (2.6298e6, {_S: 1}), "year": (3.15576e7, {_S: 1}),
    "ft": (0.3048, {_M: 1}), "foot": (0.3048, {_M: 1}), "feet": (0.3048, {_M: 1}), "inch": (0.0254, {_M: 1}),
    "in": (0.0254, {_M: 1}), "yard": (0.9144, {_M: 1}), "yd": (0.9144, {_M: 1}), "mile": (1609.344, {_M: 1}),
    "mi": (1609.344, {_M: 1}), "nauticalmile": (1852, {_M: 1}), "nmi": (1852, {_M: 1}),
    "lb": (0.45359237, {_KG: 1}), "pound": (0.45359237, {_KG: 1}), "oz": (0.0283495, {_KG: 1}),
    "tonne": (1000, {_KG: 1}), "t": (1000, {_KG: 1}), "ton": (1000, {_KG: 1}), "gallon": (3.78541e-3, {_M: 3}),
    "cc": (1e-6, {_M: 3}), "psi": (6894.757, {_KG: 1, _M: -1, _S: -2}), "atm": (101325, {_KG: 1, _M: -1, _S: -2}),
    "mmHg": (133.322, {_KG: 1, _M: -1, _S: -2}), "cmH2O": (98.0665, {_KG: 1, _M: -1, _S: -2}),
    "mph": (0.44704, {_M: 1, _S: -1}), "kph": (1 / 3.6, {_M: 1, _S: -1}), "knot": (0.514444, {_M: 1, _S: -1}),
    "U": (1, {"U": 1}), "IU": (1, {"U": 1}), "bp": (1, {"bp": 1}), "x": (1, {}), "fold": (1, {}),
}
# words for units, singular after "s" is dropped ("nanometres" -> nanometre)
_WORDS = {"metre": "m", "meter": "m", "gram": "g", "second": "s", "sec": "s", "litre": "L", "liter": "L",
          "molar": "M", "mole": "mol", "kelvin": "K", "pascal": "Pa", "newton": "N", "joule": "J", "watt": "W",
          "hertz": "Hz", "volt": "V", "ohm": "Ω", "ampere": "A", "amp": "A", "minute": "min", "hour": "h",
          "percent": "%", "per cent": "%", "micron": "µm", "dalton": "Da", "angstrom": "Å", "degree": "°",
          "radian": "rad", "kilo": "kg", "gramme": "g", "millimolar": "mM", "micromolar": "µM",
          "nanomolar": "nM", "centimetre": "cm", "nautical mile": "nauticalmile", "einstein": "E",
          "cycles per second": "Hz", "revolutions per minute": "rpm", "times": "x"}
_WORD_PREFIX = {"pico": "p", "nano": "n", "micro": "µ", "milli": "m", "centi": "c", "deci": "d", "kilo": "k",
                "mega": "M", "giga": "G"}
_TEMPERATURE = {"°c": "C", "°f": "F", "degrees celsius": "C", "degree celsius": "C", "celsius": "C",
                "degrees fahrenheit": "F", "fahrenheit": "F", "°k": "K"}


@dataclass(frozen=True)
class Unit:
    factor: float  # to SI
    dims: tuple  # sorted ((dimension, exponent), ...)
    text: str  # as written, normalised
    temperature: str | None = None  # "C", "F" or "K": affine scales


@dataclass(frozen=True)
class Quantity:
    value: float  # as written, in its own unit
    step: float  # one unit of the last written digit (12.5 -> 0.1)
    unit: Unit | None = None  # None: no unit written
    unknown_unit: str = ""  # words after the number that name no unit we know
    extra: tuple = field(default=())  # a range's upper end, a ratio's second term

    def si(self, value: float | None = None) -> float:
        """The value (or `value`) in SI units; temperatures in kelvin."""
        v = self.value if value is None else value
        if self.unit is None:
            return v
        if self.unit.temperature == "C":
            return v + 273.15
        if self.unit.temperature == "F":
            return (v - 32) * 5 / 9 + 273.15
        return v * self.unit.factor

    @property
    def si_step(self) -> float:
        return abs(self.si(self.value + self.step) - self.si(self.value))


_VULGAR = {"½": .5, "¼": .25, "¾": .75, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": .125}


_UNITS_APART = re.compile(r"\b(mm|cm)\s+(Hg|H2O)\b")


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Unicode compatibility form with superscripts and subscripts as plain digits, one
    minus sign, "×" as x, pressure units written apart joined ("mm Hg" -> mmHg), and
    vulgar fractions as decimals ("8½" -> 8.5)."""
    if any(c in text for c in _VULGAR):
        text = re.sub(r"(\d*)\s?([½¼¾⅓⅔⅛])", lambda m: f"{int(m[1] or 0) + _VULGAR[m[2]]:.4g}", text)
    text = unicodedata.normalize("NFKC", text.translate(_SUPERSCRIPTS))
    text = text.replace("\u2212", "-").replace("\u00d7", "x").replace("·", " ")
    return _UNITS_APART.sub(r"\1\2", text) if "H" in text else text  # (Hg, H2O)


# -- units --------------------------------------------------------------------------

def _named(name: str) -> tuple[float, dict[str, int]] | None:
    found = _UNITS.get(name) or (_UNITS.get(name[:-1]) if len(name) > 3 and name.endswith("s") else None)
    if found is None and len(name) > 1 and name[0] in _PREFIXES and name[1:] in _UNITS:
        factor, dims = _UNITS[name[1:]]
        found = (factor * _PREFIXES[name[0]], dims)
    return found


def _unit_token(token: str) -> tuple[float, dict[str, int]] | None:
    """One unit factor like "mg", "km", "cmH2O", "s^-1", "m2", "cm-1"."""
    found = _named(token)
    power = 1
    if found is None:
        m = re.fullmatch(r"(.+?)\^?(-?\d)", token)
        if not m:
            return None
        found, power = _named(m[1]), int(m[2])
    if found is None:
        return None
    factor, dims = found
    return factor ** power, {d: e * power for d, e in dims.items()}


# every unit word, with or without an SI prefix, in one pattern: longest first
_UNIT_WORD_RE = re.compile(
    r"\b(?P<p>" + "|".join(_WORD_PREFIX) + r")?(?P<w>" + "|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True))
    + r")s?\b", re.I)


def _words_to_symbols(text: str) -> str:
    text = re.sub(r"\bper\b", "/", text)
    if not re.search(r"[a-z]{3}", text, re.I):
        return text  # symbols only ("mg/kg"): nothing to spell out
    return _UNIT_WORD_RE.sub(lambda m: _WORD_PREFIX.get((m["p"] or "").lower(), "") + _WORDS[m["w"].lower()], text)


@lru_cache(maxsize=65536)
def parse_unit(text: str) -> Unit | None:
    """A unit expression ("mg/kg", "µmol m-2 s-1", "N/mm²", "km/h", "× g", "°C"); None if unknown."""
    raw = fold(text).strip().rstrip(".")
    low = raw.lower()
    for written, scale in _TEMPERATURE.items():
        if low == written:
            return Unit(1, ((_K, 1),), low, scale)
    if re.fullmatch(r"x\s*g", low):
        return Unit(9.80665, ((_M, 1), (_S, -2)), "xg")
    raw = _words_to_symbols(raw.replace("% by weight", "wt%").replace("% by volume", "vol%"))
    raw = re.sub(r"\s+(\^?-?\d)\b", r"\1", raw)
    raw = re.sub(r"/\(([^()]*)\)", lambda m: " ".join("/" + x for x in m[1].split()), raw)  # a/(b c) = a /b /c
    factor, dims, sign = 1.0, {}, 1
    for part in re.findall(r"/|[^\s/]+", raw):
        if part == "/":
            sign = -1
            continue
        found = _unit_token(part)
        if found is None:
            return None
        f, d = found
        factor *= f ** sign
        for k, e in d.items():
            dims[k] = dims.get(k, 0) + e * sign
    dims = {k: e for k, e in dims.items() if e}
    return Unit(factor, tuple(sorted(dims.items())), raw)


# -- numbers -------------------------------------------------------------------------

_ONES = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                    "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
         if w != "_"}
_ORDINALS = {w: i + 1 for i, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth "
                                            "eleventh twelfth".split())}
_SCALES = {"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "lakh": 1e5,
           "crore": 1e7, "k": 1e3, "bn": 1e9}
_FRACTION_WORDS = {"half": 0.5, "quarter": 0.25, "quarters": 0.25, "third": 1 / 3, "thirds": 1 / 3,
                   **{f"{w}{s}": 1 / n for n, w in enumerate("_ _ _ _ fourth fifth sixth seventh eighth ninth tenth".split())
                      if w != "_" for s in ("", "s")}}
_NUM = re.compile(r"(?<![\w.])(?P<sign>[-+])?(?P<num>\d{1,3}(?:[, ]\d{3})+(?![\d])|\d+)(?:\.(?P<frac>\d+))?"
                  r"(?:\s*(?:x|\*)\s*10\s*\^?\s*(?P<exp>[-+]?\d+)|e(?P<e>[-+]?\d+)|(?<=10)\^(?P<pow>[-+]?\d+))?"
                  r"(?:\s*/\s*(?P<den>\d+)(?![\d.]))?(?:\s*(?P<scale>hundred|thousand|million|billion|trillion|"
                  r"lakh|crore|k|bn)\b)?(?:st|nd|rd|th)?")


_NUMBER_WORD = "(?:" + "|".join(sorted([*_ONES, *_TENS, "hundred"], key=len, reverse=True)) + ")"
_WORD_RUN = re.compile(rf"\b{_NUMBER_WORD}(?:(?:[\s-]+and[\s-]+|[\s-]+){_NUMBER_WORD})*\b", re.I)
_ORDINAL_WORD = re.compile(r"\b(" + "|".join(_ORDINALS) + r")\b", re.I)


# (pattern, replacement) pairs applied in order; compiled once, as these run on every answer
_PLAIN_FORMS = tuple((re.compile(p, re.I), r) for p, r in (
    (r"%\s*(?:by weight|w/w)", "wt%"), (r"%\s*(?:by volume|v/v)", "vol%"),
    (r"\b(" + "|".join(_ONES) + r")fold\b", r"\1 fold"), (r"(\d)\s*-\s*fold\b", r"\1 fold")))


def with_digits(text: str, ordinals: bool = False) -> str:
    """The text with its number words written in digits, a few amount forms made plain
    ("3-fold" and "threefold" -> "3 fold", "% by weight" -> wt%)."""
    if not text.isascii() or "%" in text or "fold" in text.lower():  # each form holds "%" or "fold"
        for pattern, repl in _PLAIN_FORMS:
            text = pattern.sub(repl, text)
    return _number_words(text, ordinals)


_FRACTIONS = "|".join(_FRACTION_WORDS)
_SPELLED = tuple((re.compile(p, re.I), r) for p, r in (
    (r"\b(?:an?|one)\s+(\w+)\s+and\s+a\s+half\b", r"1.5 \1"),
    (r"\b(two|three|four|five|six|seven|eight|nine|ten|\d+)\s+and\s+a\s+half\b",
     lambda m: f"{int(_ONES.get(m[1].lower(), 0) or m[1]) + 0.5:g}"),
    (r"\bhalf\s+an?\s+(\w+)\b", r"0.5 \1"), (r"\b(?:one|a)\s+half\b", "0.5"),
    (r"\b(?:a|one)\s+quarter\s+of\s+an?\s+", "0.25 "), (r"\bthree[\s-]+quarters\s+of\s+an?\s+", "0.75 "),
    (rf"\b(one|two|three|four|five|six|seven|eight|nine)[\s-]+({_FRACTIONS})\b",
     lambda m: f"{_ONES[m[1].lower()] * _FRACTION_WORDS[m[2].lower()]:.6g}")))
# Every match of _SPELLED and _WORD_RUN holds one of these (as re.I reads them): text without
# any, as most answers are, has no number words to rewrite. (ASCII text is looked at with `in`, twice as fast.)
_NUMBER_HINT_WORDS = (*_ONES, *_TENS, "hundred", "half", "quarter")
_NUMBER_HINT = re.compile("|".join(sorted(_NUMBER_HINT_WORDS, key=len, reverse=True)), re.I)


def _number_words(text: str, ordinals: bool = False) -> str:
    """Number words as digits, the rest as written: "forty-eight" -> 48, "one hundred and
    one" -> 101, "an hour and a half" -> "1.5 hour", "three-quarters" -> 0.75; with
    `ordinals`, "first" -> 1st."""
    if any(map(text.lower().__contains__, _NUMBER_HINT_WORDS)) if text.isascii() else _NUMBER_HINT.search(text):
        for pattern, repl in _SPELLED:
            text = pattern.sub(repl, text)
        text = _WORD_RUN.sub(lambda m: f"{_run_value(m[0])}", text)
    if ordinals:
        text = _ORDINAL_WORD.sub(lambda m: f"{_ORDINALS[m[1].lower()]}th", text)
    return text


def _run_value(run: str) -> int:
    """The value of a run of number words ("forty-eight", "one hundred and one")."""
    total = 0
    for word in re.findall(r"[a-z]+", run.lower()):
        if word == "hundred":
            total = max(total, 1) * 100
        elif word != "and":
            total += _ONES.get(word, _TENS.get(word, 0))
    return total


def roman_value(token: str) -> int | None:
    if not re.fullmatch(r"[IVXLCDM]+", token):
        return None
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for a, b in zip(token, token[1:] + " "):
        total += -values[a] if b != " " and values[a] < values[b] else values[a]
    return total if 0 < total < 4000 else None


def quantities(text: str, roman: bool = False) -> list[Quantity]:
    """Every number in the text with the unit written after it; the first number of a range
    ("3-5 kΩ") takes the unit of the second. `roman`: read Roman numerals and ordinal words
    too (the gold is one: "XIV", "1st")."""
    folded = fold(text)
    if roman:
        folded = re.sub(r"\b[IVXLCDM]+\b", lambda m: str(roman_value(m[0]) or m[0]), folded)
    folded = with_digits(folded, ordinals=roman)
    # "8,5 km": a decimal comma (not "2,4-D" or "1,2-dichloroethane", names with numbers in)
    folded = re.sub(r"(?<![\d,.])(\d+),(\d{1,2})(?=\s|$)", r"\1.\2", folded)
    folded = re.sub(r"(?<![\w.])(?<!\d\s)x\s?(\d+(?:\.\d+)?)\b", r"\1x", folded)  # "x10" is 10x, not "3 x 10"
    folded = re.sub(r"\bminus\s+(?=\d)", "-", folded, flags=re.I)
    folded = re.sub(r"(\d)\s*[x*]\s*10\s*\^?\s*([-+]?\d+)", r"\1e\2", folded)  # 5 x 10^4 -> 5e4
    folded = re.sub(r"(?<=\d)\s*(?:to|–|—|(?<=\d)-(?=\d))\s*(?=\d)", " – ", folded)
    out: list[Quantity] = []
    ranged, pos = False, 0
    while (m := _NUM.search(folded, pos)) is not None:
        value, step = _value(m)
        unit, unknown, used = _unit_after(folded[m.end():m.end() + 40])
        if ranged and out and out[-1].unit is None and not out[-1].unknown_unit:
            out[-1] = Quantity(out[-1].value, out[-1].step, unit, unknown)  # the range's first end
        here = Quantity(value, step, unit, unknown)
        if out and _compound(out[-1], here, folded[pos:m.start()]):
            here = Quantity(out.pop().si() / unit.factor + value, step, unit)  # "8 minutes 20 seconds"
        out.append(here)
        pos = m.end() + used  # the unit's own digits ("m-2 s-1") are not numbers
        ranged = folded[pos:pos + 3].startswith(" – ")
    return out


def _compound(first: Quantity, second: Quantity, between: str) -> bool:
    """One amount written in two units, the larger first: "8 min 20 s", "4 ft 8.5 in"."""
    a, b = first.unit, second.unit
    return (a is not None and b is not None and not a.temperature and not b.temperature and a.dims == b.dims
            and a.dims != () and a.factor > b.factor and re.fullmatch(r"\s*(?:,|and)?\s*", between) is not None)


def _value(m: re.Match) -> tuple[float, float]:
    frac = m["frac"] or ""
    value = float(m["num"].replace(",", "").replace(" ", "") + ("." + frac if frac else ""))
    step = 10.0 ** -len(frac)
    if m["den"] and float(m["den"]):  # "3/0" is no fraction: read as its numerator
        value, step = value / float(m["den"]), step / float(m["den"]) / 10
    if m["pow"]:  # "10^-3": ten to that power, exactly (a huge power is inf, not an OverflowError)
        value, step = float(f"1e{int(m['pow'])}"), float(f"1e{int(m['pow']) - 1}")
    power = m["exp"] or m["e"]
    if power:
        value, step = value * float(f"1e{int(power)}"), step * float(f"1e{int(power)}")
    if m["scale"]:
        value, step = value * _SCALES[m["scale"]], step * _SCALES[m["scale"]]
    return (-value if m["sign"] == "-" else value), step


_UNIT_PIECE = r"[a-zA-Zµμ°ÅΩε%‰][\w%°]*(?:\^?-?\d)?"
_UNIT_TEXT = re.compile(rf"\s*((?:x\s*g\b)|(?:°\s*[cfk]\b(?!\s*/))|(?:degrees?\s+(?:celsius|fahrenheit)\b)|"
                        rf"(?:[%‰]|°(?!\s*[cfk]\b))|(?:{_UNIT_PIECE}(?:\s*(?:/|per\s+|\s)\s*{_UNIT_PIECE}){{0,3}}))", re.I)


def _unit_after(after: str) -> tuple[Unit | None, str, int]:
    """The unit written right after a number, the longest reading first ("mg/kg" before
    "mg"): (unit, or the unknown word there, characters it takes)."""
    m = _UNIT_TEXT.match(after)
    if not m:
        return None, "", 0
    pieces = re.findall(r"\s*(?:/|per\s+)?\s*\S+", m[1]) if not re.match(r"x\s*g|°|degrees?", m[1], re.I) \
        else [m[1]]
    for n in range(len(pieces), 0, -1):
        text = "".join(pieces[:n])
        unit = parse_unit(text)
        if unit is not None:
            return unit, "", m.start(1) + len(text)
    first = pieces[0].strip().lower().strip(".,;")
    return None, (first if first.isalpha() and first not in _NOT_UNITS else ""), 0


_NOT_UNITS = frozenset("and or of the a an to in on at for from by with was is are were years year old times "
                       "people".split())


# -- comparing -------------------------------------------------------------------------

def compare(gold: Quantity, pred: Quantity) -> str:
    """"match" (the same amount to the gold's last significant figure, in any unit),
    "differs" (a different amount, or a different unit of the same kind), or "unknown"
    (units of different kinds, or one we cannot read)."""
    if (gold.unknown_unit or pred.unknown_unit) and gold.unknown_unit.rstrip("s") != pred.unknown_unit.rstrip("s"):
        # a word we cannot read as a unit on one side: the amounts may not be of one kind
        if pred.unknown_unit and (gold.unit is not None or gold.unknown_unit):
            return "unknown"
        if gold.unknown_unit and pred.unit is not None:
            return "unknown"
    if gold.unit is not None and pred.unit is not None:
        if gold.unit.text == "xg" and pred.unit.text == "g":  # "14000 g" for 14,000 × g: the same force
            return _near(gold.value, pred.value, gold.step)
        if gold.unit.temperature and pred.unit.text in ("°", "deg"):  # "42 degrees" for 42 °C
            return _near(gold.value, pred.value, gold.step)
        if gold.unit.dims != pred.unit.dims:  # two units we know, of different kinds
            alias = _concentration_alias(gold.unit, pred.unit)
            return "differs" if alias is None else _near(gold.si() * alias, pred.si(), gold.si_step * alias)
        step = gold.si_step
        if gold.unit.text != pred.unit.text and pred.si_step <= 4 * gold.si_step:
            step = max(step, pred.si_step)  # a conversion rounds to its own unit: "1,815 ft" for 553.3 m
        return _near(gold.si(), pred.si(), step)
    if gold.unit is not None:  # "324" for "324 m": the unit is the question's
        near = _near(gold.value, pred.value, gold.step)
        return near if near == "match" or not gold.unit.dims == () else _near(gold.si(), pred.value, gold.si_step)
    return _near(gold.value, pred.value, gold.step)


_PARTS = ("ppm", "ppb", "ppt")


def _concentration_alias(gold: Unit, pred: Unit) -> float | None:
    """ppm/ppb against mg/L, µg/L (dilute water: 1 L weighs 1 kg): the factor gold->pred."""
    mass_volume = ((_KG, 1), (_M, -3))
    if gold.text in _PARTS and pred.dims == mass_volume:
        return 1000.0
    if pred.text in _PARTS and gold.dims == mass_volume:
        return 1 / 1000.0
    return None


def _near(gold: float, pred: float, step: float) -> str:
    """Within half a unit of the gold's last written digit (and a relative hair for float error)."""
    return "match" if abs(gold - pred) <= step / 2 + 1e-9 * abs(gold) else "differs"


__all__ = ["Quantity", "Unit", "compare", "fold", "parse_unit", "quantities", "with_digits"]
