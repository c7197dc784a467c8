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
- a mention inside a concession ("though …", "but …") does not commit;
- a mention right after "not" is negated;
- a mention joined to another answer by "or" / "either" / "between" is a hedge;
- for names and places, one joined to another by "and" / "both" / "then", or
  said beside another option of the question, is a list, not a choice;
- a mention followed by a concession that names something "closer",
  "cheaper", … contradicts itself.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

STOP = frozenset(
    "the a an of on at in to for is it its and or that this these those be are was were with by from as about "
    "per like so just well i you we they he she me my our your their there here one ones do does did can could "
    "would should will shall has have had been being what which who whom whose where when how than then also "
    "very really quite some any all let lets s d ll re ve m thats theres okay ok um uh oh sure yes yeah think "
    "guess probably maybe go going went picked pick wanted want chose choice said , .".split()
)
CORRECTION = frozenset(("sorry", "actually", "wait", "mean"))
CONCESSION = frozenset(("though", "although", "but", "however", "whereas"))
NEGATION = frozenset(("not", "isnt", "wasnt", "arent", "werent", "never"))
COMPARATIVE = frozenset(
    "closer nearer cheaper quicker faster shorter further farther longer better cheapest closest nearest "
    "quickest more less bigger smaller earlier later".split()
)
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


def soundex(word: str) -> str:
    """American Soundex: names a recogniser misspells keep their code ("Kenzie"/"Kenji" = K520)."""
    codes = {**dict.fromkeys("bfpv", "1"), **dict.fromkeys("cgjkqsxz", "2"), **dict.fromkeys("dt", "3"),
             "l": "4", **dict.fromkeys("mn", "5"), "r": "6"}
    w = re.sub(r"[^a-z]", "", word.lower())
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
            spans.append((min(found), max(found) + 1))
    return spans


def _sentence_bounds(tokens: Sequence[str], i: int) -> tuple[int, int]:
    a = max((k for k in range(i) if tokens[k] == "."), default=-1) + 1
    b = next((k for k in range(i, len(tokens)) if tokens[k] == "."), len(tokens))
    return a, b


def concessions(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of each concessive clause: from 'though'/'but' to the end of its sentence."""
    return [(i, _sentence_bounds(tokens, i)[1]) for i, t in enumerate(tokens) if t in CONCESSION]


def correction_start(tokens: Sequence[str], has_answer: Callable[[Sequence[str]], bool]) -> int:
    """Where the committed part begins: after the last self-correction followed by an answer."""
    start = 0
    for i, t in enumerate(tokens):
        marker = t in CORRECTION or (t == "no" and i > 0 and i + 1 < len(tokens) and tokens[i + 1] in (",", ".", "wait"))
        if marker and has_answer(tokens[i + 1 :]):
            start = i + 1
    return start


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
    k = span[0] - 1
    for _ in range(3):
        if k < 0 or tokens[k] in (",", "."):
            return False
        if tokens[k] in NEGATION:
            return True
        k -= 1
    return False


def hedged(tokens: Sequence[str], span: tuple[int, int], later: Sequence[int] = ()) -> bool:
    """'X or Y', 'Y or X', 'either X', 'between X and Y'; `later`: where other answers of the same
    kind start after X, so "X each, or maybe Y" hedges too ("X or so" is an approximation)."""
    glue = frozenset((",", "the", "a", "an", "at", "about", "around"))
    k = span[1] + 1 if span[1] < len(tokens) and tokens[span[1]] == "," else span[1]
    if k < len(tokens) and tokens[k] == "or" and tokens[k + 1 : k + 2] != ["so"]:
        return True
    _, end = _sentence_bounds(tokens, span[0])
    for other in later:
        between = tokens[span[1] : other]
        if other < end and "or" in between and "so" not in between[between.index("or") + 1 : between.index("or") + 2]:
            return True
    return _before(tokens, span[0], glue) in ("or", "either", "between")


def listed(tokens: Sequence[str], span: tuple[int, int]) -> bool:
    """'X and Y', 'Y and X', 'X and Y both', 'Y, then X' (for names and places)."""
    a, b = _sentence_bounds(tokens, span[0])
    if "both" in tokens[a:b]:
        return True
    nxt = _after(tokens, span[1], frozenset((",",)))
    prev = _before(tokens, span[0], frozenset(("the", ",")))
    return nxt == "and" or prev in ("and", "then")


def contradicted(tokens: Sequence[str], span: tuple[int, int]) -> bool:
    """'X, though Y is closer': a concession after the answer that says another fits better."""
    return any(s >= span[1] and any(t in COMPARATIVE for t in tokens[s:e]) for s, e in concessions(tokens))


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
        else:
            pieces.append((re.sub(r"[^a-z0-9]", "", tokens[i]), i, i + 1))
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
