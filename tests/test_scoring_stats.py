"""Statistics: scenario bootstrap, exact McNemar, Spearman, aggregation into scores."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, spearmanr

from floorbench.scoring import stats
from floorbench.suites.mpe.items import Item, Kind, Metric
from floorbench.suites.mpe.metrics import by_condition, paired_accuracy, presence_mcnemar


def item(sid: str, metric: Metric, passed: bool | None, counted: bool = True, cond: str = "explicit",
         pair: str | None = None, turn: int = 2, **kw: object) -> Item:
    return Item(
        scenario_id=sid, pair_id=pair or sid, condition=cond, metric=metric, turn_id=turn, label="T",
        counted=counted, passed=passed if counted else None, kind=Kind.correct, reason="test",
        window_start_ms=0, window_end_ms=1000, **kw,  # type: ignore[arg-type]
    )


def test_mcnemar_matches_the_binomial_test() -> None:
    for b, c in [(90, 78), (0, 5), (3, 3), (12, 1), (0, 0)]:
        expected = binomtest(min(b, c), b + c, 0.5).pvalue if b + c else 1.0
        assert stats.mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)
    assert stats.mcnemar_exact(90, 78) == pytest.approx(0.3961, abs=1e-4)  # Duplex-MPE's MiniCPM-o pair counts


def test_spearman_matches_scipy_with_ties() -> None:
    x, y = [0.9, 0.5, 0.5, 0.1, 0.7], [0.8, 0.6, 0.4, 0.2, 0.9]
    assert stats.spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)
    assert stats.spearman([1, 1], [2, 3]) is None
    assert stats.spearman([1], [1]) is None


def test_bootstrap_resamples_whole_scenarios() -> None:
    # scenario A has 9 passing windows, B one failing window: a window bootstrap would give a
    # tight interval around 0.9; whole-scenario draws give ratios {1.0, 0.9, 0.0} only
    k = np.array([[9, 0]])
    n = np.array([[9, 1]])
    reps = stats.bootstrap_ratios(k, n, resamples=4000, seed=1)[0]
    assert set(np.round(np.unique(reps), 6)) <= {0.0, 0.9, 1.0}
    lo, hi = stats.percentile_interval(reps)
    assert (lo, hi) == (0.0, 1.0)


def test_bootstrap_interval_is_reproducible_and_covers_the_mean() -> None:
    rng = np.random.default_rng(3)
    k = rng.integers(0, 2, size=(1, 400))
    n = np.ones((1, 400))
    a = stats.percentile_interval(stats.bootstrap_ratios(k, n, 10_000, seed=7)[0])
    b = stats.percentile_interval(stats.bootstrap_ratios(k, n, 10_000, seed=7)[0])
    assert a == b
    p = k.mean()
    se = np.sqrt(p * (1 - p) / 400)
    assert a[0] == pytest.approx(p - 1.96 * se, abs=0.01) and a[1] == pytest.approx(p + 1.96 * se, abs=0.01)


def test_condition_scores_per_metric_and_yield_reportability() -> None:
    items = []
    scen = {}
    for s in range(25):
        sid = f"s{s:02d}"
        scen[sid] = "explicit"
        items.append(item(sid, Metric.fresh_onset_rate, s % 5 != 0))
        items.append(item(sid, Metric.yield_rate, s % 2 == 0, counted=s < 20))
        items.append(item(sid, Metric.silence_keeping, True, speech_ms=0 if s < 10 else 150))
    scen["s99"] = "explicit"  # a scored scenario with no items still counts as a scenario
    c = by_condition(items, scen, resamples=500)["explicit"]
    assert c.n_scenarios == 26
    assert (c.metrics["fresh_onset_rate"].n, c.metrics["fresh_onset_rate"].passed) == (25, 20)
    y = c.metrics["yield_rate"]
    assert (y.n, y.reportable) == (20, True)
    assert c.metrics["conditional_accuracy"].n == 0 and c.metrics["conditional_accuracy"].value is None
    sens = c.silence_sensitivity
    assert sens["0"].value == pytest.approx(10 / 25) and sens["100"].value == pytest.approx(10 / 25)
    assert sens["200"].value == 1.0
    items19 = [i for i in items if not (i.metric is Metric.yield_rate and i.scenario_id == "s19")]
    assert by_condition(items19, scen, resamples=0)["explicit"].metrics["yield_rate"].reportable is False


def test_presence_mcnemar_pairs_explicit_and_implicit_by_pair_id() -> None:
    items = []
    pattern = [(True, False)] * 6 + [(False, True)] * 2 + [(True, True)] * 3 + [(False, False)]
    for n, (e, i) in enumerate(pattern):
        items.append(item(f"e{n}", Metric.response_presence, e, cond="explicit", pair=f"p{n}"))
        items.append(item(f"i{n}", Metric.response_presence, i, cond="implicit", pair=f"p{n}"))
    items.append(item("lonely", Metric.response_presence, True, cond="explicit", pair="p99"))
    m = presence_mcnemar(items)
    assert m is not None
    assert (m.n_pairs, m.explicit_only, m.implicit_only, m.both, m.neither) == (12, 6, 2, 3, 1)
    assert m.p == pytest.approx(binomtest(2, 8, 0.5).pvalue)


def test_paired_accuracy_only_on_requests_where_both_spoke() -> None:
    a = [item("s1", Metric.conditional_accuracy, True), item("s2", Metric.conditional_accuracy, True),
         item("s3", Metric.conditional_accuracy, False), item("s4", Metric.conditional_accuracy, True)]
    b = [item("s1", Metric.conditional_accuracy, False), item("s2", Metric.conditional_accuracy, True),
         item("s3", Metric.conditional_accuracy, False),
         item("s4", Metric.conditional_accuracy, None, counted=False)]
    (row,) = paired_accuracy(a, b)
    assert (row.n_both_spoke, row.a_only_correct, row.b_only_correct) == (3, 1, 0)
    assert row.accuracy_a == pytest.approx(2 / 3) and row.accuracy_b == pytest.approx(1 / 3)
    assert row.p == 1.0


def test_unscorable_items_are_counted_apart_and_kept_out_of_every_denominator() -> None:
    from floorbench.suites.mpe.items import Item, Kind, Metric
    from floorbench.suites.mpe.metrics import condition_scores

    def item(metric: Metric, turn: int, kind: Kind, counted: bool, passed: bool | None) -> Item:
        return Item(scenario_id="s1", pair_id="p1", condition="explicit", metric=metric, turn_id=turn,
                    label="T", counted=counted, passed=passed, kind=kind, reason="", window_start_ms=0,
                    window_end_ms=1, turn_index=0, n_turns=2)

    items = [
        item(Metric.fresh_onset_rate, 1, Kind.already_speaking, True, False),
        item(Metric.response_presence, 1, Kind.continued, True, True),
        item(Metric.fresh_onset_rate, 2, Kind.unscorable, False, None),
        item(Metric.response_presence, 2, Kind.unscorable, False, None),
        item(Metric.silence_keeping, 3, Kind.unscorable, False, None),
    ]
    c = condition_scores(items, ["s1"], resamples=0)
    fresh, presence, sk = (c.metrics[m.value] for m in (Metric.fresh_onset_rate, Metric.response_presence,
                                                       Metric.silence_keeping))
    assert (fresh.n, fresh.passed, fresh.unscorable) == (1, 0, 1)
    assert (presence.n, presence.passed, presence.unscorable) == (1, 1, 1)
    assert (sk.n, sk.value, sk.unscorable) == (0, None, 1)
    assert {k: (v.passed, v.n) for k, v in c.presence_split.items()} == {
        "fresh_onset": (0, 1), "already_speaking": (1, 1), "late_onset": (0, 1),
    }
    assert all(v.n == 0 for v in c.silence_sensitivity.values())
