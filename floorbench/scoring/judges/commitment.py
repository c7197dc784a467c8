"""Does a reply commit to an answer? Spans, negation, hedges, lists, concessions, corrections.

Finding the gold's words in a reply is not enough: "Monday or Friday" (gold
Monday) hedges, "Omar and Lena both" lists, "not the taco place" negates,
"the pasta place, though the sushi bar is cheaper" contradicts itself, and
"the curry? no, sorry, the lasagne" corrects itself. These rules, over the
tokens of `quantities.lex` (which keeps ',' and '.' as clause marks), decide
which mentions of the gold a reply commits to (docs/scoring.md, "Labelling
rules"):

- only the part after the last self-correction ("no, sorry", "wait",
  "actually") that still holds an answer counts;
- a contrast commits to one side: in "X, but Y" (and "X. However, Y") the
  clause after *but* is the answer when it holds one, and X is conceded
  ("the bakery is near, but the market is nearest"); a "but" clause with no
  answer in it is a caveat that concedes nothing ("3:25, but don't quote me");
  in "although / though X, Y" X is conceded; in "Y, though X" (also "whereas")
  the clause from *though* on is conceded;
- a mention in a conceded clause does not commit;
- a mention right after "not" is negated;
- a mention joined to another answer by "or" / "either" / "between", or followed
  by another candidate after "maybe", "might be", "or was it", is a hedge ("or Y
  if …" answers another scope and is not); an answer followed by a later "not
  sure" / "no idea" is withdrawn;
- for names and places, one joined to another by "and" / "both" / "then", or
  said beside another option of the question, is a list, not a choice;
- a mention followed by a contrast clause that names something else as better on
  the dimension the question asks about ("which is closest?" … "though the castle
  is closer") contradicts itself; on another dimension it does not ("the noodle
  bar, though the pub is closer" for what someone picked), while for a choice the
  clause that says another suits them better does ("though the risotto is more
  her thing").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from text_to_num import text2num

from floorbench.scoring.judges.normalize import is_number

STOP = frozenset(
    "the a an of on at in to for is it its and or that this these those be are was were with by from as about "
    "per like so just well i you we they he she me my our your their there here one ones do does did can could "
    "would should will shall has have had been being what which who whom whose where when how than then also "
    "very really quite some any all let lets s d ll re ve m thats theres okay ok um uh oh sure yes yeah think "
    "guess probably maybe go going went picked pick wanted want chose choice said , .".split()
)
CORRECTION = frozenset(("sorry", "actually", "wait", "mean", "scratch", "correction", "rather", "mistake", "oops",
                        "apologies", "forgive", "pardon", "misspoke", "correcting"))
CORRECTION_PHRASES = (("hang", "on"), ("hold", "on"), ("my", "bad"), ("on", "second", "thought"),
                      ("let", "me", "correct"), ("i", "stand", "corrected"), ("make", "that"), ("tell", "a", "lie"))
"""multi-word self-corrections ("Wednesday, no hang on, Thursday", "make that Friday")"""
CONTRAST = frozenset(("but", "however"))
"""'X, but Y': the clause after the marker is the one committed to (when it holds an answer)"""
CONCESSIVE = frozenset(("though", "although", "whereas"))
"""'Y, though X' / 'although X, Y': the clause the marker opens is conceded"""
CONCESSION = CONTRAST | CONCESSIVE
ASIDE_CAVEATS = frozenset(("admittedly", "granted"))
"""with "mind you", words that open a caveat after the answer: what follows is conceded, not claimed"""
WITHDRAWAL = (("not", "sure"), ("dont", "know"), ("do", "not", "know"), ("no", "idea"), ("not", "certain"),
              ("cant", "remember"), ("might", "be", "wrong"), ("could", "be", "wrong"), ("might", "have", "missed"),
              ("may", "have", "missed"), ("might", "be", "off"), ("not", "100"))
"""said after the answer, these take it back ("7:45. Oh wait, actually, I'm not sure.")"""
HEDGE_MARKERS = frozenset(("or", "maybe", "perhaps", "possibly", "might", "could"))
"""within three words before a later candidate, these make it a second guess ("maybe six",
"or was it Amara", "but it might be Peter")"""
DIMENSIONS = {
    "distance": frozenset("close closer closest near nearer nearest far farther farthest further furthest".split()),
    "price": frozenset("cheap cheaper cheapest expensive pricier priciest dearer dearest costly".split()),
    "time": frozenset("quick quicker quickest fast faster fastest slow slower slowest short shorter shortest "
                      "long longer longest early earlier earliest late later latest soon sooner".split()),
    "size": frozenset("big bigger biggest small smaller smallest large larger largest".split()),
}
"""what a question can ask a choice by ("which is closest?"), and a comparison can be about"""
PREFERENCE = frozenset("more better best prefer prefers preferred rather favourite favorite nicer nicest".split())
"""a comparison of how much someone likes it ("the risotto is more her thing")"""
NEGATION = frozenset(("not", "isnt", "wasnt", "arent", "werent", "never", "didnt", "doesnt", "dont", "wont",
                      "cant", "couldnt", "wouldnt", "shouldnt", "havent", "hasnt", "hadnt", "nor"))
COMPARATIVE = frozenset(
    "closer nearer cheaper quicker faster shorter further farther longer better cheapest closest nearest "
    "quickest more less bigger smaller earlier later".split()
)
APPROXIMATE = frozenset(("so", "thereabouts", "about", "around", "something"))
"""'X or so', 'X or thereabouts': an approximation, not a second answer"""
FUZZY = 0.85
_SPELLING = ((r"tre$", "ter"), (r"our$", "or"), (r"ise$", "ize"))


def spelling(word: str) -> str:
    """British and American spellings as one ("centre" = "center", "harbour" = "harbor")."""
    for a, b in _SPELLING:
        word = re.sub(a, b, word)
    return word


def stem(word: str) -> str:
    w = spelling(word)
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


_FIRST_SOUND = ((r"^ph", "f"), (r"^[cq]", "k"), (r"^z", "s"), (r"^wr", "r"), (r"^kn", "n"))
"""first letters that sound alike ("Kerry" for the curry, "the Sue" for the zoo): Soundex keeps
the first letter as written, so they are made one before coding"""


def soundex(word: str) -> str:
    """American Soundex: names a recogniser misspells keep their code ("Kenzie"/"Kenji" = K520),
    with the first letter as it sounds ("Curry" = "Kerry" = K600)."""
    codes = {**dict.fromkeys("bfpv", "1"), **dict.fromkeys("cgjkqsxz", "2"), **dict.fromkeys("dt", "3"),
             "l": "4", **dict.fromkeys("mn", "5"), "r": "6"}
    w = re.sub(r"[^a-z]", "", word.lower())
    for a, b in _FIRST_SOUND:
        w = re.sub(a, b, w)
    if not w:
        return ""
    out, last = w[0].upper(), codes.get(w[0], "")
    for ch in w[1:]:
        code = codes.get(ch, "")
        if code and code != last:
            out += code
        if ch not in "hw":
            last = code
    return (out + "000")[:4]


def content(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if t not in STOP]


def word_matches(gold_word: str, token: str, name: bool = False) -> bool:
    g, t = stem(gold_word), stem(token)
    if g == t:
        return True
    if len(g) >= 5 and difflib.SequenceMatcher(None, g, t).ratio() >= FUZZY:
        return True
    return name and t not in STOP and len(t) >= 3 and soundex(g) == soundex(t)


def entity_spans(gold: Sequence[str], tokens: Sequence[str], names: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """(start, end) of every place the reply says all of the gold's content words close together;
    `names`: reply words written with a capital (a misheard name may match by sound)."""
    words = content(gold)
    if not words:
        return []
    window = len(gold) + 3
    spans: list[tuple[int, int]] = []
    for i, t in enumerate(tokens):
        if not word_matches(words[0], t, name=t in names):
            continue
        found = [i]
        for w in words[1:]:
            hit = next((j for j in range(max(0, i - window), min(len(tokens), i + window))
                        if word_matches(w, tokens[j], name=tokens[j] in names)), None)
            if hit is None:
                break
            found.append(hit)
        else:
            if NEGATION & set(tokens[min(found):max(found) + 1]) - set(gold):
                continue  # "the Italian place, not the Thai one": a negation between them parts the words
            spans.append((min(found), max(found) + 1))
    return spans


HEAD_NOUNS = (
    frozenset("place spot shop bar joint restaurant cafe caff diner pub bistro eatery counter stall stand store "
              "centre center unit outlet hall venue site depot yard house parlour parlor truck kiosk booth market "
              "canteen".split()),
    frozenset("path trail loop route walk track way lane circuit".split()),
)
"""head nouns that name a kind of place (or of route) and little else: "the noodle spot" is the
noodle place, "the recycling place" the recycling centre, "the storage place" the storage unit"""


def head_group(word: str) -> frozenset[str] | None:
    return next((g for g in HEAD_NOUNS if stem(word) in g or word in g), None)


def paraphrase_spans(gold: Sequence[str], tokens: Sequence[str],
                     names: frozenset[str] = frozenset()) -> list[tuple[tuple[int, int], str]]:
    """Where the reply names a place-like gold by its distinctive words with another head noun
    of the same kind ("the noodle spot on Main" for the noodle place) or with none ("noodles"
    for the noodle bar, "Ingrid went for sushi" for the sushi counter), each with a note. The
    gold must have a head noun of `HEAD_NOUNS` and at least one word before it, and every one
    of those words must be said; whether that still picks out the gold among the dialogue's
    options is the caller's check."""
    words = content(gold)
    if len(words) < 2 or head_group(words[-1]) is None:
        return []
    group = head_group(words[-1])
    assert group is not None
    mods, head = words[:-1], words[-1]
    out: list[tuple[tuple[int, int], str]] = []
    for a, b in entity_spans(mods, tokens, names):
        near = [k for k in range(max(0, a - 3), min(len(tokens), b + 3)) if not a <= k < b
                and tokens[k] not in (",", ".") and head_group(tokens[k]) is group]
        if near:
            k = near[0]
            out.append(((min(a, k), max(b, k + 1)), f"'{tokens[k]}' for '{head}'"))
        else:
            out.append(((a, b), f"'{' '.join(tokens[a:b])}' without its head noun '{head}'"))
    return out


