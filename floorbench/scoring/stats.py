"""Statistics every suite's scorer shares: scenario bootstrap, exact McNemar, Spearman rank agreement (mpe's metrics,
turns' and av's intervals, docs/suites/); and the Wilson score interval of a pass rate (suite agent's trials, docs/testing.md).

The bootstrap resamples *scenarios* with replacement (all items of a drawn
scenario come along) and recomputes each metric as a ratio of sums, so
scenarios with several silence windows weigh by their windows, as in the
point estimate. Percentile intervals; a fixed seed makes them reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

RESAMPLES = 10_000
CHUNK = 1000


def resample_weights(n_scenarios: int, resamples: int = RESAMPLES, seed: int = 0) -> Iterator[np.ndarray]:
    """How often each scenario is drawn, ``[chunk, n_scenarios]`` per chunk of replicates.

    Drawing `n_scenarios` scenarios with replacement is a multinomial count
    vector; counts turn each replicate's sums into one matrix product.
    """
    rng = np.random.default_rng(seed)
    p = np.full(n_scenarios, 1.0 / n_scenarios)
    done = 0
    while done < resamples:
        m = min(CHUNK, resamples - done)
        yield rng.multinomial(n_scenarios, p, size=m).astype(np.float64)
        done += m


def bootstrap_ratios(
    k: np.ndarray, n: np.ndarray, resamples: int = RESAMPLES, seed: int = 0
) -> np.ndarray:
    """Bootstrap replicates of ``sum(k) / sum(n)`` for several metrics at once.

    `k` and `n` are ``[metrics, scenarios]`` (passes and counted items per
    scenario); every metric sees the same scenario draws. Returns
    ``[metrics, resamples]`` with NaN where a replicate drew no counted item.
    """
    k = np.atleast_2d(np.asarray(k, dtype=np.float64))
    n = np.atleast_2d(np.asarray(n, dtype=np.float64))
    out = np.full((k.shape[0], resamples), np.nan)
    if k.shape[1] == 0:
        return out
    pos = 0
    for w in resample_weights(k.shape[1], resamples, seed):
        ks = k @ w.T
        ns = n @ w.T
        good = ns > 0
        block = out[:, pos : pos + len(w)]
        block[good] = ks[good] / ns[good]
        pos += len(w)
    return out


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> tuple[float | None, float | None]:
    r = replicates[~np.isnan(replicates)]
    if r.size == 0:
        return None, None
    a = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(r, [a, 100.0 - a])
    return float(lo), float(hi)


Z95 = 1.959963984540054
"""the two-sided 95 % normal quantile"""


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float] | tuple[None, None]:
    """The Wilson score interval of `k` successes in `n` trials (95 % by default); (None, None) for n = 0.

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0 or n successes
    (5 of 5 gives 0.566–1.0), which is why a pass rate of a few trials is read with it.
    """
    if not 0 <= k <= n:
        raise ValueError(f"wilson_interval: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return None, None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p for discordant counts `b` and `c` (binomial, p = 0.5)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2.0 * tail / 2**n)


def rankdata(x: Sequence[float]) -> np.ndarray:
    """Average ranks (1-based), ties sharing their mean rank."""
    a = np.asarray(x, dtype=np.float64)
    order = np.argsort(a, kind="mergesort")
    ranks = np.empty(len(a))
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (Pearson on average ranks); None when undefined (n < 2 or constant)."""
    if len(x) != len(y) or len(x) < 2:
        return None
    rx, ry = rankdata(x), rankdata(y)
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])
