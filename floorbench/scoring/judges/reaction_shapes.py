"""Reactions recognised by their shape, not their words: other languages, echo questions, tags.

The sixth round of the window rules (issue 34), from the classes a fourth independent sample showed.
Each shape says what a short part *does* without a list of the part's own words:

- **another language**: a short part whose every word lies outside English (the packaged sentence
  model does not know it as a whole word, it has a letter English does not use, or it is a common
  reaction word of another language), with English intensifiers and feeling words at most beside
  them ("Pobrecito.", "Herzlichen Glückwunsch!", "total langweilig"), after a turn that only tells
  something: the judge cannot read the words, and a reply in another language to news put in English
  is a reaction. Not after a question, a request or a turn that looks for a word ("how do you
  say …"), where a foreign word may be the answer, and never with a number or a word of the turn;
- **an echo question**: an auxiliary and a pronoun questioned alone ("Is it?", "Did she?", "Have
  you now?") after a statement repeat the news back as surprise; they ask for nothing;
- **a bare "what"** without a question mark ("what", "what!", and run on into another reaction,
  "what no way"): surprise. "What?" alone still asks to hear it again;
- **a tag** at a part's end that marks stance in many Englishes (Nigerian "o", "sha", "sef", "now";
  Singapore "lah", "leh"; "eh", "hey"; a doubled "well well"): the part is read without it, and
  is a reaction only when what is left is one;
- **an invocation** of a deity as a whole clause of light words ("God don do am", "thank God",
  "Lord have mercy", "God willing"): an exclamation that says nothing of the world;
- **"typical X"** with a short noun phrase and nothing else ("typical British summer", "typisch
  Deutsche Bahn"): an epithet, a reaction;
- a turn that **looks for a word** (a spoken "how do you say …", "what's the word", a crossword clue
  of N letters): a short untyped part after it offers the word, content.
"""

from __future__ import annotations

import re

from floorbench.scoring.judges.interjections import (
    PARTICLES,
    REACTION_WORDS,
    interjection_like,
    known_words,
    suffix_stem,
)
from floorbench.scoring.judges.normalize import is_number, normalize_tokens
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act

MAX_FOREIGN_WORDS = 3
ENGLISH_GLUE = frozenset(
    "so very too total totally really super mega ultra quite just absolutely".split()
)
"""English degree words that often stand inside a reaction of another language ("total langweilig",
"super lekker")"""
AUXILIARIES = frozenset("is was are were did does do has have had can will would could wasnt isnt didnt".split())
PRONOUNS = frozenset("it he she they you we that there i".split())
ECHO_TAILS = frozenset(("now", "really", "then", "so"))
TAGS = frozenset("o oo sha sef now na lah leh lor eh hey ehn tho though".split())
"""stance tags at a part's end in several Englishes: they mark the speaker's stance, nothing of the world"""
DEITIES = frozenset("god lord lawd gawd allah jesus christ chineke olorun oluwa jah bhagwan dios heaven heavens".split())
INVOCATION_WORDS = frozenset(
    "ya o oh dear sweet almighty above "
    "don dey do did done has have had is be am bless blessed mercy forbid willing knows help good great "
    "praise praised thank thanks the be with us you me our my wins win na o oo".split()
)
"""light words an invocation is made of ("God don do am", "Lord have mercy", "God is good")"""
TYPICAL = frozenset("typical typisch tipico typique tipica classic".split())
WORD_SEARCH = re.compile(
    r"\b(?:how (?:do|did) (?:you|they|we|i) (?:say|call)|what(?:'s| is| was)? (?:the|that) (?:word|name|thing)"
    r"|what do (?:you|they|we) call|\d+ letters?|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r" letters?)\b",
    re.IGNORECASE,
)
"""a turn that looks for a word: a spoken search ("how do you say …") or a crossword clue ("five letters")"""


def seeks_word(turn: str) -> bool:
    """The turn looks for a word: a short reply after it may be the word (content), not a reaction."""
    return bool(turn) and WORD_SEARCH.search(turn) is not None


