"""`floorbench test --baseline`: what changed against an earlier test run, and whether it regressed.

Compared per test present in both runs (docs/testing.md "Baseline"):

- the test's pass rate and each assertion's: a rate *below* the baseline's
  Wilson 95 % interval is a regression, one above it an improvement (inside
  it: no change that few trials can tell apart);
- the pooled latency p95: more than `margin_ms` above the baseline's is a
  regression (turns left unanswered where the baseline had a p95 count as one),
  more than `margin_ms` below it an improvement.

Tests only in one run are listed (``new``, ``gone``), never a regression; a
test in error now is left out (its error already fails the run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floorbench.errors import FloorbenchError

RESULTS = "results.json"


class BaselineError(FloorbenchError, ValueError):
    """A baseline that cannot be read; one line naming the file and the fix."""


@dataclass(frozen=True)
class Change:
    test: str
    what: str
    before: str
    after: str
    change: str
    """regressed, improved, new or gone"""

    @property
    def regressed(self) -> bool:
        return self.change == "regressed"


def read_baseline(path: Path) -> list[dict[str, Any]]:
    """The tests of an earlier run's results.json (or of the run folder holding it), read and checked by the
    one reader of results files (`results_file`), so a malformed baseline is refused before the run."""
    from floorbench.suites.agent.results_file import read_results_file

    fix = "give the results.json (or --out folder) of an earlier floorbench test"
    return read_results_file(path, BaselineError, fix)["tests"]


def _rate(r: dict[str, Any]) -> str:
    if r.get("rate") is None:
        return "–"
    lo, hi = r["ci"]
    return f"{r['k']}/{r['n']} [{lo:.2f}–{hi:.2f}]"


def _rate_change(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    if before.get("rate") is None or after.get("rate") is None:
        return None
    lo, hi = before["ci"]
    if after["rate"] < lo - 1e-12:
        return "regressed"
    if after["rate"] > hi + 1e-12:
        return "improved"
    return None


def _p95(lat: dict[str, Any]) -> str:
    if lat.get("p95_ms") is not None:
        return f"{lat['p95_ms']} ms"
    return "no response" if lat.get("turns") else "–"


def _latency_change(before: dict[str, Any], after: dict[str, Any], margin_ms: int) -> str | None:
    b, a = before.get("p95_ms"), after.get("p95_ms")
    if b is None and a is None:
        return None
    if a is None:
        return "regressed" if after.get("turns") else None
    if b is None:
        return "improved" if before.get("turns") else None
    if a > b + margin_ms:
        return "regressed"
    if a < b - margin_ms:
        return "improved"
    return None


def compare(current: Sequence[dict[str, Any]], baseline: Sequence[dict[str, Any]], margin_ms: int = 100) -> list[Change]:
    """Every change between the two runs' verdicts (the unchanged are left out)."""
    before = {t["test"]: t for t in baseline}
    now = {t["test"]: t for t in current}
    out: list[Change] = []
    for name, t in now.items():
        b = before.get(name)
        if b is None:
            out.append(Change(name, "test", "–", _rate(t), "new"))
            continue
        if t["status"] == "error":
            continue
        c = _rate_change(b, t)
        if c:
            out.append(Change(name, "pass rate", _rate(b), _rate(t), c))
        b_asserts = {a["key"]: a for a in b.get("assertions") or []}
        for a in t.get("assertions") or []:
            ba = b_asserts.get(a["key"])
            c = _rate_change(ba, a) if ba is not None else None
            if c:
                out.append(Change(name, f"{a['key']} {a['expected']}", _rate(ba or {}), _rate(a), c))
        c = _latency_change(b.get("latency") or {}, t.get("latency") or {}, margin_ms)
        if c:
            out.append(Change(name, f"latency p95 (margin {margin_ms} ms)", _p95(b.get("latency") or {}),
                              _p95(t.get("latency") or {}), c))
    out += [Change(name, "test", _rate(b), "–", "gone") for name, b in before.items() if name not in now]
    return out


def table(changes: Sequence[Change]) -> list[str]:
    """The changes as aligned lines (empty: nothing changed)."""
    from floorbench.escape import printable

    if not changes:
        return []
    rows = [("change", "test", "what", "baseline", "now")] + [
        (c.change, printable(c.test), printable(c.what), c.before, c.after) for c in changes]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
