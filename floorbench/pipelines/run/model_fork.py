"""Model processes forked from one warm parent: a room's model starts without paying for its imports.

Each room's model runs in a child process of its own (`floorbench.pipelines.run.model_process`), and
a fresh Python that imports pipecat, LiveKit and numpy spends about 0.7 CPU-seconds doing it, in one
burst, while the other rooms play. On a 2-core machine holding eight rooms those bursts were where
the rooms' jitter buffers moved: the turns the models heard late were the ones played while another
room was setting up. So the runner starts one *fork server* per process: it imports what every
model chain needs once, then forks a child per room on request. A fork costs a few ms.

It serves the model processes started inside a `model_forks` block (a run: `run_suite`). The child is
the model process exactly as before (`model_participant.main`: spec on stdin, answers
and events on stdout, stderr to ``model.log``), with three differences that the runner hides:

- its parent is the fork server, not the runner: it is watched through a pidfd, and its exit code
  comes from the fork server, which reaps it (`ForkedChild`);
- its environment is set after the fork: the fork server itself starts with the environment every
  model child gets (no key a model config names), and each child then gets its own
  (`model_process.child_environment`), so no secret of one room's config reaches another's;
- it dies with the fork server (PDEATHSIG), which dies with the runner and ends with the block.

Nothing here starts LiveKit's native runtime before the fork (`livekit.rtc` creates it on first
use), and a fork server that cannot start leaves the runner starting children the old way, with
a warning. ``FLOORBENCH_MODEL_FORK=0`` turns it off.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import IO, Any

log = logging.getLogger(__name__)

PRELOAD = (
    "numpy",
    "livekit.rtc",
    "pipecat.frames.frames",
    "pipecat.pipeline.pipeline",
    "pipecat.pipeline.worker",
    "pipecat.workers.runner",
    "pipecat.transports.livekit.transport",
    "floorbench.pipelines.room.model_participant",
    "floorbench.processors.registry",
    "floorbench.processors.reference",
)
"""what every model chain imports: loaded once in the fork server"""
MODEL_MAIN = "floorbench.pipelines.room.model_participant:main"
"""what a forked child runs (a test may name another ``module:function``)"""
START_S = 60.0
MAX_MSG = 1 << 20


def enabled() -> bool:
    return os.environ.get("FLOORBENCH_MODEL_FORK", "1") not in ("0", "false", "no", "")


# -- the fork server (its own process) -------------------------------------------------------------


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _child(request: dict[str, Any], fds: list[int], own: list[int]) -> None:
    """In the forked child: become the model process (never returns); `own` are the fork server's fds."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        for f in own:
            os.close(f)
        os.setsid()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for target, fd in enumerate(fds):  # stdin, stdout, stderr
            os.dup2(fd, target)
            os.close(fd)
        _die_with_parent()  # the fork server; it dies with the runner
        import importlib

        module, _, name = request.get("main", MODEL_MAIN).partition(":")
        getattr(importlib.import_module(module), name)()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        code = os.waitstatus_to_exitcode(status)
        sock.sendall(json.dumps({"exit": pid, "code": code}).encode() + b"\n")


def serve(fd: int) -> None:
    """The fork server's loop: a request (JSON + three fds) in, a forked child's pid out."""
    _die_with_parent()
    sock = socket.socket(fileno=fd)
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sock.sendall(b'{"ready": true}\n')
    import select

    while True:
        ready, _, _ = select.select([sock, wake_r], [], [], 1.0)
        if wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 512)
        _reap(sock)
        if sock not in ready:
            continue
        msg, fds, _, _ = socket.recv_fds(sock, MAX_MSG, 3)
        if not msg:
            _reap(sock)
            return  # the runner closed its end; a child still running gets SIGTERM (PDEATHSIG)
        request = json.loads(msg)
        pid = os.fork()
        if pid == 0:
            _child(request, fds, [sock.fileno(), wake_r, wake_w])
        for f in fds:
            os.close(f)
        sock.sendall(json.dumps({"pid": pid}).encode() + b"\n")


# -- the runner's side ------------------------------------------------------------------------------


@dataclass
class ForkedChild:
    """A model process forked by the fork server: what `model_process.ModelProcess` uses of a subprocess."""

    pid: int
    stdin: asyncio.StreamWriter
    stdout: asyncio.StreamReader
    exited: asyncio.Future[int] = field(repr=False)
    """its exit code (negative: the signal), from the fork server that reaped it"""

    @property
    def returncode(self) -> int | None:
        return self.exited.result() if self.exited.done() else None

    async def wait(self) -> int:
        return await asyncio.shield(self.exited)

    def send_signal(self, sig: int) -> None:
        if not self.exited.done():  # a reaped pid may be someone else's by now
            os.kill(self.pid, sig)