def _sentence_bounds(tokens: Sequence[str], i: int) -> tuple[int, int]:
    a = max((k for k in range(i) if tokens[k] == "."), default=-1) + 1
    b = next((k for k in range(i, len(tokens)) if tokens[k] == "."), len(tokens))
    return a, b


Span = tuple[int, int]
HasAnswer = Callable[[int, int], bool]
"""does tokens[a:b] hold an answer (the gold, or another candidate of its kind)?"""


def concessions(tokens: Sequence[str], has_answer: HasAnswer | None = None) -> list[Span]:
    """(start, end) of each conceded clause. 'X, but Y' concedes X when Y holds an answer
    (`has_answer`; without it, the old reading: the 'but' clause is conceded) and nothing when
    it does not; 'although X, Y' concedes X up to its comma; 'Y, though X' concedes from
    'though' to the end of the sentence; a sentence that ends on 'though' is conceded whole."""
    out: list[Span] = []
    for i, t in enumerate(tokens):
        a, b = _sentence_bounds(tokens, i)
        if t in CONTRAST:
            if has_answer is None:
                out.append((i, b))
            elif has_answer(i + 1, b):
                start = max([k + 1 for k in range(a, i) if tokens[k] in CONCESSION] + [a])
                out.append((start, i))
        elif (t == "mind" and tokens[i + 1 : i + 2] == ["you"] and i > a) or (t in ASIDE_CAVEATS and i > a):
            out.append((i, b))  # "the red one's bigger, mind you the blue one's lighter": a caveat aside
        elif t in CONCESSIVE:
            if i == a or (i == a + 1 and tokens[a] in ("and", "so", "well", "even")):  # "(even) though X, Y"
                comma = next((k for k in range(i + 1, b) if tokens[k] == ","), b)
                out.append((i, comma))
            elif i + 1 == b:  # "The bakery is close, though."
                out.append((a, i))
            else:
                out.append((i, b))
    return out


