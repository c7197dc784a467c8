"""The offline judge's answer rules: read the gold's kind, find it in the reply, check commitment.

A gold answer is one of four kinds, and each is found its own way:
- **yes/no** ("yes", "no"): the reply's first polarity word; a short "he did" is a
  yes; "not sure", "don't know", "hard to say" commit to nothing;
- **code** ("redkite7", "AB12"): the reply's words and numbers written together
  spell it ("red kite seven", "A B one two");
- **quantity** ("130 euros", "7:35", "an hour and a half", "11 guests"): a
  mention with the same value in any form and a compatible unit
  (`quantities.same_quantity`); for a time, the same half of the day when the
  reply says one;
- **entity** (a name, a place, a choice): every content word of the gold said
  close together (plural-stemmed, British = American spelling, fuzzy ≥ 0.85
  for 5+ letters, and by sound for capitalised names: "Kenzie" = "Kenji").
A mention found must be committed to (`commitment`): not negated, hedged,
listed beside another option, inside a concession, contradicted, or taken
back by a self-correction. A gold found only uncommitted makes the reply
wrong; a gold not found at all leaves the aliases, then the meaning check
(MiniLM) for names and places whose words are only partly there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from floorbench.scoring.judges import JudgeInput, JudgeVerdict, Verdict
from floorbench.scoring.judges.commitment import code_spans as _code_spans
from floorbench.scoring.judges.commitment import (
    concessions,
    content,
    contradicted,
    correction_start,
    entity_spans,
    hedged,
    inside,
    listed,
    negated,
    question_options,
)
from floorbench.scoring.judges.normalize import NO, YES, content_tokens, normalize_tokens, polarity
from floorbench.scoring.judges.quantities import (
    Mention,
    Quantity,
    gold_quantity,
    lex,
    mentions,
    same_quantity,
)

NO_COMMITMENT = ("not sure", "dont know", "do not know", "no idea", "hard to say", "cant say", "cannot say")
AUXILIARY = frozenset(("did", "does", "do", "is", "was", "can", "will", "has", "have", "are"))
Outcome = tuple[str, str]
"""('correct' | 'wrong' | 'absent' | 'partial', why)"""
_CODE = re.compile(r"(?=.*[a-z])(?=.*\d)[a-z0-9]+", re.I)


def _names(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in re.findall(r"\b[A-Z][a-z]+", text))


def _yes_no(want: str, transcript: str) -> Outcome:
    flat = " ".join(normalize_tokens(transcript))
    if any(p in flat for p in NO_COMMITMENT):
        return "wrong", f"does not commit to {want}"
    said = normalize_tokens(transcript)
    got = polarity(said)
    first = normalize_tokens(re.split(r"[,.;!?]", transcript)[0])
    if got is None and len(first) <= 3 and set(first) & AUXILIARY:
        got = "yes"
    if got == want:
        return "correct", f"answers {want}"
    return "wrong", f"expected {want}, heard {got or 'no yes/no'}"


def _digit_text(tokens: list[str]) -> Callable[[int], tuple[str, int] | None]:
    """A reader of the number said at a token, as its digits ("four oh seven one" -> "4071")."""

    def read(i: int) -> tuple[str, int] | None:
        found = mentions(tokens[i:i + 6])
        if found and found[0].start == 0 and found[0].digits:
            return found[0].digits, i + found[0].end
        return None

    return read


def _commit_reason(tokens: list[str], span: tuple[int, int], start: int, conc: list[tuple[int, int]],
                   later: list[int] | None = None) -> str | None:
    """Why a mention does not commit (None when it does); `later`: starts of other answers."""
    if span[0] < start:
        return "taken back by a self-correction"
    if inside(span, conc):
        return "only in a concession"
    if negated(tokens, span):
        return "negated"
    if hedged(tokens, span, [k for k in (later or []) if k >= span[1]]):
        return "hedged between alternatives"
    return None


def _code(code: str, tokens: list[str]) -> Outcome:
    spans = _code_spans(code, tokens, _digit_text(tokens))
    if not spans:
        return "absent", f"code {code} not spelled"
    start = correction_start(tokens, lambda rest: bool(content(rest)))
    conc = concessions(tokens)
    why = [_commit_reason(tokens, s, start, conc) for s in spans]
    if any(w is None for w in why):
        return "correct", f"spells {code}"
    return "wrong", f"code {code} said but {why[0]}"


def _quantity(q: Quantity, tokens: list[str]) -> Outcome:
    found = mentions(tokens)
    hits: list[Mention] = [m for m in found if same_quantity(q, m)]
    if not hits:
        said = ", ".join(" ".join(tokens[m.start:m.end]) for m in found[:4]) or "none"
        return "absent", f"quantity not said (heard: {said})"
    start = correction_start(tokens, lambda rest: bool(mentions(list(rest))))
    conc = concessions(tokens)
    others = [m.start for m in found if not same_quantity(q, m)]
    why = [_commit_reason(tokens, (m.start, m.end), start, conc, others) for m in hits]
    if any(w is None for w in why):
        return "correct", f"says '{' '.join(tokens[hits[0].start:hits[0].end])}'"
    return "wrong", f"says the gold quantity but {why[0]}"


def _entity(ref: str, tokens: list[str], inp: JudgeInput) -> Outcome:
    gold = lex(ref)
    spans = entity_spans(gold, tokens, _names(inp.transcript))
    if not spans:
        words = content(gold)
        present = [w for w in words if entity_spans([w], tokens, _names(inp.transcript))]
        return ("partial" if 2 * len(present) >= len(words) else "absent"), f"'{ref}' words missing"
    start = correction_start(tokens, lambda rest: bool(content(rest)))
    conc = concessions(tokens)
    why = [_commit_reason(tokens, s, start, conc) or ("listed with another answer" if listed(tokens, s) else None)
           for s in spans]
    committed = [s for s, w in zip(spans, why, strict=True) if w is None]
    if not committed:
        return "wrong", f"'{ref}' said but {why[0]}"
    if any(contradicted(tokens, s) for s in committed):
        return "wrong", f"'{ref}' said, then a concession says another fits better"
    gold_words = content(gold)
    for option in question_options(lex(inp.context)):
        if content(option) == gold_words:
            continue
        for s in entity_spans(option, tokens):
            if s[0] >= start and not inside(s, conc) and not negated(tokens, s):
                return "wrong", f"'{ref}' said beside another option ('{' '.join(option)}')"
    return "correct", f"'{ref}' said and committed to"


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
    words = [i for i, t in enumerate(toks) if t not in ("the", "a", "an", "about", "at", "its", "it", "s")]
    found = mentions(toks)
    return bool(words and found and found[0].start <= words[0] < found[0].end)


def judge_refs(inp: JudgeInput) -> tuple[Outcome, list[tuple[str, str]], list[str]]:
    """(decisive outcome or ('', ''), references left for the meaning check with their threshold
    name, reasons for the refs that were absent)."""
    tokens = lex(inp.transcript)
    refs = [r for r in (inp.gold or "", *inp.aliases) if r.strip()]
    pending: list[tuple[str, str]] = []
    reasons: list[str] = []
    q = _gold_quantity(refs) if refs else None
    for n, ref in enumerate(refs):
        words = content_tokens(normalize_tokens(ref))
        if words and set(words) <= (YES | NO):
            return _yes_no("yes" if set(words) & YES else "no", inp.transcript), [], []
        entity = False
        if _CODE.fullmatch(ref.strip()):
            outcome = _code(ref.strip(), tokens)
        elif q is not None and (n == 0 or gold_quantity(ref) is not None):
            if n > 0:
                continue
            outcome = _quantity(q, tokens)
        elif (rq := gold_quantity(ref)) is not None and _starts_with_quantity(ref):
            outcome = _quantity(rq, tokens)
        else:
            outcome, entity = _entity(ref, tokens, inp), True
        if outcome[0] in ("correct", "wrong"):
            return (outcome[0], f"'{ref}': {outcome[1]}"), [], []
        reasons.append(f"'{ref}': {outcome[1]}")
        if entity and content(lex(ref)):
            pending.append((ref, outcome[0] if outcome[0] == "partial" else "none"))
    return ("", ""), pending, reasons


def answer_rules(inp: JudgeInput) -> tuple[JudgeVerdict | None, list[tuple[str, str]]]:
    """A verdict from rules alone, or the references left for the meaning check."""
    if not any(t not in (",", ".") for t in lex(inp.transcript)):
        return JudgeVerdict(Verdict.wrong, "empty transcript"), []
    (kind, why), pending, reasons = judge_refs(inp)
    if kind:
        return JudgeVerdict(Verdict.correct if kind == "correct" else Verdict.wrong, why), []
    if pending:
        return None, pending
    return JudgeVerdict(Verdict.wrong, "; ".join(reasons) or "no gold answer given"), []
