"""Quantities in a spoken reply: numbers both ways, times of day, durations, money and distances.

People (and tiny.en) say the same quantity many ways: "a hundred and thirty
euros", "one thirty", "€130"; "half six", "6.30 p.m.", "18:30"; "180 minutes",
"three hours"; "nine thousand metres", "9 km". `mentions(tokens)` reads every
quantity of a reply as a `Mention` carrying all its readings (a run of numbers
said together, "one thirty", is 1, 30, 130 *and* the time 1:30), and
`quantity_match.same_quantity` decides whether a mention says the gold's quantity, with
units: another currency or another distance is another answer, a converted
one (metres for kilometres) is the same. Tokens come from `lex`, which keeps
sentence punctuation as tokens so the commitment rules can see clause edges.
Limits: English only; no dates, fractions other than halves, or spelled-out
decimals ("seven point five").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from floorbench.scoring.judges.spoken import digit_strings, rates, sums, unit_letters
from floorbench.scoring.judges.values import PHYSICAL, date_at

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
        "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "twentieth": 20, "thirtieth": 30,
}
OTHER_CURRENCIES = {
    "zar": ("rand", "rands", "zar"), "ngn": ("naira", "ngn"), "inr": ("rupee", "rupees", "inr"),
    "jpy": ("yen", "jpy"), "chf": ("franc", "francs", "chf"), "kr": ("krona", "kronor", "krone", "kroner", "sek",
    "nok", "dkk"), "mxn": ("peso", "pesos", "mxn"), "aed": ("dirham", "dirhams", "aed"), "kes": ("shilling",
    "shillings", "kes"), "ghs": ("cedi", "cedis"), "cny": ("yuan", "rmb", "renminbi"), "brl": ("reais",),
    "pln": ("zloty", "zlotys", "zlotych"), "try": ("lira", "liras"),
}
"""currencies beyond the dollar, euro and pound, by their names and codes: another currency is another
answer, and an amount in one is money (its cents, its rounding)"""
UNIT_OF = {
    **dict.fromkeys(("dollar", "dollars", "buck", "bucks", "usd"), "usd"),
    **dict.fromkeys(("euro", "euros", "eur"), "eur"),
    **dict.fromkeys(("pound", "pounds", "quid", "gbp"), "gbp"),
    **dict.fromkeys(("cent", "cents", "pence"), "cent"),
    **{w: code for code, words in OTHER_CURRENCIES.items() for w in words},
    **dict.fromkeys(("mile", "miles", "mi"), "mile"),
    **dict.fromkeys(("kilometre", "kilometres", "kilometer", "kilometers", "km", "kms", "kilo", "kilos"), "km"),
    **dict.fromkeys(("metre", "metres", "meter", "meters", "m"), "m"),
}
UNIT_OF |= {w: u for w, u in PHYSICAL.items() if w not in UNIT_OF}
HOUR_WORDS = frozenset(("hour", "hours", "hr", "hrs"))
MINUTE_WORDS = frozenset(("minute", "minutes", "min", "mins"))
SECOND_WORDS = frozenset(("second", "seconds", "sec", "secs"))
"""seconds: a duration in minutes and seconds ("four minutes twenty seconds", "260 seconds") is one
value, counted in minutes like every duration here"""
SKIP_BEFORE_UNIT = frozenset(("more", "extra", "further", "whole", "other"))
PUNCT = frozenset((",", "."))
_SYMBOL = {"$": "dollars", "€": "euros", "£": "pounds", "₦": "naira", "₹": "rupees", "¥": "yen", "rs": "rupees",
           "r": "rand"}
_MONEY_PREFIX = re.compile(r"([$€£₦₹¥]|\brs\.?|\br(?=\d+[.,]\d{2}\b))\s?(\d[\d,]*(?:[.,]\d+)?)")
"""a currency written before its amount: the symbols, "Rs" for rupees, and "R" for rand when cents follow
("R79,90", "R79.90"; a bare "R79" may be a road or a code)"""


def _amount(said: str) -> str:
    """'79,90' → '79.90' (a comma before two final digits is a decimal comma); '1,250' is left whole."""
    return re.sub(r",(\d{2})$", r".\1", said)


def lex(text: str) -> list[str]:
    """Lower-case tokens; numbers as digits where written so; ',' and '.' kept as clause marks."""
    t = text.lower().replace("’", "'").replace("‘", "'").replace("&", " and ")
    t = "".join(c for c in unicodedata.normalize("NFKD", t) if not unicodedata.combining(c))  # café = cafe
    t = re.sub(r"(?<=\d),(?=(?:\d{2},)+\d{3}\b)", "", t)  # grouped in lakhs: "1,25,000"
    t = re.sub(r"(?<![a-z])(?:[a-z]{1,3})\$(?=\s?\d)", "$", t)  # "J$650", "NZ$40": a country's dollar
    t = _MONEY_PREFIX.sub(lambda m: f"{_amount(m.group(2))} {_SYMBOL[m.group(1).rstrip('.')]}", t)
    t = re.sub(r"(\d),(\d{3})", r"\1\2", t)
    t = re.sub(r"(\d+)\.00\b", r"\1", t)
    t = re.sub(r"\b([ap])\.\s?m\b\.?", r" \1m ", t)
    t = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", t)
    t = re.sub(r"(\d)p\b", r"\1 pence", t)  # "99p"
    t = re.sub(r"(\d)([a-z])", r"\1 \2", t)
    t = re.sub(r"([a-z])(\d)", r"\1 \2", t)
    t = re.sub(r"(\w)'(s|d|ll|re|ve|m)\b", r"\1 \2", t).replace("o'clock", "oclock").replace("'", "")
    t = re.sub(r"(\d)\.(\d)", r"\1<dot>\2", t)
    t = re.sub(r"[?!;]", " . ", t)
    t = re.sub(r"(?<!\d):|:(?!\d)", " , ", t)
    t = t.replace(".", " . ").replace(",", " , ").replace("<dot>", ".")
    t = re.sub(r"[^a-z0-9.,:\s]", " ", t)
    t = _JOINED_NUMBER.sub(r"\1 \2", t)
    for said, value in _SET_PHRASES:
        t = said.sub(value, t)
    return unit_letters(digit_strings(t.split()), UNIT_OF)


_SET_PHRASES = [(re.compile(rf"\b{a}\b"), b) for a, b in (
    ("half a dozen", "six"), ("a couple of dozen", "twenty four"), ("a dozen and a half", "eighteen"),
    ("a dozen", "twelve"),
    ("(?:a )?couple of", "two"),
    ("a fortnight", "fourteen days"), ("(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred) grand",
     "\\1 thousand"), ("a grand", "one thousand"),
    ("a score of", "twenty"), ("a tenner", "ten"), ("a fiver", "five"),
)]
"""set phrases for a number ("half a dozen", "a fortnight", "ten grand"): said as the number they mean"""


_JOINED_NUMBER = re.compile(r"\b(twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety|one|two|three|four|five"
                            r"|six|seven|eight|nine)(one|two|three|four|five|six|seven|eight|nine|hundred|thousand)\b")
"""number words the recogniser wrote together ("twentyfour", "fivehundred"): said apart"""


def _cardinal(tokens: list[str], i: int) -> tuple[float, int] | None:
    """(value, end) of a grammatical English number at i ("a hundred and thirty", "twenty-five", "42")."""
    w = tokens[i]
    if re.fullmatch(r"\d+(\.\d+)?", w):
        return float(w), i + 1
    if w in ORDINALS:
        return float(ORDINALS[w]), i + 1
    total, current, j, last = 0, 0, i, None
    if w in ("nought", "point") and tokens[i + 1 : i + 2] != [] and (w == "point" or tokens[i + 1] == "point"):
        got = _point(tokens, i + (w == "nought"), 0.0)  # "nought point nine", "point five"
        if got[1] > i + 1:
            return got
    if w == "a" and tokens[i + 1 : i + 2] == ["dozen"]:
        return 12.0, i + 2
    if w == "half" and tokens[i + 1 : i + 3] == ["a", "dozen"]:
        return 6.0, i + 3
    if w in ("a", "an") and i + 1 < len(tokens) and tokens[i + 1] in SCALES:
        current, j, last = 1, i + 1, "unit"
    elif w == "hundred" and (i == 0 or not (tokens[i - 1] in UNITS or tokens[i - 1] in TENS or tokens[i - 1].isdigit())):
        current, j, last = 1, i, "unit"  # "hundred and twenty": the "a" left out
    while j < len(tokens):
        w = tokens[j]
        if w in ("and", ",") and last == "scale" and j + 1 < len(tokens) and (
                tokens[j + 1] in UNITS or tokens[j + 1] in TENS):
            j += 1  # "a hundred and thirty", "one thousand, one hundred"
            continue
        if w in UNITS and (last in (None, "scale") or (last == "tens" and UNITS[w] < 10)):
            current += UNITS[w]
            last = "teen" if UNITS[w] >= 10 else "unit"
        elif w in TENS and last in (None, "scale"):
            current += TENS[w]
            last = "tens"
        elif w in SCALES and last in ("unit", "teen", "tens") and (w == "hundred" or current):
            if w == "hundred":
                current *= 100
            else:
                total, current = total + current * SCALES[w], 0
            last = "scale"
        else:
            break
        j += 1
    if j == i or last is None:
        return None
    return _point(tokens, j, float(total + current))


DIGIT_NAMES = {w: n for n, w in enumerate("zero one two three four five six seven eight nine".split())} | {
    "oh": 0, "nought": 0, "o": 0}


def _point(tokens: list[str], j: int, value: float) -> tuple[float, int]:
    """"nought point nine", "two point five": the digits said after "point" are decimals."""
    if tokens[j : j + 1] != ["point"]:
        return value, j
    k, digits = j + 1, ""
    while k < len(tokens) and tokens[k] in DIGIT_NAMES:
        digits += str(DIGIT_NAMES[tokens[k]])
        k += 1
    return (float(f"{int(value)}.{digits}"), k) if digits else (value, j)


@dataclass
class Mention:
    """One quantity said in a reply, with every reading it can have."""

    start: int
    end: int
    numbers: set[float] = field(default_factory=set)
    clock: set[int] = field(default_factory=set)
    """times of day it can be, in minutes on a 12-hour clock (0..719)"""
    half: str | None = None
    """'am' or 'pm' when said ("in the evening", "p.m.") or implied (18:30)"""
    duration: float | None = None
    """minutes, when said with hours/minutes"""
    unit: str | None = None
    digits: str = ""
    """the numbers said one after another, as written together ("four oh seven one" -> "4071")"""
    approx: bool = False
    """said with "about", "around", "roughly" …: a converted unit may be rounded more"""
    money: set[float] = field(default_factory=set)
    """amounts it can be when read as money: "forty-four ninety-nine" = 44.99, "three twenty" = 3.20,
    "four pounds sixty" = 4.60"""
    date: tuple[int, int] | None = None
    """(month, day) when a date is said"""
    unit_word: str = ""
    """the unit as said ("kilo" is a kilometre or a kilogram, by what the gold measures)"""


def _clock_text(s: str, m: Mention) -> None:
    """Clock readings of a digit string: "7:35", "7.35", "735", "0735"."""
    hm = re.fullmatch(r"(\d{1,2})[:.](\d{2})", s) or re.fullmatch(r"(\d{1,2})(\d{2})", s)
    if hm:
        h, mi = int(hm.group(1)), int(hm.group(2))
        if h <= 23 and mi < 60:
            m.clock.add((h % 12) * 60 + mi)
            if ":" in s and (h >= 13 or s.startswith("0")):
                m.half = "pm" if h >= 12 else "am"


def _run(tokens: list[str], i: int) -> tuple[list[float], list[str], int] | None:
    """Adjacent numbers from i ("one thirty", "four oh seven one"): values, their texts, end."""
    values, texts, j = [], [], i
    while j < len(tokens):
        if tokens[j] in ("oh", "o") and values and j + 1 < len(tokens) and tokens[j + 1] in UNITS:
            values.append(0.0)
            texts.append("0")
            j += 1
            continue
        if re.fullmatch(r"\d{1,2}:\d{2}", tokens[j]):
            if values:
                break
            return [], [tokens[j]], j + 1
        got = _cardinal(tokens, j)
        if got is None:
            break
        if got[1] < len(tokens) and tokens[got[1]] == "dozen":  # "two dozen"
            got = (got[0] * 12, got[1] + 1)
        values.append(got[0])
        texts.append(tokens[j] if re.fullmatch(r"\d+(\.\d+)?", tokens[j]) else str(int(got[0])))
        j = got[1]
    return (values, texts, j) if j > i else None


def _number_mention(tokens: list[str], i: int) -> Mention | None:
    run = _run(tokens, i)
    if run is None:
        return None
    values, texts, j = run
    m = Mention(i, j, numbers=set(values))
    joined = "".join(texts)
    m.digits = joined.replace(":", "").replace(".", "")
    if len(texts) > 1 and all(re.fullmatch(r"\d+", t) for t in texts):
        m.numbers.add(float(joined))
    if len(values) >= 2 and values[-1] == int(values[-1]) and 10 <= values[-1] < 100 \
            and all(re.fullmatch(r"\d+", t) for t in texts):
        m.money.add(round(float("".join(texts[:-1])) + values[-1] / 100, 2))  # "one twenty-nine ninety-five"
    if len(texts) == 1:
        _clock_text(texts[0], m)
        if len(values) == 1 and values[0] == int(values[0]) and 1 <= values[0] <= 12:
            m.clock.add(int(values[0]) % 12 * 60)
    elif len(values) == 2 and values[0] <= 23 and values[1] < 60 and (values[1] >= 10 or texts[1] == "0"):
        m.clock.add(int(values[0]) % 12 * 60 + int(values[1]))
    elif len(texts) == 3 and texts[1] == "0":
        _clock_text(joined, m)
    _units(tokens, m)
    return m


FRACTIONS: dict[tuple[str, ...], float] = {("and", "a", "quarter"): 0.25, ("and", "three", "quarter"): 0.75, ("and", "three", "quarters"): 0.75}
"""'two and a quarter hours', 'two and three quarter hours'"""
APPROXIMATORS = frozenset(("about", "around", "roughly", "approximately", "some", "circa", "approx"))
CONVERTED_TOLERANCE = 0.01
APPROX_CONVERTED_TOLERANCE = 0.04
"""a quantity given in another unit of the same kind must convert to the gold within 1 %, or 4 %
when said as approximate ("about 22 kilometres" for 14 miles, which is 22.5)"""


def _units(tokens: list[str], m: Mention) -> None:
    """Extend a number mention over what follows it: a half, a unit, hours and minutes, am/pm."""
    j = m.end
    value = max(m.numbers) if len(m.numbers) == 1 else None
    if value is not None and tokens[j : j + 3] == ["and", "a", "half"]:
        value, j = value + 0.5, j + 3
        m.numbers = {value}
    elif value is not None and tuple(tokens[j : j + 3]) in FRACTIONS:
        value, j = value + FRACTIONS[tuple(tokens[j : j + 3])], j + 3
        m.numbers = {value}
    k = j + 1 if j < len(tokens) and tokens[j] in SKIP_BEFORE_UNIT else j
    word = tokens[k] if k < len(tokens) else ""
    if word in UNIT_OF:
        m.unit, m.unit_word, j = UNIT_OF[word], word, k + 1
        if value is not None and tokens[j : j + 3] == ["and", "a", "half"] and UNIT_OF[word] not in CURRENCIES:
            m.numbers, j = {value + 0.5}, j + 3  # "two cups and a half"
        if m.unit in CURRENCIES and value is not None:
            j = _cents(tokens, j, m, value)
    elif word in HOUR_WORDS and value is not None and (at := _hours_as_clock(tokens, m, value)) is not None:
        m.clock, m.half, j = {at % 720}, ("pm" if at >= 720 else m.half), k + 1  # "at ten hours", "at 1800 hours"
        value = None
    elif word in HOUR_WORDS and value is not None:
        m.duration, j = value * 60, k + 1
        j = _more_minutes(tokens, j, m)
    elif word in MINUTE_WORDS and value is not None:
        m.duration, j = value, k + 1
        j = _more_seconds(tokens, j, m)
    elif word in SECOND_WORDS and value is not None:
        m.duration, j = value / 60, k + 1
    if m.duration is not None:
        m.clock.clear()
    j = _half_day(tokens, j, m)
    m.end = j


CURRENCIES = frozenset(("usd", "eur", "gbp", *OTHER_CURRENCIES))


def _cents(tokens: list[str], j: int, m: Mention, value: float) -> int:
    """"four pounds sixty", "twelve euros and forty cents": the amount with its cents."""
    k = j + 1 if tokens[j : j + 1] == ["and"] else j
    got = _cardinal(tokens, k) if k < len(tokens) else None
    if got is None or not 0 < got[0] < 100 or got[0] != int(got[0]):
        return j
    end = got[1] + (got[1] < len(tokens) and tokens[got[1]] in ("cents", "cent", "pence", "p"))
    if end == got[1] and got[1] < len(tokens) and tokens[got[1]] in UNIT_OF:
        return j  # "ten euros twenty dollars": two amounts
    m.numbers = {round(value + got[0] / 100, 2)}
    m.money = set(m.numbers)
    return end


ROUGHLY = frozenset(("under", "over", "nearly", "almost", "about", "around", "roughly", "just"))
"""before a whole number of hours, the minutes after a comma restate it ("just under an hour, fifty
minutes") rather than add to it"""


def _more_minutes(tokens: list[str], j: int, m: Mention) -> int:
    """"... hours and a half", "... hours (and) 40 (minutes)"."""
    assert m.duration is not None
    k = j + 1 if j < len(tokens) and tokens[j] == "and" else j
    said_roughly = tokens[m.start] in ("a", "an") or set(tokens[max(0, m.start - 2) : m.start]) & ROUGHLY
    if j < len(tokens) and tokens[j] == "," and not said_roughly:  # "two hours, thirty-five minutes"
        got = _cardinal(tokens, j + 1) if j + 1 < len(tokens) else None
        if got is None or got[0] >= 60 or got[1] >= len(tokens) or tokens[got[1]] not in MINUTE_WORDS:
            return j
        k = j + 1
    if tokens[k : k + 2] == ["a", "half"]:
        m.duration += 30
        return k + 2
    if tokens[k : k + 2] == ["a", "quarter"] and k > j:  # "an hour and a quarter"
        m.duration += 15
        return k + 2
    got = _cardinal(tokens, k) if k < len(tokens) else None
    if got is not None and got[0] < 60:
        m.duration += got[0]
        end = got[1]
        return end + 1 if end < len(tokens) and tokens[end] in MINUTE_WORDS else end
    return j


def _hours_as_clock(tokens: list[str], m: Mention, value: float) -> int | None:
    """Minutes since midnight when "at N hours" names a time of day, not a duration: the hour after
    "at" (the clock of many languages, "at ten hours" for 10:00, and the military "at eighteen
    hundred hours"); None otherwise."""
    if value != int(value):
        return None
    v = int(value)
    if 100 <= v <= 2359 and v % 100 < 60 and tokens[m.end - 1 : m.end] == ["hundred"]:
        return v // 100 * 60 + v % 100  # "eleven hundred hours", with or without "at"
    if m.start == 0 or tokens[m.start - 1] != "at":
        return None
    if 0 <= v <= 24:
        return v % 24 * 60
    if 100 <= v <= 2359 and v % 100 < 60:
        return v // 100 * 60 + v % 100
    return None


def _more_seconds(tokens: list[str], j: int, m: Mention) -> int:
    """"... minutes (and) 20 seconds": the seconds said after the minutes, with their unit."""
    assert m.duration is not None
    k = j + 1 if j < len(tokens) and tokens[j] == "and" else j
    got = _cardinal(tokens, k) if k < len(tokens) else None
    if got is not None and got[0] < 60 and got[1] < len(tokens) and tokens[got[1]] in SECOND_WORDS:
        m.duration += got[0] / 60
        return got[1] + 1
    return j


DAY_HALVES = {"morning": "am", "afternoon": "pm", "arvo": "pm", "evening": "pm"}
"""parts of the day said after a time ("in the arvo": the afternoon, as Australians say it)"""


def half_said_later(tokens: list[str], m: Mention) -> str | None:
    """The half of the day the reply gives after a time said without one ("half past seven. Oh, in the
    arvo actually."): it applies to that time."""
    for k in range(m.end, len(tokens)):
        if tokens[k : k + 2] == ["in", "the"] and tokens[k + 2 : k + 3] and tokens[k + 2] in DAY_HALVES:
            return DAY_HALVES[tokens[k + 2]]
        if tokens[k] in ("am", "pm") or tokens[k] == "tonight":
            return "pm" if tokens[k] == "tonight" else tokens[k]
        if mentions_start(tokens, k):
            return None  # another time: its half is its own
    return None


def mentions_start(tokens: list[str], k: int) -> bool:
    return bool(tokens[k][:1].isdigit() or tokens[k] in UNITS or tokens[k] in TENS)


def _half_day(tokens: list[str], j: int, m: Mention) -> int:
    if j < len(tokens) and tokens[j] == "oclock":
        j += 1
    if j < len(tokens) and tokens[j] in ("am", "pm"):
        m.half = tokens[j]
        return j + 1
    tail = tokens[j : j + 3]
    if tail[:2] == ["in", "the"] and len(tail) == 3 and tail[2] in DAY_HALVES:
        m.half = DAY_HALVES[tail[2]]
        return j + 3
    if tokens[j : j + 2] == ["at", "night"] or tokens[j : j + 1] == ["tonight"]:
        m.half = "pm"
    return j


def _spoken_clock(tokens: list[str], i: int) -> Mention | None:
    """"half past six", "quarter to eight", "twenty-five to eight", "ten past four", "half six"."""
    w = tokens[i]
    if w == "half" and i + 1 < len(tokens) and tokens[i + 1] in UNITS and not (
        i + 2 < len(tokens) and tokens[i + 2] in ("hours", "hour", "miles", "kilometres", "km")
    ):
        h = UNITS[tokens[i + 1]]
        m = Mention(i, i + 2, clock={h % 12 * 60 + 30})
        m.end = _half_day(tokens, m.end, m)
        return m
    minutes = {"half": 30, "quarter": 15}.get(w)
    j = i + 1
    if minutes is None:
        got = _cardinal(tokens, i)
        said_minutes = got is not None and got[1] < len(tokens) and tokens[got[1]] in MINUTE_WORDS
        if got is None or got[0] >= (60 if said_minutes else 30) or got[0] != int(got[0]):
            return None
        minutes, j = int(got[0]), got[1]
        if j < len(tokens) and tokens[j] in MINUTE_WORDS:
            j += 1
    before = j < len(tokens) and tokens[j] == "before" and ((j > i + 1 and tokens[j - 1] in MINUTE_WORDS) or w in (
        "half", "quarter"))  # "thirty minutes before six"
    if j + 1 >= len(tokens) or (tokens[j] not in ("past", "to", "after") and not before):
        return None
    hour = _cardinal(tokens, j + 1)
    if hour is None or not 1 <= hour[0] <= 12:
        return None
    h = int(hour[0])
    at = h % 12 * 60 + minutes if tokens[j] not in ("to", "before") else (h - 1) % 12 * 60 + 60 - minutes
    m = Mention(i, hour[1], clock={at % 720})
    m.end = _half_day(tokens, m.end, m)
    return m


QUARTERS = {("a", "quarter", "of", "an", "hour"): 15, ("quarter", "of", "an", "hour"): 15,
            ("three", "quarters", "of", "an", "hour"): 45, ("half", "an", "hour"): 30}
NAMED_TIMES = {"noon": (0, "pm"), "midday": (0, "pm"), "midnight": (0, "am")}
NOTES = {"fiver": 5.0, "tenner": 10.0}
"""colloquial banknotes ("a fiver each"): the amount in whatever currency the dialogue uses"""
"""named times of day: minutes on the 12-hour clock and the half of the day"""


def _an_hour(tokens: list[str], i: int) -> Mention | None:
    """"an hour", "half an hour", "three quarters of an hour", "an hour and a half", "an hour and
    20 minutes"; "noon", "midnight"; "half a mile", "a mile and a half", "a dollar"."""
    for words, minutes in QUARTERS.items():
        if tuple(tokens[i : i + len(words)]) == words:
            return Mention(i, i + len(words), duration=minutes)
    if tokens[i] in NOTES or (tokens[i] == "a" and tokens[i + 1 : i + 2] and tokens[i + 1] in NOTES):
        k = i + (tokens[i] == "a")
        return Mention(i, k + 1, numbers={NOTES[tokens[k]]})
    if tokens[i] in NAMED_TIMES:
        at, half = NAMED_TIMES[tokens[i]]
        return Mention(i, i + 1, clock={at}, half=half)
    if tokens[i : i + 2] == ["half", "a"] and i + 2 < len(tokens) and tokens[i + 2] in UNIT_OF:
        return Mention(i, i + 3, numbers={0.5}, unit=UNIT_OF[tokens[i + 2]], unit_word=tokens[i + 2])
    if tokens[i] in ("a", "an") and i + 1 < len(tokens) and tokens[i + 1] in UNIT_OF:
        half = tokens[i + 2 : i + 5] == ["and", "a", "half"]
        return Mention(i, i + (5 if half else 2), numbers={1.5 if half else 1.0}, unit=UNIT_OF[tokens[i + 1]],
                       unit_word=tokens[i + 1])
    if tokens[i : i + 2] in (["an", "hour"], ["a", "hour"]):
        m = Mention(i, i + 2, duration=60)
        m.end = _more_minutes(tokens, i + 2, m)
        return m
    return None


HOMOPHONES = {"for": "4", "to": "2", "too": "2", "ate": "8", "won": "1"}
"""words a recogniser writes for a number word; read as the number only right before a unit
("for more miles", "to hours"), where the word itself would make no sense, and ("won", "ate",
which are no prepositions) right after a tens word: "twenty won floor panels" is 21"""
UNIT_HOMOPHONES = {"won": "one", "ate": "eight"}


def _homophones(tokens: list[str]) -> list[str]:
    out = list(tokens)
    for i, t in enumerate(tokens):
        if t in UNIT_HOMOPHONES and i > 0 and tokens[i - 1] in TENS:
            out[i] = UNIT_HOMOPHONES[t]
            continue
        if t in HOMOPHONES and i + 1 < len(tokens):
            k = i + 2 if tokens[i + 1] in SKIP_BEFORE_UNIT and i + 2 < len(tokens) else i + 1
            if tokens[k] in UNIT_OF or tokens[k] in HOUR_WORDS or tokens[k] in MINUTE_WORDS:
                out[i] = HOMOPHONES[t]
    return out


def _date(tokens: list[str], i: int) -> Mention | None:
    got = date_at(tokens, i)
    if got is None:
        return None
    month, day, end = got
    return Mention(i, end, date=(month, day))


def mentions(tokens: list[str]) -> list[Mention]:
    """Every quantity said, left to right, none overlapping."""
    tokens = _homophones(tokens)
    out: list[Mention] = []
    i = 0
    while i < len(tokens):
        m = _date(tokens, i) or _spoken_clock(tokens, i) or _an_hour(tokens, i) or _number_mention(tokens, i)
        if m is None:
            i += 1
            continue
        if _pronoun_one(tokens, m):
            i += 1
            continue
        m.approx = bool(APPROXIMATORS & set(tokens[max(0, m.start - 2) : m.start]))
        out.append(m)
        i = max(m.end, i + 1)
    return rates(tokens, sums(tokens, _fractions(tokens, _subunits(tokens, out))))


PRONOUN_ONE_AFTER = frozenset("the this that which each every no any another other same".split())
FRACTION_WORDS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5,
                  "fifths": 5, "tenth": 10, "tenths": 10}
