"""Answer rules for typed values: spellings, names with a number, a date's day, and commitment.

Split from `answer_rules` (which calls them): a one-word gold spelled letter by
letter must be exactly its letters; a name with a number or code in it ("room
210", "seat 12B") must have that number said exactly, never by meaning; a date
gold answered by its day alone ("the sixteenth") is that day when no month is
said. A modifier of the gold said as another word in its place is another thing
(`substituted`); a value bound to its own qualifier beside a parallel one is a breakdown, not
the total asked for (`breakdown`); a yes narrowed by "only" beyond the gold's detail contradicts
it (`narrowed_to`). `commit_reason` is the one check of whether a mention is committed to
(not taken back, conceded, negated, hedged or withdrawn), shared by every kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher

from floorbench.scoring.judges.commitment import (
    Span,
    code_spans,
    concessions,
    content,
    correction_start,
    head_group,
    hedged,
    inside,
    negated,
    second_guess,
    withdrawn,
    word_matches,
)
from floorbench.scoring.judges.normalize import content_tokens, normalize_tokens, stem
from floorbench.scoring.judges.quantities import UNIT_OF, Mention, lex, mentions
from floorbench.scoring.judges.quantity_match import Quantity
from floorbench.scoring.judges.values import MONTHS, ordinal_words, read_day, spelled_tokens, spelled_word

Outcome = tuple[str, str, str]
"""(kind, rule id, why), as `answer_rules` reads it"""


def digit_text(tokens: list[str]) -> Callable[[int], tuple[str, int] | None]:
    """A reader of the number said at a token, as its digits ("four oh seven one" -> "4071")."""

    def read(i: int) -> tuple[str, int] | None:
        found = mentions(tokens[i:i + 6])
        if found and found[0].start == 0 and found[0].digits:
            end = found[0].end
            while end > 1 and len(tokens[i + end - 1]) == 1 and tokens[i + end - 1].isalpha():
                end -= 1  # "two m" in a spelled code is 2 then the letter m, not two metres
            return found[0].digits, i + end
        return None

    return read


def commit_reason(tokens: list[str], span: Span, start: int, conc: list[Span],
                   later: list[Span] | None = None) -> tuple[str, str] | None:
    """(rule, why) a mention does not commit, or None when it does; `later`: other answers."""
    if span[0] < start:
        return "answer.correction", "taken back by a self-correction"
    if inside(span, conc):
        return "answer.concession", "only in a conceded clause (the contrast commits to the other side)"
    if negated(tokens, span):
        return "answer.negated", "negated"
    others = later or []
    if hedged(tokens, span, [a for a, _ in others if a >= span[1]]) or second_guess(tokens, span, others):
        return "answer.hedged", "hedged between alternatives"
    if withdrawn(tokens, span):
        return "answer.withdrawn", "taken back by a later 'not sure'"
    return None


def day_alone(q: Quantity, tokens: list[str]) -> Outcome | None:
    """A date gold answered by its day alone ("the sixteenth" for June 16) when the reply names no
    month: the same day is the answer, another day is not."""
    if q.kind != "date" or any(t in MONTHS and MONTHS[t] != int(q.value) // 100 for t in tokens):
        return None
    tokens = tokens[correction_start(tokens, lambda rest: any(read_day(rest, i) for i in range(len(rest)))):]
    days = [d for i, t in enumerate(tokens) if t == "the" and (d := read_day(tokens, i + 1)) is not None
            and tuple(tokens[i + 1 : d[1]]) in ordinal_words()]
    if not days:
        return None
    want = int(q.value) % 100
    if any(d == want for d, _ in days):
        return "correct", "answer.day", f"says the day ({want}) and no other month"
    return "wrong", "answer.day-other", f"says the {days[0][0]}, not the {want}"


def spelled_answer(ref: str, tokens: list[str]) -> Outcome | None:
    """A one-word gold the reply spells letter by letter: the letters must be exactly the gold's."""
    word = re.sub(r"[^a-z]", "", ref.lower())
    said = spelled_word(tokens)
    if not word or " " in ref.strip() or said is None:
        return None
    if said == word:
        return "correct", "answer.spelled", f"spells '{ref}' letter by letter"
    return "wrong", "answer.spelled-other", f"spells '{said}', not '{ref}'"


def numbered_answer(ref: str, reply_tokens: list[str]) -> Outcome | None:
    """A name with a number or code in it ("platform 4", "room 210", "seat 12B"): the number (with the
    letters beside it) must be said exactly, in any form; a near one ("fourteen" for 4, "two oh one"
    for 210) is another answer, never a meaning match. None when the gold has no number."""
    toks = [t for t in lex(ref) if t not in (",", ".")]
    digits = [i for i, t in enumerate(toks) if t.isdigit()]
    if not digits:
        return None
    lo, hi = digits[0], digits[-1] + 1
    while lo > 0 and len(toks[lo - 1]) == 1 and toks[lo - 1].isalpha():
        lo -= 1
    while hi < len(toks) and len(toks[hi]) == 1 and toks[hi].isalpha():
        hi += 1
    code = "".join(toks[lo:hi])
    tokens = spelled_tokens(reply_tokens)
    spans = code_spans(code, tokens, digit_text(tokens))
    if not spans:
        if mentions(tokens):
            said = " ".join(tokens[mentions(tokens)[0].start : mentions(tokens)[0].end])
            return "wrong", "answer.value-other", f"'{ref}': says '{said}', not {code}"
        return "wrong", "answer.value-missing", f"'{ref}': its number {code} is not said"
    start = correction_start(tokens, lambda rest: bool(mentions(list(rest))))
    conc = concessions(tokens, lambda a, b: any(a <= sp[0] < b for sp in spans) or bool(mentions(tokens[a:b])))
    others = [(m.start, m.end) for m in mentions(tokens) if not any(m.start <= sp[0] < m.end for sp in spans)]
    why = [commit_reason(tokens, sp, start, conc, others) for sp in spans]
    if any(w is None for w in why):
        return "correct", "answer.numbered", f"'{ref}': says {code}"
    rule, reason = next(w for w in why if w is not None)
    return "wrong", rule, f"'{ref}': {code} said but {reason}"


