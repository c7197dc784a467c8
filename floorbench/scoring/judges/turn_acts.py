"""What the human turn before a silence-window reply asks for, as the offline intrusion judge reads it.

A bare acknowledgement or assent token ("yeah", "okay", "sure", "mm-hm") means what the turn
it follows makes it mean (docs/scoring.md, "Labelling rules"): after a **statement** it
acknowledges (a backchannel); after a **yes/no question** it answers, and after a
**request, offer or proposal** put to someone it accepts (both take the floor: an
intrusion); after a **wh-question** it answers nothing (a backchannel). `turn_act(turn)`
reads which of the four the turn is, from its last sentence that says something (a
trailing "Right." / "okay." / "Yes." said to oneself is skipped):

- yes/no question: a question mark without a wh-word opening ("Dana, is the oven still
  on?", "You're coming tomorrow?"), a tag question ("..., right?", "..., isn't it?"), or an
  auxiliary-inverted opening even without the mark ("Did I leave the oven on.");
- request / offer / proposal: "can you", "could you", "would you", "will you", "would you
  like", "do you want", "want me to", "if you like", "let's", "shall we", "should we",
  "how about", "what about", "why don't we", "we could", "please", or an imperative put to
  someone by name or as "someone" ("Wen, hold this pole", "Hey Siri, set a timer", "Pass
  the salt, Carmen", "Someone grab the door", "Sam, don't forget the tickets");
- wh-question: a wh-word opening ("Greta, what do you think?", "Who ate all the crisps."), also
  of a later clause after a stop ("…, wait, how much baking powder now?"); a wh-question followed
  by a short guess of its own ("what time is practice, 3-ish?") puts the guess to be confirmed: a
  yes/no question;
- statement: anything else, including self-talk with no addressee ("Hang on, hang on.",
  "Give me a second to find it.", "Note to self: book the room."), and a rhetorical question of
  disbelief ("can you credit it?", "yuh believe it?"). A clause of a sentence that opens on a bare
  verb is a request when the sentence is put to someone, by name or as "everyone" at its end
  ("Aria is listening, so keep it down, everyone.").

Limits: English only; a question inside a longer turn that ends on a statement is read as
the statement; an imperative without a name or "please" ("Pass the salt.") is a statement.
"""

from __future__ import annotations

import re
from enum import StrEnum

from floorbench.scoring.judges.normalize import normalize_tokens


class TurnAct(StrEnum):
    statement = "statement"
    yes_no_question = "yes-no-question"
    request = "request"
    """a request, offer or proposal put to someone"""
    wh_question = "wh-question"