def contrast_clauses(tokens: Sequence[str]) -> list[Span]:
    """(start, end) of every clause a contrast or concession marker opens, to the end of its sentence."""
    return [(i, _sentence_bounds(tokens, i)[1]) for i, t in enumerate(tokens) if t in CONCESSION]


CLAUSE_EDGE = frozenset((",", ".", "oh", "no", "wait", "um", "uh", "er", "sorry"))
"""what may stand before a self-correction's "actually"; after a clause's own words and before its end
("it is closed actually, it opens at three") "actually" only stresses the clause"""


def correction_start(tokens: Sequence[str], has_answer: Callable[[Sequence[str]], bool]) -> int:
    """Where the committed part begins: after the last self-correction followed by an answer."""
    start = 0
    for i, t in enumerate(tokens):
        degree = t == "rather" and tokens[i - 1 : i] != ["or"] and tokens[i + 1 : i + 2] != [","]
        degree = degree or (t == "actually" and i > 0 and tokens[i - 1] not in CLAUSE_EDGE
                            and (i + 1 == len(tokens) or tokens[i + 1] in (",", ".")))  # "It's closed actually, …"
        marker = (t in CORRECTION and not degree) or (t == "no" and i > 0 and i + 1 < len(tokens) and tokens[i + 1] in (",", ".", "wait"))
        phrase = next((p for p in CORRECTION_PHRASES if tuple(tokens[i : i + len(p)]) == p), None)
        if phrase is not None and i > 0:
            marker, i = True, i + len(phrase) - 1
        if marker and has_answer(tokens[i + 1 :]) and not _hypothetical(tokens[i + 1 :]):
            start = i + 1
    return start


