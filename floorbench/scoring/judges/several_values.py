"""A gold of several values, or of one value a reply says in another system (issue 34, ninth round).

A gold such as "14 lb 6 oz", "30 September 2026", "Blk 23 #05-112", "500 mg every
8 hours", "2 to 8 °C" or "2.3.1" is a tuple of typed values, not one code string:
a reply says it when it says each value in any form (words, digits, split or
joined; a compound also as its total in one unit: "230 ounces"; a date as
"30-9-2026" or "thirtieth September twenty twenty-six") and contradicts none, and
is wrong when one is contradicted ("one puff twice daily" for two puffs twice
daily, "one a week" for one a month).

A value in another system ("44 pounds" for 20 kg, "ninety-one Fahrenheit" for
33 °C, "half inch" for 12.7 mm, "seven in ten" for 70 %) is converted with pint
and is the same value when it agrees within the speaker's rounding: half a unit
of the last place the reply says (a speaker who says "81" has rounded to the
unit) plus 1 % of the value (a speaker's conversion is itself rounded: 2.2 pounds
a kilogram is 0.2 % off, and an oven's 350 °F is "175 Celsius" on a dial, 0.9 %
off). Durations and signed values are left to the quantity rules. A unit that contradicts ("350 Celsius" for
350 °F) is another value. A tolerance after the gold value ("12.7 mm, plus or
minus 0.05") is extra detail, not a second option.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any

from floorbench.scoring.judges.value_atoms import Atom, atoms, tokens_of

Outcome = tuple[str, str, str]

_TIME_UNITS = frozenset(("hour", "minute", "second"))
_SMALLER = {"foot": "inch", "pound": "ounce", "stone": "pound"}
"""a unit and the one its compound's last part goes in, said bare ("five foot six", "twelve stone four")"""
ROUNDING_SHARE = 0.05
"""a speaker's rounding of a converted value is half a unit of the last place said, but at most this share of
the value: rounding 0.8 km to "one kilometre" says another distance"""
_BARE_AFTER = frozenset((",", ".", ";", "lah", "lor", "then", "and", "exactly", "now"))
"""what may follow a number said without its unit ("nine three, sorry"); "3 weeks" is a count of something else"""
_SIGNED = re.compile(r"(?:^|\s)[-−–]\s?\d|\b(?:minus|negative|below)\b", re.I)
_CORRECTION = re.compile(r"(?:^|[,.;—–]\s*|\s-\s*)(?:no+|sorry|i mean|wait|actually)\b(?:\s*lah)?[,\s]+", re.I)
_PLUS_MINUS = re.compile(r"\s*(?:±|\+/-|\+-|plus or minus|plus minus|give or take)", re.I)
_TOLERANCE = re.compile(r"^\s*,?\s*(?:plus or minus|give or take|±|\+/-|plus minus)", re.I)
_FREQ: tuple[tuple[str, float], ...] = (
    (r"\bq\s?(\d+)\s?h(?:rs?|ours?)?\b", -1.0),
    (r"\bevery (\w+(?:[ -]\w+)?) hours?\b", -1.0),
    (r"\bevery (?:other|second) day\b", 48.0),
    (r"\b(?:bid|b\.i\.d|twice (?:a |per )?day|twice daily|two times (?:a |per )?day|morning and (?:night|evening))\b",
     12.0),
    (r"\b(?:tid|t\.i\.d|three times (?:a |per )?day|thrice (?:a |per )?day|thrice daily)\b", 8.0),
    (r"\b(?:qid|q\.i\.d|four times (?:a |per )?day)\b", 6.0),
    (r"\b(?:once (?:a |per )?day|once daily|daily|every day|a day|per day|od|qd)\b", 24.0),
    (r"\b(?:twice (?:a |per )?week)\b", 84.0),
    (r"\b(?:once (?:a |per )?week|weekly|every week|a week|per week)\b", 168.0),
    (r"\b(?:once (?:a |per )?month|monthly|every month|a month|per month)\b", 720.0),
    (r"\b(?:as needed|when needed|prn|as required)\b", 0.0),
)
"""how often a dose is taken, in hours between doses (0: as needed); -1: the hours are said"""


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


def _convert(value: float, unit: str, to: str) -> float | None:
    reg = _registry()
    try:
        return float(reg.Quantity(value, unit).to(to).magnitude)
    except Exception:
        return None


