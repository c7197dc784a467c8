"""The run loop: scenarios one after another, each in its own room, with a progress bar.

`run_suite` validates the suite and creates the model (config errors surface
before any room), starts a managed LiveKit server unless a connection is given,
and leaves ``OUT/run.json`` plus one folder per scenario. A failed scenario is
recorded as failed with its reason and the run goes on; if a managed server
died, it is restarted for the next scenario.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench import __version__
from floorbench.pipelines.participant import settle
from floorbench.pipelines.scenario_run import ScenarioRun, ScenarioSettings
from floorbench.processors.registry import ModelContext, create_model
from floorbench.records import Outcome, RunMeta, write_json_atomic
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


@dataclass
class RunSummary:
    out: Path
    metas: list[RunMeta]

    @property
    def completed(self) -> int:
        return sum(1 for m in self.metas if m.outcome == Outcome.completed)

    @property
    def failed(self) -> int:
        return sum(1 for m in self.metas if m.outcome != Outcome.completed)


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
        raise ServerError(f"LiveKit server at {conn.url} did not answer in {timeout_s:.0f} s; check the URL") from None
    except Exception as e:
        msg = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise ServerError(
            f"cannot reach LiveKit at {conn.url} ({msg}); start one with `floorbench server` "
            "or check --livekit-url and LIVEKIT_API_KEY/SECRET"
        ) from None
    finally:
        await settle(lk.aclose(), 5.0, f"closing the LiveKit API client for {conn.url}")


async def run_suite(
    opts: RunOptions, on_scenario: Callable[[RunMeta], None] | None = None
) -> RunSummary:
    suite = load_suite(opts.suite)
    chosen = select_scenarios(suite, opts.scenarios, opts.limit)
    if not chosen:
        raise ValueError(f"{opts.suite}: no scenarios selected")
    # create once before any room, so a bad config or a missing key fails the run at once
    model = create_model(
        ModelContext(
            name=opts.model, config=opts.config, scenario=chosen[0], suite=suite.suite, suite_root=suite.root
        )
    )
    opts.out.mkdir(parents=True, exist_ok=True)
    run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
    server: LiveKitServer | None = None
    conn = opts.connection
    if conn is None:
        server = LiveKitServer(log_path=opts.out / "livekit.log")
        conn = server.start()  # main thread: the server's death signal is tied to it
    run_info: dict[str, Any] = {
        "record_version": 1,
        "floorbench_version": __version__,
        "run_id": run_id,
        "suite": suite.suite.name,
        "suite_path": str(opts.suite.resolve()),
        "model": model.card(),
        "livekit": {"url": conn.url, "managed": server is not None},
        "started_wall": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "scenarios": [],
    }
    metas: list[RunMeta] = []
    progress = _progress(opts.progress, len(chosen))
    try:
        await check_reachable(conn)
        for scenario in chosen:
            # every model gets a fresh session: its per-scenario context carries the scenario
            model = create_model(
                ModelContext(
                    name=opts.model,
                    config=opts.config,
                    scenario=scenario,
                    suite=suite.suite,
                    suite_root=suite.root,
                )
            )
            if server is not None and not server.alive():
                server.stop()
                server = LiveKitServer(log_path=opts.out / "livekit.log")
                conn = server.start()
            progress.describe(scenario.scenario_id)
            meta = await ScenarioRun(run_id, suite, scenario, model, conn, opts.out, opts.settings, server).run()
            metas.append(meta)
            run_info["scenarios"].append(
                {
                    "scenario_id": meta.scenario_id,
                    "outcome": meta.outcome,
                    "failure_kind": meta.failure_kind,
                    "failure_reason": meta.failure_reason,
                }
            )
            write_json_atomic(opts.out / "run.json", run_info)
            progress.advance(meta)
            if on_scenario is not None:
                on_scenario(meta)
    finally:
        run_info["ended_wall"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        write_json_atomic(opts.out / "run.json", run_info)
        progress.close()
        if server is not None:
            server.stop()
    return RunSummary(opts.out, metas)


class _progress:
    """A rich progress bar over scenarios (or nothing, for tests and pipes)."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.bar = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[last]}"),
            )
            self.bar.start()
            self.task = self.bar.add_task("scenarios", total=total, last="")

    def describe(self, scenario_id: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=scenario_id)

    def advance(self, meta: RunMeta) -> None:
        if self.bar is not None:
            last = f"{meta.scenario_id}: {meta.outcome}" + (f" ({meta.failure_reason})" if meta.failure_reason else "")
            self.bar.update(self.task, advance=1, last=last)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