def _hypothetical(rest: Sequence[str]) -> bool:
    """'…, sorry, ninety would be a different story': the value after the marker is the subject of a
    'would', a comment on another value, not a correction to it."""
    words = [t for t in rest[:8] if t != "," and t not in CORRECTION][:6]
    k = words.index("would") if "would" in words else -1
    return k > 0 and all(is_number(t) or t == "and" or _number_word(t) for t in words[:k])


def _number_word(word: str) -> bool:
    try:
        text2num(word, "en")
    except ValueError:
        return False
    return True


def _before(tokens: Sequence[str], i: int, skip: frozenset[str]) -> str:
    k = i - 1
    while k >= 0 and tokens[k] in skip:
        k -= 1
    return tokens[k] if k >= 0 else ""


def _after(tokens: Sequence[str], j: int, skip: frozenset[str]) -> str:
    k = j
    while k < len(tokens) and tokens[k] in skip:
        k += 1
    return tokens[k] if k < len(tokens) else ""


def negated(tokens: Sequence[str], span: tuple[int, int]) -> bool:
    """A negation within three words before the span, unless what stands between is another answer of its
    own: a number before a number ("not quite twenty — eighteen"), or one name before a name ("not Giulia —
    Nikos"; a recogniser drops the dash), a verb of belief aside ("don't think Nikos" stays negated)."""
    k = span[0] - 1
    for _ in range(3):
        if k < 0 or tokens[k] in (",", "."):
            return False
        if tokens[k] in NEGATION:
            return not _negates_another(list(tokens[k + 1 : span[0]]), list(tokens[span[0] : span[1]]))
        k -= 1
    return False


BELIEF = frozenset("think thought reckon believe sure guess remember mean suppose know knew say".split())
DEGREE = frozenset("quite really exactly even just only much more less over under above below".split())


def _negates_another(between: list[str], said: list[str]) -> bool:
    """The negation's object is `between`, another answer said before the span (see `negated`)."""
    if not between or set(between) & BELIEF:
        return False
    if any(is_number(t) for t in said) and any(is_number(t) for t in between):
        return not set(between) & {"than", "to", "from"}  # "not more than 20" negates 20's bound
    words = [t for t in between if t not in DEGREE]
    return len(words) == 1 and words[0].isalpha() and words[0] not in STOP and len(said) <= 3


