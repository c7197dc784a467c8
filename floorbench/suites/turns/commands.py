"""Suite turns' command-line parts: `generate --suite turns` and `floorbench suite import-turns`."""

from __future__ import annotations

from pathlib import Path

import typer

from floorbench.errors import FloorbenchError, check_range, exit_with, exit_with_os, first_line, one_line
from floorbench.plugins import GenerateRequest
from floorbench.scoring.outcome import ScoreOutcome, ScoreRequest


def generate(req: GenerateRequest) -> str:
    """`generate --suite turns`: --pairs counts dialogues (one scenario each)."""
    from floorbench.scenarios.validate import load_suite
    from floorbench.speech.languages import language
    from floorbench.suites.turns.generate import MAX_DIALOGUES, write_turns_suite

    check_range("--pairs", req.pairs, 1, MAX_DIALOGUES)
    lang = language(req.options.get("language", "en"), "--language").code
    write_turns_suite(req.out, req.pairs, req.seed, force=req.force, language=lang)
    loaded = load_suite(req.out, audio=False)
    return f"wrote {len(loaded.scenarios)} turns dialogues to {req.out}; all validated. Next: floorbench render {req.out}"


def import_turns(
    wav: Path = typer.Argument(..., help="a two-channel recording (WAV/FLAC) of a conversation"),
    labels: Path = typer.Argument(..., help="CSV: label,start_ms,end_ms,text per user clip (docs/suites/turns.md)"),
    out: Path = typer.Option(..., "--out", help="suite folder to write (one turns scenario)"),
    user_channel: int = typer.Option(1, "--user-channel", help="the channel played as the user (1 or 2)"),
    scenario_id: str | None = typer.Option(None, "--scenario-id", help="default: the recording's file name"),
    conversation_type: str = typer.Option("casual", "--conversation-type", help="casual, task-oriented, ..."),
    force: bool = typer.Option(False, "--force", help="replace the suite in an existing --out"),
) -> None:
    """Turn one channel of a recorded conversation, with event labels, into a live turns scenario."""
    from floorbench.suites.turns.importer import import_recording

    try:
        path = import_recording(wav, labels, out, user_channel, scenario_id, conversation_type, force=force)
    except FloorbenchError as e:
        exit_with(first_line(e))
    except OSError as e:
        exit_with_os(e)
    typer.echo(one_line(f"imported {path}; run it with floorbench run --suite {out} (no render needed)"))


def commands(app: typer.Typer) -> None:
    """Suite turns' part `commands`: its importer under `floorbench suite`."""
    app.command("import-turns")(import_turns)


def recognises(target: Path) -> bool:
    """A run or recordings folder whose dialogues carry suite turns' clip labels."""
    from floorbench.scoring.inputs import discover
    from floorbench.suites.turns.score import is_turns

    return is_turns(discover(target))


def score(target: Path, req: ScoreRequest) -> ScoreOutcome:
    """Suite turns' part `score`: TurnBench's event-anchored matching (docs/suites/turns.md)."""
    from floorbench.suites.turns.score import score_turns
    from floorbench.suites.turns.tables import summary_lines

    scores, where = score_turns(target, req.out, workers=req.workers, resamples=req.resamples, seed=req.seed,
                                exclude_degraded=req.exclude_degraded)
    excluded = scores["scenarios"]["excluded_degraded"]
    return ScoreOutcome(
        scored=scores["scenarios"]["scored"], errors=list(scores["errors"]), summary=summary_lines(scores),
        wrote=f"wrote {where / 'turns_scores.json'}, {where / 'turnbench_submission.json'} and {where / 'turns_report.md'}",
        nothing_scored=(f"{target}: no turns dialogue could be scored ({len(scores['errors'])} unreadable, "
                        f"{excluded} left out as degraded)"),
        excluded_degraded=excluded, warnings=list(scores.get("warnings", [])),
    )
