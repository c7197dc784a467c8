"""Reactions whose words look like content: formulas, idioms, epithets, and replies to a device command.

The turn grammar (`turn_grammar`) reads a part with a subject, a verb or a noun as content. Some
parts have those and still add nothing, because what they say is not bound to the turn's
information:

- a **formula** is a clause made only of function words: pronouns, light verbs of saying, knowing
  and happening, prepositions, determiners and degree words ("tell me about it", "i know right",
  "happens to the best of us", "far out", "you said it", "same here"). With no content word it
  can say nothing about the world; after a statement or a wh-question it reacts. After a yes/no
  question or a request it answers or accepts ("I know" to "do you know …?"), after a "why"
  question it gives the reason, and a clause with an auxiliary ("I did", "I did hear it", "it
  is"), one that proposes (a modal) or hands something over ("here you go") is never one;
- an **idiom** of surprise, agreement, sympathy or praise has content words, but not the turn's
  ("shut the front door!" after news of a promotion; "join the club"): it reacts, unless one of
  its content words is in the turn (then it may be meant literally). Idioms are lexical by nature,
  so these are a short list by function, not a list of replies;
- an **epithet** names the turn's topic in an exclamation after an affect interjection ("ugh,
  spreadsheets", "ugh, those little buggers"): a demonstrative noun phrase or the turn's own noun,
  with nothing added (no number, name, place, time or verb);
- after a **command to a device** ("Alexa, play triple j") nothing is put to the listener: praise
  of the choice ("good choice") evaluates, and a hum ("mm-hmm") is a listener's continuer; a
  confirmation ("okay", "playing it") still acts as the device.
"""

from __future__ import annotations

import re
from functools import lru_cache

from floorbench.scoring.judges.interjections import PARTICLES, interjection_like
from floorbench.scoring.judges.normalize import normalize_tokens, stem
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act

FUNCTION_WORDS = frozenset(
    "i me you ya ye yer youre im it that this us we they them those these one everyone everybody anyone tell telling say said saying know "
    "knew knows known happen happens happened go goes went be is are was were been do does did done mean "
    "means meant figure guess bet see seen hear there same here too right best worst all both never ever just well "
    "so again the a an about to of on in at for with up out far over off like more or less".split()
)
"""pronouns, light verbs (saying, knowing, happening), prepositions, determiners and degree words:
a clause of these alone names nothing"""
FORMULA_CORE = frozenset(
    "tell telling say said know knew happens happen happened same far figure been hear too guess bet mean best worst "
    "ever never seen".split()
)
"""a formula has one of these (a bare "of the" or "to it" is a fragment, not a reaction)"""
ELLIPTICAL = frozenset("do does did is are was were am have has had been can could will would shall should not".split())
"""a clause ending on an auxiliary answers elliptically ("I did", "it is", "we are")"""
PROPOSING = frozenset("maybe perhaps should could would might must can cant will ill shall lets let try".split())
HANDING = frozenset(("here", "there"))
PLACE = re.compile(r"\b(?:to|at) (?:the|a|an|my|our|that|this) \w+")
"""a place the turn names ("to the new cafe"): a "there" after it points back to it"""
"""'here you go', 'there it is': handing something over or pointing it out"""
IDIOMS = {
    "surprise": ("wait what", "say what", "shut the front door", "get out of town", "stone the crows", "blow me down",
                 "strike me pink", "knock me down with a feather", "well i never", "fancy that", "go figure",
                 "what are the odds", "holy smoke", "you are pulling my leg", "pull the other one",
                 "id never have guessed", "i would never have guessed", "never would have guessed",
                 "who would have thought", "who would have guessed", "who knew", "would you believe it",
                 "i never knew", "i dont believe it", "i cant believe it", "baap re", "are baap re",
                 "hai ram", "hey ram", "dios mio", "ay dios mio", "mon dieu", "mein gott", "oh mein gott",
                 "mamma mia", "oy vey", "oh la la", "quelle horreur", "oh my days", "my days", "oh my word",
                 "my word", "oh my goodness", "not again", "oh not again", "not this again", "no not again"),
    "agreement": ("join the club", "you can say that again", "preaching to the choir", "dont get me started",
                  "you and me both", "been there done that", "welcome to the club", "amen to that",
                  "hear hear", "fair dinkum"),
    "sympathy": ("chin up", "hang in there", "bless your heart", "rotten luck", "tough break", "that is life",
                 "thats life", "such is life", "it is what it is", "worse things happen at sea",
                 "these things happen", "never mind", "oh well", "story of my life", "rest in peace",
                 "may he rest in peace", "may she rest in peace", "god rest his soul", "god rest her soul",
                 "om shanti", "bhagwan unki aatma ko shanti de", "bhagwan unki atma ko shanti de",
                 "inna lillahi wa inna ilayhi rajiun", "que en paz descanse", "descanse en paz"),
    "praise": ("good on ya", "good on you", "hats off", "way to go", "nice one", "well done", "top stuff",
               "good for you", "go you", "first class", "top class", "world class", "first rate",
               "top notch", "ekdum first class", "second to none", "jolly good", "good question",
               "great question", "shabash", "kya baat hai", "kya baat", "big up", "big up yourself", "big ups",
               "respect", "props", "nuff respect", "fair play", "fair play to you", "fair play to ya"),
    "yielding": ("take your time", "no rush", "no hurry", "in your own time", "whenever youre ready",
                 "dont rush", "no pressure", "all in good time"),
}
"""idioms by what they do (they react); matched whole, after openers and terms of address"""
AFFECT_INTERJECTIONS = frozenset(
    "ugh urgh ugh eugh ew eww yuck bleh meh argh gah oof ooh oh aw aww wow god man boy sigh jeez".split())