def hedged(tokens: Sequence[str], span: tuple[int, int], later: Sequence[int] = ()) -> bool:
    """'X or Y', 'Y or X', 'either X', 'between X and Y'; `later`: where other answers of the same
    kind start after X, so "X each, or maybe Y" hedges too ("X or so" is an approximation)."""
    glue = frozenset((",", "the", "a", "an", "at", "about", "around"))
    if "or" in tokens[span[0] + 1 : span[1]]:
        return True  # "Nguyen or Ms Nolan": the gold's words found across an alternative
    k = span[1]
    while k < len(tokens) and tokens[k] in HONORIFICS:
        k += 1  # "Yuki-san or Min-ji-ssi": the title goes with the name
    k = k + 1 if k < len(tokens) and tokens[k] == "," else k
    if (k < len(tokens) and tokens[k] == "or" and not set(tokens[k + 1 : k + 2]) & APPROXIMATE
            and not _conditional(tokens, k)):
        return True
    _, end = _sentence_bounds(tokens, span[0])
    for other in later:
        between = tokens[span[1] : other]
        if other < end and "or" in between:
            k = span[1] + between.index("or")
            if not set(tokens[k + 1 : k + 2]) & APPROXIMATE and not _conditional(tokens, k):
                return True
    return _before(tokens, span[0], glue) in ("or", "either", "between")


HONORIFICS = frozenset(("san", "ssi", "sama", "kun", "chan", "ji", "sahib", "po", "lah"))
"""titles and particles said after a name ("Yuki-san", "Min-ji-ssi", "Tito Ramon po")"""
SCOPE = frozenset(("if", "with", "including", "counting", "without", "plus"))
"""what makes an "or" alternative answer another scope ("or 52 with the booking fee")"""
UNSURE = HEDGE_MARKERS - {"or"}
"""an alternative said with these is a second guess even with a scope ("or maybe 250 with the tip")"""


def _conditional(tokens: Sequence[str], k: int) -> bool:
    """'…, or Y if …' / '…, or Y with …' (the 'or' at k): the alternative answers another scope
    ("217 pounds, or 230 if you count the tolls"), a commitment to the first, not a hedge; a bare
    "X or Y", and "or maybe Y with …", stay one."""
    rest = list(tokens[k + 1 : k + 5])
    scope = next((t for t in rest if t in SCOPE), None)
    return scope is not None and not ({".", *UNSURE} & set(rest[: rest.index(scope)]))


def listed(tokens: Sequence[str], span: tuple[int, int]) -> bool:
    """'X and Y', 'Y and X', 'X and Y both', 'Y, then X' (for names and places); 'X against Y', 'Y versus X'
    name both sides of a match and no winner."""
    a, b = _sentence_bounds(tokens, span[0])
    if "both" in tokens[a:b]:
        return True
    nxt = _after(tokens, span[1], frozenset((",",)))
    prev = _before(tokens, span[0], frozenset(("the", ",")))
    if nxt == "and":
        k = next((i for i in range(span[1], len(tokens)) if tokens[i] == "and"), len(tokens))
        if _after(tokens, k + 1, frozenset((",",))) in CLAUSE_STARTS:
            return False  # "at the clock tower, and bring an umbrella": a new clause, not a second answer
        if tokens[span[1] : span[1] + 1] == [","] and any(t in CLAUSE_VERBS for t in tokens[k + 2 : k + 5]):
            return False  # "Evri, and DPD has the armchair": a subject and its verb, a clause of its own
    return nxt in ("and", *FACING) or prev in ("and", "then", *FACING)


FACING = ("against", "versus", "vs", "v")
"""what sets two sides of a match side by side ("Limerick against Kilkenny"): naming both picks neither"""
CLAUSE_STARTS = frozenset(
    "didnt wasnt isnt arent werent doesnt wouldnt hasnt havent wont cant couldnt "
    "i you we they he she it its there that this please bring dont do make take remember check call wear come "
    "get go keep try let lets so then also can could will would should must".split()
)
"""what opens a clause after "X, and …" (a pronoun, a modal, an imperative): no second answer"""
CLAUSE_VERBS = frozenset("is are was were has have had s does did will would".split())
"""a verb a few words after "X, and": what follows is a clause with its own subject"""


def asked_dimensions(question: Sequence[str]) -> set[str]:
    """The dimensions a question asks a choice by ("which is closest?" -> distance)."""
    return {d for d, words in DIMENSIONS.items() if words & set(question)}


