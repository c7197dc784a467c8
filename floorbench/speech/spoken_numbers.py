"""Digits to words before Piper speaks them.

Piper's phonemizer reads digit strings badly (with the packaged Joe voice,
"18 dollars" came out as something Whisper heard as "aching dollars"), so
text for Piper is normalised first: prices, times, ordinals, decimals and
plain numbers become words. flite and festival expand numbers themselves.
"""

from __future__ import annotations

import re

from num2words import num2words

_MONEY = re.compile(r"\$(\d+(?:,\d{3})*)(?:\.(\d{2}))?")
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_ORDINAL = re.compile(r"\b(\d+)(st|nd|rd|th)\b")
_DECIMAL = re.compile(r"\b(\d+)\.(\d+)\b")
_NUMBER = re.compile(r"\b\d+(?:,\d{3})*\b")
_PERCENT = re.compile(r"(\d)\s?%")


def _int(s: str) -> int:
    return int(s.replace(",", ""))


def _money(m: re.Match[str]) -> str:
    dollars = _int(m.group(1))
    out = f"{num2words(dollars)} dollar{'s' if dollars != 1 else ''}"
    if m.group(2) and int(m.group(2)):
        cents = int(m.group(2))
        out += f" and {num2words(cents)} cent{'s' if cents != 1 else ''}"
    return out


def _time(m: re.Match[str]) -> str:
    h, mins = int(m.group(1)), int(m.group(2))
    if mins == 0:
        return f"{num2words(h)} o'clock"
    if mins < 10:
        return f"{num2words(h)} oh {num2words(mins)}"
    return f"{num2words(h)} {num2words(mins)}"


def spell_numbers(text: str) -> str:
    """Rewrite every number in `text` as English words ("$18.50" → "eighteen dollars and fifty cents")."""
    text = _PERCENT.sub(r"\1 percent", text)
    text = _MONEY.sub(_money, text)
    text = _TIME.sub(_time, text)
    text = _ORDINAL.sub(lambda m: num2words(int(m.group(1)), to="ordinal"), text)
    text = _DECIMAL.sub(lambda m: f"{num2words(int(m.group(1)))} point {' '.join(num2words(int(d)) for d in m.group(2))}", text)
    return _NUMBER.sub(lambda m: num2words(_int(m.group(0))), text)
