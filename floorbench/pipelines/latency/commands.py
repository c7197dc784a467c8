"""CLI: `floorbench latency` (floorbench.pipelines.latency.measure). One error line and exit 2 on any expected failure."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from floorbench.pipelines.commands import fail

IMPAIR_HELP = (
    "network impairment on the echo model's audio (a processor stage): delay100, jitter30, loss5, wan, "
    "or parts joined by '+'"
)




def _devices(output: str | None, input_: str | None) -> tuple[int | None, int | None]:
    """The sound devices named by --output and --input (index or part of a name); exits on a bad one."""
    if output is None and input_ is None:
        return None, None
    from floorbench.pipelines.demo.devices import DeviceError, list_devices, resolve

    try:
        devices, default_in, default_out = list_devices()
        out_dev = resolve(output, "output", devices, default_out) if output is not None else None
        in_dev = resolve(input_, "input", devices, default_in) if input_ is not None else None
    except DeviceError as e:
        fail(str(e))
    return out_dev, in_dev


def _checked(
    probes: int,
    interval_ms: int,
    warmup_ms: int,
    echo_delay_ms: int,
    impair: str | None,
    legs: str,
    seed: int,
    interleave: bool,
) -> Any:
    """The impairment profile (or None) once every number is in range; exits with one line otherwise."""
    from floorbench.errors import OptionError, check_range
    from floorbench.processors.impair import ImpairError, parse_profile

    try:
        check_range("--probes", probes, 2, 2000)
        check_range("--interval-ms", interval_ms, 200, 5000)
        check_range("--warmup-ms", warmup_ms, 0, 30000)
        check_range("--echo-delay-ms", echo_delay_ms, 0, 2000)
        check_range("--impair-seed", seed, 0, 2**31)
        profile = parse_profile(impair, legs, seed) if impair else None
        _check_interleave(interleave, profile, impair)
    except (OptionError, ImpairError) as e:
        fail(str(e))
    return profile


def _check_interleave(interleave: bool, profile: Any, text: str | None) -> None:
    from floorbench.errors import OptionError

    if interleave and (profile is None or profile.delay_ms == 0 or profile.jitter_ms or profile.loss_pct):
        raise OptionError(
            f"--interleave takes a delay-only --impair profile (delay100, delay50, ...); got {text or 'none'}"
        )


def latency(
    probes: Annotated[int, typer.Option(help="probes to send (2..2000)")] = 20,
    interval_ms: Annotated[int, typer.Option(help="time between probes (ms, 200..5000)")] = 500,
    warmup_ms: Annotated[
        int,
        typer.Option(help="silence before the first probe while the jitter buffers settle (ms, 0..30000)"),
    ] = 3000,
    out: Annotated[
        Path | None, typer.Option(help="folder for latency.json and the recordings (default: a temp folder)")
    ] = None,
    livekit_url: Annotated[
        str | None,
        typer.Option(
            help="existing LiveKit server (key/secret from LIVEKIT_API_KEY/SECRET); default: start one"
        ),
    ] = None,
    impair: Annotated[str | None, typer.Option(help=IMPAIR_HELP)] = None,
    impair_legs: Annotated[
        str, typer.Option(help="impaired legs of the model's audio: in, out or both")
    ] = "both",
    impair_seed: Annotated[int, typer.Option(help="seed of the impairment's draws (0..2**31)")] = 0,
    echo_delay_ms: Annotated[
        int, typer.Option(help="the echo model's own delay (ms, 0..2000; subtracted)")
    ] = 0,
    interleave: Annotated[
        bool,
        typer.Option(
            "--interleave",
            help="the impairment's delay on every other probe, in one room (the rise without comparing rooms)",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="print latency.json instead of the summary")
    ] = False,
    output: Annotated[
        str | None,
        typer.Option("--output", help="a sound device (index or name) that plays the echoed probes"),
    ] = None,
    input_: Annotated[
        str | None,
        typer.Option("--input", help="a sound device (index or name) whose capture goes into the room"),
    ] = None,
) -> None:
    """Audio latency through the SFU: chirp probes, echoed by the `echo` model, found by cross-correlation."""
    from floorbench.errors import FloorbenchError
    from floorbench.transports.server import LiveKitConnection, ServerError

    profile = _checked(
        probes, interval_ms, warmup_ms, echo_delay_ms, impair, impair_legs, impair_seed, interleave
    )
    out_dev, in_dev = _devices(output, input_)
    from floorbench.pipelines.latency.measure import LatencyError, LatencyOptions, measure

    folder = out or Path(tempfile.mkdtemp(prefix="fb-latency-"))
    try:
        opts = LatencyOptions(
            out=folder,
            probes=probes,
            interval_ms=interval_ms,
            warmup_ms=warmup_ms,
            echo_delay_ms=echo_delay_ms,
            connection=LiveKitConnection.from_env(livekit_url),
            impair=profile,
            interleave=interleave,
            output_device=out_dev,
            input_device=in_dev,
        )
        report = asyncio.run(measure(opts))
    except (FloorbenchError, ServerError, LatencyError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted")
    _print(report, folder, as_json)


def _print(report: dict[str, Any], folder: Path, as_json: bool) -> None:
    from floorbench.pipelines.latency.measure import summary_lines

    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    for line in summary_lines(report):
        typer.echo(line)
    typer.echo(f"→ {folder / 'latency.json'}")


def register(app: typer.Typer) -> None:
    app.command()(latency)
