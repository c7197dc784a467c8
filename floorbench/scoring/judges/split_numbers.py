"""Numbers a recogniser split, mis-segmented or misheard, and numbers said in German or Dutch order.

A recogniser writes one number as two ("60 8" for sixty-eight, "20 7 unread", "84 hundred", "a
hundred and 87"), writes a digit's homophone after a tens word ("forty too", "march twenty forth",
"for twenty dollars") or before a unit ("for minutes 20 seconds"), and drops the units of a two-part
duration ("1 15" for 1 hour 15 minutes). Some speakers put the unit first ("six and twenty", "one
and ninety"). Read alone, each of these is two numbers and the answer rules find the quantity not
said. Every rewrite here joins the pieces only when the joined value is a number of the gold, the
way the other respell rules compare against the gold: "60 8" is 68 for a gold of 68 and stays "60 8"
for 60 or 86; "20 7" is never 207; "20 7-year-olds" and "20, 7" (a list) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from num2words import num2words
from text_to_num import text2num

_UNITS = {w: n for n, w in enumerate("one two three four five six seven eight nine".split(), start=1)}
_UNIT_SOUNDS = {"to": 2, "too": 2, "for": 4, "fore": 4, "ate": 8, "won": 1}
"""words a recogniser writes for a unit digit it heard"""
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "forth": 4, "fifth": 5, "sixth": 6,
             "seventh": 7, "eighth": 8, "ninth": 9, "1st": 1, "2nd": 2, "3rd": 3, **{f"{d}th": d for d in range(4, 10)}}
_TENS = {w: n for n, w in zip(range(20, 100, 10), "twenty thirty forty fifty sixty seventy eighty ninety".split(), strict=True)}
_TENS_WORD = "|".join([*_TENS, *(str(n) for n in range(20, 100, 10))])
_UNIT_WORD = "|".join([*_UNITS, *_UNIT_SOUNDS, *(str(d) for d in range(1, 10))])
_ORD_WORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_NOT_JOINED = r"(?![-\w])(?!\s*-)(?!\s+years?[\s-]+olds?\b)"
"""the unit is not the head of a compound ("20 7-year-olds") nor of a longer number"""
_DURATION = re.compile(r"(\d+)\s*(hours?|hrs?|h|minutes?|mins?)\s+(?:and\s+)?(\d+)\s*(minutes?|mins?|m|seconds?|secs?|s)",
                       re.I)
_SECONDS = {"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "m": 60, "min": 60, "mins": 60,
            "minute": 60, "minutes": 60, "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1}
_DURATION_UNIT = "|".join(sorted(_SECONDS, key=len, reverse=True))
_NUMBER_WORD = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred")
_SAID_NUMBER = rf"(?:\d+|(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*)"
_FRACTIONS = {"a quarter": 0.25, "a half": 0.5, "three quarters": 0.75, "three quarter": 0.75}
_TIME_UNIT = r"(?:hours?|hrs?|minutes?|mins?|seconds?|secs?|o'?clock|am|pm|a\.m\.|p\.m\.)"


def _value(word: str) -> int | None:
    w = word.lower()
    if w.isdigit():
        return int(w)
    return _TENS.get(w) or _UNITS.get(w) or _UNIT_SOUNDS.get(w)


def gold_numbers(refs: Sequence[str]) -> set[int]:
    """The whole numbers written in the golds ('$187.50' → 187 and 50, '8,400' → 8400)."""
    found: set[int] = set()
    for ref in refs:
        found |= {int(d) for d in re.findall(r"\d+", re.sub(r"(?<=\d),(?=\d{3}\b)", "", ref))}
    return found


def join_split_numbers(text: str, refs: Sequence[str]) -> str:
    """The transcript with each split, misheard or unit-first number joined where the gold needs it."""
    golds = gold_numbers(refs)
    if not golds:
        return text
    text = _hundreds(text, golds)
    text = _unit_first(text, golds)
    single = gold_numbers(refs[:1]) if ":" not in refs[0] and len(gold_numbers(refs[:1])) == 1 else set()
    text = _tens_then_unit(text, golds, single)
    text = _digit_then_tens(text, golds)
    return _duration_parts(text, refs)


def _hundreds(text: str, golds: set[int]) -> str:
    """'84 hundred' → 8400 (N ≥ 10), 'a hundred and 87' → 187."""
    def scaled(m: re.Match[str]) -> str:
        value = int(m.group(1)) * 100
        return str(value) if value in golds or int(m.group(1)) in golds else m.group(0)  # not 84 for 84 hundred

    text = re.sub(r"\b(\d{2})\s+hundred\b(?!\s+(?:and\s+)?\d)", scaled, text, flags=re.I)

    def with_rest(m: re.Match[str]) -> str:
        head = 1 if m.group(1).lower() in ("a", "one") else int(m.group(1))
        value = head * 100 + int(m.group(2))
        return str(value) if value in golds else m.group(0)

    return re.sub(r"\b(a|one|[1-9])\s+hundred\s+(?:and\s+)?(\d{1,2})\b(?![-.,]?\d)", with_rest, text, flags=re.I)


def _unit_first(text: str, golds: set[int]) -> str:
    """'six and twenty' → 26, 'one and ninety' → 91: the unit said before the tens."""
    def value(m: re.Match[str]) -> str:
        unit, tens = _value(m.group(1)), _value(m.group(2))
        if unit is None or tens is None or unit > 9 or unit + tens not in golds:
            return m.group(0)
        return str(unit + tens)

    units = "|".join([*_UNITS, *(str(d) for d in range(1, 10))])
    return re.sub(rf"\b({units})\s+and\s+({_TENS_WORD})\b(?![-\s]*(?:{units})\b)", value, text, flags=re.I)


def _tens_then_unit(text: str, golds: set[int], single: set[int]) -> str:
    """'60 8' → 68, 'forty too' → 42, 'twenty forth' / '20 4th' → 24th: a tens figure and a unit digit
    written as two tokens. They are joined also when the gold is one number, the tens alone or the
    two read as one digit string (60, 608), so that the near value is not read in them; not when the
    gold has more numbers ("20 5" may be 20:05 or $20.05)."""
    def ordinal(m: re.Match[str]) -> str:
        value = _TENS[m.group(1).lower()] if m.group(1).lower() in _TENS else int(m.group(1))
        value += _ORDINALS[m.group(2).lower()]
        return f"{value}th" if value in golds else m.group(0)

    text = re.sub(rf"(?<![\d,.]\s)(?<![\d,.])\b({_TENS_WORD})\s+({_ORD_WORD})\b{_NOT_JOINED}", ordinal, text, flags=re.I)

    def cardinal(m: re.Match[str]) -> str:
        tens, unit = _value(m.group(1)), _value(m.group(2))
        if tens is None or unit is None:
            return m.group(0)
        if m.group(2).lower() in _UNIT_SOUNDS and re.match(rf"\s+(?:\d|{_NUMBER_WORD})", m.string[m.end():], re.I):
            return m.group(0)  # "thirty to thirty-two", "twenty to five": a range or a time, no 32 nor 22
        near = m.group(2).lower() not in _UNIT_SOUNDS and bool(
            {tens, tens * 10 + unit} & single)  # "60 8" is 68, not 60 nor 608
        return str(tens + unit) if tens + unit in golds or near else m.group(0)

    return re.sub(rf"(?<![\d,.]\s)(?<![\d,.])\b({_TENS_WORD})\s+({_UNIT_WORD})\b{_NOT_JOINED}", cardinal, text,
                  flags=re.I)


def _digit_then_tens(text: str, golds: set[int]) -> str:
    """'for twenty dollars' → 420: a digit (or its homophone) before a tens word, read as hundreds
    and tens the way prices are said ("four twenty")."""
    def value(m: re.Match[str]) -> str:
        head, tens = _value(m.group(1)), _value(m.group(2))
        if head is None or tens is None or head > 9 or head * 100 + tens not in golds:
            return m.group(0)
        return str(head * 100 + tens)

    heads = "|".join([*_UNITS, "for", "fore", "to", "too", "won", "ate", *(str(d) for d in range(1, 10))])
    return re.sub(rf"(?<![\d,.]\s)\b({heads})\s+({_TENS_WORD})\b{_NOT_JOINED}(?!\s+(?:and\s+)?(?:{_UNIT_WORD})\b)",
                  value, text, flags=re.I)


def _duration_parts(text: str, refs: Sequence[str]) -> str:
    """For a two-part duration gold ('4 minutes 20 seconds'): 'for minutes' → '4 minutes' (a digit's
    homophone before the gold's first unit) and '4 20' or 'four twenty' → the gold's own two parts when
    its two numbers are said in order with no unit."""
    m = next((d for r in refs if (d := _DURATION.fullmatch(r.strip()))), None)
    if m is None:
        return text
    first, unit1, second, unit2 = m.groups()
    text = _same_duration(text, f"{first} {unit1} {second} {unit2}",
                          int(first) * _SECONDS[unit1.lower()] + int(second) * _SECONDS[unit2.lower()],
                          _SECONDS[unit1.lower()], _SECONDS[unit2.lower()])
    homophones = [w for w, d in _UNIT_SOUNDS.items() if str(d) == first]
    if homophones:
        text = re.sub(rf"\b(?:{'|'.join(homophones)})\s+({re.escape(unit1)}|{unit1.rstrip('s')}s?)\b",
                      lambda k: f"{first} {k.group(1)}", text, flags=re.I)
    said_first = "|".join((first, re.escape(num2words(int(first)))))
    said_second = "|".join((second, num2words(int(second)).replace("-", "[- ]")))
    return re.sub(rf"(?<![\d,.:]\s)(?<![\d,.:])\b(?:{said_first})\s+(?:{said_second})\b(?![-:.,]?\d)"
                  rf"(?!\s+{_TIME_UNIT})(?![- ](?:one|two|three|four|five|six|seven|eight|nine)\b)",
                  f"{first} {unit1} {second} {unit2}", text, flags=re.I)


def _said(number: str) -> int | None:
    if number.isdigit():
        return int(number)
    try:
        return int(text2num(number.lower().replace("-", " "), "en"))
    except ValueError:
        return None


def _same_duration(text: str, gold: str, total: int, big: int, small: int) -> str:
    """The same two-part duration said another way → the gold's own form: its units spelt otherwise
    ('4 hrs 15 min' for 4 h 15 min), a fraction of the larger unit ('four and a quarter hours'), or the
    whole in the smaller unit ('255 minutes'). A different total is left as said, and stays wrong."""
    def two_parts(m: re.Match[str]) -> str:
        a, b = _said(m.group(1)), _said(m.group(3))
        if a is None or b is None:
            return m.group(0)
        return gold if a * _SECONDS[m.group(2).lower()] + b * _SECONDS[m.group(4).lower()] == total else m.group(0)

    text = re.sub(rf"\b({_SAID_NUMBER})\s*({_DURATION_UNIT})\.?\s+(?:and\s+)?({_SAID_NUMBER})\s*({_DURATION_UNIT})\b",
                  two_parts, text, flags=re.I)

    def fraction(m: re.Match[str]) -> str:
        whole, unit = _said(m.group(1)), _SECONDS[m.group(3).lower()]
        if whole is None or unit != big:
            return m.group(0)
        return gold if (whole + _FRACTIONS[m.group(2).lower()]) * unit == total else m.group(0)

    text = re.sub(rf"\b({_SAID_NUMBER})\s+and\s+({'|'.join(_FRACTIONS)})\s+({_DURATION_UNIT})\b", fraction,
                  text, flags=re.I)

    def unit_then_fraction(m: re.Match[str]) -> str:  # "two hours and three quarters", "an hour an' a quarter"
        whole = 1 if m.group(1).lower() in ("a", "an") else _said(m.group(1))
        if whole is None or _SECONDS[m.group(2).lower()] != big:
            return m.group(0)
        return gold if (whole + _FRACTIONS[m.group(3).lower()]) * big == total else m.group(0)

    text = re.sub(rf"\b({_SAID_NUMBER}|an?)\s+({_DURATION_UNIT})\s+(?:and|an'?|n')\s+({'|'.join(_FRACTIONS)})s?\b",
                  unit_then_fraction, text, flags=re.I)

    def whole(m: re.Match[str]) -> str:
        n = _said(m.group(1))
        return gold if n is not None and _SECONDS[m.group(2).lower()] == small and n * small == total else m.group(0)

    return re.sub(rf"(?<![\d.:]\s)\b({_SAID_NUMBER})\s*({_DURATION_UNIT})\b(?!\s+(?:and\s+)?\d)", whole, text,
                  flags=re.I)
