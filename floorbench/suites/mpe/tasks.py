"""Task families of the procedural generator: evidence facts, the request, and a gold answer computed from the facts.

A task family draws entities and numbers from an activity's lexicon, states
them as `Fact`s (each with several phrasings, in first and third person where
a person is involved), and computes the gold answer from the same numbers —
so the gold is right by construction. The composer in `generate.py` spreads
the facts over the turns before the request.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from floorbench.suites.mpe.vocab import Activity

# --------------------------------------------------------------------------- words


def cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def join_and(parts: list[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """English words for 0 <= n < 1 000 000 ('one hundred and forty-two')."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        t, o = divmod(n, 10)
        return _TENS[t] + (f"-{_ONES[o]}" if o else "")
    if n < 1000:
        h, r = divmod(n, 100)
        return f"{_ONES[h]} hundred" + (f" and {number_words(r)}" if r else "")
    th, r = divmod(n, 1000)
    if r == 0:
        return f"{number_words(th)} thousand"
    return f"{number_words(th)} thousand" + (" and " if r < 100 else " ") + number_words(r)


def clock_forms(minutes: int) -> list[str]:
    """Spoken forms of a time of day (minutes since midnight), 12-hour clock."""
    h24, m = divmod(minutes % (24 * 60), 60)
    h = h24 % 12 or 12
    nxt = (h24 + 1) % 12 or 12
    digits = f"{h}:{m:02d}" if m else f"{h} o'clock"
    forms = [f"{h}:{m:02d}" if m else f"{h}", digits]
    words = {0: f"{number_words(h)} o'clock", 15: f"quarter past {number_words(h)}",
             30: f"half past {number_words(h)}", 45: f"quarter to {number_words(nxt)}"}
    if m in words:
        forms.append(words[m])
    if m and m % 5 == 0 and m not in words:
        forms.append(f"{number_words(m)} past {number_words(h)}" if m < 30 else f"{number_words(60 - m)} to {number_words(nxt)}")
    return list(dict.fromkeys(forms))


def clock_gold(minutes: int) -> tuple[str, list[str]]:
    h24, m = divmod(minutes % (24 * 60), 60)
    h = h24 % 12 or 12
    gold = f"{h}:{m:02d}"
    suffix = "am" if h24 < 12 else "pm"
    aliases = [f"{gold} {suffix}", f"{h24:02d}:{m:02d}", *[f for f in clock_forms(minutes) if f != gold]]
    return gold, list(dict.fromkeys(aliases))


