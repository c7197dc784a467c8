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

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from floorbench.errors import FloorbenchError, check_choice, check_range, one_line, path_error_line

if TYPE_CHECKING:
    from rich.console import Console

    from floorbench.scenarios.info import SuiteInfo

RATES = (16000, 24000, 48000)
MAX_SEED = 2**32 - 1
"""a seed is part of every generated id (`mpe-s<seed>-<n>`): bounded so ids stay short"""
MAX_JOBS = 256

suite_app = typer.Typer(help="Inspect and import scenario suites.", no_args_is_help=True)


def _fail(msg: str, code: int = 2) -> NoReturn:
    """One line on stderr (plain text: a file name is never read as markup), then exit with `code`."""
    typer.echo(f"error: {one_line(msg)}", err=True)
    raise typer.Exit(code)


def _first_line(err: FloorbenchError) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


def _fail_os(e: OSError) -> NoReturn:
    """A path the system refused is a user's error (one line); any other OSError is a bug."""
    line = path_error_line(e)
    if line is None:
        raise e
    _fail(line)


def _listing(kind: str, line: str) -> None:
    """One line of a listing that explains a failure, on stdout: stderr carries only the error line."""
    typer.echo(f"{kind}: {one_line(line)}")


def generate(
    out: Path = typer.Option(..., "--out", help="suite folder to write (suite.yaml + scenarios/)"),
    suite: str = typer.Option("mpe", "--suite", help="suite kind: 'mpe', 'turns' (--pairs then counts dialogues) or 'av'"),
    pairs: int = typer.Option(100, "--pairs", help="number of explicit/implicit scenario pairs (1..100000)"),
    seed: int = typer.Option(0, "--seed", help="same seed, same files (byte for byte); 0..4294967295"),
    min_turns: int = typer.Option(6, "--min-turns", help="fewest human turns per scenario (4..40)"),
    max_turns: int = typer.Option(10, "--max-turns", help="most human turns per scenario (4..40)"),
    llm: Path | None = typer.Option(None, "--llm", help="LLM config YAML: let an OpenAI-compatible model write the turns"),
    force: bool = typer.Option(False, "--force", help="replace the scenarios in an existing --out"),
    per_dynamic: int = typer.Option(2, "--per-dynamic", help="suite av: scenarios per dynamic (1..50)"),
    dynamics: str | None = typer.Option(None, "--dynamics", help="suite av: comma-separated dynamics (default: all 11)"),
) -> None:
    """Generate a scenario suite offline (deterministic for a seed)."""
    import time

    from rich.console import Console

    from floorbench.scenarios.generate import MAX_PAIRS, MAX_TURNS, MIN_TURNS
    from floorbench.scenarios.validate import load_suite

    console = Console()
    t0 = time.monotonic()
    try:
        if suite == "turns":
            return _generate_turns(console, out, pairs, seed, force)
        if suite == "av":
            return _generate_av(console, out, per_dynamic, dynamics, seed, force)
        if suite != "mpe":
            _fail(f"--suite {suite}: only 'mpe', 'turns' and 'av' can be generated; write other suites by hand")
        check_range("--pairs", pairs, 1, MAX_PAIRS)
        check_range("--seed", seed, 0, MAX_SEED)
        check_range("--min-turns", min_turns, MIN_TURNS, MAX_TURNS)
        check_range("--max-turns", max_turns, MIN_TURNS, MAX_TURNS)
        if min_turns > max_turns:
            _fail(f"--min-turns {min_turns} > --max-turns {max_turns}; swap them")
        _write_generated(console, out, pairs, seed, (min_turns, max_turns), llm, force)
        loaded = load_suite(out, audio=False)
    except FloorbenchError as e:
        _fail(_first_line(e))
    except OSError as e:
        _fail_os(e)
    gen_ms = int((time.monotonic() - t0) * 1000)
    console.print(f"wrote {len(loaded.pairs())} pairs ({len(loaded.scenarios)} scenarios) to {out} "
                  f"in {gen_ms / 1000:.1f} s; all validated. Next: floorbench render {out}",
                  markup=False, highlight=False, soft_wrap=True)


