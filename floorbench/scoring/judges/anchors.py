"""Whether the gold value a reply says is anchored to another time or another item than the one asked.

A reply that gives two values of the gold's kind gives them for two things, and the one the question
asks for is the claim, with no opposite labels to tell them apart (`binding` reads those):

- **time**: "It was two-forty last year, and they've put it up to two-sixty for this year" (asked how
  much it *is*), "seventy-nine now, she'll be eighty by next year" (asked how old she is), "the ninth was
  last year" after "it's the tenth". Each part's anchor is past, present or future, read off its time
  words ("last year", "now", "next week", "ago", "used to") before its tense ("was", "is", "will"); the
  question's the same way. The gold's value is anchored elsewhere when no part saying it has the
  question's anchor, one does have another, and a part with the question's anchor says a rival value.
- **item**: "for one year it is 6.3, for two years it is 6.8" (asked for one year): a number with its noun
  in the question ("one year") picks the part that says it; "product warranty is 10 years and compressor
  1 year" (asked the compressor's): the part sharing more of the question's words, and naming fewer
  things of its own, is the one asked.
"""

from __future__ import annotations

from floorbench.scoring.judges.commitment import STOP, content
from floorbench.scoring.judges.normalize import is_number, split_at, stem
from floorbench.scoring.judges.quantities import UNIT_OF, Mention, lex, mentions
from floorbench.scoring.judges.quantity_match import Quantity, same_quantity

EDGES = frozenset((",", ".", ";", "!", "?", "and", "but", "then", "while", "whereas"))
PAST_WORDS = frozenset(("last", "ago", "used", "previously", "formerly", "earlier", "before", "yesterday"))
PRESENT_WORDS = frozenset(("now", "currently", "nowadays", "today", "this", "presently"))
FUTURE_WORDS = frozenset(("next", "tomorrow", "soon", "upcoming"))
PAST_TENSE = frozenset(("was", "were", "did", "had"))
PRESENT_TENSE = frozenset(("is", "are", "s", "does", "do", "am", "has", "have"))
FUTURE_TENSE = frozenset(("will", "ll", "gonna", "shall"))
QUIET = frozenset("sir madam maam mam ji yaar lol boss bro dude mate please only just it its there".split())
"""words that name no thing of a part's own"""
COUNTED = frozenset(UNIT_OF) | frozenset("year years month months week weeks day days points runs goals".split())
"""what a value counts, said after it: part of the value, not a thing of the part's own"""
WORKING = frozenset("plus minus times into divided per double doubled twice half so means meaning makes total "
                    "altogether sum therefore".split())
"""words of working shown ("18 for the salmon plus 24 for the wine, so 42")"""


def _anchor(tokens: list[str]) -> str | None:
    """'past', 'present' or 'future', by time words first, then by tense; None when the part says none."""
    words = set(tokens)
    by_word = [a for a, w in (("past", PAST_WORDS), ("present", PRESENT_WORDS), ("future", FUTURE_WORDS)) if words & w]
    if len(by_word) == 1:
        return by_word[0]
    if by_word:
        return None
    by_tense = [a for a, w in (("past", PAST_TENSE), ("present", PRESENT_TENSE), ("future", FUTURE_TENSE))
                if words & w]
    return by_tense[0] if len(by_tense) == 1 else None


def _day(q: Quantity, p: list[str], m: Mention) -> float | None:
    """A date's day said alone, as an ordinal ("the ninth", "the 10th"), when the gold is a date."""
    word = p[m.end - 1]
    if q.kind != "date" or m.date is not None or not (word.endswith(("th", "st", "nd", "rd")) or word in ORDINALS):
        return None
    return next((n for n in m.numbers if 1 <= n <= 31), None)


ORDINALS = frozenset(("first", "second", "third"))


def _gold(q: Quantity, p: list[str], m: Mention) -> bool:
    return same_quantity(q, m) or _day(q, p, m) == int(q.value) % 100


