"""A reply's spoken and recognised forms rewritten into the forms the answer rules read.

The answer rules read numbers, codes and units in the forms most people write
them. Other writers and other recognisers say the same value in forms that are
regular but not those: a score as "two goals to one", a sort code in pairs
("forty, twelve, seventy-six") or digit by digit with commas, Indian number
words ("five lakh sixty thousand"), "runner-up" for second; and a recogniser
splits or mishears words ("NINE TEA" for ninety, "A NOUR" for an hour,
"EIGHT OURS", "PLATFORM FOR", "CUE EX 7 ARE 2", "R TO"). `respell` rewrites
each such form by a rule of its class before the rules run, so a right value
is read as said and a near value stays a different value. Which rewrites apply
can depend on the gold's shape (a score, a digit code, a letter-and-digit
code): "to" between two numbers is a score only when a score is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from floorbench.scoring.judges.interjections import known_words
from floorbench.scoring.judges.mixed_numbers import read_mixed_numbers, words_value
from floorbench.scoring.judges.myriad import read_foreign_numbers, read_myriads, read_swahili
from floorbench.scoring.judges.normalize import normalize_tokens
from floorbench.scoring.judges.number_forms import read_number_forms
from floorbench.scoring.judges.number_sounds import read_sound_alikes
from floorbench.scoring.judges.ranges import read_ranges
from floorbench.scoring.judges.split_numbers import join_split_numbers
from floorbench.scoring.judges.values import NATO, gold_code

_UNIT_WORDS = "zero one two three four five six seven eight nine".split()
_TENS_STEMS = {"twen": "twenty", "thir": "thirty", "for": "forty", "four": "forty", "fif": "fifty",
               "six": "sixty", "seven": "seventy", "eigh": "eighty", "eight": "eighty", "nine": "ninety"}
"""the first syllable of each tens word as a recogniser splits it off ("NINE TEA", "SIX TEE")"""
_TY_SOUNDS = ("tea", "tee", "ty", "tie")
_NUMBER_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
                r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
                r"ninety|hundred|thousand|nil|nought|oh|\d+)\b")
_NUMBER = rf"{_NUMBER_WORD}(?:[\s-]+(?:and\s+)?{_NUMBER_WORD})*"
RANKS = {"runner up": "second", "runners up": "second", "runner-up": "second", "runners-up": "second",
         "first runner up": "second", "second runner up": "third", "wooden spoon": "last"}
"""names of a place in a ranking that are no ordinal ("runner-up" is second)"""
NUMBERED_NOUNS = frozenset("platform gate room flight bus route seat row track bay pier aisle lane channel ward "
                           "berth coach carriage terminal number".split())
"""nouns a number follows as a name ("platform 4", "gate 12"): a digit's homophone after one is the digit"""
DIGIT_HOMOPHONES = {"for": "4", "fore": "4", "to": "2", "too": "2", "ate": "8", "won": "1", "tree": "3",
                    "free": "3", "sex": "6", "nein": "9"}
"""words a recogniser writes for a digit it heard"""
LETTER_HOMOPHONES = {"ay": "a", "are": "r", "ar": "r", "you": "u", "why": "y", "see": "c", "sea": "c", "eye": "i",
                     "bee": "b", "be": "b", "queue": "q", "cue": "q", "tea": "t", "tee": "t", "pea": "p",
                     "pee": "p", "jay": "j", "kay": "k", "ex": "x", "owe": "o", "dee": "d", "gee": "g",
                     "em": "m", "en": "n", "el": "l", "ess": "s", "vee": "v", "zed": "z", "zee": "z", "aitch": "h"}
"""words a recogniser writes for a letter's name (read as the letter only inside a spelling)"""
SCORE = re.compile(r"(\d{1,2})\s*[-–]\s*(\d{1,2})(?:\s+\D.*)?")
"""a score gold ("2-1 to Arsenal", "0-0"): two small numbers; "555-0148" is a phone number"""
SCORE_UNITS = r"(?:goals?|points?|runs?|sets?|games?|frames?|tries|wickets?)"


