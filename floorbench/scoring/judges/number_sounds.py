"""Words that sound like a number word, read as that number where the words around them count.

A recogniser writes what it hears, and a speaker says a number word the way their English says it:
"tree" and "tirty" for three and thirty (th said as t: Caribbean, West African, Irish and Indian
Englishes), "free" and "firty" (th said as f: London, AAVE), "fife" for five and "twelf" for twelve
(a final v unvoiced), "sebben" for seven (v said as b), "tin" and "twinty" for ten and twenty (e said
as i before n), "tousan" for thousand (a final nd cluster reduced), "fitty" for fifty; and it writes
a number word's English homophones ("won", "to", "too", "for", "fore", "ate", "sics") for the number
it heard. `SOUND_ALIKES` is made from the number words by these processes, not listed by hand; the
homophones are the closed class of English words pronounced exactly as a number word is.

A sound-alike is read as its number only in a numeric context, whatever the gold, so that a wrong
value is read as wrong too:

* a sound-alike that is no English word ("tirty", "tousand", "sebben") beside a number, a unit, a
  currency, a clock word, "point", another sound-alike, or in a reply to a question that asks for a
  quantity ("how many", "how much", "what time", "how long", "how far", "how old");
* a sound-alike that is an English word ("tree", "won", "for") only where it makes a number with its
  neighbours: inside a run of four or more digits said one by one ("for for seven won ate"), beside
  "point" ("won point to"), before a scale word ("tree hundred"), as the unit after a tens word
  ("twenty tree"), after "hundred and", as the hours before a tens word of a time ("ate tirty pm"),
  before a unit, a currency or a clock word ("fife kilo", "tree pm"; the function words "for", "to"
  and "too" only before a clock word: "for hours" is no four hours), or before the noun a "how many"
  question counts ("How many boxes?" — "for boxes"). A verb ("won", "ate") before a number stays a
  verb ("we won three games").
"""

from __future__ import annotations

import re
from functools import lru_cache

from floorbench.scoring.judges.interjections import known_words
from floorbench.scoring.judges.normalize import CARDINALS, SCALES
from floorbench.scoring.judges.quantities import UNIT_OF
from floorbench.scoring.judges.value_atoms import UNITS

_CARDINALS = CARDINALS
SCALE_WORDS = tuple(SCALES)
NUMBER_WORDS = frozenset((*_CARDINALS, *SCALE_WORDS))
DIGIT_VALUE = {w: n for n, w in enumerate(_CARDINALS[:10])}
TENS_WORDS = frozenset(_CARDINALS[20:])

HOMOPHONES = {"won": "one", "to": "two", "too": "two", "for": "four", "fore": "four", "ate": "eight",
              "sics": "six", "sicks": "six"}
"""English words pronounced exactly as a number word (a closed class: the dictionary has no others for
zero–ninety, hundred, thousand, million)"""
FUNCTION_WORDS = frozenset(("to", "too", "for", "fore"))
VERBS = frozenset(("won", "ate"))
"""homophones that are verbs: before a number they stay verbs ("won three games", "ate two")"""

_PROCESSES: tuple[tuple[str, str], ...] = (
    (r"th", "t"),          # th-stopping: three → tree, thirty → tirty, thousand → tousand
    (r"th", "f"),          # th-fronting: three → free, thirty → firty
    (r"ve$", "fe"),        # final devoicing: five → fife
    (r"ve$", "f"),         # twelve → twelf
    (r"v(?=e)", "b"),      # v said as b: seven → seben, eleven → eleben
    (r"v(?=e)", "bb"),     # ... written sebben
    (r"e(?=n)", "i"),      # pin-pen merger: ten → tin, twenty → twinty, seven → sevin
    (r"nd$", "n"),         # final cluster reduction: thousand → thousan
    (r"ft", "tt"),         # fifty → fitty
    (r"^h", ""),           # h-dropping: hundred → undred
)
"""sound changes of Englishes and recognisers, each a regular rewrite of the spelling"""


@lru_cache(maxsize=1)
def sound_alikes() -> dict[str, str]:
    """Every spelling the processes make of a number word (one or two of them applied), with the word:
    {'tree': 'three', 'tirty': 'thirty', 'tousan': 'thousand', 'won': 'one', ...}."""
    out: dict[str, str] = dict(HOMOPHONES)
    for word in NUMBER_WORDS:
        forms = {word}
        for _ in range(2):
            forms |= {re.sub(pat, rep, f, count=1) for f in forms for pat, rep in _PROCESSES}
        for form in forms - NUMBER_WORDS:
            if len(form) >= 3:
                out.setdefault(form, word)
    return out



CLOCK_WORDS = frozenset(("o'clock", "oclock", "am", "pm", "a.m.", "p.m.", "a.m", "p.m", "clock"))
_MORE_UNITS = frozenset(("kilo", "kilos", "meter", "metre", "litre", "litres", "liter", "liters", "ml", "yen",
                         "percent", "degree", "degrees", "dollar", "bob", "sen", "rupee", "peso", "naira", "cedi"))
_UNIT_WORDS = frozenset(UNIT_OF) | frozenset(UNITS) | _MORE_UNITS
_QUANTITY_QUESTION = re.compile(r"\b(?:how (?:many|much|long|far|old|often|tall|heavy|big)|what time|what'?s the "
                                r"(?:price|cost|total|number|temperature|score)|when)\b", re.I)
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?'?|\d+(?:[.,:]\d+)*|[^\sA-Za-z\d]")
_AND = frozenset(("and", "an", "an'", "n", "'n'", "n'"))


