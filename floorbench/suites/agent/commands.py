"""`floorbench test`: conversation tests against a voice agent, gated in CI (docs/testing.md).

``floorbench test PATH... --model NAME --out DIR`` reads the test files (a
folder: every ``*.yaml``/``*.yml`` in it), keeps the tests `-k`/`--tag`
select, writes them as a suite folder (``DIR/suite``: one scenario per test
and trial), renders it with the local voices, runs it live like
``floorbench run`` (``DIR/run``), judges every trial's assertions from its
recording and writes ``DIR/results.json``, the report ``DIR/report.html`` and
``DIR/report.md`` (`floorbench.suites.agent.report`) and ``--junit FILE``. Exit 0:
every test met its pass threshold; 1: one did not (or, with ``--baseline``, a
regression); 2: an error (bad input, a room that failed, missing evidence).

Also suite agent's parts `recognises` and `score` (`floorbench score DIR/run`).
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from floorbench.phone.commands import VIA_HELP, via_syntax
from floorbench.scoring.outcome import ScoreOutcome, ScoreRequest

RESULTS_VERSION = 1
PERSONA_URL_HELP = ("send every persona step to this OpenAI-compatible endpoint (http(s)://…/v1; also "
                    "FLOORBENCH_PERSONA_URL): the only endpoint a key is ever sent to")
VOICES_HELP = ("the operator's voices file: the service voices (service:NAME) a test file may name, each with "
               "its pipecat service, endpoint and key variable (also FLOORBENCH_VOICES)")
PERSONA_KEY_ENV_HELP = ("the environment variable whose key goes to --persona-url (default: FLOORBENCH_PERSONA_KEY "
                        "when set); a test file never names one")
TEST_FILE_SUFFIXES = (".yaml", ".yml")

# the options `floorbench test` and `floorbench load` (load_command.py) share, declared once
ModelOption = Annotated[str | None, typer.Option(help="the system under test (see `floorbench models`)")]
ConfigOption = Annotated[Path | None, typer.Option(help="model config YAML, or a packaged one by name")]
IdentityOption = Annotated[str | None, typer.Option(
    help="external agent: the participant identity to wait for")]
ViaOption = Annotated[str | None, typer.Option(help=VIA_HELP, callback=via_syntax)]
LiveKitUrlOption = Annotated[str | None, typer.Option(
    help="existing LiveKit server (key/secret from LIVEKIT_API_KEY/SECRET); default: start one")]
KeywordOption = Annotated[list[str] | None, typer.Option(
    "-k", "--keyword", help="only tests whose name contains this (repeatable: any)")]
TagOption = Annotated[list[str] | None, typer.Option(help="only tests with this tag (repeatable: any)")]
JoinTimeoutOption = Annotated[float, typer.Option(
    help="seconds to wait for the agent to join (1..3600)")]
AsrOption = Annotated[str, typer.Option(help="ASR model of the content assertions (name or local folder)")]
QuietOption = Annotated[bool, typer.Option(help="no progress bar")]
PersonaUrlOption = Annotated[str | None, typer.Option(help=PERSONA_URL_HELP)]
PersonaKeyEnvOption = Annotated[str | None, typer.Option(help=PERSONA_KEY_ENV_HELP)]
VoicesOption = Annotated[Path | None, typer.Option(help=VOICES_HELP)]


def collect(paths: list[Path]) -> list[Any]:
    """Every test of the files given (a folder: its *.yaml/*.yml files, sorted); one-line errors."""
    from floorbench.suites.agent.importer import check_unique
    from floorbench.suites.agent.validate import AgentTestError, load_test_file

    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.suffix in TEST_FILE_SUFFIXES and f.is_file())
            if not found:
                raise AgentTestError(f"{p}: no test files (*.yaml) in this folder")
            files += found
        elif p.is_file():
            files.append(p)
        else:
            raise AgentTestError(f"{p}: no such test file or folder; check the path")
    tests = [t for f in files for t in load_test_file(f)]
    check_unique(tests)
    return tests


def select(tests: list[Any], keywords: list[str], tags: list[str]) -> list[Any]:
    """`-k` (a test whose name holds any of the words) and `--tag` (a test with any of the tags); both: both."""
    out = tests
    if keywords:
        out = [t for t in out if any(k.lower() in t.name.lower() for k in keywords)]
    if tags:
        out = [t for t in out if set(tags) & set(t.tags)]
    return out


def run_tests(
    paths: Annotated[list[Path], typer.Argument(help="test files (YAML), or folders of them")],
    out: Annotated[Path, typer.Option(help="folder to write: suite/, run/, results.json, report.html, report.md")],
    model: ModelOption = None,
    config: ConfigOption = None,
    identity: IdentityOption = None,
    dispatch: Annotated[str | None, typer.Option(help="external agent: LiveKit agent name to dispatch (implies --model external)")] = None,
    via: ViaOption = None,
    livekit_url: LiveKitUrlOption = None,
    trials: Annotated[int, typer.Option(help="trials per test (1..100): each is its own room")] = 1,
    keyword: KeywordOption = None,
    tag: TagOption = None,
    pass_threshold: Annotated[float | None, typer.Option(help="pass rate a test needs (0..1], unless it sets its own; default 1.0")] = None,
    junit: Annotated[Path | None, typer.Option(help="write JUnit XML here (one testcase per test)")] = None,
    baseline: Annotated[Path | None, typer.Option(help="an earlier run's results.json (or its --out folder): fail on a regression")] = None,
    latency_margin_ms: Annotated[int, typer.Option(help="--baseline: a p95 latency rise beyond this is a regression")] = 100,
    resume: Annotated[bool, typer.Option(help="continue an earlier, unfinished `floorbench test` in --out (same tests)")] = False,
    concurrency: Annotated[str, typer.Option("--concurrency", "-j", help="rooms at once (as `floorbench run`)")] = "1",
    join_timeout: JoinTimeoutOption = 60.0,
    print_join: Annotated[bool, typer.Option(help="print the room URL and a join token per trial")] = False,
    asr: AsrOption = "tiny.en",
    quiet: QuietOption = False,
    acoustics: Annotated[str | None, typer.Option(help="acoustic condition of the caller's audio (as `floorbench run`): office, car, cafe, phone, cafe+phone, cafe+snr5, ...")] = None,
    acoustics_seed: Annotated[int | None, typer.Option(help="seed of the acoustic condition's draws (0..2**31; default 0)")] = None,
    persona_url: PersonaUrlOption = None,
    persona_key_env: PersonaKeyEnvOption = None,
    voices: VoicesOption = None,
    tools_host: Annotated[str | None, typer.Option(help="the address a test's mock tools listen on, for an agent on "
                                                        "another machine (an IP of this one; default 127.0.0.1)")] = None,
) -> None:
    """Run conversation tests against a voice agent: assertions on timing and words, pass rates over trials."""
    from floorbench.errors import FloorbenchError, OptionError, check_range
    from floorbench.options import check_asr, check_output_file
    from floorbench.pipelines.commands import acoustics_profile, fail
    from floorbench.suites.agent.baseline import read_baseline
    from floorbench.suites.agent.importer import MAX_TRIALS

    condition = acoustics_profile(acoustics, acoustics_seed, via)

    try:
        check_range("--latency-margin-ms", latency_margin_ms, 0, 600_000)
        check_range("--trials", trials, 1, MAX_TRIALS)
        check_output_file("--junit", junit, out)  # a folder or OUT/results.json fails now, not after the run
        check_asr("--asr", asr)
        binding = persona_binding(persona_url, persona_key_env)
        use_voices(voices)
        use_tools_host(tools_host)
        if pass_threshold is not None and not 0 < pass_threshold <= 1:
            raise OptionError(f"--pass-threshold must be above 0 and at most 1, got {pass_threshold}")
        before = read_baseline(baseline) if baseline is not None else None
        chosen = select(collect(paths), keyword or [], tag or [])
    except (FloorbenchError, OptionError) as e:
        fail(str(e))
    if not chosen:
        fail("no test selected; check -k/--tag against the test names and tags")
    if (out / "run").exists() and not resume:
        fail(f"{out} holds an earlier test run; pass another --out, or --resume to continue that one")
    run_dir = play_tests(chosen, out, trials, model, config, identity, dispatch, livekit_url, concurrency,
                         join_timeout, print_join, quiet, condition, binding, via=via)
    code = _judge(chosen, out, run_dir, trials, asr, pass_threshold, junit, before, latency_margin_ms)
    raise typer.Exit(code)


def persona_binding(url: str | None, key_env: str | None) -> Any:
    """The operator's `PersonaBinding` from --persona-url/--persona-key-env; one-line OptionError."""
    from floorbench.errors import OptionError
    from floorbench.safe_http import BindingError
    from floorbench.suites.agent.persona_llm import PersonaBinding

    try:
        return PersonaBinding.of(url, key_env)
    except BindingError as e:
        raise OptionError(str(e)) from None


def use_tools_host(host: str | None) -> None:
    """``--tools-host IP``: every trial's mock tools listen there (FLOORBENCH_TOOLS_HOST); one-line OptionError."""
    import ipaddress
    import os

    from floorbench.errors import OptionError
    from floorbench.tools.env import TOOLS_HOST_ENV

    if host is None:
        return
    try:
        unspecified = ipaddress.IPv4Address(host).is_unspecified
    except ValueError:
        unspecified = True
    if unspecified:  # 0.0.0.0 is no address an agent can be given
        raise OptionError(f"--tools-host {host!r}: give an IPv4 address of this machine, e.g. 192.168.1.20")
    os.environ[TOOLS_HOST_ENV] = host


def use_voices(path: Path | None) -> None:
    """``--voices FILE``, checked before anything is written or rendered (one-line OptionError)."""
    from floorbench.errors import OptionError
    from floorbench.speech.tts_voices import VoicesError
    from floorbench.speech.tts_voices import use_voices as use

    try:
        use(path)
    except VoicesError as e:
        raise OptionError(str(e)) from None


def play_tests(chosen: list[Any], out: Path, trials: int, model: str | None, config: Path | None, identity: str | None,
         dispatch: str | None, livekit_url: str | None, concurrency: str, join_timeout: float, print_join: bool,
         quiet: bool, condition: Any = None, binding: Any = None, via: str | None = None) -> Path:
    """Write and render the suite, then play it: the run folder."""
    from floorbench.errors import FloorbenchError
    from floorbench.paths import inside
    from floorbench.pipelines.commands import check_run_numbers, fail, parse_concurrency, system_under_test
    from floorbench.pipelines.run.runner import RunOptions, run_suite
    from floorbench.pipelines.run.scenario_run import ScenarioSettings
    from floorbench.processors.registry import ModelError
    from floorbench.scenarios.files import resolve_model_config
    from floorbench.scenarios.render import render_suite
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.transports.server import LiveKitConnection, ServerError

    rooms, auto_rooms = parse_concurrency(concurrency)
    check_run_numbers(None, join_timeout, 16000, rooms)
    try:
        cfg_path = resolve_model_config(config) if config is not None else None
        connection = LiveKitConnection.from_env(livekit_url)  # a URL without its key: said before anything is written
        name, cfg = system_under_test(model, cfg_path, identity, dispatch, via)  # an unknown model too
        from floorbench.suites.agent.dtmf_format import needs_phone

        needs_phone(((f"{t.source}: test {t.name}", t.steps) for t in chosen), name)  # keys need a phone line
        # a link OUT/suite or OUT/run leading elsewhere is refused before anything is written or deleted
        for sub in ("suite", "run"):
            inside(out, sub, f"{out}: {sub}/", ScenarioError)
        suite_dir = out / "suite"
        scenarios = write_test_suite(chosen, suite_dir, trials)
        typer.echo(f"floorbench test: {len(chosen)} test(s) × {trials} trial(s) → {out}", err=True)
        stats = render_suite(suite_dir)
        if stats.failed:
            fail(f"{stats.failed[0]} (+{len(stats.failed) - 1} more)" if len(stats.failed) > 1 else stats.failed[0])
    except (FloorbenchError, ScenarioError) as e:
        fail(str(e))
    run_dir = out / "run"
    try:
        opts = RunOptions(
            suite=suite_dir, model=name, out=run_dir, config=cfg, connection=connection,
            settings=ScenarioSettings(model_join_timeout_s=join_timeout, print_join=print_join, acoustics=condition,
                                      schedule=binding.options() if binding is not None else {}),
            progress=not quiet and sys.stderr.isatty(), progress_lines=quiet or not sys.stderr.isatty(),
            concurrency=rooms, auto_concurrency=auto_rooms, scenarios=[s.scenario_id for s in scenarios],
        )
        asyncio.run(run_suite(opts))
    except (FloorbenchError, ScenarioError, ModelError, ServerError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail(f"interrupted; finished trials are kept in {run_dir}; run again with --resume to continue")
    return run_dir


def judge_trials(chosen: list[Any], run_dir: Path, trials: int, asr: str, cache_dir: Path) -> list[dict[str, Any]]:
    """Every planned trial of the chosen tests judged from `run_dir` (one not run is an error); an input
    error is one line and exit 2. `floorbench test` and `floorbench load` read their rooms with it."""
    from floorbench.errors import FloorbenchError
    from floorbench.pipelines.commands import fail
    from floorbench.suites.agent.importer import scenario_id
    from floorbench.suites.agent.score import score_trials

    expected = [scenario_id(t.name, k) for t in chosen for k in range(1, trials + 1)]
    try:
        return score_trials(run_dir, asr=asr, expected=expected, cache_dir=cache_dir)
    except FloorbenchError as e:
        fail(str(e))


def _judge(chosen: list[Any], out: Path, run_dir: Path, trials: int, asr: str, threshold: float | None,
           junit: Path | None, before: list[dict[str, Any]] | None, margin_ms: int) -> int:
    """Score every trial, write results.json, the report (report.html, report.md) and JUnit, print the verdicts;
    the exit code."""
    from floorbench.errors import FloorbenchError
    from floorbench.pipelines.commands import fail
    from floorbench.records import write_json_atomic
    from floorbench.suites.agent.baseline import compare, table
    from floorbench.suites.agent.export import junit_xml
    from floorbench.suites.agent.report import write_test_report
    from floorbench.suites.agent.verdicts import aggregate, exit_code, run_quality, summary_lines

    judged = judge_trials(chosen, run_dir, trials, asr, out / "scoring-cache")
    tests = aggregate(judged, threshold)
    results: dict[str, Any] = {
        "results_version": RESULTS_VERSION, "suite": "agent", "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "run": str(run_dir), "trials_per_test": trials, "pass_threshold": threshold, "tests": tests, "trials": judged,
    }
    code = exit_code(tests)
    changes = compare(tests, before, margin_ms) if before is not None else []
    if any(c.regressed for c in changes) and code == 0:
        code = 1
    results["baseline"] = [c.__dict__ for c in changes] if before is not None else None
    results["exit_code"] = code
    results["speech_quality"] = run_quality(judged)
    write_json_atomic(out / "results.json", results)
    try:
        _, page = write_test_report(out, results, run_dir)
    except (FloorbenchError, OSError) as e:
        fail(f"results are in {out / 'results.json'}, but the report was not written: {e}")
    for line in summary_lines(tests):
        typer.echo(line)
    if before is not None:
        typer.echo("baseline: " + ("no change" if not changes else f"{len(changes)} change(s)"))
        for line in table(changes):
            typer.echo("  " + line)
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_text(junit_xml(tests), encoding="utf-8")
    counts = {s: sum(t["status"] == s for t in tests) for s in ("passed", "failed", "error")}
    flaky = sum(t["flaky"] for t in tests)
    typer.echo(f"{counts['passed']} passed, {counts['failed']} failed, {counts['error']} error(s), {flaky} flaky "
               f"→ {out / 'results.json'}, {page}" + (f", {junit}" if junit is not None else ""))
    return code


def persona_standin(
    script: Annotated[Path, typer.Option(help="the stand-in's script (YAML: rules, lines, out_of_lines)")],
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: any free one; the URL is printed)")] = 8088,
) -> None:
    """Serve a scripted, deterministic OpenAI-compatible persona endpoint (no key) for persona tests."""
    from floorbench.pipelines.commands import fail
    from floorbench.suites.agent.persona_standin import StandinError, serve

    if not 0 <= port <= 65535:
        fail(f"--port {port}; use 0–65535")
    try:
        serve(script, port)
    except StandinError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot serve on 127.0.0.1:{port} ({e}); pick another --port")


def recognises(target: Path) -> bool:
    """A run folder whose trials were played by suite agent's schedule."""
    from floorbench.suites.agent.score import is_agent_run

    return is_agent_run(target)


def score(target: Path, req: ScoreRequest) -> ScoreOutcome:
    """Suite agent's part `score`: every trial's assertions, and the verdicts (agent_scores.json)."""
    from floorbench.suites.agent.score import score_agent
    from floorbench.suites.agent.verdicts import summary_lines

    scores, where = score_agent(target, req.out, asr=req.asr, asr_download=req.asr_download,
                                workers=req.workers, cache_dir=req.cache_dir)
    errors = [f"{t['scenario_id']}: {t['error']}" for t in scores["trials"] if t["status"] == "error"]
    return ScoreOutcome(
        scored=sum(t["status"] != "error" for t in scores["trials"]), errors=errors,
        summary=summary_lines(scores["tests"]), wrote=f"wrote {where / 'agent_scores.json'}",
        nothing_scored=f"{target}: no trial of a conversation test could be judged ({len(errors)} in error)",
    )
