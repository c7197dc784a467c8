"""Whether the gold value a reply says is bound to what the question asks about, or to something else.

A reply can say the gold's number and still answer wrong: "Australia made 287, India is batting"
(asked India's runs), "Fourteen Marlborough Road is the opticians; the dentist is at number
twenty-two" (asked the dentist's address), "seventy-seven next month, then next year seventy-eight"
(asked next month), "two-one, but in Villa's favour" (gold: 2-1 to Arsenal). The reply is split into
clauses (at ; . ! ? "but", "then", "while", "whereas", a dash; for names, at commas too); the value is
bound elsewhere when:

- another clause says a value too and holds a word of the question the gold's clause lacks (the
  question's thing goes with the other value);
- the gold's clause names someone or something (a capitalised name) the question does not, and
  another clause names one the question does;
- the gold names one of the question's names ("to Arsenal") and the reply names another of them
  ("Villa's favour") and not the gold's.

Names are read from capitals, so a recogniser's ALL CAPS text binds by the first rule only.
"""

from __future__ import annotations

import re
from typing import Protocol

from floorbench.scoring.judges.anchors import HERE, value_anchored_elsewhere
from floorbench.scoring.judges.commitment import STOP, content
from floorbench.scoring.judges.converse import complement_said, says_converse
from floorbench.scoring.judges.item_values import (
    code_bound_elsewhere,
    role_bound_elsewhere,
    same_kind,
    totalled,
    unpicked_list,
    value_bound_to_other_item,
)
from floorbench.scoring.judges.normalize import is_number, normalize_tokens, stem
from floorbench.scoring.judges.quantities import UNIT_OF, lex, mentions
from floorbench.scoring.judges.quantity_match import Quantity, gold_quantity, same_quantity
from floorbench.scoring.judges.values import gold_code

_CLAUSE = re.compile(r"\s*(?:[;.!?]+|—|–\s|\s-\s|,?\s+(?:but|then|while|whereas)\s+)\s*", re.I)
_PART = re.compile(r"\s*(?:[;.!?,]+|—|–\s|\s-\s|\s+(?:but|then|while|whereas)\s+)\s*", re.I)
NOT_KEYS = frozenset("aria what which how many much when where who whom whose is are was were do does did the a an "
                     "of to in on at for from my me i you your it its this that will be".split())


def _names(text: str) -> set[str]:
    """Capitalised words, lower-cased (none in ALL CAPS text); a clause's first word only when it is no
    function word or number ("Pakistan scored", not "The" or "Fourteen")."""
    if text.isupper():
        return set()
    words = re.findall(r"[A-Za-z][\w']*", text)
    first = words[:1] if words and words[0].lower() not in STOP and not is_number(normalize_tokens(words[0])[0]
                                                                                     if normalize_tokens(words[0])
                                                                                     else "0") else []
    return {w.lower().removesuffix("'s") for w in [*first, *words[1:]] if w[:1].isupper()
            and w.lower() not in ("i", "aria") and w.lower() not in STOP}


LIGHT_VERBS = frozenset("get gets got getting make makes made go goes went going leave leaves left leaving cost costs "
                        "be been being has have had take takes took come comes came".split())
MEASURES = (frozenset(UNIT_OF) | frozenset("points point runs run goals goal old minutes hours".split())) - {"year", "years"}
"""words that name what a value counts, not which thing it belongs to"""


def _own_thing(clause: str, question: str, gold: str) -> bool:
    """The gold's clause names a thing of its own: a content word the question and the gold do not
    have ("the opticians", "the Gatwick Express", "next year"), light verbs and measures aside."""
    asked = {stem(t) for t in lex(question)} | {stem(t) for t in lex(gold)}
    return any(stem(t) not in asked and t not in LIGHT_VERBS and t not in MEASURES and not is_number(t)
               for t in content(lex(clause)))


def _names_thing(clause: str) -> bool:
    """The clause names a thing with a determiner ("the café at eight thirty", "for the green"): at commas,
    only such a clause binds its value to that thing."""
    return bool(set(lex(clause)) & {"the", "this", "that", "my", "your", "our", "their", "his", "her"})


OPPOSITE_LABELS = (
    (("minimum",), ("min",), ("lowest",), ("low",)), (("maximum",), ("max",), ("highest",), ("high",)),
    (("arrive",), ("arrives",), ("arriving",), ("arrival",), ("arrives",), ("reaches",), ("reaching",)),
    (("leave",), ("leaves",), ("leaving",), ("depart",), ("departs",), ("departing",), ("departure",)),
    (("return",), ("returning",), ("inbound",)), (("onward",), ("outbound",), ("outward",), ("going",)),
    (("ex", "showroom"),), (("on", "road"),),
    (("check", "in"),), (("check", "out"),),
    (("opens",), ("opening",), ("open",)), (("closes",), ("closing",), ("close",), ("shuts",)),
)
"""labels that come in opposite pairs (each group beside its opposite): a reply that gives both values,
each after its label, binds the gold's value to the label it follows"""