def _generate_turns(console: Console, out: Path, dialogues: int, seed: int, force: bool) -> None:
    """`generate --suite turns`: --pairs counts dialogues (one scenario each)."""
    from floorbench.scenarios.turns_generate import MAX_DIALOGUES, write_turns_suite
    from floorbench.scenarios.validate import load_suite

    check_range("--pairs", dialogues, 1, MAX_DIALOGUES)
    check_range("--seed", seed, 0, MAX_SEED)
    write_turns_suite(out, dialogues, seed, force=force)
    loaded = load_suite(out, audio=False)
    console.print(f"wrote {len(loaded.scenarios)} turns dialogues to {out}; all validated. Next: floorbench render {out}",
                  markup=False, highlight=False, soft_wrap=True)


def _generate_av(console: Console, out: Path, per_dynamic: int, dynamics: str | None, seed: int, force: bool) -> None:
    """`generate --suite av`: synthetic clips drawn and rendered now (no `render` step)."""
    from floorbench.scenarios.av_generate import MAX_PER_DYNAMIC, AvGenConfig, parse_dynamics, write_av_suite
    from floorbench.scenarios.validate import load_suite

    check_range("--per-dynamic", per_dynamic, 1, MAX_PER_DYNAMIC)
    check_range("--seed", seed, 0, MAX_SEED)
    cfg = AvGenConfig(per_dynamic=per_dynamic, seed=seed, dynamics=parse_dynamics(dynamics))
    write_av_suite(out, cfg, force=force)
    loaded = load_suite(out, audio=True)
    console.print(f"wrote {len(loaded.scenarios)} av scenarios (audio and video) to {out}; all validated. "
                  f"Next: floorbench run --suite {out} (no render needed)", markup=False, highlight=False, soft_wrap=True)