def _tells(turn: str) -> bool:
    """The turn only tells something (a statement that looks for no word)."""
    return bool(turn) and turn_act(turn) is TurnAct.statement and not seeks_word(turn)


def _foreign_word(word: str, raw_words: set[str]) -> bool:
    """A word outside English: not a whole word of the sentence model, a letter English does not use,
    or a common reaction word of another language."""
    if not word.isalpha() or len(word) == 1:
        return False
    if word in raw_words or word in REACTION_WORDS or interjection_like(word):
        return True
    vocab = known_words()
    return bool(vocab) and word not in vocab and suffix_stem(word) not in vocab


FOREIGN_EXCLAMATIVES = frozenset("que quel quelle quels quelles che wie kya".split())
"""the "what …!" / "how …!" that opens an exclamation in Spanish, Portuguese, French, Italian, German
and Hindi ("que pena", "quel dommage", "che bello", "wie schön", "kya baat"): after it, a word spelt
like English ("legal", "pena") is that language's too"""


def other_language(raw: str, tokens: list[str], turn: str, feelings: frozenset[str]) -> str | None:
    """Why a short part is a reaction in another language after a turn that tells something, or None;
    `feelings`: the English feeling words that may stand beside the foreign ones."""
    if not 1 <= len(tokens) <= MAX_FOREIGN_WORDS or not _tells(turn) or any(is_number(t) for t in tokens):
        return None
    accented = {normalize_tokens(w)[0] for w in re.findall(r"\w+", raw)
                if not w.isascii() and normalize_tokens(w)}
    foreign = [t for t in tokens if _foreign_word(t, accented)]
    if len(tokens) >= 2 and tokens[0] in FOREIGN_EXCLAMATIVES:
        foreign = tokens  # "que legal", "quel dommage": the frame is another language's "how …!"
    if not foreign or not all(t in foreign or t in ENGLISH_GLUE or t in feelings or t in PARTICLES for t in tokens):
        return None
    if set(tokens) & set(normalize_tokens(turn)):
        return None  # a word of the turn: it may repeat a name or a value back
    return f"'{' '.join(tokens)}': words of another language after news told in English: a reaction"


def echo_question(raw: str, tokens: list[str], turn: str) -> str | None:
    """Why a part is an echo question of surprise ("Is it?", "Did she now?") after a statement, or None."""
    core = tokens[:-1] if len(tokens) == 3 and tokens[-1] in ECHO_TAILS else tokens
    if len(core) != 2 or core[0] not in AUXILIARIES or core[1] not in PRONOUNS:
        return None
    if raw.rstrip().endswith(".") or not _tells(turn):
        return None
    return f"'{' '.join(tokens)}?' echoes the news back in surprise: it asks for nothing"


def bare_what(raw: str, tokens: list[str]) -> str | None:
    """Why a part is a bare "what" of surprise (no question mark), or None."""
    if tokens != ["what"] or (raw.rstrip().endswith("?") and not raw.rstrip().endswith(("!?", "?!"))):
        return None
    return "'what' without a question mark exclaims surprise: it asks for nothing"


def strip_tags(tokens: list[str], address: frozenset[str] = frozenset()) -> list[str]:
    """The part without the stance tags (and the terms of `address`) at its end ("congrats o" → "congrats",
    "sweet well well" → "sweet", "that's rough buddy" → "that's rough"); the part itself when nothing
    would be left."""
    out = list(tokens)
    while len(out) > 1:
        if out[-1] in TAGS or out[-1] in address:
            out.pop()
        elif len(out) > 2 and out[-1] == out[-2] and len(out[-1]) <= 4:
            del out[-2:]  # a doubled intensifier: "well well", "o o"
        else:
            break
    return out