def _has(tokens: list[str], label: tuple[str, ...]) -> bool:
    return any(tuple(tokens[k : k + len(label)]) == label for k in range(len(tokens)))


def _opposite_label(q: Quantity, gold: str, transcript: str, question: str) -> str | None:
    """The part that says the gold value is labelled the opposite of what the question asks ("Sir minimum 44
    and maximum 47" asked the maximum; "arriving at 6 15 and departing at 6 50" asked when it leaves), and
    another part, labelled as asked, says a value of the gold's kind."""
    from floorbench.scoring.judges.respell import respell  # respell reads the forms; binding is read by it

    asked = lex(question)
    parts: list[list[str]] = [[]]
    for t in lex(respell(transcript, [gold])):
        if t in (",", ".", ";", "!", "?", "and", "but", "while", "whereas"):
            parts.append([])
        else:
            parts[-1].append(t)
    parts = [p for p in parts if p]
    said = [any(same_quantity(q, m) for m in mentions(p)) for p in parts]
    if said.count(True) != 1:
        return None
    g = said.index(True)
    for k in range(0, len(OPPOSITE_LABELS), 2):
        for this, other in ((OPPOSITE_LABELS[k], OPPOSITE_LABELS[k + 1]), (OPPOSITE_LABELS[k + 1], OPPOSITE_LABELS[k])):
            if not any(_has(asked, w) for w in this) or any(_has(asked, w) for w in other):
                continue
            if not any(_has(parts[g], w) for w in other) or any(_has(parts[g], w) for w in this):
                continue
            for j, part in enumerate(parts):
                if j != g and any(_has(part, w) for w in this) and any(same_kind(q, m) for m in mentions(part)):
                    return f"the value said is labelled '{' '.join(other[0])}'; the one asked ('{' '.join(this[0])}') " \
                           f"goes with '{' '.join(part)}'"
    return None


def value_bound_elsewhere(gold: str, transcript: str, question: str) -> str | None:
    """Why the reply's gold value belongs to another thing than the one asked about, or None."""
    if question and gold_code(gold) and (coded := code_bound_elsewhere(gold, transcript, question)):
        return coded
    q = gold_quantity(gold)
    if q is None or not question or totalled(q, transcript):
        return None
    if opposite := _opposite_label(q, gold, transcript, question):
        return opposite
    from floorbench.scoring.judges.respell import respell  # respell reads the forms; binding is read by it

    if value_anchored_elsewhere(q, respell(transcript, [gold]), question, here=True) == HERE:
        return None
    said = [c for c in _PART.split(transcript) if c and any(same_quantity(q, m) for m in mentions(lex(c)))]
    if len(said) == 1 and (other := complement_said(lex(question), lex(said[0]))):
        return f"the value said counts the other side ('{other}')"
    keys = {t for t in content(lex(question)) if t not in NOT_KEYS} - set(lex(gold))
    asked_names = _names(question) - {"aria"}
    gold_words = set(lex(gold))
    for pattern in (_CLAUSE, _PART):
        clauses = [c for c in pattern.split(transcript) if c and lex(c)]
        said = [any(same_quantity(q, m) for m in mentions(lex(c))) for c in clauses]
        if len(clauses) < 2 or said.count(True) != 1:
            continue
        g = said.index(True)
        for k, clause in enumerate(clauses):
            lacking = (keys & set(lex(clause))) - set(lex(clauses[g])) - MEASURES
            if pattern is _PART:  # at commas: by stems ("opens" for "open"), the gold's clause naming a thing of its own
                lacking = {t for t in keys if stem(t) in {stem(w) for w in lex(clause)}
                           and stem(t) not in {stem(w) for w in lex(clauses[g])}} - MEASURES
            if k != g and mentions(lex(clause)) and lacking and _own_thing(clauses[g], question, gold) and (
                    pattern is _CLAUSE or (_names_thing(clauses[g]) and any(
                        same_kind(q, m) for m in mentions(lex(clause))))):
                return f"the value said goes with another thing; '{' '.join(sorted(lacking))}' goes with '{clause}'"
            own_names = _names(clauses[g]) - asked_names - gold_words - set(lex(question))  # "Room 12" for "which room"
            if k != g and own_names and _names(clause) & asked_names and not says_converse(lex(question),
                                                                                           lex(clauses[g])):
                return f"the value said is another's ('{', '.join(sorted(own_names))}')"
    if other := value_bound_to_other_item(q, gold, respell(transcript, [gold]), question):
        return other
    if _about_asker(question) and (someone := _named_subject(transcript, q)) and someone not in asked_names | gold_words:
        return f"the question asks about the asker, and the value said is {someone.capitalize()}'s"
    gold_names = _names(f"x {gold}") & asked_names
    others = (asked_names - gold_names) & _names(f"x {transcript}")
    if gold_names and others and not gold_names & _names(f"x {transcript}"):
        return f"the value said is {', '.join(sorted(others))}'s, not {', '.join(sorted(gold_names))}'s"
    return value_anchored_elsewhere(q, respell(transcript, [gold]), question)


