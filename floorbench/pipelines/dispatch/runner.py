"""`run --play-on workers[:AGENT]`: the runner's side of scale-out on LiveKit's agent dispatch.

Instead of playing a scenario itself, the runner creates the scenario's room
with an explicit dispatch to the workers' agent name (`floorbench worker`),
whose metadata is a `dispatch.JobSpec`, and waits for the outcome in the shared
run folder (pipelines/dispatch.py has the protocol). What it waits for, and
when it gives up (then the attempt is a failure of kind ``worker_lost``, which
`--retries` runs again with a fresh token, in a fresh room):

- nobody claims the job within `accept_s` (no worker with a free slot; when
  workers refused it, the failure is ``worker_refused`` with their reasons);
- the claim's heartbeat is older than `heartbeat_timeout_s` (the worker died);
- the worker has not published within `deadline_s` of its claim (it hangs).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.dispatch.protocol import JobSpec
from floorbench.pipelines.run.scenario_run import ScenarioSettings
from floorbench.records import FailureKind, RunMeta, read_meta, write_json_atomic
from floorbench.redact import redact_text
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.transports.rooms import room_name
from floorbench.transports.server import LiveKitConnection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DispatchTimes:
    """When the runner gives a job up (seconds); generous, since a busy box answers late."""

    offer_s: float = 8.0
    """an unclaimed job is offered again this often: LiveKit drops a job that the node it reached
    had no free worker for (its workers' load reaches the server every 2.5 s)"""
    accept_s: float = 60.0
    heartbeat_timeout_s: float = 20.0
    deadline_s: float = 3600.0
    """from the claim to the published result; the worker's own scenario timeout ends it sooner"""
    poll_s: float = 0.5


@dataclass(frozen=True)
class Verdict:
    """Why an attempt was given up (kind and one-line reason)."""

    kind: FailureKind
    reason: str


def judge(state: dispatch.ClaimState, waited_s: float, claimed_for_s: float | None,
          agent: str, times: DispatchTimes) -> Verdict | None:
    """None while the attempt may still finish; else why it is given up. Pure: the unit tests drive it."""
    if state.published:
        return None
    if not state.claimed:
        if waited_s < times.accept_s:
            return None
        return Verdict(FailureKind.worker_lost, f"no worker took the job within {times.accept_s:.0f} s (agent {agent!r}; "
                       "are `floorbench worker` processes running on this server, with free slots? a worker that "
                       "refused it logged why: another suite copy, model config or settings)")
    if state.beat_age_s is not None and state.beat_age_s > times.heartbeat_timeout_s:
        return Verdict(FailureKind.worker_lost, f"the worker stopped beating (last beat {state.beat_age_s:.0f} s ago); "
                       "it died or lost the run folder")
    if claimed_for_s is not None and claimed_for_s > times.deadline_s:
        return Verdict(FailureKind.worker_lost, f"the worker did not finish within {times.deadline_s:.0f} s of taking the job")
    return None


class Dispatcher:
    """Dispatches one attempt at a time per scenario and returns its meta.json (a worker's, or a stand-in)."""

    def __init__(self, conn: LiveKitConnection, agent: str, spec: dict[str, Any], out: Path,
                 times: DispatchTimes | None = None) -> None:
        from livekit import api

        self.conn, self.agent, self.out = conn, agent, out.resolve()
        self.base = spec
        """JobSpec fields shared by every job of the run (suite, hash, model, config, settings, run id)"""
        self.times = times or DispatchTimes()
        self.lk = api.LiveKitAPI(conn.http_url, conn.api_key, conn.api_secret)

    @classmethod
    def for_run(cls, conn: LiveKitConnection, agent: str, *, suite: str, suite_hash: str, model: str,
                config: dict[str, Any], settings: ScenarioSettings, out: Path, run_id: str,
                times: DispatchTimes | None = None) -> Dispatcher:
        base = {"suite": suite, "suite_hash": suite_hash, "model": model, "config": config,
                "settings": dispatch.settings_record(settings), "out": str(out.resolve()), "run_id": run_id}
        if settings.timeout_s and times is None:  # the worker ends the scenario by then; a margin for its records
            times = DispatchTimes(deadline_s=settings.timeout_s + 120)
        digest = dispatch.model_config_hash(model, config)
        print(f"dispatch to agent {agent!r}: model config hash {digest}; workers run only the jobs of their own "
              f"--model/--config (or --config-hash {digest}), with --out-root holding {out.resolve()}",
              file=sys.stderr, flush=True)
        return cls(conn, agent, base, out, times)

    def take_over(self, scenario: ScenarioRecord, model_card: dict[str, Any]) -> RunMeta | None:
        """What an earlier, killed runner left in flight for the scenario (`dispatch.take_over`)."""
        return dispatch.take_over(self.out, scenario, str(self.base["suite"]), model_card)

    def job(self, scenario_id: str, attempt: int) -> JobSpec:
        return JobSpec(**self.base, scenario_id=scenario_id, token=dispatch.new_token(), attempt=attempt)

    async def attempt(self, scenario: ScenarioRecord, attempt: int, model_card: dict[str, Any]) -> RunMeta:
        spec = self.job(scenario.scenario_id, attempt)
        folder = self.out / scenario.scenario_id
        room = room_name(spec.room_run_id(), spec.scenario_id)
        dispatch.open_attempt(folder, spec.token, attempt)
        try:
            await self._create_room(room)
            verdict = await self._wait(spec, room)
        except asyncio.CancelledError:
            await self._give_up(spec, room, scenario, model_card,
                                Verdict(FailureKind.interrupted, "run interrupted (Ctrl-C or SIGTERM); run again to resume"))
            raise
        except Exception as e:  # the API refused the dispatch: the server's failure, not the model's
            msg = redact_text(str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
            verdict = Verdict(FailureKind.worker_lost, f"dispatch to agent {self.agent!r} failed: {msg}")
        if verdict is None:
            meta = read_meta(folder)
            if meta is not None:
                return meta
            verdict = Verdict(FailureKind.worker_lost, "the worker published no readable meta.json")
        return await self._give_up(spec, room, scenario, model_card, verdict)

    async def _create_room(self, room: str) -> None:
        from livekit import api

        await self.lk.room.create_room(api.CreateRoomRequest(name=room, empty_timeout=300))

    async def _offer(self, room: str, spec: JobSpec) -> None:
        from livekit import api

        await self.lk.agent_dispatch.create_dispatch(
            api.CreateAgentDispatchRequest(agent_name=self.agent, room=room, metadata=spec.model_dump_json())
        )

    async def _wait(self, spec: JobSpec, room: str) -> Verdict | None:
        t0 = offered = time.monotonic()
        await self._offer(room, spec)
        claimed_at: float | None = None
        while True:
            state = dispatch.look(self.out, spec.scenario_id, spec.token)
            if not state.claimed and time.monotonic() - offered > self.times.offer_s:
                offered = time.monotonic()
                await self._offer(room, spec)
            if state.claimed and claimed_at is None:
                claimed_at = time.monotonic()
            claimed_for = None if claimed_at is None else time.monotonic() - claimed_at
            verdict = judge(state, time.monotonic() - t0, claimed_for, self.agent, self.times)
            if state.published or verdict is not None:
                return verdict
            await asyncio.sleep(self.times.poll_s)

    async def _give_up(self, spec: JobSpec, room: str, scenario: ScenarioRecord, model_card: dict[str, Any],
                       verdict: Verdict) -> RunMeta:
        """Revoke the token (a late finisher then publishes nothing), close its room, record the failure."""
        folder = self.out / spec.scenario_id
        if not dispatch.revoke(folder, spec.token, verdict.reason):  # it published just now: that result stands
            meta = read_meta(folder)
            if meta is not None:
                return meta
        log.warning("%s attempt %d: %s (%s)", spec.scenario_id, spec.attempt, verdict.kind, verdict.reason)
        await self._close_room(room)
        staged = dispatch.staging(self.out, spec.token) / spec.scenario_id
        meta = dispatch.stand_in_meta(scenario, spec.suite, room, model_card, spec.attempt, verdict.kind,
                                      verdict.reason, staged)
        write_json_atomic(folder / "meta.json", meta)
        return meta

    async def _close_room(self, room: str) -> None:
        """Deleting the room ends a hung worker's scenario (its participants are removed)."""
        from livekit import api

        with contextlib.suppress(Exception):  # the room may be gone already
            await asyncio.wait_for(self.lk.room.delete_room(api.DeleteRoomRequest(room=room)), 5.0)

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.lk.aclose(), 5.0)