def _rank_words(text: str) -> str:
    for said, rank in RANKS.items():
        text = re.sub(rf"\b{said.replace(' ', '[ -]')}\b", rank, text, flags=re.I)
    return text


_TEEN_STEMS = {"thir": "thirteen", "for": "fourteen", "four": "fourteen", "fif": "fifteen", "six": "sixteen",
               "seven": "seventeen", "eigh": "eighteen", "eight": "eighteen", "nine": "nineteen"}
_UNIT_AFTER = r"(?!\s+(?!(?:one|two|three|four|five|six|seven|eight|nine)\b)[a-z])"
"""a split tens word is read as one only when no other word follows ("nine tea bags"), but a unit may
("EIGHT TEA FIVE")"""


def _tens_split(text: str) -> str:
    """'NINE TEA' → 'ninety', 'for tee' → 'forty', 'FOR TEEN' → 'fourteen': a tens or teens word split
    in two by the recogniser."""
    stems = "|".join(sorted(_TENS_STEMS, key=len, reverse=True))
    text = re.sub(rf"\b(?!(?<=\w\s)for tea\b)({stems})[\s-]+(?:{'|'.join(_TY_SOUNDS)})\b{_UNIT_AFTER}",
                  lambda m: _TENS_STEMS[m.group(1).lower()], text, flags=re.I)  # "out for tea" stays
    teens = "|".join(sorted(_TEEN_STEMS, key=len, reverse=True))
    return re.sub(rf"\b({teens})[\s-]+(?:teen|tin|tean)\b", lambda m: _TEEN_STEMS[m.group(1).lower()], text,
                  flags=re.I)


_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                  "eighth": 8, "ninth": 9}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}


def _compound_ordinals(text: str) -> str:
    """'twenty-first' → '21st': a tens word and an ordinal unit are one ordinal."""
    return re.sub(rf"\b({'|'.join(_TENS)})[\s-]+({'|'.join(_ORDINAL_UNITS)})\b",
                  lambda m: f"{_TENS[m.group(1).lower()] + _ORDINAL_UNITS[m.group(2).lower()]}th", text, flags=re.I)


MEDALS = {"gold": "first", "silver": "second", "bronze": "third"}
"""a medal names a place, when a place is asked for"""


def _juncture(text: str) -> str:
    """'a nour' → 'an hour', 'eight ours' → 'eight hours': the n of "an" heard on the next word,
    and the silent h of "hour" left off."""
    words = known_words()

    def split_n(m: re.Match[str]) -> str:
        word = m.group(2)
        rest = word[1:]
        if words and word.lower() in words:
            return m.group(0)
        if rest.lower() in words or rest.lower() in ("our", "ours"):
            return f"{m.group(1)}n {rest}"
        return m.group(0)

    text = re.sub(r"\b(a) (n[aeiou]\w+)\b", split_n, text, flags=re.I)
    return re.sub(rf"\b(an|{_NUMBER_WORD}|a half|and a half)\s+(our|ours)\b",
                  lambda m: f"{m.group(1)} h{m.group(2)}", text, flags=re.I)


SCALE = {"lakh": 100_000, "lakhs": 100_000, "lac": 100_000, "crore": 10_000_000, "crores": 10_000_000}


def _scaled(said: str) -> float | None:
    """'three point two' → 3.2, '1.25' → 1.25, 'two and a half' → 2.5, 'twelve' → 12."""
    if re.fullmatch(r"\d+\.\d+", said.strip()):
        return float(said)
    half = re.search(r"\s+and\s+a\s+half$", said, re.I)
    head = said[: half.start()] if half else said
    parts = re.split(r"\s+point\s+", head, maxsplit=1, flags=re.I)
    whole = words_value(parts[0])
    if whole is None:
        return None
    value = float(whole)
    if len(parts) == 2:
        digits = "".join(str(words_value(w)) for w in parts[1].split() if words_value(w) is not None)
        value += float(f"0.{digits}") if digits else 0.0
    return value + (0.5 if half else 0.0)


