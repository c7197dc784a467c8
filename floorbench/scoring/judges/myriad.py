"""Numbers counted in another language's system inside an English reply.

Japanese, Korean and Chinese count in myriads: ten thousand has its own word (Japanese "man",
Korean "man", Chinese "wan"), and so do a hundred million (Japanese "oku", Korean "eok"), a
thousand ("sen", "cheon", "qian") and a hundred ("hyaku", "baek", "bai"). A speaker of one of them
says a price in English digits or words with these words between ("three man yen" is 30,000 yen,
"2 man 5 sen" is 25,000, "twelve man eight sen" is 128,000, "five man nine thousand eight hundred
won" is 59,800). Swahili counts "kumi na nane" (ten and eight, 18), "mia mbili" (200), "elfu tatu"
(3,000), and tells the hour from sunrise: "saa tatu asubuhi" (the third hour of the morning) is
9 am, "saa moja na nusu jioni" 7.30 pm; the hour said is six less than the clock's.

A number said in Spanish, French, German, Italian, Portuguese or Dutch (the languages text2num's
alpha2digit reads: "cuarenta y cinco", "vingt-deux", "dreiundzwanzig") is read as its figure.

Each form is read only where it cannot be English: a myriad word after a number and before a number
with another of these words, or before a currency of these countries ("three man yen", but a
"three man team" stays); a Swahili number only in a run of two or more Swahili number words
or after "saa" (hour); a number of another language only when it is two words or more, one of
them no English word ("mil doscientos"), or one long word that is no English word
("dreiundzwanzig"): "once", "cent" and "miles" stay English.
"""

from __future__ import annotations

import difflib
import re

from text_to_num import alpha2digit, text2num

from floorbench.scoring.judges.interjections import known_words
from floorbench.scoring.judges.normalize import CARDINALS

MYRIAD = {"man": 10_000, "wan": 10_000, "oku": 100_000_000, "eok": 100_000_000}
SUB_MYRIAD = {"sen": 1000, "cheon": 1000, "chon": 1000, "qian": 1000, "hyaku": 100, "byaku": 100, "pyaku": 100,
              "baek": 100, "bai": 100, "thousand": 1000, "hundred": 100}
CURRENCIES = ("yen", "en", "won", "yuan", "kuai", "rmb", "renminbi")
_DIGITS = {
    # Japanese, Korean (Sino-Korean) and Chinese digits, romanised: read only before a myriad word
    "ichi": 1, "ni": 2, "san": 3, "yon": 4, "shi": 4, "go": 5, "roku": 6, "nana": 7, "shichi": 7, "hachi": 8,
    "kyuu": 9, "kyu": 9, "il": 1, "sam": 3, "sa": 4, "o": 5, "yuk": 6, "chil": 7, "pal": 8, "gu": 9,
    "yi": 1, "er": 2, "liang": 2, "si": 4, "wu": 5, "liu": 6, "qi": 7, "ba": 8, "jiu": 9,
}
_EN = "|".join(w for w in CARDINALS if w != "zero")
_SMALL = rf"(?:\d+|(?:{_EN})\b(?:[\s-]+(?:{_EN})\b)*|(?:{'|'.join(_DIGITS)})\b)"
"""a number below a myriad said in figures, English words or a romanised digit"""
_SCALE = "|".join([*MYRIAD, *SUB_MYRIAD])
_RUN = re.compile(rf"\b{_SMALL}\s+(?:{_SCALE})\b(?:\s+{_SMALL}(?:\s+(?:{_SCALE})\b)?)*", re.I)


def _small(said: str) -> int | None:
    said = said.lower().replace("-", " ")
    if said.isdigit():
        return int(said)
    if said in _DIGITS:
        return _DIGITS[said]
    try:
        return int(text2num(said, "en"))
    except ValueError:
        return None


def _value(run: str) -> int | None:
    """'2 man 5 sen' → 25000, 'five man nine thousand eight hundred' → 59800."""
    parts = re.findall(rf"{_SMALL}|(?:{_SCALE})\b", run.lower())
    total = below = 0
    pending: int | None = None
    for p in parts:
        if p in MYRIAD:
            if pending is None and not below:
                return None
            total += (below + (pending or 0)) * MYRIAD[p]
            below, pending = 0, None
        elif p in SUB_MYRIAD:
            if pending is None:
                return None
            below += pending * SUB_MYRIAD[p]
            pending = None
        else:
            if pending is not None:
                return None
            pending = _small(p)
            if pending is None:
                return None
    return total + below + (pending or 0)


def read_myriads(text: str) -> str:
    """The text with each myriad-counted number written in figures, where its shape is not English."""
    def value(m: re.Match[str]) -> str:
        said = m.group(0)
        words = re.findall(r"[a-z]+", said.lower())
        myriads = [w for w in words if w in MYRIAD]
        after = re.match(r"\s*([a-z]+)", m.string[m.end():].lower())
        currency = after is not None and after.group(1) in CURRENCIES
        others = [w for w in words if w in SUB_MYRIAD and w not in ("thousand", "hundred")]
        if not myriads or not (currency or others or len(myriads) > 1):
            return said  # "a three man team"
        n = _value(said)
        return said if n is None else str(n)

    return _RUN.sub(value, text)


