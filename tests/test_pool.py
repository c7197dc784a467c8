"""`run --processes P` (pipelines/dispatch/pool.py): the pool's arithmetic, its command line and its failures.

The workers themselves are real `floorbench worker`s in tests/test_pool_live.py; here a worker that
dies or never registers is a stand-in process, since what is tested is how the pool reports it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from floorbench.pipelines.dispatch.pool import LocalPool, PoolError, slots, worker_argv
from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.transports.server import LiveKitConnection

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests/fixtures/suites/tiny"


@pytest.mark.parametrize(("rooms", "processes", "each"), [(8, 2, 4), (7, 2, 4), (2, 4, 1), (1, 1, 1), (32, 8, 4)])
def test_each_worker_holds_its_share_of_the_rooms_rounded_up(rooms: int, processes: int, each: int) -> None:
    assert slots(rooms, processes) == each
    assert slots(rooms, processes) * processes >= rooms


def test_the_worker_command_line_names_the_run_but_carries_no_secret(tmp_path: Path) -> None:
    argv = worker_argv(TINY, tmp_path, "ab" * 32, "ws://127.0.0.1:7880", "floorbench-pool-x", 3)
    joined = " ".join(argv)
    assert "-P" in argv and "worker" in argv
    assert argv[argv.index("--config-hash") + 1] == "ab" * 32
    assert argv[argv.index("--out-root") + 1] == str(tmp_path.resolve())
    assert argv[argv.index("--max-jobs") + 1] == "3"
    assert "secret" not in joined.lower() and "api_key" not in joined.lower()


def _pool(tmp_path: Path, script: str) -> LocalPool:
    pool = LocalPool(2, 2, TINY, tmp_path, "ab" * 32, "agent")
    argv = [sys.executable, "-c", script]
    pool.spawn = lambda conn: _spawn_stand_ins(pool, argv)  # type: ignore[method-assign]
    return pool


def _spawn_stand_ins(pool: LocalPool, argv: list[str]) -> None:
    import subprocess

    for i in range(pool.processes):
        log = pool.out / f"pool-worker-{i + 1}.log"
        with log.open("wb") as f:
            pool.procs.append(subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT))
        pool.logs.append(log)


CONN = LiveKitConnection("ws://127.0.0.1:1", "key", "secret")


def test_a_worker_that_exits_before_registering_is_one_line_naming_its_log(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "print('error: --out-root is not a folder'); raise SystemExit(2)")
    with pytest.raises(PoolError) as e:
        asyncio.run(pool.start(CONN, register_s=30))
    msg = str(e.value)
    assert "\n" not in msg and "exited (2) before it registered" in msg
    assert "--out-root is not a folder" in msg and "pool-worker-" in msg
    assert not [p for p in pool.procs if p.poll() is None]


def test_a_worker_that_never_registers_times_out_and_every_worker_is_stopped(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "import time; time.sleep(60)")
    with pytest.raises(PoolError, match=r"did not register .* within 1 s .*lower --processes"):
        asyncio.run(pool.start(CONN, register_s=1))
    assert all(p.poll() is not None for p in pool.procs)


def test_registered_workers_start_and_stop(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "import time; print('worker w registered as AW_x', flush=True); time.sleep(60)")
    asyncio.run(pool.start(CONN, register_s=30))
    assert [p.poll() for p in pool.procs] == [None, None]
    pool.stop(grace_s=5)
    assert all(p.poll() is not None for p in pool.procs)


@pytest.mark.parametrize(("processes", "workers", "message"), [
    (0, None, "--processes must be 1..64"),
    (65, None, "--processes must be 1..64"),
    (2, "floorbench", "--processes and --play-on workers"),
])
def test_run_refuses_a_bad_process_count_before_any_room(tmp_path: Path, processes: int, workers: str | None,
                                                         message: str) -> None:
    opts = RunOptions(suite=TINY, model="silent", out=tmp_path / "out", processes=processes, workers=workers,
                      connection=CONN, progress=False)
    with pytest.raises(ValueError, match=message):
        asyncio.run(run_suite(opts))
    assert not (tmp_path / "out").exists()


def test_run_refuses_acoustics_with_processes_before_starting_a_worker(tmp_path: Path) -> None:
    from floorbench.pipelines.run.scenario_run import ScenarioSettings
    from floorbench.speech.acoustics import parse_acoustics

    opts = RunOptions(suite=TINY, model="silent", out=tmp_path / "out", processes=2, connection=CONN, progress=False,
                      settings=ScenarioSettings(acoustics=parse_acoustics("cafe", 0)))
    with pytest.raises(ValueError, match="--acoustics with --processes is not built yet"):
        asyncio.run(run_suite(opts))


def test_a_second_start_is_a_new_set_of_workers_with_logs_of_their_own(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import floorbench.pipelines.dispatch.pool as pool_module

    script = "import time; print('worker w registered as AW_x', flush=True); time.sleep(60)"
    monkeypatch.setattr(pool_module, "worker_argv", lambda *a: [sys.executable, "-c", script])
    pool = LocalPool(2, 2, TINY, tmp_path, "ab" * 32, "agent")
    asyncio.run(pool.start(CONN, register_s=30))
    first = list(pool.procs)
    pool.stop(grace_s=5)
    asyncio.run(pool.start(CONN, register_s=30))
    try:
        assert [p.name for p in pool.logs] == ["pool-worker-1.2.log", "pool-worker-2.2.log"]
        assert (tmp_path / "pool-worker-1.log").is_file()  # the first set's log is kept
        assert all(p.poll() is not None for p in first) and [p.poll() for p in pool.procs] == [None, None]
    finally:
        pool.stop(grace_s=5)


class _DeadServer:
    def __init__(self) -> None:
        self.up = False

    def alive(self) -> bool:
        return self.up


class _Pool:
    agent = "floorbench-pool-x"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def stop(self) -> None:
        self.calls.append("stop")

    async def start(self, conn: LiveKitConnection) -> None:
        await asyncio.sleep(0.05)  # other attempts reach the lock meanwhile
        self.calls.append(f"start {conn.url}")


def test_a_dead_managed_server_is_revived_once_with_the_pool_for_every_attempt_waiting() -> None:
    from floorbench.pipelines.run.runner import _Runner as Runner

    runner = Runner.__new__(Runner)  # only what `_revive` reads: a unit of its own
    server, pool, old = _DeadServer(), _Pool(), object()
    revived = LiveKitConnection("ws://127.0.0.1:2", "key", "secret")

    def ensure() -> LiveKitConnection:
        server.up = True
        return revived

    runner.server, runner.pool, runner.dispatcher, runner.retired = server, pool, old, []  # type: ignore[assignment]
    runner.opts = RunOptions(suite=TINY, model="silent", out=Path("unused"), processes=2)
    runner._ensure_server = ensure  # type: ignore[method-assign]
    runner._dispatcher = lambda conn, agent: ("dispatcher", conn.url, agent)  # type: ignore[method-assign,assignment,return-value]

    async def attempts() -> None:
        runner._reviving = asyncio.Lock()
        await asyncio.gather(*(runner._revive() for _ in range(3)))

    asyncio.run(attempts())
    assert pool.calls == ["stop", "start ws://127.0.0.1:2"]  # once, for all three attempts
    assert runner.dispatcher == ("dispatcher", "ws://127.0.0.1:2", "floorbench-pool-x")
    assert runner.retired == [old]  # closed at the end: attempts still inside it finish there
    asyncio.run(attempts())  # alive now: nothing to do
    assert pool.calls == ["stop", "start ws://127.0.0.1:2"]
