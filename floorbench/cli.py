"""The `floorbench` command.

Each area registers its own commands (`register(app)` in its `commands`
module) and imports its heavy dependencies inside the command functions, so
`floorbench --help` starts fast and a broken optional backend never breaks
unrelated commands.
"""

from __future__ import annotations

import importlib
from typing import Any, NoReturn

import typer

from floorbench.errors import FloorbenchError, one_line, path_error_line


def _click_errors() -> Any:
    """click's exception classes: typer >= 0.2x carries its own copy of click, older typer uses click."""
    try:
        return importlib.import_module("typer._click.exceptions")
    except ImportError:
        return importlib.import_module("click.exceptions")


click_errors = _click_errors()

app = typer.Typer(
    name="floorbench",
    help="Live, real-time evaluation of full-duplex spoken dialogue systems over WebRTC.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

COMMAND_MODULES = (
    "floorbench.pipelines.commands",  # server, run, models
    "floorbench.scenarios.commands",  # generate, render, suite info/import
    "floorbench.scoring.commands",  # score, judge-agreement
    "floorbench.report.commands",  # report
    "floorbench.pipelines.latency.commands",  # latency
    "floorbench.pipelines.demo.commands",  # devices, demo
    "floorbench.pipelines.dispatch.commands",  # worker (run --play-on workers)
    "floorbench.phone.commands",  # phone-agent (the agent end of --via sip:)
)

for _mod in COMMAND_MODULES:
    try:
        importlib.import_module(_mod).register(app)
    except ModuleNotFoundError as _e:  # an area not built yet must not break the others
        if _e.name != _mod:
            raise


def _suite_commands() -> None:
    """Top-level commands a suite adds itself (its part `cli_commands`: suite agent's `test`)."""
    from floorbench.plugins import all_suites

    for plugin in all_suites():
        if plugin.cli_commands:
            plugin.part("cli_commands")(app)


_suite_commands()


def _quiet_logs() -> None:
    """WebRTC teardown warnings from the LiveKit SDK ("peer connection is closed …")
    are noise for a user; FLOORBENCH_LOG=DEBUG brings everything back."""
    import logging
    import os

    level = os.environ.get("FLOORBENCH_LOG", "WARNING").upper()
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if level != "DEBUG":
        logging.getLogger("livekit").setLevel(logging.ERROR)
    try:  # pipecat logs through loguru, INFO by default
        import sys

        from loguru import logger

        logger.remove()
        logger.add(sys.stderr, level="WARNING" if level != "DEBUG" else "DEBUG")
    except ImportError:
        pass


def run_cli(cli: typer.Typer, args: list[str] | None = None) -> None:
    """Run `cli`: every expected failure prints one line, ``error: <message>``, and exits with its
    code (2 unless the error says otherwise); any other exception is a bug and keeps its traceback.

    Expected are a `FloorbenchError`, a command line click cannot parse (a missing option, a
    value of the wrong type: click's multi-line usage box becomes one line naming the option
    and ``--help``), and a path the operating system refuses (no such file, permission denied,
    not a folder, disk full), which names the path.
    """
    try:
        name = cli.info.name if isinstance(cli.info.name, str) else None  # "floorbench", however started
        code = cli(args=args, prog_name=name, standalone_mode=False)
    except FloorbenchError as e:
        _fail(one_line(e), e.exit_code)
    except click_errors.NoArgsIsHelpError as e:
        typer.echo(e.ctx.get_help())
        raise SystemExit(2) from None
    except click_errors.UsageError as e:
        _fail(_usage_line(e), 2)
    except click_errors.ClickException as e:
        _fail(one_line(e.format_message()), 2)
    except typer.Abort:
        _fail("aborted", 1)
    except OSError as e:
        line = path_error_line(e)
        if line is None:
            raise
        _fail(line, 2)
    if isinstance(code, int) and code:
        raise SystemExit(code)


def _usage_line(e: Any) -> str:
    """click's usage error as one line, pointing at the command's --help."""
    where = f"; see `{e.ctx.command_path} --help`" if e.ctx is not None else ""
    return one_line(f"{str(e.format_message()).rstrip('.')}{where}")


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise SystemExit(code)


def _model_config_text(value: str) -> str:
    """`--config`'s text, from a path or a packaged config's name ('' when neither reads): the loopback
    interposer stays off when the model's config names a host outside loopback (transports/loopback.py)."""
    from pathlib import Path

    from floorbench.scenarios.files import resolve_model_config

    try:
        path = resolve_model_config(Path(value))
        if path.is_file() and path.stat().st_size <= 1_000_000:
            return path.read_text(errors="replace")
    except Exception:  # an unreadable config is the command's own error to report, after this
        return ""
    return ""


def main() -> None:
    """The console script: `run_cli`, and the last resort for a bug — an exception no reader expected is
    one ``error:`` line naming the command and its input, its traceback (secrets redacted) in a crash
    file (in ``--out`` when given), exit 70 (never 2: it is counted as a bug, not a refused input)."""
    import sys

    from floorbench.errors import CRASH_EXIT, crash_line
    from floorbench.transports.loopback import reexec_if_wanted

    reexec_if_wanted(sys.argv[1:], _model_config_text)  # WebRTC sockets on loopback only when every peer is
    _quiet_logs()
    try:
        run_cli(app)
    except Exception as e:  # the last resort
        typer.echo(f"error: {crash_line(e, sys.argv[1:])}", err=True)
        raise SystemExit(CRASH_EXIT) from None


if __name__ == "__main__":
    main()