"""interjections of feeling after which a bare noun phrase exclaims about the turn's topic"""
DEMONSTRATIVES = frozenset(("those", "these", "that", "this"))
DEVICES = frozenset("alexa siri google cortana bixby".split())
"""wake words of voice assistants: a turn put to one commands a device, not the listener"""
WAKE = frozenset(("hey", "ok", "okay", "hi"))
"""what may come before a wake word ("Hey Google", "OK Google"); a device named later ("Sam, google
it") is a verb or a mention, not the addressee"""
HUMS = re.compile(r"(?:m+|m+ ?h+m+|u+h+ ?h+u+h+|m+ ?hm+|h+m+)")


def _open_turn(turn: str) -> bool:
    """The turn leaves a content-free clause nothing to answer: a statement or a wh-question."""
    return turn_act(turn) in (TurnAct.statement, TurnAct.wh_question, None)


def formula(tokens: list[str], raw: str, turn: str) -> str | None:
    """Why a part is a formula that reacts (see the module's text), or None."""
    if not 2 <= len(tokens) <= 6 or raw.rstrip().endswith("?") or not _open_turn(turn):
        return None
    if set(tokens) & {"too", "same"} and turn_act(turn) is TurnAct.wh_question:
        return None  # "me too" to "who wants tea?" answers it
    if not set(tokens) <= FUNCTION_WORDS or not set(tokens) & FORMULA_CORE:
        return None
    if tokens[-1] in ELLIPTICAL or set(tokens) & PROPOSING or (tokens[0] in HANDING and tokens[1] != "too"):
        return None
    if set(tokens[1:]) & ELLIPTICAL or (tokens[0] in ELLIPTICAL and tokens[0] != "been"):
        return None  # "I did hear it": a tensed clause asserts; a formula has no auxiliary of its own
    if "why" in normalize_tokens(turn)[:3]:
        return None  # "happens to everyone" after "why is nothing where I left it": it gives the reason
    if turn and {stem(t) for t in tokens} & {stem(t) for t in normalize_tokens(turn) if t in FORMULA_CORE}:
        return None  # "you said it" after "what did she say": the verb is the turn's own
    if "there" in tokens and PLACE.search(" ".join(normalize_tokens(turn))):
        return None  # "been there" after "I'm going to the new cafe": 'there' is the turn's place
    return f"'{' '.join(tokens)}' is a formula of function words only: nothing bound to the turn, a reaction"


