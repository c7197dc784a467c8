"""Suite av's command-line parts: `generate --suite av` and `floorbench suite import-av`."""

from __future__ import annotations

from pathlib import Path

import typer

from floorbench.errors import (
    FloorbenchError,
    OptionError,
    check_range,
    exit_with,
    exit_with_os,
    first_line,
    one_line,
)
from floorbench.plugins import GenerateRequest
from floorbench.scoring.outcome import ScoreOutcome, ScoreRequest


def generate(req: GenerateRequest) -> str:
    """`generate --suite av`: synthetic clips drawn and rendered now (no `render` step)."""
    from floorbench.scenarios.validate import load_suite
    from floorbench.suites.av.generate import MAX_PER_DYNAMIC, AvGenConfig, parse_dynamics, write_av_suite

    if req.pairs != 100:  # --pairs is not av's count (a typo'd size must not write a suite of another size)
        raise OptionError(f"--pairs {req.pairs}: suite av counts clips per dynamic; use --per-dynamic N "
                          f"(1..{MAX_PER_DYNAMIC}) instead")
    per_dynamic = req.options.get("per_dynamic", 2)
    check_range("--per-dynamic", per_dynamic, 1, MAX_PER_DYNAMIC)
    cfg = AvGenConfig(per_dynamic=per_dynamic, seed=req.seed, dynamics=parse_dynamics(req.options.get("dynamics")))
    write_av_suite(req.out, cfg, force=req.force)
    loaded = load_suite(req.out, audio=True)
    return (f"wrote {len(loaded.scenarios)} av scenarios (audio and video) to {req.out}; all validated. "
            f"Next: floorbench run --suite {req.out} (no render needed)")


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
    from floorbench.suites.av.importer import ImportOptions
    from floorbench.suites.av.importer import import_av as run_import

    try:
        if fps is not None:
            check_range("--fps", fps, 5, 60)
        if height is not None:
            check_range("--height", height, 16, 2160)
        done = run_import(src, out, ImportOptions(fps=fps, height=height, voice=voice), name=name, force=force)
    except FloorbenchError as e:
        exit_with(first_line(e))
    except OSError as e:
        exit_with_os(e)
    typer.echo(one_line(f"imported {len(done)} av clips into {out}; run it with floorbench run --suite {out} "
                        "(no render needed)"))


def commands(app: typer.Typer) -> None:
    """Suite av's part `commands`: its importer under `floorbench suite`."""
    app.command("import-av")(import_av)


def recognises(target: Path) -> bool:
    """A run whose meta.json names suite av, or a recordings folder of its clips."""
    from floorbench.scoring.inputs import discover
    from floorbench.suites.av.score import is_av_run

    return is_av_run(discover(target))


def score(target: Path, req: ScoreRequest) -> ScoreOutcome:
    """Suite av's part `score` (docs/suites/av.md, "Scoring")."""
    from floorbench.scoring.held_in import refuse_content
    from floorbench.suites.av.score import AvScoreOptions, score_av
    from floorbench.suites.av.tables import summary_lines

    refuse_content(target, req.judge)  # content judged in English only: another language is one line
    scores, where = score_av(target, req.as_options(AvScoreOptions))
    counts = scores["scenarios"]
    return ScoreOutcome(
        scored=counts["scored"], errors=list(scores["errors"]), summary=summary_lines(scores),
        wrote=f"wrote {where / 'av_scores.json'} and {where / 'av_report.md'}",
        nothing_scored=f"{target}: no av clip could be scored ({counts['unscorable']} unscorable, reasons in av_scores.json)",
        excluded_degraded=counts.get("excluded_degraded", 0), warnings=list(scores.get("warnings", [])),
    )


def own_labels(path: Path) -> bool:
    """A label file of suite av's rubric judge (docs/suites/av.md, "Scoring")."""
    from floorbench.suites.av.agreement import is_rubric_labels

    return is_rubric_labels(path)


def label_agreement(path: Path, judge: str, out: Path, options: dict[str, object]) -> tuple[list[str], Path]:
    """Suite av's part `label_agreement`: the rubric judge against people."""
    from floorbench.suites.av.agreement import calibrate_rubric, report_lines

    result, written = calibrate_rubric(path, judge, out, dict(options))
    return list(report_lines(result)), written
