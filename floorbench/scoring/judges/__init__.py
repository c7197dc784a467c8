"""Judges: one protocol for the offline default and any LLM endpoint.

Two tasks:
- ``answer``: does the transcript convey the gold answer? correct / wrong /
  unparsable (unparsable is counted as wrong by the metric);
- ``intrusion``: is the speech in a silence window a brief backchannel that
  does not take the floor, or a substantive intrusion? backchannel /
  intrusion / unparsable (no exemption).

A judge may also say ``unsure`` where its rules do not decide, with the reason:
the item is left out of the metric's rate (like an item the recording did not
cover) and counted beside it, so a number is never made of guesses; the
``offline+llm:<model>`` judge sends only those items to the LLM.

A judge has a `name`, a `prompt_version` (the version of its prompt files,
reply parser or rule set) and an `identity()` (everything else that changes a
verdict: an LLM judge's endpoint, the offline judge's sentence model) and
judges a batch of `JudgeInput`s, handing each verdict to a callback as it
arrives. `judge_cached` wraps any judge with a verdict cache keyed by a hash of
(judge, prompt version, identity, inputs) and writes each verdict to it as it
arrives, so a re-score or a judge-agreement run never pays twice, and an
endpoint that fails mid-batch loses none of the verdicts already received.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Protocol

from floorbench.errors import FloorbenchError
from floorbench.scoring.cache import JsonlCache, content_key


class Task(StrEnum):
    answer = "answer"
    """Does the transcript convey the gold answer?"""
    intrusion = "intrusion"
    """Brief backchannel, or a substantive intrusion?"""


class Verdict(StrEnum):
    correct = "correct"
    wrong = "wrong"
    backchannel = "backchannel"
    intrusion = "intrusion"
    unparsable = "unparsable"
    """the judge's reply could not be read; the metric counts it as a failure"""
    unsure = "unsure"
    """the judge's rules do not decide (a value it cannot read, a clause it cannot type, a meaning
    match too close to its threshold): the item is kept out of the rate, counted beside it, and
    `offline+llm` sends it alone to the LLM judge"""


VERDICTS = {
    Task.answer: (Verdict.correct, Verdict.wrong),
    Task.intrusion: (Verdict.backchannel, Verdict.intrusion),
}


@dataclass(frozen=True)
class JudgeInput:
    """What a judge sees of one item."""

    task: Task
    transcript: str
    gold: str | None = None
    aliases: tuple[str, ...] = ()
    context: str = ""
    """the human turn: the request (answer) or the turn spoken in the window (intrusion)"""


@dataclass
class JudgeVerdict:
    verdict: Verdict
    reason: str
    judge: str = ""
    """'<name>@<prompt_version>'"""
    cached: bool = False
    extra: dict[str, object] = field(default_factory=dict)
    rule: str = ""
    """the id of the rule that decided it (the offline judge's rules, e.g. 'window.assent-after-statement';
    an LLM judge's reply form): what `judge-agreement --labels` groups disagreements by"""


class JudgeError(FloorbenchError, RuntimeError):
    """A judge could not give verdicts at all (endpoint down, no key): one line, no verdicts invented."""


OnVerdict = Callable[[int, JudgeVerdict], None]
"""called with (index in the batch, verdict) as each verdict arrives"""


class Judge(Protocol):
    name: str
    prompt_version: str

    def identity(self) -> dict[str, object]:
        """What else changes a verdict (part of the cache key); no secrets in clear needed."""
        ...

    def judge(self, inputs: Sequence[JudgeInput], on_verdict: OnVerdict | None = None) -> list[JudgeVerdict]:
        """One verdict per input, in order; each also handed to `on_verdict` as it arrives."""
        ...


def judge_id(judge: Judge) -> str:
    return f"{judge.name}@{judge.prompt_version}"


def verdict_key(judge: Judge, inp: JudgeInput) -> str:
    """The cache key of one verdict: everything that can change it."""
    return content_key("judge", judge.name, judge.prompt_version, judge.identity(), asdict(inp))


def judge_cached(judge: Judge, inputs: Sequence[JudgeInput], cache: JsonlCache | None) -> list[JudgeVerdict]:
    """Verdicts for `inputs`, from the cache where present, the judge otherwise.

    Each fresh verdict is written to the cache the moment the judge hands it over,
    so when the judge fails part-way (`JudgeError`) the verdicts received so far are
    kept and a re-run asks only for the rest.
    """
    jid = judge_id(judge)
    keys = [verdict_key(judge, i) for i in inputs]
    out: list[JudgeVerdict | None] = [None] * len(inputs)
    todo: list[int] = []
    for n, k in enumerate(keys):
        hit = cache.get(k) if cache is not None else None
        if hit is not None:
            out[n] = JudgeVerdict(Verdict(hit["verdict"]), str(hit["reason"]), jid, cached=True,
                                  rule=str(hit.get("rule", "")))
        else:
            todo.append(n)
    if not todo:
        return [v for v in out if v is not None]

    def arrived(k: int, v: JudgeVerdict) -> None:
        n = todo[k]
        v.judge = jid
        out[n] = v
        if cache is not None:
            cache.put(keys[n], {"verdict": v.verdict.value, "reason": v.reason, "judge": jid, "rule": v.rule})

    try:
        fresh = judge.judge([inputs[n] for n in todo], on_verdict=arrived)
    except JudgeError as e:
        kept = sum(out[n] is not None for n in todo)
        if cache is None or not kept:
            raise
        raise JudgeError(f"{e} ({kept} of {len(todo)} new verdicts received before it are cached: "
                         "a re-run asks only for the rest)") from e
    for k, v in enumerate(fresh):
        if out[todo[k]] is None:  # a judge that returned its verdicts without handing them over
            arrived(k, v)
    return [v for v in out if v is not None]


def make_judge(spec: str, **options: object) -> Judge:
    """A judge by name: 'offline', 'llm' / 'llm:<model>' (an OpenAI-compatible endpoint), or
    'offline+llm:<model>' (the offline judge, and the LLM for the items it is unsure of)."""
    if spec.startswith("offline+"):
        from floorbench.scoring.judges.cascade import CascadeJudge

        return CascadeJudge(make_judge("offline"), make_judge(spec.split("+", 1)[1], **options))
    if spec == "offline":
        from floorbench.scoring.judges.offline import OfflineJudge

        return OfflineJudge()
    if spec == "llm" or spec.startswith("llm:"):
        from floorbench.scoring.judges.llm import LLMJudge

        model = spec.split(":", 1)[1] if ":" in spec else str(options.pop("model", "") or "")
        return LLMJudge(model=model, **options)  # type: ignore[arg-type]
    raise JudgeError(f"unknown judge '{spec}'; use 'offline', 'llm:<model>' or 'offline+llm:<model>'")
