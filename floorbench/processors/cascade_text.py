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
3. No name: a question or polite request with no human vocative at its start
   ("Ben, …", "Oliver, could you …"), phrased to the group ("we", "us",
   "our", "you", or a "so …?" / "could we have …" opening), asking for
   something a calculator or a good listener could give (how many, how much,
   what time, total, add up, headcount, left …) → addressed, implicit.
   A question in the first person singular only ("where are my keys?") is
   self-talk: silent.

Answering (`answer`), from earlier utterances only, in this order:

- totals ("total", "all together", "add up", "owe", "headcount"): the sum of
  the quantities heard earlier that are not clock times or durations; a
  quantity in a sentence that says it is taken away ("declined", "cancelled",
  "minus", "dropped out") counts negative;
- what remains ("left", "still", "to go", "remaining"): the largest quantity
  heard minus the others in the same unit;
- "what time … leave / set off / start": the latest clock time heard minus the
  durations heard ("half an hour before", "twenty-five minutes away");
- otherwise extractive: the earlier sentence sharing the most content words
  with the question (ties → the most recent), said back;
- nothing found → a short "I didn't hear that" answer (it still takes the
  floor, so an unanswerable request is answered, wrongly or vaguely, as a
  weak system would).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
ANSWERABLE_CUES = (
    "how many", "how much", "how long", "how far", "what time", "when", "total", "altogether",
    "all together", "in all", "add up", "sum", "owe", "headcount", "left", "remaining", "to go",
    "still", "cheapest", "most expensive", "which one", "what did", "what was", "what is", "what's",
    "where", "who",
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
    """machine-readable: wake_word, duty, monologue, named_request, mention, vocative_other, self_talk, implicit_request, no_request"""


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # "dollars", "people", "", "clock", "minutes"
    sentence: str
    negative: bool = False


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
    if not ws or ws[0] not in QUESTION_OPENERS:
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
    if m and m.group(1).lower() not in NAME_VARIANTS.get(name.lower(), (name.lower(),)):
        if m.group(1).lower() not in QUESTION_OPENERS and m.group(1).lower() not in STOP:
            return m.group(1)
    if re.match(r"^\s*(dad|mum|mom|mate|guys|honey|love)\b,", sentence, re.I):
        return sentence.split(",")[0].strip()
    return None


def addressing(text: str, name: str = "Aria") -> Addressing:
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
    qw = set(words(q))
    group = bool(qw & {"we", "us", "our", "you", "your"}) or bool(
        re.match(r"^\s*(so|could we|can we|can someone|anyone)\b", q, re.I)
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
            if nxt in ("an", "a") and nxt2 in DURATION_UNITS:  # "half an hour"
                out.append(Quantity(value * DURATION_UNITS[nxt2], "minutes", sent, negative))
                used += 2
            elif nxt in DURATION_UNITS:
                out.append(Quantity(value * DURATION_UNITS[nxt], "minutes", sent, negative))
                used += 1
            elif (
                clock is not None
                or nxt in ("o'clock", "pm", "am", "oclock")
                or (prev in ("at", "until", "by") and value <= 12 and nxt not in UNITS)
            ):
                minutes = clock if clock is not None else int(value) * 60
                out.append(Quantity(minutes, "clock", sent))
            elif nxt in ("degrees", "percent", "%", "times", "o", "th", "st"):
                pass
            else:
                unit = UNITS.get(nxt, "dollars" if t.startswith("$") else "")
                if not unit and nxt2 in UNITS and nxt not in STOP:
                    unit = UNITS[nxt2]  # "twelve more people"
                out.append(Quantity(value, unit, sent, negative))
            i += used
    return out


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


_HOURS = "twelve one two three four five six seven eight nine ten eleven".split()


def _fmt_clock(minutes: float) -> str:
    """A clock time in words, as people say it ("two oh five", "three o'clock"): Piper reads
    "3:00" as "three hundred"."""
    h, mm = divmod(int(minutes) % (12 * 60), 60)
    hour = _HOURS[h]
    if mm == 0:
        return f"{hour} o'clock"
    if mm < 10:
        return f"{hour} oh {_number_words(mm)}"
    return f"{hour} {_number_words(mm)}"


def _number_words(n: int) -> str:
    small = {v: k for k, v in SMALL.items() if k not in ("a", "an")}
    if n in small:
        return small[n]
    tens, ones = divmod(n, 10)
    return f"{small[tens * 10]}-{small[ones]}"


def content_words(text: str) -> set[str]:
    names = {v for vs in NAME_VARIANTS.values() for v in vs}
    return {
        w.rstrip("s")
        for w in words(text)
        if w not in STOP and w not in names and len(w) > 2 and not w.isdigit()
    }


def answer(question: str, history: list[Heard], name: str = "Aria") -> tuple[str, str]:
    """(spoken answer, which rule produced it) from the question and what was heard before it."""
    q = " " + " ".join(words(question)) + " "
    earlier = [
        h for h in history if h.text.strip() and not (mentions_name(h.text, name) and is_request(h.text))
    ]
    qs = [x for h in earlier for x in quantities(h.text)]
    amounts = [x for x in qs if x.unit not in ("clock", "minutes")]
    asked_unit = next((UNITS[w] for w in words(question) if w in UNITS), "")
    if "headcount" in q or " how many people " in q:
        asked_unit = "people"
    # people are often counted without a unit word: "three of them declined"
    matching = [x for x in amounts if x.unit == asked_unit or (asked_unit == "people" and not x.unit)]
    matching = matching if asked_unit else amounts
    if any(f" {c} " in q for c in ("left", "still", "to go", "remaining", "remain")) and len(matching) >= 2:
        unit = asked_unit or _majority_unit(matching)
        same = [x for x in matching if x.unit == unit] if unit else matching
        if len(same) >= 2:
            big = max(same, key=lambda x: x.value)
            rest = sum(x.value for x in same if x is not big)
            return f"You have {_fmt(big.value - rest)}{' ' + unit if unit else ''} still to go.", "remaining"
    sum_cues = (
        "total",
        "altogether",
        "all together",
        "in all",
        "add up",
        "sum",
        "owe",
        "headcount",
        "how many",
        "how much",
    )
    if any(f" {c} " in q for c in sum_cues) and matching:
        total = sum(-x.value if x.negative else x.value for x in matching)
        unit = asked_unit or _majority_unit(matching)
        rule = "total" if len(matching) > 1 else "single_quantity"
        return f"That's {_fmt(total)}{' ' + unit if unit else ''} in total.", rule
    clocks = [x for x in qs if x.unit == "clock"]
    if (" what time " in q or " when " in q) and clocks:
        durations = [x for x in qs if x.unit == "minutes" and qs.index(x) > qs.index(clocks[-1]) - 1]
        # "… need to leave", also when Whisper hears "live"
        leave = any(
            f" {w} " in q for w in ("leave", "set off", "go", "start", "head out", "need to", "have to")
        )
        if leave and durations and " what time " in q:
            t = clocks[-1].value - sum(d.value for d in durations)
            return f"You should leave at {_fmt_clock(t)}.", "time_minus_durations"
        return f"At {_fmt_clock(clocks[-1].value)}, I think.", "clock_time"
    return _extractive(question, earlier)


def _majority_unit(qs: list[Quantity]) -> str:
    units = [x.unit for x in qs if x.unit]
    return max(set(units), key=units.count) if units else ""


def _extractive(question: str, earlier: list[Heard]) -> tuple[str, str]:
    qwords = content_words(question)
    best, best_score = None, 0.0
    for h in earlier:
        for s in sentences(h.text):
            overlap = len(qwords & content_words(s))
            score = overlap + (0.5 if quantities(s) else 0.0)
            if overlap and score >= best_score:
                best, best_score = s, score
    if best:
        return f"Earlier someone said: {best.rstrip('.?!')}.", "extractive"
    return "Sorry, I did not hear anything about that earlier, so I can't say.", "no_evidence"