WH = frozenset("what where when who whom whose which why how".split())
AUXILIARIES = frozenset(
    "did do does can could shall should will would is are was were have has had may might must am "
    "isnt arent wasnt werent dont doesnt didnt cant couldnt wont wouldnt shouldnt havent hasnt".split()
)
SUBJECTS = frozenset(
    "i you we they he she it that this there these those the a an my your our his her their its "
    "anyone anybody someone somebody everyone everybody anything something any some".split()
)
"""what follows an inverted auxiliary in a question ("is it", "did you", "can someone")"""
TAGS = (
    ("right",), ("yeah",), ("okay",), ("ok",), ("no",), ("yes",), ("eh",), ("correct",), ("agreed",),
    ("alright",), ("all", "right"), ("you", "know"),
)
"""a one- or two-word tag after a comma turns a statement into a yes/no question ("..., right?");
an inverted auxiliary and a pronoun ("..., isn't it?", "..., won't you?") is one too"""
TAG_PRONOUNS = frozenset("i you we they he she it there that".split())
REQUEST_MARKERS = (
    ("can", "you"), ("could", "you"), ("would", "you"), ("will", "you"), ("can", "someone"),
    ("could", "someone"), ("would", "anyone"), ("do", "you", "want"), ("do", "you", "mind"),
    ("would", "you", "like"), ("want", "me", "to"), ("if", "you", "like"), ("if", "you", "want"),
    ("lets",), ("let", "us"), ("shall", "we"), ("shall", "i"), ("should", "we"), ("how", "about"),
    ("what", "about"), ("why", "dont", "we"), ("why", "dont", "you"), ("why", "not"), ("we", "could"),
    ("maybe", "we"), ("please",), ("kindly",),
)
"""phrases that put a request, offer or proposal to someone, wherever they stand in the sentence"""
IMPERATIVES = frozenset(
    "set play add call hold pass grab bring take get put give check tell turn open close shut wake remind "
    "book order send text pick keep make find come go sit stand stop start help move carry fetch buy pay "
    "lock unlock leave read write show switch pause skip cancel clean wash cook save try ask answer drop "
    "meet sign fill feed charge plug print hand lend mind watch hurry let chuck pop stick sort fix hide "
    "count reserve load pack unpack walk run drive park ring email message phone mute unmute dim raise "
    "lower repeat search navigate translate spell cut pour serve taste share split tidy empty throw toss catch "
    "wipe sweep fold post return collect warm heat boil chop stir tie zip pull push lift follow grab fetch "
    "water bin label stack wrap print scan top pack change swap".split()
)
"""verbs that open an imperative put to someone by name ("Wen, hold this pole steady")"""
DEVICES = frozenset("alexa siri google cortana bixby".split())
"""assistants a turn can command ("Alexa, volume up"): whatever is put to one that is not a
wh-question is a request"""
ADDRESSEES = frozenset("someone somebody anyone anybody everyone everybody".split())
"""who an imperative can open on instead of a name ("Someone grab the door")"""
NOT_NAMES = frozenset(
    "okay ok right so well oh um uh hmm mm sorry wait yes yeah no alright look listen now then fine "
    "great good hang honestly anyway actually ugh brr see note and but hey hi hello please thanks "
    "kitchen sadly also still just first next".split()
)
"""capitalised sentence openers that are not someone's name ("Okay, ...", "Honestly, ...")"""
FILLER_SENTENCE = frozenset(
    "okay ok right yes yeah yep sure alright all got it hmm mm um uh oh ah well so anyway fine good "
    "great cool no nope thanks thank you cheers".split()
)
"""a trailing sentence of only these words ("Right.", "Yes.", "okay.") says nothing new: the
sentence before it is the one the reply follows"""
OPENERS = frozenset("so and but or um uh oh ah well okay ok right hmm mm now then".split())
"""discourse words before a sentence's first real word ("So, where ...", "or was it ...")"""
_VOCATIVE = re.compile(r"^\s*(?:(hey|hi|hello|oi|okay|ok|so|right|well|oh)\s+)?([^\W\d_]{2,}(?:-[^\W\d_]+)*)\s*,\s*", re.I)
_END_VOCATIVE = re.compile(r",\s*([^\W\d_]{2,})\s*[.!?]*\s*$")
"""a name put to someone at the start or the end of a sentence, in any alphabet ("Tomás, …")"""
_SPLIT = re.compile(r"(?<=[.!?])\s+|\.{2,}|…|:\s")


def _addressee(sentence: str) -> tuple[str, str]:
    """(the sentence without the name it is put to, that name or ""): "Wen, hold this" -> "hold this"."""
    m = _VOCATIVE.match(sentence)
    if m and m.group(2).lower() not in NOT_NAMES and (m.group(2)[0].isupper() or m.group(1)):
        return sentence[m.end():], m.group(2).lower()
    m = _END_VOCATIVE.search(sentence)
    if m and m.group(1).lower() not in NOT_NAMES and m.group(1)[0].isupper() and m.group(1)[1:].islower():
        return sentence[: m.start()], m.group(1).lower()
    if m and m.group(1).lower() in ADDRESSEES | KIN:
        return sentence[: m.start()], m.group(1).lower()  # "..., keep it down, everyone."
    return sentence, ""


WAKE = frozenset(("hey", "ok", "okay", "hi"))
KIN = frozenset("mum mom mummy mommy dad daddy mama papa nana nan gran grandma grandpa beta kids guys everyone "
                "honey darling love babe".split())
"""words that address someone by relation or endearment ("DAD DID YOU …", "MUM PASS THE SALT")"""


OBJECTS = frozenset("me us the my your our that this it him her them those these".split())
"""what follows a bare verb put to someone ("pass me", "grab the"); after a name, a statement's verb agrees
("Priya passes the …") and a bare one with its object is an imperative"""


