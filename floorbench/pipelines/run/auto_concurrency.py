"""``--concurrency auto``: how many rooms at once, steered by the rooms' own timing verdicts.

Every completed scenario carries a timing verdict (``timing_verdict``): ``ok``
when its turns landed where the schedule put them, ``degraded`` when the
machine could not keep up. The controller starts from an estimate per core and
reacts to what the rooms report:

- a ``degraded`` verdict lowers N by one — once per *generation*: scenarios
  already running when N fell were started under the old N, so their verdicts
  do not lower it again;
- ``raise_after`` ``ok`` verdicts in a row, all from the current generation,
  raise N by one (up to ``max_n``);
- failures (model errors, a server that died) say nothing about capacity and
  are ignored — except those that are the machine's overload (the harness's
  own set-up timing out, the model's connection dropped by the server, the
  playback stalling: `resume.OVERLOAD`), which the runner passes in as
  ``degraded`` (`runner.capacity_verdict`);
- a degraded scenario is played again only when N has fallen below the N it
  had (`worth_rerun`): at the floor it would meet the same machine.

Every change is kept with its reason and goes into ``run.json``, so a reader
sees which N each scenario ran under. Pure logic: no clock, no rooms.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

ROOMS_PER_CORE = 1
"""the starting estimate: on one 2-core machine one room per core was the most that stayed ``ok``; on
another of the same kind not even one room did (README, "Running a full suite"), where the controller
falls to one room and keeps what it gets"""


def estimate(cores: int | None = None) -> int:
    """The starting N for ``--concurrency auto`` on this machine."""
    n = cores if cores is not None else (os.cpu_count() or 1)
    return max(1, n * ROOMS_PER_CORE)


@dataclass
class Change:
    n: int
    reason: str
    after_scenarios: int
    """how many verdicts the controller had seen when it changed N"""


@dataclass
class AutoConcurrency:
    """The current N and the history of changes; feed it every finished scenario."""

    n: int
    max_n: int
    raise_after: int = 4
    min_n: int = 1
    changes: list[Change] = field(default_factory=list)
    generation: int = 0
    _ok_streak: int = 0
    _seen: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.min_n <= self.n <= self.max_n:
            raise ValueError(f"auto concurrency: need 1 <= min {self.min_n} <= start {self.n} <= max {self.max_n}")
        self.changes.append(Change(self.n, "start", 0))

    def started(self) -> int:
        """A scenario starts now: the generation its verdict will belong to."""
        return self.generation

    def finished(self, generation: int, verdict: str | None) -> None:
        """A scenario started in ``generation`` finished with this timing verdict (None: it failed)."""
        if verdict is None:
            return
        self._seen += 1
        if verdict != "ok":
            if generation == self.generation and self.n > self.min_n:
                self._set(self.n - 1, "a scenario came back degraded")
            self._ok_streak = 0
            return
        if generation != self.generation:
            return
        self._ok_streak += 1
        if self._ok_streak >= self.raise_after and self.n < self.max_n:
            self._set(self.n + 1, f"{self._ok_streak} scenarios in a row ok")

    def started_under(self, generation: int) -> int:
        """The N that scenarios started in ``generation`` shared the machine with."""
        return self.changes[generation].n

    def worth_rerun(self, generation: int) -> bool:
        """A degraded scenario is worth playing again only with fewer rooms than it had: at the same N
        (the floor, ``min_n``, where N cannot fall) it would meet the same machine."""
        return self.started_under(generation) > self.n

    def _set(self, n: int, reason: str) -> None:
        self.n = n
        self.generation += 1
        self._ok_streak = 0
        self.changes.append(Change(n, reason, self._seen))

    def record(self) -> list[dict[str, object]]:
        """The changes as ``run.json`` keeps them."""
        return [{"n": c.n, "reason": c.reason, "after_scenarios": c.after_scenarios} for c in self.changes]
