"""What the words of a silence-window reply do: a small grammar of the turn.

A backchannel is a brief reaction that adds no information, no opinion taken
as content, no question and no proposal, and does not take the floor. Which
words it uses is open-ended (every language has its own "yikes", "ay", "na
ja"), so the offline intrusion judge does not rely on a list of phrases alone:
after its lexicon, each part of the reply (split at , . ! ? ;) is typed by what
it does:

- **interjection**: tokens shaped like one (`interjection_like`): a hum or
  laughter, a word the packaged sentence model does not know as a whole word
  and short (at most 6 letters: "yikes", "oof", "sheesh"; longer when it has
  no vowel or a letter drawn out: "pfffft", "ughhh"), a short word written
  with a letter English does not use ("olé"), a two-letter word that is no
  English function word ("ay", "ja", "jo"), the same short word said twice
  ("jo, jo"), a laughter word ("laughs", "chuckles"), or an expletive
  exclamation ("damn", "holy cow", "good grief");
- **evaluation** (a reaction): an exclamative ("what a pain", "how lovely",
  "what fun") or a copula / intensifier frame ("that's so sweet", "so cute",
  "really awful") whose head is a word of feeling (`AFFECT`: the class of
  words that say how something feels, not what it is);
- **surprise**: a short exclamation or rhetorical question made only of light
  words (pronouns, particles, a light verb: "get out of here!", "you're
  kidding!", "are you serious?");
- **takes a side**: the same frames with a head that judges a proposal or a
  claim ("good idea", "what a good choice", "that's true"): an intrusion;
- **content**: anything else (a number, a name, a noun phrase, a clause with
  its own words): an intrusion, even after a backchannel opener ("yikes, the
  bus is late").

- **minor reaction** (`minor_part`): what is left when a part has none of the
  structures that carry content: at most three words once openers and terms of address
  ("dude", "mate") are set aside, no number, no name (a capitalised word after the
  first), no article, possessive or demonstrative (no noun phrase), no preposition that
  opens a place or time, no wh-word or question mark, no modal or hedge that proposes
  ("maybe", "should"), no verb form that reports an action ("playing", "booked") and no
  imperative verb first. A response to thanks or praise ("happy to help", "you're too
  kind", "ta very much"), an -ly comment on the news alone ("finally") or a lone word
  after a reaction opener ("ooh, bold", "oh, bless") is a reaction; any other minor part
  ("vale" alone) is `unclear`: the judge cannot tell a foreign interjection from a bare
  noun offered as an answer, so it says `unsure` rather than guessing.

Where the frame is there but its head is neither a feeling nor a judgement
("what a Tuesday", "how early"), or a part mixes interjection-like and known
words, the part is `unclear` and the judge says `unsure` with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from floorbench.scoring.judges.evaluative_clauses import reread
from floorbench.scoring.judges.formulas import epithet, formula, idiom, idiom_use, to_device
from floorbench.scoring.judges.interjections import MAX_INTERJECTION_LETTERS, PARTICLES, interjection_like
from floorbench.scoring.judges.interjections import suffix_stem as _stem
from floorbench.scoring.judges.normalize import NO, is_number, normalize_tokens
from floorbench.scoring.judges.reaction_shapes import (
    bare_what,
    degree_exclamation,
    echo_question,
    invocation,
    other_language,
    seeks_word,
    strip_tags,
    typical_epithet,
)
from floorbench.scoring.judges.reply_acts import by_act
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act


class Part(StrEnum):
    interjection = "interjection"
    evaluation = "evaluation"
    surprise = "surprise"
    side = "side"
    content = "content"
    unclear = "unclear"


AFFECT = frozenset(
    "nice lovely great awful terrible horrible dreadful wonderful amazing awesome fantastic brilliant cool sweet "
    "cute adorable sad tragic annoying frustrating irritating infuriating maddening pain nightmare shame pity "
    "bummer drag relief gross disgusting nasty weird strange bizarre crazy mad wild insane nuts unreal "
    "incredible unbelievable fun funny hilarious exciting thrilling scary creepy spooky rough tough harsh "
    "rubbish bad neat beautiful gorgeous stunning delightful charming touching moving heartbreaking "
    "heartwarming miserable grim lame boring dull tedious exhausting stressful splendid marvellous marvelous "
    "superb excellent fab fabulous lush pleasant impressive surprising shocking outrageous ridiculous absurd "
    "cheeky typical classic disaster mess tragedy catastrophe hassle bother luck joy treat darling precious "
    "wicked sick epic rad dope magic magical glorious horrid hideous vile yucky icky eww yuck grand lucky "
    "unlucky poor painful brutal cruel unfair sucks sad depressing upsetting worrying scary terrifying "
    "frightening embarrassing awkward cringe hilarious silly daft lovely gutted gutting fun rude cheek cheeky "
    "shameless unreal mean kind generous thoughtful horrendous atrocious appalling ghastly lousy pathetic good "
    "tiresome wearisome irksome vexing galling dire smashing super cracking ace peachy divine heavenly yummy "
    "delicious tasty scrumptious outstanding phenomenal sublime terrific tremendous excellent fine "
    "legend hero star champ genius gem angel saint sweetheart".split()
)
"""words that say how something feels (the head of a reaction: "what a pain", "how lovely", "so
cute"), not what it is ("early", "pricey", "far" comment on the content)"""
SIDE = frozenset(
    "idea choice plan point call suggestion decision pick option thought choices ideas plans points "
    "right true correct agreed fair wise sensible smart clever".split()
)
"""heads that judge a proposal or a claim ("good idea", "that's true", "wise words"): taking a side"""
DIFFICULT = frozenset("tough hard difficult tricky toughest hardest".split())
"""before a head of SIDE, these say a choice is hard without making it ("tough call"): a reaction"""
INTENSIFIERS = frozenset(
    "so such really very too quite just absolutely totally pretty rather bit little kind sort of a an the "
    "utterly truly completely super real proper bloody damn jolly ever awfully terribly dead ekdum bahut lowkey "
    "highkey kinda".split()
)
COPULA_OPENERS = (
    ("thats",), ("that", "is"), ("that", "was"), ("thatll", "be"), ("its",), ("it", "is"), ("it", "was"),
    ("this", "is"), ("sounds",), ("that", "sounds"), ("looks",), ("that", "looks"), ("seems",), ("how",),
    ("what", "a"), ("what", "an"), ("what",), ("so",), ("such", "a"), ("such",), ("that",), ("it",), ("this",),
    ("youre",), ("you", "are"), ("smells",), ("that", "smells"), ("it", "smells"), ("tastes",),
    ("that", "tastes"), ("it", "tastes"), ("feels",), ("that", "feels"), ("it", "feels"),
)
"""frames that open an evaluation, longest first when matched (the tokens read "that's" as "that")"""
LIGHT = frozenset(
    "you youre your i im me it its that thats this there here out of off up on away now come get go say said "
    "kid kidding joke joking serious seriously believe shut stop way really are is do dont did didnt be not "
    "my god gosh goodness heavens lord word me oh ah wow no yes what the a an can cant cannot got gotta to have "
    "youve must would wouldnt could couldnt".split()
)
"""the words a surprise exclamation is made of ("get out of here!", "you're kidding!", "are you
serious?"): pronouns, particles and light verbs, no word that says what happened"""
SURPRISE_VERBS = frozenset("get come kid kidding joke joking believe credit imagine shut say serious seriously".split())
"""a surprise exclamation has one of these (a bare "you are" is not one)"""
OPENERS = frozenset("wow aw aww ooh oof ugh whoa gosh yikes ouch".split())
"""reactions that open a part before what it says ("wow that's lovely", "ugh which one")"""
REACTION_OPENERS = frozenset((("oh", "no"), ("oh", "dear"), ("aw", "man"), ("oh", "man"), ("oh", "wow"),
                              ("oh", "boy"), ("oh", "god"), ("oh", "gosh")))
"""two-word reactions that open a part without punctuation ("oh no that's awful")"""
EXPLETIVES = frozenset(
    "damn dammit darn dang crap hell bloody heck blast bugger christ jesus heavens heaven grief golly gosh "
    "goodness god lord shoot shucks crumbs cripes crikey blimey jeez geez".split()
)
"""swearing and its mild stand-ins: said alone they react, whatever their dictionary meaning"""
EXCLAIM_FRAME = PARTICLES | EXPLETIVES | frozenset("holy good for sake my oh cow moly smokes what the".split())
"""the words an expletive exclamation is built from ("holy cow", "good grief", "for goodness' sake")"""
MAX_FRAME_WORDS = 6


LIGHT_NOUNS = frozenset("news thing things one stuff story day time moment feeling result question".split())
"""nouns that say nothing themselves after a feeling word ("great news", "poor thing", "nice one")"""
SENSING = frozenset("hear see know read".split())
ADDRESSED = frozenset("you thing things him her them us me soul love dear".split())
"""who a feeling is for ("poor you", "lucky thing", "good for her", "bless him")"""


@dataclass(frozen=True)
class Typed:
    kind: Part
    text: str
    why: str


def _frame(tokens: list[str]) -> tuple[str, list[str]] | None:
    """(opener, what follows it) when the part opens with an evaluation frame."""
    for opener in sorted(COPULA_OPENERS, key=len, reverse=True):
        n = len(opener)
        if tuple(tokens[:n]) == opener and len(tokens) > n:
            return " ".join(opener), tokens[n:]
    return None


def _head(rest: list[str]) -> tuple[str, list[str]]:
    """The frame's head and the words before it that are not intensifiers: the last word, or the
    feeling word before a light noun ("great news", "poor thing") or before "to hear"."""
    if rest[-2:-1] == ["to"] and rest[-1] in SENSING:
        rest = rest[:-2]  # "lovely to hear"
    words = [t for t in rest if t not in INTENSIFIERS] or rest[-1:]
    if len(words) >= 2 and words[-1] in LIGHT_NOUNS and words[-2] in AFFECT:
        words = words[:-1]
    return (words[-1] if words else ""), words[:-1]


def _felt(tokens: list[str]) -> bool:
    """A short part that says how something feels for someone: "great news", "poor thing", "nice
    one", "you poor thing", "good for you", "bless her"."""
    words = [t for t in tokens if t not in INTENSIFIERS]
    if words[:1] in (["you"], ["oh"]):
        words = words[1:]
    if len(words) == 2 and words[0] in AFFECT and words[1] in LIGHT_NOUNS | ADDRESSED:
        return True
    if len(words) == 3 and words[0] in AFFECT and words[1] == "for" and words[2] in ADDRESSED:
        return True
    return len(words) == 2 and words[0] == "bless" and words[1] in ADDRESSED


ADDRESS_TERMS = frozenset("dude mate bro bruh buddy pal man hun honey babe darling sweetie girl lad guys "
                          "mum mom dad mama papa ji yaar bhai bhaiya didi beta sir madam maam".split())
"""terms of address: they say who is spoken to, nothing about the world ("dude, no way", "aw mate")"""
NOUN_PHRASE_OPENERS = frozenset("the a an this these those that my your his her our their its some any another "
                                "every each no next last".split())
"""articles, possessives, demonstratives and quantifiers: they open a noun phrase, a thing named"""
PREPOSITIONS = frozenset("in on at under over by from with near behind into onto before after until till since "
                         "between beside inside outside above below around across through past via toward towards "
                         "for off up down".split())
"""prepositions that open a place, a time or a recipient ("under the sink", "by Friday")"""
PROPOSING = frozenset("maybe perhaps probably possibly should could would might must try lets shall ought "
                      "if or instead".split())
"""modals and hedges: with them a short part proposes or guesses ("couch cushions maybe")"""
THANKS_WORDS = frozenset("thanks thank ta cheers merci danke gracias grazie obrigado arigato".split())
THANKS_INTENSIFIERS = frozenset("very much so ever lots loads a million you".split())
PRAISE_FEELINGS = frozenset("happy glad pleased delighted thrilled chuffed honoured honored".split())
EPISTEMIC = frozenset("probably possibly maybe perhaps certainly definitely surely hopefully likely "
                      "obviously clearly apparently actually basically".split())
"""-ly (and other) adverbs that take a side on whether something is so: never a bare reaction"""


def minor_part(raw: str, tokens: list[str], after_reaction: bool, turn: frozenset[str] = frozenset()) -> Typed | None:
    """A part with none of the structures that carry content (see the module's text): a reaction
    when its shape says so, `unclear` otherwise; None when it has such a structure. `turn`: the
    words of the turn it follows (a word echoed from it repeats what was said; thanks go with praise)."""
    said = " ".join(tokens)
    words = [t for t in tokens if t not in ADDRESS_TERMS] or tokens
    praised = bool(turn & PRAISE) or not turn
    capitals = [w for w in re.findall(r"[A-Za-z']+", raw)[1:] if w[:1].isupper() and w.lower() not in ("i", "im")]
    core = [t for t in words if t not in INTENSIFIERS and t not in THANKS_INTENSIFIERS]
    if len(words) <= 5 and (words[0] in THANKS_WORDS or (core and set(words) & THANKS_WORDS and all(
            t in THANKS_WORDS or interjection_like(t) for t in core))):
        return Typed(Part.evaluation, said, f"'{said}' thanks: a reaction")
    if words[0] in PRAISE_FEELINGS and words[1:2] == ["to"] and len(words) <= 5:
        if praised or words[2:3] != ["help"]:
            return Typed(Part.evaluation, said, f"'{said}' says how being thanked feels: a reaction")
        return Typed(Part.content, said, f"'{said}' answers thanks the turn does not give: it offers, taking "
                     "the floor")
    if (len(words) > 3 or capitals or set(words) & CALENDAR or raw.rstrip().endswith("?") or any(is_number(t) for t in words)
            or set(words) & (NOUN_PHRASE_OPENERS | PREPOSITIONS | PROPOSING | WH_WORDS | SUBJECTS)
            or words[0] in IMPERATIVE_OPENERS
            or (len(words) > 1 and any(len(t) > 4 and t.endswith(("ing", "ed")) and t not in AFFECT for t in words))):
        return None
    if core and all(t in turn or _stem(t) in turn for t in core) and not (len(core) == 1 and core[0].endswith("ly")):
        return None  # "Tape.", "Lemon cake.": it repeats what was said
    if len(core) == 1 and core[0] not in EPISTEMIC and core[0] not in SIDE:
        word = core[0]
        if word.endswith("ly") and len(word) > 4:
            return Typed(Part.evaluation, said, f"'{said}': an adverb alone comments on the news: a reaction")
        if after_reaction or raw.rstrip().endswith("!"):
            return Typed(Part.evaluation, said, f"'{said}': one bare word after a reaction (or exclaimed) "
                         "evaluates what was said: a reaction")
        return Typed(Part.unclear, said, f"'{said}' is one bare word the rules cannot type (a foreign "
                     "interjection or a noun offered as an answer)")
    return Typed(Part.unclear, said, f"'{said}' is short and carries no typed content, but no reaction frame "
                 "either: cannot type it")


SUBJECTS = frozenset("i we he she they it here there ill ive id im youll youve theyll theyre".split())
"""a subject (contracted ones too: "I'll drive you") or a deictic: with it the part is a clause that
asserts ("I agree", "here you go")"""
PRAISE = frozenset("thanks thank helped help helpful useful great brilliant star amazing clever smart best "
                   "lifesaver genius kind love".split())
"""words of a turn that thanks or praises: after one, "happy to help" answers it as a reaction"""
CALENDAR = frozenset("monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight yesterday "
                     "january february march april june july august september october november december "
                     "morning afternoon evening noon midnight weekend week month year".split())
"""days, months and times of day: a bare one names a time, a value (\"Thursday.\")"""
FEELING_NOUNS = frozenset("luck pity shame nightmare pain relief joy disaster drag bummer bother hassle treat "
                          "result news".split())
"""nouns that name how news feels: with any one word before them a reaction ("rotten luck", "total nightmare")"""
SURPRISE_ADVERBS = frozenset("again already still yet ever really seriously honestly literally".split())
"""adverbs that, questioned alone, react ("again?", "already?") rather than ask for a value ("Thursday?")"""
WH_WORDS = frozenset("what where when who whom whose which why how whats wheres whos".split())
IMPERATIVE_OPENERS = frozenset(
    "send call check try take get put give tell bring grab book order ask let make go come look "
    "stop wait hold pass show buy pay open close turn set play".split()
)
"""verbs that open an instruction put to someone ("send it to me", "check the pocket")"""


def type_part(text: str, after_reaction: bool = False, turn: str = "", before: Sequence[str] = ()) -> Typed:
    """What one part of a reply (no , . ! ? ; inside) does; `after_reaction`: an earlier part of
    the reply was a reaction (lexicon or interjection), so a lone word after it evaluates; `before`:
    the words of the part just before it (an affect interjection makes a bare noun an exclamation).

    The part is read in the order of the module's text, each step a function that types it or
    passes it on (None): a number, a shape of the whole part, interjection-shaped words, a wish,
    then, with the reactions that open it set aside, a fixed expression, an evaluation frame, a
    short reaction, and last what is left (a minor part or content). An earlier step wins."""
    raw = text.strip()
    tokens = normalize_tokens(raw)
    said = " ".join(tokens)
    if not tokens:
        return Typed(Part.interjection, said, "nothing said")
    typed = (_with_number(tokens, said, turn) or ((hit := by_act(raw, tokens, turn, EXPLETIVES | OPENERS)) and Typed(Part(hit[0]), said, hit[1]))
             or _whole_shape(raw, tokens, said, after_reaction, turn, before) or _interjection_shaped(raw, tokens, said))
    if typed is not None:
        return typed
    full = tokens
    tokens = _for_whom(tokens)
    typed = _wish(tokens, said)
    if typed is not None:
        return typed
    tokens, opened = _without_openers(tokens, after_reaction)
    typed = (_fixed_expression(raw, full, tokens, said, turn, before) or _framed(raw, tokens, said, turn)
             or _short_reaction(raw, tokens, said, turn) or _rest(raw, tokens, said, opened, turn))
    hit = reread(typed.kind, full, turn, AFFECT, SIDE, ADDRESS_TERMS)  # evaluative_clauses: what a clause is about
    return typed if hit is None else Typed(Part(hit[0]), said, hit[1])


def _with_number(tokens: list[str], said: str, turn: str) -> Typed | None:
    """A part that says a number is content (a value), unless the number sits inside an idiom that
    says none ("first class!", "top ten stuff"); None when the part says no number."""
    if not any(is_number(t) for t in tokens):
        return None
    k = next((k for k, t in enumerate(tokens) if not (interjection_like(t) or t in OPENERS or t in PARTICLES)), 0)
    why = idiom(tokens, turn) or idiom(tokens[k:], turn)
    if why is None:
        return Typed(Part.content, said, "says a number")
    return Typed(Part.evaluation, said, why)


def _whole_shape(raw: str, tokens: list[str], said: str, after_reaction: bool, turn: str,
                 before: Sequence[str]) -> Typed | None:
    """The shapes of `reaction_shapes`, read on the whole part before anything is set aside: a bare
    "what" or an echo question, a reaction once its stance tags are dropped, an invocation or a
    "typical X" epithet, a reaction in another language. They come first because setting the
    openers aside would break them ("God love him" is no "love him")."""
    shape = bare_what(raw, tokens) or echo_question(raw, tokens, turn)
    if shape is not None:
        return Typed(Part.surprise, said, shape)
    tagless = strip_tags(tokens, ADDRESS_TERMS)
    if tagless != tokens:
        inner = type_part(" ".join(tagless) + raw[len(raw.rstrip(",.!?;")):], after_reaction, turn, before)
        if inner.kind in REACTED:
            return Typed(inner.kind, said, f"{inner.why} (with a stance tag at its end)")
    asked = turn_act(turn) in (TurnAct.wh_question, TurnAct.yes_no_question)
    shape = invocation(tokens, asked) or typical_epithet(raw, tokens, PREPOSITIONS | SUBJECTS | {"of"})
    # after a question, "God knows" says "I don't know": an answer
    if shape is not None:
        return Typed(Part.evaluation, said, shape)
    shape = other_language(raw, tokens, turn, AFFECT)
    if shape is not None:
        return Typed(Part.surprise if raw.rstrip().endswith("?") else Part.interjection, said, shape)
    return None


def _interjection_shaped(raw: str, tokens: list[str], said: str) -> Typed | None:
    """An interjection by the shape of its words: only interjection-shaped words (`interjection_like`,
    or a short word with a letter English does not use), an expletive exclamation ("holy cow"), a
    short word said again ("jo, jo"), or two short words one of them interjection-shaped ("mon
    dieu"; not with a name or an imperative first: "ask Tunde")."""
    if EMOTE.fullmatch(raw.rstrip(",.!?;")) and len(tokens) <= MAX_EMOTE_WORDS:
        return Typed(Part.interjection, said, f"'{raw}' is written as an emote (a sound or gesture between "
                     "marks, '*sigh*', '[laughs]'): no words said")
    foreign = {normalize_tokens(w)[0] for w in re.findall(r"\w+", raw) if not w.isascii() and normalize_tokens(w)}
    shaped = [interjection_like(t) or (t in foreign and len(t) <= MAX_INTERJECTION_LETTERS) for t in tokens]
    if all(s or t in PARTICLES for s, t in zip(shaped, tokens, strict=True)) and any(shaped):
        return Typed(Part.interjection, said, "interjection-shaped words only")
    if len(tokens) <= 4 and set(tokens) <= EXCLAIM_FRAME | {t for t, s in zip(tokens, shaped, strict=True) if s} \
            and set(tokens) & (EXPLETIVES | {"cow", "moly", "smokes"}):
        return Typed(Part.interjection, said, "an expletive exclamation")
    if len(tokens) >= 2 and len(set(tokens)) == 1 and len(tokens[0]) <= 4:
        return Typed(Part.interjection, said, "a short word said again")
    named = any(w[:1].isupper() for w in re.findall(r"[A-Za-z']+", raw)[1:]) and not raw.isupper()
    if len(tokens) == 2 and any(shaped) and all(len(t) <= MAX_INTERJECTION_LETTERS for t in tokens) and not named \
            and tokens[0] not in IMPERATIVE_OPENERS:  # not "ask Tunde"
        return Typed(Part.interjection, said, "two short words, one interjection-shaped ('mon dieu')")
    return None


EMOTE = re.compile(r"\*[^*]+\*|\[[^\]]+\]|\([^)]+\)|<[^>]+>")
"""a stage direction between marks, as chat and transcripts write a sound or a gesture ("*sigh*",
"[laughs]", "(groans)", "<chuckle>")"""
MAX_EMOTE_WORDS = 3


def _wish(tokens: list[str], said: str) -> Typed | None:
    """A wish or thanks sent on to someone ("congratulations to her", "thanks to you both"): it
    names whom it is for, and is still a reaction."""
    if len(tokens) <= 4 and tokens[0] in WISHES and tokens[1:2] in (["to"], ["for"]) and tokens[2:3] and (
            tokens[-1] in OF_WHOM or tokens[-1] in ADDRESS_TERMS or tokens[-1] in ("all", "everyone", "both")):
        return Typed(Part.evaluation, said, f"'{said}': a wish or thanks sent to someone, a reaction")
    return None


def _without_openers(tokens: list[str], after_reaction: bool) -> tuple[list[str], bool]:
    """(the part without the reactions and terms of address that open it, whether it was opened so or
    an earlier part reacted): "wow that's lovely" is typed as "that's lovely". Thanks and a feeling verb
    the sentence model does not know ("adore") never open a part, and a part that is only its opener ("oh no") is typed whole, never emptied."""
    opened = after_reaction
    while len(tokens) > 1 and (interjection_like(tokens[0]) or tokens[0] in PARTICLES or tokens[0] in OPENERS
                               or tuple(tokens[:2]) in REACTION_OPENERS or tokens[0] in ADDRESS_TERMS) \
            and tokens[0] not in THANKS_WORDS | FEELING_VERBS:
        cut = 2 if tuple(tokens[:2]) in REACTION_OPENERS else 1
        if cut >= len(tokens):
            break
        tokens = tokens[cut:]
        opened = True
    return tokens, opened


def _fixed_expression(raw: str, full: list[str], tokens: list[str], said: str, turn: str,
                      before: Sequence[str]) -> Typed | None:
    """An idiom, a formula or an epithet (`formulas`), on the whole part or past its openers, or an
    idiom run on into another reaction: what a fixed expression does is fixed, whatever its words
    would say one by one."""
    why = idiom(full, turn) or idiom(tokens, turn) or formula(tokens, raw, turn) or epithet(
        tokens, [*before, *full[: len(full) - len(tokens)]], turn)
    if why is None:
        why = idiom_then_reaction(tokens, turn)
    if why is None:
        return None
    surprised = idiom_use(full) == "surprise" or idiom_use(tokens) == "surprise"
    return Typed(Part.surprise if surprised else Part.evaluation, said, why)


def _framed(raw: str, tokens: list[str], said: str, turn: str) -> Typed | None:
    """A part opened by an evaluation frame ("that's …", "how …", "what a …", "so …"): typed by its
    head, a feeling (a reaction), a judgement of a proposal (a side), or another word (content, or
    `unclear` in an exclamation); None without a frame. "you're joking!" has a frame but no feeling
    head: it is left to the surprise rule."""
    frame = _frame(tokens) if len(tokens) <= MAX_FRAME_WORDS else None
    if frame is not None and frame[0] in ("youre", "you are") and _head(frame[1])[0] not in AFFECT:
        frame = None
    if frame is None:
        return None
    opener, rest = frame
    head, extra = _head(rest)
    if head in SIDE and extra[-1:] and extra[-1] in DIFFICULT:
        return Typed(Part.evaluation, said, f"'{said}' says the choice is hard, taking no side: a reaction")
    if head in SIDE or (head in ("words", "thinking", "move") and extra[-1:] in (["wise"], ["good"], ["smart"])):
        return _side(said, turn)
    if head in AFFECT and len(extra) <= 1:
        return Typed(Part.evaluation, said, f"'{said}' says how it feels ('{head}'): a reaction")
    if _graded_participle(opener, rest):
        return Typed(Part.evaluation, said, f"'{said}' grades a state the news is in ('{' '.join(rest)}'): a "
                     "reaction")
    if opener.startswith(("what", "how", "so", "such")) and not raw.endswith("?") and len(extra) <= 1:
        return Typed(Part.unclear, said, f"an exclamation whose head '{head}' is neither a feeling nor a "
                     "judgement: cannot type it")
    return Typed(Part.content, said, f"'{said}' comments on what was said ('{head}')")


def _short_reaction(raw: str, tokens: list[str], said: str, turn: str) -> Typed | None:
    """A short part without a frame that still has a reaction's shape: a hard choice ("tough call"),
    a judgement of a proposal ("good idea": a side), a feeling for someone ("poor thing"), an adverb
    questioned in surprise ("again?"), a feeling noun ("rotten luck"), a feeling word with its
    intensifiers ("so cute"), a surprise exclamation in light words ("get out of here!")."""
    if len(tokens) == 2 and tokens[-1] in SIDE and tokens[0] in DIFFICULT:
        return Typed(Part.evaluation, said, f"'{said}' says the choice is hard, taking no side: a reaction")
    if 0 < len(tokens) <= 2 and tokens[-1] in SIDE | {"words", "thinking", "move"}:
        return _side(said, turn)
    if len(tokens) <= 4 and _felt(tokens):
        return Typed(Part.evaluation, said, f"'{said}' says how it feels for someone: a reaction")
    if raw.endswith("?") and len(tokens) == 1 and tokens[0] not in EPISTEMIC and (
            tokens[0] in SURPRISE_ADVERBS or (tokens[0].endswith("ly") and len(tokens[0]) > 4)):
        return Typed(Part.surprise, said, f"'{said}?' asks nothing: an adverb questioned in surprise")
    if len(tokens) == 2 and tokens[1] in FEELING_NOUNS and tokens[0] not in NOUN_PHRASE_OPENERS | SUBJECTS:
        return Typed(Part.evaluation, said, f"'{said}' names a feeling about the news: a reaction")
    if 0 < len(tokens) <= 2 and tokens[-1] in AFFECT and all(t in INTENSIFIERS | AFFECT for t in tokens[:-1]):
        return Typed(Part.evaluation, said, f"'{said}' says how it feels: a reaction")
    if tokens[:1] == ["not"] and [t for t in tokens[1:] if t not in INTENSIFIERS] in ([w] for w in AFFECT - SIDE):
        return Typed(Part.evaluation, said, f"'{said}' denies a feeling word, an understatement: a reaction")
    if 2 <= len(tokens) <= 5 and tokens[0] in FEELING_VERBS and tokens[1] in ("that", "this", "it") and (
            len(tokens) == 2 or (tokens[2] == "for" and tokens[3:4] in ([w] for w in OF_WHOM) and len(tokens) == 4)):
        return Typed(Part.evaluation, said, f"'{said}': a feeling verb without its subject, about the news: a "
                     "reaction") if _tells(turn) else None
    if (len(tokens) <= 6 and set(tokens) <= LIGHT and set(tokens) & SURPRISE_VERBS
            and (raw.endswith(("!", "?")) or len(tokens) >= 2)):
        return Typed(Part.surprise, said, f"'{said}' exclaims surprise in light words only")
    if _dismissal(tokens):
        return Typed(Part.surprise, said, f"'{said}' sends the news away in light words: disbelief, a reaction")
    why = degree_exclamation(raw, tokens, turn, AFFECT)
    return None if why is None else Typed(Part.evaluation, said, why)


FEELING_VERBS = frozenset("love hate adore loathe".split())
"""verbs that say how the speaker feels: said without a subject about "that" ("Love that for you") they react"""


def _tells(turn: str) -> bool:
    """The turn only tells something: a reaction to it answers and accepts nothing."""
    return turn_act(turn) is TurnAct.statement


def understatement(part: str, turn: str) -> bool:
    """A part whose only "no" word is the "not" of an understatement ("Not great.", "That's not ideal
    now.": a feeling word denied, typed as an evaluation) after a turn that only tells: it reacts, and
    answers and contradicts nothing. After a question it answers ("Is it nice?" "Not great.")."""
    tokens = normalize_tokens(part)
    return "not" in tokens and not set(tokens) & (NO - {"not"}) and _tells(turn) \
        and type_part(part, turn=turn).kind is Part.evaluation


DISMISSAL_ENDS = (("of", "that"), ("of", "here"), ("of", "it"), ("with", "you"), ("off", "it"), ("away",))
"""how a light verb of motion ends when it dismisses the news ("go on out of that", "get away with you")"""


def _dismissal(tokens: list[str]) -> bool:
    """A light verb of motion sent away in light words only ("go on out of that", "get away", "come
    off it"): disbelief, said as a dismissal; it instructs no one ("go now" has no such end)."""
    if not 2 <= len(tokens) <= 6 or tokens[0] not in ("go", "get", "come") \
            or not set(tokens) <= LIGHT | {"away", "with"}:
        return False
    return any(tuple(tokens[-len(end):]) == end for end in DISMISSAL_ENDS)


GRADING = frozenset("so really very pretty proper seriously".split())
PHRASAL_PARTICLES = frozenset("up out off".split())


def _graded_participle(opener: str, rest: list[str]) -> bool:
    """"that's so messed up", "that was really stitched up": a frame that points at the news ("that"),
    a degree word and a phrasal participle (an -ed verb and its particle) grade the state the news
    is in, as a feeling word would; "it's totally booked up" describes a thing and is left as it was."""
    return opener.startswith("that") and len(rest) == 3 and rest[0] in GRADING and rest[1].endswith("ed") \
        and rest[2] in PHRASAL_PARTICLES


def _rest(raw: str, tokens: list[str], said: str, opened: bool, turn: str) -> Typed:
    """What is left once no reaction shape matched: a mix of interjection-shaped and other words
    (`unclear`), a minor part (`minor_part`) read against the turn (after a turn that looks for a
    word or asks, an untyped short part may answer it: content), or content."""
    heard = frozenset(normalize_tokens(turn))
    if any(interjection_like(t) for t in tokens) and len(tokens) <= 3 \
            and not set(tokens) & (THANKS_WORDS | THANKS_INTENSIFIERS) \
            and tokens[0] not in IMPERATIVE_OPENERS:  # "ask Tunde" instructs: content
        if len(tokens) >= 2 and all(t in heard or _stem(t) in heard for t in tokens):
            return Typed(Part.content, said, f"'{said}' repeats the turn's words back (a list, an order): content")
        return Typed(Part.unclear, said, f"'{said}' mixes interjection-shaped and other words: cannot type it")
    minor = minor_part(raw, tokens, opened, heard)
    if minor is not None and minor.kind in (Part.unclear, Part.evaluation) and not opened and seeks_word(turn) \
            and not set(tokens) & THANKS_WORDS:
        return Typed(Part.content, said, f"'{said}' offers the word the turn looks for: content")
    if minor is not None and minor.kind is Part.unclear and turn_act(turn) in (
            TurnAct.wh_question, TurnAct.yes_no_question, TurnAct.request):
        return Typed(Part.content, said, f"'{said}' has no reaction's shape after a question or a request: it "
                     "may answer or accept it, content")
    if minor is not None:
        return minor
    return Typed(Part.content, said, f"content words: {said}")


REACTED = (Part.interjection, Part.evaluation, Part.surprise)
OF_WHOM = frozenset("you him her them us".split())
WISHES = frozenset("congratulations congrats condolences kudos respect props thanks cheers love".split())
"""wishes and thanks that may be sent on to someone ("congratulations to her", "thanks to you both")"""


def _for_whom(tokens: list[str]) -> list[str]:
    """'how very kind of you to say so' → 'how very kind': in an exclamation (opened by "how" or
    "what"), after a feeling word, "of you" and what follows it ("to say so", "to ask") say whom the
    feeling is about, nothing more. A statement ("that's kind of you") judges the listener and is
    left whole."""
    if tokens[:1] not in (["how"], ["what"]):
        return tokens
    for k in range(1, len(tokens) - 1):
        if tokens[k] in ("of", "for") and tokens[k + 1] in OF_WHOM and tokens[k - 1] in AFFECT:
            rest = tokens[k + 2 :]
            if not rest or set(rest) <= {"both", "two", "all", "guys"} or (
                    rest[0] == "to" and len(rest) <= 4 and not any(is_number(t) for t in rest)):
                return tokens[:k]
    return tokens


def idiom_then_reaction(tokens: list[str], turn: str) -> str | None:
    """An idiom run on into another reaction without a mark ("shut the front door congrats", as a
    recogniser writes it): the idiom reacts and so does the rest."""
    for k in range(2, len(tokens)):
        if idiom(tokens[:k], turn) is not None and type_part(" ".join(tokens[k:]), True, turn).kind in REACTED:
            return f"'{' '.join(tokens)}': an idiom run on into another reaction, a reaction"
    return None


def _side(said: str, turn: str) -> Typed:
    """A judgement of a proposal or a claim takes a side; of a command already given to a device
    ("Alexa, play …": nothing is put to the listener) it only evaluates."""
    if to_device(turn):
        return Typed(Part.evaluation, said, f"'{said}' praises a command given to a device, nothing put to "
                     "the listener: a reaction")
    return Typed(Part.side, said, f"'{said}' judges a proposal or a claim: it takes a side")


def parts(transcript: str) -> list[str]:
    """The reply's parts, each with its closing mark (, . ! ? ;)."""
    return [p.strip() for p in re.findall(r"[^,.!?;]+[,.!?;]*", transcript) if normalize_tokens(p)]
