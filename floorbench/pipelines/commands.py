"""CLI commands of the live path: `server`, `run`, `models`.

Heavy imports (LiveKit, pipecat) happen inside the command functions. Every
expected failure prints one line, ``error: …``, and exits with code 2.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from floorbench.phone.commands import VIA_HELP, via_syntax

# (`fail` is also imported from here by other command modules: any of them may import this one)
from floorbench.pipelines.command_support import StopOnSigterm, fail, read_model_config


def server(
    port: Annotated[int, typer.Option(help="HTTP/WebSocket port on 127.0.0.1 ($FLOORBENCH_LIVEKIT_BIND: another address)")] = 7880,
    udp_port: Annotated[int, typer.Option(help="UDP port for WebRTC media")] = 7882,
    install: Annotated[bool, typer.Option(help="only install the pinned LiveKit server binary")] = False,
    nodes: Annotated[
        int, typer.Option(help="LiveKit nodes sharing one local Redis (node i on --port + 2i, UDP + 1); 1..8")
    ] = 1,
) -> None:
    """Start a LiveKit server bound to 127.0.0.1 (or $FLOORBENCH_LIVEKIT_BIND) until Ctrl-C (prints URL and key; the secret stays in the environment you set)."""
    import os

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
    if nodes != 1:
        from floorbench.pipelines.dispatch.commands import serve_nodes

        return serve_nodes(nodes, port, key, secret)
    srv = LiveKitServer(port=port, udp_port=udp_port, api_key=key, api_secret=secret or "")
    try:
        conn = srv.start()
    except ServerError as e:
        fail(str(e))
    typer.echo(f"LiveKit server on {conn.url} (key {conn.api_key}); Ctrl-C stops it")
    if not secret:
        typer.echo("set LIVEKIT_API_SECRET before starting to choose the secret; a random one is in use")
    stop = StopOnSigterm()
    try:
        stop.hold(srv.alive, "the LiveKit server exited; see its log")
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()


def models() -> None:
    """List the systems under test that `run --model` accepts."""
    from floorbench.processors.registry import model_names, model_source

    for name in model_names():
        typer.echo(f"{name:16s} {model_source(name)}")


IMPAIR_HELP = (
    "network impairment on the model's audio (a processor stage): delay100, jitter30, loss5, wan, none, "
    "or parts joined by '+' (delay100+loss1); recorded in meta.json"
)


ACOUSTICS_HELP = (
    "acoustic condition of the humans' audio (room, noise at an SNR, telephone line): office, car, cafe, phone, "
    "reverb, none, or parts joined by '+' (cafe+phone, cafe+snr5); recorded in meta.json; docs/acoustics.md"
)


CONCURRENCY_HELP = (
    "scenarios at once (1..64), each in its own room with its own model process; "
    "check the timing verdicts (run.json counts) before raising it. 'auto' (or 'auto:MAX') starts from "
    "one room per core and steers N by the timing verdicts, running degraded scenarios once more"
)
PROCESSES_HELP = (
    "spread the -j rooms over P worker processes on this box (1..64; 1: this process plays them all): "
    "one process's event loop saturates near one core, so on a many-core box give about one per 4 rooms"
)


PLAY_ON_HELP = (
    "where the rooms are played: 'local' (this process, the default) or 'workers[:AGENT]': `floorbench worker` "
    "processes on any box play them (LiveKit agent dispatch, default agent 'floorbench'); --out must be a "
    "folder every worker can write at the same path; --concurrency = jobs in flight (at most the workers' slots). "
    "Not --dispatch, which names the agent under test"
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
    concurrency: Annotated[str, typer.Option("--concurrency", "-j", help=CONCURRENCY_HELP)] = "1",
    processes: Annotated[int, typer.Option(help=PROCESSES_HELP)] = 1,
    identity: Annotated[str | None, typer.Option(help="external model: the participant identity to wait for")] = None,
    dispatch: Annotated[str | None, typer.Option(help="external model: LiveKit agent name to dispatch")] = None,
    via: Annotated[str | None, typer.Option(help=VIA_HELP, callback=via_syntax)] = None,
    join_timeout: Annotated[float, typer.Option(help="seconds to wait for the model to join (1..3600)")] = 60.0,
    print_join: Annotated[bool, typer.Option(help="print the room URL and a join token per scenario")] = False,
    record_rate: Annotated[int, typer.Option(help="recording sample rate (16000/24000/48000)")] = 16000,
    quiet: Annotated[bool, typer.Option(help="no progress bar")] = False,
    impair: Annotated[str | None, typer.Option(help=IMPAIR_HELP)] = None,
    impair_legs: Annotated[str, typer.Option(help="impaired legs of the model's audio: in, out or both")] = "both",
    impair_seed: Annotated[int | None, typer.Option(help="seed of the impairment's draws (0..2**31; default 0)")] = None,
    play_on: Annotated[str, typer.Option("--play-on", help=PLAY_ON_HELP)] = "local",
    workers: Annotated[str | None, typer.Option(hidden=True, help="the old name of --play-on workers")] = None,
    acoustics: Annotated[str | None, typer.Option(help=ACOUSTICS_HELP)] = None,
    acoustics_seed: Annotated[int | None, typer.Option(help="seed of the acoustic condition's draws (0..2**31; default 0)")] = None,
) -> None:
    """Run a suite live against a model: one LiveKit room per scenario, one folder per scenario."""
    from floorbench.errors import FloorbenchError
    from floorbench.pipelines.run.runner import RunOptions, run_suite
    from floorbench.pipelines.run.scenario_run import ScenarioSettings
    from floorbench.processors.registry import ModelError
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.transports.server import LiveKitConnection, ServerError

    rooms, auto_rooms = parse_concurrency(concurrency)
    check_run_numbers(limit, join_timeout, record_rate, rooms)
    profile = impair_profile(impair, impair_legs, impair_seed)
    condition = acoustics_profile(acoustics, acoustics_seed, via)
    play_on_agent = parse_play_on(play_on, workers)  # every option is checked before a server is named or a file written
    _check_run_spread(condition is not None, play_on_agent is not None, retries, processes)
    suite, config = resolved_inputs(suite, config)
    name, cfg = system_under_test(model, config, identity, dispatch, via)
    try:
        conn = LiveKitConnection.from_env(livekit_url)
        opts = RunOptions(
            suite=suite,
            model=name,
            out=out,
            config=cfg,
            connection=conn,
            scenarios=scenario or None,
            limit=limit,
            settings=ScenarioSettings(
                record_rate=record_rate, model_join_timeout_s=join_timeout, print_join=print_join, impair=profile,
                acoustics=condition,
            ),
            progress=not quiet and sys.stderr.isatty(),
            progress_lines=quiet or not sys.stderr.isatty(),
            retries=retries,
            concurrency=rooms,
            auto_concurrency=auto_rooms,
            workers=play_on_agent,
            processes=processes,
        )
        summary = asyncio.run(run_suite(opts))
    except (FloorbenchError, ScenarioError, ModelError, ServerError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail(f"interrupted; finished scenarios are kept in {out}; run the same command again to resume")
    echo_summary(summary, out)


def _check_run_spread(acoustics: bool, on_workers: bool, retries: int, processes: int) -> None:
    """`run`'s options on how its rooms are spread and retried, checked with the others (one line each)."""
    from floorbench.errors import OptionError, check_range
    from floorbench.pipelines.dispatch.pool import MAX_PROCESSES
    from floorbench.pipelines.run.runner import MAX_RETRIES

    if acoustics and on_workers:
        fail("--acoustics with --play-on workers: a worker plays its rooms as its own command line says; "
             "give --acoustics to the workers' runs, or play locally")
    try:
        check_range("--retries", retries, 0, MAX_RETRIES)
        check_range("--processes", processes, 1, MAX_PROCESSES)
    except OptionError as e:
        fail(str(e))


