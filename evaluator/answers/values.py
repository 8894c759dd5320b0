"""An answer given as a value where every option is one: "500 microliters" or "0.5 mL"
for the option "500 µL", "K = 1.8e-5" for "1.8 × 10^-5", "negative 860 dollars" for
"-$860", "6/36" for "1/6", "4 balls" for "Four".

Read only from a short reply (or a long one's closing sentence), and only when every value
it gives is an option's and together they name exactly one: a reply whose values fit two
options, or that gives a value no option has (worked steps), chooses none.
A value with a unit matches an option in the same dimension after conversion (mL and µL,
ohms and Ω); a unit this module does not know must be the same word ("pellets"); a bare
number is compared with the option's number as written.

Where some options are amounts, `concluded_value` reads the amount a longer reply closes on
("... = 0.4 kW" for "400 W", "So the result is 5400 s." for "90 min"), read and converted as
the offline judge reads amounts (evaluator/judges/quantities.py).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from evaluator.judges.dates import parse_date
from evaluator.judges.quantities import compare, fold, quantities, with_digits

# spelling -> (dimension, factor to the dimension's base unit); lower-case
_UNITS: dict[str, tuple[str, float]] = {}
for _dim, _table in {
    "volume": {("l", "liter", "liters", "litre", "litres"): 1.0,
               ("ml", "milliliter", "milliliters", "millilitre", "millilitres"): 1e-3,
               ("µl", "μl", "ul", "microliter", "microliters", "microlitre", "microlitres"): 1e-6,
               ("nl", "nanoliter", "nanoliters", "nanolitre", "nanolitres"): 1e-9},
    "mass": {("kg", "kilogram", "kilograms"): 1e3, ("g", "gram", "grams"): 1.0,
             ("mg", "milligram", "milligrams"): 1e-3, ("µg", "μg", "ug", "microgram", "micrograms"): 1e-6},
    "length": {("km", "kilometer", "kilometers", "kilometre", "kilometres"): 1e3,
               ("m", "meter", "meters", "metre", "metres"): 1.0, ("cm", "centimeter", "centimeters",
               "centimetre", "centimetres"): 1e-2, ("mm", "millimeter", "millimeters", "millimetre", "millimetres"): 1e-3,
               ("µm", "μm", "um", "micrometer", "micrometers", "micron", "microns"): 1e-6,
               ("nm", "nanometer", "nanometers", "nanometre", "nanometres"): 1e-9},
    "time": {("d", "day", "days"): 86400.0, ("h", "hr", "hrs", "hour", "hours"): 3600.0, ("min", "mins", "minute", "minutes"): 60.0,
             ("s", "sec", "secs", "second", "seconds"): 1.0, ("ms", "millisecond", "milliseconds"): 1e-3},
    "celsius": {("°c", "ºc", "℃", "degrees celsius", "degree celsius", "deg c", "degrees c", "celsius"): 1.0},
    "resistance": {("ω", "Ω".lower(), "ohm", "ohms"): 1.0, ("kω", "kohm", "kohms", "kilohm", "kilohms"): 1e3},
    "money": {("$", "usd", "dollar", "dollars"): 1.0},
    "percent": {("%", "percent", "per cent"): 1.0},
    "torque": {("kn·m", "kn m", "knm", "kn⋅m", "kn-m", "kilonewton-meters", "kilonewton meters"): 1e3,
               ("n·m", "n m", "n⋅m", "newton-meters", "newton meters"): 1.0},
    "force": {("kn", "kilonewton", "kilonewtons"): 1e3, ("n", "newton", "newtons"): 1.0},
    "voltage": {("kv", "kilovolt", "kilovolts"): 1e3, ("v", "volt", "volts"): 1.0, ("mv", "millivolt", "millivolts"): 1e-3},
    "pressure": {("gpa",): 1e9, ("mpa",): 1e6, ("kpa",): 1e3, ("pa", "pascal", "pascals"): 1.0},
    "power": {("mw", "megawatt", "megawatts"): 1e6, ("kw", "kilowatt", "kilowatts"): 1e3, ("w", "watt", "watts"): 1.0},
    "frequency": {("ghz",): 1e9, ("mhz",): 1e6, ("khz", "kilohertz"): 1e3, ("hz", "hertz"): 1.0},
    "energy": {("kj", "kilojoule", "kilojoules"): 1e3, ("j", "joule", "joules"): 1.0},
    "rcf": {("× g", "x g", "xg", "×g", "rcf"): 1.0},
    "speed": {("m/s",): 1.0, ("km/s",): 1e3, ("cm/s",): 1e-2, ("km/h", "kph"): 1 / 3.6, ("mph",): 0.44704},
    "rotation": {("rpm", "revolutions per minute", "revolution per minute", "rev/min"): 1.0},
    "fahrenheit": {("°f", "ºf", "℉", "degrees fahrenheit", "degree fahrenheit", "fahrenheit"): 1.0},
}.items():
    for _names, _factor in _table.items():
        for _name in _names:
            _UNITS[_name] = (_dim, _factor)
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_ENGLISH_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {w: 10 * i for i, w in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), start=3)}
# a number in words becomes digits before values are read: "nine joules", "minus eighty degrees",
# "seventy-two" ("one" alone is left alone: "one of them" names no value)
_NUMBER_WORD_RE = re.compile(r"\b(?:(?P<century>seventeen|eighteen|nineteen|twenty)[-\s](?P<year>(?:twenty|thirty|forty|fifty|"
                             r"sixty|seventy|eighty|ninety)(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?|ten|"
                             r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)(?![-\w])"
                             r"|(?P<tens>twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[-\s]"
                             r"(?P<ones>one|two|three|four|five|six|seven|eight|nine)(?!-)|(?P<word>"
                             + "|".join(sorted(set(_ENGLISH_NUMBERS) - {"one"}, key=len, reverse=True))
                             + r")|half\s+an?)\b", re.I)
_CLOCK_RE = re.compile(r"\b(\d{1,2}):([0-5]\d)\b(?!\s*(?:am|pm|h\b))")  # "05:00" on a timer: 300 s

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_VALUE_RE = re.compile(
    rf"(?P<sign>(?<![\w.])[-−](?=[\d$.])|\b(?:negative|minus)\s+)?(?P<cur>\$\s?)?(?P<num>{_NUMBER})(?P<k>k(?=\s?[×x]\s?g))?"
    r"(?:\s?/\s?(?P<den>\d+(?:\.\d+)?)(?!\.?\d))?"
    r"(?:\s?(?:[eE](?P<e>[-−+]?\d{1,3})|\s?[×x*·]\s?10\s?\^?\s?\(?(?P<e2>[-−+]?\d{1,3})\)?))?"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![^\W\d_])|\s(?P<word>[^\W\d_]{{3,20}}))?",
    re.I,
)
_NOT_UNITS = frozenset("and or nor but the for from with per into than then was were are not".split())
_LATEX_RE = re.compile(r"\\(?:boxed|fbox|text|mathrm|textrm|dfrac|tfrac|frac)\b|[{}]")


@lru_cache(maxsize=4096)
def _quantity(text: str, whole: bool):
    """(value, dimension or unit word or None, factor) of the value `text` is (whole=True)
    or of each value it gives (whole=False: a tuple of them)."""
    found = []
    for m in _VALUE_RE.finditer(text):
        if m.group("den") and (m.group("e") or m.group("e2")):
            continue
        value = float(m.group("num").replace(",", ""))
        if m.group("den"):
            den = float(m.group("den"))
            if den == 0:
                continue
            value /= den
        exp = m.group("e") or m.group("e2")
        if exp:
            value *= 10.0 ** int(exp.replace("−", "-"))
        if m.group("sign"):
            value = -value
        if m.group("k"):
            value *= 1000  # "12k × g"
        unit = m.group("unit")
        if m.group("cur"):
            dim, factor = "money", 1.0
        elif unit:
            dim, factor = _UNITS[unit.lower()]
            if dim == "fahrenheit":  # "98.6 °F" is 37 °C
                value, dim = (value - 32) * 5 / 9, "celsius"
        elif m.group("word"):
            word = m.group("word").lower()
            dim = None if word in _NOT_UNITS else "word:" + word.rstrip("s")
            factor = 1.0
        else:
            dim, factor = None, 1.0
        found.append((value, dim, factor, m.span()))
    if whole:
        if len(found) != 1 or found[0][3] != (0, len(text)):
            return None
        return found[0][:3]
    return tuple(q[:3] for q in found)


def _clean(text: str) -> str:
    """LaTeX and unicode spellings made plain, number words in digits: "\\boxed{\\$3{,}105}" is
    "$3,105"."""
    return _NUMBER_WORD_RE.sub(_number_in_digits, _plain(text))


def _number_in_digits(m: re.Match) -> str:
    if m["century"]:  # "nineteen eighty-nine": 1989
        return str(_ENGLISH_NUMBERS[m["century"].lower()] * 100 + int(_NUMBER_WORD_RE.sub(_number_in_digits, m["year"])))
    if m["tens"]:
        return str(_ENGLISH_NUMBERS[m["tens"].lower()] + _ENGLISH_NUMBERS[m["ones"].lower()])
    return str(_ENGLISH_NUMBERS[m["word"].lower()]) if m["word"] else "0.5"


@lru_cache(maxsize=65536)  # one entry per question: the same options are read for every model
def value_options(options: tuple, labels: tuple) -> tuple | None:
    """((value, dimension, factor), label) per option when every option is a value
    (distinct ones), else None."""
    out = []
    for opt, lab in zip(options, labels):
        s = _clean(str(opt)).rstrip(".")
        if s.lower() in _ENGLISH_NUMBERS:
            q = (float(_ENGLISH_NUMBERS[s.lower()]), None, 1.0)
        else:
            q = _quantity(s, True)
        if q is None:
            return None
        out.append((q, lab))
    values = [q for q, _ in out]
    return tuple(out) if len(set(values)) == len(values) else None


@lru_cache(maxsize=65536)
def has_amounts(amounts: tuple) -> bool:
    """Whether some option (of each (option, label)) holds a number: an amount a reply may conclude."""
    return any(any(ch.isdigit() for ch in str(opt)) for opt, _ in amounts)


@lru_cache(maxsize=65536)  # one entry per question
def plain_numbers(options: tuple) -> bool:
    """Whether the options are plain numbers ("9", "-11", "2.5"), other than 1, 2, 3, ... in
    order (steps' numbers)."""
    texts = [str(o).strip() for o in options]
    return all(_PLAIN_NUMBER_RE.fullmatch(x) for x in texts) and texts != [str(i) for i in range(1, len(texts) + 1)]


_PLAIN_NUMBER_RE = re.compile(r"[-−]?\d+(?:\.\d+)?")


def value_readings(options: tuple | None, labels: tuple, steps: dict | None) -> tuple:
    """What a reply's values are read against, where the options are not step numbers: every
    option a value ("0.5 mL" for "500 µL": `value_options`), and each (option, label) for the
    amount a reply closes on (`concluded_value`)."""
    if not options or (steps and not plain_numbers(options)):
        return None, ()  # "Step 3", or "1" to "4": steps' numbers; "9", "15", "72": numbers ("seventy-two")
    return _readings(options, labels)


@lru_cache(maxsize=65536)  # one entry per question, as value_options
def _readings(options: tuple, labels: tuple) -> tuple:
    return value_options(options, labels), tuple(zip(options, labels))


def _same(a: tuple, b: tuple) -> bool:
    """Whether the reply's value `a` is the option's value `b`."""
    (va, da, fa), (vb, db, fb) = a, b
    if da is None or db is None:  # "22.5" for "22.5 kN·m", "4 balls" for "Four", "0.5" for "50%"
        return (math.isclose(va, vb, rel_tol=1e-9, abs_tol=1e-12)
                or (da is None and db == "percent" and math.isclose(va * 100, vb, rel_tol=1e-9))
                or (db is None and da == "percent" and math.isclose(va / 100, vb, rel_tol=1e-9)))  # "50%" for "1/2"
    if da != db:  # units of other dimensions, or two different unknown words
        return False
    return math.isclose(va * fa, vb * fb, rel_tol=1e-6, abs_tol=1e-15)


def value_choice(text: str, vopts: tuple):
    """The one option the reply's values name, or None. A number that is also an option's
    place names none where options carry units ("3" with "3 mL" as A), where the labels are
    numbers too, or where the reply speaks of places ("option 4", "2nd"); among plain numbers
    labelled by letters ("five" for "10", "5", "7") it is the value."""
    scope = text if len(text) <= 200 else re.split(r"(?<=[.!?])\s+|\n", text.rstrip())[-1]
    if len(scope) > 200:
        return None
    if "%" in scope:
        scope = _CONFIDENCE_RE.sub("", scope)  # "Answer: E\nConfidence: 75%": no value of the answer
    chosen = set()
    for q in _quantity(_clean(scope), False):
        named = {lab for v, lab in vopts if _same(q, v)}
        if not named:
            return None  # a value no option gives: worked steps, or another answer
        if (q[1] is None and q[0] in range(1, len(vopts) + 1) and vopts[int(q[0]) - 1][1] not in named
                and (any(v[1] is not None for v, _ in vopts) or _PLACE_RE.search(scope) or vopts[0][1].isdigit())):
            return None  # "\boxed{3}" where "3 mL" is option A: the value, or the third option?
        chosen |= named
    return chosen.pop() if len(chosen) == 1 else None


_CONFIDENCE_RE = re.compile(r"(?i)\(?\b(?:confidence|certainty|probability)\s*(?:level\s*)?[:=]?\s*(?:of\s+)?\d+(?:\.\d+)?\s*%\)?"
                            r"|\d+(?:\.\d+)?\s*%\s*(?:confident|sure|certain|confidence)")
_PLACE_RE = re.compile(r"(?i)\b(?:option|choice|number|no\.|pick)|#\s*\d|\d(?:st|nd|rd|th)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_DOUBT = re.compile(r"\b(?:not|no|never|rather|instead|wrong|incorrect|except|or|maybe|perhaps|possibly|between)\b|n't",
                    re.I)
_CONCLUSION = re.compile(r"=|≈|→|:|\b(?:is|are|equals?|gives?|total|results?|comes? to|makes?|contains?|holds?|needs?|"
                         r"requires?|yields?|leaves?)\b", re.I)


def _last_sentence(text: str) -> str:
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s.strip()]
    return sentences[-1] if sentences else ""