_ASKER = re.compile(r"\b(?:did|do|does|am|was|have|had|will|can|should|shall)\s+(?:i|we)\b", re.I)
"""a question about the one asking ("where did I finish?", "how much do we owe?")"""


def _about_asker(question: str) -> bool:
    return _ASKER.search(question) is not None


def _named_subject(transcript: str, q: object) -> str | None:
    """The name that opens the clause saying the gold value ("Kevin finished third"), or None: the value
    said is that person's."""
    for clause in _PART.split(transcript):
        tokens = lex(clause)
        found = mentions(tokens)
        if not tokens or not any(same_quantity(q, m) for m in found):  # type: ignore[arg-type]
            continue
        if any(m.start == 0 for m in found):
            return None  # the clause opens on the value ("Twelve pounds"), not on a name
        first = re.match(r"\s*([A-Z][a-z]+)\b", clause)
        if first is None or clause.isupper():
            return None
        word = first.group(1).lower()
        rest = tokens[1:2]
        if word in STOP or word in ("aria", "you", "i", "we") or not rest or rest[0] in STOP - LIGHT_VERBS:
            return None
        return word
    return None


class _Read(Protocol):
    tokens: list[str]
    question: list[str]


def item_claim(reply: _Read, gold_words: list[str], gold: list[tuple[int, int]],
               others: list[tuple[int, int]]) -> str | None:
    """Why a name or choice the reply says is bound to another role than the one asked, or picked from no
    list (`item_values`), or None. `reply`: its tokens and the question's."""
    tokens, question = reply.tokens, reply.question
    return role_bound_elsewhere(tokens, question, gold_words, gold, others) or unpicked_list(tokens, question, gold_words)


CONCLUDING = frozenset(("so", "therefore", "hence", "thus", "meaning", "means"))
"""words that open a conclusion drawn from working shown ("6000 mAh against 5000, so the Redmi")"""


def concluded(tokens: list[str], gold_words: list[str], options: list[list[str]], other: bool = False) -> bool:
    """The reply ends on a conclusion ("…, so Redmi.") that names the gold and no other option: the
    options compared before it are working shown, not a hedge. `other`: whether it names another
    option and not the gold instead (then the conclusion answers wrong)."""
    marks = [k for k, t in enumerate(tokens) if t in CONCLUDING]
    if not marks or not gold_words:
        return False
    rest = set(tokens[marks[-1] + 1 :])
    others = [set(content(o)) - set(gold_words) for o in options if content(o) != gold_words]
    gold, rival = set(gold_words) <= rest, any(o and o <= rest for o in others)
    return (rival and not gold) if other else (gold and not rival)


RIVAL_COUNTS = (
    frozenset("run wicket over ball".split()),
    frozenset("goal point try set game frame".split()),
    frozenset("floor room".split()),
    frozenset("tablet capsule spoon drop".split()),
)
"""nouns that count different things in one domain: the same number of another is another value
("won by 43 wickets" is no answer to "by how many runs")"""


def counted_otherwise(gold: str, transcript: str) -> str | None:
    """Why the reply's gold number counts another thing than the gold's (its noun a rival of the gold's), or
    None: every time the reply says the gold's number, a rival noun follows it and the gold's never does."""
    from floorbench.scoring.judges.respell import respell

    def one(word: str) -> str:
        return "try" if word == "tries" else word.removesuffix("s")

    def counted(tokens: list[str]) -> list[tuple[str, str]]:
        return [(t, one(tokens[k + 1])) for k, t in enumerate(tokens[:-1]) if is_number(t)]

    gold_counts = [(n, noun) for n, noun in counted(lex(gold)) if any(noun in g for g in RIVAL_COUNTS)]
    if len(gold_counts) != 1:
        return None
    number, noun = gold_counts[0]
    group = next(g for g in RIVAL_COUNTS if noun in g)
    tokens = lex(respell(transcript, [gold]))
    after = [one(tokens[k + 1]) if k + 1 < len(tokens) else "" for k, t in enumerate(tokens) if t == number]
    if after and all(w in group and w != noun for w in after):
        return f"'{number}' counts {after[0]}, not {noun}"
    return None
