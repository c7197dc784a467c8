"""run.json: the run's identity, every planned scenario's outcome, and the counts.

Every scenario the run plans appears from the start, as ``not_run`` until it
has run, so a run stopped by Ctrl-C or cut by ``--limit`` still lists what it
never started (and `score` counts them). A resumed run keeps the entries of the
first run and appends one line to ``sessions`` per invocation. Written
atomically after each scenario.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from floorbench.pipelines.run.timing_verdict import DEGRADED, OK
from floorbench.records import Outcome, RunMeta, read_meta, write_json_atomic


def now_wall() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def entry_of(meta: RunMeta) -> dict[str, Any]:
    """A scenario's line in run.json."""
    return {
        "scenario_id": meta.scenario_id,
        "outcome": meta.outcome.value,
        "failure_kind": meta.failure_kind.value if meta.failure_kind else None,
        "failure_reason": meta.failure_reason,
        "attempts": meta.attempt,
        "timing": meta.timing.verdict if meta.timing else None,
    }


def not_run_entry(scenario_id: str) -> dict[str, Any]:
    return {"scenario_id": scenario_id, "outcome": Outcome.not_run.value, "failure_kind": None,
            "failure_reason": None, "attempts": 0, "timing": None}


def counts_of(entries: list[dict[str, Any]]) -> dict[str, int]:
    """Outcomes, and timing verdicts of the completed scenarios."""
    out = {o.value: 0 for o in Outcome} | {f"timing_{OK}": 0, f"timing_{DEGRADED}": 0}
    for e in entries:
        out[str(e["outcome"])] = out.get(str(e["outcome"]), 0) + 1
        if e["outcome"] == Outcome.completed.value and e.get("timing") in (OK, DEGRADED):
            out[f"timing_{e['timing']}"] += 1
    return out


class RunBook:
    """The run.json of one run folder, kept in suite order."""

    def __init__(self, out: Path, info: dict[str, Any], order: list[str], prior: dict[str, Any] | None) -> None:
        self.path = out / "run.json"
        self.out = out
        self.order = {sid: i for i, sid in enumerate(order)}
        self.entries: dict[str, dict[str, Any]] = {}
        self.info = info
        self.session: dict[str, Any] = {"run_id": info["run_id"], "started_wall": now_wall()}
        sessions: list[dict[str, Any]] = []
        if prior is not None:
            self.info = prior | {k: v for k, v in info.items() if k in ("livekit", "floorbench_version")}
            sessions = list(prior.get("sessions") or [])
            for e in prior.get("scenarios") or []:
                if isinstance(e, dict) and "scenario_id" in e:
                    self.entries[str(e["scenario_id"])] = e
        self.info["sessions"] = [*sessions, self.session]

    def plan(self, planned: list[str], kept: list[str]) -> None:
        """Every planned scenario listed: kept ones from their meta.json, the rest not_run until they run."""
        for sid in planned:
            meta = read_meta(self.out / sid) if sid in kept else None
            self.entries[sid] = entry_of(meta) if meta is not None else not_run_entry(sid)
        self.session["kept"] = len(kept)
        self.write()

    def record(self, meta: RunMeta) -> None:
        self.entries[meta.scenario_id] = entry_of(meta)
        self.write()

    def concurrency(self, changes: list[dict[str, Any]]) -> None:
        """``--concurrency auto``: this session's N over time (start, and every change with its reason)."""
        self.session["concurrency"] = changes
        self.write()

    def record_folder(self, scenario_id: str) -> None:
        """A scenario stopped mid-way: its line from what its folder's meta.json says now."""
        meta = read_meta(self.out / scenario_id)
        if meta is not None:
            self.record(meta)

    def counts(self) -> dict[str, int]:
        return counts_of(list(self.entries.values()))

    def write(self, ended: bool = False, **session: Any) -> None:
        if ended:
            self.session["ended_wall"] = self.info["ended_wall"] = now_wall()
        self.session.update(session)
        ordered = sorted(self.entries.values(), key=lambda e: self.order.get(e["scenario_id"], len(self.order)))
        self.info["counts"] = counts_of(ordered)
        self.info["scenarios"] = ordered
        write_json_atomic(self.path, self.info)
