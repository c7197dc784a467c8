"""CLI command `worker`: a LiveKit Agents worker for `run --play-on workers` (pipelines/worker.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from floorbench.pipelines.command_support import StopOnSigterm, fail


def worker(
    suite: Annotated[list[Path], typer.Option(help="suite folder this worker holds (repeat for more suites)")],
    out_root: Annotated[
        Path, typer.Option(help="the only folder it writes in: every job's run folder must lie inside it")
    ],
    model: Annotated[str | None, typer.Option(help="the model it runs, as given to `run --model`")] = None,
    config: Annotated[
        Path | None, typer.Option(help="the model config it runs, as given to `run --config` (jobs must match it)")
    ] = None,
    config_hash: Annotated[
        str | None, typer.Option(help="instead of --model/--config: the model config hash `run --play-on workers` prints")
    ] = None,
    livekit_url: Annotated[
        str | None, typer.Option(help="the LiveKit server (any node); key/secret from LIVEKIT_API_KEY/SECRET")
    ] = None,
    agent: Annotated[str, typer.Option(help="agent name to register; `run --play-on workers:AGENT` names it")] = "floorbench",
    max_jobs: Annotated[int, typer.Option(help="scenarios at once on this worker (its reported load limit, 1..64)")] = 1,
    persona_url: Annotated[
        str | None, typer.Option(help="the persona steps' endpoint (as `test --persona-url`); a job never sets one")
    ] = None,
    persona_key_env: Annotated[
        str | None, typer.Option(help="the variable whose key goes to --persona-url (default FLOORBENCH_PERSONA_KEY when set)")
    ] = None,
    max_room_s: Annotated[float, typer.Option(help="the longest room limit a job may ask for (seconds, 1..86400)")] = 3600.0,
) -> None:
    """Take scenario jobs dispatched by `run --play-on workers` until Ctrl-C; results go to the run's shared folder.

    The worker runs only what its command line allows: run folders inside --out-root, the --suite copies
    (by manifest hash), the --model/--config (or --config-hash), its own --persona-url/--persona-key-env
    and rooms up to --max-room-s; it refuses any other job and writes nothing for it.
    """
    from floorbench.errors import FloorbenchError, OptionError, check_range
    from floorbench.pipelines.dispatch.worker import MAX_JOBS, Pins, WorkerSettings, describe, serve
    from floorbench.pipelines.run.runner import check_reachable
    from floorbench.safe_http import BindingError, KeyBinding
    from floorbench.scenarios.files import resolve_suite
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.transports.server import LiveKitConnection, ServerError

    try:
        check_range("--max-jobs", max_jobs, 1, MAX_JOBS)
        check_range("--max-room-s", max_room_s, 1, 86_400)
        try:
            bound = KeyBinding.of(persona_url, persona_key_env).options()
        except BindingError as e:
            raise OptionError(str(e)) from None
        pins = Pins.from_command_line(out_root, model, config, config_hash, bound, max_room_s)
        suites = [resolve_suite(s) for s in suite]  # a missing --suite is said first, not the server
        for s in suites:
            if not s.is_dir():
                raise OptionError(f"--suite {s}: not a folder; give the suite folder this worker holds")
        conn = LiveKitConnection.from_env(livekit_url)
        if conn is None:
            fail("worker needs a LiveKit server: pass --livekit-url (or LIVEKIT_URL) with LIVEKIT_API_KEY/SECRET")
        settings = WorkerSettings(suites, conn, agent, max_jobs, pins=pins)
        # one bounded API call first, as `run` makes: an unreachable server or a wrong key is one line
        # now, not a worker retrying its connection for ever
        asyncio.run(check_reachable(conn))
        typer.echo(json.dumps(describe(settings)), err=True)
        asyncio.run(serve(settings))
    except (OptionError, ServerError, ScenarioError, FloorbenchError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        pass


def serve_nodes(nodes: int, port: int, key: str, secret: str | None) -> None:
    """`server --nodes N`: N LiveKit nodes and their Redis on 127.0.0.1 until Ctrl-C or SIGTERM; all die with it."""
    from floorbench.transports.server import LiveKitCluster, ServerError

    cluster = LiveKitCluster(nodes=nodes, base_port=port, api_key=key, api_secret=secret or "")
    stop = StopOnSigterm()
    try:
        conns = cluster.start()
        typer.echo(f"{nodes} LiveKit nodes sharing Redis {cluster.redis.address} (key {key}); Ctrl-C stops them")
        for i, conn in enumerate(conns, 1):
            typer.echo(f"node {i}: {conn.url}")
        if not secret:
            typer.echo("set LIVEKIT_API_SECRET before starting to choose the secret; a random one is in use")
        stop.hold(cluster.alive, "a LiveKit node or its Redis exited; see their logs")
    except ServerError as e:
        fail(str(e))
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


def register(app: typer.Typer) -> None:
    app.command()(worker)
