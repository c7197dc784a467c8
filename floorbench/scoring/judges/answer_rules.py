"""The offline judge's answer rules: read the gold's kind, find it in the reply, check commitment.

A gold answer is one of five kinds, and each is found its own way:
- **yes/no** ("yes", "no"): the reply's first polarity word; a short "he did" is a
  yes; "not sure", "don't know", "hard to say" commit to nothing;
- **code** ("redkite7", "AB12"): the reply's words and numbers written together
  spell it ("red kite seven", "A B one two");
- **quantity** ("130 euros", "7:35", "an hour and a half", "11 guests"): a
  mention with the same value in any form and a compatible unit
  (`quantity_match.same_quantity`); for a time, the same half of the day when the
  reply says one; a duration said as a bare number leaves out its unit, a part
  of the answer (money, distances and counts have a bare-number form);
- **entity** (a name, a place, a choice): every content word of the gold said
  close together (plural-stemmed, British = American spelling, fuzzy ≥ 0.85
  for 5+ letters, and by sound for capitalised names: "Kenzie" = "Kenji"), or
  a paraphrase of a place-like gold: its distinctive words with another head
  noun of the same kind, or none ("the noodle spot on Main" for the noodle
  place, "noodles" for the noodle bar), when no other option of the question
  fits those words too;
- **several parts** ("Friday at 4", "the salad and the soup", "the old town,
  3 miles"): every part must be said, each found as above; a reply that drops
  one (the time, one of two items) is wrong, whatever the sentence model thinks.
A mention found must be committed to (`commitment`): not negated, hedged,
withdrawn, listed beside another option, conceded ("the bakery is near, but the
market is nearest" commits to the market), contradicted, or taken back by a
self-correction; when the question asks about one person, a clause about
somebody else is an aside ("Jonas picked the noodle bar, but Ingrid wanted the
sushi counter"). A gold found only uncommitted makes the reply wrong; a gold not
found at all leaves the aliases, then the meaning check (MiniLM) for names and
places whose words are only partly there.

Every outcome carries the id of the rule that decided it (``answer.<rule>``): the
verdict's `rule` and the start of its `reason`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from floorbench.scoring.judges import JudgeInput, JudgeVerdict, Verdict
from floorbench.scoring.judges.binding import concluded, counted_otherwise, item_claim, value_bound_elsewhere
from floorbench.scoring.judges.claims import (
    bound_elsewhere,
    bound_to_gold,
    focus_words,
    only_a_landmark,
    ranked_below,
    valued_rank,
)
from floorbench.scoring.judges.commitment import (
    Span,
    concessions,
    content,
    contradicted,
    correction_start,
    entity_spans,
    inside,
    listed,
    negated,
    paraphrase_spans,
    question_options,
    word_matches,
)
from floorbench.scoring.judges.commitment import code_spans as _code_spans
from floorbench.scoring.judges.converse import converse_answer
from floorbench.scoring.judges.normalize import NO, YES, content_tokens, normalize_tokens
from floorbench.scoring.judges.people import (
    NOT_NAMES,
    another_subject,
    asked_people,
    capitalised,
    opened_other,
    people,
)
from floorbench.scoring.judges.quantities import Mention, half_said_later, lex, mentions
from floorbench.scoring.judges.quantity_match import Quantity, gold_quantity, same_quantity, unit_not_asked
from floorbench.scoring.judges.respell import respell, says_score
from floorbench.scoring.judges.several_values import several_values
from floorbench.scoring.judges.typed_rules import (
    breakdown,
    commit_reason,
    day_alone,
    digit_text,
    numbered_answer,
    one_as_head,
    spelled_answer,
    substituted,
)
from floorbench.scoring.judges.values import (
    WEEKDAYS,
    gold_code,
    join_split_words,
    spelled_tokens,
    spelled_word,
)
from floorbench.scoring.judges.yes_no import hedge_tail, open_alternative, polarity_led, yes_no

Outcome = tuple[str, str, str]
"""('correct' | 'wrong' | 'absent' | 'partial' | 'incomplete' | 'refused', rule id, why); only
'correct' and 'wrong' decide, the others leave the next alias (and, for 'absent' and 'partial'
names and places, the meaning check)"""
PART_SEPARATORS = frozenset((",", "and", "plus"))
"""what joins the parts of a gold with several ("the salad and the soup", "the old town, 3 miles")"""
PART_PREPOSITIONS = frozenset(("at", "on", "by", "for", "from", "until", "till", "around", "before", "after", "in"))
"""what puts a time or amount after a name ("Friday at 4"): two parts, both asked for"""


@dataclass
class Reply:
    """One reply with what the rules read off it and off the question."""

    inp: JudgeInput
    tokens: list[str]
    names: frozenset[str]
    question: list[str]
    options: list[list[str]]
    asides: list[Span] = field(default_factory=list)
    """clauses about somebody other than the person the question asks about"""

    @classmethod
    def of(cls, inp: JudgeInput) -> Reply:
        tokens = lex(inp.transcript)
        question = lex(inp.context)
        reply = cls(inp, tokens, capitalised(inp.transcript), question, question_options(question))
        gold_words = [w for r in (inp.gold or "", *inp.aliases) for w in content(lex(r))]
        reply.asides = _asides(tokens, people(inp.transcript, gold_words), asked_people(inp.context))
        return reply


def _clauses(tokens: list[str]) -> list[Span]:
    """Sentences, split again at contrast markers ("…, but …", "…, though …")."""
    out, a = [], 0
    for i, t in enumerate([*tokens, "."]):
        if t == "." or t in ("but", "though", "although", "whereas", "however"):
            if i > a:
                out.append((a, i))
            a = i + (t == ".")
    return out


def _asides(tokens: list[str], people: frozenset[str], asked: frozenset[str]) -> list[Span]:
    """When the question asks about someone, the clauses that are about somebody else instead."""
    if not asked:
        return []
    out = []
    for a, b in _clauses(tokens):
        said = {t for t in tokens[a:b] if t in people}
        if said and not said & asked:
            out.append((a, b))
    return out


def _code(code: str, reply: Reply) -> Outcome:
    tokens = spelled_tokens(reply.tokens)
    spans = _code_spans(code, tokens, digit_text(tokens))
    if not spans:
        said = [m for m in mentions(tokens) if m.digits] or spelled_word(tokens)
        if said:
            return "wrong", "answer.code-other", f"code {code} not spelled; the reply spells or says another"
        return "absent", "answer.code-absent", f"code {code} not spelled"
    start = correction_start(tokens, lambda rest: bool(content(rest)))
    conc = concessions(tokens, lambda a, b: any(a <= s[0] < b for s in spans) or bool(mentions(tokens[a:b])))
    why = [commit_reason(tokens, s, start, conc) for s in spans]
    if any(w is None for w in why):
        return "correct", "answer.code", f"spells {code}"
    rule, reason = next(w for w in why if w is not None)
    return "wrong", rule, f"code {code} said but {reason}"


MORE = frozenset(("more", "extra", "dearer", "pricier", "costlier"))
LESS = frozenset(("less", "cheaper", "fewer"))
VERBS = frozenset("is are was were did does do cost costs costed come comes came".split())
DONE = frozenset("done spent covered driven walked travelled traveled used gone paid cycled hiked".split())
"""what a distance or an amount already behind us is, not one left ("we've done 85 kilometres")"""
REMAINING = frozenset(("left", "further", "farther", "still", "remain", "remaining", "spare"))
JUDGED = frozenset(("few", "many", "much", "little", "low", "high", "small", "big"))


def _reversed(m: Mention, reply: Reply) -> str | None:
    """Why a committed mention of the gold value still says something else: the relation turned
    round ("the train tickets are 65 euros more" when the hotel is; "45 pounds over budget", "we've
    done 85 kilometres" for what is left) or a judgement of the value ("nine is too few")."""
    tokens, question = reply.tokens, reply.question
    after = tokens[m.end : m.end + 4]
    if after[:1] == ["too"] or (after[1:2] == ["too"] and after[:1] in (["is"], ["are"], ["s"], ["was"])):
        k = after.index("too")
        if after[k + 1 : k + 2] and after[k + 1] in JUDGED:
            return "judges the value ('too …') rather than giving it"
    if after[:2] == ["not", "enough"] or after[1:3] == ["not", "enough"]:
        return "judges the value ('not enough') rather than giving it"
    if "more" in question and "than" in question[question.index("more"):]:
        i = question.index("more")
        j = question.index("than", i)
        more_item = [w for w in content(question[i + 1 : j]) if w not in VERBS]
        end = next((k for k in range(j + 1, len(question)) if question[k] in (",", ".")), len(question))
        less_item = [w for w in content(question[j + 1 : end]) if w not in VERBS]
        a = max((k + 1 for k in range(m.start) if tokens[k] == "."), default=0)
        before = tokens[a : m.start]
        b = next((k for k in range(m.end, len(tokens)) if tokens[k] == "."), len(tokens))
        sentence = tokens[a:b]
        subject_more = any(word_matches(w, t) for w in more_item for t in before)
        subject_less = any(word_matches(w, t) for w in less_item for t in before)
        if subject_less and not subject_more and MORE & set(sentence):
            return f"says {' '.join(less_item)} is the dearer one (reversed)"
        if subject_more and not subject_less and LESS & set(sentence):
            return f"says {' '.join(more_item)} is the cheaper one (reversed)"
    if REMAINING & set(question) or question[-3:-1] == ["to", "go"]:
        if DONE & set(tokens[max(0, m.start - 2) : m.start]) or tokens[m.end : m.end + 1] in (
                ["done"], ["spent"], ["over"], ["behind"], ["covered"], ["already"], ["short"], ["overdrawn"]):
            return "gives what is already done or spent (or over), not what is left"
    return None


def _quantity(q: Quantity, reply: Reply) -> Outcome:
    """The gold quantity said and committed to. A duration said as a bare number ("a hundred" for
    100 minutes) leaves out a part of the answer: its unit (money, distances and counts have a
    bare-number form; a duration has none)."""
    tokens = reply.tokens
    found = mentions(tokens)
    hits: list[Mention] = [m for m in found if same_quantity(q, m) or _year_short(q, m, reply)]
    if q.kind == "clock" and q.half is not None:
        later = [m for m in hits if m.half is None and half_said_later(tokens, m) not in (None, q.half)]
        if later and len(later) == len(hits):
            return "wrong", "answer.half-day", f"says '{' '.join(tokens[later[0].start:later[0].end])}' and then " \
                f"the other half of the day ({half_said_later(tokens, later[0])})"
    if not hits:
        unitless = [m for m in found if q.kind == "duration" and m.duration is None
                    and m.unit is None and {q.value, q.value / 60} & m.numbers]
        if unitless:
            return ("incomplete", "answer.incomplete",
                    f"says '{' '.join(tokens[unitless[0].start:unitless[0].end])}' without a unit: a duration "
                    "needs one (hours or minutes)")
        said = ", ".join(" ".join(tokens[m.start:m.end]) for m in found[:4]) or "none"
        day = day_alone(q, tokens)
        if day is not None:
            return day
        unread = sorted({w for i, w in enumerate(tokens) if w in VALUE_WORDS
                         and not any(m.start <= i < m.end for m in found)})  # "two dozen minus one" was read
        if unread:
            return "unsure", "answer.value-unread", f"the gold quantity not read, but the reply says a value in a " \
                f"form the rules do not read ('{unread[0]}'): cannot tell"
        return "absent", "answer.quantity-absent", f"quantity not said (heard: {said})"
    start = correction_start(tokens, lambda rest: bool(mentions(list(rest))))
    conc = concessions(tokens, lambda a, b: any(a <= m.start < b for m in found)
                       and not another_subject(tokens[a:b], reply.question))
    others = [(m.start, m.end) for m in found if not same_quantity(q, m)]
    why = [commit_reason(tokens, (m.start, m.end), start, conc, others) for m in hits]
    committed = [m for m, w in zip(hits, why, strict=True) if w is None]
    if committed and all((listed := _listed(m, found, tokens, q)) for m in committed):
        return "wrong", "answer.listed", f"says the gold value only as one of a list ({listed}): no choice made"
    if committed:
        turned = [r for m in committed if (r := _reversed(m, reply)) is not None]
        if len(turned) == len(committed):
            return "wrong", "answer.reversed", f"says the gold value but {turned[0]}"
        split = breakdown(committed[0], [m for m in found if not same_quantity(q, m)], reply.tokens, reply.question)
        if split is not None:
            return "wrong", "answer.breakdown", f"says '{' '.join(tokens[committed[0].start:committed[0].end])}' " \
                f"{split}"
        return "correct", "answer.quantity", f"says '{' '.join(tokens[committed[0].start:committed[0].end])}'"
    rule, reason = next(w for w in why if w is not None)
    return "wrong", rule, f"says the gold quantity but {reason}"


def _year_short(q: Quantity, m: Mention, reply: Reply) -> bool:
    """A year said by its last two digits when the question asks for a year ("sixty" for 1960, "oh-eight"
    for 2008; a single digit needs its "oh")."""
    if q.kind != "number" or q.unit is not None or not 1900 <= q.value <= 2099 or q.value != int(q.value):
        return False
    if "year" not in reply.question or m.unit is not None or m.duration is not None:
        return False
    tail = int(q.value) % 100
    if m.numbers != {float(tail)}:
        return False
    return tail >= 10 or (m.start > 0 and reply.tokens[m.start - 1] in ("oh", "o", "zero", "nought"))


LIST_JOINERS = frozenset((",", "and", "or"))


def _listed(m: Mention, found: list[Mention], tokens: list[str], q: Quantity) -> str:
    """The list the gold's mention stands in ("two, seven and nineteen percent"), or '': values said one
    after another with only commas, "and" or "or" between them, at least one of them another value."""
    items = sorted(found, key=lambda x: x.start)
    k = items.index(m)
    lo = hi = k
    while lo > 0 and items[lo - 1].end < items[lo].start and set(tokens[items[lo - 1].end : items[lo].start]) <= LIST_JOINERS:
        lo -= 1
    while hi + 1 < len(items) and items[hi].end < items[hi + 1].start and set(
            tokens[items[hi].end : items[hi + 1].start]) <= LIST_JOINERS:
        hi += 1
    run = items[lo : hi + 1]
    if len(run) < 2 or all(same_quantity(q, x) for x in run):
        return ""
    if len(run) == 2 and "and" not in tokens[run[0].end : run[1].start]:
        return ""  # "forty, fifty": a restart or a correction, not a list
    return ", ".join(" ".join(tokens[x.start : x.end]) for x in run)


VALUE_WORDS = frozenset("dozen dozens couple pair score fortnight fortnights grand gross decade brace".split())
"""words that make a value the quantity reader does not read ("a couple of dozen", "ten grand"): a reply
that uses one and no matching quantity is unsure, not wrong"""


def _find_entity(words: list[str], reply: Reply, gold_words: list[str]) -> tuple[list[Span], str, str]:
    """(spans, how, note): where the reply says the gold ('said'), paraphrases it ('paraphrase'), or
    paraphrases it in words another option of the question fits too ('ambiguous')."""
    spans = entity_spans(words, reply.tokens, reply.names)
    if spans:
        return spans, "said", ""
    found = paraphrase_spans(words, reply.tokens, reply.names)
    if not found:
        return [], "", ""
    mods = content(words)[:-1]
    for option in reply.options:
        ow = content(option)
        if ow == gold_words or ow == content(words):
            continue
        if all(any(word_matches(o, m) for o in ow) for m in mods):
            return [], "ambiguous", f"'{' '.join(mods)}' fits '{' '.join(option)}' too"
    return [s for s, _ in found], "paraphrase", found[0][1]


def _candidates(reply: Reply, gold_words: list[str]) -> list[Span]:
    """Other answers the reply gives: the question's other options, and other people's names."""
    out: list[Span] = []
    for option in reply.options:
        if content(option) != gold_words:
            out.extend(entity_spans(option, reply.tokens))
    if gold_words and gold_words[-1] in reply.names:  # a name ("Ms Nguyen"): other people named are rivals
        named = capitalised(reply.inp.transcript) - NOT_NAMES - capitalised(reply.inp.context)
        out.extend((i, i + 1) for i, t in enumerate(reply.tokens)
                   if t in named and not any(word_matches(g, t, name=True) for g in gold_words))
    if len(gold_words) >= 2:  # "the red tent" beside the blue tent: the same head, another modifier
        head, mods = gold_words[-1], set(gold_words[:-1])
        out.extend((i - 1, i + 1) for i, t in enumerate(reply.tokens) if i > 0 and t == head
                   and content([reply.tokens[i - 1]]) and reply.tokens[i - 1] not in mods)
    return sorted(set(out))


def _entity(ref: str, reply: Reply, gold_words: list[str] | None = None, part_of_list: bool = False) -> Outcome:
    """A name, place or choice said and committed to; `part_of_list`: one item of a gold with
    several ("the soup and the flatbread"), which is said in a list."""
    tokens = reply.tokens
    gold = lex(ref)
    words = content(gold)
    gold_words = gold_words or words
    spans, how, note = _find_entity(gold, reply, words)
    if how == "ambiguous":
        return "refused", "answer.paraphrase-ambiguous", f"'{ref}' paraphrased, but {note}"
    if not spans:
        present = [w for w in words if entity_spans([w], tokens, reply.names)]
        return ("partial" if 2 * len(present) >= len(words) else "absent"), "answer.entity-absent", \
            f"'{ref}' words missing"
    spans = [s for s in spans if not inside(s, reply.asides)]
    if not spans:
        return "wrong", "answer.other-person", f"'{ref}' said only about somebody the question does not ask about"
    others = [c for c in _candidates(reply, gold_words) if not inside(c, reply.asides)]

    def has_answer(a: int, b: int) -> bool:
        return any(a <= s[0] < b for s in spans) or any(a <= c[0] < b for c in others)

    start = correction_start(tokens, lambda rest: bool(content(rest)))
    conc = concessions(tokens, lambda a, b: has_answer(a, b) and not another_subject(tokens[a:b], reply.question))
    focus = focus_words(reply.question, reply.options, capitalised(reply.inp.context))
    aside = part_of_list or bound_to_gold(tokens, focus, spans, others, start)
    """the gold answers the question in its own clause: others named in other clauses are no list"""
    why = [commit_reason(tokens, s, start, [] if aside and not part_of_list else conc, others)
           or (("answer.listed", "listed with another answer") if listed(tokens, s) and not aside else None)
           for s in spans]
    committed = [s for s, w in zip(spans, why, strict=True) if w is None]
    if not committed:
        rule, reason = next(w for w in why if w is not None)
        return "wrong", rule, f"'{ref}' said but {reason}"
    valued = valued_rank(tokens, reply.question, gold_words) or item_claim(reply, gold_words, committed, others)
    other_claim = (bound_elsewhere(tokens, focus, committed, others, start) or ranked_below(tokens, focus, committed)
                   or only_a_landmark(tokens, committed, others) or valued)
    if other_claim is not None:
        return "wrong", "answer.claim-other", f"'{ref}' said, but {other_claim}"
    if concluded(tokens, gold_words, reply.options, other=True):
        return "wrong", "answer.concluded-other", f"'{ref}' said, but the conclusion names another option"
    claimed = bound_to_gold(tokens, focus, committed, others, start) or concluded(tokens, gold_words, reply.options)
    if not claimed and any(contradicted(tokens, s, reply.question if reply.inp.context else (), words)
                           for s in committed):
        return "wrong", "answer.contradicted", f"'{ref}' said, then a contrast says another fits better"
    for option in ([] if claimed else reply.options):
        if content(option) == gold_words:
            continue
        for s in entity_spans(option, tokens):
            if s[0] >= start and not inside(s, conc) and not inside(s, reply.asides) and not negated(tokens, s):
                return "wrong", "answer.other-option", f"'{ref}' said beside another option ('{' '.join(option)}')"
    if how == "paraphrase":
        return "correct", "answer.paraphrase", f"'{ref}' paraphrased ({note}) and committed to"
    return "correct", "answer.entity", f"'{ref}' said and committed to"


@dataclass
class Part:
    """One part of a gold with several: a name/place/item (`words`) or a quantity (`quantity`)."""

    text: str
    words: list[str] = field(default_factory=list)
    quantity: Quantity | None = None


def _parts(ref: str) -> list[Part]:
    """The parts a gold asks for, when it has more than one: items joined by "and" / "," / "plus"
    ("the salad and the soup", "the old town, 3 miles"), and a name with a time or amount after a
    preposition ("Friday at 4"). A quantity said with its own "and" ("an hour and a half") is one part."""
    toks = [t for t in lex(ref) if t != "."]
    found = mentions(toks)
    inside_mention = {i for m in found for i in range(m.start, m.end)}
    segments: list[list[int]] = [[]]
    for i, t in enumerate(toks):
        if t in PART_SEPARATORS and i not in inside_mention:
            segments.append([])
        else:
            segments[-1].append(i)
    parts: list[Part] = []
    for seg in segments:
        ms = [m for m in found if m.start in seg]
        words = [i for i in seg if i not in inside_mention]
        if not ms:
            if content([toks[i] for i in words]):
                parts.append(Part(" ".join(toks[i] for i in seg), words=[toks[i] for i in seg]))
            continue
        m = ms[0]
        name = [i for i in words if i < m.start]
        if content([toks[i] for i in name]) and toks[m.start - 1] in PART_PREPOSITIONS:
            parts.append(Part(" ".join(toks[i] for i in name[:-1]), words=[toks[i] for i in name[:-1]]))
        for k, m in enumerate(ms):  # "14 March at 10:15": a date and a time, each a part
            if k and toks[m.start - 1] not in PART_PREPOSITIONS:
                continue
            q = _part_quantity(toks, m)
            if q is not None:
                parts.append(Part(" ".join(toks[m.start:m.end]), quantity=q))
    return parts if len(parts) > 1 else []


def _part_quantity(toks: list[str], m: Mention) -> Quantity | None:
    """A part's quantity; a bare hour after "at" is a time ("Friday at 4" is 4 o'clock)."""
    q = gold_quantity(" ".join(toks[m.start:m.end]))
    if q is not None and q.kind == "number" and q.unit is None and m.start > 0 and toks[m.start - 1] == "at" \
            and m.clock:
        return Quantity("clock", float(min(m.clock)), half=m.half)
    return q


def _compound(ref: str, parts: list[Part], reply: Reply) -> Outcome:
    """Every part of a gold with several must be said and committed to; one left out is wrong."""
    said: list[str] = []
    missing: list[str] = []
    for part in parts:
        if part.quantity is not None:
            outcome = _quantity(part.quantity, reply)
        else:
            outcome = _entity(part.text, reply, part_of_list=True)
            if outcome[1] == "answer.other-option":  # the gold's other parts are no rival options
                outcome = ("correct", "answer.entity", outcome[2])
        if outcome[0] == "wrong":
            return "wrong", outcome[1], f"'{ref}': the part '{part.text}' {outcome[2].split(' said but ')[-1]}"
        (said if outcome[0] == "correct" else missing).append(part.text)
    if not missing:
        return "correct", "answer.all-parts", f"'{ref}': every part said and committed to ({'; '.join(said)})"
    if said:
        return ("incomplete", "answer.incomplete",
                f"'{ref}' has {len(parts)} parts; the reply says {', '.join(said)} but not {', '.join(missing)}")
    return "absent", "answer.parts-absent", f"'{ref}': none of its parts said"


def _gold_quantity(refs: list[str]) -> Quantity | None:
    """The gold's quantity, with the unit and half of the day any alias adds (a bare '42' alias
    never drops the gold's currency; a bare '11' alias of a time is that time)."""
    first = gold_quantity(refs[0])
    if first is None or not _starts_with_quantity(refs[0]):
        return None
    unit, half = first.unit, first.half
    for r in refs[1:]:
        q = gold_quantity(r)
        if q is not None and q.kind == first.kind and q.value == first.value:
            unit, half = unit or q.unit, half or q.half
    return Quantity(first.kind, first.value, unit, half)


def _starts_with_quantity(ref: str) -> bool:
    toks = lex(ref)
    found = mentions(toks)
    dated = bool(found) and found[0].date is not None  # "Tuesday 14 May": the weekday is the date's detail
    words = [i for i, t in enumerate(toks) if t not in ("the", "a", "an", "about", "at", "its", "it", "s", ",")
             and not (dated and t in WEEKDAYS)]
    return bool(words and found and found[0].start <= words[0] < found[0].end)


RANK = ("incomplete", "refused", "partial", "absent")
"""which undecided outcome's reason explains a wrong verdict best"""


def judge_refs(inp: JudgeInput) -> tuple[tuple[str, str, str], list[tuple[str, str]], list[tuple[str, str, str]]]:
    """(decisive (kind, rule, why) or ('', '', ''), references left for the meaning check with their
    threshold name, the undecided outcomes of the other refs). A gold that leaves out one of its parts,
    or whose paraphrase fits another option too, goes to no meaning check: the sentence model cannot
    tell "Friday" from "Friday at 4", nor one noodle place from another."""
    refs = [r for r in (inp.gold or "", *inp.aliases) if r.strip()]
    inp = replace(inp, transcript=join_split_words(respell(inp.transcript, refs, inp.context),
                                                   [w for r in refs for w in content(lex(r))]))
    if refs and gold_quantity(refs[0]) is None and not gold_code(refs[0]):
        inp = replace(inp, transcript=one_as_head(inp.transcript, refs[0], inp.context))
    reply = Reply.of(inp)
    if refs and says_score(refs[0], inp.transcript) is False:
        return ("wrong", "answer.score-other", f"'{refs[0]}': its two numbers are not said in order"), [], []
    led = polarity_led(refs[0], inp.transcript, inp.context) if refs else None
    if led is not None:
        return led, [], []
    if tail := hedge_tail(reply.tokens) or open_alternative(inp.transcript):
        return ("wrong", "answer.hedged", f"offers alternatives and leaves them unchosen ('{tail}')"), [], []
    pending: list[tuple[str, str]] = []
    undecided: list[tuple[str, str, str]] = []
    blocked = False
    q = _gold_quantity(refs) if refs else None
    if refs and q is None and not gold_code(refs[0]) and (
            turned := converse_answer([content(lex(r)) for r in refs], reply.tokens, reply.question, reply.names)):
        return (turned[0], turned[1], f"'{refs[0]}': {turned[2]}"), [], []
    if refs and q is None and (opened := opened_other(refs, inp.transcript, reply.tokens, reply.names)):
        return ("wrong", "answer.opened-other", opened), [], []
    if refs and q is None and not gold_code(refs[0]) and (swap := substituted(refs[0], inp.transcript)):
        return swap, [], []
    for n, ref in enumerate(refs):
        words = content_tokens(normalize_tokens(ref))
        if words and set(words) <= (YES | NO):
            kind, rule, why = yes_no("yes" if set(words) & YES else "no", inp.transcript, inp.context)
            if kind == "wrong" and why.endswith("heard no yes/no") and n + 1 < len(refs):
                continue  # no yes or no said: another alias ("closed") may say it in words
            return (kind, rule, why), [], []
        entity = False
        code = gold_code(ref)
        parts = [] if code or (q is not None and n == 0) else _parts(ref)
        if (several := several_values(ref, inp.transcript, refs[0])) is not None:
            outcome = several
        elif code:
            outcome = _code(code, reply)
        elif parts:
            outcome = _compound(ref, parts, reply)
        elif q is not None and (n == 0 or gold_quantity(ref) is not None):
            aq = gold_quantity(ref)
            if n > 0 and (aq is None or aq.kind != q.kind or aq.value == q.value or unit_not_asked(
                    inp.context, refs[0], ref)):
                continue
            outcome = _quantity(q if n == 0 or aq is None else aq, reply)  # an alias of another value: its own
        elif (rq := gold_quantity(ref)) is not None and _starts_with_quantity(ref):
            outcome = _quantity(rq, reply)
        elif (spelled := spelled_answer(ref, reply.tokens)) is not None:
            outcome = spelled
        elif (numbered := numbered_answer(ref, reply.tokens)) is not None:
            outcome = numbered
        else:
            outcome, entity = _entity(ref, reply), True
        kind, rule, why = outcome
        if kind == "correct" and (elsewhere := value_bound_elsewhere(ref, inp.transcript, inp.context)):
            kind, rule, why = "wrong", "answer.bound-elsewhere", elsewhere
        if kind == "correct" and (otherwise := counted_otherwise(ref, inp.transcript)):
            kind, rule, why = "wrong", "answer.counted-otherwise", otherwise
        if kind == "correct" and _NEGATIVE.search(ref) and not _SIGNED.search(inp.transcript):
            kind, rule, why = "wrong", "answer.sign-missing", "the gold is below zero and the reply says no sign " \
                "('minus', 'below zero'): another value"
        if kind in ("correct", "wrong"):
            return (kind, rule, f"'{ref}': {why}"), [], []
        undecided.append((kind, rule, f"'{ref}': {why}"))
        blocked = blocked or (n == 0 and kind in ("incomplete", "refused"))
        if entity and kind in ("partial", "absent") and len(content(lex(ref))) > 1:
            pending.append((ref, kind if kind == "partial" else "none"))  # a one-word gold is never paraphrased
    unsure = next((u for u in undecided if u[0] == "unsure"), None)
    if unsure is not None and not pending:
        return unsure, [], []
    return ("", "", ""), ([] if blocked else pending), undecided


_NEGATIVE = re.compile(r"(?:^|\s)[-−–]\s?\d|\b(?:minus|negative|below zero|under zero)\b", re.I)
"""a gold below zero ("-5 °C", "minus five degrees"): its sign is part of the value"""
_SIGNED = re.compile(r"(?:^|\s)[-−–]\s?\d|\b(?:minus|negative|below|under|sub-?zero|freezing)\b", re.I)
"""a reply that says a value is below zero"""


def _verdict(kind: str, rule: str, why: str) -> JudgeVerdict:
    verdict = {"correct": Verdict.correct, "unsure": Verdict.unsure}.get(kind, Verdict.wrong)
    return JudgeVerdict(verdict, f"{rule}: {why}", rule=rule)


def answer_rules(inp: JudgeInput) -> tuple[JudgeVerdict | None, list[tuple[str, str]]]:
    """A verdict from rules alone, or the references left for the meaning check."""
    if not any(t not in (",", ".") for t in lex(inp.transcript)):
        return _verdict("wrong", "answer.empty", "empty transcript"), []
    (kind, rule, why), pending, undecided = judge_refs(inp)
    if kind:
        return _verdict(kind, rule, why), []
    if pending:
        return None, pending
    if not undecided:
        return _verdict("wrong", "answer.no-gold", "no gold answer given"), []
    best = min(undecided, key=lambda u: RANK.index(u[0]) if u[0] in RANK else len(RANK))
    return _verdict("wrong", best[1], "; ".join(w for _, _, w in undecided)), []
