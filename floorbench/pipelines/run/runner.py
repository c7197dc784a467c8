"""The run loop: scenarios, N at a time (``--concurrency``), each in its own room, with progress.

`run_suite` validates the suite and creates the model (config errors surface
before any room), starts a managed LiveKit server unless a connection is given,
and leaves ``OUT/run.json`` plus one folder per scenario. With ``concurrency``
N, N scenarios play at once in one event loop, each in its own room on the same
server with its own model process, started in suite order; what they leave is
exactly what a one-at-a-time run leaves (run.json is rewritten, atomically,
after each scenario finishes). A failed scenario is
recorded as failed with its reason and the run goes on; if a managed server
died, it is restarted for the next scenario.

An existing ``OUT`` is resumed (pipelines/run/resume.py): intact completed
scenarios are kept, the rest run; a folder of another suite or model is
refused. A scenario that failed for an infrastructure reason is tried again up
to ``retries`` times. Ctrl-C or SIGTERM stops cleanly: the running scenario is
marked failed (``interrupted``) — every running one, with concurrency —
never-started ones stay ``not_run`` in
run.json, and the next invocation resumes.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench import __version__
from floorbench.child_env import python_environment
from floorbench.errors import FloorbenchError
from floorbench.pipelines.dispatch.pool import MAX_PROCESSES, LocalPool, slots
from floorbench.pipelines.dispatch.runner import Dispatcher
from floorbench.pipelines.room.participant import settle
from floorbench.pipelines.run import resume
from floorbench.pipelines.run.auto_concurrency import AutoConcurrency, estimate
from floorbench.pipelines.run.model_fork import model_forks
from floorbench.pipelines.run.model_process import child_environment
from floorbench.pipelines.run.progress import RunProgress
from floorbench.pipelines.run.run_book import RunBook, now_wall
from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings
from floorbench.processors.registry import Model, ModelContext, create_model
from floorbench.records import Outcome, RunMeta, read_meta
from floorbench.redact import redact, redact_text, redact_url
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.validate import LoadedSuite, load_suite
from floorbench.transports.server import LiveKitConnection, LiveKitServer, ServerError


@dataclass
class RunOptions:
    suite: Path
    model: str
    out: Path
    config: dict[str, Any] = field(default_factory=dict)
    connection: LiveKitConnection | None = None
    """None: start a managed LiveKit server on 127.0.0.1 for this run"""
    scenarios: list[str] | None = None
    limit: int | None = None
    settings: ScenarioSettings = field(default_factory=ScenarioSettings)
    progress: bool = True
    """a rich progress bar (a terminal)"""
    progress_lines: bool = False
    """without the bar: one stderr line per finished scenario, with the counts and the time left"""
    concurrency: int = 1
    """scenarios at once, each in its own room (1..MAX_CONCURRENCY); with ``auto_concurrency`` the ceiling"""
    auto_concurrency: bool = False
    """``--concurrency auto``: start from `auto_concurrency.estimate`, steer N by the timing verdicts,
    and run a scenario that came back degraded once more at the lowered N"""
    retries: int = 0
    """tries again, per scenario, after an infrastructure failure (resume.INFRASTRUCTURE)"""
    workers: str | None = None
    """``--play-on workers[:AGENT]``: the agent name of the `floorbench worker`s that play the scenarios
    (pipelines/dispatch_runner.py); None: this process plays them"""
    processes: int = 1
    """``--processes P``: with P > 1, P `floorbench worker` processes on this box play the rooms, started on
    the run's server and dispatched to as `workers` are (pipelines/dispatch/pool.py); 1: this process plays them"""


log = logging.getLogger(__name__)
MAX_RETRIES = 10
MAX_CONCURRENCY = 64
"""rooms at once in one runner (one event loop); two cores hold two with every turn found (README)"""


class RunInterrupted(FloorbenchError):
    """SIGTERM stopped the run; what finished is kept and the next `run` resumes."""


