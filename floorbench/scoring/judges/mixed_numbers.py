"""One number said in two habits at once, read as the one value it is.

Speakers join number words with a clipped "and" ("six hundred an' fifty", "two 'n' twenty"), say the
hundreds after a thousand the way prices are said ("one thousand two fifty" is 1,250, "two thousand
three forty" is 2,340), and give an amount and its cents in one breath ("one eighty and fifty
centavos" is 180.50, "twelve and ten cents" 12.10), and an hour of the 24-hour clock with "o'clock"
("15 o'clock", "fifteen hundred hours" is 3 pm). Each rewrite here reads the form by its shape,
whatever the gold, so a different amount said this way is read as that amount and stays wrong. Two
read a form as the gold writes its kind: for a percent gold a fraction is its percent ("one-fifth"
is 20 %), and for a gold in pence written "50p", "fifty pence" is "50p".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from text_to_num import text2num

from floorbench.scoring.judges.normalize import CARDINALS, SCALES, TENS, UNITS

_UNITS = [w for w, n in UNITS.items() if n and n < 10]
_TEENS = [w for w, n in UNITS.items() if n and n >= 10]
_TENS = list(TENS)
_WORD = "|".join((*CARDINALS, *SCALES))
_NUMBER = rf"(?:(?:{_WORD})\b(?:[\s-]+(?:and\s+)?(?:{_WORD})\b)*)"
_CLIPPED_AND = r"(?:an'|an|'n'|n'|'n|n)"
CENTS = ("cents", "cent", "centavos", "centavo", "centimes", "centime", "pence", "p", "paise", "kobo", "sen",
         "bani", "groszy", "kopecks", "kopeks", "santim", "cents'", "pesewas", "halalas", "fils")
"""the hundredth part of a currency, by its names"""


def words_value(said: str) -> int | None:
    """A whole number in figures or in English words ('twenty-five' → 25), or None."""
    said = said.lower().replace("-", " ").strip()
    if said.isdigit():
        return int(said)
    try:
        return int(text2num(said, "en"))
    except ValueError:
        return None


def _value(said: str) -> int | None:
    """A whole number in figures or words, or in the price habit ('two forty' → 240)."""
    whole = words_value(said)
    if whole is not None:
        return whole
    said = said.lower().replace("-", " ").strip()
    m = re.fullmatch(rf"({'|'.join(_UNITS)})\s+((?:{'|'.join(_TEENS + _TENS)})(?:\s+(?:{'|'.join(_UNITS)}))?)", said)
    if m:
        return (_UNITS.index(m.group(1)) + 1) * 100 + int(text2num(m.group(2), "en"))
    return None


def clipped_and(text: str) -> str:
    """'six hundred an' fifty' → 'six hundred and fifty': a clipped 'and' between two number words."""
    return re.sub(rf"\b({_WORD})\s+{_CLIPPED_AND}(?=\s+(?:a\s+)?(?:{_WORD}|half|quarter|third)\b)", r"\1 and",
                  text, flags=re.I)


def thousands_then_price(text: str) -> str:
    """'one thousand two fifty' → '1250': after a thousand, a digit word and a tens (or teens) word are the
    hundreds and the rest, as a price is said."""
    def value(m: re.Match[str]) -> str:
        head = _value(m.group(1))
        if head is None:
            return m.group(0)
        rest = (_UNITS.index(m.group(2).lower()) + 1) * 100 + int(text2num(m.group(3).lower().replace("-", " "), "en"))
        return str(head * 1000 + rest)

    unit, tail = "|".join(_UNITS), "|".join(_TEENS + _TENS)
    return re.sub(rf"\b((?:{_NUMBER}|\d+))\s+thousand\s+({unit})\s+((?:{tail})(?:[\s-]+(?:{unit}))?)\b"
                  rf"(?![\s-]+(?:hundred|thousand|{unit}|{tail})\b)", value, text, flags=re.I)


def amount_and_cents(text: str) -> str:
    """'one eighty and fifty centavos' → '180.50', '12 and 5 cents' → '12.05': a whole amount, 'and', and a
    number of cents below a hundred are one amount."""
    def value(m: re.Match[str]) -> str:
        whole, cents = _value(m.group(1)), _value(m.group(2))
        if whole is None or cents is None or not 0 < cents < 100:
            return m.group(0)
        return f"{whole}.{cents:02d}"

    said = rf"(\d+|{_NUMBER})"
    return re.sub(rf"\b{said}\s+(?:and|{_CLIPPED_AND})\s+{said}\s+(?:{'|'.join(CENTS)})\b", value, text, flags=re.I)


def day_clock(text: str) -> str:
    """'15 o'clock', 'fifteen hundred hours' → '3 pm': an hour of the 24-hour clock past noon."""
    def value(m: re.Match[str]) -> str:
        hour = _value(m.group(1))
        return f"{hour - 12} pm" if hour is not None and 13 <= hour <= 23 else m.group(0)

    return re.sub(rf"\b(\d{{2}}|(?:{_NUMBER}))\s+(?:o'?clock|hundred\s+hours)\b", value, text, flags=re.I)


_FRACTIONS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
              "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "eighth": 8, "eighths": 8, "tenth": 10,
              "tenths": 10}


def percent_fractions(text: str, refs: Sequence[str]) -> str:
    """For a percent gold, 'one-fifth', 'a quarter', 'three quarters', 'half' → that many percent ('20
    percent'), rounded to a gold percent within half a point ('a third' is 33 %), else to a tenth."""
    golds = [float(g) for r in refs[:1] for g in re.findall(r"(\d+(?:\.\d+)?)\s*(?:%|per\s?cent)", r, re.I)]
    if not golds:
        return text

    def value(m: re.Match[str]) -> str:
        count = 1 if m.group(1).lower() in ("a", "an", "one") else _value(m.group(1))
        if count is None:
            return m.group(0)
        share = 100 * count / _FRACTIONS[m.group(2).lower()]
        near = next((g for g in golds if abs(g - share) < 0.5), None)
        said = near if near is not None else round(share, 1)
        return f"{said:g} percent"

    return re.sub(rf"(?<!\band )\b(an?|one|two|three|four|five|seven|nine)[\s-]+({'|'.join(_FRACTIONS)})\b"
                  r"(?!\s+of\s+an?\b)(?!\s*(?:%|percent|per\s?cent)\b)",
                  value, text, flags=re.I)


def pence(text: str, refs: Sequence[str]) -> str:
    """For a gold in pence written as a code ('50p'), 'fifty pence' → '50p'."""
    if not refs or not re.fullmatch(r"\d{1,2}\s?p", refs[0].strip(), re.I):
        return text

    def value(m: re.Match[str]) -> str:
        n = _value(m.group(1))
        return f"{n}p" if n is not None and n < 100 else m.group(0)

    return re.sub(rf"\b(\d{{1,2}}|{_NUMBER})\s+(?:pence|p)\b", value, text, flags=re.I)


def read_mixed_numbers(text: str, refs: Sequence[str] = ()) -> str:
    """The text with each of the forms above read as its one value."""
    text = day_clock(amount_and_cents(thousands_then_price(clipped_and(text))))
    return pence(percent_fractions(text, refs), refs)
