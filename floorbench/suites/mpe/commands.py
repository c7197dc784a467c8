"""Suite mpe's command-line parts: its generator behind `floorbench generate --suite mpe`.

`generate` is the suite's part of that name (floorbench.plugins): the procedural
generator, or an OpenAI-compatible model writing the turns (``--llm``), behind one progress
bar; then the whole suite is validated before the line saying what was written.
"""

from __future__ import annotations

from pathlib import Path

import typer

from floorbench.errors import FloorbenchError, check_range, exit_with, exit_with_os, first_line, one_line
from floorbench.plugins import GenerateRequest
from floorbench.scoring.outcome import ScoreOutcome, ScoreRequest


def generate(req: GenerateRequest) -> str:
    import time

    from floorbench.scenarios.validate import load_suite
    from floorbench.speech.languages import language
    from floorbench.suites.mpe.generate import MAX_PAIRS, MAX_TURNS, MIN_TURNS
    from floorbench.suites.mpe.validate import pairs

    t0 = time.monotonic()
    min_turns, max_turns = req.options.get("min_turns", 6), req.options.get("max_turns", 10)
    check_range("--pairs", req.pairs, 1, MAX_PAIRS)
    check_range("--min-turns", min_turns, MIN_TURNS, MAX_TURNS)
    check_range("--max-turns", max_turns, MIN_TURNS, MAX_TURNS)
    if min_turns > max_turns:
        exit_with(f"--min-turns {min_turns} > --max-turns {max_turns}; swap them")
    lang = language(req.options.get("language", "en"), "--language").code
    if lang != "en" and req.options.get("llm") is not None:
        exit_with(f"--llm writes English turns only; drop --llm or --language {lang}")
    _write_generated(req, (min_turns, max_turns), req.options.get("llm"), lang)
    loaded = load_suite(req.out, audio=False)
    return (f"wrote {len(pairs(loaded.scenarios))} pairs ({len(loaded.scenarios)} scenarios) to {req.out} "
            f"in {time.monotonic() - t0:.1f} s; all validated. Next: floorbench render {req.out}")


def _write_generated(req: GenerateRequest, turns: tuple[int, int], llm: Path | None, lang: str) -> None:
    """The procedural generator (English, or the hand-written banks of another language), or an LLM writing
    the turns, behind one progress bar."""
    import typer
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    out, pairs, seed, force = req.out, req.pairs, req.seed, req.force
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=req.console, transient=True) as bar:
        task = bar.add_task("generating", total=pairs)
        if llm is not None:
            from floorbench.suites.mpe.llm import generate_with_llm, load_config

            result = generate_with_llm(load_config(llm), out, pairs, seed, force=force,
                                       progress=lambda n: bar.update(task, completed=n))
            for line in result.rejected:
                typer.echo(f"rejected: {one_line(line)}")
            if not result.written:
                exit_with(f"{out}: the model produced no valid pair; see {out / 'rejected.jsonl'}")
        elif lang != "en":
            from floorbench.suites.mpe.generate import GenConfig
            from floorbench.suites.mpe.generate_languages import write_language_suite

            write_language_suite(out, pairs, seed, lang, GenConfig(min_turns=turns[0], max_turns=turns[1]),
                                 force=force, progress=lambda n: bar.update(task, completed=n))
        else:
            from floorbench.suites.mpe.generate import GenConfig, write_generated_suite

            write_generated_suite(out, pairs, seed, GenConfig(min_turns=turns[0], max_turns=turns[1]),
                                  force=force, progress=lambda n: bar.update(task, completed=n))


def score(target: Path, req: ScoreRequest) -> ScoreOutcome:
    """Suite mpe's part `score`: timing from VAD, content from ASR + judge, intervals, McNemar. Timing is
    scored in every language; content only where `--judge` can judge the language the dialogues were held
    in — elsewhere its items are `unsure` and one warning line says why (floorbench.suites.mpe.score)."""
    from floorbench.suites.mpe.report import summary_lines
    from floorbench.suites.mpe.score import ScoreOptions
    from floorbench.suites.mpe.score import score as score_run

    result = score_run(target, req.as_options(ScoreOptions), progress=req.progress)
    scored = result.scores.scenarios.get("scored", 0)
    skipped = len(result.scores.errors)
    why = f"{skipped} skipped, listed on stdout" if skipped else "none found"
    return ScoreOutcome(
        scored=scored, errors=list(result.scores.errors), summary=summary_lines(result.scores),
        wrote=f"wrote {result.out / 'scores.json'} and {result.out / 'items.jsonl'}",
        nothing_scored=f"{target}: no dialogue could be scored ({why}); see the scoring docs for the folder format",
        excluded_degraded=result.scores.scenarios.get("excluded_degraded", 0), notes_to_stderr=False,
        warnings=list(result.scores.warnings),
    )


def import_(
    src: Path = typer.Argument(..., help="a scenario file (.yaml/.json/.jsonl) or a folder of them"),
    out: Path = typer.Option(..., "--out", help="suite folder to write"),
    name: str | None = typer.Option(None, "--name", help="suite name (default: the folder name)"),
    preamble: str | None = typer.Option(None, "--preamble", help="duty preamble text (default: the standard one)"),
    strict_vocab: bool = typer.Option(False, "--strict-vocab", help="require attributes from the fixed vocabularies"),
    force: bool = typer.Option(False, "--force", help="replace the scenarios in an existing --out"),
) -> None:
    """Load externally written scenarios through the validator into a suite folder."""
    from floorbench.suites.mpe.importer import import_scenarios

    try:
        result = import_scenarios(src, out, name=name, preamble=preamble, strict_vocab=strict_vocab, force=force)
    except FloorbenchError as e:
        exit_with(first_line(e))
    except OSError as e:
        exit_with_os(e)
    for line in result.rejected:
        typer.echo(f"rejected: {one_line(line)}")
    if result.written:
        typer.echo(one_line(f"imported {len(result.written)} scenarios into {out}; next: floorbench render {out}"))
    if result.rejected:
        exit_with(f"{src}: {len(result.rejected)} record(s) or pair(s) rejected (listed on stdout)")


def commands(app: typer.Typer) -> None:
    """Suite mpe's part `commands`: `floorbench suite import` (scenarios written elsewhere)."""
    app.command("import")(import_)
