"""Yes/no answers: the polarity a reply commits to, read as a grader reads it.

Split from `answer_rules`. The first polarity word answers, after the last self-correction; an
elliptical "it does" answers yes; in "yeah nah" / "nah yeah" (Australian and New Zealand English)
the second word answers; a yes that carves out the very thing asked about ("they deliver, just not
on Sundays" asked whether they deliver on Sundays) answers no; a gold that opens with yes or no
and adds detail is answered by the polarity (the detail need not be repeated) unless the reply
narrows it beyond that detail.
"""

from __future__ import annotations

import re

from floorbench.scoring.judges.commitment import STOP, correction_start
from floorbench.scoring.judges.normalize import NO, YES, content_tokens, normalize_tokens, polarity, stem
from floorbench.scoring.judges.predicates import stated_answer
from floorbench.scoring.judges.quantities import lex
from floorbench.scoring.judges.turn_grammar import ADDRESS_TERMS
from floorbench.scoring.judges.typed_rules import Outcome, narrowed_to

NO_COMMITMENT = ("not sure", "like to say", "rather not say", "dont know", "do not know", "no idea", "hard to say", "cant say", "cannot say",
                 "couldnt say", "could not say", "not certain", "cant be sure", "couldnt be sure", "cannot be sure",
                 "couldnt tell you", "wouldnt know", "cant tell you", "not be certain")
"""disclaimers of knowledge: a reply that makes one commits to neither answer"""
AUXILIARY = frozenset(("did", "does", "do", "is", "was", "can", "will", "has", "have", "are"))
EXCEPTING = frozenset(("not", "except", "apart"))


def excepted(said: list[str], question: list[str]) -> str:
    """The word of the question a yes carves out ("they deliver, just not on Sundays" asked about
    Sundays), or ''."""
    asked = {stem(w) for w in content_tokens(question)}
    for i, t in enumerate(said):
        if t in EXCEPTING and i > 0:
            for w in said[i + 1 : i + 4]:
                if w not in STOP and stem(w) in asked and w not in said[:i]:
                    return w
    return ""


NOT_A_NOUN_AFTER_NO = frozenset(
    "i im ive id you youre we were they theyre he hes she shes it its that thats there theres this the a an "
    "is are was were do does did can cant will wont would should could has have had not no nope nah way more "
    "longer sir madam mam maam mate man thanks thank sorry wait actually really well but and because so then "
    "one never chance idea clue".split()
)
"""words after which "no" is still the answer ("no it isn't", "no way", "no more", "no chance", "no, sir";
terms of address too: "no ji", "no mate")"""
_DETERMINER_NO = re.compile(r"\bno\s+(?!-)([a-z]+)\b", re.I)


def determiner_no(transcript: str, question: str = "") -> str:
    """The reply without each "no" that is a determiner before a noun ("No stress, they're open", "no doubt
    it'll rain", "no problem"): such a "no" negates the noun, it does not answer the question; unless the
    noun is the question's own ("No pets, sorry" to "does the hotel allow pets?"): then it answers."""
    asked = {stem(w) for w in normalize_tokens(question)}

    def drop(m: re.Match[str]) -> str:
        word = m.group(1).lower()
        if stem(word) in asked or word in NOT_A_NOUN_AFTER_NO or word in ADDRESS_TERMS or word in YES or word in NO or word.endswith("ly"):
            return m.group(0)
        return word

    return _DETERMINER_NO.sub(drop, transcript)


_BELIEF = re.compile(r"\b(?:think|reckon|believe|guess|suppose|expect|hope|imagine|gather|afraid|say|should "
                     r"think|would think|hear|heard|told|fear)\s+(so|not)\b")
"""a verb of belief with "so" or "not" standing for the clause asked about: "I reckon so" says yes, "afraid
not" says no (a "don't think so" has its "no" already)"""
HOLD = (("wait",), ("hang", "on"), ("hold", "on"), ("scratch", "that"))
"""what takes a yes or no back the moment it is said ("No, wait, …"); an apology ("no, sorry, it's closed")
only softens it"""


def held_back(tokens: list[str]) -> str:
    """The words when the reply's first yes or no is held back at once ("No, wait, since last year you need
    one") and no yes or no is said after it; else ''."""
    words = [t for t in tokens if t not in (",", ".")]
    k = next((i for i, t in enumerate(words) if t in YES or t in NO), None)
    if k is None or k > 1:
        return ""
    rest = words[k + 1 :]
    hold = next((h for h in HOLD if tuple(rest[: len(h)]) == h), None)
    if hold is None or polarity(rest[len(hold) :]) is not None:
        return ""
    return " ".join(words[: k + 1 + len(hold)])


