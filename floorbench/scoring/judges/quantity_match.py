"""A gold answer's quantity, and whether a reply's mention says it.

`quantities` reads every quantity a reply says as a `Mention`; this module reads
the one quantity a gold answer states (`gold_quantity`) and decides whether a
mention says it (`same_quantity`): in any form, in a compatible unit (a converted
distance is the same, another currency is another answer), a charm price said
as the next whole amount, a duration to within a quarter of a second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from floorbench.scoring.judges.quantities import (
    APPROX_CONVERTED_TOLERANCE,
    CONVERTED_TOLERANCE,
    CURRENCIES,
    UNIT_OF,
    Mention,
    lex,
    mentions,
)
from floorbench.scoring.judges.values import convertible, factor


@dataclass(frozen=True)
class Quantity:
    """What a gold answer states: a number (with a unit or not), a time of day, or a duration."""

    kind: str
    """'number', 'clock', 'duration' or 'date' (month * 100 + day)"""
    value: float
    unit: str | None = None
    half: str | None = None


@lru_cache(maxsize=4096)
def gold_quantity(ref: str) -> Quantity | None:
    """The quantity a gold answer (or alias) states, if it states exactly one (cached: a run
    asks about the same few golds for every reply)."""
    found = mentions(lex(ref))
    if len(found) != 1:
        return None
    m = found[0]
    if m.date is not None:
        return Quantity("date", float(m.date[0] * 100 + m.date[1]))
    if m.duration is not None:
        return Quantity("duration", m.duration)
    if re.search(r"\d:\d{2}", ref) or re.search(r"\b(oclock|past|to|am|pm)\b", " ".join(lex(ref))):
        if m.clock:
            return Quantity("clock", float(min(m.clock)), half=m.half)
    if not m.numbers:
        return None
    return Quantity("number", max(m.numbers), unit=m.unit)


CHARM_CENTS = 0.95
"""a price ending in .95-.99 is a charm price: said as the next whole amount ("sixty-five bucks" for
64.99), it is the same price; any other rounding of a price is another amount"""


DURATION_TOLERANCE = 0.25 / 60
"""durations are compared in minutes to within a quarter of a second (seconds are said; "4 minutes"
is not 4 minutes 20 seconds)"""


def same_quantity(gold: Quantity, m: Mention) -> bool:
    """Does the mention say the gold quantity (in any form, in a compatible unit)?"""
    if gold.kind == "date":
        return m.date is not None and m.date[0] * 100 + m.date[1] == int(gold.value)
    if m.date is not None:
        return False
    if gold.kind == "clock":
        return int(gold.value) in m.clock and (m.half is None or gold.half is None or m.half == gold.half)
    if gold.kind == "duration":
        return m.duration is not None and abs(m.duration - gold.value) < DURATION_TOLERANCE
    if m.duration is not None:
        return False
    money = gold.unit in CURRENCIES or (gold.unit is None and gold.value != int(gold.value))
    if m.unit is None or gold.unit is None or m.unit == gold.unit:
        charm = money and round(gold.value % 1, 2) >= CHARM_CENTS and m.numbers == {float(int(gold.value) + 1)}
        return gold.value in m.numbers or charm or (money and any(abs(v - gold.value) < 1e-9 for v in m.money))
    unit = "kilogram" if m.unit_word in ("kilo", "kilos") and factor("kilogram", str(gold.unit)) else m.unit
    if convertible(unit) and convertible(gold.unit):
        f = factor(str(unit), str(gold.unit))
        tolerance = APPROX_CONVERTED_TOLERANCE if m.approx else CONVERTED_TOLERANCE
        return f is not None and any(abs(v * f - gold.value) <= tolerance * gold.value + 1e-9 for v in m.numbers)
    if m.unit == "cent" and gold.unit in ("usd", "eur", "gbp"):
        return any(abs(v / 100 - gold.value) < 1e-9 for v in m.numbers)
    return False


_SCALES = (re.compile(r"°\s*F\b|\bfahrenheit\b", re.I), re.compile(r"°\s*C\b|\bcelsius\b|\bcentigrade\b", re.I))
"""the two temperature scales, as a gold or a question writes them"""


def _scale(text: str) -> int | None:
    found = [k for k, s in enumerate(_SCALES) if s.search(text)]
    return found[0] if len(found) == 1 else None


def unit_not_asked(question: str, gold: str, alias: str) -> bool:
    """The question names the gold's unit ("what's it gonna be, Fahrenheit pls") and the alias is in another
    (20 °C for 68 °F): a value in the other unit does not answer it."""
    g, a = _scale(gold), _scale(alias)
    if g is not None and a is not None:
        return g != a and _scale(question) == g
    gq, aq = gold_quantity(gold), gold_quantity(alias)
    if gq is None or aq is None or gq.unit is None or aq.unit in (None, gq.unit):
        return False
    return any(UNIT_OF.get(t) == gq.unit for t in lex(question))