SUBUNITS = {"m": ("cm", 100.0), "foot": ("inch", 12.0)}
"""a measure said in two units without the second ("one metre eighteen" = 1.18 m, "five foot ten")"""


def _pronoun_one(tokens: list[str], m: Mention) -> bool:
    """"the one on Carver Street", "which one": 'one' standing for a thing, not a count."""
    return (m.end - m.start == 1 and tokens[m.start] == "one" and m.start > 0
            and tokens[m.start - 1] in PRONOUN_ONE_AFTER and m.unit is None)


def _subunits(tokens: list[str], found: list[Mention]) -> list[Mention]:
    """"one metre eighteen": a whole unit then a bare number below the next unit's count is one measure."""
    out: list[Mention] = []
    for m in found:
        prev = out[-1] if out else None
        if (prev is not None and prev.unit in SUBUNITS and m.start == prev.end and m.unit is None
                and len(prev.numbers) == 1 and m.numbers and m.duration is None and m.date is None):
            below = [v for v in m.numbers if v == int(v) and 0 < v < SUBUNITS[prev.unit][1]]
            if below:
                whole = next(iter(prev.numbers))
                prev.numbers = {round(whole + min(below) / SUBUNITS[prev.unit][1], 6)}
                prev.end, prev.digits = m.end, ""
                continue
        out.append(m)
    return out


