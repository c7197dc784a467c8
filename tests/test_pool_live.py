"""`run --processes 2` end to end: two `floorbench worker` processes on the run's managed server play two
tiny-suite scenarios at once, and the run folder is a one-process run's (every scenario intact and
scored); the workers are gone when the run returns."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.run import resume
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.records import Outcome

pytestmark = [pytest.mark.live, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_two_worker_processes_play_the_rooms_into_one_run_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = asyncio.run(run_suite(RunOptions(
        suite=ROOT / "tests/fixtures/suites/tiny", model="silent", out=out, concurrency=2, processes=2, limit=2,
        retries=1, progress=False,
    )))
    info = json.loads((out / "run.json").read_text())
    assert info["processes"] == 2 and info["livekit"]["managed"] is True
    assert len(summary.metas) == 2
    workers = set()
    for meta in summary.metas:
        folder = out / meta.scenario_id
        assert meta.outcome == Outcome.completed, (meta.scenario_id, meta.failure_reason)
        assert resume.why_not_intact(folder) is None  # the files `score` reads, consistent with meta.json
        assert meta.timing is not None and meta.timing.clocks.get("humans") == "sender"
        state = dispatch.current(folder)
        assert state["state"] == "published"
        workers.add(state["worker"])
    # each worker holds one room (⌈2 / 2⌉ slots), so the two rooms at once were played by both
    logs = sorted(out.glob("pool-worker-*.log"))
    assert len(logs) == 2 and all("registered as" in p.read_text() for p in logs)
    assert len(workers) == 2, workers
    pids = [int(w.rsplit(":", 1)[1]) for w in workers]
    assert not [p for p in pids if _alive(p)], "a pool worker outlived its run"
