"""Text normalisation for the offline judges: case, punctuation, numbers, simple entities.

``normalize_tokens("It's $12.00 at the taco place on Fifth")`` →
``['its', '12', 'at', 'the', 'taco', 'place', 'on', '5']``. Number words
become digits ("twenty-five" → 25, "one hundred and twenty" → 120), currency
signs and trailing ``.00`` go, ordinals become their number ("5th", "fifth"
→ 5), thousands separators go. "one" stays a word unless it stands next to
another number word or a unit ("the cheap one" vs "one dollar"). Limits: no
fractions ("half past"), no dates, no spelled-out decimals, English only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

UNITS = {
    "zero": 0, "oh": None, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
CARDINALS = tuple(w for w in (*UNITS, *TENS) if w != "oh")
"""the cardinal number words in order, zero to ninety (the readers' patterns are built from it)"""
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
}
UNIT_WORDS = frozenset(
    "dollar dollars buck bucks cent cents euro euros pound pounds minute minutes hour hours mile "
    "miles percent person people pm am oclock day days week weeks year years km kilometers "
    "meter meters block blocks stop stops time times".split()
)
STOPWORDS = frozenset(
    "the a an of on at in to for is it its and or that this these those be are was were with by "
    "from as about per like so just well i you we they he she me my our your their there here "
    "one ones do does did can could would should will shall has have had been being "
    "what which who whom whose where when how than then also very really quite some any all "
    "let lets im ive id youre thats theres okay ok um uh".split()
)
YES = frozenset("yes yeah yep yup yea affirmative correct indeed haan haanji aye".split())
"""yes in English, the Hindi "haan" an Indian English speaker says as one, and the Scots aye"""
NO = frozenset(
    "no nope nah not negative never dont doesnt didnt cant cannot isnt arent wasnt werent wont "
    "wouldnt shouldnt couldnt havent hasnt nahi nahin".split()
)

def _clean(text: str) -> str:
    t = text.lower().replace("’", "'").replace("‘", "'")
    t = t.replace("ß", "ss").replace("æ", "ae").replace("œ", "oe").replace("ø", "o").replace("ł", "l")  # no NFKD form
    t = "".join(c for c in unicodedata.normalize("NFKD", t) if not unicodedata.combining(c))  # "mío" = "mio"
    t = t.replace("&", " and ").replace("%", " percent ")
    t = re.sub(r"(?<=\d),(?=(?:\d{2},)+\d{3}\b)", "", t)  # lakh grouping: "3,40,000"
    t = re.sub(r"(\d),(\d{3})", r"\1\2", t)
    t = re.sub(r"(\d+)\.00\b", r"\1", t)
    t = re.sub(r"(\d+)(st|nd|rd|th)\b", r"\1", t)
    t = re.sub(r"(\d+):(\d{2})", r"\1 \2", t)
    t = re.sub(r"\b([ap])\.m\.", r"\1m", t)
    t = t.replace("'s ", " ").replace("'", "")
    t = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", t)
    t = re.sub(r"[^a-z0-9.\s]", " ", t)
    return t


def _kind(w: str) -> str | None:
    if w in UNITS and UNITS[w] is not None:
        return "unit" if UNITS[w] < 10 else "teen"  # type: ignore[operator]
    if w in TENS:
        return "tens"
    if w == "hundred":
        return "hundred"
    if w in SCALES:
        return "scale"
    return None


_FOLLOWS = {
    "unit": {None, "tens", "hundred", "scale"},
    "teen": {None, "hundred", "scale"},
    "tens": {None, "hundred", "scale"},
    "hundred": {"unit", "teen"},
    "scale": {"unit", "teen", "tens", "hundred"},
}


def _number_run(raw: list[str], i: int) -> tuple[int, int] | None:
    """(value, end index) of the number-word run starting at `i`, grammatical English only."""
    total, current, last, j = 0, 0, None, i
    while j < len(raw):
        w = raw[j]
        if w == "and" and last in ("hundred", "scale") and j + 1 < len(raw):
            nk = _kind(raw[j + 1])
            if nk in ("unit", "teen", "tens"):
                j += 1
                continue
            break
        k = _kind(w)
        if k is None or last not in _FOLLOWS[k]:
            break
        if k in ("unit", "teen"):
            current += UNITS[w]  # type: ignore[operator]
        elif k == "tens":
            current += TENS[w]
        elif k == "hundred":
            current *= 100
        else:
            total += current * SCALES[w]
            current = 0
        last, j = k, j + 1
    if j == i:
        return None
    return total + current, j


def normalize_tokens(text: str) -> list[str]:
    """Lower-case word tokens with numbers as digit strings."""
    raw = _clean(text).split()
    out: list[str] = []
    i = 0
    while i < len(raw):
        w = raw[i]
        if w in ORDINALS:
            out.append(str(ORDINALS[w]))
            i += 1
            continue
        if w == "oh" and out and is_number(out[-1]) and i + 1 < len(raw) and _kind(raw[i + 1]) == "unit":
            out.append("0")
            i += 1
            continue
        run = _number_run(raw, i)
        if run is not None:
            value, j = run
            lone_one = j == i + 1 and w == "one" and not (
                (j < len(raw) and raw[j] in UNIT_WORDS) or (i > 0 and is_number(raw[i - 1]))
            )
            if not lone_one:
                out.append(str(value))
                i = j
                continue
        if "." in w and is_number(w):
            w = w.rstrip("0").rstrip(".")
        out.append(w)
        i += 1
    return out


def is_number(token: str) -> bool:
    return bool(re.fullmatch(r"\d+(\.\d+)?", token))


def stem(token: str) -> str:
    """Very light plural stripping so 'tacos' meets 'taco'."""
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss") and not is_number(token):
        return token[:-1]
    return token


def number_runs(tokens: list[str]) -> list[list[str]]:
    """Maximal runs of consecutive number tokens: "2:05" → [["2", "05"]]."""
    runs: list[list[str]] = []
    for prev, t in zip([None, *tokens], tokens, strict=False):
        if is_number(t):
            if prev is not None and is_number(prev):
                runs[-1].append(t)
            else:
                runs.append([t])
    return runs


def number_forms(tokens: list[str]) -> set[str]:
    """Every number said, and each run of adjacent numbers written together ("2 05" → "205")."""
    forms = {t for t in tokens if is_number(t)}
    forms |= {"".join(r) for r in number_runs(tokens) if len(r) > 1}
    return forms


def missing_numbers(gold: list[str], said: list[str]) -> list[str]:
    """Gold numbers not said. A run of gold numbers ("2:05" → 2, 05) also matches when said
    as one number ("205") or in pieces ("two oh five" → 2, 0, 5)."""
    forms = number_forms(said)
    missing: list[str] = []
    for run in number_runs(gold):
        if all(t in forms for t in run) or "".join(run) in forms:
            continue
        missing.extend(t for t in run if t not in forms)
    return missing


def content_tokens(tokens: list[str]) -> list[str]:
    return [t for t in tokens if t not in STOPWORDS and not is_number(t)]


def polarity(tokens: list[str]) -> str | None:
    """'yes' or 'no' by the first polarity word, else None."""
    for t in tokens:
        if t in YES:
            return "yes"
        if t in NO:
            return "no"
    return None


def split_at(tokens: Sequence[str], edges: frozenset[str]) -> list[list[str]]:
    """The runs of `tokens` between edge tokens (punctuation, conjunctions), empty runs dropped: the
    clauses a rule binds a value or a claim to."""
    out: list[list[str]] = [[]]
    for t in tokens:
        if t in edges:
            out.append([])
        else:
            out[-1].append(t)
    return [c for c in out if c]
