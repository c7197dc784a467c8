"""Item–value pairs: which item of a reply's list the gold is bound to.

A reply often lists several items, each with a value or a role: "standard is 14.95 express is 24.95",
"A has the armchair, the sofa is with B", "X is the driver; the godfather is Y", "they scored three, we
only got one", "A 80,000, B 72,000, C 75,000". A grader takes the gold as the answer only when it is
bound to the item or role the question asks about. The reply is read as a list of clauses (`pair_clauses`:
split at , ; . ! ? and at "and", "but", "while", "whereas", "then", "though" outside a number, and at an
unmarked boundary, where a value or a noun phrase is followed by a new subject and its verb: "14.95 |
express is", "the armchair | the sofa is"), each clause one item with its value or role:

- `value_bound_to_other_item` (a quantity gold): the gold's value is in one clause, and another clause
  holds a word of the question the gold's clause lacks and a value of the gold's kind, while the gold's
  clause names an item of its own ("the museum a 26" when Devon House is asked and "Devon House … 56" is
  said); or the gold's clause is about the side the question sets against the one asked ("how many did
  we score against Panama?": "Panama scored three, we got one");
- `role_bound_elsewhere` (a name or choice): a clause says the question's role word ("the sofa", "the
  godfather", "alight", "the rubber") with another candidate, and the gold's own clause says a role of
  its own and none of the question's ("DPD has the armchair, the sofa is with Evri");
- `unpicked_list` (a superlative or comparative question): every candidate the reply names is paired
  with a value and no clause says which one the question asks for (no word of comparison, no conclusion):
  a list with no pick, partial, unless the gold leads it ("the Pixel lasts twenty hours, the iPhone
  seventeen": the first item named is read as the answer, the rest as working).

A value marked as a total ("thirty-five all told", "so nine") is bound to the whole asked about, never to one
item (`totalled`); a code said as written is read by the role rule (`code_bound_elsewhere`). These only ever
make a reply wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.scoring.judges.commitment import STOP, Span, content, word_matches
from floorbench.scoring.judges.normalize import stem
from floorbench.scoring.judges.quantities import Mention, lex, mentions
from floorbench.scoring.judges.quantity_match import Quantity, same_quantity

EDGES = frozenset((",", ".", ";", "!", "?", "and", "but", "while", "whereas", "then", "though", "although"))
LINKS = frozenset("is are was were s has have had costs cost gets got get takes took pays paid scored score "
                  "scores made make makes goes went".split())
"""verbs that join an item to its value or role ("standard is 14.95", "DPD has the armchair")"""
DETERMINERS = frozenset("the a an this that my your our their his her di da".split())
"""what opens a new subject ("the sofa is …"; "di", "da": the creole and dialect spellings of "the")"""
SIDES = frozenset(("against", "versus", "vs", "over", "beat", "beating"))
"""what sets the other side against the one a question asks about ("did we score against Panama")"""
US = frozenset(("we", "us", "our", "you", "your", "me", "i", "my"))


def pair_clauses(tokens: Sequence[str]) -> list[Span]:
    """The reply's clauses, each (ideally) one item with its value or role (see the module docstring)."""
    inside = {i for m in mentions(list(tokens)) for i in range(m.start + 1, m.end)}
    ends = {m.end for m in mentions(list(tokens))}
    out: list[Span] = []
    a = 0
    for i, t in enumerate([*tokens, "."]):
        if i < len(tokens) and i not in inside and t not in EDGES and i > a and _new_subject(tokens, i, a, ends):
            out.append((a, i))
            a = i
        if i == len(tokens) or (t in EDGES and i not in inside):
            if i > a:
                out.append((a, i))
            a = i + 1
    return out


