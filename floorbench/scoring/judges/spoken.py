"""Spoken shapes of a value that the quantity reader would otherwise read as several values.

People say one value in pieces: a phone number digit by digit with "oh" for zero and "double
five" / "triple five" for a repeated digit, in groups split by commas ("oh four one two, double
five seven"); a unit spelled as its letters by a recogniser ("five m l"); a sum of two numbers
("a dozen plus two"); a rate and how often it is given ("half a cup three times a day" is a cup
and a half a day). These rules rewrite the tokens of `quantities.lex` (digit strings) or add a
reading to the mentions it finds (sums, rates), by the shape of what is said, never by the
sentence: they hold for any digits, units, numbers and counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from floorbench.scoring.judges.values import DIGIT_WORDS, REPEAT

if TYPE_CHECKING:
    from floorbench.scoring.judges.quantities import Mention

DIGITS = DIGIT_WORDS | {"o": "0"}
"""a single digit as said"""
REPEATS = REPEAT
MIN_DIGIT_STRING = 4
"""a string of single digits this long (after "double"/"triple") is one number said digit by digit
(a phone number, a PIN, a reference); shorter runs stay the numbers they are ("two two")"""


def _digit_group(tokens: list[str], i: int) -> tuple[str, int]:
    """The digits said one by one from i ("oh four one two", "double five seven"), and the end."""
    out, j = "", i
    while j < len(tokens):
        t = tokens[j]
        if t in REPEATS and j + 1 < len(tokens) and tokens[j + 1] in DIGITS:
            out += DIGITS[tokens[j + 1]] * REPEATS[t]
            j += 2
        elif t in DIGITS and (t not in ("oh", "o") or out or (j + 1 < len(tokens) and (
                tokens[j + 1] in DIGITS or tokens[j + 1] in REPEATS))):
            out += DIGITS[t]
            j += 1
        elif len(t) == 1 and t.isdigit():
            out += t
            j += 1
        else:
            break
    return out, j


def digit_strings(tokens: list[str]) -> list[str]:
    """Join a number said digit by digit (groups may be split by commas) into one digit token;
    "oh" counts as zero only beside another digit, "double x" / "triple x" repeat x."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        digits, j = _digit_group(tokens, i)
        said_ones = j > i and (len(digits) >= 2 or tokens[i] in REPEATS)
        if not said_ones:
            out.append(tokens[i])
            i += 1
            continue
        groups, end = [digits], j
        while end + 1 < len(tokens) and tokens[end] == ",":
            more, k = _digit_group(tokens, end + 1)
            if len(more) < 2:
                break
            groups.append(more)
            end = k
        joined = "".join(groups)
        has_repeat = any(t in REPEATS for t in tokens[i:end])
        if len(joined) >= MIN_DIGIT_STRING and (len(groups) > 1 or has_repeat or len(joined) >= 5
                                                 or any(t in ("oh", "o", "nought") for t in tokens[i:end])):
            out.append(joined)
            i = end
            continue
        out.append(tokens[i])
        i += 1
    return out


def unit_letters(tokens: list[str], units: dict[str, str]) -> list[str]:
    """A unit a recogniser wrote as its letters after a number ("five m l", "two k g"): one token."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        pair = "".join(tokens[i : i + 2])
        if (len(tokens[i]) == 1 and i + 1 < len(tokens) and len(tokens[i + 1]) == 1 and pair.isalpha()
                and pair in units and out and (out[-1].replace(".", "").isdigit() or out[-1] in DIGITS
                                               or out[-1].endswith(("ty", "teen")) or out[-1] in ("ten", "eleven",
                                                                                                   "twelve"))):
            out.append(pair)
            i += 2
            continue
        out.append(tokens[i])
        i += 1
    return out


def sums(tokens: list[str], found: list[Mention]) -> list[Mention]:
    """"a dozen plus two", "ten and another five", "two dozen minus two": two bare numbers joined by
    "plus" ("minus") are their sum (difference)."""
    out: list[Mention] = []
    for m in found:
        prev = out[-1] if out else None
        between = tokens[prev.end : m.start] if prev is not None else []
        sign = -1 if between == ["minus"] else 1
        if (prev is not None and between in (["plus"], ["and", "another"], ["plus", "another"], ["minus"])
                and len(prev.numbers) == 1 and len(m.numbers) == 1 and prev.duration is None
                and m.duration is None and prev.date is None and m.date is None
                and (m.unit is None or prev.unit is None or m.unit == prev.unit)):
            total = next(iter(prev.numbers)) + sign * next(iter(m.numbers))
            prev.numbers = {total}
            prev.end, prev.digits, prev.clock, prev.unit = m.end, "", set(), prev.unit or m.unit
            continue
        out.append(m)
    return out


TIMES = {"once": 1, "twice": 2, "thrice": 3}
PERIODS = frozenset("day daily week weekly month monthly year meal meals night morning".split())


def rates(tokens: list[str], found: list[Mention]) -> list[Mention]:
    """"half a cup three times a day", "two tablets twice daily": an amount given N times a period is
    N times the amount over that period (an added reading of the amount)."""
    out: list[Mention] = []
    for m in found:
        prev = out[-1] if out else None
        if prev is not None and len(prev.numbers) == 1 and len(m.numbers) == 1 and prev.end <= m.start <= prev.end + 1 \
                and tokens[m.end : m.end + 1] == ["times"] and set(tokens[m.end + 1 : m.end + 3]) & PERIODS:
            prev.numbers = prev.numbers | {next(iter(prev.numbers)) * next(iter(m.numbers))}
            prev.end = m.end + 1
            continue
        if m.start < len(tokens) and len(m.numbers) == 1:
            k = m.end + (m.end + 1 < len(tokens) and tokens[m.end].isalpha() and tokens[m.end + 1] in TIMES)
            if k < len(tokens) and tokens[k] in TIMES and set(tokens[k + 1 : k + 3]) & PERIODS:  # "two tablets twice"
                m.numbers = m.numbers | {next(iter(m.numbers)) * TIMES[tokens[k]]}
        out.append(m)
    return out