def _same(gold: Atom, said: Atom, unit: str | None = None) -> bool | None:
    """Does `said` say `gold`'s value? None when it says a value of another kind (no unit to compare)."""
    g_unit, s_unit = gold.unit or unit, said.unit or unit
    if g_unit is None or s_unit is None or g_unit == s_unit:
        return abs(gold.value - said.value) < 1e-9
    exact = _convert(gold.value, g_unit, s_unit)
    if exact is None:
        return None
    rounding = min(0.5 * 10 ** -said.places, ROUNDING_SHARE * abs(exact))  # "one kilometre" is no 800 m
    return abs(exact - said.value) <= rounding + 0.01 * abs(exact)


def _after_correction(transcript: str) -> str:
    """The reply from its last self-correction on, when a value follows it ("sixteen pounds, no, fourteen six")."""
    cuts = [m.end() for m in _CORRECTION.finditer(transcript)]
    for cut in reversed(cuts):
        if atoms(transcript[cut:]):
            return transcript[cut:]
    return transcript


def _alternatives(text: str) -> str:
    """Two different values put as options ("the 14th or 15th", "two or three"): '' when none."""
    toks, found = tokens_of(text), atoms(text)
    for a, b in itertools.pairwise(found):
        if [t for t in toks[a.end:b.start] if t not in ("st", "nd", "rd", "th", "the", "of")] == ["or"] and a.value != b.value:
            return " ".join(toks[a.start:b.end])
    return ""


def _candidates(found: tuple[Atom, ...]) -> set[float]:
    """Every value said, with digits said one by one joined ('one one two' is 112) and a year said in
    pairs ('twenty twenty-six' is 2026)."""
    values = {a.value for a in found}
    run: list[Atom] = []
    for a in (*found, None):
        if a is not None and a.digits and (not run or run[-1].end == a.start):
            run.append(a)
            continue
        if len(run) > 1:
            values.add(float("".join(str(int(x.value)) for x in run)))
        run = [a] if a is not None and a.digits else []
    for a, b in itertools.pairwise(found):
        if a.end == b.start and 10 <= a.value <= 99 and 0 <= b.value <= 99 and a.value == int(a.value):
            values.add(a.value * 100 + b.value)
    return values


def _interval(text: str) -> tuple[float | None, str]:
    """(hours between doses, the text with the frequency phrase taken out)."""
    low = text.lower()
    for pattern, hours in _FREQ:
        m = re.search(pattern, low)
        if m is None:
            continue
        if hours < 0:
            said = atoms(m.group(1))
            if not said:
                continue
            hours = said[0].value
        return hours, low[:m.start()] + " , " + low[m.end():]
    return None, low


def _dose(ref: str, transcript: str, whole: str) -> Outcome | None:
    """A dose with how often it is taken: both said; the same amount a day in other doses is the same."""
    g_hours, g_rest = _interval(ref)
    gold = atoms(g_rest)
    if g_hours is None or len(gold) != 1:
        return None
    r_hours, r_rest = _interval(transcript)
    if r_hours is None:
        r_hours = _interval(whole)[0]  # "two a month, no, one": the interval said before the correction
    said = atoms(r_rest) or ((Atom(1.0, "num", None, 0, 1),) if re.search(r"\b(?:single|one)\b", r_rest) else ())
    amount = [_same(gold[0], a) for a in said]
    if said and r_hours and g_hours and not any(amount) and len(said) == 1 and _same(
            Atom(gold[0].value * r_hours / g_hours, "num", gold[0].unit, 0, 0), said[0]):
        return "correct", "answer.several-values", f"'{ref}': the same amount over the same time, in other doses"
    if said and not any(amount):
        return "wrong", "answer.several-other", f"'{ref}': the amount is said as another ({said[0].value:g})"
    if r_hours is not None and r_hours != g_hours:
        return "wrong", "answer.several-other", f"'{ref}': the dose is said at another interval"
    if said and r_hours is not None:
        return "correct", "answer.several-values", f"'{ref}': the amount and how often, each said"
    return "incomplete", "answer.several-missing", f"'{ref}': {'how often' if said else 'the amount'} not said"