class ForkServer:
    """The runner's handle on its fork server (one per process and event loop)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        """a plain Popen, not an asyncio one: tied to no event loop, so a runner whose loop ended without
        closing it leaves nothing that complains (the server ends when its socket closes)"""
        self.sock: socket.socket | None = None
        self._lines: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._exits: dict[int, asyncio.Future[int]] = {}
        self._early: dict[int, int] = {}
        self._lock = asyncio.Lock()
        self._buf = b""
        self._stderr: IO[bytes] | None = None
        self.broken: str | None = None

    async def start(self) -> None:
        from floorbench.child_env import python_argv

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # one request, one message
        argv = (*python_argv(__name__), str(theirs.fileno()))
        self._stderr = tempfile.TemporaryFile()  # read only to say why it did not start
        self.proc = subprocess.Popen(  # noqa: ASYNC220 (a fork and exec, ms; an asyncio process would bind it to this loop)
            argv, pass_fds=(theirs.fileno(),), env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self._stderr, start_new_session=True,
        )
        theirs.close()
        ours.setblocking(False)
        self.sock = ours
        asyncio.get_running_loop().add_reader(ours.fileno(), self._readable)
        try:
            first = await asyncio.wait_for(self._lines.get(), START_S)
        except TimeoutError:
            raise RuntimeError(f"not ready after {START_S:.0f} s") from None
        if not first.get("ready"):
            err = self._stderr
            err.seek(0)
            last = err.read().decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"it exited before it was ready: {last[0][:300]}")

    def _readable(self) -> None:
        assert self.sock is not None
        try:
            data = self.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            data, self.broken = b"", f"{type(e).__name__}: {e}"
        if not data:
            self._closed()
            return
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            msg = json.loads(line)
            if "exit" in msg:
                self._exited(int(msg["exit"]), int(msg["code"]))
            else:
                self._lines.put_nowait(msg)

    def _exited(self, pid: int, code: int) -> None:
        fut = self._exits.pop(pid, None)
        if fut is None:
            self._early[pid] = code  # reaped before its pid reached us
        elif not fut.done():
            fut.set_result(code)

    def _closed(self) -> None:
        """The fork server is gone: its children got SIGTERM (PDEATHSIG); say they ended."""
        self.broken = self.broken or "the fork server exited"
        loop = asyncio.get_running_loop()
        with contextlib.suppress(Exception):
            assert self.sock is not None
            loop.remove_reader(self.sock.fileno())
        for fut in self._exits.values():
            if not fut.done():
                fut.set_result(-int(signal.SIGTERM))
        self._exits.clear()
        self._lines.put_nowait({"error": self.broken})

    async def spawn(self, env: dict[str, str], cwd: str, stderr_fd: int, main: str = MODEL_MAIN) -> ForkedChild:
        """Fork a model process (`main`) with `env` in `cwd`, its stderr to `stderr_fd`; its pipes are ours."""
        if self.broken is not None or self.sock is None:
            raise RuntimeError(self.broken or "not started")
        loop = asyncio.get_running_loop()
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        async with self._lock:
            try:
                request = {"env": env, "cwd": cwd, "main": main}
                socket.send_fds(self.sock, [json.dumps(request).encode()], [in_r, out_w, stderr_fd])
            finally:
                os.close(in_r)
                os.close(out_w)
            reply = await asyncio.wait_for(self._lines.get(), START_S)
        if "pid" not in reply:
            os.close(in_w)
            os.close(out_r)
            raise RuntimeError(str(reply.get("error", reply)))
        pid = int(reply["pid"])
        exited: asyncio.Future[int] = loop.create_future()
        if pid in self._early:
            exited.set_result(self._early.pop(pid))
        else:
            self._exits[pid] = exited
        reader = asyncio.StreamReader(limit=MAX_MSG)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(out_r, "rb", 0))
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(in_w, "wb", 0))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return ForkedChild(pid, writer, reader, exited)

    async def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self.sock.fileno())
            self.sock.close()
            self.sock = None
        if self.proc is not None:
            for _ in range(100):  # it ends on its socket's end; then SIGTERM
                if self.proc.poll() is not None:
                    break
                if _ == 50:
                    with contextlib.suppress(ProcessLookupError):
                        self.proc.terminate()
                await asyncio.sleep(0.05)
            else:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                self.proc.wait()
        if self._stderr is not None:
            self._stderr.close()


@dataclass
class _Forks:
    """The fork server of one `model_forks` block, started on its first model process."""

    env: dict[str, str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    server: ForkServer | None = None
    failed: bool = False
    """it could not start once: the block's rooms do not pay for trying again"""


_forks: ContextVar[_Forks | None] = ContextVar("floorbench_model_forks", default=None)


@contextlib.asynccontextmanager
async def model_forks(env: dict[str, str]) -> AsyncIterator[None]:
    """Model processes started inside this block (its tasks included) are forked from one fork server,
    started with `env` (the environment every model child gets) on the first of them and ended with the
    block. Outside such a block a model process starts as a fresh interpreter."""
    forks = _Forks(env) if enabled() else None
    token = _forks.set(forks)
    try:
        yield
    finally:
        _forks.reset(token)
        if forks is not None and forks.server is not None:
            await forks.server.close()


async def fork_server() -> ForkServer | None:
    """The fork server of the enclosing `model_forks` block (started now if it is the first use); None
    outside one, when off, or when it could not start."""
    forks = _forks.get()
    if forks is None:
        return None
    async with forks.lock:
        if forks.server is not None and forks.server.broken is None:
            return forks.server
        if forks.failed:
            return None
        server = ForkServer(forks.env)
        try:
            await server.start()
        except Exception as e:
            log.warning("model fork server did not start (%s); model processes start the slow way", e)
            await server.close()
            forks.failed = True
            return None
        forks.server = server
        return server


if __name__ == "__main__":
    serve(int(sys.argv[1]))
