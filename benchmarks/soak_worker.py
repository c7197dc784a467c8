"""`floorbench worker` for the soak, whose publish moves its files slowly: a window to SIGKILL it mid-publish.

A worker publishes an attempt by moving its staged files into ``OUT/<id>/``
(pipelines/dispatch.py `publish`, meta.json last), which takes microseconds.
The soak (benchmarks/soak.py, ``--publish-kills``) runs worker 1 through this
module instead of the CLI: every move of a publish is followed by a pause of
``SOAK_PUBLISH_PAUSE_S`` seconds (default 0.4), so the chaos loop can kill the
worker while ``OUT/<id>/`` holds some of the attempt's files and not its
meta.json. Nothing else about the worker changes.

    python benchmarks/soak_worker.py --suite SUITE --livekit-url URL --max-jobs N
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from floorbench.pipelines.dispatch import protocol as dispatch

PAUSE_S = float(os.environ.get("SOAK_PUBLISH_PAUSE_S", "0.4"))
_publishing = threading.local()
_publish = dispatch.publish


class _SlowMoves:
    """`os` as pipelines/dispatch.py sees it, but each `replace` made by a publish is followed by a pause."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def replace(self, src: Any, dst: Any) -> None:
        os.replace(src, dst)
        pause = getattr(_publishing, "pause_s", None)
        if pause:
            time.sleep(pause)


def slow_publish(out: Path, spec: dispatch.JobSpec, worker: str, pause_s: float | None = None) -> bool:
    """`dispatch.publish`, unchanged but for a pause after each file it moves (in this thread only)."""
    if not isinstance(getattr(dispatch, "os"), _SlowMoves):  # noqa: B009
        setattr(dispatch, "os", _SlowMoves())  # noqa: B010 - the module's own name for os, nobody else's
    _publishing.pause_s = PAUSE_S if pause_s is None else pause_s
    try:
        return _publish(out, spec, worker)
    finally:
        _publishing.pause_s = None


def install() -> None:
    """Every publish of this process moves its files slowly (the worker's other work is untouched)."""
    setattr(dispatch, "publish", slow_publish)  # noqa: B010


def main() -> None:
    from floorbench.cli import main as cli_main

    install()
    sys.argv = ["floorbench", "worker", *sys.argv[1:]]
    cli_main()


if __name__ == "__main__":
    main()
