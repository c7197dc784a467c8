"""Which claim the gold is bound to: the clause that answers what the question asks.

"Lena came first, Theo was runner-up" names Theo, but the clause that answers
"who won?" is about Lena; "the blue one has more storage, but the grey one has
the bigger screen" names the grey one, but gives the storage to the blue one.
A grader reads the clause that says what was asked and takes its subject as
the answer. `bound_elsewhere` does the same over `quantities.lex` tokens:

- the question's *focus* is its words that say what is asked (a predicate or a
  comparison: "won", "more storage", "bigger kitchen", "finished last"), not its
  wh-word, its auxiliaries, its options or the names in it; a focus word also
  matches its stem and its class of meaning (`CLASSES`: "won" = "first" =
  "winner"; "last" = "bottom");
- the reply is cut into clauses (at , . ; and before but / while / whereas /
  though / and);
- a clause *binds* when it says a focus word; its subject is the candidate said
  before that word;
- the gold is bound elsewhere when some binding clause's subject is another
  candidate and no binding clause has the gold for subject, or when the
  clause that has the gold for subject denies it ("the bus isn't cheaper").

It only ever makes a reply wrong, never right.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.scoring.judges.commitment import NEGATION, STOP, Span, stem, word_matches
from floorbench.scoring.judges.item_values import pair_clauses
from floorbench.scoring.judges.quantities import mentions

CLASSES = (
    frozenset("won win wins winner winning first champion champ top victory victorious beat".split()),
    frozenset("last bottom lost loser slowest".split()),
    frozenset("most more highest greatest largest biggest".split()),
    frozenset("least fewest fewer less lowest smallest".split()),
)
"""words that say the same thing about a ranking ("won" = "came first" = "took first place")"""
NOT_FOCUS = STOP | frozenset(
    "who whom which what where when how why whose does did do is are was were has have had one ones thing things "
    "out of between among came come comes got get gets went go goes made make makes took take takes finished "
    "finish ended end".split()
)
"""no focus: wh-words, auxiliaries, and light verbs that say nothing of the ranking ("came first":
"first" is the focus)"""
BREAKS = frozenset((",", ".", ";", "but", "while", "whereas", "though", "although", "and", "however"))


def _matches(focus: str, token: str) -> bool:
    if stem(focus) == stem(token):
        return True
    return any(focus in c and token in c for c in CLASSES)


def focus_words(question: Sequence[str], options: Sequence[Sequence[str]], names: frozenset[str]) -> list[str]:
    """What the question asks about, in its own words (see the module docstring)."""
    in_options = {w for o in options for w in o}
    return [w for w in question if w not in NOT_FOCUS and w not in in_options and w not in names
            and not w.isdigit()]


def _clauses(tokens: Sequence[str]) -> list[Span]:
    """Clauses split at `BREAKS`, and again where a new subject and its verb start without a mark ("Ana has
    the keys the car is with Ben": `item_values.pair_clauses`)."""
    out, a = [], 0
    for i, t in enumerate([*tokens, "."]):
        if t in BREAKS:
            if i > a:
                out.extend((a + c, a + d) for c, d in pair_clauses(tokens[a:i]) or [(0, i - a)])
            a = i + 1
    return out


DEIXIS = frozenset(("last", "next", "previous", "past", "coming"))
PERIODS = frozenset("year years week weeks month months season seasons term terms time night weekend".split())


def _another_time(clause: Sequence[str], focus: Sequence[str]) -> bool:
    """The clause places its claim in another period than the question ("Tom was captain last year" to "who is
    captain this year?"): a deictic word before a period the question's focus does not have."""
    return any(t in DEIXIS and clause[k + 1 : k + 2] and clause[k + 1] in PERIODS and t not in focus
               for k, t in enumerate(clause))


def claim_subjects(tokens: Sequence[str], focus: Sequence[str], gold: Sequence[Span],
                   others: Sequence[Span], start: int = 0) -> list[tuple[str, Span]]:
    """('gold' | 'other' | 'not-gold' | 'not-other', span) of the subject of every clause that says a
    focus word, from `start` (after the last self-correction) on."""
    subjects: list[tuple[str, Span]] = []
    if not focus:
        return subjects
    for a, b in _clauses(tokens):
        if b <= start:
            continue
        hit = next((k for k in range(a, b) if any(_matches(f, tokens[k]) for f in focus)), None)
        if hit is None or _another_time(tokens[a:b], focus):
            continue
        before = [("gold", s) for s in gold if a <= s[0] < hit] + [("other", s) for s in others if a <= s[0] < hit]
        if before:
            kind, span = max(before, key=lambda x: x[1][0])
            denied = bool(NEGATION & set(tokens[span[1] : hit]))  # "the bus isn't cheaper"
            subjects.append((f"not-{kind}" if denied else kind, span))
    return subjects


def bound_to_gold(tokens: Sequence[str], focus: Sequence[str], gold: Sequence[Span], others: Sequence[Span],
                  start: int = 0) -> bool:
    """Is the gold the subject of the clause that answers the question, and no other candidate of
    one? (Then other candidates said in other clauses are asides, not a list.)"""
    kinds = {k for k, _ in claim_subjects(tokens, focus, gold, others, start)}
    return bool(focus) and kinds == {"gold"}


def bound_elsewhere(tokens: Sequence[str], focus: Sequence[str], gold: Sequence[Span],
                    others: Sequence[Span], start: int = 0) -> str | None:
    """Why the claim the question asks for is about another candidate, or None. `gold`/`others`:
    spans of the gold and of the other candidates in `tokens`."""
    if not focus:
        return None
    subjects = claim_subjects(tokens, focus, gold, others, start)
    if any(kind == "gold" for kind, _ in subjects):
        return None
    denied = [s for kind, s in subjects if kind == "not-gold"]
    if denied:
        return f"the clause that answers the question ('{' '.join(focus)}') denies it of the gold"
    subjects = [(k, s) for k, s in subjects if k == "other"]
    if not subjects:
        return None
    s = subjects[0][1]
    return f"the clause that answers the question ('{' '.join(focus)}') is about '{' '.join(tokens[s[0]:s[1]])}'"


BELOW_FIRST = frozenset("second third fourth fifth sixth runner runnerup behind trailed trailing".split())
"""what places a candidate below the top of a ranking ("came second", "just behind Ben", "runner-up")"""


def ranked_below(tokens: Sequence[str], focus: Sequence[str], gold: Sequence[Span]) -> str | None:
    """Why the gold's own clause places it below the first place the question asks for ("who won?":
    "Dmitri came second behind Carla"), or None. Only when the question asks who won or came first,
    and the clause says no word of winning itself."""
    if not any(f in CLASSES[0] for f in focus):
        return None
    for a, b in _clauses(tokens):
        if not any(a <= s[0] < b for s in gold):
            continue
        words = set(tokens[a:b])
        if words & CLASSES[0]:
            return None
        below = words & BELOW_FIRST
        if below:
            return f"its own clause places it below first ('{sorted(below)[0]}')"
    return None


RELATIONAL = frozenset("after behind before than below above beneath under over beat beating beats trailing".split())
"""words that place one candidate against another ("Jo, right after Marcus"): what follows them is the
point of reference, not the answer"""
RELATION_GLUE = frozenset("right just only close closely shortly straight close".split())


def only_a_landmark(tokens: Sequence[str], gold: Sequence[Span], others: Sequence[Span]) -> str | None:
    """Why the gold is said only as the point another candidate is placed against ("Jo, right after
    Marcus" for who came second), or None: every mention of the gold follows a relational word and
    another candidate is said outside such a place."""
    def placed(span: Span) -> str | None:
        k = span[0] - 1
        while k >= 0 and tokens[k] in RELATION_GLUE:
            k -= 1
        if k >= 0 and tokens[k] == "of" and k > 0 and tokens[k - 1] in ("ahead", "front"):
            return "ahead of"
        return tokens[k] if k >= 0 and tokens[k] in RELATIONAL else None

    where = [placed(s) for s in gold]
    if not gold or any(w is None for w in where):
        return None
    first = next((k for k in range(gold[0][0]) if tokens[k] not in STOP and tokens[k] not in RELATIONAL | RELATION_GLUE
                  and tokens[k] not in (",", ".")), None)  # "jo right after marcus": the word it opens with
    rivals = [o for o in others if placed(o) is None and o[0] < gold[0][0]] or ([(first, first + 1)] if first is not None
                                                                                else [])
    if not rivals:
        return None
    return f"it is only the point another is placed against ('{where[0]}')"


HIGHER = frozenset("more most better best higher highest bigger biggest larger largest greater greatest longer "
                   "longest further farther heavier heaviest taller tallest".split())
QUICK = frozenset("faster fastest quicker quickest sooner soonest".split())
""""faster" asks for less time, or more speed: the direction is the values' kind"""
LOWER = frozenset("less least fewer fewest lower lowest smaller smallest cheaper cheapest shorter shortest slower "
                  "slowest lighter lightest nearer nearest closer closest".split())
"""comparative and superlative words: the question asks for the candidate with the higher or the lower value"""
COSTLY = frozenset("price prices cost costs fee fees rate charge charges expensive".split())
"""with these, "better" asks for the lower value; with none, the direction of "better" is the value's"""
VALUE_LINKS = frozenset("gets get got pays pay paid has have had is are was were at with does do did costs cost "
                        "holds hold scored scores earns earned charges charge gives give does s on takes take took "
                        "lasts last lasted runs run weighs weigh sleeps seats".split())


NOT_OWNERS = frozenset(", . versus vs against compared than or and to one".split())
"""words before a value that say it is compared, not whose it is ("sixty litres versus forty-five")"""


def _owner(tokens: Sequence[str], start: int) -> int | None:
    """The token that owns the value said at `start` ("the Mazda gets thirty-six": "mazda")."""
    k = start - 1
    while k >= 0 and (tokens[k] in VALUE_LINKS or tokens[k] == ","):
        k -= 1
    if k < 0 or tokens[k] in STOP or tokens[k] in NOT_OWNERS or tokens[k][:1].isdigit():
        return None
    return k


def valued_rank(tokens: Sequence[str], question: Sequence[str], gold_words: Sequence[str]) -> str | None:
    """Why the values the reply gives each candidate put another above the gold ("the Mazda gets
    thirty-six, the Civic thirty-one" for which gets better mileage), or None. Only when the question
    compares (more, cheapest, faster …) and the reply pairs at least two candidates with a value; it
    only ever makes a reply wrong (values listed for every option without a choice stay a list).
    A bare number after a duration is in the duration's unit ("twenty hours, the Pixel seventeen")."""
    q = set(question)
    found = [m for m in mentions(list(tokens)) if m.numbers or m.duration is not None]
    timed_m = next((m for m in found if m.duration is not None and m.numbers), None)
    timed = timed_m is not None
    scale = timed_m.duration / max(timed_m.numbers) if timed_m is not None and timed_m.duration else 1.0
    higher, lower = bool(q & HIGHER), bool(q & LOWER)
    if q & QUICK:
        higher, lower = (False, True) if timed else (True, False)  # faster: less time, more speed
    if "better" in q or "best" in q:
        if timed:
            return None  # a better time: shorter or longer, the words do not say
        higher, lower = (False, True) if q & COSTLY else (True, lower)
    if higher == lower:
        return None
    owned: list[tuple[bool, float, str]] = []
    for m in found:
        k = _owner(tokens, m.start)
        if k is None or tokens[m.start : m.end] == ["one"] or (timed and m.duration is None and m.unit is not None):
            continue
        is_gold = any(word_matches(w, tokens[k], name=True) for w in gold_words)
        value = m.duration if m.duration is not None else max(m.numbers) * (scale if timed else 1.0)
        owned.append((is_gold, value, tokens[k]))  # "nine fifty" is 950 beside "eleven hundred"
    golds = [v for g, v, _ in owned if g]
    rivals = [(v, who) for g, v, who in owned if not g]
    if len(golds) != 1 or not rivals:
        return None
    best = max(rivals) if higher else min(rivals)
    if (best[0] > golds[0]) if higher else (best[0] < golds[0]):
        return f"the values it gives put '{best[1]}' {'above' if higher else 'below'} it"
    return None