def _unpunctuated_addressee(tokens: list[str], words: list[str]) -> tuple[list[str], list[str], str]:
    """A recogniser's text has no commas: (tokens, words, name) with a name put to at the start taken
    off when the shape says so — a wake word and a device ("HEY SIRI TURN OFF …"), or one word
    before an inverted auxiliary and a subject ("DAD DID YOU LOCK …") or, for a relation or
    endearment, before an imperative ("MUM PASS THE SALT")."""
    if tokens[:1] and tokens[0] in DEVICES:
        return tokens[1:], words[1:], tokens[0]
    if len(tokens) > 1 and tokens[0] in WAKE and tokens[1] in DEVICES:
        return tokens[2:], words[2:], tokens[1]
    if len(tokens) < 3 or tokens[0] in NOT_NAMES | OPENERS | AUXILIARIES | WH | SUBJECTS | ADDRESSEES:
        return tokens, words, ""
    if (tokens[1] in AUXILIARIES and tokens[2] in SUBJECTS) or (tokens[0] in KIN and tokens[1] in IMPERATIVES):
        return tokens[1:], words[1:], tokens[0]
    if words[0][:1].isupper() and words[0][1:].islower() and tokens[1] in IMPERATIVES and tokens[2] in OBJECTS:
        return tokens[1:], words[1:], tokens[0]  # "Priya pass me the chips": a name, a bare verb, its object
    return tokens, words, ""


def _has(tokens: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(tokens[i : i + n]) == phrase for i in range(len(tokens) - n + 1))


def _tagged(sentence: str) -> bool:
    """'..., right?', '..., isn't it?', '..., won't you?': a statement with a question tag."""
    m = re.search(r",\s*([^,]+?)\s*\?\s*$", sentence)
    if not m:
        return False
    tag = tuple(normalize_tokens(m.group(1)))
    return tag in TAGS or (len(tag) == 2 and tag[0] in AUXILIARIES and tag[1] in TAG_PRONOUNS)


DISBELIEF = frozenset("believe credit imagine beat fathom".split())
"""verbs of believing and imagining: "can you believe it?" is said in disbelief, not put to anyone"""
RHETORICAL_MODALS = frozenset("can could would cant couldnt".split())


def _disbelief(sentence: str) -> bool:
    """A sentence whose last clause is a rhetorical question of disbelief ("…, can you credit it?",
    "Would you believe it!", "Can you imagine?", "…, you believe it?"): at most a modal, "you" (as
    any English writes it: "yuh", "ya"), a verb of believing or imagining and at most a pronoun ask the
    listener neither to answer nor to act; the sentence exclaims, like a statement. With more after
    the verb ("can you believe the traffic?") it is read as before."""
    tokens = normalize_tokens(re.split(r"[,;:]", sentence)[-1])
    if tokens[:1] and tokens[0] in RHETORICAL_MODALS:
        tokens = tokens[1:]
    return 2 <= len(tokens) <= 3 and tokens[0] in YOU and tokens[1] in DISBELIEF \
        and set(tokens[2:]) <= {"it", "that", "this", "so", "dat", "dis"}


YOU = frozenset("you yuh ya yu u ye".split())
"""the second-person pronoun as the Englishes of the world write it ("yuh believe it?")"""
CANDIDATE_WORDS = 3
"""a clause this short after a wh-question offers its own guess at the answer ("what time, 3-ish?")"""


def _clauses(rest: str) -> list[list[str]]:
    """The sentence's comma-separated clauses, each without the discourse words that open it."""
    out = []
    for piece in re.split(r"[,;]", rest):
        toks = normalize_tokens(piece)
        while toks and toks[0] in OPENERS | CLAUSE_OPENERS:
            toks = toks[1:]
        if toks:
            out.append(toks)
    return out


CLAUSE_OPENERS = frozenset("wait hang hmm hm sorry ah oh".split())
"""words a speaker stops on before asking ("wait, how much …?", "hang on, where …?")"""


