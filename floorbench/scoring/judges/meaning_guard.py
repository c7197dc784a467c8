"""What the sentence model must not decide: a name with one of its words swapped, a part named by its whole.

MiniLM scores "chidi okafor" close to "Chidi Okonkwo" and "central station" close to "the north
entrance of Central Station": the vectors share most of their words. A grader reads both as
wrong: a person's name is right only when every word of it is said (or misheard so that it still
sounds like it), and "the A of B" asks for the part A, so saying only B names the whole. These
checks run before a meaning match is accepted; each gives the rule that decided.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from floorbench.scoring.judges.commitment import word_matches
from floorbench.scoring.judges.normalize import STOPWORDS, normalize_tokens
from floorbench.scoring.judges.values import MONTHS, WEEKDAYS

NEAR_NAME_WORD = 0.72
"""a name word said this close in spelling may be misheard (the rules do not decide); below it, another word"""
CALENDAR = WEEKDAYS | frozenset(MONTHS)
"""a closed class of values: one of them said for another is another value, never a mishearing"""


def _name_words(ref: str) -> list[str] | None:
    """The words of a gold that is a person's or place's proper name (every content word capitalised)."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", ref) if w.lower() not in STOPWORDS]
    if len(words) < 2 or not all(w[:1].isupper() for w in words):
        return None
    return [w.lower() for w in words]


def name_swapped(ref: str, transcript: str) -> tuple[str, str] | None:
    """('wrong' or 'unsure', why) when the gold is a proper name and the reply says some of its words
    but not another: a swapped word is another person ("chidi okafor"), a near one may be misheard."""
    words = _name_words(ref)
    if words is None:
        return None
    toks = normalize_tokens(transcript)
    said = [w for w in words if any(word_matches(w, t, name=True) for t in toks)]
    if not said or len(said) == len(words):
        return None
    missing = [w for w in words if w not in said]
    others = [t for t in toks if t not in STOPWORDS and not any(word_matches(w, t, name=True) for w in words)]
    near = max((SequenceMatcher(None, m, t).ratio() for m in missing for t in others), default=0.0)
    if not others:
        return None  # "the Honda" for the Honda Civic: shortened, no other word in its place
    if near >= NEAR_NAME_WORD:
        return "unsure", f"says {' '.join(said)} but '{missing[0]}' only nearly ({near:.2f}): misheard or another name"
    return "wrong", f"says {' '.join(said)} but not '{missing[0]}': part of the name with another word, another name"


def whole_for_part(ref: str, transcript: str) -> str | None:
    """Why the reply names only the whole of a gold "the A of B" (its words are B's alone), else None."""
    gold = normalize_tokens(ref)
    if "of" not in gold:
        return None
    k = gold.index("of")
    part = [w for w in gold[:k] if w not in STOPWORDS]
    whole = [w for w in gold[k + 1 :] if w not in STOPWORDS]
    toks = [t for t in normalize_tokens(transcript) if t not in STOPWORDS]
    if not part or not whole or not toks:
        return None
    says_whole = all(any(word_matches(w, t) for t in toks) for w in whole)
    says_part = any(word_matches(w, t) for w in part for t in toks)
    if says_whole and not says_part:
        return f"names '{' '.join(whole)}' but not which part of it ('{' '.join(part)}'): partial"
    return None


def closed_class_other(said: str, ref: str) -> bool:
    """The near spelling is another member of a closed class ("tuesday" for Thursday): another value."""
    return said.replace(" ", "") in CALENDAR and any(w in CALENDAR for w in normalize_tokens(ref))