def value_after_cue(sentence: str, vopts) -> str | None:
    """The option whose value follows the sentence's last "=" or "is" ("Therefore the final value
    is 3."), read as a value even where it is also another option's place; None otherwise."""
    cue = list(_CONCLUSION.finditer(sentence)) if vopts else []
    q = _quantity(_clean(sentence[cue[-1].end():].strip(" .!*")), True) if cue else None  # that value alone
    named = {lab for v, lab in vopts if _same(q, v)} if q is not None else set()
    return named.pop() if len(named) == 1 else None


def concluded_value(text: str, options: tuple):
    """The option a reply's closing amount is, where its working gives other amounts, in any
    unit: "P = 0.2 × 1000 W/m² × 2 m² = 0.4 kW" for "400 W", "So the result is 5400 s." for
    "90 min", "... gives a total of 5000 mΩ" for "5 Ω". Read from the last sentence: the amount
    right after its last "=", "is", "total"... (a number alone too, there, for a percentage:
    "η = 0.4" for "40%"); else, where no label is named there, its amounts with a unit, when
    every one is the same option's ("The centrifuge is set to 12 × 10³ g."). Amounts are read and
    converted as the offline judge reads them (evaluator/judges/quantities.py). A last sentence
    that doubts or negates ("not 20 mL", "10 or 20 µL") names none."""
    last = _plain(_last_sentence(text))
    if len(last) > 300 or _DOUBT.search(last):
        return None
    cue = list(_CONCLUSION.finditer(last))
    rest = with_digits(last[cue[-1].end():]) if cue else ""
    after = _AMOUNT_NEXT.match(rest)
    if after:  # "... = 0.4 kW", "... is roughly 35.6 km/h at the bottom", "... is two fifths"
        found = quantities(rest[after.end():])
        named = _option_of(found[0], options) if found else None
        return None if named is not None and _also_a_place(found[0], named, options) else named
    if _LABEL_NAMED.search(last):
        return None  # "B: 20 s is too long.": a verdict on an option, not an amount given
    named = [_option_of(q, options) for q in quantities(last) if q.unit is not None]
    return named[0] if named and None not in named and len(set(named)) == 1 else None


