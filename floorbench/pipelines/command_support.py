"""What the live path's command modules share: the one-line failure, the server's wait, a model config file.

Kept out of the command modules themselves so that `run`, `server`, `worker` and
the phone leg's commands import this library, not one another (a command module
is the top of the import graph; two of them importing each other made a circle).
Every expected failure of a command ends here: one line, ``error: …``, exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import typer


def fail(msg: str) -> NoReturn:
    """One line, ``error: …``, exit code 2: how every floorbench command ends on an expected failure."""
    from floorbench.errors import one_line

    typer.echo(f"error: {one_line(msg)}", err=True)  # a name the user typed or a file held, shown escaped
    raise typer.Exit(2)


class StopOnSigterm:
    """`server`'s wait: until Ctrl-C or SIGTERM, failing once a server it started exits.

    SIGTERM (a supervisor stopping `floorbench server`) ends the wait as Ctrl-C does, so the
    caller's ``finally`` still stops the LiveKit servers and their Redis instead of leaving them
    behind. Shared by one server and `server --nodes N`.
    """

    def __init__(self) -> None:
        import signal

        self.stopped = False
        signal.signal(signal.SIGTERM, self._stop)

    def _stop(self, *_: object) -> None:
        self.stopped = True

    def hold(self, alive: Callable[[], bool], exited: str) -> None:
        """Return on SIGTERM; fail with `exited` when `alive()` says the servers are gone (Ctrl-C: the caller's)."""
        import time

        while not self.stopped:
            if not alive():
                fail(exited)
            time.sleep(0.5)


def read_model_config(path: Path | None) -> dict[str, Any]:
    """A model config YAML (a mapping); one-line errors for a missing or broken file."""
    if path is None:
        return {}
    from floorbench.scenarios.validate import ScenarioError, read_yaml

    try:
        data = read_yaml(path)
    except ScenarioError as e:
        fail(str(e))
    if data is None:
        return {}
    if not isinstance(data, dict):
        fail(f"{path}: a model config must be a YAML mapping of settings")
    return dict(data)  # type: ignore[arg-type]
