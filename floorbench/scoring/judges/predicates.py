"""Yes/no said as a statement: the question's predicate against the reply's statement about it.

A reply often answers a yes/no question without "yes" or "no": "It's not open on Monday" to "is the
museum closed on Monday?" (yes), "they lock up the place on Sunday" to "is it open on Sunday?" (no),
"opened items are accepted within 30 days" to "can I return them?" (yes), "only in the mornings" to
"is it open on Saturday afternoon?" (no). A grader reads the statement's polarity *relative to the
question's predicate*:

- the question's predicate is the first word after its opening auxiliary that belongs to one of a few
  closed classes of opposites (`CLASSES`: open / closed, locked / unlocked, included / extra,
  available / sold out, allowed / forbidden, working / broken, on time / late), and which side of
  its class it is on; "can / may / could I (we, you) …" with no such word asks for permission;
- the reply's statement is its first clause (questions put back, "…?", aside) that says a word of
  the same class: that word's side, turned over by a negation just before it ("not open", "nuh
  open", "cannot enter", "don't accept"), is what the reply asserts; the same side as the question's
  is yes, the other no ("not open" to "closed?" is yes);
- a statement that carves out the asked case ("open every day except Sunday") says the opposite;
- a statement whose "on …" names another day or occasion than the question's ("closed on Christmas"
  to "open on Boxing Day?") is about another case and says nothing;
- a restriction to another thing than the question's ("we only take cash" to "do you accept cards?") is
  not read (whether it excludes the asked thing is world knowledge);
- a restriction ("only in the mornings", "just weekdays") whose time words are of the same kind as
  the question's ("afternoon", "Saturday") and exclude it answers the opposite of what it affirms (an
  elliptical "only in the mornings" affirms the question's own predicate, so it answers no).

The classes are small and closed on purpose (no general lexicon of antonyms is installed); a word
outside them leaves the reply to the other yes/no rules.
"""

from __future__ import annotations

import re

from floorbench.scoring.judges.commitment import STOP
from floorbench.scoring.judges.normalize import NO, normalize_tokens, stem

Phrase = tuple[str, ...]
CLASSES: tuple[tuple[str, frozenset[Phrase], frozenset[Phrase]], ...] = tuple(
    (name, frozenset(tuple(p.split()) for p in pos.split(",")), frozenset(tuple(p.split()) for p in neg.split(",")))
    for name, pos, neg in (
        ("open", "open,running,operating,trading,enter,get in,go in,visit,welcome",
         "closed,close,shut,shuts,lock up,locks up,locked up,holiday,holidays,day off,off day,shut down"),
        ("locked", "lock,locked,locks", "unlocked,unlock,left open"),
        ("included", "included,free,complimentary,covered,inclusive,part of",
         "extra,charged,additional,separate,separately,surcharge,excluded,not included,on top"),
        ("available", "available,in stock,left,still have,got some", "sold out,out of stock,unavailable,gone,none left"),
        ("allowed", "can,may,allowed,permitted,accepted,accept,accepts,take,takes,ok,okay,fine,possible,welcome,"
         "let you,lets you", "cannot,cant,forbidden,prohibited,banned,refused,impossible,not allowed"),
        ("working", "working,works,fixed,running", "broken,down,faulty,dead,out of order,not working"),
        ("on time", "on time,on schedule,punctual", "late,delayed,cancelled,canceled,behind schedule"),
    )
)
"""closed classes of opposites: (name, the positive side's phrases, the negative side's phrases)"""
OPENERS = frozenset("is are was were can could may might does do did will would has have had shall should".split())
PERMISSION_MODALS = frozenset(("can", "could", "may"))
PERMISSION_SUBJECTS = frozenset(("i", "we", "you", "one"))
NEGATORS = NO | frozenset(("nuh", "nae", "aint", "no longer"))
"""what turns a statement's word over ("not open", "it nuh open", "ain't open")"""
QUALIFIERS = (
    frozenset("morning afternoon evening night lunchtime midday noon".split()),
    frozenset("monday tuesday wednesday thursday friday saturday sunday weekday weekend".split()),
)
"""kinds of time word a restriction narrows to ("only in the mornings", "just weekdays")"""
COVERS = {"weekday": frozenset("monday tuesday wednesday thursday friday".split()),
          "weekend": frozenset(("saturday", "sunday"))}
RESTRICTORS = frozenset(("only", "just", "solely", "exclusively"))


def _find(tokens: list[str], phrases: frozenset[Phrase]) -> int | None:
    """Where the first of `phrases` starts in `tokens` (a whole-word match), or None."""
    hits = [k for k in range(len(tokens)) for p in phrases if tuple(tokens[k : k + len(p)]) == p]
    return min(hits) if hits else None