SWAHILI = {"sifuri": 0, "moja": 1, "mbili": 2, "tatu": 3, "nne": 4, "tano": 5, "sita": 6, "saba": 7, "nane": 8,
           "tisa": 9, "kumi": 10, "ishirini": 20, "thelathini": 30, "arobaini": 40, "hamsini": 50, "sitini": 60,
           "sabini": 70, "themanini": 80, "tisini": 90}
SWAHILI_SCALES = {"mia": 100, "elfu": 1000}
_SW_WORD = "|".join([*SWAHILI, *SWAHILI_SCALES])
_SW_RUN = re.compile(rf"\b(?:{_SW_WORD})\b(?:\s+(?:na\s+)?(?:{_SW_WORD})\b)*", re.I)
_SW_PARTS = {"nusu": 30, "robo": 15}
_SW_DAY = {"asubuhi": "am", "mchana": "pm", "alasiri": "pm", "jioni": "pm", "usiku": "pm"}


def _swahili_value(run: str) -> int | None:
    """'kumi na nane' → 18, 'mia mbili na hamsini' → 250, 'elfu tatu' → 3000."""
    total = current = 0
    words = [w for w in run.lower().split() if w != "na"]
    k = 0
    while k < len(words):
        w = words[k]
        if w in SWAHILI_SCALES:  # the scale comes first: "mia mbili" is two hundred
            count = SWAHILI.get(words[k + 1], 0) if k + 1 < len(words) else 0
            total += SWAHILI_SCALES[w] * (count or 1)
            k += 2 if count else 1
            continue
        current += SWAHILI[w]
        k += 1
    return total + current


def read_swahili(text: str) -> str:
    """'saa tatu asubuhi' → '9 am', 'saa moja na nusu jioni' → '7:30 pm', 'kumi na nane' → '18': the Swahili
    clock (hours from six) after 'saa', and Swahili numbers of two or more words."""
    def clock(m: re.Match[str]) -> str:
        said_hour = m.group(1).lower().split()
        hour = SWAHILI.get(said_hour[0], 0) + (SWAHILI.get(said_hour[-1], 0) if len(said_hour) > 1 else 0)
        if not 1 <= hour <= 12:
            return m.group(0)
        minutes = _SW_PARTS.get((m.group(2) or "").lower(), 0)
        if (m.group(3) or "").lower() == "kasoro":  # "saa tatu kasoro robo": a quarter before
            minutes = 45
            hour -= 1
        hour = (hour + 6 - 1) % 12 + 1
        day = _SW_DAY.get((m.group(4) or "").lower(), "")
        said = f"{hour}:{minutes:02d}" if minutes else f"{hour}"
        return f"{said} {day}".rstrip() if day else (f"{said} o'clock" if not minutes else said)

    text = re.sub(rf"\bsaa\s+(kumi\s+na\s+(?:moja|mbili)|{'|'.join(SWAHILI)})\b(?:\s+na\s+(nusu|robo)\b)?(?:\s+(kasoro)\s+robo\b)?"
                  rf"(?:\s+(?:za\s+)?({'|'.join(_SW_DAY)})\b)?", clock, text, flags=re.I)

    def number(m: re.Match[str]) -> str:
        words = [w for w in m.group(0).split() if w.lower() != "na"]
        if len(words) < 2:
            return m.group(0)
        n = _swahili_value(m.group(0))
        return m.group(0) if n is None else str(n)

    return _SW_RUN.sub(number, text)


FOREIGN = ("es", "fr", "de", "it", "pt", "nl")
"""the languages text2num's alpha2digit reads besides English"""


def _foreign(words: list[str], english: frozenset[str]) -> bool:
    parts = [p for w in words for p in re.split(r"[-‐]", w.lower().strip(".,;!?")) if p]
    unknown = [p for p in parts if p not in english and not p.isdigit()]
    if len(parts) >= 2:
        return len(unknown) >= 1
    return len(unknown) == 1 and len(unknown[0]) >= 5


def read_foreign_numbers(text: str) -> str:
    """The text with each number said in one of `FOREIGN`'s languages written in figures: the language
    whose reading takes in the most words ("vinte e cinco" is Portuguese, not "vinte e" and Spanish "cinco")."""
    english = known_words()
    if not english or not re.search(r"[a-z]{2}", text, re.I):
        return text  # without an English vocabulary every word would look foreign
    words = text.split()
    best, taken = text, 0
    for lang in FOREIGN:
        try:
            read = alpha2digit(text, lang).split()
        except ValueError:
            continue
        if read == words:
            continue
        out: list[str] = []
        count = 0
        for op, a, b, c, d in difflib.SequenceMatcher(a=words, b=read, autojunk=False).get_opcodes():
            said, figures = words[a:b], read[c:d]
            foreign = op == "replace" and any(re.search(r"\d", f) for f in figures) and not any(
                "/" in f for f in figures) and _foreign(said, english)  # "centavos" is no 1/100
            out.extend(figures if op == "equal" or foreign else said)
            count += len(said) if foreign else 0
        if count > taken:
            best, taken = " ".join(out), count
    return best