_ASKED_VERB = re.compile(r"\b(?:do|does|did|can|could|should|must|will|would|shall|is|are|was)\s+"
                         r"(?:i|we|you|they|he|she|it|there|the\s+[a-z]+)\s+([a-z]+)", re.I)


def asked_verb(question: str) -> str:
    """The verb a yes/no question asks about ("do I need a passport" → 'need'), or ''."""
    m = _ASKED_VERB.search(question)
    return m.group(1).lower() if m and m.group(1).lower() not in STOP else ""


def _polarity(tokens: list[str], verb: str) -> str | None:
    """The yes or no a part says: by its first yes/no word, else by the asked verb said again ("they've
    changed that, you'd need it now" answers "do I need …?" yes; "you wouldn't need it" no)."""
    got = polarity(normalize_tokens(" ".join(tokens)))
    return got if got is not None else _echo(tokens, verb)


def _echo(tokens: list[str], verb: str) -> str | None:
    """'yes' or 'no' by the asked verb said again, negated or not; None when it is not said."""
    if not verb:
        return None
    k = next((i for i, t in enumerate(tokens) if (stem(t) == stem(verb) or t == verb + "ed")
              and tokens[i - 1 : i] != ["to"]), None)  # "want me to lock it?" offers, it does not say
    if k is None:
        return None
    edge = max([0, *(i + 1 for i in range(k) if tokens[i] in (",", ".", ";"))])
    before = tokens[max(edge, k - 3) : k]
    return "no" if set(before) & NO or before[-1:] == ["no"] else "yes"


def _double_negative(tokens: list[str]) -> bool:
    """A negation whose object is 'without' ("I wouldn't go without it", "never travel without one"): it
    says the thing is needed."""
    k = next((i for i, t in enumerate(tokens) if t in NO), None)
    return k is not None and tokens[k] not in ("no", "nope", "nah") and "without" in tokens[k + 1 : k + 5]


MAYBE = frozenset(("maybe", "perhaps", "possibly", "baka", "labda", "shayad", "peut", "vielleicht", "quizas", "quiza"))
"""words that put a clause as a possibility; one opening two clauses ("maybe can, maybe cannot") leaves both open"""


def both_ways(transcript: str) -> str:
    """The reply when two of its clauses open on a word of possibility ("Maybe can, maybe cannot", "perhaps yes,
    perhaps no"): it offers both answers and commits to neither; else ''."""
    clauses = [normalize_tokens(c) for c in re.split(r"[,;.!?]", transcript)]
    opened = [c for c in clauses if c and c[0] in MAYBE]
    return transcript.strip() if len(opened) >= 2 else ""


ANSWER_WORDS = frozenset(("no", "nope", "nah", "nahi", "nahin", "negative"))
"""the no words that answer; the other negations ("not", "isn't", "cannot") are said inside a statement"""


def _statement_negation(said: list[str]) -> bool:
    """The reply's first polarity word is a negation inside a statement ("it is not open"), not an answer word."""
    first = next((t for t in said if t in YES or t in NO), None)
    return first is not None and first in NO and first not in ANSWER_WORDS


