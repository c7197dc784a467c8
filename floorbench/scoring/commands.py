"""`floorbench score` and `floorbench judge-agreement`.

Heavy imports (onnxruntime, faster-whisper, numpy models) happen inside the
command functions, so `floorbench --help` stays fast. Every expected failure
is a `FloorbenchError` and ends with its first line and exit code 2, never a
stack trace; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import typer

from floorbench.errors import FloorbenchError, OptionError, check_range, one_line, path_error_line
from floorbench.escape import printable

MAX_CONCURRENCY = 64
"""parallel LLM requests (and VAD worker processes): more only trips rate limits or memory"""
MAX_RESAMPLES = 100_000
"""bootstrap replicates; each metric holds one float per replicate"""
MAX_SEED = 2**32 - 1
MAX_SAMPLE = 100_000


def _fail(err: FloorbenchError | OSError) -> NoReturn:
    """Print the error's first line and exit with its code (2); an OSError that is not about a
    path the user gave stays a bug with its traceback."""
    if isinstance(err, OSError) and not isinstance(err, FloorbenchError):
        line = path_error_line(err)
        if line is None:
            raise err
        typer.echo(f"error: {line}", err=True)
        raise typer.Exit(2)
    lines = str(err).splitlines() or [type(err).__name__]
    typer.echo(f"error: {one_line(lines[0])}", err=True)
    raise typer.Exit(err.exit_code)


def _check(*bounds: tuple[str, int, int, int]) -> None:
    """(option, value, lo, hi) for every number a command takes; one line naming the limit."""
    try:
        for option, value, lo, hi in bounds:
            check_range(option, value, lo, hi)
    except OptionError as e:
        _fail(e)


def _judge_options(judge: str, base_url: str | None, key_env: str, concurrency: int) -> dict[str, object]:
    if judge == "offline":
        return {}
    return {"base_url": base_url, "api_key_env": key_env, "concurrency": concurrency}


def score_cmd(
    target: Path = typer.Argument(..., help="a run directory or a recordings folder"),
    out: Path | None = typer.Option(None, help="where to write scores.json, items.jsonl (default: TARGET)"),
    asr: str = typer.Option("tiny.en", help="faster-whisper model name or local folder"),
    asr_download: bool = typer.Option(False, help="allow faster-whisper to download a named model"),
    judge: str = typer.Option("offline", help="'offline', 'llm:<model>' (OpenAI-compatible), or 'offline+llm:<model>' "
                              "(the LLM judges only the items the offline rules are unsure of)"),
    judge_base_url: str | None = typer.Option(None, help="LLM endpoint, e.g. http://localhost:8000/v1"),
    judge_key_env: str = typer.Option("OPENAI_API_KEY", help="env var holding the LLM API key"),
    judge_concurrency: int = typer.Option(4, help="parallel LLM requests (1..64)"),
    workers: int = typer.Option(2, help="VAD worker processes (1..64)"),
    resamples: int = typer.Option(10_000, help="scenario-bootstrap resamples (0 = no intervals; at most 100000)"),
    seed: int = typer.Option(0, help="bootstrap seed (0..4294967295)"),
    cache_dir: Path | None = typer.Option(None, help="ASR/judge caches (default: OUT/scoring-cache)"),
    exclude_degraded: bool = typer.Option(
        False, "--exclude-degraded", help="leave out scenarios whose timing verdict is degraded (meta.json timing)"
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Score recordings: timing from VAD, content from ASR + judge, intervals, McNemar."""
    from floorbench.plugins import suite_recognising
    from floorbench.scoring.outcome import ScoreRequest

    _check(("--judge-concurrency", judge_concurrency, 1, MAX_CONCURRENCY), ("--workers", workers, 1, MAX_CONCURRENCY),
           ("--resamples", resamples, 0, MAX_RESAMPLES), ("--seed", seed, 0, MAX_SEED))

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and sys.stderr.isatty():
            print(f"\r{stage}: {done}/{total}   ", end="", file=sys.stderr, flush=True)

    request = ScoreRequest(
        asr=asr, asr_download=asr_download, judge=judge,
        judge_options=_judge_options(judge, judge_base_url, judge_key_env, judge_concurrency),
        workers=workers, resamples=resamples, seed=seed, out=out, cache_dir=cache_dir,
        exclude_degraded=exclude_degraded, progress=progress,
    )
    try:
        outcome = suite_recognising(target).part("score")(target, request)
    except (FloorbenchError, OSError) as e:
        _fail(e)
    if not quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    notes_err = outcome.notes_to_stderr or outcome.scored > 0
    for line in outcome.errors:
        typer.echo(f"skipped: {one_line(line)}", err=notes_err)
    for line in outcome.warnings:
        typer.echo(f"warning: {one_line(printable(line))}", err=True)
    if exclude_degraded:
        typer.echo(f"left out {outcome.excluded_degraded} scenario(s) whose timing verdict is degraded", err=notes_err)
    for line in outcome.summary:
        typer.echo(printable(line))  # run names and reasons come from files
    typer.echo(outcome.wrote)
    if outcome.scored == 0:
        from floorbench.scoring.inputs import InputError

        _fail(InputError(outcome.nothing_scored))


