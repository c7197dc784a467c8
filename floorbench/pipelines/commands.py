"""CLI commands of the live path: `server`, `run`, `models`.

Heavy imports (LiveKit, pipecat) happen inside the command functions. Every
expected failure prints one line, ``error: …``, and exits with code 2.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer


def fail(msg: str) -> NoReturn:
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


def read_model_config(path: Path | None) -> dict[str, Any]:
    """A model config YAML (a mapping); one-line errors for a missing or broken file."""
    if path is None:
        return {}
    from floorbench.scenarios.validate import ScenarioError, read_yaml

    try:
        data = read_yaml(path)
    except ScenarioError as e:
        fail(str(e))
    if data is None:
        return {}
    if not isinstance(data, dict):
        fail(f"{path}: a model config must be a YAML mapping of settings")
    return dict(data)  # type: ignore[arg-type]


def server(
    port: Annotated[int, typer.Option(help="HTTP/WebSocket port on 127.0.0.1")] = 7880,
    udp_port: Annotated[int, typer.Option(help="UDP port for WebRTC media")] = 7882,
    install: Annotated[bool, typer.Option(help="only install the pinned LiveKit server binary")] = False,
) -> None:
    """Start a LiveKit server bound to 127.0.0.1 until Ctrl-C (prints URL and key; the secret stays in the environment you set)."""
    import os
    import signal
    import time

    from floorbench.transports.server import LiveKitServer, ServerError, install_binary

    _check_ports(("--port", port), ("--udp-port", udp_port))
    if install:
        try:
            typer.echo(str(install_binary()))
        except ServerError as e:
            fail(str(e))
        return
    secret = os.environ.get("LIVEKIT_API_SECRET")
    key = os.environ.get("LIVEKIT_API_KEY", "devkey")
    srv = LiveKitServer(port=port, udp_port=udp_port, api_key=key, api_secret=secret or "")
    try:
        conn = srv.start()
    except ServerError as e:
        fail(str(e))
    typer.echo(f"LiveKit server on {conn.url} (key {conn.api_key}); Ctrl-C stops it")
    if not secret:
        typer.echo("set LIVEKIT_API_SECRET before starting to choose the secret; a random one is in use")
    stop = False

    def _stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    try:
        while not stop:
            if not srv.alive():
                fail("the LiveKit server exited; see its log")
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


def models() -> None:
    """List the systems under test that `run --model` accepts."""
    from floorbench.processors.registry import BUILTIN_MODELS, model_names

    for name in model_names():
        typer.echo(f"{name:16s} {BUILTIN_MODELS.get(name, 'registered')}")


CONCURRENCY_HELP = (
    "scenarios at once (1..64), each in its own room with its own model process; "
    "check the timing verdicts (run.json counts) before raising it"
)


def run(
    suite: Annotated[
        Path, typer.Option(help="suite folder (holds suite.yaml), or a packaged suite by name: example")
    ],
    out: Annotated[Path, typer.Option(help="run folder to write")],
    model: Annotated[str | None, typer.Option(help="model name (see `floorbench models`)")] = None,
    config: Annotated[
        Path | None, typer.Option(help="model config YAML, or a packaged one by name (openai-realtime, ...)")
    ] = None,
    livekit_url: Annotated[
        str | None,
        typer.Option(help="existing LiveKit server (key/secret from LIVEKIT_API_KEY/SECRET); default: start one"),
    ] = None,
    scenario: Annotated[list[str] | None, typer.Option(help="only these scenario ids")] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N scenarios (1..200000)")] = None,
    retries: Annotated[
        int, typer.Option(help="try a scenario again up to K times after an infrastructure failure (server died, join timeout)")
    ] = 0,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", help=CONCURRENCY_HELP)] = 1,
    identity: Annotated[str | None, typer.Option(help="external model: the participant identity to wait for")] = None,
    dispatch: Annotated[str | None, typer.Option(help="external model: LiveKit agent name to dispatch")] = None,
    join_timeout: Annotated[float, typer.Option(help="seconds to wait for the model to join (1..3600)")] = 60.0,
    print_join: Annotated[bool, typer.Option(help="print the room URL and a join token per scenario")] = False,
    record_rate: Annotated[int, typer.Option(help="recording sample rate (16000/24000/48000)")] = 16000,
    quiet: Annotated[bool, typer.Option(help="no progress bar")] = False,
) -> None:
    """Run a suite live against a model: one LiveKit room per scenario, one folder per scenario."""
    from floorbench.errors import FloorbenchError
    from floorbench.pipelines.runner import RunOptions, run_suite
    from floorbench.pipelines.scenario_run import ScenarioSettings
    from floorbench.processors.registry import ModelError
    from floorbench.scenarios.files import resolve_model_config, resolve_suite
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.transports.server import LiveKitConnection, ServerError

    _check_run_numbers(limit, join_timeout, record_rate, concurrency)
    try:
        suite = resolve_suite(suite)
        config = resolve_model_config(config) if config is not None else None
    except ScenarioError as e:
        fail(str(e))
    cfg = read_model_config(config)
    name = model or cfg.pop("adapter", None) or cfg.pop("model", None)
    if not name:
        fail("no model: pass --model NAME or a --config with 'adapter: NAME'")
    if identity:
        cfg["identity"] = identity
    if dispatch:
        cfg["dispatch"] = dispatch
    try:
        conn = LiveKitConnection.from_env(livekit_url)
        opts = RunOptions(
            suite=suite,
            model=str(name),
            out=out,
            config=cfg,
            connection=conn,
            scenarios=scenario or None,
            limit=limit,
            settings=ScenarioSettings(
                record_rate=record_rate, model_join_timeout_s=join_timeout, print_join=print_join
            ),
            progress=not quiet and sys.stderr.isatty(),
            progress_lines=quiet or not sys.stderr.isatty(),
            retries=retries,
            concurrency=concurrency,
        )
        summary = asyncio.run(run_suite(opts))
    except (FloorbenchError, ScenarioError, ModelError, ServerError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail(f"interrupted; finished scenarios are kept in {out}; run the same command again to resume")
    c = summary.counts
    kept = f" ({len(summary.kept)} kept from before)" if summary.kept else ""
    typer.echo(
        f"{summary.completed} completed{kept}, {summary.failed} failed, {c.get('not_run', 0)} not run; "
        f"timing {c.get('timing_ok', 0)} ok, {c.get('timing_degraded', 0)} degraded → {out}"
    )


MAX_SCENARIOS = 200_000
"""the generator's largest suite: 100 000 pairs"""
MAX_JOIN_TIMEOUT_S = 3600
RECORD_RATES = (16000, 24000, 48000)


def _check_run_numbers(limit: int | None, join_timeout: float, record_rate: int, concurrency: int = 1) -> None:
    """Every number `run` takes is bounded, with the bound in the one-line error."""
    from floorbench.errors import OptionError, check_choice, check_range
    from floorbench.pipelines.runner import MAX_CONCURRENCY

    try:
        if limit is not None:
            check_range("--limit", limit, 1, MAX_SCENARIOS)
        check_range("--join-timeout", join_timeout, 1, MAX_JOIN_TIMEOUT_S)
        check_choice("--record-rate", record_rate, RECORD_RATES)
        check_range("--concurrency", concurrency, 1, MAX_CONCURRENCY)
    except OptionError as e:
        fail(str(e))


def _check_ports(*ports: tuple[str, int]) -> None:
    from floorbench.errors import OptionError, check_range

    try:
        for option, port in ports:
            check_range(option, port, 1, 65535)
    except OptionError as e:
        fail(str(e))


def register(app: typer.Typer) -> None:
    """`server`, `models`, `run` on the floorbench CLI (in this order in --help)."""
    app.command()(server)
    app.command()(models)
    app.command()(run)
