"""Number forms of Indian-English speech and of recognisers that write it, read as the value said.

Call-centre speech, as a recogniser writes it, says a number half in digits and half in words
("rupees 12 hundred and 40", "16 thousand 8 hundred", "1 lakh 25 thousand"), spells a number word
its own way ("fourty"), splits a decimal or an ordinal ("6 point 8 percent", "16 th of june"),
says a date in figures ("16-06", "5/17"), breaks a long digit string with fillers ("4 5 2 2 uh uh
3 6 0") and says a round age as "six-oh". Read alone, each is two numbers or none, and the answer
rules find the quantity not said. The rewrites that cannot make a near value right (a spelling, a
split decimal or ordinal) always apply; those that join several numbers into one apply only when
the joined value is a number of the gold, so that "12 hundred and 50" for 1,240 stays two numbers
and stays wrong, as split_numbers.py does for "60 8".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from text_to_num import text2num

from floorbench.scoring.judges.values import MONTHS

_SPELLINGS = {"fourty": "forty", "fourteeth": "fourteenth", "nineth": "ninth", "twelveth": "twelfth"}
"""number words spelt as they are said"""
_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())} | {w: n for n, w in zip(range(20, 100, 10), (
        "twenty thirty forty fifty sixty seventy eighty ninety".split()), strict=True)}
_SCALES = {"hundred": 100, "thousand": 1000, "lakh": 100_000, "lakhs": 100_000, "lac": 100_000,
           "crore": 10_000_000, "crores": 10_000_000, "million": 1_000_000}
_FILLERS = r"(?:uh|um|er|erm|ah|hmm)"
_DIGIT_WORD = r"(?:\d|zero|oh|one|two|three|four|five|six|seven|eight|nine)"


def gold_values(refs: Sequence[str]) -> set[int]:
    """Every whole number in the golds, with thousands grouped either way ('₹1,25,000' → 125000)."""
    found: set[int] = set()
    for ref in refs:
        found |= {int(d) for d in re.findall(r"\d+", re.sub(r"(?<=\d),(?=\d)", "", ref))}
    return found


def read_number_forms(text: str, refs: Sequence[str]) -> str:
    """The transcript with the forms above rewritten where they say a number of the golds `refs`."""
    for said, word in _SPELLINGS.items():
        text = re.sub(rf"\b{said}\b", word, text, flags=re.I)
    text = re.sub(r"\b(\d+)\s+point\s+(\d+)\b(?![.,]?\d)", r"\1.\2", text, flags=re.I)  # "6 point 8"
    text = re.sub(r"\b(\d{1,2})\s+(st|nd|rd|th)\b", r"\1\2", text, flags=re.I)  # "16 th"
    golds = gold_values(refs)
    if not golds:
        return text
    text = _mixed_scales(text, golds)
    text = _multiples(text, golds)
    text = _oh_tens(text, golds)
    text = _numeric_date(text, refs)
    if any(len(re.sub(r"\D", "", r)) >= 4 and re.fullmatch(r"[\d\s-]+", r.strip()) for r in refs[:1]):
        text = _filled_digits(text)
    return text


_COUNT = r"(\d+|one|two|three|four|five|six)"
_DOSES = re.compile(_COUNT + r"\s+of\s+(?:the|those|these|your)\s+(\d+)\s*(mg|milligrams?|ml|millilitres?|g|grams?)?\s*"
                    r"(?:ones|tablets|pills|capsules|caplets|sachets)\b", re.I)


def _multiples(text: str, golds: set[int]) -> str:
    """'two of the 200 mg ones' → '400 mg', 'a pair of them' → 'two of them': a count of doses or of things
    said as a multiple, when the product is a gold number; a pair of them is two of them."""
    def dose(m: re.Match[str]) -> str:
        count = int(m.group(1)) if m.group(1).isdigit() else text2num(m.group(1).lower(), "en")
        total = count * int(m.group(2))
        return f"{total} {m.group(3) or ''}".strip() if total in golds else m.group(0)

    text = _DOSES.sub(dose, text)
    return re.sub(r"\b(?:a\s+)?pair\s+of\s+(?=them|those|these|the)\b", "two of ", text, flags=re.I)


def _mixed_scales(text: str, golds: set[int]) -> str:
    """'12 hundred and 40' → 1240, '16 thousand 8 hundred' → 16800, '1 lakh 25 thousand' → 125000: figures
    and scale words in one number (at least one figure and one scale word), when it is a gold number."""
    word = "|".join(_WORDS)
    scale = "|".join(_SCALES)
    part = rf"(?:\d+|{word})"
    run = re.compile(rf"\b{part}(?:[\s-]+(?:and\s+)?(?:{part}|(?:{scale})))*\s+(?:{scale})\b"
                     rf"(?:[\s-]+(?:and\s+)?(?:{part}|(?:{scale}))\b)*", re.I)

    def value(m: re.Match[str]) -> str:
        said = m.group(0)
        if not re.search(r"\d", said):
            return said
        tokens = [t for t in re.split(r"[\s-]+", said.lower()) if t != "and"]
        # the longest head of the run whose value is a gold number (the rest is another number)
        for end in range(len(tokens), 0, -1):
            n = _value(tokens[:end])
            if n is not None and n in golds:
                rest = " ".join(tokens[end:])
                return f"{n} {rest}".rstrip()
        return said

    return run.sub(value, text)


def _value(tokens: Sequence[str]) -> int | None:
    total, current, seen_scale = 0, 0, False
    for t in tokens:
        if t.isdigit() or t in _WORDS:
            n = int(t) if t.isdigit() else _WORDS[t]
            if current and n >= current:
                return None  # "12 40": two numbers
            current += n
        elif t in _SCALES:
            seen_scale = True
            if t == "hundred":
                current = (current or 1) * 100
            else:
                total += (current or 1) * _SCALES[t]
                current = 0
        else:
            return None
    return total + current if seen_scale else None


def _oh_tens(text: str, golds: set[int]) -> str:
    """'six-oh' → 60 ('the big six-oh'): a tens figure said as its digit and 'oh', not the end of a digit
    string ("oh two oh")."""
    units = {w: n for w, n in _WORDS.items() if 2 <= n <= 9} | {str(d): d for d in range(2, 10)}

    def value(m: re.Match[str]) -> str:
        n = units[m.group(1).lower()] * 10
        inside = re.search(rf"\b{_DIGIT_WORD}[\s,-]+$", m.string[: m.start()], re.I)  # "oh two oh": a digit string
        return str(n) if n in golds and not inside else m.group(0)

    return re.sub(rf"\b({'|'.join(units)})[\s-]oh\b(?![\s-]+{_DIGIT_WORD}\b)", value, text, flags=re.I)


def _numeric_date(text: str, refs: Sequence[str]) -> str:
    """'16-06' or '5/17' → '16 june' / '17 may' when the gold is a date with that day and month, in
    either order (day first as in India and Britain, month first as in the US)."""
    gold = refs[0].lower()
    month = next((n for name, n in MONTHS.items() if re.search(rf"\b{name}\b", gold)), None)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", gold)
    if month is None or day is None:
        return text
    d = int(day.group(1))
    name = next(name for name, n in MONTHS.items() if n == month)

    def value(m: re.Match[str]) -> str:
        a, b = int(m.group(1)), int(m.group(2))
        return f"{d} {name}" if (a, b) in ((d, month), (month, d)) else m.group(0)

    return re.sub(r"(?<![\d/.-])\b(\d{1,2})[-/.](\d{1,2})\b(?![-/.]?\d)", value, text)


def _filled_digits(text: str) -> str:
    """'7 3 1 uh uh 9 0 2 2' → '7 3 1 9 0 2 2': fillers inside a digit string said digit by digit, when a
    long digit code is asked for."""
    return re.sub(rf"\b({_DIGIT_WORD})(?:\s*,?\s+{_FILLERS}\b)+\s*,?\s+(?={_DIGIT_WORD}\b)", r"\1 ", text,
                  flags=re.I)
