"""The cascade's responder: is the assistant addressed, and what can it answer from the room so far?

Pure text, no audio, no model: it sees only what the cascade's own ASR heard
(never the scenario script). The rules are simple, written down here, and
meant to be weak but honest.

Addressing (`addressing`), applied to one utterance (or two joined when the
speaker paused briefly mid-request):

1. Another device's wake word (Siri, Alexa, Google, Cortana, Bixby) → not us.
   Instructions about the assistant's role ("you are Aria", "your name is …",
   "for this session …", as in the spoken duty preamble) → not a request;
   neither is anything longer than 45 words.
2. Our name (spelled as Whisper tends to hear it: Aria, Arya, Ariya, Area …)
   in a sentence that asks something (a question mark, a question opening, or
   a request verb such as "tell", "remind", "add up") → addressed, explicit.
   Our name in a statement ("Aria booked these seats") → a mention: silent.
3. No name, right after a human gave up on the question ("don't ask me, I've
   lost track", "let's just ask") → addressed, implicit.
4. No name otherwise: a question or polite request with no human vocative
   ("Ben, …", "Okay, Oliver, could you …"), phrased to the group ("we", "us",
   "our", "you", or a "so …?" / "could we have …" opening), asking for
   something a calculator or a good listener could give (how many, how much,
   what time, total, add up, headcount, left …) → addressed, implicit.
   A question in the first person singular only ("where are my keys?") is
   self-talk: silent.

Answering lives in `cascade_answer.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from floorbench.speech.spoken_numbers import spell_numbers

NAME_VARIANTS = {"aria": ("aria", "arya", "ariya", "ariah", "area", "ahria", "arria", "aryah")}
WAKE_WORDS = ("siri", "alexa", "google", "cortana", "bixby", "hey computer")
QUESTION_OPENERS = (
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "is", "are", "am", "was",
    "were", "do", "does", "did", "can", "could", "would", "will", "shall", "should", "may", "might",
    "have", "has", "had",
)  # fmt: skip
REQUEST_VERBS = (
    "tell", "remind", "give", "add", "sum", "calculate", "work out", "figure out", "count", "check",
    "say", "list", "find", "look up", "compute", "total", "let us know", "let me know",
)  # fmt: skip
HELPLESS_CUES = (
    "lost track", "lost count", "don't ask me", "do not ask me", "in my head", "not doing sums",
    "not doing maths", "not doing math", "hopeless with numbers", "wasn't following", "was not following",
    "wasn't really following", "brain is not working", "brain isn't working", "paying attention should know",
    "don't look at me", "do not look at me", "let's just ask", "let us just ask", "let's ask", "can't add",
    "cannot add", "no head for numbers", "smarter than us",
)  # fmt: skip
"""a human gives up on a question: the next request to the room is for the assistant"""
ANSWERABLE_CUES = (
    "how many", "how much", "how long", "how far", "what time", "when", "total", "altogether",
    "all together", "in all", "add up", "sum", "owe", "headcount", "left", "remaining", "to go",
    "still", "cheapest", "most expensive", "which one", "what did", "what was", "what is", "what's",
    "where", "who", "work out", "figure out", "tell us", "tell me", "difference", "how far", "which",
)  # fmt: skip
NEGATIVE_CUES = (
    "declined", "decline", "cancelled", "canceled", "dropped out", "can't come", "cannot come",
    "not coming", "minus", "less", "subtract", "took off", "refund", "won't come", "backed out",
)  # fmt: skip
STOP = set(
    "a an the and or but so of to in on at for with from by is are was were be been am do does did "
    "i you he she it we they me him her us them my your his its our their this that these those what "
    "when where who which why how can could would will shall should may might have has had not no "
    "yes just really then there here about up down out over again all any some more most very too "
    "okay ok well right oh hey please thanks thank given".split()
)
UNITS = {
    "dollar": "dollars", "dollars": "dollars", "bucks": "dollars", "buck": "dollars", "$": "dollars",
    "euro": "euros", "euros": "euros", "pound": "pounds", "pounds": "pounds",
    "kilometre": "kilometres", "kilometres": "kilometres", "kilometer": "kilometres",
    "kilometers": "kilometres", "km": "kilometres", "mile": "miles", "miles": "miles",
    "people": "people", "person": "people", "colleagues": "people", "guests": "people",
}  # fmt: skip
DURATION_UNITS = {"minute": 1, "minutes": 1, "min": 1, "mins": 1, "hour": 60, "hours": 60}
SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "an": 1,
}  # fmt: skip
NUMBER_WORDS = set(SMALL) - {"a", "an"} | {"hundred", "thousand", "half", "quarter"}


@dataclass(frozen=True)
class Heard:
    """One utterance as the cascade's ASR heard it, with its time on the cascade's clock."""

    text: str
    start_ms: int
    end_ms: int


@dataclass(frozen=True)
class Addressing:
    addressed: bool
    reason: str
    """machine-readable: wake_word, duty, monologue, named_request, implicit_after_cue, mention, vocative_other, self_talk, implicit_request, no_request"""


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str
    """"dollars", "kilometres", "people" …, "clock" (minutes after midnight), "minutes"
    (a duration), the plural noun after the number ("laps"), or "" """
    sentence: str
    negative: bool = False
    clause: str = ""
    """the part of the sentence the number sits in (split at commas, "and", "but", ";")"""


def words(text: str) -> list[str]:
    low = re.sub(r"\bhead count\b", "headcount", text.lower().replace("-", " "))
    return re.findall(r"[a-z0-9$']+(?:[.:][0-9]+)?", low)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+", text.strip()) if s.strip()]


def mentions_name(text: str, name: str = "aria") -> bool:
    variants = NAME_VARIANTS.get(name.lower(), (name.lower(),))
    return any(w in variants for w in words(text))


_FILLERS = ("so", "and", "okay", "ok", "well", "hey", "now", "then", "alright", "please", "oh")


def _strip_vocative(sentence: str) -> str:
    """Drop fillers and a leading vocative name: "So, Aria, what …" → "what …"."""
    s = sentence.strip()
    while True:
        m = re.match(r"^\W*(?:(?:" + "|".join(_FILLERS) + r")\b|[A-Z][a-z]+\s*,)\W*", s, re.I)
        if not m or not m.group(0).strip() or len(m.group(0)) >= len(s):
            return s
        word = m.group(0).strip(" ,.!").lower()
        if word in QUESTION_OPENERS and "," not in m.group(0):
            return s
        s = s[len(m.group(0)) :]


AUX = {
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "will",
    "would",
    "can",
    "could",
    "should",
    "shall",
    "have",
    "has",
    "had",
    "am",
    "may",
    "might",
    "must",
}


def is_question(sentence: str) -> bool:
    """Whisper's "?" or a question opening; "when/where/why" only with an auxiliary after them
    ("when does …" asks, "when they speak …" does not)."""
    if sentence.strip().endswith("?"):
        return True
    ws = words(_strip_vocative(sentence))
    if not ws or ws[0] not in QUESTION_OPENERS or ws[:2] in (["do", "not"], ["don't"]) or ws[0] == "don't":
        return False
    if ws[0] in ("when", "where", "why"):
        return len(ws) > 1 and (ws[1] in AUX or ws[1].endswith("'s"))
    return True


def is_request(sentence: str) -> bool:
    """A question, or an imperative request verb at the start ("Aria, tell us …", "please add up …")."""
    if is_question(sentence):
        return True
    rest = " ".join(words(_strip_vocative(sentence)))
    return any(rest.startswith(v + " ") or rest == v for v in REQUEST_VERBS)


def leading_vocative(sentence: str, name: str) -> str | None:
    """A name addressed at the start of a sentence ("Ben, …", "Thank you, Helen.")."""
    m = re.match(
        r"^\s*(?:(?:ok(?:ay)?|so|well|thanks|thank you|good|right|dad|mum|mom)[,.]?\s+)?([A-Z][a-z]+),",
        sentence,
    )
    if m and _another_name(m.group(1), name):
        return m.group(1)
    if re.match(r"^\s*(dad|mum|mom|mate|guys|honey|love)\b,", sentence, re.I):
        return sentence.split(",")[0].strip()
    # "Okay okay, Peter, can you …": a name right before the request
    m = re.search(
        r"\b([A-Z][a-z]+),\s+(?:can|could|would|will|do|did|please|what|how|when|where|who|which|is|are)\b",
        sentence,
    )
    if m and _another_name(m.group(1), name):
        return m.group(1)
    return None


def _another_name(word: str, name: str) -> bool:
    """A capitalised word that is a person's name, and not the assistant's (nor "What", "The" …)."""
    low = word.lower()
    if low in NAME_VARIANTS.get(name.lower(), (name.lower(),)):
        return False
    return low not in QUESTION_OPENERS and low not in STOP


def gives_up(text: str) -> bool:
    """A human says they cannot answer ("don't ask me, I've lost track") or turns to the assistant."""
    low = text.lower().replace("’", "'")
    return any(c in low for c in HELPLESS_CUES)


def addressing(text: str, name: str = "Aria", before: tuple[str, ...] | list[str] = ()) -> Addressing:
    """Is `text` for the assistant? `before`: the utterance(s) heard just before it, for context."""
    low = text.lower()
    if any(re.search(rf"\b{w}\b", low) for w in WAKE_WORDS):
        return Addressing(False, "wake_word")
    variants = "|".join(NAME_VARIANTS.get(name.lower(), (name.lower(),)))
    if re.search(
        rf"\byou(?: are|'re)\s+(?:now\s+)?(?:{variants})\b|\byour name is\b|\bfor this session\b", low
    ):
        return Addressing(False, "duty")  # the spoken duty preamble: instructions, not a request
    if len(words(text)) > 45:
        return Addressing(False, "monologue")  # requests are short; long speech is talk or instructions
    sents = sentences(text) or [text]
    if mentions_name(text, name):
        for s in sents[next(i for i, s in enumerate(sents) if mentions_name(s, name)) :]:
            if is_request(s):
                return Addressing(True, "named_request")
        return Addressing(False, "mention")
    asks = [s for s in sents if is_request(s)]
    if not asks:
        return Addressing(False, "no_request")
    q = asks[-1]
    if leading_vocative(q, name):
        return Addressing(False, "vocative_other")
    lead_in = text[: text.rfind(q)] if q in text else ""
    if gives_up(lead_in) or any(gives_up(b) for b in list(before)[-1:]):
        return Addressing(True, "implicit_after_cue")
    qw = set(words(q))
    group = bool(qw & {"we", "us", "our", "you", "your"}) or bool(
        re.match(r"^\s*(so|okay|quick question|could we|can we|can someone|can somebody|anyone)\b", q, re.I)
    )
    if not group:
        return Addressing(False, "self_talk")
    ql = " " + " ".join(words(q)) + " "
    if not any(f" {c} " in ql or c in ql for c in ANSWERABLE_CUES):
        return Addressing(False, "no_request")
    return Addressing(True, "implicit_request")


# --- numbers -------------------------------------------------------------------------


def _parse_number_words(tokens: list[str]) -> tuple[float, int] | None:
    """Leading number words → (value, tokens used); "twenty five", "two hundred and twenty", "half"."""
    total, current, used = 0.0, 0.0, 0
    seen = False
    for i, t in enumerate(tokens):
        if (
            t in ("a", "an")
            and i + 1 < len(tokens)
            and tokens[i + 1] in ("hundred", "thousand", "half", "quarter")
        ):
            current += 1
        elif t in SMALL and t not in ("a", "an"):
            current += SMALL[t]
        elif t == "hundred" and seen:
            current = max(current, 1) * 100
        elif t == "thousand" and seen:
            total += max(current, 1) * 1000
            current = 0
        elif t == "and" and seen and i + 1 < len(tokens) and tokens[i + 1] in SMALL:
            pass
        elif t == "half" and (not seen or current == 1):
            return 0.5, i + 1
        elif t == "quarter" and (not seen or current == 1):
            return 0.25, i + 1
        else:
            break
        seen = True
        used = i + 1
    return (total + current, used) if seen and used else None


def quantities(text: str) -> list[Quantity]:
    """Numbers with a unit guess: clock times, durations (in minutes), money, distances, people."""
    out: list[Quantity] = []
    for sent in sentences(text):
        low = sent.lower()
        negative = any(c in low for c in NEGATIVE_CUES)
        toks = words(sent)
        clause_of = _clauses(sent)
        i = 0
        while i < len(toks):
            t = toks[i]
            value: float | None = None
            used = 1
            clock = None
            m = re.fullmatch(r"\$?(\d+)(?:[.:](\d+))?", t)
            if m:
                if ":" in t:
                    clock = int(m.group(1)) * 60 + int(m.group(2))
                value = float(m.group(1) + ("." + m.group(2) if m.group(2) and ":" not in t else ""))
            elif t in NUMBER_WORDS or (
                t in ("a", "an") and i + 1 < len(toks) and toks[i + 1] in NUMBER_WORDS
            ):
                parsed = _parse_number_words(toks[i:])
                if parsed:
                    value, used = parsed
            if value is None or (t in ("a", "an") and used == 1):
                i += 1
                continue
            nxt = toks[i + used] if i + used < len(toks) else ""
            nxt2 = toks[i + used + 1] if i + used + 1 < len(toks) else ""
            prev = toks[i - 1] if i > 0 else ""
            clause = clause_of[i] if i < len(clause_of) else sent
            if nxt in ("an", "a") and nxt2 in DURATION_UNITS:  # "half an hour"
                out.append(Quantity(value * DURATION_UNITS[nxt2], "minutes", sent, negative, clause))
                used += 2
            elif nxt in DURATION_UNITS:
                minutes = value * DURATION_UNITS[nxt]
                # "3 hours and 40 minutes"
                j = i + used + 1
                if (
                    j + 1 < len(toks)
                    and toks[j] == "and"
                    and toks[j + 1].isdigit()
                    and j + 2 < len(toks)
                    and toks[j + 2] in DURATION_UNITS
                ):
                    minutes += float(toks[j + 1]) * DURATION_UNITS[toks[j + 2]]
                    used += 3
                out.append(Quantity(minutes, "minutes", sent, negative, clause))
                used += 1
            elif (
                clock is not None
                or nxt in ("o'clock", "pm", "am", "oclock")
                or (prev in ("at", "until", "by") and value <= 12 and nxt not in UNITS)
            ):
                minutes = clock if clock is not None else int(value) * 60
                out.append(Quantity(minutes, "clock", sent, False, clause))
            elif nxt in ("degrees", "percent", "%", "times", "o", "th", "st"):
                pass
            else:
                unit = UNITS.get(nxt, "dollars" if t.startswith("$") else "")
                if not unit and nxt2 in UNITS and nxt not in STOP:
                    unit = UNITS[nxt2]  # "twelve more people"
                same_clause = nxt in words(clause)
                if (
                    not unit
                    and same_clause
                    and nxt not in STOP
                    and nxt not in NUMBER_WORDS
                    and not nxt[0].isdigit()
                ):
                    unit = nxt  # any counted noun: "3 laps", "two colleagues"
                out.append(Quantity(value, unit, sent, negative, clause))
            i += used
    return out


def _clauses(sentence: str) -> list[str]:
    """For each word of `sentence` (as `words` splits it), the clause it belongs to."""
    parts = re.split(r",|;|:|\band\b|\bbut\b|\balso\b", sentence, flags=re.I)
    out: list[str] = []
    for part in parts:
        n = len(words(part))
        out.extend([part.strip()] * n)
    # "and"/"but"/"also" are words too: give them the next clause
    return _realign(sentence, out)


def _realign(sentence: str, per_word: list[str]) -> list[str]:
    toks = words(sentence)
    out: list[str] = []
    k = 0
    for t in toks:
        if t in ("and", "but", "also") and (k >= len(per_word) or t not in words(per_word[k])):
            out.append(per_word[k] if k < len(per_word) else "")
            continue
        out.append(per_word[k] if k < len(per_word) else "")
        k += 1
    return out


def fmt_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def fmt_clock(minutes: float) -> str:
    """A clock time in words, as people say it ("two oh five", "three o'clock"): Piper reads
    "3:00" as "three hundred"."""
    h, mm = divmod(int(minutes) % (12 * 60), 60)
    return spell_numbers(f"{h or 12}:{mm:02d}")


def content_words(text: str) -> set[str]:
    names = {v for vs in NAME_VARIANTS.values() for v in vs}
    return {
        w.rstrip("s")
        for w in words(text)
        if w not in STOP and w not in names and len(w) > 2 and not w.isdigit()
    }
