"""CLI: `floorbench devices` and `floorbench demo` (floorbench.pipelines.demo.session). One error line, exit 2, on any expected failure."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from floorbench.pipelines.commands import fail


def devices() -> None:
    """List the sound devices `demo --input/--output` accept (< default input, > default output)."""
    from floorbench.pipelines.demo.devices import DeviceError, list_devices

    try:
        found, default_in, default_out = list_devices()
    except DeviceError as e:
        fail(str(e))
    if not found:
        fail("no sound devices found (PortAudio sees none); connect a microphone and speakers")
    for d in found:
        typer.echo(d.line(default_in, default_out))


def demo(
    model: Annotated[str, typer.Option(help="model name (see `floorbench models`)")] = "echo",
    config: Annotated[Path | None, typer.Option(help="model config YAML, or a packaged one by name")] = None,
    input: Annotated[str | None, typer.Option("--input", help="microphone: index or part of its name (see `floorbench devices`)")] = None,
    output: Annotated[str | None, typer.Option("--output", help="speakers: index or part of its name")] = None,
    aec: Annotated[bool, typer.Option(help="echo cancellation (and noise suppression, gain control) on the microphone")] = True,
    duration: Annotated[float | None, typer.Option(help="stop after this many seconds (1..86400); default: Ctrl-C")] = None,
    out: Annotated[Path | None, typer.Option(help="folder for the recording (default: a temp folder)")] = None,
    livekit_url: Annotated[
        str | None, typer.Option(help="existing LiveKit server (key/secret from LIVEKIT_API_KEY/SECRET); default: start one")
    ] = None,
    scenario: Annotated[Path | None, typer.Option(help="a rendered scenario file: the playback plays the other humans")] = None,
    as_speaker: Annotated[str | None, typer.Option("--as", help="with --scenario: the speaker you play (id or name)")] = None,
) -> None:
    """Talk to a model from this machine's microphone and speakers; the session is recorded like a run."""
    from floorbench.errors import FloorbenchError, OptionError, check_range
    from floorbench.pipelines.demo.devices import DeviceError, list_devices, probe_sound_system, resolve
    from floorbench.pipelines.demo.scenario import ScriptError, script
    from floorbench.processors.registry import ModelError, model_class
    from floorbench.scenarios.files import resolve_model_config
    from floorbench.scenarios.validate import ScenarioError, read_yaml
    from floorbench.transports.server import LiveKitConnection, ServerError

    try:
        if duration is not None:
            check_range("--duration", duration, 1, 86400)
        data = read_yaml(resolve_model_config(config)) if config is not None else {}
        if not isinstance(data, dict):
            fail(f"{config}: a model config must be a YAML mapping of settings")
        cfg = {str(k): v for k, v in data.items()}
        name = str(cfg.pop("adapter", None) or model)
        if model_class(name, cfg).joins != "pipeline":
            fail(f"--model {name}: the demo joins pipeline models only (an external one joins by itself)")
        if (scenario is None) != (as_speaker is None):
            fail("--scenario and --as go together: the scenario file and the speaker you play")
        steps, root = [], None
        if scenario is not None and as_speaker is not None:
            steps, root, _ = script(scenario, as_speaker, 16000)
        found, default_in, default_out = list_devices()
        mic = resolve(input, "input", found, default_in)
        speaker = resolve(output, "output", found, default_out)
        probe_sound_system(mic, speaker)  # a device that would abort the process is refused in a child first
    except (OptionError, DeviceError, ModelError, ScenarioError, ScriptError) as e:
        fail(str(e))
    from floorbench.pipelines.demo.session import DemoError, DemoOptions, run_demo

    folder = out or Path(tempfile.mkdtemp(prefix="fb-demo-"))
    try:
        opts = DemoOptions(
            out=folder, model=name, input_device=mic, output_device=speaker, config=cfg,
            connection=LiveKitConnection.from_env(livekit_url), aec=aec, duration_s=duration,
            live_view=sys.stdout.isatty(), scenario=scenario, suite_root=root, steps=steps,
        )
        result = asyncio.run(run_demo(opts))
    except (FloorbenchError, ServerError, DemoError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        typer.echo(f"stopped; recorded in {folder}")
        return
    answered = [t["latency_ms"] for t in result["turns"] if t["latency_ms"] is not None]
    median = f"; model latency median {sorted(answered)[len(answered) // 2]} ms" if answered else ""
    typer.echo(f"{len(result['turns'])} turns, {len(answered)} answered{median}; recorded in {folder} (you.wav, model.wav, demo.json)")


def register(app: typer.Typer) -> None:
    app.command()(devices)
    app.command()(demo)
