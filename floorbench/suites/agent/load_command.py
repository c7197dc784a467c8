"""CLI command `floorbench load`: the steps of `floorbench.suites.agent.load`, each a `floorbench test` run.

Each step N writes ``OUT/callers-N/`` (its suite, its run folder and its
results.json, as `floorbench test` does, so `floorbench report OUT/callers-N`
draws a step's calls) and then OUT/load.json, load.md and load.svg again, so
an interrupted load test keeps every step it finished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from floorbench.suites.agent.commands import (
    AsrOption,
    ConfigOption,
    IdentityOption,
    JoinTimeoutOption,
    KeywordOption,
    LiveKitUrlOption,
    ModelOption,
    PersonaKeyEnvOption,
    PersonaUrlOption,
    QuietOption,
    TagOption,
    ViaOption,
    VoicesOption,
)


def write_step_results(folder: Path, run_dir: Path, callers: int, judged: list[dict[str, Any]]) -> None:
    """``callers-N/results.json``: the step's trials and verdicts in the shape `floorbench test` writes (each
    test played N times at once is N trials of it), for `floorbench report` and a reader of one step."""
    from datetime import UTC, datetime

    from floorbench.records import write_json_atomic
    from floorbench.suites.agent.commands import RESULTS_VERSION
    from floorbench.suites.agent.verdicts import aggregate, exit_code

    tests = aggregate(judged)
    write_json_atomic(folder / "results.json", {
        "results_version": RESULTS_VERSION, "suite": "agent", "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "run": str(run_dir), "trials_per_test": callers, "callers": callers, "pass_threshold": None, "tests": tests,
        "trials": judged, "baseline": None, "exit_code": exit_code(tests)})


def run_load(
    paths: Annotated[list[Path], typer.Argument(help="test files (YAML), or folders of them: what each caller does")],
    out: Annotated[Path, typer.Option(help="folder to write: callers-N/ per step, load.json, load.md, load.svg")],
    sessions: Annotated[str, typer.Option(help="callers at once per step, increasing (1..64)")] = "1,2,4,8",
    max_failure_rate: Annotated[float, typer.Option(help="stop after a step whose share of failed trials is above this")] = 0.5,
    max_p95_ms: Annotated[int, typer.Option(help="stop after a step whose response latency p95 is above this (ms)")] = 5000,
    model: ModelOption = None,
    config: ConfigOption = None,
    identity: IdentityOption = None,
    dispatch: Annotated[str | None, typer.Option(help="external agent: LiveKit agent name to dispatch to every room (implies --model external)")] = None,
    via: ViaOption = None,
    livekit_url: LiveKitUrlOption = None,
    keyword: KeywordOption = None,
    tag: TagOption = None,
    join_timeout: JoinTimeoutOption = 60.0,
    asr: AsrOption = "tiny.en",
    quiet: QuietOption = False,
    persona_url: PersonaUrlOption = None,
    persona_key_env: PersonaKeyEnvOption = None,
    voices: VoicesOption = None,
) -> None:
    """An agent under load: N simultaneous callers, N stepped up; latency from the audio per step."""
    from floorbench.errors import FloorbenchError, OptionError, check_range
    from floorbench.escape import printable
    from floorbench.pipelines.commands import fail
    from floorbench.suites.agent.commands import (
        collect,
        judge_trials,
        persona_binding,
        play_tests,
        select,
        use_voices,
    )
    from floorbench.suites.agent.load import (
        parse_sessions,
        step_summary,
        stop_reason,
        table_lines,
        write_outputs,
    )

    try:
        steps_n = parse_sessions(sessions)
        binding = persona_binding(persona_url, persona_key_env)
        use_voices(voices)
        check_range("--max-p95-ms", max_p95_ms, 1, 600_000)
        if not 0 <= max_failure_rate <= 1:
            raise OptionError(f"--max-failure-rate must be from 0 to 1, got {max_failure_rate}")
        chosen = select(collect(paths), keyword or [], tag or [])
    except (FloorbenchError, OptionError) as e:
        fail(str(e))
    if not chosen:
        fail("no test selected; check -k/--tag against the test names and tags")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"{out}: not an empty folder; pass a new --out (a load test is not resumed)")
    out.mkdir(parents=True, exist_ok=True)
    header = {"system": dispatch or model or via or (str(config) if config else ""), "tests": [t.name for t in chosen],
              "sessions": steps_n, "max_failure_rate": max_failure_rate, "max_p95_ms": max_p95_ms}
    steps: list[dict[str, object]] = []
    stopped: str | None = None
    for n in steps_n:
        typer.echo(f"floorbench load: {n} caller(s) at once", err=True)
        run_dir = play_tests(chosen, out / f"callers-{n}", n, model, config, identity, dispatch, livekit_url, str(n),
                       join_timeout, False, quiet, binding=binding, via=via)
        judged = judge_trials(chosen, run_dir, n, asr, out / "scoring-cache")
        write_step_results(out / f"callers-{n}", run_dir, n, judged)
        step = step_summary(n, judged)
        steps.append(step)
        stopped = stop_reason(step, max_failure_rate, max_p95_ms)
        write_outputs(out, steps, stopped, header)  # after every step: an interrupted load test keeps it
        if stopped:
            break
    for line in table_lines(steps):
        typer.echo(line)
    typer.echo(("stopped: " + printable(stopped) if stopped else "every step ran")
               + f" → {out / 'load.json'}, {out / 'load.md'}, {out / 'load.svg'}")
