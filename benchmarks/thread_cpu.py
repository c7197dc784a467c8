"""Where a room's CPU goes, by process role and thread: sampled from /proc while rooms play.

A room's cost is mostly native (libwebrtc inside the LiveKit SDK: Opus encoders,
the synthetic playout device that paces every received track, the network and
worker threads, the tokio runtime that carries FFI events to Python) rather than
floorbench's Python, and a process-level total cannot show that. This sampler
reads ``/proc/PID/task/TID/stat`` of the benchmark's process tree every
``every_s`` and keeps each thread's last CPU time, grouped by

- role: ``runner`` (the process that plays and records the rooms), ``worker``
  (a `run --processes` worker that plays some of them), ``model``
  (the model processes, ``floorbench.pipelines.room.model_participant``), ``server``
  (``livekit-server``), ``other``;
- thread: its kernel name with numbers dropped (``worker_thread 0`` →
  ``worker_thread``); a Python process's main thread is ``python``.

A thread that ends between two samples loses at most ``every_s`` of its time, so
the groups add up to a little less than ``getrusage`` says. Linux only.
"""

from __future__ import annotations

import os
import re
import threading
from collections import defaultdict
from pathlib import Path

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def _stat(path: Path) -> tuple[str, float] | None:
    """(thread name, CPU seconds) from a ``stat`` file; None when the thread is gone."""
    try:
        raw = path.read_text()
    except OSError:
        return None
    name, rest = raw[raw.index("(") + 1 : raw.rindex(")")], raw[raw.rindex(")") + 2 :].split()
    return name, (int(rest[11]) + int(rest[12])) * TICK_S  # utime, stime: fields 14 and 15


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return kids


def _role(pid: int, root: int) -> str:
    if pid == root:
        return "runner"
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "other"
    if "model_participant" in cmd or "model_fork" in cmd:  # forked from the fork server, or that server
        return "model"
    if "livekit-server" in cmd:
        return "server"
    if "floorbench.cli worker" in cmd:
        return "worker"
    return "other"


def thread_group(name: str) -> str:
    """A thread's group: its name without trailing numbers (a Python process's main thread is ``python``)."""
    return re.sub(r"[\s_-]*\d+$", "", name).strip() or name


class ThreadCpu:
    """Samples the tree under `root` (default: this process) in a background thread until `stop`."""

    def __init__(self, root: int | None = None, every_s: float = 0.5) -> None:
        self.root = root or os.getpid()
        self.every_s = every_s
        self.seen: dict[tuple[int, int], tuple[str, str, float]] = {}
        """(pid, tid) → (role, group, CPU seconds at the last sample)"""
        self.start_cpu: dict[tuple[int, int], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="thread-cpu", daemon=True)

    def start(self) -> ThreadCpu:
        self.sample(first=True)
        self._thread.start()
        return self

    def stop(self) -> dict[str, dict[str, float]]:
        self._stop.set()
        self._thread.join()
        self.sample()
        return self.by_role()

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            self.sample()

    def sample(self, first: bool = False) -> None:
        todo, pids = [self.root], []
        while todo:
            pid = todo.pop()
            pids.append(pid)
            todo += _children(pid)
        for pid in pids:
            role = _role(pid, self.root)
            for task in Path(f"/proc/{pid}/task").glob("*"):
                got = _stat(task / "stat")
                if got is None:
                    continue
                tid = int(task.name)
                key = (pid, tid)
                if first:  # what ran before the measurement is not the rooms'
                    self.start_cpu[key] = got[1]
                self.seen[key] = (role, thread_group(got[0]), got[1])

    def by_role(self) -> dict[str, dict[str, float]]:
        """CPU seconds since `start`, per role and thread group."""
        out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for key, (role, group, cpu) in self.seen.items():
            out[role][group] += cpu - self.start_cpu.get(key, 0.0)
        return {r: dict(g) for r, g in out.items()}


def breakdown_lines(roles: dict[str, dict[str, float]], dialogue_s: float, top: int = 6) -> list[str]:
    """One line per role: its CPU per second of dialogue (cores per room), total and the largest thread groups."""
    lines = []
    for role in ("runner", "worker", "model", "server", "other"):
        groups = roles.get(role)
        if not groups or dialogue_s <= 0:
            continue
        total = sum(groups.values()) / dialogue_s
        parts = sorted(groups.items(), key=lambda kv: -kv[1])[:top]
        shown = " · ".join(f"{g} {v / dialogue_s:.3f}" for g, v in parts)
        lines.append(f"  {role:<6} {total:.3f} core per room: {shown}")
    return lines