def contradicted(tokens: Sequence[str], span: Span, question: Sequence[str] = (),
                 gold: Sequence[str] = ()) -> bool:
    """'X, though Y is closer': a contrast clause after the answer that names something else and
    says it fits better on what was asked. With the question known: a comparison on the dimension
    it asks by contradicts, one on another dimension does not, and for a question with no
    dimension (a choice, a recollection) a comparison of liking does; with no question, any
    comparison does (the reading before the question was used)."""
    asked = asked_dimensions(question)
    dimension_words = frozenset().union(*DIMENSIONS.values())
    for s, e in contrast_clauses(tokens):
        if s < span[1]:
            continue
        clause = list(tokens[s + 1 : e])
        other = [t for t in content(clause) if t not in dimension_words and t not in PREFERENCE
                 and not any(word_matches(g, t) for g in gold) and t not in ("thing", "too", "bit")]
        if gold and not other:
            continue
        said = {d for d, words in DIMENSIONS.items() if words & set(clause)}
        if not question:
            hit = any(t in COMPARATIVE for t in clause)
        elif asked:
            hit = bool(asked & said)
        else:
            liked = PREFERENCE & set(clause)
            if "rather" in liked and not any(clause[k - 1 : k] in (["would"], ["d"], ["id"]) or clause[k + 1 : k + 2]
                                             == ["than"] for k, t in enumerate(clause) if t == "rather"):
                liked = liked - {"rather"}  # "looks rather smarter": a degree word, no preference
            hit = not said and bool(liked)
        if hit:
            return True
    return False


def withdrawn(tokens: Sequence[str], span: Span) -> bool:
    """'6 dollars each. Oh, actually, I'm not sure …': uncertainty said after the answer takes it back."""
    later = list(tokens[span[1] :])
    return any(tuple(later[i : i + len(p)]) == p for p in WITHDRAWAL for i in range(len(later)))


def second_guess(tokens: Sequence[str], span: Span, later: Sequence[Span]) -> bool:
    """Another candidate after the answer, with "or" / "maybe" / "might" / "could" in the three
    words before it, at most one sentence on: a hedge. "Y if …" / "Y with …" right after it answers
    another scope ("eleven, or twelve if Hiro changes his mind")."""
    for a, b in later:
        if a < span[1]:
            continue
        if sum(t == "." for t in tokens[span[1] : a]) > 1:
            continue
        before = tokens[max(span[1], a - 3) : a]
        if not HEDGE_MARKERS & set(before):
            continue
        if SCOPE & set(tokens[b : b + 2]) and not UNSURE & set(before):
            continue
        return True
    return False


def inside(span: tuple[int, int], clauses: Sequence[tuple[int, int]]) -> bool:
    return any(s <= span[0] < e for s, e in clauses)


def question_options(question: Sequence[str]) -> list[list[str]]:
    """The options a question lists ("which is closest, the lake, the castle or the vineyard"):
    'the …' phrases separated by ',', 'or', 'and'; none unless at least two."""
    options: list[list[str]] = []
    i = 0
    while i < len(question):
        if question[i] == "the" and (i == 0 or question[i - 1] in (",", "or", "and", "of", "closest", "nearest")):
            j = i + 1
            while j < len(question) and question[j] not in (",", "or", "and", ".", "which"):
                j += 1
            if j > i + 1:
                options.append(list(question[i:j]))
            i = j
        else:
            i += 1
    return options if len(options) >= 2 else []


CODE_SEPARATORS = frozenset(("dash", "hyphen", "minus", "space", "slash"))


def code_spans(code: str, tokens: Sequence[str], digit_text: Callable[[int], tuple[str, int] | None]) -> list[tuple[int, int]]:
    """Token spans that spell `code` ("redkite7") when written together ("red kite seven");
    `digit_text(i)` reads a number said at i as (digits, end)."""
    want = re.sub(r"[^a-z0-9]", "", code.lower())
    pieces: list[tuple[str, int, int]] = []
    i = 0
    while i < len(tokens):
        got = digit_text(i)
        if got is not None:
            pieces.append((got[0], i, got[1]))
            i = got[1]
        else:  # a separator said aloud ("K X seven dash blue") joins, as the written one does
            pieces.append(("" if tokens[i] in CODE_SEPARATORS else re.sub(r"[^a-z0-9]", "", tokens[i]), i, i + 1))
            i += 1
    spans = []
    for a in range(len(pieces)):
        text = ""
        for b in range(a, len(pieces)):
            text += pieces[b][0]
            if text == want:
                spans.append((pieces[a][1], pieces[b][2]))
            if not want.startswith(text):
                break
    return spans