def _new_subject(tokens: Sequence[str], i: int, a: int, ends: set[int]) -> bool:
    """An unmarked clause boundary before `i`: a link verb was said since `a`, and `i` opens a subject (a
    determiner and a word, or one word right after a value) followed at once by a link verb."""
    if not any(t in LINKS for t in tokens[a:i]):
        return False
    if tokens[i] in DETERMINERS:
        return tokens[i + 1 : i + 2] != [] and tokens[i + 1] not in STOP and (
            tokens[i + 2 : i + 3] in [[t] for t in LINKS] or (tokens[i + 3 : i + 4] in [[t] for t in LINKS]
                                                            and tokens[i + 2] not in DETERMINERS))  # "the blue one is"
    if tokens[i] in STOP or i + 1 >= len(tokens) or tokens[i + 1] not in LINKS:
        return False
    return i in ends or (tokens[i - 1] not in STOP and tokens[i - 1] not in LINKS and tokens[i - 1] not in DETERMINERS
                         and tokens[a:i].count(",") == 0 and any(t in ("with", "to", "by") for t in tokens[a:i]))


def _keys(question: Sequence[str], gold: Sequence[str]) -> set[str]:
    return {stem(t) for t in content(list(question)) if t not in ("aria", "much", "many")} - {stem(g) for g in gold}


def same_kind(q: Quantity, m: Mention) -> bool:
    """The mention is a value of the gold's kind (a time for a time, an amount in the gold's unit): only then
    is it a rival value for the thing asked ("five hours behind" is no rival to "seven in the morning")."""
    if q.kind == "clock":
        return bool(m.clock) and m.duration is None
    if q.kind == "duration":
        return m.duration is not None
    if q.kind == "date":
        return m.date is not None
    return m.duration is None and m.date is None and (q.unit is None or m.unit is None or m.unit == q.unit)


def value_bound_to_other_item(q: Quantity, gold: str, transcript: str, question: str) -> str | None:
    """Why the gold value the reply says belongs to another item of its list, or None."""

    def is_gold(m: Mention) -> bool:
        return same_quantity(q, m)

    tokens, asked = lex(transcript), lex(question)
    found = mentions(tokens)
    clauses = pair_clauses(tokens)
    if len(clauses) < 2:
        return None
    said = [[m for m in found if a <= m.start < b] for a, b in clauses]
    golds = [k for k, ms in enumerate(said) if any(is_gold(m) for m in ms)]
    if len(golds) != 1:
        return None
    g = golds[0]
    gm = next(m for m in said[g] if is_gold(m))
    ga, gb = clauses[g]
    if tokens[ga] in CONCLUDING or len(said[g]) > 1:
        return None  # "…, so forty-two": a conclusion; "200 into 84 is 16,800": working, not an item's value
    keys = _keys(asked, lex(gold))
    own_words = {stem(t) for t in content(list(tokens[ga:gb])) if t not in LINKS}
    gold_stems = {stem(t) for t in lex(gold)}
    own = {w for w in _item(tokens, ga, gb, gm) if w not in keys and w not in gold_stems
           and w not in {stem(t) for t in asked}}
    for k, (a, b) in enumerate(clauses):
        if k == g or not any(same_kind(q, m) and not is_gold(m) for m in said[k]):
            continue
        theirs = {stem(t) for t in content(list(tokens[a:b]))}
        lacking = (keys & theirs) - own_words
        if lacking and own:
            return f"the value said goes with '{' '.join(sorted(own))}'; the question's '{' '.join(sorted(lacking))}' " \
                f"goes with '{' '.join(tokens[a:b])}'"
    side = _other_side(asked)
    if side and any(stem(t) == stem(side) for t in tokens[clauses[g][0] : gm.start]) and any(
            same_kind(q, m) and not is_gold(m) for k, ms in enumerate(said) if k != g for m in ms):
        return f"the value said is the other side's ('{side}'), not the one asked about"
    return None


CONCLUDING = frozenset("so thus therefore total altogether making makes thats comes".split())
FILLERS = frozenset("only just about around like roughly nearly almost exactly sir madam mam po lah la na ji tho though "
                    "yeah well oh um uh".split())


def _item(tokens: Sequence[str], a: int, b: int, m: Mention) -> set[str]:
    """The item a clause gives its value to: the words before the value ("standard is 14.95", "di museum a 26")
    or after a "for" / "of" right after it ("thirty for the coach"), function words and fillers aside."""
    words = list(tokens[a : m.start])
    if tokens[m.end : m.end + 1] in (["for"], ["of"]):
        words += list(tokens[m.end + 1 : b])
    return {stem(t) for t in words if t not in STOP and t not in LINKS and t not in FILLERS and t not in DETERMINERS
            and not t[:1].isdigit()}


