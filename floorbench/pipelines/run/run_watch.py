"""Why a room failed, said once: the supervised schedule, the harness's own steps, the server's death.

Part of `ScenarioRun` (floorbench.pipelines.run.scenario_run; state in `run_state`).
A room ends early when the model dies or leaves, the server dies, or time runs
out; the symptom seen first is not always the cause (a killed server shows as
the model leaving), so a managed server's death is checked before blaming
anything else (`_blame_server`), and a room whose own playback stalled is the
machine's failure, not the model's (`_why_late`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from floorbench.pipelines.room.left_room import why_model_left
from floorbench.pipelines.room.participant import cancel_and_wait
from floorbench.pipelines.room.recorder import Recorder
from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed
from floorbench.pipelines.run.run_state import RunState
from floorbench.records import EventKind, FailureKind, Outcome, TimelineEvent, TimelineWriter
from floorbench.redact import redact_text

SERVER_SYMPTOMS = frozenset({
    FailureKind.model_left, FailureKind.model_crashed, FailureKind.model_never_joined, FailureKind.connection_lost,
    FailureKind.join_timeout, FailureKind.internal,
})
"""how a managed server's death may show first in a room (then `ScenarioRun._blame_server` names the server)"""
STALL_S = 1.0
"""a timed-out room whose playback ran dry this long in all was the machine's failure (`playback_stalled`)"""
JOIN_S = 10.0
"""each of the harness's own set-up steps (the recorder joining, the playback publishing, the recorder
hearing it) takes well under a second on a machine that keeps up; past this it is a `join_timeout`"""


class RoomWatch(RunState):
    """The failure side of a room: waits with a deadline, the schedule's supervision, the blame."""

    async def _harness_step(self, what: str, step: Any) -> None:
        try:
            await step
        except TimeoutError:
            raise ScenarioFailed(FailureKind.join_timeout, self._late(what)) from None

    def _late(self, what: str) -> str:
        return (
            f"{what} took over {JOIN_S:.0f} s: the LiveKit server or this machine is overloaded "
            "(lower --concurrency) or unreachable"
        )

    def _fail(self, timeline: TimelineWriter, kind: FailureKind, reason: str) -> None:
        if self.meta.outcome == Outcome.failed:
            return
        reason = redact_text(reason)  # a reason may quote a model URL or header
        self.meta.outcome = Outcome.failed
        self.meta.failure_kind = kind
        self.meta.failure_reason = reason
        timeline.write(
            TimelineEvent.of(self.clock.now_ms(), EventKind.failure, "runner", reason=reason, failure_kind=kind)
        )

    async def _until(self, cond: Any, timeout_s: float, reason: str, kind: FailureKind = FailureKind.internal) -> None:
        deadline = time.monotonic() + timeout_s
        while not cond():
            if time.monotonic() > deadline:
                raise ScenarioFailed(kind, reason)
            self._check_server()
            await asyncio.sleep(0.05)

    async def _blame_server(self, kind: FailureKind, reason: str) -> tuple[FailureKind, str]:
        """A managed server that died is the failure, whatever symptom surfaced first.

        When the server is killed, the model's participant may be seen leaving (or its
        process exiting, or a call failing) before the server watch notices: the soak
        benchmark saw `model_left`, which is not retried. Its process is checked for up to 1 s.
        """
        if self.server is None or kind not in SERVER_SYMPTOMS:
            return kind, reason
        for _ in range(10):
            if not self.server.alive():
                return FailureKind.server_died, f"the LiveKit server died during the scenario (seen first as: {reason})"
            await asyncio.sleep(0.1)
        return kind, reason

    def _check_server(self) -> None:
        if self.server is not None and not self.server.alive():
            raise ScenarioFailed(FailureKind.server_died, "the LiveKit server died during the scenario")

    async def _supervise(
        self, schedule_coro: Any, recorder: Recorder, model_proc: ModelProcess | None, timeout_s: float
    ) -> None:
        """Run the schedule; fail fast if the model dies or leaves, the server dies, or time runs out."""
        left = asyncio.Event()
        ident = self.model_identity

        def on_event(event: str, identity: str) -> None:
            if identity == ident and event in ("left", "audio_unsubscribed"):
                left.set()

        recorder.listeners.append(on_event)
        sched = asyncio.create_task(schedule_coro, name="schedule")
        watchers: dict[asyncio.Task[Any], tuple[FailureKind, str]] = {
            asyncio.create_task(left.wait()): (FailureKind.model_left, f"model participant {ident!r} left the room"),
            asyncio.create_task(self._server_watch()): (FailureKind.server_died, "the LiveKit server died during the scenario"),
        }
        if model_proc is not None:
            watchers[asyncio.create_task(model_proc.wait_exit())] = (FailureKind.model_crashed, "model process exited")
            watchers[asyncio.create_task(model_proc.wait_failed())] = (FailureKind.model_error, "model error")
        try:
            done, _ = await asyncio.wait({sched, *watchers}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
            # the child's own report says more than its exit, and any report fails the scenario
            if model_proc is not None and (failure := model_proc.failed()) is not None:
                raise failure
            if sched in done:
                sched.result()
                return
            if not done:
                raise ScenarioFailed(*self._why_late(timeout_s))
            task = next(iter(done))
            kind, reason = watchers[task]
            if kind == FailureKind.model_left:  # its own doing, or a connection the server dropped?
                running = None if model_proc is None else not await model_proc.exited_within(1.0)
                kind, reason = why_model_left(ident, recorder.left_reasons.get(ident), running)
                if running is False:
                    kind = FailureKind.model_crashed
            if kind == FailureKind.model_crashed:
                assert model_proc is not None
                await model_proc.drain()
                if (failure := model_proc.failed()) is not None:
                    raise failure
                code = await model_proc.wait_exit()
                reason = f"model process exited with code {code} mid-scenario; see model.log"
            raise ScenarioFailed(kind, reason)
        finally:
            # a finished task's outcome was read above; the rest are cancelled and their errors logged
            running = [t for t in (sched, *watchers) if not t.done()]
            await cancel_and_wait(running, 10.0, f"{self.scenario.scenario_id}: schedule and watchers")
            recorder.listeners.remove(on_event)

    def _why_late(self, timeout_s: float) -> tuple[FailureKind, str]:
        """Out of time: the model's result, unless the room's own playback stalled (every wait of a
        schedule is capped, so a machine that cannot run the room is what overruns the limit)."""
        late = f"scenario did not finish within {timeout_s:.0f} s"
        slipped_s = self.playback.writer.slipped_ns / 1e9 if self.playback is not None else 0.0
        if slipped_s >= STALL_S:
            return FailureKind.playback_stalled, (
                f"{late}; its playback stalled {slipped_s:.1f} s in all: the machine is overloaded (lower --concurrency)"
            )
        return FailureKind.timeout, late

    async def _server_watch(self) -> None:
        while True:
            if self.server is not None and not self.server.alive():
                return
            await asyncio.sleep(0.2)