def _compound(ref: str, gold: tuple[Atom, ...], said: tuple[Atom, ...], toks: list[str]) -> Outcome | None:
    units = [g.unit for g in gold]
    if any(u is None or u in _TIME_UNITS for u in units) or len(set(units)) != len(units):
        return None
    last = units[-1] or ""
    if any(_convert(1.0, u, last) is None for u in units if u):
        return None
    total = Atom(sum(_convert(g.value, g.unit or last, last) or 0.0 for g in gold), "num", last, 0, 0, 3)
    said = tuple(s for s in said if s.unit or s.end >= len(toks) or toks[s.end] in _BARE_AFTER
                 or any(o.start == s.end for o in said))  # "nine three", but not "3 weeks"
    each = all(any((s.unit == g.unit or (k and s.unit is None)) and _same(g, s) for s in said)
               for k, g in enumerate(gold))  # "five foot ten": the last part's unit goes unsaid
    bare = [s.value for s in said if s.unit is None]
    in_order = any(bare[k:k + len(gold)] == [g.value for g in gold] for k in range(len(bare)))
    whole = any(s.unit and s.unit != gold[0].unit and _same(total, s) for s in said)
    if each or in_order or whole:
        return "correct", "answer.several-values", f"'{ref}': each of its values said (or their total)"
    if any(s.unit and _same(gold[0], s) is not None for s in said) or bare:
        return "wrong", "answer.several-other", f"'{ref}': a value said is another"
    return None


def _range(ref: str, gold: tuple[Atom, ...], said: tuple[Atom, ...]) -> Outcome | None:
    unit = gold[-1].unit
    if unit in ("degC", "degF"):  # "between two and eight degrees": degrees of the gold's scale
        said = tuple(Atom(s.value, s.kind, unit, s.start, s.end, s.places) if s.unit == "degree" else s for s in said)
    r_unit = next((s.unit for s in said if s.unit), None)
    if unit is None or len(said) < 2:
        return None
    hits = [any(_same(g, s, None) if s.unit else _same(g, Atom(s.value, s.kind, r_unit or unit, 0, 0, s.places))
                for s in said) for g in (Atom(gold[0].value, "num", unit, 0, 0), gold[1])]
    if all(hits):
        return "correct", "answer.several-values", f"'{ref}': both ends of the range said"
    return "wrong", "answer.several-other", f"'{ref}': an end of the range said as another value"


def _joined(said: tuple[Atom, ...]) -> tuple[Atom, ...]:
    """Neighbouring values in units of one dimension said as one ('seven pounds fifteen ounces'), as
    their total in the smaller unit."""
    out: list[Atom] = []
    for s in said:
        prev = out[-1] if out else None
        if prev is not None and prev.end == s.start and s.unit is None and prev.unit in _SMALLER and (
                big := _convert(prev.value, prev.unit, _SMALLER[prev.unit])) is not None \
                and s.value < (_convert(1.0, prev.unit, _SMALLER[prev.unit]) or 0):  # "five foot six"
            out[-1] = Atom(big + s.value, "num", _SMALLER[prev.unit], prev.start, s.end, s.places)
            continue
        if prev is not None and prev.end == s.start and prev.unit and s.unit and prev.unit != s.unit \
                and (big := _convert(prev.value, prev.unit, s.unit)) is not None and big > s.value:
            out[-1] = Atom(big + s.value, "num", s.unit, prev.start, s.end, s.places)
        else:
            out.append(s)
    return tuple(out)


def _converted(ref: str, gold: Atom, transcript: str, said: tuple[Atom, ...], first: str) -> Outcome | None:
    if gold.unit is None or gold.unit in _TIME_UNITS or _SIGNED.search(ref):
        return None  # durations and signed values: the quantity rules read them
    tail = next((s for s in said if _same(gold, s) and (s.unit in (None, gold.unit))
                 and _TOLERANCE.match(transcript_after(transcript, s))), None)
    if tail is not None and said[0] is tail and "±" not in ref and "minus" not in ref.lower():
        return "correct", "answer.tolerance-detail", f"'{ref}': the gold value, with a tolerance after it as detail"
    if any(s.unit == gold.unit and s.kind != "ratio" for s in said):
        return None  # said in the gold's own unit: the quantity rules judge it
    own = [(g, s) for s in said for g in atoms(first) if s.unit == g.unit and s.kind != "ratio"]
    if own and (any(_same(g, s) for g, s in own) or len(atoms(first)) != 1):
        return None  # said in the unit of the gold itself (this is an alias): the quantity rules judge it
    if own:
        return "wrong", "answer.converted-other", f"'{ref}': the reply says the gold's own unit ({own[0][1].unit}) " \
            "with another value"
    said = _joined(said)
    other = [s for s in said if s.unit and (s.unit != gold.unit or s.kind == "ratio") and s.unit not in _TIME_UNITS
             and _same(gold, s) is not None]
    if not other:
        return None
    if any(_same(gold, s) for s in other):
        return "correct", "answer.converted", f"'{ref}': said in another unit ({other[0].unit}), the same value"
    return "wrong", "answer.converted-other", f"'{ref}': said in another unit ({other[0].unit}) as another value"


