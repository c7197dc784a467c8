"""CLI commands of the scenarios area: `generate`, `render`, `suite info`, `suite import`.

Heavy imports (TTS engines, soundfile, the generator's vocabularies) happen
inside the command functions so `floorbench --help` stays fast. Every bad
input ends in one line on stderr, ``error: …``, naming the file, scenario and
turn, and exit code 2 — never a stack trace. Listings that explain a failure
(rejected records, failed clips, audio files that do not match) go to stdout.
Every number a user can type is bounded (the limits below), with the limit in
the message.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from floorbench.errors import (
    FloorbenchError,
    check_choice,
    check_range,
    exit_with,
    exit_with_os,
    first_line,
    one_line,
)
from floorbench.plugins import (
    GenerateRequest,
    SuiteNotFound,
    all_suites,
    get_suite,
    option_name,
)

if TYPE_CHECKING:
    from rich.console import Console

    from floorbench.scenarios.info import SuiteInfo

RATES = (16000, 24000, 48000)
MAX_SEED = 2**32 - 1
"""a seed is part of every generated id (`mpe-s<seed>-<n>`): bounded so ids stay short"""
MAX_JOBS = 256

suite_app = typer.Typer(help="Inspect and import scenario suites.", no_args_is_help=True)


_fail = exit_with
_first_line = first_line
_fail_os = exit_with_os


def _listing(kind: str, line: str) -> None:
    """One line of a listing that explains a failure, on stdout: stderr carries only the error line."""
    typer.echo(f"{kind}: {one_line(line)}")


def generate(
    out: Path = typer.Option(..., "--out", help="suite folder to write (suite.yaml + scenarios/)"),
    suite: str = typer.Option(..., "--suite", help="the suite to generate: mpe, turns, av, or an installed one"),
    pairs: int = typer.Option(100, "--pairs", help="how many: scenario pairs (mpe), dialogues (turns); 1..100000"),
    seed: int = typer.Option(0, "--seed", help="same seed, same files (byte for byte); 0..4294967295"),
    force: bool = typer.Option(False, "--force", help="replace the scenarios in an existing --out"),
    **options: Any,
) -> None:
    """Generate a scenario suite offline (deterministic for a seed)."""
    from rich.console import Console

    try:
        plugin = get_suite(suite)
        if not plugin.generate:
            _fail(f"--suite {suite}: suite {suite} has no generator; write its scenarios by hand "
                  f"(docs/{plugin.doc}) or use its importer")
        check_range("--seed", seed, 0, MAX_SEED)
        own = {option_name(o.flag) for o in plugin.generate_options}
        defaults = {option_name(o.flag): o.default for s in all_suites() for o in s.generate_options}
        for name, value in options.items():
            if name not in own and value != defaults.get(name):
                _fail(f"--{name.replace('_', '-')}: not an option of suite {suite}'s generator; leave it out")
        request = GenerateRequest(out=out, pairs=pairs, seed=seed, force=force, console=Console(),
                                  options={k: v for k, v in options.items() if k in own})
        line = plugin.part("generate")(request)
    except SuiteNotFound as e:
        _fail(f"--suite: {e}")
    except FloorbenchError as e:
        _fail(_first_line(e))
    except OSError as e:
        _fail_os(e)
    typer.echo(one_line(line))


def generate_command() -> Callable[..., None]:
    """`generate` with every suite's own options added (`SuitePlugin.generate_options`).

    Typer reads a command's options from its signature; this one is `generate`'s, plus one
    keyword-only option per option a suite declares, so a third-party suite's generator gets
    its options on the command line without an engine file changed.
    """
    base = inspect.signature(generate, eval_str=True)
    params = [p for p in base.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    seen = {p.name for p in params}
    for plugin in all_suites():
        for o in plugin.generate_options:
            name = option_name(o.flag)
            if name in seen:
                continue
            seen.add(name)
            kind: Any = o.kind if o.default is not None else o.kind | None
            params.append(inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=kind,
                default=typer.Option(o.default, o.flag, help=f"suite {plugin.name}: {o.help}"),
            ))

    def command(**kw: Any) -> None:
        named = {k: kw.pop(k) for k in list(kw) if k in base.parameters}
        generate(**named, **kw)

    command.__signature__ = base.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = generate.__doc__
    return command


def render(
    suite_dir: Path = typer.Argument(..., help="suite folder (holding suite.yaml)"),
    rate: int = typer.Option(16000, "--rate", help="16000, 24000 or 48000"),
    jobs: int = typer.Option(0, "--jobs", help="worker processes (0 = one per core; at most 256)"),
    voice_map: Path | None = typer.Option(None, "--voice-map", help="YAML 'old voice id: new voice id', e.g. to a service voice (service:NAME)"),
    prune: bool = typer.Option(True, "--prune/--no-prune", help="delete clips no longer used"),
    voices: Path | None = typer.Option(None, "--voices", help="the operator's voices file: the service voices (service:NAME) the suite may name (also FLOORBENCH_VOICES)"),
) -> None:
    """Render every turn and the duty preamble to audio (cached, resumable, parallel)."""
    import os

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

    from floorbench.scenarios.info import hours
    from floorbench.scenarios.render import read_voice_map, render_suite
    from floorbench.speech.tts_voices import use_voices

    console = Console()
    try:
        check_choice("--rate", rate, RATES)
        check_range("--jobs", jobs, 0, MAX_JOBS)
        use_voices(voices)  # checked first; the render's worker processes read the same file
        vmap = read_voice_map(voice_map) if voice_map else None
        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True) as bar:
            task = bar.add_task("rendering", total=None)
            stats = render_suite(suite_dir, rate=rate, jobs=jobs or os.cpu_count() or 1, voice_map=vmap, prune=prune,
                                 progress=lambda done, total: bar.update(task, completed=done, total=total))
    except FloorbenchError as e:
        _fail(_first_line(e))
    except OSError as e:
        _fail_os(e)
    if stats.failed:
        for line in stats.failed[:20]:
            _listing("failed", line)
        _fail(f"{suite_dir}: {len(stats.failed)} of {stats.clips} clips failed; fix the voices listed on stdout "
              "and run render again (finished clips are kept)")
    speed = f", {stats.audio_hours_per_cpu_minute:.3f} h of audio per CPU-minute" if stats.rendered else ""
    console.print(f"{stats.clips} clips ({stats.rendered} rendered, {stats.cached} cached), "
                  f"{hours(stats.audio_ms_total)} of audio at {rate} Hz in {stats.wall_ms / 1000:.1f} s{speed}",
                  markup=False, soft_wrap=True)


@suite_app.command("info")
def info(
    suite_dir: Path = typer.Argument(..., help="suite folder (holding suite.yaml), or a packaged suite by name: example"),
    check_audio: bool = typer.Option(True, "--check-audio/--no-check-audio", help="hash every audio file"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
) -> None:
    """Counts by label and attribute, hours of audio, dialogue length, pair differences; checks audio hashes."""
    from rich.console import Console

    from floorbench.scenarios.files import resolve_suite
    from floorbench.scenarios.info import suite_info

    try:
        si = suite_info(resolve_suite(suite_dir), check_audio=check_audio)
    except FloorbenchError as e:
        problems = [str(p) for p in getattr(e, "problems", None) or [str(e)]]
        for line in problems[1:]:
            _listing("problem", line)
        more = f" (and {len(problems) - 1} more, listed on stdout)" if len(problems) > 1 else ""
        _fail(f"{problems[0]}{more}")
    except OSError as e:
        _fail_os(e)
    console = Console()
    if as_json:
        typer.echo(si.to_json())
    else:
        _print_info(console, si, check_audio)
    if si.audio_problems:
        for line in si.audio_problems:
            _listing("audio", line)
        _fail(f"{suite_dir}: {len(si.audio_problems)} audio file(s) do not match the manifest (listed on stdout)")
    if si.rendered and check_audio and not as_json:
        console.print("every audio file matches its manifest hash")


def _print_info(console: Console, si: SuiteInfo, check_audio: bool) -> None:
    """The summary tables; every name from the suite's files is escaped (text, never markup)."""
    from rich.markup import escape
    from rich.table import Table

    from floorbench.scenarios.info import hours

    gen = f", generator {si.generator}" if si.generator else ", hand-written"
    console.print(f"[bold]{escape(si.name)}[/bold] ({escape(f'{si.root}{gen}')})")
    console.print(f"{si.pairs} pairs, {si.scenarios} scenarios; humans per scenario {si.humans}; "
                  f"turns per scenario mean {si.turns_mean_x100 / 100:.2f} (min {si.turns_min}, max {si.turns_max})",
                  markup=False, soft_wrap=True)
    t = Table("label", "turns", title="labels")
    for k, v in si.labels.items():
        t.add_row(escape(str(k)), str(v))
    console.print(t)
    for attr, counts in si.attributes.items():
        t = Table(escape(str(attr)), "scenarios", title=escape(f"{attr} ({len(counts)} values)"))
        for k, v in counts.items():
            t.add_row(escape(str(k)), str(v))
        console.print(t)
    console.print(f"task families: {si.tasks}", markup=False, soft_wrap=True)
    console.print(f"request position by quintile of the dialogue: {si.request_quintiles}", markup=False, soft_wrap=True)
    console.print(f"pair differences: {si.differs}", markup=False, soft_wrap=True)
    if si.rendered and check_audio:
        console.print(f"audio: {hours(si.audio_unique_ms)} in distinct files; {hours(si.audio_playback_ms)} played "
                      f"per full run (preambles included); mean dialogue {si.dialogue_mean_ms / 1000:.1f} s of speech "
                      f"at {si.sample_rate} Hz", markup=False, soft_wrap=True)
    elif not si.rendered:
        console.print("audio: not rendered yet; run `floorbench render`", markup=False)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the `floorbench` app."""
    app.command("generate")(generate_command())
    for plugin in all_suites():  # a suite's own commands (its importers) under `floorbench suite`
        if plugin.commands:
            plugin.part("commands")(suite_app)
    app.command("render")(render)
    app.add_typer(suite_app, name="suite")
