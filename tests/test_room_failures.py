"""Whose failure a room's was: the model's (a result, kept) or the machine's (retried, and a capacity signal).

Why a model left: its own doing (`model_left`) or a dropped connection (`connection_lost`); a
room out of time: the model (`timeout`) or its own stalled playback (`playback_stalled`).
The unit half feeds the classification the server's reasons; the live half freezes a real
model process (SIGSTOP: every thread, the native connection too, as a starved machine would)
until the real LiveKit server drops it, and checks the run retries the scenario to completion.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from floorbench.pipelines.room.left_room import why_model_left
from floorbench.pipelines.run.resume import INFRASTRUCTURE, should_retry
from floorbench.pipelines.run.run_watch import STALL_S
from floorbench.pipelines.run.runner import RunOptions, capacity_verdict, run_suite
from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings
from floorbench.records import (
    ClockAnchor,
    FailureKind,
    Outcome,
    RunMeta,
    TimingBounds,
    TimingFigures,
    TimingVerdict,
)
from floorbench.transports.server import LiveKitConnection


def test_a_dropped_connection_of_a_running_process_is_the_rooms_failure() -> None:
    for reason in ("SIGNAL_CLOSE", "CONNECTION_TIMEOUT", "MEDIA_FAILURE", "STATE_MISMATCH", "JOIN_FAILURE"):
        kind, text = why_model_left("model", reason, process_running=True)
        assert kind == FailureKind.connection_lost
        assert reason in text and "--concurrency" in text
    assert FailureKind.connection_lost in INFRASTRUCTURE


def test_hanging_up_or_an_unseen_process_stays_the_models_result() -> None:
    assert why_model_left("model", "CLIENT_INITIATED", True) == (
        FailureKind.model_left, "model participant 'model' left the room (the server said CLIENT_INITIATED)"
    )
    assert why_model_left("model", None, True)[0] == FailureKind.model_left
    # an external agent: its process is not floorbench's to see, so a drop may be its own crash
    kind, text = why_model_left("agent-7", "SIGNAL_CLOSE", None)
    assert kind == FailureKind.model_left and "SIGNAL_CLOSE" in text
    # the process is gone: not a connection problem (the caller reports the crash)
    assert why_model_left("model", "SIGNAL_CLOSE", False)[0] == FailureKind.model_left


def test_join_timeout_and_connection_lost_are_retried_model_left_is_not() -> None:
    def failed(kind: FailureKind) -> RunMeta:
        return RunMeta(
            floorbench_version="0", scenario_id="s", pair_id="p", condition="explicit", suite="t", room="r",
            created_wall_ns=0, anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), outcome=Outcome.failed,
            failure_kind=kind,
        )

    assert should_retry(failed(FailureKind.join_timeout), 1, 1)
    assert should_retry(failed(FailureKind.connection_lost), 1, 1)
    assert not should_retry(failed(FailureKind.model_left), 1, 1)
    assert not should_retry(failed(FailureKind.connection_lost), 2, 1)  # retries spent


def test_out_of_time_is_the_models_unless_the_playback_stalled() -> None:
    def room(slipped_s: float | None) -> SimpleNamespace:
        writer = SimpleNamespace(slipped_ns=int(slipped_s * 1e9)) if slipped_s is not None else None
        return SimpleNamespace(playback=SimpleNamespace(writer=writer) if writer else None)

    assert ScenarioRun._why_late(room(None), 60.0) == (FailureKind.timeout, "scenario did not finish within 60 s")  # type: ignore[arg-type]
    assert ScenarioRun._why_late(room(0.2), 60.0)[0] == FailureKind.timeout  # type: ignore[arg-type]
    kind, text = ScenarioRun._why_late(room(STALL_S + 185), 238.0)  # type: ignore[arg-type]
    assert kind == FailureKind.playback_stalled and "stalled 186.0 s" in text and "--concurrency" in text
    assert FailureKind.playback_stalled in INFRASTRUCTURE


def test_overload_failures_lower_auto_concurrency_others_do_not() -> None:
    def ended(outcome: Outcome, kind: FailureKind | None = None, verdict: str | None = None) -> RunMeta:
        m = RunMeta(
            floorbench_version="0", scenario_id="s", pair_id="p", condition="explicit", suite="t", room="r",
            created_wall_ns=0, anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), outcome=outcome, failure_kind=kind,
        )
        if verdict is not None:
            m.timing = TimingVerdict(verdict=verdict, reasons=[], figures=TimingFigures(), bounds=TimingBounds())
        return m

    assert capacity_verdict(ended(Outcome.completed, verdict="ok")) == "ok"
    assert capacity_verdict(ended(Outcome.completed, verdict="degraded")) == "degraded"
    for kind in (FailureKind.join_timeout, FailureKind.connection_lost, FailureKind.playback_stalled):
        assert capacity_verdict(ended(Outcome.failed, kind)) == "degraded"
    for kind in (FailureKind.server_died, FailureKind.model_crashed, FailureKind.timeout, FailureKind.worker_lost):
        assert capacity_verdict(ended(Outcome.failed, kind)) is None


def test_frozen_model_process_is_dropped_by_the_server_and_retried(
    tmp_path: Path, tiny_suite: Path, livekit: LiveKitConnection
) -> None:
    sid = "tiny01-explicit"
    folder = tmp_path / sid
    frozen: list[int] = []

    base = ScenarioSettings()
    # a long tail keeps the first room open past the server's drop (about 20 s after the freeze)
    settings = replace(base, schedule={**base.schedule, "tail_ms": 25_000})

    async def freeze_first_model() -> None:
        # the first attempt's model process, once the first turn plays: all its threads stop
        while not frozen:
            await asyncio.sleep(0.1)
            pid_file, tl = folder / "model.pid", folder / "timeline.jsonl"
            if pid_file.exists() and tl.exists() and '"turn_start"' in tl.read_text():
                pid = int(pid_file.read_text())
                os.kill(pid, signal.SIGSTOP)
                frozen.append(pid)
        # once the server dropped it, the retry needs no long tail: the usual one (each attempt reads the
        # schedule options when its room starts; missed, the retry just plays 22 s longer)
        for _ in range(600):
            if any('"left:model"' in t.read_text() for t in folder.glob("timeline*.jsonl")):
                settings.schedule.clear()
                settings.schedule.update(base.schedule)
                return
            await asyncio.sleep(0.1)

    async def main():
        opts = RunOptions(
            suite=tiny_suite, model="silent", out=tmp_path, connection=livekit, scenarios=[sid],
            progress=False, retries=1, settings=settings,
        )
        freezer = asyncio.create_task(freeze_first_model())
        try:
            return await run_suite(opts)
        finally:
            freezer.cancel()
            for pid in frozen:  # a frozen process ignores SIGTERM until it runs again
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass

    summary = asyncio.run(main())
    assert frozen, "the model process was never seen in the room"
    (meta,) = summary.metas
    assert meta.outcome == Outcome.completed and meta.attempt == 2
    first = json.loads((folder / "meta.attempt-1.json").read_text())
    assert first["outcome"] == "failed"
    assert first["failure_kind"] == "connection_lost", first["failure_reason"]
    assert "dropped model participant" in first["failure_reason"]
    left = [json.loads(x) for x in (folder / "timeline.attempt-1.jsonl").read_text().splitlines() if '"left:model"' in x]
    assert left and left[0]["disconnect_reason"] in ("CONNECTION_TIMEOUT", "SIGNAL_CLOSE", "STATE_MISMATCH", "MEDIA_FAILURE")