# what may stand between the cue and the amount: "is roughly 35.6 km/h", "a total of 5000 mΩ"
_AMOUNT_NEXT = re.compile(r"\s*(?:(?:about|around|roughly|approximately|nearly|only|just|exactly|a|total|of)\s+)*"
                          r"(?=[-−+]?[$]?[\d.])", re.I)
_LABEL_NAMED = re.compile(r"(?<![\w'’°])(?<!\d\s)(?:[A-J]|\(\d{1,2}\))(?:[.:)]|\s+(?:is|was)\b)")


def _also_a_place(amount, named, options: tuple) -> bool:
    """A whole number alone that is also another option's place: "is \\boxed{3}" where "3%" is
    option B (the value, or the third option?)."""
    n = amount.value
    return amount.unit is None and n == int(n) and 1 <= n <= len(options) and options[int(n) - 1][1] != named


def _option_of(amount, options: tuple):
    """The one option that is `amount`: in its own unit exactly ("4.8 Ω" is not "5 Ω"), in
    another to the option's last digit and within 1% ("35.6 km/h" is "9.9 m/s"; "4800 mΩ" is
    not "5 Ω"); a number alone only for a percentage."""
    named = []
    for option, label in options:
        own = _one_amount(option)
        if own is None or (amount.unit is None and own.unit.dims != ()):
            continue
        if amount.unit is not None and own.unit.text == amount.unit.text:
            same = math.isclose(own.value, amount.value, rel_tol=1e-9)
        else:  # to the option's last digit, and within 1% ("600 W" is not "1 kW")
            same = compare(own, amount) == "match" and (amount.unit is None or own.unit.dims != amount.unit.dims
                                                         or math.isclose(own.si(), amount.si(), rel_tol=0.01))
        if same:
            named.append(label)
    return named[0] if len(named) == 1 else None


