"""The cascade's answers: small, documented solvers over what its ASR heard earlier in the room.

`answer(question, heard)` tries, in order, the first rule whose question form
matches and whose evidence was heard (earlier, or as statements before the question in
the same utterance); every rule works on the quantities that
`cascade_text.quantities` finds, each tied to the clause it was said in, and on
the items the question names ("the entry fee, the sports watch and …"):

| question form | rule | answer |
|---|---|---|
| "which is closest / cheapest / farthest …, A, B or C?" | `extreme` | the option whose quantity is smallest / largest |
| "how much more … A than B", "difference" | `difference` | abs(A − B) |
| "split … N ways", "the N of us … each" | `split` | (sum of the named items, or all amounts) ÷ N |
| "how much … left", "still to go", "remaining" | `remaining` | budget or largest amount − the named (or other) items |
| "how long / how much time from A to B" | `duration_between` | clock B − clock A |
| "what time will … be done / finish / end" | `end_time` | latest clock + durations |
| "what time … leave / need to / have to" | `time_minus_durations` | latest clock − durations |
| "what time / when …" | `clock_time` | latest clock time heard |
| "how many … coming / will be" | `count_after_changes` | count − names or numbers that dropped out + numbers that joined |
| "total", "altogether", "add up", "owe", "how many/much" | `total` | sum of the named items' quantities (else all in the asked unit) |
| anything else | `extractive` | the earlier sentence sharing most content words (names count double) |
| nothing heard | `no_evidence` | "I did not hear anything about that" |

Times are said in words (Piper reads "3:00" as "three hundred").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from floorbench.processors.cascade_text import (
    NAME_VARIANTS,
    SMALL,
    STOP,
    UNITS,
    Heard,
    Quantity,
    content_words,
    fmt_clock,
    fmt_number,
    is_request,
    leading_vocative,
    mentions_name,
    quantities,
    sentences,
    words,
)

EXTREMES = {
    "closest": min, "nearest": min, "cheapest": min, "shortest": min, "quickest": min, "least": min,
    "fewest": min, "earliest": min, "farthest": max, "furthest": max, "most expensive": max,
    "priciest": max, "longest": max, "biggest": max, "most": max, "latest": max,
}  # fmt: skip
GROUP_SIZE = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "both": 2}
DROP_CUES = ("can't make it", "cannot make it", "can't come", "not coming", "dropped out", "declined", "cancelled", "canceled", "won't make it", "won't come", "pulled out", "backed out")  # fmt: skip
JOIN_CUES = (
    "confirmed",
    "joining",
    "join us",
    "will join",
    "also coming",
    "are coming too",
    "signed up",
    "added",
)


STOPS_ITEM = re.compile(
    r",|\band\b|\bthan\b|\bor\b|\?|\bcome|\bcost|\bare\b|\bis\b|\bwas\b|\bwere\b|\bevenly\b|\bif\b"
    r"|\bfor\b|\bto\b|\bfrom\b|\bbe\b|\bwill\b|\btogether\b|\baltogether\b|\bhow\b|\bsplit\b|\bin\b"
)


def _items(question: str) -> list[str]:
    """Item phrases the question names: "the entry fee, the sports watch and the energy gels"."""
    out = []
    for frag in re.split(r"\bthe\s+", question.lower())[1:]:
        head = STOPS_ITEM.split(frag, maxsplit=1)[0]
        ws = [w for w in words(head) if w not in STOP]
        if ws and not (
            set(ws) & {"total", "four", "three", "two", "five", "six", "us", "group", "headcount"}
        ):
            out.append(" ".join(ws))
    return out


def _item_quantity(item: str, qs: list[Quantity]) -> Quantity | None:
    """The latest quantity said in a clause that names `item` (all its words, or its last word)."""
    iw = {w.rstrip("s") for w in item.split()}
    best = None
    for q in qs:
        cw = {w.rstrip("s") for w in words(q.clause or q.sentence)}
        if iw <= cw or (item.split()[-1].rstrip("s") in cw and len(iw & cw) >= max(1, len(iw) - 1)):
            best = q
    return best


def _asked_unit(question: str, amounts: list[Quantity]) -> str:
    qw = words(question)
    for w in qw:
        if w in UNITS:
            return UNITS[w]
    units = {x.unit for x in amounts if x.unit}
    for w in qw:
        for u in units:
            if w.rstrip("s") == u.rstrip("s"):
                return u
    if "headcount" in qw or ("how" in qw and "many" in qw and "people" in qw):
        return "people"
    return ""


def _say(value: float, unit: str) -> str:
    return f"{fmt_number(value)}{' ' + unit if unit and unit not in ('clock', 'minutes') else ''}"


def _duration_words(minutes: float) -> str:
    h, m = divmod(round(minutes), 60)
    parts = ([f"{h} hour{'s' if h != 1 else ''}"] if h else []) + ([f"{m} minutes"] if m else [])
    return " and ".join(parts) or "no time at all"


Answer = tuple[str, str]
"""(spoken answer, the rule that produced it)"""


@dataclass(frozen=True)
class Evidence:
    """What a rule works on: the question, and the quantities heard before it."""

    question: str
    q: str
    """the question's words, lower case, space-padded (so that ``f" {cue} " in q`` finds whole words)"""
    earlier: list[Heard]
    """what was heard before, without the requests to the assistant"""
    qs: list[Quantity]
    amounts: list[Quantity]
    clocks: list[Quantity]
    durations: list[Quantity]
    items: list[str]
    """the item phrases the question names"""
    named: list[Quantity]
    """the quantities of those items, in the question's order"""
    unit: str
    """the unit the question asks in ("" when it names none)"""


