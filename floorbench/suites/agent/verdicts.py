"""From trials to verdicts: pass rates with Wilson intervals, thresholds, flaky tests (docs/testing.md).

Per test and per assertion, the pass rate is k of n *judged* trials, with its
Wilson 95 % interval (`floorbench.scoring.stats.wilson_interval`). A test
*meets its threshold* when none of its trials is an error and its pass rate is
at least its `pass_threshold` (the test's own, else the run's, else 1.0: every
trial). A test or assertion that passed some trials and failed others is
*flaky*. A trial in error is never counted as a pass: the test's status is
``error`` and `floorbench test` exits 2.

The latency of a test pools every measured turn of every judged trial (a turn
without a response counts as the slowest): p50 and p95 by nearest rank, with
the unanswered turns counted; `--baseline` compares the p95.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from floorbench.scoring.quality import pooled
from floorbench.scoring.stats import wilson_interval
from floorbench.suites.agent.assertions import nearest_rank

DEFAULT_THRESHOLD = 1.0


def rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(k, n)
    return {"k": k, "n": n, "rate": (k / n) if n else None, "ci": [lo, hi]}


def pass_hat(passed: int, n: int) -> dict[str, Any]:
    """pass^k as the τ benchmarks define it: the chance that k trials drawn from the n judged all pass,
    C(passed, k) / C(n, k), for k = 1 … n (pass^1 is the pass rate; pass^n: every trial passed)."""
    return {"pass_k": n, "pass_hat_k": {str(k): math.comb(passed, k) / math.comb(n, k) for k in range(1, n + 1)}}


def pooled_latency(trials: Sequence[dict[str, Any]]) -> dict[str, Any]:
    lat = [x for t in trials for x in t.get("latencies_ms") or []]
    vals = [math.inf if x is None else float(x) for x in lat]

    def pct(p: int) -> int | None:
        if not vals:
            return None
        v = nearest_rank(vals, p)
        return None if math.isinf(v) else int(v)

    return {"turns": len(vals), "unanswered": sum(x is None for x in lat), "p50_ms": pct(50), "p95_ms": pct(95)}


def _assertions(judged: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for t in judged:
        for a in t["assertions"]:
            row = rows.setdefault(a["key"], {"key": a["key"], "check": a["check"], "step": a["step"],
                                             "expected": a["expected"], "passed": 0, "measured": []})
            row["passed"] += int(a["passed"])
            row["measured"].append({"trial": t["trial"], "passed": a["passed"], "measured": a["measured"],
                                    "value": a.get("value")})
    out = []
    for row in rows.values():
        n = len(row["measured"])
        out.append({**{k: v for k, v in row.items() if k != "passed"}, **rate(row["passed"], n),
                    "flaky": 0 < row["passed"] < n})
    return out


def aggregate(trials: Sequence[dict[str, Any]], threshold: float | None = None) -> list[dict[str, Any]]:
    """One verdict per test, in the order the tests first appear; `threshold`: the run's `--pass-threshold`
    (a test's own `pass_threshold` wins)."""
    by_test: dict[str, list[dict[str, Any]]] = {}
    for t in trials:
        by_test.setdefault(str(t["test"]), []).append(t)
    out = []
    for name, ts in by_test.items():
        ts = sorted(ts, key=lambda t: int(t.get("trial") or 0))
        judged = [t for t in ts if t["status"] != "error"]
        errors = [t for t in ts if t["status"] == "error"]
        k = sum(t["status"] == "passed" for t in judged)
        own = next((t["pass_threshold"] for t in ts if t.get("pass_threshold") is not None), None)
        need = own if own is not None else threshold if threshold is not None else DEFAULT_THRESHOLD
        r = rate(k, len(judged))
        meets = not errors and bool(judged) and k / len(judged) >= need - 1e-12
        out.append({
            "test": name, "source": next((t["source"] for t in ts if t.get("source")), ""),
            "tags": next((t["tags"] for t in ts if t.get("tags")), []),
            "trials": len(ts), "duration_ms": sum(int(t.get("duration_ms") or 0) for t in ts), "errors": len(errors), "error_lines": [f"trial {t['trial']}: {t['error']}" for t in errors],
            "degraded": sum(t.get("timing") == "degraded" for t in judged),
            **r, "pass_threshold": need,
            "status": "error" if errors else "passed" if meets else "failed",
            "flaky": 0 < k < len(judged),
            **pass_hat(k, len(judged)),
            "assertions": _assertions(judged),
            "latency": pooled_latency(judged),
            "speech_quality": pooled([x for t in judged for x in (t.get("speech_quality") or {}).get("turns", [])]),
            "self_interruptions": sum(int((t.get("own_echo") or {}).get("self_interruptions") or 0) for t in judged),
            "restarts": sum(int((t.get("own_echo") or {}).get("restarts") or 0) for t in judged),
            "cut_offs": sum(int((t.get("own_echo") or {}).get("cut_offs") or 0) for t in judged),
        })
    return out


def run_quality(trials: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """results.json's ``speech_quality``: the MOS predictor (name, version, files) and every judged trial's
    agent turns pooled."""
    from floorbench.scoring.quality import predictor_identity

    turns = [x for t in trials if t["status"] != "error" for x in (t.get("speech_quality") or {}).get("turns", [])]
    return {"model": predictor_identity(), **pooled(turns)}


def exit_code(tests: Sequence[dict[str, Any]]) -> int:
    """0: every test meets its threshold; 1: one does not; 2: an error (a room failed, evidence missing)."""
    if not tests or any(t["status"] == "error" for t in tests):
        return 2
    return 1 if any(t["status"] == "failed" for t in tests) else 0


def pass_k_text(t: dict[str, Any]) -> str:
    """``pass^5 1.00``: every one of the test's k judged trials passed (1.00) or not (0.00)."""
    n = t.get("pass_k") or 0
    v = (t.get("pass_hat_k") or {}).get(str(n))
    return f"pass^{n} –" if v is None else f"pass^{n} {v:.2f}"


def summary_lines(tests: Sequence[dict[str, Any]]) -> list[str]:
    """The table `floorbench test` prints: one line per test, then each failing assertion with its values."""
    from floorbench.escape import printable

    lines = []
    width = max((len(t["test"]) for t in tests), default=4)
    for t in tests:
        lo, hi = t["ci"]
        ci = f"[{lo:.2f}–{hi:.2f}]" if lo is not None else "[–]"
        status = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}[t["status"]] + (" (flaky)" if t["flaky"] else "")
        lat = t["latency"]
        p95 = f"p95 {lat['p95_ms']} ms" if lat["p95_ms"] is not None else ("p95 no response" if lat["turns"] else "")
        pr = "–" if t["rate"] is None else f"{t['rate']:.2f}"
        lines.append(f"{status:14s} {printable(t['test']):{width}s}  {t['k']}/{t['n']} passed  rate "
                     f"{pr} {ci}  {pass_k_text(t)}  threshold {t['pass_threshold']:.2f}"
                     + (f"  {p95}" if p95 else "") + (f"  ({t['degraded']} timing-degraded)" if t["degraded"] else ""))
        for e in t["error_lines"]:
            lines.append(f"    error: {printable(e)}")
        for a in t["assertions"]:
            if a["k"] == a["n"]:
                continue
            where = f"step {a['step']}" if a["step"] is not None else "test"
            values = "; ".join(f"t{m['trial']} {printable(m['measured'])}" for m in a["measured"] if not m["passed"])
            tag = " (flaky)" if a["flaky"] else ""
            lines.append(f"    {where} {a['check']} {printable(a['expected'])}: {a['k']}/{a['n']}{tag}: {values}")
    return lines