def _unit(tok: str) -> bool:
    return tok in _UNIT_WORDS or tok in CLOCK_WORDS or tok == "%"


def _number(tok: str) -> bool:
    return tok.isdigit() or tok in NUMBER_WORDS or bool(re.fullmatch(r"\d+(?:[.,:]\d+)+", tok))


def _stem(word: str) -> str:
    return re.sub(r"(?:es|s)$", "", word) if len(word) > 3 else word


def counted_noun(question: str) -> str | None:
    """The noun a "how many" question counts ('How many boxes came?' → 'box')."""
    m = re.search(r"\bhow many\s+(?:more\s+|of\s+(?:the|my|your|our)\s+)?([a-z]+)", question.lower())
    return _stem(m.group(1)) if m else None


def _is_word(form: str) -> bool:
    words = known_words()
    return form in HOMOPHONES or not words or form in words


def read_sound_alikes(text: str, question: str = "") -> str:
    """The text with each sound-alike of a number word read as the word where its context is numeric."""
    alikes = sound_alikes()
    spans = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]
    toks = [s[2].lower() for s in spans]
    if not any(t in alikes for t in toks):
        return text
    said = list(toks)  # the tokens as read so far
    noun = counted_noun(question)
    asks = bool(_QUANTITY_QUESTION.search(question))
    for _ in range(3):
        changed = False
        for i, t in enumerate(toks):
            if said[i] != t or t not in alikes:
                continue
            if _reads(said, i, alikes, asks, noun):
                said[i] = alikes[t]
                changed = True
        if not changed:
            break
    out, at = [], 0
    for (start, end, raw), tok, now in zip(spans, toks, said, strict=True):
        out.append(text[at:start])
        out.append(now if now != tok else raw)
        at = end
    out.append(text[at:])
    return "".join(out)


def _neighbour(said: list[str], i: int, step: int, skip_and: bool = False) -> str:
    j = i + step
    while 0 <= j < len(said) and (said[j] == "-" or (skip_and and said[j] in _AND)):
        j += step
    return said[j] if 0 <= j < len(said) else ""


def _digit_run(said: list[str], i: int, alikes: dict[str, str]) -> bool:
    """Token i stands in a run of four or more digits said one by one, one of them a digit word or figure."""
    def digitish(t: str) -> bool:
        return t in DIGIT_VALUE or t == "oh" or (len(t) == 1 and t.isdigit()) or alikes.get(t, "") in DIGIT_VALUE

    if not digitish(said[i]):
        return False
    a = b = i
    while a > 0 and (digitish(said[a - 1]) or (said[a - 1] == "," and a > 1 and digitish(said[a - 2]))):
        a -= 1
    while b + 1 < len(said) and (digitish(said[b + 1]) or (said[b + 1] == "," and b + 2 < len(said)
                                                              and digitish(said[b + 2]))):
        b += 1
    run = [t for t in said[a:b + 1] if t != ","]
    return len(run) >= 4 and any(t in DIGIT_VALUE or t.isdigit() or t == "oh" for t in run)


def _reads(said: list[str], i: int, alikes: dict[str, str], asks: bool, noun: str | None) -> bool:
    t = said[i]
    word = alikes[t]
    prev, nxt = _neighbour(said, i, -1), _neighbour(said, i, 1)
    prev_and = _neighbour(said, i, -1, skip_and=True)
    if not _is_word(t):  # "tirty", "tousand": no English word, any numeric context
        near = (prev, nxt, prev_and, _neighbour(said, i, 1, skip_and=True))
        return asks or any(_number(n) or _unit(n) or n == "point" or n in alikes for n in near)
    if _digit_run(said, i, alikes):
        return True
    digit = word in DIGIT_VALUE
    if (prev == "point" and digit) or (nxt == "point" and _neighbour(said, i + 1, 1) in DIGIT_VALUE):
        return True
    if digit and nxt == "and" and _neighbour(said, i + 1, 1) in ("a", "three") and _neighbour(said, i + 2, 1) in (
            "half", "quarter", "quarters"):
        return True  # "to and a half kilos": no English word goes before "and a half" but a number
    if noun and _stem(nxt) == noun and t != "to":
        return True
    if t not in VERBS and ((nxt in ("to", "too", "or") and _number(_neighbour(said, i + 1, 1)))
                           or (prev in ("to", "too", "or") and _number(_neighbour(said, i - 1, -1)))
                           or (prev == "between" and nxt == "and")):
        return t not in FUNCTION_WORDS  # "tree to five", "between tree and five": a range's end
    if t in FUNCTION_WORDS:
        return nxt in CLOCK_WORDS and (prev in ("at", "by", "till", "until", "from", "") or _number(prev))
    if nxt in SCALE_WORDS and word not in SCALE_WORDS:
        return True
    if digit and word != "zero" and (prev in TENS_WORDS or (prev_and != prev and prev_and in SCALE_WORDS)):
        return t != "won"  # "twenty won" is money
    if nxt in TENS_WORDS and digit:  # "tree tirty": hours and minutes, or a price
        after = _neighbour(said, i + 1, 1)
        return t not in VERBS or after in CLOCK_WORDS
    return _unit(nxt) and not (t in VERBS and nxt not in CLOCK_WORDS)