def _indian_scale(text: str) -> str:
    """'five lakh sixty thousand thirty-four' → '560034', 'three point two lakh' → '320000', 'one crore
    twenty lakh' → '12000000' (a lakh is 100,000, a crore 10,000,000)."""
    def value(m: re.Match[str]) -> str:
        scale = SCALE[m.group(2).lower()]
        big, rest = _scaled(m.group(1)), words_value(m.group(3)) if m.group(3) else 0
        if big is None or rest is None or rest >= scale or (big * scale) % 1:
            return m.group(0)
        return str(int(big * scale) + rest)

    amount = rf"(\d+\.\d+|{_NUMBER}(?:\s+point(?:\s+{_NUMBER_WORD})+)?(?:\s+and\s+a\s+half)?)"
    for unit in (r"lakhs?|lac", r"crores?"):
        text = re.sub(rf"(?<![\d.])\b{amount}\s+({unit})\b(?:\s+(?:and\s+)?({_NUMBER})(?![.,]?\d)(?!\s+point\b))?", value, text, flags=re.I)
    return text


def _score(text: str) -> str:
    """'two goals to one', 'three-nil', '2 to 1' → 'two one': a score said with its joiner."""
    text = re.sub(rf"\b({_NUMBER_WORD})\s+{SCORE_UNITS}\s+(?:to|-|–)\s+({_NUMBER_WORD})\b", r"\1 \2", text,
                  flags=re.I)
    text = re.sub(rf"\b({_NUMBER_WORD})\s*(?:to|–|-)\s*({_NUMBER_WORD})\b", r"\1 \2", text, flags=re.I)
    text = re.sub(rf"\b({_NUMBER_WORD})[\s-]+(?:all|apiece|each)\b", r"\1 \1", text, flags=re.I)  # "two all"
    text = re.sub(rf"\b({_NUMBER_WORD})\s+(?:to\s+)?nothing\b", r"\1 zero", text, flags=re.I)  # "three to nothing"
    return re.sub(r"\bnil\b", "zero", text, flags=re.I)


def _digit_groups(text: str) -> str:
    """'forty, twelve, seventy-six' → 'forty twelve seventy-six': a code said in groups, the commas
    between its groups are pauses, not a list."""
    return re.sub(rf"(?<=\w)\s*,\s*(?={_NUMBER_WORD}\b)", " ", text, flags=re.I) if re.search(
        rf"\b{_NUMBER}\s*,\s*{_NUMBER}\s*,\s*{_NUMBER}\b", text, re.I) else text


def _numbered(text: str) -> str:
    """'PLATFORM FOR' → 'PLATFORM 4': a digit's homophone right after a noun a number names."""
    nouns = "|".join(sorted(NUMBERED_NOUNS))
    homophones = "|".join(DIGIT_HOMOPHONES)
    return re.sub(rf"\b({nouns})\s+({homophones})\b(?=\s*(?:[.,!?;]|$|and\b|please\b|today\b|now\b))",
                  lambda m: f"{m.group(1)} {DIGIT_HOMOPHONES[m.group(2).lower()]}", text, flags=re.I)


def _letterish(token: str) -> bool:
    t = token.lower()
    return (len(t) == 1 and t.isalnum()) or t.isdigit() or t in NATO or t in _UNIT_WORDS or t == "xray"


def _in_run(words: list[str], n: int) -> bool:
    """Word n stands in a run of three or more letter names ("see are ex 4 4 7 1" after "sir"), one of them
    spelled as a letter or digit: the run is a spelling even where it starts after an ordinary word."""
    def named(w: str) -> bool:
        return _letterish(w) or w.lower() in LETTER_HOMOPHONES or w.lower() in DIGIT_HOMOPHONES

    a = n
    while a > 0 and named(words[a - 1]):
        a -= 1
    b = n
    while b + 1 < len(words) and named(words[b + 1]):
        b += 1
    return b - a >= 2 and any(_letterish(w) for w in words[a : b + 1])