def invocation(tokens: list[str], asked: bool = False) -> str | None:
    """Why a part is an invocation of a deity made of light words only, or a wish put to one, or None.
    After a question (`asked`) one with a verb of knowing ("God knows", "Lord knows") says "I don't
    know", an answer; a plea ("Lawd have mercy!") still only exclaims."""
    if not 2 <= len(tokens) <= 5 or not set(tokens) & DEITIES or any(is_number(t) for t in tokens):
        return None
    if asked and not set(tokens) & {"mercy", "bless", "help", "forbid", "save"}:
        return None
    if _optative(tokens):
        return f"'{' '.join(tokens)}' wishes in the subjunctive to a deity: an exclamation, a reaction"
    if not all(t in DEITIES or t in INVOCATION_WORDS for t in tokens):
        return None
    return f"'{' '.join(tokens)}' invokes a deity in light words: an exclamation, a reaction"


def typical_epithet(raw: str, tokens: list[str], clause_words: frozenset[str]) -> str | None:
    """Why a part is a "typical X" epithet ("typical British summer"), or None; `clause_words`: words
    that would make the rest a clause or a place ("typical of him to forget" is content)."""
    if not 2 <= len(tokens) <= 4 or tokens[0] not in TYPICAL or raw.rstrip().endswith("?"):
        return None
    rest = tokens[1:]
    if any(is_number(t) for t in rest) or set(rest) & clause_words:
        return None
    return f"'{' '.join(tokens)}': 'typical' and a noun phrase, an epithet about the news: a reaction"


OPTATIVE_OBJECTS = frozenset("him her them us you me it".split())
OPTATIVE_TAILS = frozenset("all both now so".split())


def _optative(tokens: list[str]) -> bool:
    """A deity, a verb in the subjunctive and a pronoun ("God love him", "Lord save us", "Heaven help
    them", "God bless you all"): the verb's bare form after a third-person subject (no -s, no -ed)
    marks a wish, not a report ("God knows", "God gave us …"); it says nothing of the world."""
    if not 3 <= len(tokens) <= 4 or tokens[0] not in DEITIES or tokens[2] not in OPTATIVE_OBJECTS:
        return False
    verb = tokens[1]
    if not verb.isalpha() or len(verb) < 3 or verb in AUXILIARIES or verb in INVOCATION_WORDS - {"bless", "help"}:
        return False
    if (verb.endswith("s") and not verb.endswith("ss")) or verb.endswith("ed"):
        return False
    return set(tokens[3:]) <= OPTATIVE_TAILS


EMPHATIC = frozenset("sheer utter".split())
"""degree words that only ever intensify ("sheer madness", "utter bliss"): what follows is a judgement"""
DEGREE = frozenset("pure full total totally absolute absolutely complete completely proper real peak".split())
"""degree words that intensify a judgement ("pure rotten", "full tension") or describe a thing ("full
refund", "pure cotton"): a judgement only when what follows has an evaluative shape"""
EVALUATIVE_SHAPE = re.compile(r"\w{2,}(?:ness|ity|ism|ion|ous|ful|ic|ive|ible|able|ish|less|en|ed|ing)")
"""the endings of abstract nouns (a quality or a state: "madness", "tension") and of adjectives
("rotten", "hilarious", "gutted"); a concrete noun ("refund", "cotton", "board") has none of them"""


def degree_exclamation(raw: str, tokens: list[str], turn: str, feelings: frozenset[str]) -> str | None:
    """Why a part is a degree word and one judgement said as an exclamation ("Pure rotten.", "Full
    tension.", "Sheer genius!", "Total madness"), or None: no article, no number, no word of the
    turn, and after a turn that only tells (after a question it may be the answer); `feelings`: the
    feeling words that count as a judgement whatever their ending."""
    if len(tokens) != 2 or raw.rstrip().endswith("?") or not _tells(turn) or any(is_number(t) for t in tokens):
        return None
    degree, word = tokens
    if degree not in EMPHATIC | DEGREE or word in set(normalize_tokens(turn)):
        return None
    if degree in DEGREE and word not in feelings and not EVALUATIVE_SHAPE.fullmatch(word):
        return None
    return f"'{' '.join(tokens)}': a degree word and one judgement, exclaimed: a reaction"
