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

from floorbench.scoring.judges.commitment import NEGATION, STOP, Span, stem

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
    out, a = [], 0
    for i, t in enumerate([*tokens, "."]):
        if t in BREAKS:
            if i > a:
                out.append((a, i))
            a = i + 1
    return out


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
        if hit is None:
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