def transcript_after(transcript: str, atom: Atom) -> str:
    """The transcript's text after the atom's words (by word count: atoms index `tokens_of`)."""
    rest = tokens_of(transcript)[atom.end:]
    return " ".join("±" if t == "plus" and rest[1:3] == ["or", "minus"] else t for t in rest)


def several_values(ref: str, transcript: str, first: str = "") -> Outcome | None:
    """A verdict on a gold of several values (or one in another system), or None to leave it to the
    other rules."""
    text = _after_correction(transcript)
    if " or " not in f" {ref.lower()} " and (alternatives := _alternatives(text)):
        return "wrong", "answer.hedged", f"'{ref}': offers {alternatives} and leaves them unchosen"
    if re.search(_FREQ[0][0] + "|" + "|".join(p for p, _ in _FREQ[1:]), ref.lower()):
        return _dose(ref, text, transcript)
    gold = atoms(ref)
    said = atoms(text)
    if not gold or not said:
        return None
    if _PLUS_MINUS.match(ref) and len(gold) == 1:
        return _plus_minus(ref, gold[0], text, said)
    strip = ref.strip()
    if re.fullmatch(r"v?\d+(?:\.\d+){2,}", strip):
        seq = [g.value for g in gold]
        values = [s.value for s in said]
        if any(values[k:k + len(seq)] == seq for k in range(len(values))):
            return "correct", "answer.several-values", f"'{ref}': each part of the version said in order"
        if len(said) >= len(seq):
            return "wrong", "answer.several-other", f"'{ref}': another version said"
        return None
    if any(g.kind == "month" for g in gold) and any(g.value >= 1000 for g in gold) and len(gold) == 3:
        return _date(ref, gold, said)
    if re.search(r"\b(?:blk|block)\b|#\s*\d", ref, re.I) and "*" not in ref and len(gold) >= 2:
        pool = _candidates(said)
        have = [g.value in pool for g in gold]
        if all(have):
            return "correct", "answer.several-values", f"'{ref}': each number of the address said"
        return ("incomplete" if any(have) else "wrong"), "answer.several-other", \
            f"'{ref}': a number of the address not said"
    if len(gold) == 2 and re.search(r"\d\s*(?:to|-|–)\s*\d", strip):
        return _range(ref, gold, said)
    if len(gold) >= 2:
        return _compound(ref, gold, said, tokens_of(text))
    return _converted(ref, next(iter(gold)), text, said, first)


def _plus_minus(ref: str, gold: Atom, text: str, said: tuple[Atom, ...]) -> Outcome | None:
    """A gold tolerance ("±0.2 mm") is two values, above and below: "plus 0.2" says one of them."""
    if not any(_same(gold, s) for s in said):
        return None
    if _PLUS_MINUS.search(text):
        return "correct", "answer.several-values", f"'{ref}': the tolerance said both ways"
    if re.search(r"\b(?:plus|minus|over|under|above|below)\b", text, re.I):
        return "wrong", "answer.several-other", f"'{ref}': the tolerance said one way only"
    return None


def _date(ref: str, gold: tuple[Atom, ...], said: tuple[Atom, ...]) -> Outcome | None:
    month = next(g.value for g in gold if g.kind == "month")
    year = next(g.value for g in gold if g.value >= 1000)
    day = next(g.value for g in gold if g.kind != "month" and g.value < 1000)
    pool = _candidates(said)
    months = {s.value for s in said if s.kind == "month"}
    if months - {month} and month not in months:
        return "wrong", "answer.several-other", f"'{ref}': another month said"
    if year not in pool:
        if any(1000 <= v <= 2999 for v in pool):
            return "wrong", "answer.several-other", f"'{ref}': another year said"
        return None
    if day in pool and (month in months or month in pool):
        return "correct", "answer.several-values", f"'{ref}': day, month and year each said"
    return "wrong", "answer.several-other", f"'{ref}': the day or month said as another"
