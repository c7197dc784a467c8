"""CLI commands of the scenarios area: `generate`, `render`, `suite info`, `suite import`.

Heavy imports (TTS engines, soundfile, the generator's vocabularies) happen
inside the command functions so `floorbench --help` stays fast. Every bad
input ends in one red line naming the file, scenario and turn, and exit code 1
or 2 — never a stack trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer

from floorbench.errors import FloorbenchError

suite_app = typer.Typer(help="Inspect and import scenario suites.", no_args_is_help=True)


def _fail(msg: str, code: int = 1) -> NoReturn:
    """One red line on stderr, then exit with `code`."""
    from rich.console import Console

    Console(stderr=True).print(f"[red]error:[/red] {msg}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _first_line(err: FloorbenchError) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


def generate(
    out: Path = typer.Option(..., "--out", help="suite folder to write (suite.yaml + scenarios/)"),
    suite: str = typer.Option("mpe", "--suite", help="suite kind; only 'mpe' is generated"),
    pairs: int = typer.Option(100, "--pairs", min=1, help="number of explicit/implicit scenario pairs"),
    seed: int = typer.Option(0, "--seed", help="same seed, same files (byte for byte)"),
    min_turns: int = typer.Option(6, "--min-turns", min=3),
    max_turns: int = typer.Option(10, "--max-turns", min=3),
    llm: Path | None = typer.Option(None, "--llm", help="LLM config YAML: let an OpenAI-compatible model write the turns"),
    force: bool = typer.Option(False, "--force", help="replace the scenarios in an existing --out"),
) -> None:
    """Generate a scenario suite offline (deterministic for a seed)."""
    import time

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from floorbench.scenarios.validate import load_suite

    if suite != "mpe":
        _fail(f"--suite {suite}: only 'mpe' can be generated; write other suites by hand and `suite import` them", 2)
    if min_turns > max_turns:
        _fail(f"--min-turns {min_turns} > --max-turns {max_turns}; swap them", 2)
    console = Console()
    t0 = time.monotonic()
    try:
        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True) as bar:
            task = bar.add_task("generating", total=pairs)
            if llm is not None:
                from floorbench.scenarios.llm import generate_with_llm, load_config

                result = generate_with_llm(load_config(llm), out, pairs, seed, force=force,
                                           progress=lambda n: bar.update(task, completed=n))
                for line in result.rejected:
                    console.print(f"[yellow]rejected:[/yellow] {line}", highlight=False, soft_wrap=True)
                if not result.written:
                    _fail(f"{out}: the model produced no valid pair; see {out / 'rejected.jsonl'}")
            else:
                from floorbench.scenarios.generate import GenConfig, write_generated_suite

                write_generated_suite(out, pairs, seed, GenConfig(min_turns=min_turns, max_turns=max_turns),
                                      force=force, progress=lambda n: bar.update(task, completed=n))
        loaded = load_suite(out, audio=False)
    except FloorbenchError as e:
        _fail(_first_line(e))
    gen_ms = int((time.monotonic() - t0) * 1000)
    console.print(f"wrote {len(loaded.pairs())} pairs ({len(loaded.scenarios)} scenarios) to {out} "
                  f"in {gen_ms / 1000:.1f} s; all validated. Next: floorbench render {out}", soft_wrap=True)


def render(
    suite_dir: Path = typer.Argument(..., help="suite folder (holding suite.yaml)"),
    rate: int = typer.Option(16000, "--rate", help="16000, 24000 or 48000"),
    jobs: int = typer.Option(0, "--jobs", help="worker processes (0 = one per core)"),
    voice_map: Path | None = typer.Option(None, "--voice-map", help="YAML 'old voice id: new voice id', e.g. to a pipecat cloud voice"),
    prune: bool = typer.Option(True, "--prune/--no-prune", help="delete clips no longer used"),
) -> None:
    """Render every turn and the duty preamble to audio (cached, resumable, parallel)."""
    import os

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

    from floorbench.scenarios.info import hours
    from floorbench.scenarios.render import read_voice_map, render_suite

    if rate not in (16000, 24000, 48000):
        _fail(f"--rate {rate}: use 16000, 24000 or 48000", 2)
    console = Console()
    try:
        vmap = read_voice_map(voice_map) if voice_map else None
        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True) as bar:
            task = bar.add_task("rendering", total=None)
            stats = render_suite(suite_dir, rate=rate, jobs=jobs or os.cpu_count() or 1, voice_map=vmap, prune=prune,
                                 progress=lambda done, total: bar.update(task, completed=done, total=total))
    except FloorbenchError as e:
        _fail(_first_line(e))
    if stats.failed:
        for line in stats.failed[:20]:
            console.print(f"[red]failed:[/red] {line}", highlight=False, soft_wrap=True)
        _fail(f"{suite_dir}: {len(stats.failed)} of {stats.clips} clips failed; fix the voices above and run render "
              "again (finished clips are kept)")
    speed = f", {stats.audio_hours_per_cpu_minute:.3f} h of audio per CPU-minute" if stats.rendered else ""
    console.print(f"{stats.clips} clips ({stats.rendered} rendered, {stats.cached} cached), "
                  f"{hours(stats.audio_ms_total)} of audio at {rate} Hz in {stats.wall_ms / 1000:.1f} s{speed}",
                  soft_wrap=True)


@suite_app.command("info")
def info(
    suite_dir: Path = typer.Argument(..., help="suite folder (holding suite.yaml)"),
    check_audio: bool = typer.Option(True, "--check-audio/--no-check-audio", help="hash every audio file"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
) -> None:
    """Counts by label and attribute, hours of audio, dialogue length, pair differences; checks audio hashes."""
    from rich.console import Console
    from rich.table import Table

    from floorbench.scenarios.info import hours, suite_info

    try:
        si = suite_info(suite_dir, check_audio=check_audio)
    except FloorbenchError as e:
        problems = getattr(e, "problems", [str(e)])
        for line in problems[1:]:
            Console(stderr=True).print(f"[red]error:[/red] {line}", highlight=False, soft_wrap=True)
        _fail(problems[0])
    console = Console()
    if as_json:
        console.print_json(si.to_json())
    else:
        gen = f", generator {si.generator}" if si.generator else ", hand-written"
        console.print(f"[bold]{si.name}[/bold] ({si.root}{gen})")
        console.print(f"{si.pairs} pairs, {si.scenarios} scenarios; humans per scenario {si.humans}; "
                      f"turns per scenario mean {si.turns_mean_x100 / 100:.2f} (min {si.turns_min}, max {si.turns_max})",
                      soft_wrap=True)
        t = Table("label", "turns", title="labels")
        for k, v in si.labels.items():
            t.add_row(k, str(v))
        console.print(t)
        for attr, counts in si.attributes.items():
            t = Table(attr, "scenarios", title=f"{attr} ({len(counts)} values)")
            for k, v in counts.items():
                t.add_row(k, str(v))
            console.print(t)
        console.print(f"task families: {si.tasks}", soft_wrap=True)
        console.print(f"request position by quintile of the dialogue: {si.request_quintiles}", soft_wrap=True)
        console.print(f"pair differences: {si.differs}", soft_wrap=True)
        if si.rendered and check_audio:
            console.print(f"audio: {hours(si.audio_unique_ms)} in distinct files; {hours(si.audio_playback_ms)} played "
                          f"per full run (preambles included); mean dialogue {si.dialogue_mean_ms / 1000:.1f} s of speech "
                          f"at {si.sample_rate} Hz", soft_wrap=True)
        elif not si.rendered:
            console.print("audio: not rendered yet; run `floorbench render`")
    if si.audio_problems:
        for line in si.audio_problems:
            Console(stderr=True).print(f"[red]audio:[/red] {line}", highlight=False, soft_wrap=True)
        _fail(f"{suite_dir}: {len(si.audio_problems)} audio file(s) do not match the manifest")
    if si.rendered and check_audio and not as_json:
        console.print("every audio file matches its manifest hash")


@suite_app.command("import")
def import_(
    src: Path = typer.Argument(..., help="a scenario file (.yaml/.json/.jsonl) or a folder of them"),
    out: Path = typer.Option(..., "--out", help="suite folder to write"),
    name: str | None = typer.Option(None, "--name", help="suite name (default: the folder name)"),
    preamble: str | None = typer.Option(None, "--preamble", help="duty preamble text (default: the standard one)"),
    strict_vocab: bool = typer.Option(False, "--strict-vocab", help="require attributes from the fixed vocabularies"),
    force: bool = typer.Option(False, "--force", help="replace the scenarios in an existing --out"),
) -> None:
    """Load externally written scenarios through the validator into a suite folder."""
    from rich.console import Console

    from floorbench.scenarios.importer import import_scenarios

    console = Console()
    try:
        result = import_scenarios(src, out, name=name, preamble=preamble, strict_vocab=strict_vocab, force=force)
    except FloorbenchError as e:
        _fail(_first_line(e))
    for line in result.rejected:
        Console(stderr=True).print(f"[red]rejected:[/red] {line}", highlight=False, soft_wrap=True)
    if result.written:
        console.print(f"imported {len(result.written)} scenarios into {out}; next: floorbench render {out}", soft_wrap=True)
    if result.rejected:
        _fail(f"{src}: {len(result.rejected)} record(s) or pair(s) rejected (listed above)")


def register(app: typer.Typer) -> None:
    """Add this area's commands to the `floorbench` app."""
    app.command("generate")(generate)
    app.command("render")(render)
    app.add_typer(suite_app, name="suite")
