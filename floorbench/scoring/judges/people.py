"""Who a reply and a question speak of: the people they name, and the subject of a contrast clause.

The answer rules (`answer_rules`) bind a gold to the claim the question asks
for: when a question asks about one person, a clause about somebody else is an
aside; a contrast clause about another thing takes nothing back. These are the
readers of names and subjects they use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from floorbench.scoring.judges.claims import RELATIONAL
from floorbench.scoring.judges.commitment import CORRECTION, STOP, content, entity_spans, word_matches
from floorbench.scoring.judges.item_values import question_list
from floorbench.scoring.judges.normalize import stem
from floorbench.scoring.judges.quantities import lex
from floorbench.scoring.judges.values import MONTHS, WEEKDAYS

NOT_NAMES = STOP | frozenset(
    "hmm hm mm oh ah um uh no yes yeah yep nope okay sure well right so probably maybe definitely actually "
    "sorry wait honestly just only not that it she he they we i good great the sir madam maam mam".split()
)
"""capitalised reply words that are no one's name (sentence openers, fillers)"""


def capitalised(text: str) -> frozenset[str]:
    """The capitalised words of a text, lower-cased."""
    return frozenset(w.lower() for w in re.findall(r"\b[A-Z][a-z]+", text))


SUBJECT_VERBS = frozenset(
    "wanted want wants picked pick picks chose choose chooses went goes said says is was s has had will would "
    "did does liked likes prefers preferred ordered orders asked volunteered took takes got gets fancied "
    "fancies thinks thought reckons".split()
)
"""what follows a name that opens a sentence ("Jonas picked …", "Oliver's setting …")"""


def people(text: str, gold_words: Sequence[str] = ()) -> frozenset[str]:
    """Capitalised words that are someone's name: not fillers nor the gold's own words; a word that
    opens a sentence (capitalised anyway) only when a verb follows it ("Jonas picked ...")."""
    out: set[str] = set()
    found = list(re.finditer(r"\b[A-Z][a-z]+", text))
    gold_like = {m.start() for m in found if any(word_matches(g, m.group(0).lower(), name=True) for g in gold_words)}
    for k, m in enumerate(found):
        word = m.group(0).lower()
        beside = [n for n in found[max(0, k - 1) : k + 2] if n is not m and abs(n.start() - m.start()) <= 1 + max(
            len(n.group(0)), len(m.group(0)))]
        if word in NOT_NAMES or word.removesuffix("s") in WEEKDAYS or word in MONTHS or m.start() in gold_like or any(
                n.start() in gold_like for n in beside):
            continue  # the gold's name, or the other half of it ("Shivaun Keely" for Siobhan Kealy)
        opens = not text[: m.start()].strip() or re.search(r"[.!?:]\s*$", text[: m.start()])
        after = lex(text[m.end():])[:1]
        if opens and not (after and after[0] in SUBJECT_VERBS):
            continue
        out.add(word)
    return frozenset(out)


def asked_people(question: str) -> frozenset[str]:
    """The people a question asks about ("what did Jonas pick?"): capitalised words that are not
    its first word, the name it is put to ("Aria, ...", "..., Aria?", "hey Aria") or a filler. None when
    it asks *who*: its answer is a person, so the people a reply names are candidates ("Kuya Jun, no,
    sorry, Tito Ramon"; "your dad's brother, Ramon"), not others' asides."""
    if re.match(r"\s*(?:\w+\s*,\s*)?(?:and\s+|so\s+)?(?:who|whom)\b", question, re.I):
        return frozenset()
    listed = {w for option in question_list(lex(question)) for w in option}  # "…: Bruno, Keiko or Lars?": candidates
    out: set[str] = set()
    for m in re.finditer(r"\b[A-Z][a-z]+", question):
        before, after = question[: m.start()], question[m.end():]
        if not before.strip() or re.search(r"(?:^|[.!?:]\s*)\s*$", before) or after.lstrip().startswith(","):
            continue
        if re.search(r"(?:,|\bhey|\bhi|\bokay|\bok)\s*$", before.lower()) and not after.strip(" ?.!"):
            continue
        if re.search(r"\b(?:hey|hi)\s*$", before.lower()):
            continue
        word = m.group(0).lower()
        if word not in NOT_NAMES and word.removesuffix("s") not in WEEKDAYS and word not in MONTHS and word not in listed:
            out.add(word)  # "the final on Sunday" names a day, not somebody asked about
    return frozenset(out)


NP_OPENERS = frozenset("the a an this that my your our their his her its".split())
NP_ENDS = frozenset("is are was were has have had does do did will would can could opens open closes close "
                    "costs cost takes take goes go leaves leave starts start gets get looks look".split())
"""the verb that ends a clause's subject ("but the café opens before …")"""
LEAD_WORDS = frozenset("honestly frankly though still then and so well".split())


def another_subject(clause: Sequence[str], question: Sequence[str]) -> bool:
    """A contrast clause ("but the café opens at nine") whose subject's head noun the question does not
    name is about another thing (or another property: "but the Realme camera is better"), an aside
    that takes nothing back; its subject is its first noun phrase, up to its verb."""
    words = [t for t in clause if t not in (",", ".")]
    k = 0
    while k < len(words) and (words[k] in LEAD_WORDS or words[k] in CONCESSION_WORDS):
        k += 1
    if k >= len(words) or words[k] not in NP_OPENERS or not question:
        return False
    end = next((j for j in range(k + 1, min(len(words), k + 5)) if words[j] in NP_ENDS), None)
    if end is None or end == k + 1:
        return False
    head = words[end - 1]
    asked = {stem(t) for t in question}
    return head.isalpha() and head not in ("one", "ones") and stem(head) not in asked


CONCESSION_WORDS = frozenset(("but", "however", "though", "although", "whereas"))


def opening_name(transcript: str) -> list[str]:
    """The name a reply opens on, said alone before a comma or a full stop ("Mayo, and they deserved it"):
    the answer, whatever the rest names after it; [] when the reply opens otherwise (fillers, lower case)."""
    m = re.match(r"\s*((?:[A-Z][a-z]{2,}\s*){1,3}),", transcript)
    if m is None or set(lex(transcript[m.end():])) & (CORRECTION | {"no", "not", "nope"}):
        return []  # "Helen, no, sorry, Kenji": a correction decides
    words = m.group(1).lower().split()
    if any(w in NOT_NAMES or w in OPENERS or w.removesuffix("s") in WEEKDAYS or w in MONTHS for w in words):
        return []
    return words


OPENERS = frozenset("aww yay wow gosh jeez lord god yikes ugh hmm ooh whoa certainly absolutely indeed cheers "
                    "thanks alright honestly basically listen look".split())
"""words that open a reply with a comma and are no answer ("Absolutely, …", "Listen, …")"""


def opened_other(refs: Sequence[str], transcript: str, tokens: Sequence[str], names: frozenset[str]) -> str:
    """Why a reply that opens on another name than the gold's and names the gold only after it is wrong
    ("Mayo, and they deserved it, the Galway lads were flat" for Galway), or ''. A relation after it
    ("Harriet, straight after Bo") is left to the claim rules."""
    opener = opening_name(transcript)
    if not opener or RELATIONAL & set(tokens) or any(
            word_matches(g, w, name=True) for r in refs for g in content(lex(r)) for w in opener):
        return ""
    if any(entity_spans(words, tokens[len(opener):], names) for r in refs if (words := content(lex(r)))):
        return f"opens on '{' '.join(opener)}' and names '{refs[0]}' only after it"
    return ""
