"""A range of values, said in any of its forms, and a range said where one value is asked for.

A range is said "between three and five", "anywhere from three to five", "three through five",
"3–5", or, as a recogniser hears the "to", "three too five". Where the gold is a range ("3 to 5
business days", "2–8 °C") each of these forms is rewritten to the gold's own "X to Y", so that the
rules read its two ends in order; the ends are kept as said, so another range stays another.

Where the gold is one exact value (a count, a price, a weight: not a clock time, whose "twenty to
five" and "nine to five" are other things, nor a score), a range said for it ("eighty to ninety
dollars", "between ten and twelve") gives no value: it is rewritten to the two values offered as
options ("eighty or ninety dollars"), which the answer rules read as a hedge left unchosen, even
where one end is the gold. A change said with "from X to Y" ("went up from eighty to ninety") is no
range and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from text_to_num import text2num

from floorbench.scoring.judges.normalize import CARDINALS, SCALES
from floorbench.scoring.judges.quantities import OTHER_CURRENCIES, UNIT_OF
from floorbench.scoring.judges.value_atoms import UNITS

_WORD = "|".join((*CARDINALS, *SCALES))
_SAID = rf"(?:\d+(?:[.,]\d+)?|(?:(?:a|an)\s+)?(?:{_WORD})\b(?:[\s-]+(?:and\s+)?(?:{_WORD})\b)*)"
_CURRENCY = r"(?:[$€£¥₹₱₩]|ksh\s?|r\s?)"
_TIME_GOLD = re.compile(r"\d\s*(?::\d\d|[ap]\.?m\b|o'?clock)|\b(?:noon|midnight)\b", re.I)
_SCORE_GOLD = re.compile(r"\d{1,2}\s*[-–]\s*\d{1,2}(?:\s+\D.*)?")
_GOLD_RANGE = re.compile(r"(?<![\d.:])(\d+(?:\.\d+)?)\s*(?:to|–|-|—)\s*(\d+(?:\.\d+)?)(?![\d:])")
_CHANGE = re.compile(r"\b(?:went|gone|goes|go|rose|risen|rise|up|down|fell|fallen|dropped|drop|changed|change|moved|"
                     r"increased|decreased|raised|cut|reduced|jumped|climbed|was|were)\s+(?:\w+\s+)?$", re.I)


def _value(said: str) -> float | None:
    said = said.lower().replace("-", " ").replace(",", "").strip()
    said = re.sub(r"^an?\s+", "one ", said)
    if re.fullmatch(r"\d+(?:\.\d+)?", said):
        return float(said)
    try:
        return float(text2num(said, "en"))
    except ValueError:
        m = re.fullmatch(r"(one|two|three|four|five|six|seven|eight|nine)\s+(\w+(?:\s\w+)?)", said)
        if m:  # "one fifty": a price said in hundreds
            try:
                return float(text2num(m.group(1), "en") * 100 + text2num(m.group(2), "en"))
            except ValueError:
                return None
        return None


def gold_range(gold: str) -> tuple[float, float] | None:
    """The two ends of a range gold ('3 to 5 business days' → (3, 5)); None for a score, a phone number or a
    time."""
    if _SCORE_GOLD.fullmatch(gold.strip()) or _TIME_GOLD.search(gold):
        return None
    m = _GOLD_RANGE.search(gold)
    if m is None or re.search(r"\d[-–]\d{3,}", gold):
        return None
    low, high = float(m.group(1)), float(m.group(2))
    return (low, high) if low < high else None


def _forms(too: str) -> tuple[str, ...]:
    """The forms of a range; `too` is the recogniser's "too" for "to" where a range is asked for."""
    return (
        rf"\b(?:(?:anywhere|somewhere)\s+)?between\s+({_SAID})\s+(?:and|an'?|to)\s+({_SAID})",
        rf"\b(?:anywhere|somewhere)\s+from\s+({_SAID})\s+(?:to{too}|till|until|up\s+to)\s+({_SAID})",
        rf"(?<![\w'-])({_SAID})\s+(?:to{too}|through|thru|till)\s+({_SAID})(?!\s*:)",
    )