def _write_generated(console: Console, out: Path, pairs: int, seed: int, turns: tuple[int, int],
                     llm: Path | None, force: bool) -> None:
    """The procedural generator, or an LLM writing the turns, behind one progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("generating", total=pairs)
        if llm is not None:
            from floorbench.scenarios.llm import generate_with_llm, load_config

            result = generate_with_llm(load_config(llm), out, pairs, seed, force=force,
                                       progress=lambda n: bar.update(task, completed=n))
            for line in result.rejected:
                _listing("rejected", line)
            if not result.written:
                _fail(f"{out}: the model produced no valid pair; see {out / 'rejected.jsonl'}")
        else:
            from floorbench.scenarios.generate import GenConfig, write_generated_suite

            write_generated_suite(out, pairs, seed, GenConfig(min_turns=turns[0], max_turns=turns[1]),
                                  force=force, progress=lambda n: bar.update(task, completed=n))


def render(
    suite_dir: Path = typer.Argument(..., help="suite folder (holding suite.yaml)"),
    rate: int = typer.Option(16000, "--rate", help="16000, 24000 or 48000"),
    jobs: int = typer.Option(0, "--jobs", help="worker processes (0 = one per core; at most 256)"),
    voice_map: Path | None = typer.Option(None, "--voice-map", help="YAML 'old voice id: new voice id', e.g. to a pipecat cloud voice"),
    prune: bool = typer.Option(True, "--prune/--no-prune", help="delete clips no longer used"),
) -> None:
    """Render every turn and the duty preamble to audio (cached, resumable, parallel)."""
    import os

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

    from floorbench.scenarios.info import hours
    from floorbench.scenarios.render import read_voice_map, render_suite

    console = Console()
    try:
        check_choice("--rate", rate, RATES)
        check_range("--jobs", jobs, 0, MAX_JOBS)
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
    suite_dir: Path = typer.Argument(..., help="suite folder (holding suite.yaml)"),
    check_audio: bool = typer.Option(True, "--check-audio/--no-check-audio", help="hash every audio file"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
) -> None:
    """Counts by label and attribute, hours of audio, dialogue length, pair differences; checks audio hashes."""
    from rich.console import Console

    from floorbench.scenarios.info import suite_info

    try:
        si = suite_info(suite_dir, check_audio=check_audio)
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
    from floorbench.scenarios.importer import import_scenarios

    try:
        result = import_scenarios(src, out, name=name, preamble=preamble, strict_vocab=strict_vocab, force=force)
    except FloorbenchError as e:
        _fail(_first_line(e))
    except OSError as e:
        _fail_os(e)
    for line in result.rejected:
        _listing("rejected", line)
    if result.written:
        typer.echo(one_line(f"imported {len(result.written)} scenarios into {out}; next: floorbench render {out}"))
    if result.rejected:
        _fail(f"{src}: {len(result.rejected)} record(s) or pair(s) rejected (listed on stdout)")


@suite_app.command("import-turns")
def import_turns(
    wav: Path = typer.Argument(..., help="a two-channel recording (WAV/FLAC) of a conversation"),
    labels: Path = typer.Argument(..., help="CSV: label,start_ms,end_ms,text per user clip (docs/suites/turns.md)"),
    out: Path = typer.Option(..., "--out", help="suite folder to write (one turns scenario)"),
    user_channel: int = typer.Option(1, "--user-channel", help="the channel played as the user (1 or 2)"),
    scenario_id: str | None = typer.Option(None, "--scenario-id", help="default: the recording's file name"),
    conversation_type: str = typer.Option("casual", "--conversation-type", help="casual, task-oriented, ..."),
) -> None:
    """Turn one channel of a recorded conversation, with event labels, into a live turns scenario."""
    from floorbench.scenarios.turns_import import import_recording

    try:
        path = import_recording(wav, labels, out, user_channel, scenario_id, conversation_type)
    except FloorbenchError as e:
        _fail(_first_line(e))
    except OSError as e:
        _fail_os(e)
    typer.echo(one_line(f"imported {path}; run it with floorbench run --suite {out} (no render needed)"))


@suite_app.command("import-av")
def import_av(
    src: Path = typer.Argument(..., help="a clip JSON (video, audio, dynamic, window; docs/suites/av.md) or a folder of them"),
    out: Path = typer.Option(..., "--out", help="suite folder to write (suite: av)"),
    fps: int | None = typer.Option(None, "--fps", help="output frame rate, 5..60 (default: the source's, rounded)"),
    height: int | None = typer.Option(None, "--height", help="scale the video to this height in px (default: keep)"),
    voice: str = typer.Option("flite:slt", "--voice", help="voice for a request given as text only"),
    name: str | None = typer.Option(None, "--name", help="suite name (default: the folder name)"),
    force: bool = typer.Option(False, "--force", help="replace the scenarios in an existing --out"),
) -> None:
    """Import recorded audio-visual clips (one JSON each) as an av suite, checked by the suite's rules."""
    from floorbench.scenarios.av_import import ImportOptions
    from floorbench.scenarios.av_import import import_av as run_import

    try:
        if fps is not None:
            check_range("--fps", fps, 5, 60)
        if height is not None:
            check_range("--height", height, 16, 2160)
        done = run_import(src, out, ImportOptions(fps=fps, height=height, voice=voice), name=name, force=force)
    except FloorbenchError as e:
        _fail(_first_line(e))
    except OSError as e:
        _fail_os(e)
    typer.echo(one_line(f"imported {len(done)} av clips into {out}; run it with floorbench run --suite {out} "
                        "(no render needed)"))


def register(app: typer.Typer) -> None:
    """Add this area's commands to the `floorbench` app."""
    app.command("generate")(generate)
    app.command("render")(render)
    app.add_typer(suite_app, name="suite")
