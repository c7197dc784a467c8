"""`run --processes P`: this box as a cluster of one — P `floorbench worker` processes on the run's server.

One runner process plays every room on its own event loop, which saturates
near one core: on a box with many cores `-j 32` would wait on one of them.
The dispatch workers already play rooms in other processes and publish
into the shared run folder, so the pool starts P of them here, on the
run's (usually managed) LiveKit server, under an agent name of this run's
own, and the run dispatches to them exactly as `--play-on workers` does.
The run folder is the one a one-process run writes; the workers' logs lie
beside the server's (``pool-worker-<i>.log``).

The workers take the job's model and config by hash (``--config-hash``),
see this process's environment (the model's keys come from it, as in a
one-process run) and its current folder (a config's relative paths name the
same files), and die with it (``PR_SET_PDEATHSIG``). A worker that dies
mid-run fails its rooms as ``worker_lost`` (``--retries`` plays them again on
the others); one that never registers is a one-line error naming its log.
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from floorbench.child_env import python_argv, python_environment
from floorbench.errors import FloorbenchError
from floorbench.transports.server import LiveKitConnection, die_with_parent

MAX_PROCESSES = 64
REGISTER_S = 90.0
"""a worker imports pipecat, livekit and onnxruntime before it registers: seconds on a busy small box"""
REGISTERED = "registered as"
"""the line `dispatch.worker.serve` prints once the server accepted the worker"""


class PoolError(FloorbenchError):
    pass


def slots(rooms: int, processes: int) -> int:
    """Rooms each worker holds at once so that `processes` workers hold `rooms`: ⌈rooms / processes⌉."""
    return max(1, math.ceil(rooms / processes))


def worker_argv(suite: Path, out: Path, config_hash: str, url: str, agent: str, max_jobs: int) -> list[str]:
    """The command line of one pool worker; the key and secret travel in its environment, never here."""
    return [*python_argv("floorbench.cli"), "worker", "--suite", str(suite.resolve()), "--out-root", str(out.resolve()),
            "--config-hash", config_hash, "--livekit-url", url, "--agent", agent, "--max-jobs", str(max_jobs)]


@dataclass
class LocalPool:
    """P workers on this box; `start` returns once every one registered with the server."""

    processes: int
    rooms: int
    suite: Path
    out: Path
    config_hash: str
    agent: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    generation: int = 0
    """how many times the workers were started: again on a restarted server (the runner's `_revive`)"""

    async def start(self, conn: LiveKitConnection, register_s: float = REGISTER_S) -> None:
        """Start the workers (from the event loop's thread: PR_SET_PDEATHSIG follows the thread that forked);
        a second start, after `stop`, starts a new set of them (their logs get the set's number)."""
        self.spawn(conn)
        await self.wait_registered(register_s)

    def spawn(self, conn: LiveKitConnection) -> None:
        env = python_environment({**os.environ, "LIVEKIT_API_KEY": conn.api_key, "LIVEKIT_API_SECRET": conn.api_secret})
        argv = worker_argv(self.suite, self.out, self.config_hash, conn.url, self.agent,
                           slots(self.rooms, self.processes))
        self.generation += 1
        self.procs, self.logs = [], []
        for i in range(self.processes):
            again = f".{self.generation}" if self.generation > 1 else ""
            log = self.out / f"pool-worker-{i + 1}{again}.log"
            with log.open("wb") as f:
                self.procs.append(subprocess.Popen(argv, cwd=Path.cwd(), env=env, stdout=f, stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL, preexec_fn=die_with_parent))
            self.logs.append(log)

    async def wait_registered(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        waiting = list(range(len(self.procs)))
        while waiting:
            waiting = [i for i in waiting if REGISTERED not in _read(self.logs[i])]
            for i in waiting:
                if self.procs[i].poll() is not None:
                    self.stop()
                    raise PoolError(f"pool worker {i + 1} exited ({self.procs[i].returncode}) before it registered: "
                                    f"{_last_line(self.logs[i])} (log: {self.logs[i]})")
            if waiting and time.monotonic() > deadline:
                self.stop()
                raise PoolError(f"pool worker {waiting[0] + 1} did not register with the LiveKit server within "
                                f"{timeout_s:.0f} s (log: {self.logs[waiting[0]]}); the box may be overloaded: "
                                "lower --processes")
            await asyncio.sleep(0.1)

    def stop(self, grace_s: float = 20.0) -> None:
        """SIGTERM every worker (it finishes cancelling its rooms), then SIGKILL what is left after `grace_s`."""
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _last_line(path: Path) -> str:
    lines = [x for x in _read(path).splitlines() if x.strip()]
    return lines[-1][:300] if lines else "no output"