def judge_agreement_cmd(
    scored: Path | None = typer.Argument(None, help="a scored run folder (holding items.jsonl); not with --labels"),
    a: str = typer.Option("offline", "--a", help="first judge (two-judge mode)"),
    b: str | None = typer.Option(None, "--b", help="second judge, e.g. llm:gpt-4o-mini (two-judge mode)"),
    labels: str | None = typer.Option(
        None, help="human labels: a packaged set ('calibration', 'calibration-holdout', 'calibration-blind', "
        "'calibration-blind-holdout', 'calibration-varied', 'calibration-independent', 'calibration-independent2', "
        "'calibration-independent3', 'calibration-independent4', 'calibration-independent5', "
        "'calibration-independent6', 'calibration-independent7', 'calibration-independent8', "
        "'calibration-independent9', 'calibration-independent10', "
        "'calibration-all', 'calibration-tuning'), a JSONL "
        "file or a folder; several joined by '+'"
    ),
    judge: str = typer.Option("offline", help="with --labels: the judge to measure; an LLM judge is "
                              "reported beside the offline one"),
    sample: int = typer.Option(100, help="items to sample per task (1..100000)"),
    seed: int = typer.Option(0),
    judge_base_url: str | None = typer.Option(None),
    judge_key_env: str = typer.Option("OPENAI_API_KEY"),
    judge_concurrency: int = typer.Option(4),
    out: Path | None = typer.Option(None, help="where to write judge_agreement.json (default: SCORED, or "
                                    "./judge-agreement with --labels)"),
    hold_out_source: list[str] = typer.Option(
        [], "--hold-out-source", help="with --labels: a source (the items' 'source' field) reported apart from "
        "the rest, with the gap between them; repeatable"),
) -> None:
    """Measure a judge against human labels (--labels), or two judges on a scored run's items."""
    _check(("--sample", sample, 1, MAX_SAMPLE), ("--seed", seed, 0, MAX_SEED),
           ("--judge-concurrency", judge_concurrency, 1, MAX_CONCURRENCY))
    if labels is not None:
        _judge_labels(labels, scored, judge, out, _judge_options(judge, judge_base_url, judge_key_env,
                                                                 judge_concurrency), hold_out_source)
        return
    from floorbench.plugins import suite_reporting

    if scored is None or b is None:
        _fail(OptionError("judge-agreement needs --labels FILE, or a scored run folder and --b JUDGE"))
    if (scored / "av_scores.json").is_file():
        _fail(OptionError(f"{scored}: an av run's rubric is measured against people only: --labels FILE with its "
                          "clips' rubric_payload (docs/suites/av.md, Scoring)"))
    suite = suite_reporting([scored])
    if not suite.has("run_agreement"):
        _fail(OptionError(f"{scored}: suite {suite.name}'s judges are measured against people only: --labels FILE "
                          f"(docs/{suite.doc})"))
    agreement = suite.part("run_agreement")
    try:
        result, path = agreement(
            scored, a, b, sample=sample, seed=seed, out=out,
            options_a=_judge_options(a, judge_base_url, judge_key_env, judge_concurrency),
            options_b=_judge_options(b, judge_base_url, judge_key_env, judge_concurrency),
        )
    except (FloorbenchError, OSError) as e:
        _fail(e)
    for task, row in result["tasks"].items():
        typer.echo(
            f"{task}: n={row['n']} agreement={row['agreement']} (decided only: {row['agreement_decided']}; "
            f"unsure a={row['unsure_a']} b={row['unsure_b']}) kappa={row['kappa']} confusion={row['confusion']}"
        )
    typer.echo(f"wrote {path}")


def _judge_labels(labels: str, scored: Path | None, judge: str, out: Path | None,
                  options: dict[str, object], hold_out: list[str] | None = None) -> None:
    """`--labels`: the judge (and the offline judge beside an LLM one) against human verdicts."""
    from floorbench.plugins import suite_owning_labels
    from floorbench.scoring.agreement_labels import calibrate, report_lines

    if scored is not None:
        _fail(OptionError("--labels measures a judge against human labels; give no scored run folder with it"))
    owner = suite_owning_labels(Path(labels))
    if owner is not None:  # labels of a suite's own judge (suite av's rubric, docs/suites/av.md "Scoring")
        try:
            lines, path = owner.part("label_agreement")(Path(labels), judge, out or Path("judge-agreement"), dict(options))
        except (FloorbenchError, OSError) as e:
            _fail(e)
        for line in lines:
            typer.echo(line)
        typer.echo(f"wrote {path}")
        return
    judges = [judge] if judge == "offline" else ["offline", judge]
    try:
        result, path = calibrate(labels, judges, out or Path("judge-agreement"), options={judge: options},
                                 hold_out=hold_out)
    except (FloorbenchError, OSError) as e:
        _fail(e)
    for line in report_lines(result, disagreements_of=judge):
        typer.echo(line)
    typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add this area's commands to the `floorbench` app."""
    app.command("score")(score_cmd)
    app.command("judge-agreement")(judge_agreement_cmd)
