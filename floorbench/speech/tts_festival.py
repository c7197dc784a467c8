"""A long-lived festival process per voice, so each clip does not pay festival's start-up and voice load.

`text2wave` starts festival and loads the voice on every call (≈ 0.3–0.45 s);
one `festival --pipe` process per voice and per worker process synthesises the
same text in ≈ 0.12 s. Output is line-buffered through `stdbuf` so that a
marker printed after each command tells when the wave file is written.
Any failure (no stdbuf, a festival error, a timeout) makes the caller fall back
to `text2wave`, which stays the reference path.
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import subprocess
import threading
import time
from pathlib import Path

from floorbench.child_env import minimal_environment

TIMEOUT_S = 60.0


class FestivalSessionError(RuntimeError):
    pass


class FestivalSession:
    """One `festival --pipe` process with one voice selected."""

    def __init__(self, voice_func: str) -> None:
        stdbuf, festival = shutil.which("stdbuf"), shutil.which("festival")
        if not stdbuf or not festival:
            raise FestivalSessionError("stdbuf or festival not found")
        self.pid_owner = os.getpid()
        self.proc = subprocess.Popen(
            [stdbuf, "-oL", "-eL", festival, "--pipe"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=minimal_environment(),
        )
        self._buf = b""
        self._n = 0
        self.lock = threading.Lock()
        self.command(f"({voice_func})")

    def command(self, expr: str, timeout: float = TIMEOUT_S) -> str:
        """Run one Scheme expression; return what festival printed; raise on error or timeout."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._n += 1
        marker = f"FB_DONE_{self._n}"
        try:
            self.proc.stdin.write(f'{expr}\n(print "{marker}")\n'.encode("latin-1", "replace"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise FestivalSessionError(f"festival is gone ({e})") from None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        token = f'"{marker}"'.encode()
        while token not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise FestivalSessionError(f"no answer within {timeout:.0f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise FestivalSessionError("festival exited: " + self._buf.decode("latin-1")[-200:])
            self._buf += chunk
        out, _, rest = self._buf.partition(token)
        self._buf = rest.split(b"\n", 1)[1] if b"\n" in rest else b""
        text = out.decode("latin-1")
        if "SIOD ERROR" in text or "Error" in text:
            raise FestivalSessionError(text.strip().splitlines()[-1])
        return text

    def synth_to(self, text: str, wav: Path) -> None:
        esc = text.replace("\\", " ").replace('"', "'").replace("\n", " ")
        self.command(f'(utt.save.wave (utt.synth (Utterance Text "{esc}")) "{wav}" \'riff)')
        if not wav.is_file():
            raise FestivalSessionError("no wave file written")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()


_sessions: dict[str, FestivalSession] = {}
_sessions_lock = threading.Lock()


def session(voice_func: str) -> FestivalSession:
    """The process-local session for a voice (a forked worker never reuses its parent's)."""
    with _sessions_lock:
        s = _sessions.get(voice_func)
        if s is None or s.pid_owner != os.getpid() or s.proc.poll() is not None:
            s = FestivalSession(voice_func)
            _sessions[voice_func] = s
        return s


def sessions_cpu_s() -> dict[int, float]:
    """CPU seconds used so far by each live session process of this process (for render speed accounting)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for s in list(_sessions.values()):
        if s.pid_owner != os.getpid():
            continue
        try:
            fields = Path(f"/proc/{s.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            out[s.proc.pid] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return out


def drop(voice_func: str) -> None:
    with _sessions_lock:
        s = _sessions.pop(voice_func, None)
    if s is not None and s.pid_owner == os.getpid():
        s.close()


@atexit.register
def _close_all() -> None:
    for s in list(_sessions.values()):
        if s.pid_owner == os.getpid():
            s.close()


def _register_pool_exit() -> None:
    # multiprocessing workers leave through os._exit, which skips atexit: close sessions there too
    from multiprocessing import util

    util.Finalize(None, _close_all, exitpriority=10)


_register_pool_exit()