def _other_side(question: Sequence[str]) -> str:
    """The side a question sets against the one it asks about ("… score against Panama": 'panama'), or ''."""
    for k, t in enumerate(question[:-1]):
        if t in SIDES:
            rest = [w for w in question[k + 1 : k + 4] if w not in STOP and w not in (",", ".", "?")]
            if rest:
                return rest[0]
    return ""


WH = frozenset("who whom which what where when how whose".split())


def _asked_roles(question: Sequence[str], gold_words: Sequence[str], options: Sequence[Sequence[str]]) -> set[str]:
    in_options = {stem(w) for o in options for w in o}
    return {k for k in _keys(question, gold_words) if k not in in_options and k not in WH}


def role_bound_elsewhere(tokens: Sequence[str], question: Sequence[str], gold_words: Sequence[str],
                         gold: Sequence[Span], others: Sequence[Span]) -> str | None:
    """Why the role the question asks about goes to another candidate in another clause, while the gold's
    clause gives it a role of its own ("DPD has the armchair, the sofa is with Evri" for who delivers the
    sofa), or None. Another candidate: one of `others`, a word the question does not have, or "you" / "we"
    when the question asks about the asker's side ("us or the Hendersons")."""
    clauses = pair_clauses(tokens)
    if len(clauses) < 2 or not gold:
        return None
    keys = _asked_roles(question, gold_words, question_list(question))
    us = bool(US & set(question)) and not US & {w for s in gold for w in tokens[s[0] : s[1]]}
    taken = {i for s in [*gold, *others] for i in range(s[0], s[1])}

    def words(a: int, b: int) -> set[str]:
        return {stem(tokens[i]) for i in range(a, b) if i not in taken and tokens[i] not in STOP
                and tokens[i] not in LINKS and tokens[i] not in US and not tokens[i][:1].isdigit()
                and tokens[i] not in FILLERS and tokens[i] not in DETERMINERS}

    gold = [s for s in gold if any(a <= s[0] and s[1] <= b for a, b in clauses)]  # not "Mrs Ong, Mrs Tan" as one
    holding = [(a, b) for a, b in clauses if any(a <= s[0] < b for s in gold)]
    if len(holding) != 1:
        return None
    ga, gb = holding[0]
    mine = words(ga, gb)
    if not mine - keys:
        return None  # the gold's clause gives it no role of its own
    for a, b in clauses:
        if (a, b) == (ga, gb) or any(a <= s[0] < b for s in gold):
            continue
        said = (words(a, b) & keys) - mine  # a word of the role asked the gold's clause lacks ("the final frame")
        if not said:
            continue
        at = next(i for i in range(a, b) if stem(tokens[i]) in said)
        rival = [" ".join(tokens[s[0] : s[1]]) for s in others if a <= s[0] < b] or (
            [t for t in tokens[a:b] if t in US] if us else []) or sorted(words(at + 1, b) - keys)
        # a candidate: another one named, "you" for "us", or what the role word is given to ("the sofa is with Evri")
        if said and rival:
            return f"the role asked ('{' '.join(sorted(said))}') goes with '{rival[0]}'; the gold's clause gives it " \
                f"another ('{' '.join(sorted(mine - keys))}')"
    return None


def code_bound_elsewhere(gold: str, transcript: str, question: str) -> str | None:
    """Why a code said as written ("KT-2041-BL is the white kettle, the blue one is KT-2042-BL" for the blue
    kettle's) is given to another item than the one asked, or None: the role rule on the code's clause."""
    tokens, code = lex(transcript), "".join(t for t in lex(gold) if t.isalnum())
    spans: list[Span] = []
    for k in range(len(tokens)):
        joined, j = "", k
        while j < len(tokens) and len(joined) < len(code) and tokens[j].isalnum():
            joined, j = joined + tokens[j], j + 1
        if code and joined == code and (not spans or k >= spans[-1][1]):
            spans.append((k, j))  # the code however the tokens split it ("kt 2 0 4 1 bl")
    if not spans:
        return None
    return role_bound_elsewhere(tokens, lex(question), [code], spans, [])


