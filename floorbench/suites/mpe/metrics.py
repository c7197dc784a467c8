"""Items → the numbers of scores.json: per condition, per metric, with intervals.

A metric is ``passes / counted`` over its items in one condition. Intervals
come from one shared scenario bootstrap per condition (`stats`). Besides the
six metrics: the presence split (fresh onset / already speaking / late
onset; presence is exactly the first two), rates by
request position (quintile of the T's turn index), silence keeping from VAD
duration alone at several thresholds, and the paired McNemar of response
presence between the explicit and implicit version of each scenario pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from floorbench.scoring import stats
from floorbench.suites.mpe.items import Item, Kind, Metric

YIELD_MIN_N = 20
SENSITIVITY_MS = (0, 100, 200, 300, 500)


class MetricScore(BaseModel):
    """One number with its denominator and 95% scenario-bootstrap interval."""

    value: float | None = Field(description="passes / n; None when n = 0")
    n: int = Field(description="items in the denominator")
    passed: int = Field(description="items that passed")
    ci_low: float | None = None
    ci_high: float | None = None
    reportable: bool | None = Field(default=None, description="yield only: n >= 20")
    unscorable: int = Field(
        default=0, description="items the recording did not cover: in no denominator, neither pass nor fail"
    )
    unsure: int = Field(
        default=0, description="items the judge was unsure of (its rules do not decide): in no denominator"
    )


class ConditionScores(BaseModel):
    n_scenarios: int
    metrics: dict[str, MetricScore]
    presence_split: dict[str, MetricScore] = Field(
        description="over all scorable T: fresh onset, already speaking at the request end, late onset; "
        "presence = fresh onset + already speaking"
    )
    position: dict[str, dict[str, MetricScore]] = Field(
        description="quintile 'q1'..'q5' of the T's turn index → fresh onset, presence, accuracy"
    )
    silence_sensitivity: dict[str, MetricScore] = Field(
        description="threshold ms → share of N1-3 windows with at most that much VAD speech"
    )


class McNemar(BaseModel):
    """Paired exact McNemar on response presence, explicit vs implicit, per scenario pair."""

    n_pairs: int
    explicit_only: int = Field(description="pairs where only the explicit version had presence")
    implicit_only: int = Field(description="pairs where only the implicit version had presence")
    both: int
    neither: int
    p: float


def _score(k: int, n: int, rep: np.ndarray | None) -> MetricScore:
    lo, hi = stats.percentile_interval(rep) if rep is not None else (None, None)
    return MetricScore(value=(k / n) if n else None, n=n, passed=k, ci_low=lo, ci_high=hi)


class _Table:
    """Per-scenario (passes, counted) columns for named series, bootstrapped together."""

    def __init__(self, scenarios: Sequence[str]) -> None:
        self.index = {s: i for i, s in enumerate(scenarios)}
        self.k: dict[str, np.ndarray] = {}
        self.n: dict[str, np.ndarray] = {}

    def add(self, series: str, scenario: str, passed: bool) -> None:
        if series not in self.k:
            self.k[series] = np.zeros(len(self.index))
            self.n[series] = np.zeros(len(self.index))
        i = self.index[scenario]
        self.n[series][i] += 1
        self.k[series][i] += bool(passed)

    def scores(self, resamples: int, seed: int) -> dict[str, MetricScore]:
        names = list(self.k)
        if not names:
            return {}
        k = np.stack([self.k[s] for s in names])
        n = np.stack([self.n[s] for s in names])
        reps = stats.bootstrap_ratios(k, n, resamples, seed) if resamples > 0 else None
        return {
            s: _score(int(k[j].sum()), int(n[j].sum()), reps[j] if reps is not None else None)
            for j, s in enumerate(names)
        }


def condition_scores(
    items: Sequence[Item], scenarios: Sequence[str], resamples: int = stats.RESAMPLES, seed: int = 0
) -> ConditionScores:
    """All numbers of one condition from its items; `scenarios` lists every scored scenario."""
    t = _Table(scenarios)
    unscorable: dict[str, int] = defaultdict(int)
    unsure: dict[str, int] = defaultdict(int)
    for it in items:
        if it.kind is Kind.unsure:
            unsure[it.metric.value] += 1
        if it.counted:
            t.add(it.metric.value, it.scenario_id, bool(it.passed))
        if it.kind is Kind.unscorable:
            unscorable[it.metric.value] += 1
        if it.metric is Metric.fresh_onset_rate and it.counted:
            t.add("split:fresh_onset", it.scenario_id, it.kind is Kind.fresh_onset)
            t.add("split:already_speaking", it.scenario_id, it.kind is Kind.already_speaking)
            t.add("split:late_onset", it.scenario_id, it.kind is Kind.late_onset)
        if it.metric in (Metric.fresh_onset_rate, Metric.response_presence, Metric.conditional_accuracy):
            q = it.position_quintile
            if q is not None and it.counted:
                t.add(f"pos:q{q}:{it.metric.value}", it.scenario_id, bool(it.passed))
        if it.metric is Metric.silence_keeping and (it.counted or it.kind is Kind.unsure):
            for th in SENSITIVITY_MS:  # from VAD alone: a window the judge was unsure of has its duration
                t.add(f"sens:{th}", it.scenario_id, it.speech_ms <= th)
    all_scores = t.scores(resamples, seed)
    empty = MetricScore(value=None, n=0, passed=0)
    metrics = {
        m.value: all_scores.get(m.value, empty).model_copy(update={"unscorable": unscorable[m.value],
                                                                 "unsure": unsure[m.value]})
        for m in Metric
    }
    y = metrics[Metric.yield_rate.value]
    y.reportable = y.n >= YIELD_MIN_N
    position: dict[str, dict[str, MetricScore]] = {}
    for q in range(1, 6):
        row = {
            m.value: all_scores[f"pos:q{q}:{m.value}"]
            for m in (Metric.fresh_onset_rate, Metric.response_presence, Metric.conditional_accuracy)
            if f"pos:q{q}:{m.value}" in all_scores
        }
        if row:
            position[f"q{q}"] = row
    return ConditionScores(
        n_scenarios=len(scenarios),
        metrics=metrics,
        presence_split={
            s: all_scores[f"split:{s}"]
            for s in ("fresh_onset", "already_speaking", "late_onset")
            if f"split:{s}" in all_scores
        },
        position=position,
        silence_sensitivity={str(th): all_scores.get(f"sens:{th}", empty) for th in SENSITIVITY_MS},
    )


def by_condition(
    items: Iterable[Item], scenario_conditions: dict[str, str], resamples: int = stats.RESAMPLES, seed: int = 0
) -> dict[str, ConditionScores]:
    """`scenario_conditions`: every scored scenario → its condition (scenarios without items count too)."""
    grouped: dict[str, list[Item]] = defaultdict(list)
    for it in items:
        grouped[it.condition].append(it)
    scen: dict[str, list[str]] = defaultdict(list)
    for s, c in sorted(scenario_conditions.items()):
        scen[c].append(s)
    return {c: condition_scores(grouped.get(c, []), scen[c], resamples, seed) for c in sorted(scen)}


def presence_mcnemar(items: Iterable[Item], a: str = "explicit", b: str = "implicit") -> McNemar | None:
    """Exact McNemar on response presence between conditions `a` and `b`, paired by pair_id.

    With several T in one scenario, the first T stands for the scenario.
    """
    first: dict[tuple[str, str], bool] = {}
    for it in sorted(
        (i for i in items if i.metric is Metric.response_presence), key=lambda i: (i.pair_id, i.turn_id)
    ):
        first.setdefault((it.pair_id, it.condition), bool(it.passed))
    pairs = sorted({p for p, c in first if c == a} & {p for p, c in first if c == b})
    if not pairs:
        return None
    xa = [first[(p, a)] for p in pairs]
    xb = [first[(p, b)] for p in pairs]
    only_a = sum(1 for u, v in zip(xa, xb, strict=True) if u and not v)
    only_b = sum(1 for u, v in zip(xa, xb, strict=True) if v and not u)
    both = sum(1 for u, v in zip(xa, xb, strict=True) if u and v)
    return McNemar(
        n_pairs=len(pairs),
        explicit_only=only_a,
        implicit_only=only_b,
        both=both,
        neither=len(pairs) - only_a - only_b - both,
        p=stats.mcnemar_exact(only_a, only_b),
    )


class PairedAccuracy(BaseModel):
    """Conditional accuracy of two runs on the requests where both spoke (exact McNemar)."""

    condition: str
    n_both_spoke: int
    accuracy_a: float | None
    accuracy_b: float | None
    a_only_correct: int
    b_only_correct: int
    p: float


def paired_accuracy(items_a: Iterable[Item], items_b: Iterable[Item]) -> list[PairedAccuracy]:
    """Per condition, requests matched by (scenario, turn) where both runs had presence."""

    def table(items: Iterable[Item]) -> dict[tuple[str, str, int], bool]:
        return {
            (i.condition, i.scenario_id, i.turn_id): bool(i.passed)
            for i in items
            if i.metric is Metric.conditional_accuracy and i.counted
        }

    ta, tb = table(items_a), table(items_b)
    out: list[PairedAccuracy] = []
    for cond in sorted({k[0] for k in ta} | {k[0] for k in tb}):
        keys = sorted(k for k in ta if k in tb and k[0] == cond)
        a = [ta[k] for k in keys]
        b = [tb[k] for k in keys]
        only_a = sum(1 for u, v in zip(a, b, strict=True) if u and not v)
        only_b = sum(1 for u, v in zip(a, b, strict=True) if v and not u)
        out.append(
            PairedAccuracy(
                condition=cond,
                n_both_spoke=len(keys),
                accuracy_a=(sum(a) / len(a)) if a else None,
                accuracy_b=(sum(b) / len(b)) if b else None,
                a_only_correct=only_a,
                b_only_correct=only_b,
                p=stats.mcnemar_exact(only_a, only_b),
            )
        )
    return out
