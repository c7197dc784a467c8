"""The `floorbench` command.

Each area registers its own commands (`register(app)` in its `commands`
module) and imports its heavy dependencies inside the command functions, so
`floorbench --help` starts fast and a broken optional backend never breaks
unrelated commands.
"""

from __future__ import annotations

import importlib

import typer

from floorbench.errors import FloorbenchError

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
    "floorbench.scoring.commands",  # score, report, judge-agreement
)

for _mod in COMMAND_MODULES:
    try:
        importlib.import_module(_mod).register(app)
    except ModuleNotFoundError as _e:  # an area not built yet must not break the others
        if _e.name != _mod:
            raise


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
    """Run `cli`: an expected failure (`FloorbenchError`) prints ``error: <message>`` and exits
    with its exit code; any other exception is a bug and keeps its traceback."""
    try:
        cli(args=args)
    except FloorbenchError as e:
        typer.echo(f"error: {e}", err=True)
        raise SystemExit(e.exit_code) from None


def main() -> None:
    _quiet_logs()
    run_cli(app)


if __name__ == "__main__":
    main()