_FIGURES = rf"(?<![\d.,:])({_CURRENCY}?\d+(?:\.\d+)?)\s*[-–]\s*({_CURRENCY}?\d+(?:\.\d+)?)(?![\d:])"


def _ranges(text: str, rewrite: Callable[[str, str], str], forms: Sequence[str],
            about: Callable[[str], bool] = lambda after: True) -> str:
    def one(m: re.Match[str]) -> str:
        if not about(m.string[m.end():]):
            return m.group(0)
        a, b = (re.sub(rf"^{_CURRENCY}", "", g, flags=re.I) for g in (m.group(1), m.group(2)))
        low, high = _value(a), _value(b)
        if low is None or high is None or not low < high:
            return m.group(0)
        before = m.string[: m.start()]
        if re.search(r"\bfrom\s*$", before, re.I) and _CHANGE.search(re.sub(r"\bfrom\s*$", "", before, flags=re.I)):
            return m.group(0)  # "went up from eighty to ninety": a change, no range
        return rewrite(m.group(1).strip(), m.group(2).strip())

    for form in forms:
        text = re.sub(form, one, text, flags=re.I)
    return text


def read_ranges(text: str, refs: Sequence[str]) -> str:
    """The text with each range said rewritten for the gold `refs[0]`: to 'X to Y' for a range gold, to
    'X or Y' for a gold of one value (not a time nor a score)."""
    if not refs:
        return text
    gold = refs[0].strip()
    if gold_range(gold) is not None:
        return _ranges(text, lambda a, b: f"{a} to {b}", (*_forms("|too"), _FIGURES))
    if _TIME_GOLD.search(gold) or _SCORE_GOLD.fullmatch(gold) or not re.search(r"\d", gold) or (len(
            re.sub(r"\D", "", gold)) >= 4 and re.fullmatch(r"[\d\s-]+", gold)):
        return text  # a time, a score, a name, a digit code
    if re.match(r"(?i)\s*(?!(?:ksh|rs|usd|eur|gbp|[a-z]{1,2}\$)\b)[a-z]+\s", gold):
        return text  # a gold whose words come before its number ("Purok 5", "Gate 12"): its numbers are names
    return _ranges(text, lambda a, b: f"{a} or {b}", _forms(""), lambda after: _of_gold(after, gold))


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


_MONEY = frozenset(("usd", "eur", "gbp", "cent", *OTHER_CURRENCIES))


def _kind(unit: str | None) -> str | None:
    if unit is None:
        return None
    if unit in _MONEY:
        return "money"
    try:
        return str(_registry().Quantity(1, unit).dimensionality)
    except Exception:
        return unit


def _unit(word: str) -> str | None:
    return UNITS.get(word) or UNIT_OF.get(word)


def _of_gold(after: str, gold: str) -> bool:
    """Whether a range followed by `after` is of the gold's quantity: nothing after it, the gold's own word,
    or a unit of the gold's kind ("six to eight hours" is no range of a dose in mL)."""
    word = re.match(r"\s*([a-z]+|[^\sa-z])?", after.lower())
    nxt = word.group(1) if word else None
    if nxt is None or not nxt.isalpha():
        return True
    golds = re.findall(r"[a-z]+", gold.lower())
    if nxt in golds:
        return True
    said = _kind(_unit(nxt))
    if said is None:
        return False
    money = re.search(r"[$€£¥₹₱₩]|\b(?:ksh|rs|usd|eur|gbp)\b|\d\s*p\b", gold, re.I)
    gold_kind = "money" if money else next((_kind(_unit(w)) for w in golds if _unit(w)), None)
    return gold_kind is None or said == gold_kind