def _fractions(tokens: list[str], found: list[Mention]) -> list[Mention]:
    """"two-thirds of an hour", "three quarters of a mile": a count of parts of the measure after it."""
    out: list[Mention] = []
    for m in found:
        prev = out[-1] if out else None
        article = m.start >= 3 and tokens[m.start - 3] in ("a", "one")
        bare = m.start >= 2 and tokens[m.start - 2] in ("quarter", "third", "half") and m.unit is not None and not (
            m.start >= 3 and (tokens[m.start - 3].isdigit() or tokens[m.start - 3] in UNITS | TENS))
        """"quarter of a kilo" with no article before the fraction (not "three quarters of …")"""
        if m.start >= 2 and tokens[m.start - 1] == "of" and tokens[m.start - 2] in FRACTION_WORDS and (article or bare):
            cut = 3 if article else 2
            while out and out[-1].end > m.start - cut:
                out.pop()  # "third" read as an ordinal is the fraction's, not a quantity
            share = 1 / FRACTION_WORDS[tokens[m.start - 2]]  # "a third of an hour"
            if m.duration is not None:
                m.duration = m.duration * share
            m.numbers = {round(v * share, 6) for v in m.numbers}
            m.start, m.digits, m.clock = m.start - cut, "", set()
            out.append(m)
            continue
        if prev is not None and len(prev.numbers) == 1 and prev.end + 2 <= len(tokens) \
                and tokens[prev.end] in FRACTION_WORDS and tokens[prev.end + 1] == "of" and m.start <= prev.end + 3:
            share = next(iter(prev.numbers)) / FRACTION_WORDS[tokens[prev.end]]
            if m.duration is not None:
                m.duration = m.duration * share
            m.numbers = {round(v * share, 6) for v in m.numbers}
            m.start, m.digits, m.clock = prev.start, "", set()
            out[-1] = m
            continue
        out.append(m)
    return out