def duration_words(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    if h == 0:
        return f"{m} minutes"
    hs = "an hour" if h == 1 else f"{h} hours"
    if m == 0:
        return hs
    if m == 30:
        return f"{'an hour' if h == 1 else f'{h} hours'} and a half" if h > 1 else "an hour and a half"
    return f"{hs} and {m} minutes"


def duration_aliases(minutes: int) -> list[str]:
    h, m = divmod(minutes, 60)
    out = [f"{minutes} minutes"]
    if h:
        out.append(f"{h} hour{'s' if h > 1 else ''} {m} minutes" if m else f"{h} hour{'s' if h > 1 else ''}")
    return out


# --------------------------------------------------------------------------- records


@dataclass
class Fact:
    """One piece of evidence, said in one turn."""

    third: list[str]
    """phrasings without a leading capital or final stop, e.g. 'the salmon was 18 dollars'"""
    first: list[str] = field(default_factory=list)
    """phrasings for when the speaker is `person` ('I'm bringing 4 chairs')"""
    person: str | None = None
    """speaker id the fact is about, if any"""
    order: int = 0
    """facts with a lower order must be said first (e.g. 'we reset the counter' before 'it says 140')"""


@dataclass
class Task:
    family: str
    facts: list[Fact]
    direct: list[str]
    """direct questions, lower-case start, no '?': 'what do the salmon and the wine come to'"""
    indirect: list[str]
    """embedded questions: 'what the salmon and the wine come to'"""
    gold: str
    aliases: list[str]
    subject: str
    """a short noun phrase for what the task is about (used in cues and chatter)"""
    not_asker: set[str] = field(default_factory=set)
    """speaker ids who must not make the request (they would be asking about themselves)"""


@dataclass
class Ctx:
    rng: random.Random
    activity: Activity
    currency: str
    unit: str
    names: dict[str, str]
    """speaker id -> name"""
    travelling: bool
    """the location moves (vehicle) or people are out on foot"""


PEOPLE_NOUNS = frozenset({"guests", "people", "helpers", "sponsors"})


def _money(n: int, ctx: Ctx) -> str:
    return f"{n} {ctx.currency}"


def _money_gold(n: int, ctx: Ctx) -> tuple[str, list[str]]:
    sym = {"dollars": "$", "euros": "€", "pounds": "£"}[ctx.currency]
    return f"{n} {ctx.currency}", [f"{sym}{n}", f"{number_words(n)} {ctx.currency}", str(n)]


def _pick_items(ctx: Ctx, k: int) -> list[tuple[str, int]]:
    items = ctx.rng.sample(list(ctx.activity.items), k)
    return [(name, ctx.rng.randint(lo, hi)) for name, lo, hi in items]


def is_plural(noun: str) -> bool:
    return " and " in noun or (noun.endswith("s") and not noun.endswith("ss"))


def _price_fact(name: str, price: int, ctx: Ctx) -> Fact:
    p = _money(price, ctx)
    was, is_ = ("were", "are") if is_plural(name) else ("was", "is")
    return Fact(third=[f"{name} {was} {p}", f"{name} came to {p}", f"we paid {p} for {name}", f"{name} cost {p}",
                       f"{name} {is_} {p}", f"{name} will be {p}"],
                first=[f"I paid {p} for {name}", f"I got {name} for {p}"])


# --------------------------------------------------------------------------- families


def sum_cost(ctx: Ctx) -> Task | None:
    if len(ctx.activity.items) < 3:
        return None
    k = ctx.rng.choice((2, 3))
    chosen = _pick_items(ctx, k + 1)
    asked, extra = chosen[:k], chosen[k]
    facts = [_price_fact(n, p, ctx) for n, p in chosen]
    ctx.rng.shuffle(facts)
    x = join_and([n for n, _ in asked])
    gold, aliases = _money_gold(sum(p for _, p in asked), ctx)
    _ = extra
    return Task("sum_cost", facts,
                direct=[f"what do {x} come to altogether", f"how much are {x} in total", f"what's the total for {x}",
                        f"what did {x} cost all together"],
                indirect=[f"what {x} come to altogether", f"how much {x} cost in total", f"the total for {x}"],
                gold=gold, aliases=aliases, subject=x)


def split_cost(ctx: Ctx) -> Task | None:
    if len(ctx.activity.items) < 2:
        return None
    m = len(ctx.names)
    k = ctx.rng.choice((2, 2, 3))
    chosen: list[tuple[str, int]] = []
    total = 0
    for _ in range(50):
        chosen = _pick_items(ctx, k)
        total = sum(p for _, p in chosen)
        if total % m == 0:
            break
    else:
        # nudge the last price so the share is whole
        name, p = chosen[-1]
        chosen[-1] = (name, p + (m - total % m))
        total = sum(p for _, p in chosen)
    facts = [_price_fact(n, p, ctx) for n, p in chosen]
    x = join_and([n for n, _ in chosen])
    gold, aliases = _money_gold(total // m, ctx)
    return Task("split_cost", facts,
                direct=[f"if the {number_words(m)} of us split {x} evenly, how much is that each",
                        f"how much does each of us owe for {x}, split {number_words(m)} ways",
                        f"what's each person's share of {x} if we split it {number_words(m)} ways"],
                indirect=[f"how much each of us owes for {x} if we split it {number_words(m)} ways",
                          f"what each person's share of {x} is, split between the {number_words(m)} of us"],
                gold=gold, aliases=aliases, subject=f"the share for {x}")


def price_difference(ctx: Ctx) -> Task | None:
    if len(ctx.activity.items) < 2:
        return None
    (a, pa), (b, pb) = _pick_items(ctx, 2)
    for _ in range(20):
        if pa != pb:
            break
        (a, pa), (b, pb) = _pick_items(ctx, 2)
    if pa == pb:
        pa += 3
    if pa < pb:
        (a, pa), (b, pb) = (b, pb), (a, pa)
    gold, aliases = _money_gold(pa - pb, ctx)
    is_ = "are" if is_plural(a) else "is"
    return Task("price_difference", [_price_fact(a, pa, ctx), _price_fact(b, pb, ctx)],
                direct=[f"how much more {is_} {a} than {b}", f"what's the difference in price between {a} and {b}",
                        f"how much more did {a} cost than {b}"],
                indirect=[f"how much more {a} {is_} than {b}", f"the difference in price between {a} and {b}"],
                gold=gold, aliases=aliases, subject=f"{a} and {b}")


def budget_left(ctx: Ctx) -> Task | None:
    if len(ctx.activity.items) < 2:
        return None
    chosen = _pick_items(ctx, 2)
    spent = sum(p for _, p in chosen)
    budget = ((spent * ctx.rng.choice((12, 15, 18, 20)) // 10) // 10 + 1) * 10
    b = _money(budget, ctx)
    facts = [Fact(third=[f"our budget for all this is {b}", f"we said we'd spend {b} at most",
                         f"the whole budget is {b}"], first=[f"I can put in {b} in total, that's the budget"], order=-1)]
    facts += [_price_fact(n, p, ctx) for n, p in chosen]
    x = join_and([n for n, _ in chosen])
    gold, aliases = _money_gold(budget - spent, ctx)
    return Task("budget_left", facts,
                direct=[f"how much of the budget is left after {x}", f"what's left of our budget once we pay for {x}",
                        f"after {x}, how much money do we have left"],
                indirect=[f"how much of the budget is left after {x}", f"what's left of the budget once we pay for {x}"],
                gold=gold, aliases=aliases, subject="the budget")


def unit_total(ctx: Ctx) -> Task | None:
    things = [c for c in ctx.activity.countables if c[0] not in PEOPLE_NOUNS]
    if not things:
        return None
    noun, lo, hi = ctx.rng.choice(things)
    n = ctx.rng.randint(max(lo, 2), max(hi, 3))
    unit = ctx.rng.randint(2, 12) if hi > 10 else ctx.rng.randint(4, 30)
    u = _money(unit, ctx)
    facts = [Fact(third=[f"we need {n} {noun}", f"it'll be {n} {noun} in the end", f"we're getting {n} {noun}"],
                  first=[f"I counted, we need {n} {noun}"]),
             Fact(third=[f"the {noun} are {u} each", f"they charge {u} per one for the {noun}",
                         f"it's {u} apiece for the {noun}"])]
    ctx.rng.shuffle(facts)
    gold, aliases = _money_gold(n * unit, ctx)
    return Task("unit_total", facts,
                direct=[f"how much will the {noun} cost us in total", f"what do all the {noun} come to",
                        f"what's the total for the {noun}"],
                indirect=[f"how much the {noun} will cost in total", f"what all the {noun} come to"],
                gold=gold, aliases=aliases, subject=f"the {noun}")


def distance_left(ctx: Ctx) -> Task | None:
    if not ctx.activity.places or not ctx.travelling:
        return None
    place, lo, hi = ctx.rng.choice(ctx.activity.places)
    total = ctx.rng.randint(max(lo, 6), max(hi, 12))
    done = ctx.rng.randint(max(1, total // 5), total * 4 // 5)
    u = ctx.unit
    facts = [Fact(third=[f"{place} is {total} {u} from where we started", f"it's {total} {u} from the start to {place}",
                         f"the whole way to {place} is {total} {u}"], order=0),
             Fact(third=[f"we've done {done} {u} so far", f"the counter says {done} {u} since we set off",
                         f"that's {done} {u} behind us now"], first=[f"I've been tracking it, we've done {done} {u}"],
                  order=1)]
    gold = f"{total - done} {u}"
    return Task("distance_left", facts,
                direct=[f"how many {u} are left to {place}", f"how far is it still to {place}",
                        f"how much further to {place}"],
                indirect=[f"how many {u} are left to {place}", f"how far it still is to {place}"],
                gold=gold, aliases=[f"{number_words(total - done)} {u}", str(total - done)], subject=place)


def distance_total(ctx: Ctx) -> Task | None:
    if len(ctx.activity.places) < 2:
        return None
    (p1, lo1, hi1), (p2, lo2, hi2) = ctx.rng.sample(list(ctx.activity.places), 2)
    a = ctx.rng.randint(lo1, hi1)
    b = ctx.rng.randint(max(1, lo2 // 2), max(2, hi2 // 2))
    u = ctx.unit
    facts = [Fact(third=[f"{p1} is {a} {u} from here", f"it's {a} {u} to {p1}", f"getting to {p1} is {a} {u}"]),
             Fact(third=[f"from {p1} it's another {b} {u} on to {p2}", f"{p2} is {b} {u} past {p1}",
                         f"{p1} to {p2} is {b} {u}"])]
    return Task("distance_total", facts,
                direct=[f"how far is it in total to {p2} if we go via {p1}",
                        f"how many {u} is it altogether to {p2} by way of {p1}"],
                indirect=[f"how far it is in total to {p2} via {p1}", f"how many {u} it is altogether to {p2} through {p1}"],
                gold=f"{a + b} {u}", aliases=[f"{number_words(a + b)} {u}", str(a + b)], subject=p2)


def closest_place(ctx: Ctx) -> Task | None:
    if len(ctx.activity.places) < 3:
        return None
    places = ctx.rng.sample(list(ctx.activity.places), 3)
    dists = ctx.rng.sample(range(2, 60), 3)
    u = ctx.unit
    facts = [Fact(third=[f"{p} is {d} {u} away", f"it's {d} {u} to {p}", f"{p} is about {d} {u} from here"])
             for (p, _, _), d in zip(places, dists, strict=True)]
    best = min(range(3), key=lambda i: dists[i])
    names = join_and([p for p, _, _ in places])
    return Task("closest_place", facts,
                direct=[f"which is closest, {names.replace(' and ', ' or ')}", f"of {names}, which one is nearest"],
                indirect=[f"which of {names} is closest", f"which one is nearest out of {names}"],
                gold=places[best][0], aliases=[f"{places[best][0]}, {dists[best]} {u}", f"{dists[best]} {u}"],
                subject=names)


def _event_time(ctx: Ctx, lo_h: int, hi_h: int) -> int:
    return ctx.rng.randint(lo_h, hi_h) * 60 + ctx.rng.choice((0, 0, 15, 30, 45, 10, 20, 40, 50))


def leave_time(ctx: Ctx) -> Task | None:
    if not ctx.activity.events:
        return None
    event, lo, hi = ctx.rng.choice(ctx.activity.events)
    at = _event_time(ctx, max(lo, 7), max(hi, 8))
    travel = ctx.rng.choice((10, 15, 20, 25, 30, 35, 40, 45, 50))
    early = ctx.rng.choice((0, 10, 15, 20, 30))
    t = ctx.rng.choice(clock_forms(at))
    facts = [Fact(third=[f"{event} is at {t}", f"{event} starts at {t}", f"we've got {event} at {t}"]),
             Fact(third=[f"it takes {travel} minutes to get there", f"getting there is {travel} minutes",
                         f"the trip over is {travel} minutes door to door"],
                  first=[f"I timed it, it's {travel} minutes to get there"])]
    if early:
        facts.append(Fact(third=[f"we should be there {early} minutes before {event}",
                                 f"we want to arrive {early} minutes early"],
                          first=[f"I want us there {early} minutes early"]))
    gold, aliases = clock_gold(at - travel - early)
    return Task("leave_time", facts,
                direct=[f"what time do we need to leave for {event}", f"when should we set off for {event}",
                        f"what's the latest we can leave for {event}"],
                indirect=[f"what time we need to leave for {event}", f"when we should set off for {event}"],
                gold=gold, aliases=aliases, subject=event)


def end_time(ctx: Ctx) -> Task | None:
    if not ctx.activity.spans:
        return None
    span, lo, hi = ctx.rng.choice(ctx.activity.spans)
    start = _event_time(ctx, 8, 18)
    dur = ctx.rng.randint(lo // 5, hi // 5) * 5
    t = ctx.rng.choice(clock_forms(start))
    d = duration_words(dur)
    facts = [Fact(third=[f"{span} started at {t}", f"{span} begins at {t}", f"we kick off {span} at {t}"]),
             Fact(third=[f"{span} takes {d}", f"{span} needs {d}", f"{span} lasts {d}"])]
    gold, aliases = clock_gold(start + dur)
    return Task("end_time", facts,
                direct=[f"what time will {span} be done", f"when does {span} finish", f"what time is {span} over"],
                indirect=[f"what time {span} will be done", f"when {span} finishes"],
                gold=gold, aliases=aliases, subject=span)


def duration_between(ctx: Ctx) -> Task | None:
    if len(ctx.activity.events) < 2:
        return None
    (e1, lo1, hi1), (e2, _, hi2) = ctx.rng.sample(list(ctx.activity.events), 2)
    a = _event_time(ctx, lo1, hi1)
    b = a + ctx.rng.randint(3, 40) * 10
    facts = [Fact(third=[f"{e1} is at {ctx.rng.choice(clock_forms(a))}", f"{e1} is at {clock_forms(a)[0]}"]),
             Fact(third=[f"{e2} is at {ctx.rng.choice(clock_forms(b))}", f"{e2} is set for {clock_forms(b)[0]}"])]
    mins = b - a
    _ = hi2
    return Task("duration_between", facts,
                direct=[f"how long is it between {e1} and {e2}", f"how much time do we have from {e1} to {e2}"],
                indirect=[f"how long it is between {e1} and {e2}", f"how much time there is from {e1} to {e2}"],
                gold=duration_words(mins), aliases=duration_aliases(mins), subject=f"{e1} and {e2}")


def headcount(ctx: Ctx) -> Task | None:
    nouns = [c for c in ctx.activity.countables if c[0] in PEOPLE_NOUNS]
    if not nouns:
        return None
    noun, lo, hi = ctx.rng.choice(nouns)
    invited = ctx.rng.randint(max(lo, 6), max(hi, 8))
    pool = ["Anna", "Ben", "Carla", "Dmitri", "Erin", "Farid", "Gwen", "Hiro", "Isla", "Jakob", "Kemi", "Lucas"]
    declined = ctx.rng.sample(pool, ctx.rng.choice((1, 2, 3)))
    extra = ctx.rng.choice((0, 1, 2, 3))
    facts = [Fact(third=[f"we invited {invited} {noun}", f"the invitation went out to {invited} {noun}",
                         f"there were {invited} {noun} on the list"], first=[f"I invited {invited} {noun}"], order=-1),
             # the names come after a verb, so a vocative before the clause cannot be misheard as one of them
             Fact(third=[f"turns out {join_and(declined)} can't make it", f"we heard that {join_and(declined)} said no",
                         f"sadly {join_and(declined)} dropped out"] if len(declined) > 1 else
                  [f"turns out {declined[0]} can't make it", f"we heard that {declined[0]} said no",
                   f"sadly {declined[0]} dropped out"])]
    if extra:
        w = number_words(extra)
        facts.append(Fact(third=[f"{w} more {noun} asked to join", f"we've added {w} more {noun} to the list",
                                 f"{w} extra {noun} are coming after all"]))
    n = invited - len(declined) + extra
    return Task("headcount", facts,
                direct=[f"how many {noun} are actually coming", "what's the headcount now",
                        f"how many {noun} should we expect"],
                indirect=[f"how many {noun} are actually coming", "what the headcount is now"],
                gold=f"{n} {noun}", aliases=[str(n), number_words(n)], subject="the headcount")


def count_total(ctx: Ctx) -> Task | None:
    nouns = [c for c in ctx.activity.countables if c[0] not in PEOPLE_NOUNS]
    if not nouns:
        return None
    noun, lo, hi = ctx.rng.choice(nouns)
    people = ctx.rng.sample(sorted(ctx.names), ctx.rng.choice((2, 3)) if len(ctx.names) >= 3 else 2)
    counts = [ctx.rng.randint(max(2, lo // 2), max(3, hi // 2)) for _ in people]
    facts = [Fact(third=[f"{ctx.names[p]} is bringing {c} {noun}", f"{ctx.names[p]} has {c} {noun}",
                         f"{ctx.names[p]} said {c} {noun}"],
                  first=[f"I'm bringing {c} {noun}", f"I've got {c} {noun}", f"I can do {c} {noun}"], person=p)
             for p, c in zip(people, counts, strict=True)]
    n = sum(counts)
    return Task("count_total", facts,
                direct=[f"how many {noun} will we have altogether", f"what's the total number of {noun}"],
                indirect=[f"how many {noun} we'll have altogether", f"the total number of {noun}"],
                gold=f"{n} {noun}", aliases=[str(n), number_words(n)], subject=f"the {noun}")


def recall_choice(ctx: Ctx) -> Task | None:
    if not ctx.activity.choices:
        return None
    what, options = ctx.rng.choice(ctx.activity.choices)
    people = ctx.rng.sample(sorted(ctx.names), min(len(ctx.names), ctx.rng.choice((2, 3))))
    picks = ctx.rng.sample(list(options), len(people))
    facts = [Fact(third=[f"{ctx.names[p]} wants {o} {what}", f"{ctx.names[p]} picked {o} {what}",
                         f"{ctx.names[p]} is going for {o} {what}"],
                  first=[f"I'd go for {o} {what}", f"put me down for {o} {what}", f"I want {o} {what}"], person=p)
             for p, o in zip(people, picks, strict=True)]
    target = ctx.rng.randrange(len(people))
    who = ctx.names[people[target]]
    return Task("recall_choice", facts,
                direct=[f"what did {who} pick {what}", f"which one did {who} want {what}", f"what was {who}'s choice {what}"],
                indirect=[f"what {who} picked {what}", f"which one {who} wanted {what}"],
                gold=picks[target], aliases=[picks[target].removeprefix("the ")], subject=f"{who}'s choice",
                not_asker={people[target]})


def recall_who(ctx: Ctx) -> Task | None:
    if len(ctx.activity.jobs) < 2:
        return None
    people = ctx.rng.sample(sorted(ctx.names), min(len(ctx.names), ctx.rng.choice((2, 3))))
    jobs = ctx.rng.sample(list(ctx.activity.jobs), len(people))
    facts = [Fact(third=[f"{ctx.names[p]} is {j}", f"{ctx.names[p]} said they'd be {j}",
                         f"{ctx.names[p]} volunteered for {j}"],
                  first=[f"I'll be {j}", f"I'm {j}, don't worry", f"leave {j} to me"], person=p)
             for p, j in zip(people, jobs, strict=True)]
    target = ctx.rng.randrange(len(people))
    job = jobs[target]
    return Task("recall_who", facts,
                direct=[f"who's {job}", f"who said they'd be {job}", f"which of us is {job}"],
                indirect=[f"who's {job}", f"which of us is {job}"],
                gold=ctx.names[people[target]], aliases=[], subject=job, not_asker={people[target]})


NUMERIC_FAMILIES = frozenset({
    "sum_cost", "split_cost", "price_difference", "budget_left", "unit_total", "distance_left", "distance_total",
    "leave_time", "end_time", "duration_between", "headcount", "count_total",
})

FAMILIES: dict[str, Callable[[Ctx], Task | None]] = {
    f.__name__: f
    for f in (sum_cost, split_cost, price_difference, budget_left, unit_total, distance_left, distance_total,
              closest_place, leave_time, end_time, duration_between, headcount, count_total, recall_choice, recall_who)
}