def substituted(ref: str, transcript: str) -> Outcome | None:
    """A modifier of the gold said as another word in its place, the words around it kept ("under the red
    flowerpot" for the blue one, "Carter Street" for Carver Street): another thing, so wrong; a word
    close in spelling may be the recogniser's mishearing of the gold's, so unsure. The gold's last
    word (its head) is left out: another head of the same kind is a paraphrase ("the noodle spot")."""
    gold = [t for t in lex(ref) if t not in (",", ".")]
    said = [t for t in lex(transcript) if t not in (",", ".")]
    for k in range(1, len(gold) - 1):
        word = gold[k]
        if not content([word]) or word in said or any(word_matches(word, t) or _variant(word, t) for t in said) \
                or numeric(word):
            continue
        for i in range(1, len(said) - 1):
            if said[i - 1] == gold[k - 1] and said[i + 1] == gold[k + 1] and said[i] != word and content([said[i]]) \
                    and not (head_group(word) is not None and head_group(word) == head_group(said[i])) \
                    and not numeric(said[i]):
                close = SequenceMatcher(None, word, said[i]).ratio()
                if close >= NEAR_WORD:
                    return ("unsure", "answer.near-word", f"'{ref}': says '{said[i]}' where the gold has '{word}': "
                            f"close in spelling ({close:.2f}), a mishearing or another thing")
                return "wrong", "answer.substituted", f"'{ref}': says '{said[i]}' where the gold has '{word}'"
    return None


def _variant(a: str, b: str) -> bool:
    """Two spellings of one word: the same consonants in the same order, doubled letters said once
    ("grey"/"gray", "colour"/"color", "Masson"/"Mason")."""
    def skeleton(w: str) -> str:
        return re.sub(r"(.)\1+", r"\1", re.sub(r"[aeiouy]", "", w))
    return len(a) >= 4 and len(b) >= 4 and skeleton(a) == skeleton(b)


def numeric(word: str) -> bool:
    """A number in any form ("5", "fifth", "five"): the quantity rules compare those, not spelling."""
    return any(c.isdigit() for c in word) or bool(mentions([word])) or (word,) in ordinal_words()


NEAR_WORD = 0.7
"""two words this alike in spelling may be one misheard (SequenceMatcher ratio)"""


QUALIFIERS = frozenset(("on", "for", "in", "at", "by", "from"))


def breakdown(gold: Mention, others: list[Mention], tokens: list[str], question: list[str]) -> str | None:
    """Why the gold value is one of a breakdown, not the answer ("312 on Friday and 280 on Saturday" for
    312 in all): another value follows it, each bound by the same preposition to its own qualifier that
    the question does not name; None otherwise."""

    def qualifier(m: Mention) -> tuple[str, str] | None:
        after = [t for t in tokens[m.end : m.end + 3] if t not in (",", ".")]
        after = [t for t in after if t not in UNIT_OF][:2]
        return (after[0], after[1]) if len(after) == 2 and after[0] in QUALIFIERS else None

    own = qualifier(gold)
    if own is None or own[1] in question:
        return None
    for m in others:
        theirs = qualifier(m)
        if theirs is not None and theirs[0] == own[0] and theirs[1] != own[1]:
            return f"of '{' '.join(own)}' beside '{' '.join(tokens[m.start:m.end])} {' '.join(theirs)}': a breakdown, " \
                "not the value asked for"
    return None


LIMITERS = frozenset(("only", "except", "unless", "excluding"))


def narrowed_to(detail: list[str], transcript: str) -> str:
    """The restriction ("only", "except", "unless") a yes/no reply puts on its answer ("yes, but only in
    the afternoon") when none of
    its content words is in the gold's detail (a restriction the gold has is the gold: "yes, only in
    the mornings" for "yes, Saturday mornings"); "" when there is none or the gold has no detail."""
    said = normalize_tokens(transcript)
    at = next((i for i, t in enumerate(said) if t in LIMITERS), None)
    if at is None or not content_tokens(detail):
        return ""
    rest = [t for t in content_tokens(said[at:]) if t not in LIMITERS]
    have = {stem(t) for t in detail}
    if not rest or any(stem(t) in have for t in rest):
        return ""
    return " ".join(said[at:])


def one_as_head(transcript: str, gold: str, question: str) -> str:
    """The reply with "one" after a modifier read as the gold's head noun when the question names that
    noun ("Which tent is bigger?" -- "the blue one" is the blue tent); unchanged otherwise."""
    words = content(lex(gold))
    if len(words) < 2 or words[-1] not in lex(question) or numeric(words[-1]):
        return transcript
    head = words[-1]

    def swap(m: re.Match[str]) -> str:
        before = m.group(1)
        if before.lower() in ("the", "this", "that", "which", "each", "every", "no", "any", "another", "a"):
            return m.group(0)
        return f"{before} {head}{m.group(2) or ''}"

    return re.sub(r"\b([A-Za-z]+) one('s)?\b", swap, transcript)