def answer(question: str, history: list[Heard], name: str = "Aria") -> Answer:
    """(spoken answer, the rule that produced it) from the question and what was heard before it."""
    ev = _evidence(question, history, name)
    for rule in RULES:
        found = rule(ev)
        if found is not None:
            return found
    return _extractive(question, ev.earlier)


def _evidence(question: str, history: list[Heard], name: str) -> Evidence:
    earlier = [
        h for h in history if h.text.strip() and not (mentions_name(h.text, name) and is_request(h.text))
    ]
    qs = [x for h in earlier for x in quantities(h.text)]
    asked, told = _asked_and_told(question)
    told_qs = quantities(told) if told else []
    if told_qs:  # facts said in the same breath as the question are heard too, last; one said again counts once
        earlier = [*earlier, Heard(told, -1, -1)]
        qs += [x for x in told_qs if not any((x.value, x.unit) == (y.value, y.unit) for y in qs)]
    amounts = [x for x in qs if x.unit not in ("clock", "minutes")]
    items = _items(question)
    named = [x for x in (_item_quantity(i, amounts) for i in items) if x is not None]
    if named and len(named) < len(items):
        # an item not heard by its name (ASR: "salmon" → "cement") takes a remaining amount
        # in the same unit, latest first
        ref = named[0].unit
        spare = [x for x in amounts if x not in named and (x.unit == ref or not x.unit or not ref)]
        named = named + spare[::-1][: len(items) - len(named)]
    return Evidence(
        question=question,
        q=" " + " ".join(words(question)) + " ",
        earlier=earlier,
        qs=qs,
        amounts=amounts,
        clocks=[x for x in qs if x.unit == "clock"],
        durations=[x for x in qs if x.unit == "minutes"],
        items=items,
        named=named,
        unit=_asked_unit(asked, amounts),
    )


def _asked_and_told(question: str) -> tuple[str, str]:
    """(the sentence that asks, the statements said before it in the same utterance).

    A caller who was not understood says the facts and the question in one breath ("I bought three
    apples and two pears. How many pieces of fruit is that?"): the facts are evidence, and the unit
    asked for is the asking sentence's ("pieces of fruit", none of the units heard), not the first
    unit named anywhere in the utterance ("apples")."""
    parts = sentences(question)
    at = max((i for i, p in enumerate(parts) if p.endswith("?")), default=len(parts) - 1)
    if at <= 0:
        return question, ""
    return parts[at], " ".join(p for p in parts[:at] if not p.endswith("?"))