def idiom_use(tokens: list[str]) -> str | None:
    """What an idiom the part is does ('surprise', 'agreement', …), whatever the turn; None if none."""
    said = " ".join(tokens).removesuffix(" mate")
    return next((use for use, phrases in IDIOMS.items() if said in phrases or said in _said(phrases)), None)


@lru_cache(maxsize=8)
def _said(phrases: tuple[str, ...]) -> frozenset[str]:
    """The phrases as the tokens write them ("first class" → "1 class")."""
    return frozenset(" ".join(normalize_tokens(p)) for p in phrases)


def idiom(tokens: list[str], turn: str) -> str | None:
    """Why a part is an idiom that reacts, or None (an idiom whose content word is in the turn may be
    literal: "chin up" after "my chin hurts")."""
    said = " ".join(tokens)
    turn_words = {stem(t) for t in normalize_tokens(turn)}
    for use, phrases in IDIOMS.items():
        for phrase in phrases:
            words = phrase.split()
            written = " ".join(normalize_tokens(phrase))
            if phrase != said != written and said.removesuffix(" mate") not in (phrase, written):
                continue
            literal = [w for w in words if len(w) > 3 and w not in FUNCTION_WORDS and w not in ELLIPTICAL
                       and stem(w) in turn_words]
            if literal:
                return None
            return f"'{said}' is an idiom of {use}: its words say nothing of the turn, a reaction"
    return None


def epithet(tokens: list[str], before: list[str], turn: str) -> str | None:
    """Why a part exclaims about the turn's topic after an affect interjection ("ugh, spreadsheets",
    "ugh, those little buggers"), or None."""
    if not before or not all(t in AFFECT_INTERJECTIONS or (interjection_like(t) and not HUMS.fullmatch(t))
                             for t in before) or not 1 <= len(tokens) <= 3:  # "pfft, kids": any interjection but a hum
        return None
    if turn_act(turn) is not TurnAct.statement:
        return None
    turn_words = {stem(t) for t in normalize_tokens(turn)}
    if tokens[0] in DEMONSTRATIVES and len(tokens) >= 2 and tokens[-1].endswith("s"):
        return f"'{' '.join(tokens)}': a demonstrative epithet for what the turn is about, a reaction"
    if tokens[0] in DEMONSTRATIVES | {"the"} and len(tokens) >= 2 and all(stem(t) in turn_words for t in tokens[1:]):
        return f"'{' '.join(tokens)}': the turn's own topic exclaimed after '{' '.join(before)}', a reaction"
    if len(tokens) == 1 and stem(tokens[0]) in turn_words and len(tokens[0]) > 3:
        return f"'{tokens[0]}': the turn's own topic exclaimed after '{' '.join(before)}', a reaction"
    return None


def to_device(turn: str) -> bool:
    """The turn is put to a voice assistant ("Hey Google, …", "alexa play …", "siri call mom")."""
    words = normalize_tokens(turn)[:2]
    return bool(words) and (words[0] in DEVICES or (words[0] in WAKE and words[1:] != [] and words[1] in DEVICES))


def dismay(transcript: str, turn: str) -> bool:
    """'uy no', 'ay no', 'oh no no no' after news: an interjection and "no" that answer nothing (the
    turn is a statement), as "oh no" does."""
    tokens = normalize_tokens(transcript)
    opener = tokens[: next((k for k, t in enumerate(tokens) if t == "no"), len(tokens))]
    rest = tokens[len(opener) :]
    return (1 <= len(opener) <= 2 and 1 <= len(rest) <= 3 and set(rest) == {"no"}
            and turn_act(turn) is TurnAct.statement
            and all(interjection_like(t) or t in PARTICLES or t in AFFECT_INTERJECTIONS for t in opener))


def hum(said: str) -> bool:
    return HUMS.fullmatch(said.replace("-", " ").strip()) is not None
