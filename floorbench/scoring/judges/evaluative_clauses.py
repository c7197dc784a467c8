"""Short clauses about what was just said, and clauses with their own subject (the tenth round).

The turn grammar (`turn_grammar`) reads a part with an evaluation frame ("that's so sweet") by its
head. A reply is also built as opener + clause, and the clause's subject says what it is about:

- **about the turn** (`evaluation`, a reaction), after a turn that only tells:
  - a difficulty or a size of what was said, put on a pro-form ("that's a tricky one", "busy day",
    "a long one"): an adjective before a noun that stands for what was said or the time it tells
    of (`PRO_NOUNS`), no determiner that picks one out ("the other one" picks: content);
  - a word of feeling put on someone or something of the news ("poor guy", "excellent work",
    "poor Duke"); not on a proposal or a value ("good idea", "good price": a side);
  - a feeling put on the news with the demonstrative as the Englishes write it ("dat rough", "dis
    lovely": th-stopped "that", "this");
  - praise of the listener given back: "you" (however written: "yuh", "ya") and a word of feeling or
    praise ("yuh smart too", "you're lovely"), or "you", a verb and a manner adverb of praise ("you
    speak very well", "you cook beautifully"). A word that grants a claim ("you're right") takes a
    side and is left to the frame rules;
- **about its own subject** (`content`, read where the grammar could not type the part): a noun and
  a copula ("robot is okay": an opinion on its own subject) or the speaker and a verb ("mi
  understand yuh fine": a fact about the speaker), or four words or more past the openers in
  words the rules cannot read: a clause, too long for a reaction;
- **one bare word after a statement** the grammar could not type, in a turn that mixes in another
  language: a reaction in that language (`reply_acts.foreign_reaction`).
"""

from __future__ import annotations

from floorbench.scoring.judges.interjections import PARTICLES, known_words
from floorbench.scoring.judges.normalize import is_number
from floorbench.scoring.judges.reply_acts import foreign_reaction, reacts
from floorbench.scoring.judges.turn_acts import AUXILIARIES, TurnAct, turn_act
from floorbench.scoring.judges.values import MONTHS, WEEKDAYS

YOU = frozenset("you yuh ya yu u youre yur".split())
"""the listener as subject, however written ("you're" is written "youre" by the tokens)"""
SPEAKER = frozenset("i mi me we wi im".split())
"""the speaker as subject ("mi" in Caribbean and West African Englishes)"""
DEICTIC = frozenset("that this it dat dis dats thats its".split())
"""what points at what was just said, the th-stopped spellings ("dat", "dis") among them"""
COPULAS = frozenset("is are was were be am re s".split())
DEGREE = frozenset("so really very too quite just absolutely totally pretty rather real proper such "
                   "a an bit little kinda".split())
PRO_NOUNS = frozenset("one ones thing things stuff story news question day week night morning".split())
"""nouns that stand for what was said or the span it tells of ("a tricky one", "busy day")"""
IDENTIFYING = frozenset("next last first second third other same different right wrong whole only own previous "
                        "following main usual blue red green black white early late earlier later".split())
TIMES = frozenset("today tomorrow tonight yesterday".split()) | WEEKDAYS | frozenset(MONTHS)
"""words that name a time: with them the part says when ("Friday night", "lovely Friday"), a value"""
"""adjectives that pick one thing out among others ("the other one", "the blue one", "next week"):
with them a pro-form names a choice, not a judgement"""
VALUE_NOUNS = frozenset("price prices deal offer rate cost value bargain total".split())
"""a feeling word on these weighs a value ("good price", as "that's a good price"): it takes a side on it"""
GRANTING = frozenset("right true correct wrong agreed fair sure".split())
"""words that grant or deny a claim: with them a clause takes a side"""
PICKERS = frozenset("the this that these those my your his her our their which".split())
CLAUSE_WORDS = 4
"""a part this long past its openers is a clause, even in words the rules cannot read ("lagi naman may
sale dyan"): a reaction is shorter (`turn_grammar.minor_part` takes at most three words as one)"""
TAILS = frozenset("too also man mate eh".split())


