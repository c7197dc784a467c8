"""Answers said by the converse: the other side of a two-sided predicate.

"Which is longer, the Shannon or the Severn?" is answered by "The Severn is the shorter of the two";
"who won, Lakers or Celtics" by "lakers lost"; "who won the final?" (Limerick) by "Kilkenny lost to
Limerick". The gold's words need not appear, and when they do they can answer wrong: "The Shannon is
the shorter" or "Kilkenny beat Limerick" name the gold on the wrong side.

The rule reads the question's predicate from pairs of opposite poles (won/lost, longer/shorter,
bigger/smaller, ...) and, in each clause of the reply that says a pole of that pair, which side each
option stands on: the subject (before the pole) has it, an object right after it ("beat X", "lost to
X", "longer than X") has the opposite; a negation before the pole turns it. It decides only when some
clause says the opposite pole (a reply in the question's own words is left to the other rules), or
puts the gold on the wrong side ("Kilkenny beat Limerick"), and every reading points one way.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.scoring.judges.commitment import NEGATION, content, entity_spans, question_options
from floorbench.scoring.judges.normalize import split_at

POLES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split()), frozenset(b.split())) for a, b in (
        ("won win wins winning beat beats winner winners victorious", "lost lose loses losing loser losers beaten"),
        ("longer longest", "shorter shortest"),
        ("taller tallest", "shorter shortest"),
        ("bigger biggest larger largest", "smaller smallest"),
        ("higher highest", "lower lowest"),
        ("older oldest", "younger youngest newer newest"),
        ("heavier heaviest", "lighter lightest"),
        ("faster fastest quicker quickest", "slower slowest"),
        ("cheaper cheapest", "dearer dearest pricier priciest costlier"),
        ("hotter hottest warmer warmest", "colder coldest cooler coolest"),
        ("closer closest nearer nearest", "further furthest farther farthest"),
        ("earlier earliest sooner", "later latest"),
        ("more most", "less least fewer fewest"),
        ("better best", "worse worst"),
        ("wider widest", "narrower narrowest"),
        ("deeper deepest", "shallower shallowest"),
        ("passed pass passes", "failed fail fails"),
        ("present attended came", "absent missed"),
    ))
"""opposite poles of one scale: a side said to have one pole leaves the other side the opposite"""
LINKS = frozenset(("to", "against", "than", "by", "the", "over", "from"))
"""what may stand between a pole and the side that has its opposite ("lost to X", "longer than the X")"""
HEAD = frozenset(("one", "ones", "of", "the", "two", "them", "is", "was", "s", "would", "be"))
"""what stands between a pole that opens the clause and the side that has it ("the older of the two is Ana")"""
EDGES = frozenset((".", ",", ";", "!", "?", "but", "and", "though", "although", "whereas", "while"))
SUBJECTS = frozenset(("they", "he", "she", "we", "it", "you"))


def _rewrite(tokens: Sequence[str]) -> list[str]:
    """'more expensive' is 'dearer', 'less expensive' 'cheaper': one word per pole."""
    out: list[str] = []
    for t in tokens:
        if t == "expensive" and out and out[-1] in ("more", "less", "most", "least"):
            out[-1] = "dearer" if out[-1] in ("more", "most") else "cheaper"
        else:
            out.append(t)
    return out


def _asked_pole(question: Sequence[str]) -> tuple[int, int] | None:
    """(pair, side) of the first pole the question says."""
    for t in question:
        for k, (a, b) in enumerate(POLES):
            if t in a or t in b:
                return k, 0 if t in a else 1
    return None


def _options(question: Sequence[str], gold: list[str]) -> list[list[str]]:
    """The question's two options ("the Shannon or the Severn", "Lakers or Celtics"), by content words."""
    found = [content(o) for o in question_options(question)]
    if len(found) != 2 and "or" in question:
        k = len(question) - 1 - list(reversed(question)).index("or")
        left = next((j for j in range(k - 1, -1, -1) if question[j] in (",", "?", ".")), -1)
        right = next((j for j in range(k + 1, len(question)) if question[j] in (",", "?", ".")), len(question))
        found = [content(question[left + 1 : k]), content(question[k + 1 : right])]
    found = [o for o in found if o and len(o) <= 3]
    if len(found) != 2 or not any(set(gold) <= set(o) or set(o) <= set(gold) for o in found):
        return []
    return found