@dataclass
class RunSummary:
    out: Path
    metas: list[RunMeta]
    """every selected scenario that has a meta.json, kept or run now, in suite order"""
    counts: dict[str, int] = field(default_factory=dict)
    """run.json's counts: outcomes over every planned scenario, timing verdicts of the completed"""
    kept: list[str] = field(default_factory=list)
    """completed scenarios found intact in OUT and not run again"""

    @property
    def completed(self) -> int:
        return sum(1 for m in self.metas if m.outcome == Outcome.completed)

    @property
    def failed(self) -> int:
        return sum(1 for m in self.metas if m.outcome != Outcome.completed)

    @property
    def degraded(self) -> int:
        return sum(1 for m in self.metas if m.outcome == Outcome.completed and m.timing and m.timing.verdict != "ok")


def select_scenarios(suite: LoadedSuite, ids: list[str] | None, limit: int | None) -> list[Any]:
    chosen = suite.scenarios
    if ids:
        unknown = [i for i in ids if i not in suite.files]
        if unknown:
            raise ValueError(f"{suite.root}: unknown scenario id(s) {', '.join(unknown)}; see `floorbench suite info`")
        chosen = [s for s in suite.scenarios if s.scenario_id in ids]
    return chosen[:limit] if limit else chosen


async def check_reachable(conn: LiveKitConnection, timeout_s: float = 5.0) -> None:
    """One API call so an unreachable server or wrong key fails the run at once, in one line."""
    from livekit import api

    lk = api.LiveKitAPI(conn.http_url, conn.api_key, conn.api_secret)
    try:
        await asyncio.wait_for(lk.room.list_rooms(api.ListRoomsRequest()), timeout_s)
    except TimeoutError:
        raise ServerError(f"LiveKit server at {redact_url(conn.url)} did not answer in {timeout_s:.0f} s; check the URL") from None
    except Exception as e:
        msg = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise ServerError(
            f"cannot reach LiveKit at {redact_url(conn.url)} ({redact_text(msg)}); start one with `floorbench server` "
            "or check --livekit-url and LIVEKIT_API_KEY/SECRET"
        ) from None
    finally:
        await settle(lk.aclose(), 5.0, f"closing the LiveKit API client for {redact_url(conn.url)}")


async def run_suite(
    opts: RunOptions, on_scenario: Callable[[RunMeta], None] | None = None
) -> RunSummary:
    """Run (or resume) the selected scenarios; see the module docstring."""
    if not 0 <= opts.retries <= MAX_RETRIES:
        raise ValueError(f"--retries {opts.retries}: use 0 to {MAX_RETRIES}")
    if not 1 <= opts.concurrency <= MAX_CONCURRENCY:
        raise ValueError(f"--concurrency must be 1..{MAX_CONCURRENCY}, got {opts.concurrency}")
    suite = load_suite(opts.suite)
    planned = select_scenarios(suite, opts.scenarios, None)
    chosen = planned[: opts.limit] if opts.limit else planned
    if not chosen:
        raise ValueError(f"{opts.suite}: no scenarios selected")
    if opts.workers and opts.connection is None:
        raise ValueError("--play-on workers needs the LiveKit server the workers use: pass --livekit-url")
    if not 1 <= opts.processes <= MAX_PROCESSES:
        raise ValueError(f"--processes must be 1..{MAX_PROCESSES}, got {opts.processes}")
    if opts.processes > 1 and opts.workers:
        raise ValueError("--processes and --play-on workers: the workers are the processes; give one of them")
    if opts.processes > 1:
        for name, given in (("--impair", opts.settings.impair), ("--acoustics", opts.settings.acoustics)):
            if given is not None and given.active:
                raise ValueError(f"{name} with --processes is not built yet (it does not travel to a worker); "
                                 "run with --processes 1")
    runner = _Runner(opts, suite, _model_for(opts, suite, chosen[0]))
    # the run's model processes fork from one warm parent (started with the environment every model child gets)
    async with model_forks(python_environment(child_environment({}))):
        return await runner.run([s.scenario_id for s in planned], chosen, on_scenario)