TOTALS = ("all told", "in total", "in all", "altogether", "all in", "all up", "total", "so", "that makes", "making",
          "comes to", "come to", "which makes")
"""what marks a value as the sum of the ones before it ("thirty for the coach and five for the tea, thirty-five all
told"): a conclusion, bound to the whole the question asks about, not to one of the items summed"""


def totalled(q: Quantity, transcript: str) -> bool:
    """Whether the clause that says the gold value marks it as a total (see `TOTALS`)."""
    tokens = lex(transcript)
    for a, b in pair_clauses(tokens):
        if any(same_quantity(q, m) for m in mentions(list(tokens[a:b]))):
            said = f" {' '.join(tokens[max(0, a - 1) : b])} "
            return any(f" {t} " in said for t in TOTALS)
    return False


def question_list(question: Sequence[str]) -> list[list[str]]:
    """The options a question lists at its end ("…: Kamau, Wanjiru or Ochieng?", "…, the Gold plan or the Silver
    plan?"), each without its article; [] unless at least two, joined by an "or"."""
    words = [t for t in question if t not in (".", "?")]
    if "or" not in words:
        return []
    items: list[list[str]] = [[]]
    for t in reversed(words):
        if t in (",", "or"):
            items.append([])
            continue
        items[-1].insert(0, t)
        if t in WH or t in ASKS_PICK:
            break
    out = [[w for w in item if w not in ("the", "a", "an")] for item in items[:-1]]
    out = [o for o in out if o]
    return out[::-1] if len(out) >= 2 else []


PICKS = frozenset("most more least less fewest fewer best better worst worse cheapest cheaper dearest dearer highest "
                  "higher lowest lower biggest bigger smallest smaller tallest taller shortest shorter longest longer "
                  "fastest faster slowest slower nearest nearer closest closer furthest further heaviest heavier "
                  "lightest lighter winner won so therefore go pick choose recommend".split())
"""words that pick one item of a list ("X is cheapest", "so X", "go with X")"""
ASKS_PICK = frozenset(w for w in PICKS if w.endswith(("est", "er"))) | {"most", "least", "best", "worst", "more",
                                                                         "less", "fewer", "fewest"}


def unpicked_list(tokens: Sequence[str], question: Sequence[str], gold_words: Sequence[str]) -> str | None:
    """Why a reply that pairs every candidate with a value answers nothing ("Kamau 80,000, Wanjiru 72,000,
    Ochieng 75,000" for the lowest quote), or None (see the module docstring)."""
    options = question_list(question)
    if not ASKS_PICK & set(question) or PICKS & set(tokens) or len(options) < 2:
        return None
    mark = [{w for w in o if w not in STOP and not any(w in p for p in options if p is not o)} for o in options]
    found = mentions(list(tokens))
    named: list[tuple[int, bool]] = []
    clauses = pair_clauses(tokens)
    for k, (a, b) in enumerate(clauses):
        hit = [n for n, m in enumerate(mark) if m and any(word_matches(w, t, name=True) for w in m for t in tokens[a:b])]
        valued = any(a <= m.start < b for m in found) or (k + 1 < len(clauses) and not any(
            word_matches(w, t, name=True) for m in mark for w in m for t in tokens[clauses[k + 1][0]:clauses[k + 1][1]])
            and any(clauses[k + 1][0] <= m.start < clauses[k + 1][1] for m in found))  # "R1, 1k."
        if len(hit) == 1 and valued:
            named.append((a, all(any(word_matches(g, w, name=True) for g in gold_words) for w in mark[hit[0]])))
    if len(named) < 2 or len(named) < len(options) - 1 or not any(g for _, g in named):
        return None
    if min(named)[1]:
        return None  # the gold leads the list: read as the answer, the rest as working
    return "it pairs the options with values and never says which one the question asks for"