def _core(tokens: list[str], address: frozenset[str]) -> list[str]:
    """The clause without the reactions before it and the address, tags and "too" after it."""
    out = list(tokens)
    while len(out) > 1 and (reacts(out[0]) or out[0] in PARTICLES or out[0] in address):
        out = out[1:]
    while len(out) > 1 and (out[-1] in TAILS or out[-1] in address):
        out = out[:-1]
    return out


def _manner(word: str, feelings: frozenset[str]) -> bool:
    """"well", or an adverb made of a word of feeling ("beautifully", "brilliantly", "nicely")."""
    if word == "well":
        return True
    if not word.endswith("ly") or len(word) < 5:
        return False
    stem = word[:-2]
    return stem in feelings or stem[:-1] + "y" in feelings or stem + "le" in feelings or stem + "e" in feelings


def _about_turn(core: list[str], feelings: frozenset[str], praise: frozenset[str]) -> str | None:
    said = " ".join(core)
    if set(core) & TIMES:
        return None
    words = [t for t in core if t not in DEGREE]
    if core[0] in DEICTIC:
        words = [t for t in words[1:] if t not in COPULAS]
    if len(words) == 2 and words[1] in PRO_NOUNS and words[0] not in IDENTIFYING | PICKERS | GRANTING \
            and not is_number(words[0]) and words[0] in known_words() and not set(core) & PICKERS - DEICTIC:
        return f"'{said}': an adjective put on a word for what was said ('{words[1]}'): it evaluates it, a reaction"
    if len(core) == 2 and core[0] in feelings and core[1] not in praise | VALUE_NOUNS | PRO_NOUNS \
            and core[1].isalpha() and core[1] not in feelings:
        return f"'{said}': a word of feeling put on someone or something of the news: a reaction"
    if core[0] in ("dat", "dis", "dats") and len(words) == 1 and words[0] in feelings:
        return f"'{said}': a feeling put on the news ('{words[0]}'), 'that' as it is spoken: a reaction"
    if core[0] in YOU:
        rest = [t for t in core[1:] if t not in COPULAS and t not in DEGREE]
        if len(rest) == 1 and rest[0] in feelings | praise and rest[0] not in GRANTING:
            return f"'{said}': praise of the listener ('{rest[0]}') given back: a reaction"
        if len(rest) == 2 and rest[0] not in AUXILIARIES - {"do", "did"} and rest[0] in known_words() \
                and _manner(rest[1], feelings):
            return f"'{said}': the listener praised for how they do something ('{rest[1]}'): a reaction"
    return None


def _own_subject(core: list[str]) -> str | None:
    said = " ".join(core)
    if len(core) >= 3 and core[0] in SPEAKER and core[1] in known_words() and core[1] not in DEGREE:
        return f"'{said}': the speaker and a verb, a fact of its own: content"
    if len(core) >= 3 and core[1] in ("is", "are", "was", "were") and core[0] not in DEICTIC | YOU | SPEAKER \
            and core[0] in known_words() and core[0] not in DEGREE | PICKERS:
        return f"'{said}': a noun and a copula, an opinion on its own subject: content"
    return None


def reread(kind: str, tokens: list[str], turn: str, feelings: frozenset[str], praise: frozenset[str],
           address: frozenset[str]) -> tuple[str, str] | None:
    """(kind, why) for a part the turn grammar typed as `content` or `unclear` when its clause says what
    it is about (see the module's text); None to keep the grammar's type."""
    if kind not in ("content", "unclear") or not tokens or len(tokens) > 6:
        return None
    core = _core(tokens, address)
    if turn_act(turn) is TurnAct.statement:
        why = _about_turn(core, feelings, praise)
        if why is not None:
            return "evaluation", why
    if kind != "unclear":
        return None
    why = _own_subject(core)
    if why is None and len(core) >= CLAUSE_WORDS and not all(reacts(t) for t in core):
        why = f"'{' '.join(core)}': {len(core)} words past its openers, a clause that says something: content"
    if why is not None:
        return "content", why
    why = foreign_reaction(tokens, turn)
    return None if why is None else ("interjection", why)
