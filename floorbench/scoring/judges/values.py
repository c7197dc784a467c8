"""Typed values for the answer rules: units with conversion, dates, spelled letters, split words.

A grader compares what was said with the gold as values, not as words: "ninety
centimetres" is 0.9 m, "the sixteenth of June" is June 16 (and "June sixth" is
not), "P as in Peter, four, X" spells P4X, "Oka Moto" is Okamoto. This module
reads those forms; `quantities` and `answer_rules` use them.

- **Units**: lengths, masses and volumes are converted with `pint` (a unit said
  in another unit of the same dimension is the same value within the
  tolerance `quantities` allows); currencies never convert.
- **Dates**: a month name with a day said as a number or an ordinal in any
  order ("June 16", "16 June", "the sixteenth of June", "June the
  sixteenth"); ordinals are read from `num2words`' own spelling of 1–31.
  (`dateparser` reads "June 16" but not spoken ordinals: "the sixteenth of June"
  and "June sixth" both come back None from it, so it is not used.)
- **Spelled letters**: NATO words ("bravo", "x-ray") and "P as in Peter" (or
  "P for Peter", "P like Peter", where the word starts with the letter) are
  letters; "double" repeats the next one. Only where the reply spells (two or
  more letters or digits said one by one), so "echo" in a sentence stays a word.
- **Split and joined words**: two reply words that together are one gold word
  ("Oka Moto", "Sunny Side") are read as it.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

PHYSICAL = {
    **dict.fromkeys(("centimetre", "centimetres", "centimeter", "centimeters", "cm", "cms"), "centimeter"),
    **dict.fromkeys(("millimetre", "millimetres", "millimeter", "millimeters", "mm"), "millimeter"),
    **dict.fromkeys(("inch", "inches"), "inch"),
    **dict.fromkeys(("foot", "feet", "ft"), "foot"),
    **dict.fromkeys(("yard", "yards", "yd", "yds"), "yard"),
    **dict.fromkeys(("gram", "grams", "gramme", "grammes", "g"), "gram"),
    **dict.fromkeys(("kilogram", "kilograms", "kilogramme", "kilogrammes", "kg", "kgs"), "kilogram"),
    **dict.fromkeys(("ounce", "ounces", "oz"), "ounce"),
    **dict.fromkeys(("litre", "litres", "liter", "liters"), "liter"),
    **dict.fromkeys(("millilitre", "millilitres", "milliliter", "milliliters", "ml"), "milliliter"),
    **dict.fromkeys(("centilitre", "centilitres", "cl"), "centiliter"),
    **dict.fromkeys(("gallon", "gallons"), "gallon"),
    **dict.fromkeys(("tonne", "tonnes"), "metric_ton"),
    **dict.fromkeys(("cup", "cups"), "cup"),
    **dict.fromkeys(("tablespoon", "tablespoons", "tbsp"), "tablespoon"),
    **dict.fromkeys(("teaspoon", "teaspoons", "tsp"), "teaspoon"),
}
"""spoken unit words → pint units (lengths beyond km/m/miles, masses, volumes)"""
PINT_OF = {"km": "kilometer", "m": "meter", "mile": "mile"}
"""the units `quantities` already names, as pint names them"""


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


@lru_cache(maxsize=256)
def factor(unit_from: str, unit_to: str) -> float | None:
    """How many `unit_to` one `unit_from` is, or None when they measure different things."""
    a, b = PINT_OF.get(unit_from, unit_from), PINT_OF.get(unit_to, unit_to)
    if a == b:
        return 1.0
    reg = _registry()
    try:
        return float(reg.Quantity(1.0, a).to(b).magnitude)
    except Exception:  # pint's DimensionalityError / UndefinedUnitError: not the same kind of thing
        return None


def convertible(unit: str | None) -> bool:
    return unit is not None and (unit in PINT_OF or unit in PHYSICAL.values())


MONTHS = {m: n for n, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
MONTHS["sept"] = 9
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


@lru_cache(maxsize=1)
def ordinal_words() -> dict[tuple[str, ...], int]:
    """The ordinals 1–31 as `num2words` spells them, split as the tokens are ("twenty-first" →
    ("twenty", "first"))."""
    from num2words import num2words

    out: dict[tuple[str, ...], int] = {}
    for n in range(1, 32):
        words = tuple(re.sub(r"[^a-z]+", " ", str(num2words(n, to="ordinal")).lower()).split())
        out[words] = n
    return out


@lru_cache(maxsize=1)
def cardinal_words() -> dict[tuple[str, ...], int]:
    from num2words import num2words

    return {tuple(re.sub(r"[^a-z]+", " ", str(num2words(n)).lower()).split()): n for n in range(1, 32)}


def read_day(tokens: Sequence[str], i: int) -> tuple[int, int] | None:
    """(day 1–31, end) of a day said at i: "16", "sixteenth", "twenty first", "twenty-one"."""
    if i >= len(tokens):
        return None
    if re.fullmatch(r"\d{1,2}", tokens[i]) and 1 <= int(tokens[i]) <= 31:
        return int(tokens[i]), i + 1
    for table in (ordinal_words(), cardinal_words()):
        for n in (2, 1):
            words = tuple(tokens[i : i + n])
            if len(words) == n and words in table:
                return table[words], i + n
    return None


def date_at(tokens: Sequence[str], i: int) -> tuple[int, int, int] | None:
    """(month, day, end) of a date said at i: "june 16", "june the 16", "16 june", "the 16 of june"."""
    k = i + 1 if i < len(tokens) and tokens[i] == "the" else i
    month = MONTHS.get(tokens[k]) if k < len(tokens) else None
    if month is not None and k == i:
        j = k + 1 + (k + 1 < len(tokens) and tokens[k + 1] == "the")
        day = read_day(tokens, j)
        if day is None or (tokens[k] == "may" and tuple(tokens[j : day[1]]) in cardinal_words()):
            return None  # "may one ask" is no date; "may first", "may 1" are
        return month, day[0], day[1]
    day = read_day(tokens, k)
    if day is None:
        return None
    j = day[1] + (day[1] < len(tokens) and tokens[day[1]] == "of")
    month = MONTHS.get(tokens[j]) if j < len(tokens) else None
    if month is None:
        return None
    return month, day[0], j + 1


NATO = {
    "alpha": "a", "alfa": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e", "foxtrot": "f",
    "golf": "g", "hotel": "h", "india": "i", "juliet": "j", "juliett": "j", "kilo": "k", "lima": "l",
    "mike": "m", "november": "n", "oscar": "o", "papa": "p", "quebec": "q", "romeo": "r", "sierra": "s",
    "tango": "t", "uniform": "u", "victor": "v", "whiskey": "w", "whisky": "w", "xray": "x", "yankee": "y",
    "zulu": "z",
}
"""the ICAO spelling alphabet (a standard, not a list grown from examples)"""
LETTER_NAMES = {
    "aitch": "h", "bee": "b", "cee": "c", "dee": "d", "ee": "e", "eff": "f", "gee": "g", "jay": "j", "kay": "k",
    "el": "l", "ell": "l", "em": "m", "en": "n", "pee": "p", "cue": "q", "ar": "r", "ess": "s", "tee": "t",
    "vee": "v", "ex": "x", "zed": "z", "zee": "z",
}
"""the English names of the letters as a recogniser writes them ("kay ex seven"), leaving out the
ones that are common words ("you", "why", "see", "are", "oh")"""
NATO = NATO | LETTER_NAMES
REPEAT = {"double": 2, "triple": 3}
DIGIT_WORDS = {w: str(n) for n, w in enumerate("zero one two three four five six seven eight nine".split())} | {
    "oh": "0", "nought": "0"}
"""digits said as words, for "double seven" = 77"""


CONTRACTED = frozenset("it that there here what who where how he she let i you we they".split())


def spelled_tokens(tokens: Sequence[str]) -> list[str]:
    """The tokens with a spelling read as letters, where the reply spells: "x ray" → "x",
    "bravo" → "b", "p as in peter" → "p", "double o" → "o o". A reply spells when at least two of
    its tokens are single letters, digits or spelling-alphabet words; otherwise it is returned as is."""
    toks = [t for k, t in enumerate(tokens) if not (t == "." and 0 < k < len(tokens) - 1
                                                     and len(tokens[k - 1]) == 1 and tokens[k - 1].isalpha())]
    """a full stop after a single letter ("P. as in Peter", "O. K.") is the recogniser's, not a sentence's"""
    toks = [p for k, t in enumerate(toks) for p in (
        list(t) if t in ("am", "pm") and 0 < k and len(toks[k - 1]) == 1 and toks[k - 1].isalpha() else [t])]
    """"A. M." between spelled letters is two letters, not a time of day"""
    toks = [t for k, t in enumerate(toks) if not (t in ("s", "d", "ll") and k > 0 and toks[k - 1] in CONTRACTED)]
    """"it's K" is "it is K": the s of a contraction is no spelled letter"""
    merged: list[str] = []
    i = 0
    while i < len(toks):
        if toks[i] == "x" and toks[i + 1 : i + 2] == ["ray"]:
            merged.append("xray")
            i += 2
            continue
        if toks[i] == "double" and toks[i + 1 : i + 2] in (["you"], ["u"]):
            merged.append("w")  # the letter's name is two words
            i += 2
            continue
        merged.append(toks[i])
        i += 1
    letterish = sum(len(t) == 1 or t in NATO or t.isdigit() for t in merged)
    if letterish < 2:
        return list(tokens)
    out: list[str] = []
    i = 0
    while i < len(merged):
        t = merged[i]
        if len(t) == 1 and merged[i + 1 : i + 3] == ["as", "in"] and i + 3 < len(merged):
            out.append(t)
            i += 4  # "p as in peter"
            continue
        if len(t) == 1 and merged[i + 1 : i + 2] in (["for"], ["like"]) and merged[i + 2 : i + 3] \
                and merged[i + 2][0] == t:
            out.append(t)
            i += 3  # "p for peter", "p like peter": the word starts with the letter
            continue
        if t in REPEAT and i + 1 < len(merged) and (len(merged[i + 1]) == 1 or merged[i + 1] in NATO
                                                  or merged[i + 1] in DIGIT_WORDS):
            letter = NATO.get(merged[i + 1], DIGIT_WORDS.get(merged[i + 1], merged[i + 1]))
            out.extend([letter] * REPEAT[t])
            i += 2
            continue
        out.append(NATO.get(t, t))
        i += 1
    return out


def spelled_word(tokens: Sequence[str]) -> str | None:
    """The word a reply spells letter by letter ("n g u y e n" → "nguyen"), when it spells one of
    at least three letters; None otherwise."""
    run: list[str] = []
    best: list[str] = []
    for t in [*spelled_tokens(tokens), "end"]:
        if len(t) == 1 and t.isalpha():
            run.append(t)
        elif t not in (",", "."):  # "O. K. A." is a spelling too
            best = max(best, run, key=len)
            run = []
    return "".join(best) if len(best) >= 3 else None


_CODE_PIECE = re.compile(r"[A-Za-z]*\d[A-Za-z\d]*|[A-Z]+")


def gold_code(gold: str) -> str | None:
    """The code a gold names, written together ("DL4 2TF" → "dl42tf", "R7KQ" → "r7kq"), when every
    piece of it is code-like and it has both a letter and a digit; None otherwise."""
    pieces = re.split(r"[\s-]+", gold.strip())
    if not pieces or not all(_CODE_PIECE.fullmatch(p) for p in pieces):
        return None
    joined = "".join(pieces).lower()
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", joined):
        return None  # "12th" is a place in a ranking, a number, not a code
    if re.search(r"[a-z]", joined) and re.search(r"\d", joined):
        return joined
    return None


def join_split_words(transcript: str, gold_words: Sequence[str]) -> str:
    """The transcript with two neighbouring words joined where together they are a gold word the
    reply does not say whole ("Oka Moto" → "OkaMoto" for Okamoto), exact or at the fuzzy ratio
    `FUZZY` for words of 6+ letters."""
    words = [g for g in gold_words if len(g) >= 5]
    if not words:
        return transcript
    spans = list(re.finditer(r"[A-Za-z]+", transcript))
    said = {m.group(0).lower() for m in spans}
    out = transcript
    for a, b in reversed(list(itertools.pairwise(spans))):
        if transcript[a.end() : b.start()].strip(" -"):
            continue
        joined = (a.group(0) + b.group(0)).lower()
        for g in words:
            if g in said:
                continue
            if joined == g or (len(g) >= 6 and difflib.SequenceMatcher(None, joined, g).ratio() >= FUZZY):
                out = out[: a.start()] + a.group(0) + b.group(0).lower() + out[b.end() :]
                break
    return out


FUZZY = 0.9