def echo_summary(summary: Any, out: Path) -> None:
    """The run's last line: its counts and where its folder is."""
    c = summary.counts
    kept = f" ({len(summary.kept)} kept from before)" if summary.kept else ""
    typer.echo(
        f"{summary.completed} completed{kept}, {summary.failed} failed, {c.get('not_run', 0)} not run; "
        f"timing {c.get('timing_ok', 0)} ok, {c.get('timing_degraded', 0)} degraded → {out}"
    )


def resolved_inputs(suite: Path, config: Path | None) -> tuple[Path, Path | None]:
    """The suite folder and the model config, packaged names resolved; a one-line exit when either is wrong."""
    from floorbench.scenarios.files import resolve_model_config, resolve_suite
    from floorbench.scenarios.validate import ScenarioError

    try:
        return resolve_suite(suite), resolve_model_config(config) if config is not None else None
    except ScenarioError as e:
        fail(str(e))


def system_under_test(
    model: str | None, config: Path | None, identity: str | None, dispatch: str | None, via: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The model's name (``--model``, else the config's ``adapter``/``model``) and its config;
    ``--via sip:URI`` makes it the phone leg calling that URI (`floorbench.phone.commands.via_system`)."""
    from floorbench.phone.commands import via_system
    from floorbench.phone.uri import PhoneError
    from floorbench.pipelines.dispatch.protocol import model_and_config

    name, cfg = model_and_config(model, read_model_config(config))  # as `floorbench worker --config` reads it
    try:
        name, cfg = via_system(via, model, cfg, name)
    except PhoneError as e:
        fail(str(e))
    if not name and (identity or dispatch):
        name = "external"  # an agent that joins by itself
    if not name:
        fail("no model: pass --model NAME or a --config with 'adapter: NAME'")
    if config is not None:  # the config's settings checked now, so an error names its file
        from floorbench.processors.adapter_config import ModelError
        from floorbench.processors.registry import model_class

        try:
            model_class(str(name), cfg).Settings.load(cfg, str(name), str(config))
        except ModelError as e:
            fail(str(e) if str(config) in str(e) else f"{config}: {e}")
    else:  # an unknown --model is said now, before a suite is written or a room started; by name only, so
        # the model's module (pipecat, its banner) is not imported for a command that fails on other input
        from floorbench.processors.registry import model_names

        if str(name) not in model_names():
            fail(f"unknown model {str(name)!r}; choose one of {', '.join(model_names())}")
    if identity:
        cfg["identity"] = identity
    if dispatch:
        cfg["dispatch"] = dispatch
    return str(name), cfg


def drawn_seed(option: str, name: str | None, seed: int | None, draws: str) -> int | None:
    """The seed of a drawn condition (`--impair`, `--acoustics`): 0 when not given; None with no condition
    named, and a one-line error for a seed given without one (it would be ignored) or out of range."""
    from floorbench.errors import OptionError, check_range

    if name is None:
        if seed is not None:
            fail(f"{option}-seed {seed} without {option}: the seed draws {draws}; give {option} NAME too, "
                 "or drop the seed")
        return None
    seed = 0 if seed is None else seed
    try:
        check_range(f"{option}-seed", seed, 0, 2**31)
    except OptionError as e:
        fail(str(e))
    return seed


def impair_profile(name: str | None, legs: str, seed: int | None) -> Any:
    """The parsed `--impair` profile (an ImpairProfile) or None; one-line error on a bad one (a seed without
    an impairment included: it would be ignored)."""
    from floorbench.processors.impair import ImpairError, parse_profile

    drawn = drawn_seed("--impair", name, seed, "an impairment")
    if name is None or drawn is None:
        return None
    try:
        return parse_profile(name, legs, drawn)
    except ImpairError as e:
        fail(str(e))


def acoustics_profile(name: str | None, seed: int | None, via: str | None = None) -> Any:
    """The parsed `--acoustics` profile (an AcousticProfile) or None; one-line error on a bad one (a seed
    without a condition included: it would be ignored; ``phone`` with ``--via sip:``, whose codec is the line)."""
    from floorbench.speech.acoustics import AcousticsError, parse_acoustics

    drawn = drawn_seed("--acoustics", name, seed, "an acoustic condition")
    if name is None or drawn is None:
        return None
    try:
        profile = parse_acoustics(name, drawn)
    except AcousticsError as e:
        fail(str(e))
    if via is not None and profile.phone:
        from floorbench.phone.commands import phone_twice

        fail(phone_twice(name))
    import importlib.util

    if profile.room is not None and importlib.util.find_spec("pyroomacoustics") is None:
        fail(f"--acoustics {name!r}: rooms need pyroomacoustics; pip install 'floorbench[local]' (or bash scripts/setup.sh)")
    return profile


def parse_play_on(text: str, old: str | None = None) -> str | None:
    """``local`` → None (this process plays the rooms); ``workers`` / ``workers:AGENT`` → the agent name
    of the `floorbench worker`s that do. `old` is the option's former spelling, ``--workers dispatch[:AGENT]``,
    still accepted (its word collided with ``--dispatch AGENT``, the agent under test)."""
    if old is not None:
        mode, sep, agent = old.partition(":")
        if mode != "dispatch" or (sep and not agent.strip()):
            fail(f"--workers {old!r}: renamed; use --play-on workers or --play-on workers:AGENT")
        if text != "local":
            fail("--workers and --play-on: give only --play-on")
        print(f"note: --workers {old} is now --play-on workers{sep}{agent}", file=sys.stderr)
        text = f"workers{sep}{agent}"
    mode, sep, agent = text.partition(":")
    if mode == "local" and not sep:
        return None
    if mode != "workers" or (sep and not agent.strip()):
        fail(f"--play-on {text!r}: use 'local', 'workers' or 'workers:AGENT'")
    return agent.strip() or "floorbench"


MAX_SCENARIOS = 200_000
"""the generator's largest suite: 100 000 pairs"""
MAX_JOIN_TIMEOUT_S = 3600
RECORD_RATES = (16000, 24000, 48000)


AUTO_MAX_ROOMS = 16
"""the ceiling of a plain ``--concurrency auto``"""


def parse_concurrency(text: str) -> tuple[int, bool]:
    """``N`` → (N, fixed); ``auto`` / ``auto:MAX`` → (MAX, steered by the timing verdicts)."""
    value = text.strip().lower()
    auto = value == "auto" or value.startswith("auto:")
    number = value.partition(":")[2] if auto else value
    if auto and not number:
        return AUTO_MAX_ROOMS, True
    try:
        return int(number), auto
    except ValueError:
        fail(f"--concurrency {text!r}: use a number of rooms (1..64), 'auto' or 'auto:MAX'")


def check_run_numbers(limit: int | None, join_timeout: float, record_rate: int, concurrency: int = 1) -> None:
    """Every number `run` takes is bounded, with the bound in the one-line error."""
    from floorbench.errors import OptionError, check_choice, check_range
    from floorbench.pipelines.run.runner import MAX_CONCURRENCY

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