def _extreme(ev: Evidence) -> Answer | None:
    """Which option is closest / cheapest …"""
    for word, pick in EXTREMES.items():
        if f" {word} " in ev.q and len(ev.items) >= 2:
            options = [(i, _item_quantity(i, ev.amounts)) for i in ev.items]
            known = [(i, x) for i, x in options if x is not None]
            if len(known) >= 2:
                best = pick(known, key=lambda p: p[1].value)
                return f"The {best[0]}, at {_say(best[1].value, best[1].unit)}.", "extreme"
    return None


def _difference(ev: Evidence) -> Answer | None:
    q, unit = ev.q, ev.unit
    if (" more " in q and " than " in q) or " difference " in q:
        pair = ev.named if len(ev.named) >= 2 else [x for x in ev.amounts if not unit or x.unit == unit][-2:]
        if len(pair) >= 2:
            return (
                f"The difference is {_say(abs(pair[0].value - pair[1].value), pair[0].unit or unit)}.",
                "difference",
            )
    return None


def _split(ev: Evidence) -> Answer | None:
    q, unit = ev.q, ev.unit
    n_way = next(
        (
            GROUP_SIZE[w]
            for w in words(ev.question)
            if w in GROUP_SIZE and (" split " in q or " each " in q or " of us " in q)
        ),
        None,
    )
    m = re.search(r"\b(\d+) ways\b", q)
    if m:
        n_way = int(m.group(1))
    if n_way and (" split " in q or " each " in q or " share " in q or " per " in q):
        base = ev.named or [x for x in ev.amounts if not unit or x.unit == unit]
        if base:
            total = sum(x.value for x in base)
            return f"That's {_say(total / n_way, base[0].unit or unit)} each.", "split"
    return None


def _remaining(ev: Evidence) -> Answer | None:
    q, unit = ev.q, ev.unit
    if any(f" {c} " in q for c in ("left", "still", "to go", "remaining", "remain", "further", "farther")):
        pool = [x for x in ev.amounts if not unit or x.unit == unit or not x.unit]
        if len(pool) >= 2:
            cap = next(
                (
                    x
                    for x in pool
                    if re.search(
                        r"at most|budget|limit|spend|in total|whole|all the way|total",
                        x.clause or x.sentence,
                        re.I,
                    )
                ),
                None,
            )
            cap = cap or max(pool, key=lambda x: x.value)
            spent = [x for x in ev.named if x is not cap] or [x for x in pool if x is not cap]
            left = cap.value - sum(x.value for x in spent)
            return f"You have {_say(left, cap.unit or unit)} left.", "remaining"
    return None


def _duration_between(ev: Evidence) -> Answer | None:
    if (" how long " in ev.q or " how much time " in ev.q) and len(ev.clocks) >= 2:
        a, b = ev.clocks[-2], ev.clocks[-1]
        return f"That's {_duration_words(abs(b.value - a.value))}.", "duration_between"
    return None


def _clock(ev: Evidence) -> Answer | None:
    """What time: the end of something, when to leave, or the latest time heard."""
    q, clocks = ev.q, ev.clocks
    if not ((" what time " in q or " when " in q) and clocks):
        return None
    # only durations said with or after the latest clock time belong to it
    last = max(i for i, x in enumerate(ev.qs) if x.unit == "clock")
    durations = [x for x in ev.qs[last:] if x.unit == "minutes"] or ev.durations
    if any(
        f" {w} " in q for w in ("done", "finish", "finished", "over", "end", "ends", "wrap up", "be back")
    ):
        t = clocks[-1].value + sum(d.value for d in durations)
        return f"At {fmt_clock(t)}.", "end_time"
    if (
        " what time " in q
        and durations
        and any(f" {w} " in q for w in ("leave", "set off", "go", "start", "head out", "need to", "have to"))
    ):
        t = clocks[-1].value - sum(d.value for d in durations)
        return f"You should leave at {fmt_clock(t)}.", "time_minus_durations"
    return f"At {fmt_clock(clocks[-1].value)}, I think.", "clock_time"