def _sides(clause: list[str], sides: list[list[str]], names: frozenset[str], pair: int,
           objects: list[int]) -> list[tuple[int, int]]:
    """(side index, pole 0/1 it has) read off one clause; `objects` gets the sides read as an object."""
    a, b = POLES[pair]
    poles = [i for i, t in enumerate(clause) if t in a or t in b]
    if len(poles) != 1:
        return []
    i = poles[0]
    pole = 0 if clause[i] in a else 1
    if NEGATION & set(clause[:i]) or "not" in clause[i - 1 : i]:
        pole = 1 - pole
    out = []
    for n, side in enumerate(sides):
        for s, e in entity_spans(side, clause, names):
            if clause[:i] == ["the"] and set(clause[i + 1 : s]) <= HEAD:
                out.append((n, pole))  # "the cheaper one is the Dell"
            elif e <= i:
                out.append((n, pole))
            elif set(clause[i + 1 : s]) <= LINKS and (any(t not in LINKS for t in clause[:i][-4:]) or
                                                      SUBJECTS & set(clause[:i])):
                out.append((n, 1 - pole))  # "Kilkenny lost to Limerick", "beat Limerick": the object
                objects.append(n)
    return out


def converse_answer(refs: Sequence[list[str]], tokens: Sequence[str], question: Sequence[str],
                    names: frozenset[str] = frozenset()) -> tuple[str, str, str] | None:
    """('correct' | 'wrong', rule, why) when the reply answers by sides of the question's two-sided
    predicate and says its opposite pole somewhere; None otherwise. `refs`: the gold's and aliases'
    content words."""
    question, tokens = _rewrite(question), _rewrite(tokens)
    asked = _asked_pole(question)
    gold = next((r for r in refs if r), [])
    if asked is None or not gold:
        return None
    pair, want = asked
    opposite = bool((POLES[pair][1 - want] | NEGATION) & set(tokens))  # "the Severn isn't longer" too
    options = _options(question, gold)
    sides = options or [gold]
    golds = {n for n, o in enumerate(sides) if any(set(r) <= set(o) or set(o) <= set(r) for r in refs if r)}
    if not golds:
        return None
    picks: set[bool] = set()
    objects: list[int] = []
    for clause in split_at(tokens, EDGES):
        for n, pole in _sides(clause, sides, names, pair, objects):
            has = pole == want
            if len(sides) == 2:
                picks.add((n in golds) == has)
            elif n in golds:
                picks.add(has)
    if len(picks) != 1:
        return None
    if picks.pop():
        said = " ".join(sorted(POLES[pair][1 - want] & set(tokens))) or ("a negated pole" if opposite else "a comparison")
        if not opposite and not set(objects) - golds:
            return None  # in the question's own words, with no other side set against the gold: other rules
        return "correct", "answer.converse", f"says the other side has the opposite ('{said}')"
    return "wrong", "answer.converse-other", "puts the gold on the side opposite to the one asked"


def says_converse(question: Sequence[str], clause: Sequence[str]) -> bool:
    """The clause says the opposite pole of the question's predicate ("Australia lost by 43 runs" to "by how
    many runs did India win?"): a name in it is the other side of the same fact, not another's value."""
    asked = _asked_pole(_rewrite(question))
    return asked is not None and bool(POLES[asked[0]][1 - asked[1]] & set(_rewrite(clause)))


def complement_said(question: Sequence[str], clause: Sequence[str]) -> str:
    """The opposite pole said of the value itself ("three quarters failed" asked what fraction passed): the
    value counts the other side, ''. A margin ("lost by 43") is the same from either side: not this."""
    asked = _asked_pole(_rewrite(question))
    if asked is None:
        return ""
    words = _rewrite(clause)
    k = next((i for i, t in enumerate(words) if t in POLES[asked[0]][1 - asked[1]]), None)
    if k is None or words[k + 1 : k + 2] == ["by"] or NEGATION & set(words[max(0, k - 2) : k]):
        return ""
    return words[k]