def _wh_clause_act(rest: str, question: bool) -> TurnAct | None:
    """The act a wh-word decides inside the sentence: a later clause opened by one asks ("…, wait,
    how much baking powder now?": a wh-question), and a wh-question followed by a short guess of
    its own ("what time is practice, 3-ish?") puts the guess to be confirmed (a yes/no question)."""
    clauses = _clauses(rest)
    if not question or not clauses:
        return None
    last = clauses[-1]
    if len(clauses) >= 2 and clauses[-2][0] in WH and len(last) <= CANDIDATE_WORDS and last[0] not in WH \
            and last[0] not in AUXILIARIES and "or" not in last and not set(last) <= KIN | ADDRESSEES \
            and tuple(last) not in TAGS:
        return TurnAct.yes_no_question
    if last[0] in WH and len(last) >= 2:
        return TurnAct.wh_question
    return None


def _clause_imperative(rest: str, named: str) -> bool:
    """A clause of a sentence put to someone that opens on a bare verb ("Aria is listening, so keep it
    down, everyone."): the sentence asks that someone to act."""
    return bool(named) and any(c[0] in IMPERATIVES and len(c) > 1 for c in _clauses(rest)[1:])


def sentence_act(sentence: str) -> TurnAct:
    """The act of one sentence (its final punctuation included)."""
    question = sentence.rstrip().endswith("?")
    rest, named = _addressee(sentence)
    words = rest.split()
    tokens = normalize_tokens(rest)
    if not named and "," not in sentence and len(words) == len(tokens):
        tokens, words, named = _unpunctuated_addressee(tokens, words)
    while tokens and tokens[0] in OPENERS:
        tokens, words = tokens[1:], words[1:]
    first = tokens[0] if tokens else ""
    if _disbelief(sentence):
        return TurnAct.statement  # "can you credit it?": it exclaims, asking nothing
    markers = [p for p in REQUEST_MARKERS if _has(tokens, p)]
    if re.search(r"\blet'?s\b|\blet us\b", rest.lower().replace("’", "'")):
        markers.append(("lets",))  # "let's" (the tokens read it as "let")
    if markers and (first not in WH or any(m[0] == first for m in markers)):
        return TurnAct.request  # "what about ...", "why don't we ..." propose; "which do you want" asks
    if question and _tagged(sentence):
        return TurnAct.yes_no_question
    if (inner := _wh_clause_act(rest, question)) is not None:
        return inner
    if first in WH:
        return TurnAct.wh_question
    if named in DEVICES:
        return TurnAct.request  # a command to another device ("Alexa, volume up")
    if first in AUXILIARIES and len(tokens) > 1:
        second_is_name = len(words) > 1 and words[1][:1].isupper()
        if tokens[1] in SUBJECTS or second_is_name:
            return TurnAct.yes_no_question
    if question:
        return TurnAct.yes_no_question
    if (named and first in IMPERATIVES) or _clause_imperative(rest, named):
        return TurnAct.request
    if first in ADDRESSEES and len(tokens) > 1 and tokens[1] in IMPERATIVES:
        return TurnAct.request  # "Someone grab the door", "You take the left side"
    if named and first == "dont" and len(tokens) > 1 and (tokens[1] in IMPERATIVES or tokens[1] == "forget"):
        return TurnAct.request  # "Sam, don't forget the tickets" (not "don't worry")
    return TurnAct.statement


def sentences(turn: str) -> list[str]:
    """The turn's sentences, each with its final mark ("...", "…" and ": " end one too)."""
    return [p.strip() for p in _SPLIT.split(turn) if p and p.strip()]


def turn_act(turn: str) -> TurnAct | None:
    """What the turn asks for, read from its last sentence that says something; None without a turn."""
    said = [s for s in sentences(turn) if normalize_tokens(s)]
    if not said:
        return None
    substantive = [s for s in said if not set(normalize_tokens(s)) <= FILLER_SENTENCE] or said
    last = sentence_act(substantive[-1])
    if last is TurnAct.statement and len(substantive) > 1 and len(normalize_tokens(substantive[-1])) <= REASON_WORDS:
        before = sentence_act(substantive[-2])
        if before in (TurnAct.yes_no_question, TurnAct.request) and _addressee(substantive[-2])[1]:
            return before  # "Elena, can you close the window, please? It is cold.": the reason leaves it open
    return last


REASON_WORDS = 4
"""a statement this short after a question or request put to someone by name gives its reason ("It is
cold."); the question or request is still what the turn asks"""
