"""One number said in two habits at once, read as the one value it is.

Speakers join number words with a clipped "and" ("six hundred an' fifty", "two 'n' twenty"), say the
hundreds after a thousand the way prices are said ("one thousand two fifty" is 1,250, "two thousand
three forty" is 2,340), and give an amount and its cents in one breath ("one eighty and fifty
centavos" is 180.50, "twelve and ten cents" 12.10). Each rewrite here reads the form by its shape,
whatever the gold, so a different amount said this way is read as that amount and stays wrong.
"""

from __future__ import annotations

import re

from text_to_num import text2num

_UNITS: list[str] = list("one two three four five six seven eight nine".split())
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD = "|".join(["zero", *_UNITS, *_TEENS, *_TENS, "hundred", "thousand", "million"])
_NUMBER = rf"(?:(?:{_WORD})\b(?:[\s-]+(?:and\s+)?(?:{_WORD})\b)*)"
_CLIPPED_AND = r"(?:an'|an|'n'|n'|'n|n)"
CENTS = ("cents", "cent", "centavos", "centavo", "centimes", "centime", "pence", "p", "paise", "kobo", "sen",
         "bani", "groszy", "kopecks", "kopeks", "santim", "cents'", "pesewas", "halalas", "fils")
"""the hundredth part of a currency, by its names"""


def _value(said: str) -> int | None:
    """A whole number in figures or words, or in the price habit ('two forty' → 240)."""
    said = said.lower().replace("-", " ").strip()
    if said.isdigit():
        return int(said)
    try:
        return int(text2num(said, "en"))
    except ValueError:
        pass
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


def read_mixed_numbers(text: str) -> str:
    """The text with each of the forms above read as its one value."""
    return amount_and_cents(thousands_then_price(clipped_and(text)))