def asked_predicate(question: str) -> tuple[int, bool, list[str]] | None:
    """(class index, positive side?, the question's words after the predicate) of a yes/no question's
    predicate, or None when it opens with no auxiliary or says no word of the classes."""
    tokens = normalize_tokens(question)
    k = next((i for i, t in enumerate(tokens[:4]) if t in OPENERS), None)  # "Aria, is …": a name may lead
    if k is None:
        return None
    rest = tokens[k + 1 :]
    if tokens[k] in PERMISSION_MODALS and rest[:1] and rest[0] in PERMISSION_SUBJECTS:
        allowed = next(i for i, c in enumerate(CLASSES) if c[0] == "allowed")
        return allowed, True, rest[1:]  # from the verb asked about ("return the headphones")
    best: tuple[int, int, bool] | None = None
    for n, (_, pos, neg) in enumerate(CLASSES):
        for side, phrases in ((True, pos), (False, neg)):
            at = _find(rest, phrases)
            if at is not None and (best is None or at < best[0]):
                best = (at, n, side)
    if best is None:
        return None
    return best[1], best[2], rest[best[0] :]


def _clauses(transcript: str) -> list[list[str]]:
    """The reply's statements: split at , ; . ! and "so" / "but"; a clause that asks ("…?") is dropped."""
    out = []
    for sentence in re.split(r"(?<=[.!?;])\s+|[;,](?:\s+|$)", transcript):
        if sentence.strip().endswith("?"):
            continue
        for part in re.split(r"\b(?:so|but|and)\b", sentence):
            words = normalize_tokens(part)
            if words:
                out.append(words)
    return out


def _occasion(words: list[str]) -> set[str]:
    """The content words after "on" (up to two): the day or occasion a statement is about."""
    if "on" not in words:
        return set()
    k = words.index("on")
    return {stem(w) for w in words[k + 1 : k + 4] if w not in ("a", "an", "the", "this", "next", "every")}


def _negated(words: list[str], at: int) -> bool:
    before = words[max(0, at - 3) : at]
    return bool(set(before) & NEGATORS) or " ".join(before[-2:]) == "no longer"


def _covered(word: str, asked: str) -> bool:
    return word == asked or asked in COVERS.get(word, frozenset())


def restricted_away(words: list[str], asked_words: list[str]) -> bool:
    """The clause narrows to time words ("only in the mornings") of a kind the question names ("Saturday
    afternoon") and none of them covers what the question names: it excludes the asked case."""
    k = next((i for i, w in enumerate(words) if w in RESTRICTORS), None)
    if k is None:
        return False
    said = [stem(w) for w in words[k + 1 : k + 7]]
    asked = [stem(w) for w in asked_words]
    for kind in QUALIFIERS:
        mine = [w for w in said if w in kind]
        theirs = [w for w in asked if w in kind]
        if mine and theirs and not any(_covered(m, t) for m in mine for t in theirs):
            return True
    return False


EXCEPT = ("except", "apart from", "other than", "but not", "besides", "excluding")


def excepts_asked(words: list[str], asked_words: list[str]) -> bool:
    """The clause carves out of its statement a word the question asks about ("open every day except Sunday",
    "apart from Sundays")."""
    said = " ".join(words)
    asked = {stem(w) for w in asked_words[1:] if w not in STOP}
    for marker in EXCEPT:
        k = said.find(f"{marker} ") if said.startswith(f"{marker} ") else said.find(f" {marker} ")
        if k >= 0 and asked & {stem(w) for w in said[k:].split()[len(marker.split()) :][:3]}:
            return True
    return False


def restricted_elsewhere(words: list[str], asked_words: list[str]) -> bool:
    """The clause narrows ("only", "just") to something and none of the question's words after its predicate
    is in what it narrows to ("we only take cash" to "do you accept cards?"): it speaks of another thing, and
    whether that excludes the asked one is not read."""
    k = next((i for i, w in enumerate(words) if w in RESTRICTORS), None)
    if k is None:
        return False
    asked = {stem(w) for w in asked_words[1:] if w not in STOP}
    said = {stem(w) for w in words[k + 1 :] if w not in STOP}
    return bool(asked) and bool(said - asked) and not said & asked


def stated_answer(question: str, transcript: str) -> str | None:
    """'yes' or 'no' by the reply's statement about the question's predicate (see the module
    docstring), or None when the question has no predicate of the classes or the reply says nothing
    of it."""
    asked = asked_predicate(question)
    if asked is None:
        return None
    n, side, after = asked
    _, pos, neg = CLASSES[n]
    occasion = _occasion(after)
    for words in _clauses(transcript):
        hits = [(at, s) for s, phrases in ((True, pos), (False, neg)) if (at := _find(words, phrases)) is not None]
        if restricted_away(words, after):
            affirmed = side if not hits else min(hits)[1] != _negated(words, min(hits)[0])
            return "yes" if (not affirmed) == side else "no"
        if not hits:
            continue
        if restricted_elsewhere(words, after):
            return None  # "we only take cash" to "do you accept cards?": a restriction to another thing
        at, said_side = min(hits)
        if "".join(words[at : at + 1]) in NEGATORS:  # "cannot", "not allowed": the phrase carries its own negation
            said_side = False
        own = _occasion(words[at:])
        if occasion and own and not occasion & own:
            return None  # "closed on Christmas" to "open on Boxing Day?": another case
        affirmed = said_side != _negated(words, at)
        if excepts_asked(words, after):
            affirmed = not affirmed  # "open every day except Sunday" to "open on Sunday?"
        return "yes" if affirmed == side else "no"
    return None
