"""What a run shows while scenarios play: running, completed, failed, timing-degraded, time left.

With ``--concurrency N`` several scenarios run at once, so "which scenario is
playing" is no longer one name: the display counts them instead. On a terminal
it is a rich progress bar; otherwise (a pipe, a log file, ``--quiet``) one line
per finished scenario, so a log of a night's run says how far it got and how
much was left at each point. The time left is the remaining scenarios at the
rate finished so far (wall seconds per finished scenario, which already
accounts for the rooms running at once).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from floorbench.escape import printable
from floorbench.records import Outcome, RunMeta

Mode = Literal["bar", "lines", "off"]


def describe_outcome(meta: RunMeta) -> str:
    """``ID: outcome — kind: reason — timing degraded: reasons`` (the reasons only where there are), one
    printable line: controls and bidi characters shown escaped (`floorbench.escape.printable`)."""
    extra = f" — {meta.failure_kind}: {meta.failure_reason}" if meta.failure_reason else ""
    if meta.timing is not None and meta.timing.verdict != "ok":
        extra += f" — timing degraded: {'; '.join(meta.timing.reasons)}"
    return printable(f"{meta.scenario_id}: {meta.outcome}{extra}")  # an id or a reason read from a file


def format_left(seconds: float | None) -> str:
    if seconds is None:
        return "time left unknown"
    s = round(seconds)
    return f"~{s // 3600}h{s % 3600 // 60:02d}m left" if s >= 3600 else f"~{s // 60}m{s % 60:02d}s left"


@dataclass
class Tally:
    """Counts over the scenarios this invocation runs."""

    total: int
    started_s: float = field(default_factory=time.monotonic)
    running: set[str] = field(default_factory=set)
    completed: int = 0
    failed: int = 0
    degraded: int = 0

    @property
    def done(self) -> int:
        return self.completed + self.failed

    def finish(self, meta: RunMeta) -> None:
        self.running.discard(meta.scenario_id)
        if meta.outcome == Outcome.completed:
            self.completed += 1
            if meta.timing is not None and meta.timing.verdict != "ok":
                self.degraded += 1
        else:
            self.failed += 1

    def left_s(self, now_s: float | None = None) -> float | None:
        """Remaining scenarios at the rate finished so far; None before the first finishes."""
        if self.done == 0:
            return None
        elapsed = (time.monotonic() if now_s is None else now_s) - self.started_s
        return elapsed / self.done * (self.total - self.done)

    def summary(self) -> str:
        return (
            f"{self.done}/{self.total} done; running {len(self.running)}, completed {self.completed}, "
            f"failed {self.failed}, timing degraded {self.degraded}; {format_left(self.left_s())}"
        )


class RunProgress:
    """A rich bar ("bar"), one stderr line per finished scenario ("lines"), or nothing ("off")."""

    def __init__(self, mode: Mode, total: int, stream: TextIO | None = None) -> None:
        self.mode = mode
        self.tally = Tally(total)
        self.stream = stream or sys.stderr
        self.bar: Any = None
        if mode == "bar":
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("[bold]scenarios"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[counts]}", markup=False),
                TextColumn("{task.fields[last]}", markup=False),  # never read as rich markup
            )
            self.bar.start()
            self.task = self.bar.add_task("scenarios", total=total, counts=self._counts(), last="")

    def _counts(self) -> str:
        t = self.tally
        return (
            f"running {len(t.running)} · completed {t.completed} · failed {t.failed} · "
            f"degraded {t.degraded} · {format_left(t.left_s())}"
        )

    def started(self, scenario_id: str) -> None:
        self.tally.running.add(scenario_id)
        if self.bar is not None:
            self.bar.update(self.task, counts=self._counts())

    def finished(self, meta: RunMeta) -> None:
        self.tally.finish(meta)
        if self.bar is not None:
            self.bar.update(self.task, advance=1, counts=self._counts(), last=describe_outcome(meta))
        elif self.mode == "lines":
            print(f"{describe_outcome(meta)} [{self.tally.summary()}]", file=self.stream, flush=True)

    def rerun_finished(self, scenario_id: str) -> None:
        """A degraded scenario run once more (``--concurrency auto``) ended; it was counted the first time."""
        self.tally.running.discard(scenario_id)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