def yes_no(want: str, transcript: str, question: str = "") -> Outcome:
    flat = " ".join(normalize_tokens(transcript))
    if any(p in flat for p in NO_COMMITMENT):
        return "wrong", "answer.yes-no-uncommitted", f"does not commit to {want}"
    if (hedged := both_ways(transcript)):
        return "wrong", "answer.yes-no-uncommitted", f"'{hedged}': puts both answers as possibilities"
    spoken = lex(transcript)
    transcript = determiner_no(transcript, question)
    said = normalize_tokens(transcript)
    tokens = lex(transcript)
    verb = asked_verb(question)
    start = correction_start(tokens, lambda rest: _polarity(list(rest), verb) is not None)
    got = _polarity(tokens[start:], verb) if start else polarity(said)
    echoed = got is None and not start
    if echoed:
        got = _echo(spoken, verb)  # "No need at all" to "do I need …?", the "no" read before its noun
    stated = None
    if not start and (got is None or echoed or _statement_negation(said)) and (stated := stated_answer(question, transcript)):
        got = stated  # "it's not open on Monday" to "is it closed on Monday?": the statement's polarity
    if got == "no" and not start and _double_negative(tokens):
        got = "yes"  # "I wouldn't go without it"
    first = normalize_tokens(re.split(r"[,.;!?]", transcript)[0])
    if got is None and len(first) <= 3 and set(first) & AUXILIARY:
        got = "yes"
    if got is None and (belief := _BELIEF.search(" ".join(said))):
        got = "yes" if belief.group(1) == "so" else "no"  # "I reckon so", "afraid not"
    if not start and (held := held_back(tokens)):
        return "wrong", "answer.yes-no-withdrawn", f"'{held}' takes the yes or no back at once and no other " \
            "is said: it commits to neither"
    if not start and len(said) > 1 and said[0] in YES | ANSWER_WORDS and said[1] in YES | ANSWER_WORDS and (
            said[0] in YES) != (said[1] in YES):
        got = "yes" if said[1] in YES else "no"  # "yeah nah", "nah yeah": the second word answers
    if got == "yes" and not stated and (kept := excepted(said, normalize_tokens(question))):
        return ("correct" if want == "no" else "wrong"), "answer.yes-except", \
            f"a yes that excepts '{kept}', the very thing asked about: it answers no"
    rule = "answer.yes-no-stated" if stated else "answer.yes-no"
    if got == want:
        return "correct", rule, f"answers {want}" + (" (said as a statement)" if stated else "")
    if stated:
        return "wrong", rule, f"expected {want}, the statement says {got}"
    if echoed and got is not None:  # the asked verb alone is a weak reading: an alias may still say it in words
        return "wrong", "answer.yes-no", f"expected {want}, the asked verb says {got}, heard no yes/no"
    return "wrong", "answer.yes-no", f"expected {want}, heard {got or 'no yes/no'}"



def polarity_led(gold: str, transcript: str, question: str = "") -> Outcome | None:
    """A gold that opens with yes or no and adds detail ("no, cash only", "yes, until 8"): the
    reply's polarity answers it (the detail need not be repeated); None when the gold opens
    otherwise or the reply says no yes or no."""
    toks = normalize_tokens(gold)
    if len(toks) < 2 or toks[0] not in YES | NO or polarity(normalize_tokens(transcript)) is None:
        return None
    want = "yes" if toks[0] in YES else "no"
    kind, rule, why = yes_no(want, transcript, question)
    narrowed = narrowed_to(toks[1:], transcript)
    if kind == "correct" and narrowed:
        return "wrong", "answer.detail-contradicted", f"'{gold}': answers {want}, but narrows it to " \
            f"'{narrowed}', which the gold's detail does not say"
    return kind, rule, f"'{gold}' opens with {want}: {why}"


HEDGE_TAILS = (("one", "of", "those"), ("one", "of", "them"), ("one", "of", "the", "two"), ("something", "like", "that"),
               ("not", "sure", "which"), ("cant", "remember", "which"))
"""what closes a list of alternatives without choosing ("Nguyen or Nolan, one of those")"""


def hedge_tail(tokens: list[str]) -> str:
    """The words that leave "X or Y" unchosen, when the reply offers alternatives and ends on them; or ''."""
    words = [t for t in tokens if t not in (",", ".")]
    if "or" not in words:
        return ""
    for tail in HEDGE_TAILS:
        n = len(tail)
        if any(tuple(words[k : k + n]) == tail for k in range(max(0, len(words) - n - 2), len(words) - n + 1)):
            return " ".join(tail)
    return ""


_OPEN_ALTERNATIVE = re.compile(r"\bor\s+(?:was|is|were|did|does|will|would|has)\s+(?:it|they|that|he|she|there)\b"
                               r"(?P<alt>[^?.!]*)(?:\?|$)(?P<rest>.*)", re.I | re.S)
SETTLED = frozenset(("no", "yes", "actually", "definitely", "sure", "certain", "positive", "yeah", "right"))
"""what settles an alternative put as a question ("…, or was it three-one? No, two-one, definitely")"""


def open_alternative(transcript: str) -> str:
    """The alternative a reply puts as a question and leaves open ("Two-one, I think, or was it three-one?
    I dozed off"): it hedges between two answers; '' when none, or when the rest settles it."""
    m = _OPEN_ALTERNATIVE.search(transcript)
    if m is None or not m.group("alt").strip():
        return ""
    if SETTLED & set(lex(m.group("rest"))):
        return ""
    return m.group(0).split("?")[0].strip()