@lru_cache(maxsize=65536)
def _one_amount(option: str):
    """The option's amount, when the option is one amount with its unit and nothing else
    ("9.9 m/s", not "Step 3" or "2.0, elastic")."""
    text = _plain(option)
    found = quantities(text)
    if len(found) != 1 or found[0].unit is None or found[0].unknown_unit or re.search(r"[-−]\s*\$", text):
        return None
    return found[0] if _letters(text) == _letters(found[0].unit.text) else None


def _letters(text: str) -> str:
    return re.sub(r"[\W\d_]", "", fold(text)).lower()


def _plain(text: str) -> str:
    """LaTeX and unicode spellings made plain, number words left to the amounts' reader."""
    t = text.replace("{,}", ",").replace("\\$", "\x01").replace("\\,", "").replace("\\%", "%")
    t = _LATEX_RE.sub("", t).replace("$", "").replace("\x01", "$")
    t = t.replace("−", "-").replace("\u2009", " ").replace("\u202f", " ").replace("\xa0", " ").strip()
    return _CLOCK_RE.sub(lambda m: f"{int(m[1]) * 60 + int(m[2])} s", t)


_YEAR_RE = re.compile(r"\b\d{3,4}\b")
_MONTH_RE = re.compile(r"\b(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b")
_RELATIVE_RE = re.compile(r"\b(?i:after|before|later|earlier|since|until|between|around|about)\b")


@lru_cache(maxsize=65536)
def _option_dates(amounts: tuple) -> dict:
    """{(year, month, day): label} where every option is one whole date, else empty."""
    out = {}
    for opt, lab in amounts:
        date = parse_date(str(opt))
        if date is None or 0 in date or date in out or len(_YEAR_RE.findall(str(opt))) != 1:
            return {}
        out[date] = lab
    return out


def dated_choice(text: str, amounts: tuple):
    """The option whose date a reply's last sentence gives in another form ("So the value is 19
    February 1961." for "February 19, 1961"), where every option is a date; None when that
    sentence gives no date, several, or doubts ("not 1961")."""
    dates = _option_dates(amounts)
    last = _last_sentence(text) if dates else ""
    if (not last or len(last) > 200 or _DOUBT.search(last) or _RELATIVE_RE.search(last)
            or len(_YEAR_RE.findall(last)) != 1 or len(_MONTH_RE.findall(last)) > 1):
        return None  # "a week after 12 March 1961", "on 12 March 1961 and back on 21 March"
    return dates.get(parse_date(last))
