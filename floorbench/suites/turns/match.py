"""Event-anchored matching of suite `turns`: one pure function, TurnBench's rules.

`match_task` takes what TurnBench's `score_task` takes — positive anchors,
negative spans, excluded intervals and each speaker's decision times — and
gives what it gives: tp/fn/fp/tn and the latency of every matched decision.
Nothing here reads files or clocks, so every rule has a unit test
(tests/test_turns_match.py) and the function can be checked against the
reference implementation (SesameAILabs/turnbench, turnbench/score.py).

The rules (docs/suites/turns.md "Scoring"):

- decisions inside an excluded interval of their speaker are dropped first
  (neither rewarded nor penalised);
- positives in time order each claim the earliest unclaimed decision in
  ``[t − early, min(t + deadline, next positive of the same speaker)]``
  (one-to-one: a decision satisfies one event at most; a burst is one detection);
- a negative span fires when an unclaimed decision outside every positive
  window lies in ``[start − early, end]`` — one false positive per span at most.

Where floorbench differs from the reference: times are integer ms, not float
seconds (so a boundary is exact, not subject to float rounding), and the
result also says which decision each positive claimed and which spans fired,
for the per-event-type tables; the counts are the same.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from floorbench.suites.turns.rules import TurnsRules

_RULES = TurnsRules()


@dataclass(frozen=True)
class Anchor:
    """A positive event at `t_ms` on `speaker`'s channel."""

    speaker: int
    t_ms: int


@dataclass(frozen=True)
class Span:
    """A negative span or an excluded interval on `speaker`'s channel (both ends inclusive)."""

    speaker: int
    start_ms: int
    end_ms: int


@dataclass
class TaskCounts:
    """One task's outcome; adds up over dialogues with `merge`."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    latencies_ms: list[int] = field(default_factory=list)
    """decision − event of every matched positive (signed: early decisions are negative)"""
    claimed: list[int | None] = field(default_factory=list)
    """per positive (in the order given): the decision it claimed, or None"""
    fired: list[bool] = field(default_factory=list)
    """per negative span (in the order given): did it count as a false positive"""

    @property
    def recall(self) -> float | None:
        n = self.tp + self.fn
        return self.tp / n if n else None

    @property
    def fp_rate(self) -> float | None:
        n = self.fp + self.tn
        return self.fp / n if n else None

    def latency_percentiles(self) -> dict[str, float | None]:
        """p10/p50/p90 of the matched latencies (linear interpolation, as numpy and TurnBench)."""
        if not self.latencies_ms:
            return {"p10": None, "p50": None, "p90": None}
        lat = np.asarray(self.latencies_ms, dtype=np.float64)
        return {f"p{p}": float(np.percentile(lat, p)) for p in (10, 50, 90)}

    def merge(self, other: TaskCounts) -> None:
        self.tp += other.tp
        self.fn += other.fn
        self.fp += other.fp
        self.tn += other.tn
        self.latencies_ms.extend(other.latencies_ms)


def scoreable(times: Sequence[int], excluded: Sequence[Span]) -> list[int]:
    """The decisions outside every excluded interval, sorted."""
    return sorted(t for t in times if not any(x.start_ms <= t <= x.end_ms for x in excluded))


class _Ledger:
    """One speaker's scoreable decisions, with one-to-one claiming."""

    def __init__(self, times: list[int]) -> None:
        self.times = times
        self.claimed: set[int] = set()
        self.windows: list[tuple[int, int]] = []

    def unclaimed_in(self, lo: int, hi: int) -> list[int]:
        i = bisect.bisect_left(self.times, lo)
        out = []
        while i < len(self.times) and self.times[i] <= hi:
            if i not in self.claimed:
                out.append(i)
            i += 1
        return out

    def claim_first(self, lo: int, hi: int) -> int | None:
        for i in self.unclaimed_in(lo, hi):
            self.claimed.add(i)
            return self.times[i]
        return None

    def fires_in(self, lo: int, hi: int) -> bool:
        return any(
            not any(a <= self.times[i] <= b for a, b in self.windows) for i in self.unclaimed_in(lo, hi)
        )


def match_task(
    positives: Sequence[Anchor],
    negatives: Sequence[Span],
    decisions: Mapping[int, Sequence[int]],
    excluded: Sequence[Span] = (),
    *,
    early_ms: int = _RULES.early_tolerance_ms,
    deadline_ms: int = _RULES.latency_deadline_ms,
) -> TaskCounts:
    """Score one task of one dialogue (see the module docstring for the rules)."""
    ledgers: dict[int, _Ledger] = {}

    def ledger(speaker: int) -> _Ledger:
        if speaker not in ledgers:
            mine = [x for x in excluded if x.speaker == speaker]
            ledgers[speaker] = _Ledger(scoreable(decisions.get(speaker, ()), mine))
        return ledgers[speaker]

    anchors: dict[int, list[int]] = {}
    for p in positives:
        anchors.setdefault(p.speaker, []).append(p.t_ms)
    for times in anchors.values():
        times.sort()

    def next_after(speaker: int, t: int) -> int | None:
        times = anchors[speaker]
        i = bisect.bisect_right(times, t)
        return times[i] if i < len(times) else None

    out = TaskCounts(claimed=[None] * len(positives))
    for k in sorted(range(len(positives)), key=lambda i: positives[i].t_ms):
        p = positives[k]
        lo = p.t_ms - early_ms
        hi = p.t_ms + deadline_ms
        nxt = next_after(p.speaker, p.t_ms)
        if nxt is not None:
            hi = min(hi, nxt)
        led = ledger(p.speaker)
        led.windows.append((lo, hi))
        got = led.claim_first(lo, hi)
        out.claimed[k] = got
        if got is None:
            out.fn += 1
        else:
            out.tp += 1
            out.latencies_ms.append(got - p.t_ms)
    for span in negatives:
        fired = ledger(span.speaker).fires_in(span.start_ms - early_ms, span.end_ms)
        out.fired.append(fired)
        if fired:
            out.fp += 1
        else:
            out.tn += 1
    return out
