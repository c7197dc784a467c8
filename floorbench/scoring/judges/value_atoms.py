"""The values a text says, one by one, with their units: the reading `several_values` compares.

A gold of several values ("14 lb 6 oz", "30 September 2026", "Blk 23 #05-112",
"500 mg every 8 hours", "2.3.1") is a tuple of typed values, and a reply says it
when it says each of them in any form. This module reads any text (a gold or a
reply) as a list of `Atom`s: numbers said in digits or words ("twenty-three",
"05", "zero five", "point five"), ordinals ("thirtieth", "fifth"), month names
(as their number), each with the unit said after it (as a pint unit name, so a
value in another system converts: pounds for kilograms, Fahrenheit for Celsius,
foot-pounds for newton metres, "half inch" for 12.7 mm, "seven in ten" for 70 %).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from floorbench.scoring.judges.values import ordinal_words

MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())} | {"sept": 9})
MONTHS.pop("may", None)
MONTHS["may"] = 5

_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())} | {"oh": 0}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}

_PARTS = {"tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100, "thousandth": 1000, "thousandths": 1000}

UNITS: dict[str, str] = {
    **dict.fromkeys(("lb", "lbs", "pound", "pounds"), "pound"),
    **dict.fromkeys(("oz", "ounce", "ounces"), "ounce"),
    **dict.fromkeys(("stone", "stones"), "stone"),
    **dict.fromkeys(("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"), "kilogram"),
    **dict.fromkeys(("g", "gram", "grams", "gramme", "grammes"), "gram"),
    **dict.fromkeys(("mg", "milligram", "milligrams"), "milligram"),
    **dict.fromkeys(("mm", "millimetre", "millimetres", "millimeter", "millimeters"), "millimeter"),
    **dict.fromkeys(("cm", "centimetre", "centimetres", "centimeter", "centimeters"), "centimeter"),
    **dict.fromkeys(("inch", "inches"), "inch"),
    **dict.fromkeys(("ft", "foot", "feet"), "foot"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hour"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "minute"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "second"),
    **dict.fromkeys(("c", "celsius", "centigrade"), "degC"),
    **dict.fromkeys(("f", "fahrenheit"), "degF"),
    **dict.fromkeys(("%", "percent"), "percent"),
    **dict.fromkeys(("ml", "mls", "millilitre", "millilitres", "milliliter", "milliliters"), "milliliter"),
    **dict.fromkeys(("litre", "litres", "liter", "liters"), "liter"),
    **dict.fromkeys(("teaspoon", "teaspoons", "tsp", "teaspoonful"), "teaspoon"),
    **dict.fromkeys(("tablespoon", "tablespoons", "tbsp", "tablespoonful"), "tablespoon"),
    **dict.fromkeys(("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"), "kilometer"),
    **dict.fromkeys(("metre", "metres", "meter", "meters"), "meter"),
    **dict.fromkeys(("mile", "miles", "mi"), "mile"),
    **dict.fromkeys(("‰", "permille"), "permille"),
}
"""unit words → pint names; a compound unit ("N·m", "foot-pounds") is read by `_unit_at`"""


@dataclass(frozen=True)
class Atom:
    """One value a text says: its number, what it is ('num', 'ordinal', 'month') and its unit."""

    value: float
    kind: str
    unit: str | None
    start: int
    end: int
    places: int = 0
    """decimal places said (a speaker's rounding: '35.6' is said to a tenth)"""
    digits: bool = False
    """said digit by digit ('zero five', '05'): joined with its neighbours it is one number"""


def tokens_of(text: str) -> list[str]:
    """Lower-case words, numbers (a version's '2.3.1' and a date's '30-9-2026' split), '%' and the
    punctuation that ends a value ('six, point five' is two values)."""
    text = text.lower().replace("·", " ").replace("°", " ").replace("#", " # ")
    text = re.sub(r"(\d)-(?=\d)", r"\1 ", text)
    text = re.sub(r"(\d),(?=\d{3}\b)", r"\1", text)  # 2,500
    text = re.sub(r"(\d)\s*st\b\.?(?=\s*(?:$|\d+\s*(?:lbs?|pounds?)\b))", r"\1 stone", text)  # 12 st 6 lb
    text = re.sub(r"\ba (hundred|thousand)\b", r"one \1", text)
    text = re.sub(r"(\d+\.\d+)\.(?=\d)", r"\1 point ", text)  # 2.3.1: the second dot is a separator
    text = re.sub(r"(\d)\.(\d+) point", r"\1 point \2 point", text)
    return re.findall(r"\d+(?:\.\d+)?|[a-z]+|[%‰±]|[,.;]", text)


def _word_number(toks: list[str], i: int) -> tuple[float, int] | None:
    """A cardinal said in words from toks[i] ('five hundred', 'twenty three'): (value, end)."""
    value, j, seen = 0.0, i, False
    current = 0.0
    while j < len(toks):
        t = toks[j]
        fresh = not seen or (value > 0 and current == 0)  # at the start, or just after 'thousand'
        if t in _TENS and (fresh or (current % 100 == 0 and current % 1000 != 0 and current >= 100)):
            current += _TENS[t]
            seen = True
            if j + 1 < len(toks) and toks[j + 1] in _SMALL and 0 < _SMALL[toks[j + 1]] < 10:
                current += _SMALL[toks[j + 1]]
                j += 1
        elif t in _SMALL and t != "oh" and (fresh or (current % 100 == 0 and current >= 100)):
            current += _SMALL[t]
            seen = True
        elif t == "hundred" and seen and current < 100:
            current *= 100
        elif t == "thousand" and seen:
            value, current = value + current * 1000, 0.0
        elif t == "and" and seen and (current >= 100 or (value > 0 and current == 0)) and j + 1 < len(toks) and (
                toks[j + 1] in _SMALL or toks[j + 1] in _TENS):
            pass
        else:
            break
        j += 1
    return (value + current, j) if seen else None


def _unit_at(toks: list[str], j: int) -> tuple[str | None, int]:
    """The unit said at toks[j] (after 'degrees'), or None: (pint name, end)."""
    k = j + 1 if j < len(toks) and toks[j] in ("degree", "degrees") else j
    pair = tuple(toks[k:k + 2])
    if pair in (("n", "m"), ("newton", "metres"), ("newton", "meters"), ("newton", "metre"), ("nm", "")):
        return "newton * meter", k + 2
    if toks[k:k + 1] == ["nm"]:
        return "newton * meter", k + 1
    if pair in (("foot", "pounds"), ("ft", "lb"), ("ft", "lbs"), ("foot", "pound")):
        return "foot * force_pound", k + 2
    if pair in (("per", "cent"), ("per", "mille")):
        return ("percent" if pair[1] == "cent" else "permille"), k + 2
    if k < len(toks) and toks[k] in UNITS:
        return UNITS[toks[k]], k + 1
    return (None, j) if k == j else ("degree", k)


def _decimals(whole: float, toks: list[str], k: int) -> tuple[float, int, int]:
    """The digits said after 'point' ('point six five' is .65): (value, places, end)."""
    digits = ""
    while k < len(toks) and toks[k] in _SMALL and _SMALL[toks[k]] < 10 and toks[k] != "oh":
        digits += str(_SMALL[toks[k]])
        k += 1
    return whole + float("0." + (digits or "0")), len(digits), k


@lru_cache(maxsize=4096)
def atoms(text: str) -> tuple[Atom, ...]:
    """Every value `text` says, in order."""
    toks = tokens_of(text)
    out: list[Atom] = []
    i = 0
    ordinals = sorted(ordinal_words().items(), key=lambda kv: -len(kv[0]))
    while i < len(toks):
        t = toks[i]
        value: float | None = None
        kind, places, digits, j = "num", 0, False, i + 1
        if re.fullmatch(r"\d+(?:\.\d+)?", t):
            value, places = float(t), len(t.split(".")[1]) if "." in t else 0
            digits = len(t) > 1 and t.startswith("0")
        elif t in MONTHS:
            value, kind = float(MONTHS[t]), "month"
        elif (hit := next((n for words, n in ordinals if tuple(toks[i:i + len(words)]) == words), None)) is not None:
            value, kind = float(hit), "ordinal"
            j = i + next(len(w) for w, n in ordinals if n == hit and tuple(toks[i:i + len(w)]) == w)
        elif (t == "half" and (i == 0 or toks[i - 1] in ("a", "one"))) or (t == "half" and i + 1 < len(toks) \
                and toks[i + 1] in UNITS):
            value, places = 0.5, 1
        elif t in ("to", "too") and toks[i + 1:i + 2] == ["point"]:
            value = 2.0  # "version to point three": a heard 'two'
        elif t in _SMALL and toks[i + 1:i + 2] and toks[i + 1] in _SMALL and t != "oh":
            value = float(_SMALL[t])
        elif (said := _word_number(toks, i)) is not None:
            value, j = said
        elif t == "point" and toks[i + 1:i + 2] and toks[i + 1] in _SMALL and (not out or out[-1].end < i):
            value, places, j = _decimals(0.0, toks, i + 1)
        elif t in ("a", "an") and toks[i + 2:i + 5] == ["and", "a", "half"]:
            out.append(Atom(1.5, "num", UNITS.get(toks[i + 1]), i, i + 5, 1))  # "a cup and a half"
            i += 5
            continue
        if value is None:
            i += 1
            continue
        if toks[j:j + 2] and toks[j] == "point" and j + 1 < len(toks) and toks[j + 1] in _SMALL \
                and toks[j + 2:j + 3] != ["point"] and "point" not in toks[max(0, i - 2):i]:
            value, places, j = _decimals(value, toks, j + 1)
        if toks[j:j + 1] and toks[j] in _PARTS:  # "two tenths" of a millimetre
            value, places, j = value / _PARTS[toks[j]], len(str(_PARTS[toks[j]])) - 1, j + 1
            j += 2 if toks[j:j + 2] in (["of", "a"], ["of", "an"]) else 0
        if toks[j:j + 3] in (["and", "a", "half"],):
            value, places, j = value + 0.5, 1, j + 3
        if toks[j:j + 1] in (["in"], ["out"]) and (rest := toks[j + 1:j + 4]):
            k = j + 2 if rest[:1] == ["of"] else j + 1
            den = _word_number(toks, k) or ((float(toks[k]), k + 1) if re.fullmatch(r"\d+", toks[k] if k < len(
                toks) else "") else None)
            if den and den[0] >= 2:
                out.append(Atom(100 * value / den[0], "ratio", "percent", i, den[1], 0))
                i = den[1]
                continue
        digits = digits or (j == i + 1 and kind == "num" and value < 10 and value == int(value) and not places)
        unit, end = _unit_at(toks, j)
        out.append(Atom(value, kind, unit, i, end, places, digits))
        i = max(end, i + 1)
    return tuple(out)
