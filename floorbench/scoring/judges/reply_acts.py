"""What a short window reply does, read from the act of the turn it follows (the tenth round).

A bare word means what the turn makes it mean (`turn_acts`). The turn grammar (`turn_grammar`)
types a part by its own shape first; these readings come before it where the turn decides:

- **an answer word in any language**: after a yes/no question or a request, offer or proposal put
  to someone, a word the sentence model does not know as English said twice or with a short
  particle or honorific beside it ("ne, ne", "sige po", "oo po") has the shape of an answer:
  politeness marks and doubling go with a reply to what was put, and neither word has a
  reaction's shape (no hum, laughter or sound, no letter drawn out, no reaction word or
  expletive: `reacts`; not the word the turn itself opens on, "Uy" to "Uy Beth, did you …?").
  It is read as the answer or the acceptance it stands in for: content. Which word says "yes" in
  which language is open-ended, so the reading goes by the slot and the shape, not by a list.
  So is a word of two letters alone that is no English word and no sound ("Ne.", "Oo."): the
  size of a yes/no particle. A longer word alone ("Sawa.", "Aki.", "Yum.") is left as it was (an
  interjection): in the
  samples read so far it was the answer about as often as an exclamation of its language, and
  nothing in its form tells which. After a wh-question or a statement it answers nothing;
- **the turn's own words, said back after a question** ("teh peng" to "you want teh peng or
  kopi-o?"): the reply picks what the turn offers, content;
- **an interjection echoed**: after a statement, a word the turn itself says as a part of its own
  ("…, cho." → "Cho."), a tag or an exclamation, said back: a reaction, not a repetition of content;
- **one word drawn out with a tilde** ("Oishisou~"): chat's mark of a sing-song exclamation, as a
  letter said three times is ("ughhh"): a reaction, whatever the turn;
- **one bare word after a statement in a turn that mixes in another language**: where the turn
  uses words outside English (not names), a bare word the rules cannot type ("Pole.") is read as a
  word of that language said in reaction: the statement asks nothing for it to answer. In an
  English-only turn the evidence is missing and the part stays `unclear` (the judge says unsure).
"""

from __future__ import annotations

import re

from floorbench.scoring.judges.formulas import AFFECT_INTERJECTIONS
from floorbench.scoring.judges.interjections import (
    MAX_INTERJECTION_LETTERS,
    REACTION_WORDS,
    interjection_like,
    known_words,
    sound_like,
)
from floorbench.scoring.judges.normalize import is_number, normalize_tokens
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act

ANSWERED = (TurnAct.yes_no_question, TurnAct.request)
"""the acts a bare word answers or accepts"""
ASSENT_PARTICLES = frozenset("hai ji achha acha accha acchha chalo".split())
"""words that `REACTION_WORDS` holds as particles but that assent ("achha": okay, "ji": yes, sir;
"chalo": all right then; "hai": Japanese yes): after a question or a request they answer it"""
PARTICLE_SIZE = 2
"""a word this short that is no English function word and no sound is the size of a yes/no particle"""
MAX_PARTICLE_LETTERS = 3
"""a second word this short beside the answer word is a particle or an honorific ("po", "na", "ssi")"""


def reacts(token: str) -> bool:
    """The token has a reaction's shape: a sound (hum, laughter, a sound named, a letter drawn out, no
    vowel), an interjection of feeling, or a reaction word of another language."""
    return sound_like(token) or token in AFFECT_INTERJECTIONS or (
        token in REACTION_WORDS and token not in ASSENT_PARTICLES)


def _unknown(token: str, raw_words: set[str]) -> bool:
    """A word outside English: interjection-shaped, written with a letter English does not use, or not
    a whole word of the sentence model."""
    if not token.isalpha() or is_number(token):
        return False
    return interjection_like(token) or token in raw_words or token in ASSENT_PARTICLES