def _count(ev: Evidence) -> Answer | None:
    if " how many " in ev.q and any(
        f" {w} " in ev.q
        for w in ("coming", "come", "will be", "actually", "now", "expect", "be there", "attending")
    ):
        counted = _count_after_changes(ev.earlier, ev.unit)
        if counted is not None:
            value, u = counted
            return f"That's {_say(value, u)}.", "count_after_changes"
    return None


SUM_CUES = (
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
    "come to",
)


def _total(ev: Evidence) -> Answer | None:
    unit = ev.unit
    if any(f" {c} " in ev.q for c in SUM_CUES):
        base = (
            ev.named
            if ev.named
            else [x for x in ev.amounts if x.unit == unit or (unit == "people" and not x.unit)]
            if unit
            else ev.amounts
        )
        if base:
            total = sum(-x.value if x.negative else x.value for x in base)
            rule = "total" if len(base) > 1 else "single_quantity"
            return f"That's {_say(total, base[0].unit or unit)} in total.", rule
    return None


RULES: tuple[Callable[[Evidence], Answer | None], ...] = (
    _extreme,
    _difference,
    _split,
    _remaining,
    _duration_between,
    _clock,
    _count,
    _total,
)
"""tried in this order (the module docstring's table); the first that answers wins"""


def _count_after_changes(earlier: list[Heard], unit: str) -> tuple[float, str] | None:
    """Start from the first count heard; subtract who dropped out, add who joined."""
    start: Quantity | None = None
    change = 0.0
    for h in earlier:
        for sent in sentences(h.text):
            low = sent.lower()
            qs = [x for x in quantities(sent) if x.unit not in ("clock", "minutes")]
            if start is None and qs and not any(c in low for c in DROP_CUES + JOIN_CUES):
                start = qs[0]
                continue
            if start is None:
                continue
            sign = -1 if any(c in low for c in DROP_CUES) else 1 if any(c in low for c in JOIN_CUES) else 0
            if not sign:
                continue
            if qs:
                change += sign * sum(x.value for x in qs)
            else:  # "Erin, Lucas and Carla can't make it": count the names
                vocative = leading_vocative(sent, "Aria")
                caps = list(re.finditer(r"\b[A-Z][a-z]+\b", sent))
                # a capital at the start of the sentence is a name only in a list ("Erin, Lucas and …")
                lead = len(sent) - len(sent.lstrip())
                if caps and caps[0].start() == lead and not sent[caps[0].end() :].startswith(","):
                    caps = caps[1:]
                names = {
                    m.group(0)
                    for m in caps
                    if m.group(0).lower() not in STOP
                    and m.group(0).lower() not in NAME_VARIANTS["aria"]
                    and m.group(0).lower() not in SMALL
                } - {vocative}
                change += sign * len(names)
    if start is None:
        return None
    return start.value + change, start.unit or unit


def _extractive(question: str, earlier: list[Heard]) -> tuple[str, str]:
    qwords = content_words(question)
    qnames = {w for w in re.findall(r"\b[A-Z][a-z]+\b", question) if w.lower() not in NAME_VARIANTS["aria"]}
    best, best_score = None, 0.0
    for h in earlier:
        for s in sentences(h.text):
            overlap = len(qwords & content_words(s)) + len(qnames & set(re.findall(r"\b[A-Z][a-z]+\b", s)))
            score = overlap + (0.5 if quantities(s) else 0.0)
            if overlap and score >= best_score:
                best, best_score = s, score
    if best:
        return f"Earlier someone said: {best.rstrip('.?!')}.", "extractive"
    return "Sorry, I did not hear anything about that earlier, so I can't say.", "no_evidence"
