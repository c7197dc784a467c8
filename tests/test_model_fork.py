"""The model fork server (floorbench.pipelines.run.model_fork): children forked with their own
environment, folder and pipes; exit codes and signals come back through the server; off by env."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest

from floorbench.child_env import floorbench_root
from floorbench.pipelines.run import model_fork
from floorbench.pipelines.run.model_fork import ForkServer

SUPPORT = Path(__file__).resolve().parent / "support"
PROBE = "forkprobe:main"


def _env(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{floorbench_root()}{os.pathsep}{SUPPORT}", **extra}


async def _talk(server: ForkServer, tmp: Path, log: Path, **extra: str) -> tuple[dict[str, object], int]:
    with log.open("ab") as f:
        child = await server.spawn(_env(**extra), str(tmp), f.fileno(), main=PROBE)
    child.stdin.write(b"hello\n")
    await child.stdin.drain()
    child.stdin.close()
    said = json.loads(await asyncio.wait_for(child.stdout.readline(), 10))
    return said, await asyncio.wait_for(child.wait(), 10)


def test_a_forked_child_gets_its_own_environment_folder_and_pipes(tmp_path: Path) -> None:
    async def main() -> None:
        server = ForkServer(_env())
        await server.start()
        try:
            log = tmp_path / "model.log"
            said, code = await _talk(server, tmp_path, log, PROBE="one", FORKPROBE_SECRET="s3cret")
            assert said == {"cwd": str(tmp_path), "probe": "one", "line": "hello", "secret": "s3cret"}
            assert code == 0
            assert "probe on stderr" in log.read_text()
            # the next child never sees the first one's variables
            said, code = await _talk(server, tmp_path, log, PROBE="two", PROBE_EXIT="3")
            assert said["probe"] == "two" and said["secret"] is None
            assert code == 3
        finally:
            await server.close()
        assert server.proc is not None and server.proc.returncode is not None

    asyncio.run(main())


def test_a_signal_reaches_the_child_and_its_exit_says_so(tmp_path: Path) -> None:
    async def main() -> None:
        server = ForkServer(_env())
        await server.start()
        try:
            with (tmp_path / "model.log").open("ab") as f:
                child = await server.spawn(_env(PROBE_HANG="1"), str(tmp_path), f.fileno(), main=PROBE)
            child.stdin.write(b"x\n")
            await child.stdin.drain()
            await asyncio.wait_for(child.stdout.readline(), 10)
            assert child.returncode is None
            os.killpg(child.pid, 0)  # its own session: the runner's killpg reaches it
            child.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(child.wait(), 10) == -signal.SIGTERM
            assert child.returncode == -signal.SIGTERM
            child.send_signal(signal.SIGTERM)  # reaped: nothing is sent to a pid that may be reused
        finally:
            await server.close()

    asyncio.run(main())


def test_children_end_when_the_server_goes(tmp_path: Path) -> None:
    async def main() -> None:
        server = ForkServer(_env())
        await server.start()
        with (tmp_path / "model.log").open("ab") as f:
            child = await server.spawn(_env(PROBE_HANG="1"), str(tmp_path), f.fileno(), main=PROBE)
        child.stdin.write(b"x\n")
        await child.stdin.drain()
        await asyncio.wait_for(child.stdout.readline(), 10)
        assert server.proc is not None
        server.proc.kill()
        assert await asyncio.wait_for(child.wait(), 10) == -signal.SIGTERM  # said by the runner's side
        for _ in range(100):  # and true: PDEATHSIG ended it (gone, or a zombie nobody reaped yet)
            if not _running(child.pid):
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail(f"child {child.pid} outlived its fork server")
        with pytest.raises(RuntimeError):
            await server.spawn(_env(), str(tmp_path), 2, main=PROBE)
        await server.close()

    asyncio.run(main())


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_block_starts_its_server_on_first_use_and_ends_it() -> None:
    async def main() -> None:
        assert await model_fork.fork_server() is None  # outside a block: fresh interpreters
        async with model_fork.model_forks(_env()):
            first = await model_fork.fork_server()
            assert first is not None and first.proc is not None
            assert await asyncio.create_task(model_fork.fork_server()) is first  # its tasks share it
        assert first.proc.poll() is not None  # ended with the block
        assert await model_fork.fork_server() is None

    asyncio.run(main())


def test_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOORBENCH_MODEL_FORK", "0")

    async def main() -> None:
        async with model_fork.model_forks(_env()):
            assert await model_fork.fork_server() is None

    asyncio.run(main())
