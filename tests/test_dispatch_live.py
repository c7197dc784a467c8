"""`run --play-on workers` end to end: two LiveKit nodes on one Redis, two `floorbench worker`
processes, two tiny-suite scenarios with the `silent` model, and one worker killed mid-scenario:
with --retries 1 its scenario is dispatched again and completes, and each scenario is completed
exactly once (the killed attempt's files never reach the run folder).

Behaviour only: on a busy 2-core machine the rooms' timing verdicts may come back `degraded`,
which is a result, not a failure of dispatch."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.run import resume
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.records import FailureKind, Outcome, read_meta
from floorbench.transports.server import LiveKitCluster, LiveKitConnection, die_with_parent

pytestmark = [pytest.mark.live, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]


def _worker(conn: LiveKitConnection, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, LIVEKIT_API_KEY=conn.api_key, LIVEKIT_API_SECRET=conn.api_secret)
    with log.open("wb") as f:
        return subprocess.Popen(
            [sys.executable, "-m", "floorbench.cli", "worker", "--suite", str(ROOT / "tests/fixtures/suites/tiny"),
             "--out-root", str(log.parent), "--model", "silent", "--livekit-url", conn.url, "--max-jobs", "1"],
            cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT, preexec_fn=die_with_parent,
        )


def _wait_registered(logs: list[Path], timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not all("registered as" in p.read_text(errors="replace") for p in logs):
        assert time.monotonic() < deadline, "workers did not register: " + " | ".join(p.read_text()[-300:] for p in logs)
        time.sleep(0.2)


def _kill_mid_scenario(out: Path, workers: dict[int, subprocess.Popen[bytes]], killed: dict[str, str]) -> None:
    """Kill the worker of the first claimed job once its scenario plays (its staged meta.json has a schedule)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for claim in sorted((out / dispatch.STAGING).glob("*/claim.json")):
            try:  # the claim may be half written this instant
                info = json.loads(claim.read_text())
            except (OSError, ValueError):
                continue
            staged = read_meta(claim.parent / str(info.get("scenario_id")))
            if staged is not None and staged.schedule:  # its room is set up; 3 s on, it plays
                time.sleep(3)
                pid = int(str(info["worker"]).rsplit(":", 1)[1])
                workers[pid].send_signal(signal.SIGKILL)
                killed.update(scenario_id=str(info["scenario_id"]), token=claim.parent.name)
                return
        time.sleep(0.2)


def test_two_nodes_two_workers_each_scenario_once_despite_a_killed_worker(tmp_path: Path) -> None:
    out = tmp_path / "out"
    killed: dict[str, str] = {}
    with LiveKitCluster(nodes=2, log_dir=tmp_path / "logs") as cluster:
        conns = [node.connection for node in cluster.servers]
        assert len({c.url for c in conns}) == 2  # two nodes, each on its own port
        logs = [tmp_path / f"worker{i}.log" for i in range(2)]
        procs = [_worker(conn, log) for conn, log in zip(conns, logs, strict=True)]
        try:
            _wait_registered(logs)
            killer = threading.Thread(target=_kill_mid_scenario, args=(out, {p.pid: p for p in procs}, killed))
            killer.start()
            t0 = time.monotonic()
            summary = asyncio.run(run_suite(RunOptions(
                suite=ROOT / "tests/fixtures/suites/tiny", model="silent", out=out, connection=conns[0],
                workers="floorbench", concurrency=2, limit=2, retries=1, progress=False,
            )))
            print(f"dispatch run with a killed worker: {time.monotonic() - t0:.1f} s")
            killer.join(5)
        finally:
            for p in procs:
                p.kill()
                p.wait(10)
    assert killed, "no worker was killed mid-scenario"
    entries = {e["scenario_id"]: e for e in json.loads((out / "run.json").read_text())["scenarios"]}
    sids = [m.scenario_id for m in summary.metas]
    assert len(sids) == 2 and killed["scenario_id"] in sids
    for sid in sids:
        folder = out / sid
        meta = read_meta(folder)
        assert meta is not None and meta.outcome == Outcome.completed, (sid, meta and meta.failure_reason)
        assert resume.why_not_intact(folder) is None
        state = dispatch.current(folder)
        assert state["state"] == "published" and state["token"] != killed["token"]
        assert meta.room.endswith(f"{state['token'][:8]}-{sid}")  # the result is the published attempt's
        again = sid == killed["scenario_id"]
        assert entries[sid]["outcome"] == "completed" and meta.attempt == (2 if again else 1)
        assert entries[sid]["attempts"] == (2 if again else 1)
    lost = read_meta(out / killed["scenario_id"]) and json.loads(
        (out / killed["scenario_id"] / "meta.attempt-1.json").read_text())
    assert lost["outcome"] == Outcome.failed and lost["failure_kind"] == FailureKind.worker_lost
    assert "stopped beating" in lost["failure_reason"]
    # the killed attempt's files stayed in its staging folder; nothing of it was published
    assert (out / dispatch.STAGING / killed["token"] / killed["scenario_id"] / "meta.json").exists()
    assert all(p.poll() is not None for p in procs)
    assert not cluster.alive() and cluster.redis.proc is not None and cluster.redis.proc.poll() is not None
