"""`floorbench worker`: a LiveKit Agents worker that plays dispatched scenarios.

It registers an agent name (default ``floorbench``) with the LiveKit server
and reports its load as running jobs / ``max_jobs``, so the server offers it
no more than that. A job is one attempt of one scenario (`dispatch.JobSpec`):
the worker checks that its own copy of the suite has the run's manifest hash
(else it refuses, with the reason recorded in the run folder), claims the job,
then plays the scenario exactly as the local runner does (`ScenarioRun`:
recorder, model process, playback) into its staging folder, beating while it
plays, and publishes the folder into the run only if its token is still the
one the runner waits for (pipelines/dispatch.py).

Jobs run in threads of the worker process (LiveKit Agents' thread executor):
a scenario's model already runs in a child process of its own, and a job
process per scenario would cost each room another interpreter.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.dispatch.protocol import DispatchError, JobSpec
from floorbench.pipelines.run import resume
from floorbench.pipelines.run.scenario_run import ScenarioRun
from floorbench.processors.registry import ModelContext, create_model
from floorbench.records import FailureKind, write_json_atomic
from floorbench.redact import redact, redact_text
from floorbench.scenarios.validate import LoadedSuite, load_suite
from floorbench.transports.rooms import room_name
from floorbench.transports.server import LiveKitConnection

log = logging.getLogger(__name__)
MAX_JOBS = 64


@dataclass
class Shelf:
    """The suites this worker holds, by name, with their manifest hashes."""

    suites: dict[str, tuple[LoadedSuite, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, roots: list[Path]) -> Shelf:
        shelf = cls()
        for root in roots:
            suite = load_suite(root)
            shelf.suites[suite.suite.name] = (suite, resume.suite_hash(suite))
        return shelf

    def why_not(self, spec: JobSpec) -> str | None:
        """None when this worker can run `spec`; else the one-line reason it refuses."""
        held = self.suites.get(spec.suite)
        if held is None:
            have = ", ".join(sorted(self.suites)) or "none"
            return f"no suite {spec.suite!r} on this worker (it holds: {have}); start it with --suite pointing at that suite"
        suite, digest = held
        if digest != spec.suite_hash:
            return (f"suite {spec.suite!r} at {suite.root} has manifest hash {digest[:12]}, the run's is "
                    f"{spec.suite_hash[:12]}; copy the run's suite to this box")
        if spec.scenario_id not in suite.files:
            return f"suite {spec.suite!r} has no scenario {spec.scenario_id!r}"
        out = Path(spec.out)
        if not out.is_absolute() or not out.is_dir() or not os.access(out, os.W_OK):
            return f"run folder {out} is not a writable folder here; mount the shared run folder at that same path"
        return None


@dataclass
class WorkerSettings:
    suites: list[Path]
    connection: LiveKitConnection
    agent: str = dispatch.DEFAULT_AGENT
    max_jobs: int = 1
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")


async def run_job(spec: JobSpec, shelf: Shelf, conn: LiveKitConnection, worker: str) -> bool:
    """Claim, play and publish one attempt; True when its result landed in the run folder."""
    out = Path(spec.out)
    suite, _ = shelf.suites[spec.suite]
    scenario = next(s for s in suite.scenarios if s.scenario_id == spec.scenario_id)
    where = dispatch.claim(out, spec, worker)
    if where is None:
        log.info("%s attempt %d: another worker claimed it first", spec.scenario_id, spec.attempt)
        return False
    beating = asyncio.create_task(_beat(out, spec.token), name="heartbeat")
    try:
        try:
            model = create_model(ModelContext(name=spec.model, config=spec.config, scenario=scenario,
                                              suite=suite.suite, suite_root=suite.root))
        except Exception as e:  # the runner built this model; a box without its extras or keys cannot
            reason = redact_text(f"worker {worker}: cannot create model {spec.model!r}: {str(e).splitlines()[0][:200]}")
            room = room_name(spec.room_run_id(), spec.scenario_id)
            meta = dispatch.stand_in_meta(scenario, spec.suite, room, {"name": spec.model}, spec.attempt,
                                          FailureKind.bad_input, reason)
            write_json_atomic(where / spec.scenario_id / "meta.json", meta)
        else:
            run = ScenarioRun(spec.room_run_id(), suite, scenario, model, conn, where,
                              dispatch.settings_from(spec.settings))
            run.meta.attempt = spec.attempt
            run.meta.model = redact(model.card())
            await run.run()
    finally:
        beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beating
    published = dispatch.publish(out, spec, worker)
    if not published:
        log.warning("%s attempt %d: the runner gave this attempt up; its files stay in %s",
                    spec.scenario_id, spec.attempt, where)
    return published


async def _beat(out: Path, token: str) -> None:
    while True:
        dispatch.beat(out, token)
        await asyncio.sleep(dispatch.HEARTBEAT_S)


async def serve(settings: WorkerSettings) -> None:
    """Register with the LiveKit server and take jobs until cancelled (Ctrl-C, SIGTERM)."""
    from livekit.agents import AgentServer, JobContext, JobExecutorType, JobRequest

    shelf = Shelf.load(settings.suites)
    conn = settings.connection
    server = AgentServer(
        ws_url=conn.url, api_key=conn.api_key, api_secret=conn.api_secret,
        job_executor_type=JobExecutorType.THREAD, num_idle_processes=settings.max_jobs,
        load_threshold=1.0, host="127.0.0.1", port=0, shutdown_process_timeout=15.0,
        load_fnc=lambda: len(server.active_jobs) / settings.max_jobs,
    )

    async def on_request(req: JobRequest) -> None:
        try:
            spec = JobSpec.parse(req.job.metadata)
        except DispatchError as e:
            log.warning("job %s refused: %s", req.id, e)
            await req.reject(terminate=False)
            return
        why = shelf.why_not(spec)
        if why is not None:  # recorded: if no worker takes the job, the runner fails it with this reason
            log.warning("%s attempt %d refused: %s", spec.scenario_id, spec.attempt, why)
            with contextlib.suppress(OSError):
                dispatch.refuse(Path(spec.out), spec.token, settings.name, why)
        if why is not None or len(server.active_jobs) >= settings.max_jobs:  # busy: not a refusal, a full box
            await req.reject(terminate=False)  # LiveKit may offer it to another worker
            return
        await req.accept(identity=f"floorbench-worker-{spec.token}")

    async def entry(ctx: JobContext) -> None:
        try:
            await run_job(JobSpec.parse(ctx.job.metadata), shelf, conn, settings.name)
        finally:
            ctx.shutdown("scenario done")

    server.rtc_session(entry, agent_name=settings.agent, on_request=on_request)
    server.on("worker_registered", lambda worker_id, _info: print(
        f"worker {settings.name} registered as {worker_id} (agent {settings.agent!r}, {settings.max_jobs} slots) "
        f"at {conn.url}", file=sys.stderr, flush=True))
    try:
        await server.run()
    finally:
        await server.aclose()


def describe(settings: WorkerSettings) -> dict[str, Any]:
    """What the worker prints when it starts."""
    return {"agent": settings.agent, "max_jobs": settings.max_jobs, "worker": settings.name,
            "suites": [str(p) for p in settings.suites]}
