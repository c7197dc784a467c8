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

Anyone who can create an agent dispatch on the LiveKit project can write a
job's metadata, so the worker is started with everything it may do (`Pins`):
its output root (``--out-root``: every run folder must lie inside it), its
suites (``--suite``, pinned by manifest hash), its model (``--model`` /
``--config``, or ``--config-hash``), the persona's endpoint and key
(``--persona-url``/``--persona-key-env``: never a job's) and the longest room
(``--max-room-s``). A job that names another folder, suite, model or config,
a token that is no `dispatch.TOKEN_RE`, or settings outside what
`dispatch.settings_from` allows (a URL, a key or a variable name in its
schedule options, a timeout out of bounds) is refused: the reason is logged,
and nothing is written for it anywhere. The worker plays its own copy of the
config, never the job's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.escape import printable
from floorbench.pipelines.dispatch import protocol as dispatch
from floorbench.pipelines.dispatch.protocol import DispatchError, JobSpec
from floorbench.pipelines.run import resume
from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings
from floorbench.processors.registry import ModelContext, create_model
from floorbench.records import FailureKind, write_json_atomic
from floorbench.redact import redact, redact_text, redact_url
from floorbench.scenarios.validate import LoadedSuite, load_suite
from floorbench.transports.rooms import room_name
from floorbench.transports.server import LiveKitConnection

log = logging.getLogger(__name__)
MAX_JOBS = 64
MAX_ROOM_S = 3600.0
"""the longest room limit a worker accepts from a job, unless its --max-room-s says otherwise"""


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


@dataclass(frozen=True)
class Pins:
    """What this worker was started to do; a job asking for anything else is refused (module docstring)."""

    out_root: Path
    """every run folder must resolve inside this folder"""
    model: str | None = None
    """the model's name, with `config` the worker's own copy (``--model``/``--config``); None: only `config_hash`"""
    config: dict[str, Any] | None = None
    config_hash: str = ""
    """`dispatch.model_config_hash` of the model and config every job must carry"""
    bound: dict[str, str] = field(default_factory=dict)
    """the schedule options of the worker's own bindings (``--persona-url``/``--persona-key-env``)"""
    max_room_s: float = MAX_ROOM_S
    """the longest room limit (a job's ``timeout_s``) it accepts"""

    @classmethod
    def of(cls, out_root: Path, model: str | None, config: dict[str, Any] | None, config_hash: str | None,
           bound: dict[str, str] | None = None, max_room_s: float = MAX_ROOM_S) -> Pins:
        """From the command line: ``--model``/``--config`` (the hash computed) or ``--config-hash`` alone."""
        extra = {"bound": dict(bound or {}), "max_room_s": max_room_s}
        if model is not None:
            digest = dispatch.model_config_hash(model, config or {})
            if config_hash and config_hash.lower() != digest:
                raise DispatchError(f"--config-hash {config_hash[:12]}… is not the hash of --model/--config ({digest[:12]}…); "
                                    "give one of them")
            return cls(out_root.resolve(), model, dict(config or {}), digest, **extra)
        if not config_hash or not re.fullmatch(r"[0-9a-fA-F]{64}", config_hash):
            raise DispatchError("worker needs the model it may run: --model NAME and/or --config FILE (as given to "
                                "`run`), or --config-hash SHA256 (printed by `run --play-on workers`)")
        return cls(out_root.resolve(), None, None, config_hash.lower(), **extra)

    @classmethod
    def from_command_line(cls, out_root: Path, model: str | None, config: Path | None,
                          config_hash: str | None, bound: dict[str, str] | None = None,
                          max_room_s: float = MAX_ROOM_S) -> Pins:
        """``--out-root``, ``--model``, ``--config`` and ``--config-hash`` read as `run` reads its
        --model/--config (`dispatch.model_and_config`), so the same options give the same hash."""
        from floorbench.scenarios.files import resolve_model_config
        from floorbench.scenarios.validate import read_yaml

        if not out_root.is_dir():
            raise DispatchError(f"--out-root {out_root} is not a folder; create it (the shared run folders go inside)")
        cfg: dict[str, Any] = {}
        if config is not None:
            data = read_yaml(resolve_model_config(config))
            if data is not None and not isinstance(data, dict):
                raise DispatchError(f"{config}: a model config must be a YAML mapping of settings")
            cfg = dict(data or {})
        name, cfg = dispatch.model_and_config(model, cfg)
        if name is None and config is not None:
            raise DispatchError("no model: pass --model NAME or a --config with 'adapter: NAME' (as to `run`)")
        return cls.of(out_root, name, cfg, config_hash, bound, max_room_s)

    def run_folder(self, out: str) -> Path | None:
        """The job's run folder if it is an existing, writable folder inside `out_root`, else None."""
        try:
            folder = Path(out)
            if not folder.is_absolute():
                return None
            real = folder.resolve(strict=True)
            root = self.out_root.resolve(strict=True)
        except (OSError, ValueError, RuntimeError):
            return None
        inside = real == root or root in real.parents
        return real if inside and real.is_dir() and os.access(real, os.W_OK) else None

    def why_not(self, spec: JobSpec) -> str | None:
        """None when the job asks for nothing but what this worker was started with; else the one-line reason."""
        if not dispatch.is_token(spec.token):
            return "the job's attempt token is not 16 hexadecimal digits (not a floorbench runner's job)"
        if self.run_folder(spec.out) is None:
            return (f"run folder {printable(spec.out)[:200]} is not a writable folder inside this worker's --out-root "
                    f"{self.out_root}; mount the shared run folder under it, at the same path on every box")
        digest = dispatch.model_config_hash(spec.model, spec.config)
        if digest != self.config_hash:
            return (f"the job's model and config hash to {digest[:12]}, this worker runs {self.config_hash[:12]}"
                    + (f" ({self.model})" if self.model else "") + "; start it with the run's --model/--config "
                    "or --config-hash")
        try:
            self.settings(spec)
        except DispatchError as e:
            return str(e)
        return None

    def settings(self, spec: JobSpec) -> ScenarioSettings:
        """The job's settings within this worker's bounds, with its own bindings (one-line DispatchError)."""
        return dispatch.settings_from(spec.settings, self.max_room_s, self.bound)

    def model_and_config(self, spec: JobSpec) -> tuple[str, dict[str, Any]]:
        """What the worker plays: its own copy when it has one (the job's only matched its hash)."""
        if self.model is not None and self.config is not None:
            return self.model, dict(self.config)
        return spec.model, dict(spec.config)


def vet(metadata: str, shelf: Shelf, pins: Pins) -> tuple[JobSpec | None, str | None]:
    """(the job, None) when this worker may run it; (the job or None, the one-line reason) when not."""
    try:
        spec = JobSpec.parse(metadata)
    except DispatchError as e:
        return None, str(e)
    why = pins.why_not(spec) or shelf.why_not(spec)
    return spec, why


def record_refusal(spec: JobSpec | None, worker: str, reason: str) -> None:
    """Log the refusal (the worker's own log); nothing is written for a refused job, not even there: the
    folder it names is the job's word. The runner, unanswered, fails the attempt as ``worker_lost``."""
    where = f"{printable(spec.scenario_id)[:120]} attempt {spec.attempt}" if spec is not None else "a job"
    log.warning("worker %s refused %s: %s", printable(worker), where, redact_text(printable(reason)))


@dataclass
class WorkerSettings:
    suites: list[Path]
    connection: LiveKitConnection
    agent: str = dispatch.DEFAULT_AGENT
    max_jobs: int = 1
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")
    pins: Pins | None = None
    """what the worker may do; `serve` refuses to start without"""


async def run_job(spec: JobSpec, shelf: Shelf, conn: LiveKitConnection, worker: str, pins: Pins) -> bool:
    """Claim, play and publish one attempt (vetted by `vet`); True when its result landed in the run folder."""
    why = pins.why_not(spec) or shelf.why_not(spec)  # again: the entry point is handed the metadata anew
    folder = pins.run_folder(spec.out)
    if why is not None or folder is None:
        raise DispatchError(f"job refused: {why or 'run folder outside --out-root'}")
    out = folder
    model_name, config = pins.model_and_config(spec)
    suite, _ = shelf.suites[spec.suite]
    scenario = next(s for s in suite.scenarios if s.scenario_id == spec.scenario_id)
    where = dispatch.claim(out, spec, worker)
    if where is None:
        log.info("%s attempt %d: another worker claimed it first", spec.scenario_id, spec.attempt)
        return False
    beating = asyncio.create_task(_beat(out, spec.token), name="heartbeat")
    try:
        try:
            model = create_model(ModelContext(name=model_name, config=config, scenario=scenario,
                                              suite=suite.suite, suite_root=suite.root))
        except Exception as e:  # the runner built this model; a box without its extras or keys cannot
            reason = redact_text(f"worker {worker}: cannot create model {spec.model!r}: {str(e).splitlines()[0][:200]}")
            room = room_name(spec.room_run_id(), spec.scenario_id)
            meta = dispatch.stand_in_meta(scenario, spec.suite, room, {"name": model_name}, spec.attempt,
                                          FailureKind.bad_input, reason)
            write_json_atomic(where / spec.scenario_id / "meta.json", meta)
        else:
            run = ScenarioRun(spec.room_run_id(), suite, scenario, model, conn, where, pins.settings(spec))
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

    if settings.pins is None:
        raise DispatchError("a worker needs --out-root and its model (--model/--config or --config-hash)")
    pins = settings.pins
    shelf = Shelf.load(settings.suites)
    conn = settings.connection
    server = AgentServer(
        ws_url=conn.url, api_key=conn.api_key, api_secret=conn.api_secret,
        job_executor_type=JobExecutorType.THREAD, num_idle_processes=settings.max_jobs,
        load_threshold=1.0, host="127.0.0.1", port=0, shutdown_process_timeout=15.0,
        load_fnc=lambda: len(server.active_jobs) / settings.max_jobs,
    )

    async def on_request(req: JobRequest) -> None:
        spec, why = vet(req.job.metadata, shelf, pins)
        if why is not None:  # recorded: if no worker takes the job, the runner fails it with this reason
            record_refusal(spec, settings.name, why)
        if spec is None or why is not None or len(server.active_jobs) >= settings.max_jobs:  # busy: a full box
            await req.reject(terminate=False)  # LiveKit may offer it to another worker
            return
        await req.accept(identity=f"floorbench-worker-{spec.token}")

    async def entry(ctx: JobContext) -> None:
        try:
            spec, why = vet(ctx.job.metadata, shelf, pins)
            if spec is None or why is not None:
                record_refusal(spec, settings.name, why or "unreadable job")
                return
            await run_job(spec, shelf, conn, settings.name, pins)
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
    pins = settings.pins
    return {"agent": settings.agent, "max_jobs": settings.max_jobs, "worker": settings.name,
            "suites": [str(p) for p in settings.suites],
            "out_root": str(pins.out_root) if pins else None, "model": pins.model if pins else None,
            "config_hash": pins.config_hash if pins else None,
            "bound": {k: redact_url(v) if k.endswith("_url") else v for k, v in (pins.bound if pins else {}).items()},
            "max_room_s": pins.max_room_s if pins else None}