def _rival(q: Quantity, p: list[str], m: Mention) -> bool:
    """Another value of the gold's kind (a time for a time, an amount in the gold's unit or none)."""
    if _gold(q, p, m):
        return False
    if q.kind == "clock":
        return bool(m.clock) and m.duration is None
    if q.kind == "duration":
        return m.duration is not None
    if q.kind == "date":
        return m.date is not None or _day(q, p, m) is not None
    return m.duration is None and m.date is None and (m.unit is None or m.unit == q.unit)


def _counted(tokens: list[str], m: Mention) -> tuple[frozenset[float], str] | None:
    """A number with the noun it counts ("one year", "two years"), or None."""
    if m.end < len(tokens) and tokens[m.end].isalpha() and tokens[m.end] not in STOP:
        return frozenset(m.numbers), stem(tokens[m.end])
    return None


HERE = "here"


def value_anchored_elsewhere(q: Quantity, transcript: str, question: str, here: bool = False) -> str | None:
    """Why the reply's gold value goes with another time or item than the one asked, or None. `here`: say
    HERE instead when the gold's value is anchored at the question's time and every rival at another ("rent
    was 900 last year, this year it's 950" asked what it is): then no other rule binds it elsewhere."""
    asked = lex(question)
    if WORKING & set(lex(transcript)):
        return None  # working shown: the values before the result are its terms, not rival answers
    parts = split_at(lex(transcript), EDGES)
    found = [mentions(p) for p in parts]
    qualifiers = {c for m in mentions(asked) if (c := _counted(asked, m)) is not None}
    nouns = {noun for _, noun in qualifiers}

    def qualifier(p: list[str], m: Mention) -> tuple[frozenset[float], str] | None:
        c = _counted(p, m)
        return c if c is not None and c[1] in nouns else None

    gold = [k for k, ms in enumerate(found) if any(_gold(q, parts[k], m) and not qualifier(parts[k], m) for m in ms)]
    rivals = [k for k, ms in enumerate(found) if k not in gold
              and any(_rival(q, parts[k], m) and not qualifier(parts[k], m) for m in ms)]
    if not gold or not rivals:
        return None
    want = _anchor(asked)
    anchors = {k: _anchor(parts[k]) for k in gold + rivals}
    if here and want is not None and any(anchors[k] == want for k in gold) and all(
            anchors[k] not in (None, want) for k in rivals):
        return HERE
    if here:
        return None
    if want is not None and all(anchors[k] != want for k in gold) and any(anchors[k] for k in gold):
        same = [k for k in rivals if anchors[k] == want]
        if same:
            return f"the value said is the {next(anchors[k] for k in gold if anchors[k])} one; the {want} one " \
                   f"is in '{' '.join(parts[same[0]])}'"
    if qualifiers and len(gold) == 1:
        def fits(k: int) -> bool | None:
            said = [c for m in found[k] if (c := qualifier(parts[k], m)) is not None]
            return None if not said else any(c in qualifiers for c in said)
        if fits(gold[0]) is False and any(fits(k) for k in rivals):
            return "the value said goes with another count than the question's " \
                   f"('{' '.join(parts[next(k for k in rivals if fits(k))])}' does)"
    if len(gold) == 1:
        keys = {stem(t) for t in content(asked) if not is_number(t)} - {"aria"}

        def score(k: int) -> int:
            p = parts[k]
            said = {i for m in found[k] for i in range(m.start, m.end + (m.end < len(p) and p[m.end] in COUNTED))}
            words = {stem(t) for i, t in enumerate(p) if i not in said and t in content([t]) and t.isalpha()
                     and not is_number(t) and t not in QUIET}
            return len(words & keys) - len(words - keys)
        timed = anchors[gold[0]] is not None
        best = max((k for k in rivals if not (timed and anchors[k] not in (None, anchors[gold[0]]))), key=score,
                   default=gold[0])
        if score(best) >= 1 and score(best) > score(gold[0]) and score(gold[0]) <= 0:
            return f"the value said goes with another thing; the question's goes with '{' '.join(parts[best])}'"
    return None