def capacity_verdict(meta: RunMeta) -> str | None:
    """What a finished scenario tells `--concurrency auto`: its timing verdict; ``degraded`` for a failure
    that says the machine was overloaded (`resume.OVERLOAD`); None for any other failure."""
    if meta.outcome == Outcome.completed:
        return meta.timing.verdict if meta.timing else None
    return "degraded" if meta.failure_kind in resume.OVERLOAD else None


def _model_for(opts: RunOptions, suite: LoadedSuite, scenario: ScenarioRecord) -> Model:
    """A fresh model session: its per-scenario context carries the scenario."""
    return create_model(
        ModelContext(name=opts.model, config=opts.config, scenario=scenario, suite=suite.suite, suite_root=suite.root)
    )


class _Runner:
    """One invocation of `run_suite`: the server, run.json and the scenarios left to run."""

    def __init__(self, opts: RunOptions, suite: LoadedSuite, model: Model) -> None:
        # the model is created once before any room, so a bad config or a missing key fails the run at once
        self.opts, self.suite, self.out = opts, suite, opts.out
        impair = opts.settings.impair
        self.identity = resume.RunIdentity(
            suite.suite.name,
            resume.suite_hash(suite),
            redact(model.card()),
            impair.spec() if impair is not None and impair.active else None,
            acoustics.spec() if (acoustics := opts.settings.acoustics) is not None and acoustics.active else None,
        )
        self.prior = resume.read_run_info(self.out)
        if self.prior is not None:
            self.identity.check(self.prior, self.out / "run.json")
        self.run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        self.server: LiveKitServer | None = None
        self.conn = opts.connection
        self.stopped_by: str | None = None
        self.dispatcher: Dispatcher | None = None
        self.retired: list[Dispatcher] = []
        """dispatchers of a server that died (`_revive`): attempts still in them finish there, closed at the end"""
        self.pool: LocalPool | None = None
        self._reviving = asyncio.Lock()
        self.auto = (
            AutoConcurrency(min(estimate(), opts.concurrency), opts.concurrency) if opts.auto_concurrency else None
        )

    def _info(self) -> dict[str, Any]:
        assert self.conn is not None
        return {
            "record_version": 1,
            "floorbench_version": __version__,
            "run_id": self.run_id,
            "suite": self.identity.suite,
            "suite_hash": self.identity.suite_hash,
            "suite_path": str(self.opts.suite.resolve()),
            "model": self.identity.model,
            "network": self.identity.network,
            "acoustics": self.identity.acoustics,
            "livekit": {"url": redact_url(self.conn.url), "managed": self.server is not None},
            "processes": self.opts.processes,
            "started_wall": now_wall(),
            "scenarios": [],
        }

    def _ensure_server(self) -> LiveKitConnection:
        """The connection to use; a managed server that died is restarted first."""
        if self.conn is None or (self.server is not None and not self.server.alive()):
            if self.server is not None:
                self.server.stop()
            self.server = LiveKitServer(log_path=self.out / "livekit.log")
            self.conn = self.server.start()  # main thread: the server's death signal is tied to it
        return self.conn

    async def run(
        self, planned: list[str], chosen: list[ScenarioRecord], on_scenario: Callable[[RunMeta], None] | None
    ) -> RunSummary:
        self.out.mkdir(parents=True, exist_ok=True)
        todo = resume.plan(self.out, [s.scenario_id for s in chosen])
        self.identity.check_kept(self.out, todo.keep)
        book: RunBook | None = None
        queue = [s for s in chosen if s.scenario_id in todo.run]
        mode = "bar" if self.opts.progress else "lines" if self.opts.progress_lines else "off"
        progress = RunProgress(mode, len(queue))
        remove_handler = self._on_sigterm()
        try:
            await check_reachable(self._ensure_server())
            book = RunBook(self.out, self._info(), [s.scenario_id for s in self.suite.scenarios], self.prior)
            book.plan(planned, todo.keep)
            agent = self.opts.workers
            if self.opts.processes > 1 and queue:
                agent = await self._start_pool()
            if agent:
                self.dispatcher = self._dispatcher(self._ensure_server(), agent)
            await self._run_all(queue, book, progress, on_scenario)
        except asyncio.CancelledError:
            if self.stopped_by is None:
                raise
        finally:
            remove_handler()
            if book is not None:
                for sid in sorted(progress.tally.running):  # stopped mid-way: what their meta.json says now
                    book.record_folder(sid)
                book.write(ended=True, interrupted=self.stopped_by is not None)
            progress.close()
            for d in [*self.retired, *([self.dispatcher] if self.dispatcher is not None else [])]:
                await d.aclose()
            if self.pool is not None:
                await asyncio.to_thread(self.pool.stop)
            if self.server is not None:
                self.server.stop()
        return self._summary(chosen, book, todo.keep)

    async def _start_pool(self) -> str:
        """P local workers on the run's server, under an agent name of this run's own (pool.py)."""
        from floorbench.pipelines.dispatch.protocol import model_config_hash

        agent = f"floorbench-pool-{self.run_id}"
        self.pool = LocalPool(self.opts.processes, self.opts.concurrency, self.opts.suite, self.out,
                              model_config_hash(self.opts.model, self.opts.config), agent)
        log.info("starting %d worker processes, %d room(s) each", self.opts.processes,
                 slots(self.opts.concurrency, self.opts.processes))
        await self.pool.start(self._ensure_server())
        return agent

    def _dispatcher(self, conn: LiveKitConnection, agent: str) -> Dispatcher:
        return Dispatcher.for_run(
            conn, agent, suite=self.identity.suite, suite_hash=self.identity.suite_hash, model=self.opts.model,
            config=self.opts.config, settings=self.opts.settings, out=self.out, run_id=self.run_id,
        )

    async def _revive(self) -> None:
        """`--processes` on a managed server that died: the server starts again, then the pool's workers on it and
        a dispatcher for them, as a one-process run restarts its server for the next attempt. The first attempt to
        find the server dead does it; the others wait for it (the lock) and find it alive."""
        async with self._reviving:
            if self.pool is None or self.server is None or self.server.alive() or self.dispatcher is None:
                return
            log.warning("the run's LiveKit server died; starting it again, and %d pool workers on it",
                        self.opts.processes)
            await asyncio.to_thread(self.pool.stop)
            conn = self._ensure_server()
            await self.pool.start(conn)
            self.retired.append(self.dispatcher)
            self.dispatcher = self._dispatcher(conn, self.pool.agent)

    async def _run_all(
        self, queue: list[ScenarioRecord], book: RunBook, progress: RunProgress, on_scenario: Callable[[RunMeta], None] | None
    ) -> None:
        """`concurrency` workers take the scenarios in suite order; any stop cancels every running one.

        A cancelled scenario marks itself ``interrupted`` in its meta.json before its task ends, so
        once the workers are awaited here the caller can read every running scenario's folder.
        """
        scenarios = iter(queue)
        auto = self.auto
        gate = asyncio.Condition()
        running = 0

        async def take_a_room() -> int:
            nonlocal running
            async with gate:
                await gate.wait_for(lambda: auto is None or running < auto.n)
                running += 1
            return auto.started() if auto is not None else 0

        async def leave_the_room() -> None:
            nonlocal running
            async with gate:
                running -= 1
                gate.notify_all()

        async def play(scenario: ScenarioRecord, again: bool) -> RunMeta:
            generation = await take_a_room()
            try:
                progress.started(scenario.scenario_id)
                meta = await self._attempts(scenario)
            finally:
                await leave_the_room()
            if auto is not None:
                async with gate:
                    auto.finished(generation, capacity_verdict(meta))
                    book.concurrency(auto.record())
                    gate.notify_all()
            if auto is not None and not again and meta.outcome == Outcome.completed and meta.timing and meta.timing.verdict != "ok":
                had = auto.started_under(generation)
                if auto.worth_rerun(generation):
                    log.warning("%s: timing degraded at %d rooms; running it again at %d", scenario.scenario_id, had, auto.n)
                    again_queue.append(scenario)
                elif not floor_said:
                    floor_said.append(scenario.scenario_id)
                    log.warning(
                        "%s: timing degraded at %d room(s), the fewest --concurrency auto uses: this machine does not "
                        "hold the timing bounds even so (its reasons are in meta.json); degraded scenarios are kept, "
                        "not played again", scenario.scenario_id, had,
                    )
            return meta

        again_queue: list[ScenarioRecord] = []
        floor_said: list[str] = []

        async def worker() -> None:
            for scenario in scenarios:  # shared: each scenario goes to exactly one worker
                meta = await play(scenario, again=False)
                book.record(meta)
                progress.finished(meta)
                if on_scenario is not None:
                    on_scenario(meta)
            while again_queue:  # auto: degraded scenarios once more, after the first pass
                meta = await play(again_queue.pop(0), again=True)
                book.record(meta)
                progress.rerun_finished(meta.scenario_id)
                if on_scenario is not None:
                    on_scenario(meta)

        width = auto.max_n if auto is not None else self.opts.concurrency
        workers = [asyncio.create_task(worker(), name=f"room-{i}") for i in range(min(width, len(queue)))]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    def _summary(self, chosen: list[ScenarioRecord], book: RunBook | None, kept: list[str]) -> RunSummary:
        """What this invocation leaves; a SIGTERM is a one-line `RunInterrupted` naming how to resume."""
        counts = book.counts() if book is not None else {}
        if self.stopped_by is not None:
            raise RunInterrupted(
                f"stopped by {self.stopped_by}: {counts.get('completed', 0)} completed, "
                f"{counts.get('not_run', 0)} not run, kept in {self.out}; run the same command again to resume"
            )
        metas = [m for m in (read_meta(self.out / s.scenario_id) for s in chosen) if m is not None]
        return RunSummary(self.out, metas, counts, kept)

    async def _attempts(self, scenario: ScenarioRecord) -> RunMeta:
        """Run the scenario; again after an infrastructure failure while retries are left. Every attempt is kept.

        Dispatched, an attempt a killed runner left in flight is settled first: a result its worker published
        since is this scenario's result; otherwise its token is revoked and it is put on record (interrupted).
        """
        if self.dispatcher is not None and (kept := self.dispatcher.take_over(scenario, self.identity.model)):
            return kept
        tries = 0
        while True:
            tries += 1
            attempt = resume.archive_attempt(self.out / scenario.scenario_id)
            model = _model_for(self.opts, self.suite, scenario)
            if self.dispatcher is not None:  # a `floorbench worker` plays it
                await self._revive()
                meta = await self.dispatcher.attempt(scenario, attempt, self.identity.model)
                if not resume.should_retry(meta, tries, self.opts.retries):
                    return meta
                log.warning("%s: %s (%s); dispatching again", scenario.scenario_id, meta.failure_kind, meta.failure_reason)
                continue
            conn = self._ensure_server()
            run = ScenarioRun(self.run_id, self.suite, scenario, model, conn, self.out, self.opts.settings, self.server)
            run.meta.attempt = attempt
            meta = await run.run()
            if not resume.should_retry(meta, tries, self.opts.retries):
                return meta
            log.warning("%s: %s (%s); trying again", scenario.scenario_id, meta.failure_kind, meta.failure_reason)

    def _on_sigterm(self) -> Callable[[], object]:
        """SIGTERM cancels the run like Ctrl-C does; returns the undo. Off the main thread, nothing to do."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def stop() -> None:
            self.stopped_by = "SIGTERM"
            if task is not None:
                task.cancel()

        try:
            loop.add_signal_handler(signal.SIGTERM, stop)
        except (NotImplementedError, RuntimeError, ValueError):
            return lambda: None
        return lambda: loop.remove_signal_handler(signal.SIGTERM)