def _code_spelling(text: str) -> str:
    """Inside a spelling ('CUE EX 7 ARE 2', 'Q X 7 R TO', 'ROMEO TOO'), a word a recogniser writes for a
    letter or digit is that letter or digit when it stands beside spelled letters or digits."""
    text = re.sub(r"(?i)\bdouble[\s-]+(?:you|u)\b", "w", text)  # the letter's name, "double you"
    tokens = re.findall(r"[A-Za-z]+|\d|[^\sA-Za-z\d]+", re.sub(r"(?i)\bx-ray\b", "xray", text))
    at = [k for k, t in enumerate(tokens) if t.isalnum()]
    words = [tokens[k] for k in at]
    out = list(tokens)
    for n, t in enumerate(words):
        low = t.lower()
        if _letterish(t) or not (low in DIGIT_HOMOPHONES or low in LETTER_HOMOPHONES):
            continue
        near = [words[j] for j in (n - 1, n + 1) if 0 <= j < len(words)]
        if low in ("for", "as", "like") and len(near) == 2 and near[1][:1].lower() == near[0].lower():
            continue  # "T for Tango": the spelling's own "for"
        if (near and all(_letterish(w) or w.lower() in LETTER_HOMOPHONES for w in near)) or _in_run(words, n):
            out[at[n]] = DIGIT_HOMOPHONES.get(low) or LETTER_HOMOPHONES[low]
    return " ".join(out)


_NUMBER_NEXT = r"(?=\s*[:=]?\s*(?:[-−]?\d|minus\b|" + _NUMBER_WORD + r"\b))"
_MIN_LABEL = re.compile(r"\s*,?\s*\bmin\b\.?" + _NUMBER_NEXT, re.I)
_MAX_LABEL = re.compile(r"(?<=[\w%°])\s+\b(max(?:imum)?)\b\.?" + _NUMBER_NEXT, re.I)


def _range_labels(text: str) -> str:
    """'max 44 min 31': beside 'max', a 'min' before a number is the minimum, not minutes; each label opens
    its own part, so the value after it goes with it."""
    if not re.search(r"\bmax(?:imum)?\b", text, re.I):
        return text
    text = _MIN_LABEL.sub(lambda m: (", " if m.start() else "") + "minimum ", text)
    return _MAX_LABEL.sub(lambda m: ", " + m.group(1), text)


def respell(transcript: str, refs: Sequence[str], question: str = "") -> str:
    """The transcript with the forms above rewritten for the golds `refs` (first the gold, then
    its aliases); `question`, where given, tells what a "how many" reply counts."""
    if not refs:
        return transcript
    gold = refs[0].strip()
    text = _range_labels(_rank_words(transcript))
    text = read_foreign_numbers(read_swahili(read_myriads(_tens_split(text))))
    text = read_ranges(read_mixed_numbers(read_sound_alikes(text, question), refs), refs)
    text = _compound_ordinals(text)
    if re.fullmatch(r"(?i)first|second|third|1st|2nd|3rd|(?:came |finished )?(?:first|second|third)", gold):
        text = re.sub(rf"\b({'|'.join(MEDALS)})\b", lambda m: MEDALS[m.group(1).lower()], text, flags=re.I)
    text = _juncture(text)
    text = read_number_forms(text, refs)
    text = _indian_scale(text)
    text = _numbered(text)
    if SCORE.fullmatch(gold):
        text = _score(text)
    else:
        text = join_split_numbers(text, refs)
    if re.fullmatch(r"\d+(?:[\s-]\d+)*", gold) and len(re.sub(r"\D", "", gold)) >= 4:
        text = _digit_groups(text)
    code = gold_code(gold)
    if code and re.search(r"[a-z]", code) and re.search(r"\d", code):
        text = _code_spelling(text)
    return text


def says_score(gold: str, transcript: str) -> bool | None:
    """Whether a (respelled) reply says a score gold's two numbers in order ("two one" for 2-1 to
    Arsenal; "three" alone or "twenty-one" is not the score); None when the gold is no score."""
    m = SCORE.fullmatch(gold.strip())
    if m is None:
        return None
    tokens = ["1" if t == "one" else t for t in normalize_tokens(transcript)]
    return any(tokens[k : k + 2] == [m.group(1), m.group(2)] for k in range(len(tokens) - 1))