def answer_word(raw: str, tokens: list[str], turn: str, exclaims: frozenset[str] = frozenset()) -> str | None:
    """Why a part is a word of another language put in the slot of an answer or an acceptance, or
    None (see the module's text); `exclaims`: the interjections and expletives the grammar knows."""
    act = turn_act(turn)
    if act not in ANSWERED or act is None or raw.rstrip().endswith("?") or not tokens:
        return None
    accented = {normalize_tokens(w)[0] for w in re.findall(r"\w+", raw) if not w.isascii() and normalize_tokens(w)}
    head, *rest = tokens
    if len(rest) > 2 or not _unknown(head, accented) or reacts(head) or head in exclaims:
        return None
    if not rest and len(head) > PARTICLE_SIZE:
        return None  # "Opa!", "Aki.": one word alone may be the answer or an exclamation (see the text)
    if normalize_tokens(turn)[:1] == [head]:
        return None  # "Uy." to "Uy Beth, did you …?": the turn's own opening interjection said back
    if any(t != head and (len(t) > MAX_PARTICLE_LETTERS or not _unknown(t, accented) or sound_like(t)) for t in rest):
        return None
    if len(head) > MAX_INTERJECTION_LETTERS and head not in accented:
        return None
    return (f"'{' '.join(tokens)}': a word the rules do not know as English, in the slot of the answer to "
            f"a {act.value.replace('-', ' ')}: it answers or accepts, content")


def picks_from_turn(tokens: list[str], turn: str) -> str | None:
    """Why a part of the turn's own unknown words, said after a question, picks what the turn offers."""
    if turn_act(turn) not in (*ANSWERED, TurnAct.wh_question) or not tokens:
        return None
    heard = set(normalize_tokens(turn)[1:])  # not the word the turn opens on ("Uy Beth, …")
    if not all(t in heard and not reacts(t) for t in tokens) or not any(interjection_like(t) for t in tokens):
        return None
    return f"'{' '.join(tokens)}' says back words the question offers: it picks one, content"


def _turn_parts(turn: str) -> list[list[str]]:
    return [normalize_tokens(p) for p in re.split(r"[,.!?;:…]+", turn) if normalize_tokens(p)]


def echoed_interjection(tokens: list[str], turn: str) -> str | None:
    """Why a one-word part echoes an interjection the turn says as a part of its own, or None."""
    if len(set(tokens)) != 1 or turn_act(turn) is not TurnAct.statement:
        return None
    parts = _turn_parts(turn)
    if not any(p == [tokens[0]] for p in parts[1:]) or len(parts) < 2:
        return None
    return f"'{tokens[0]}' echoes the exclamation the turn ends or breaks on: a reaction, not content"


def mixed_language(turn: str) -> bool:
    """The turn uses a word outside English that is not a name (a lower-case word the sentence model
    does not know, or one with a letter English does not use)."""
    vocab = known_words()
    for word in re.findall(r"[^\W\d_]+", turn):
        low = word.lower()
        if word[:1].isupper() or len(low) < 3 or not vocab:
            continue
        if not word.isascii() or (low not in vocab and not sound_like(low) and low not in AFFECT_INTERJECTIONS):
            return True
    return False


def foreign_reaction(tokens: list[str], turn: str) -> str | None:
    """Why one bare word the rules cannot type is read as a reaction in the turn's other language."""
    if len(set(tokens)) != 1 or turn_act(turn) is not TurnAct.statement or not mixed_language(turn):
        return None
    if tokens[0] in set(normalize_tokens(turn)) or is_number(tokens[0]):
        return None
    return (f"'{tokens[0]}': one bare word after a statement that asks nothing, in a turn that mixes in another "
            "language: read as a reaction in that language")


def by_act(raw: str, tokens: list[str], turn: str, exclaims: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """(kind, why) for a part the turn's act decides before its own shape: an answer word or the turn's
    own words after a question (content), an echoed interjection after a statement (interjection)."""
    why = answer_word(raw, tokens, turn, exclaims) or picks_from_turn(tokens, turn)
    if why is not None:
        return "content", why
    why = echoed_interjection(tokens, turn) or drawn_out(raw, tokens)
    return None if why is None else ("interjection", why)


def drawn_out(raw: str, tokens: list[str]) -> str | None:
    """Why one word written drawn out with a tilde ("Oishisou~", "ehh~"), as chat writes a sing-song
    exclamation, is said as one, or None: the mark is the sound drawn out, as "ughhh" is."""
    if len(tokens) != 1 or not raw.rstrip(" .!").endswith("~"):
        return None
    return f"'{raw.strip()}': one word drawn out in writing ('~'): an exclamation, a reaction"
