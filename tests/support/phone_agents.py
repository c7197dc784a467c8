"""Agent ends for the phone-leg tests: `floorbench phone-agent` and baresip, each in a process of its own on loopback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class PhoneAgent:
    """``floorbench phone-agent --port 0 …`` (or `command`: ``phone-gateway``) in a child process; `uri` once it
    is ready; its JSON log lines."""

    def __init__(self, *args: str, command: str = "phone-agent", env: dict[str, str] | None = None) -> None:
        self.args, self.command, self.env = list(args), command, env
        self.proc: subprocess.Popen[str] | None = None
        self.uri = ""
        self.lines: list[dict[str, Any]] = []

    def __enter__(self) -> PhoneAgent:
        cmd = [sys.executable, "-m", "floorbench.cli", self.command, "--port", "0", *self.args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=None if self.env is None else {**os.environ, **self.env})
        assert self.proc.stdout is not None
        t_end = time.monotonic() + 30
        while time.monotonic() < t_end:
            line = self.proc.stdout.readline()
            if not line:
                break
            if line.startswith("{"):
                event = json.loads(line)
                self.lines.append(event)
                if event["event"] == "ready":
                    self.uri = event["uri"]
                    return self
        self.__exit__()
        raise RuntimeError(f"{self.command} {self.args} did not start")

    def log(self) -> list[dict[str, Any]]:
        """Every JSON line it wrote (after it is stopped)."""
        return self.lines

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            out, _ = self.proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        self.lines += [json.loads(x) for x in (out or "").splitlines() if x.startswith("{")]


BARESIP_CONFIG = """\
sip_listen\t\t127.0.0.1:{port}
audio_player\t\taubridge,play
audio_source\t\tausine,{freq}
audio_alert\t\taubridge,alert
ausrc_srate\t\t48000
ausrc_channels\t\t2
auplay_srate\t\t48000
rtp_ports\t\t{rtp}-{rtp_end}
snd_path\t\t{folder}
module_path\t\t/usr/lib/baresip/modules
module\t\t\tg711.so
module\t\t\tg722.so
module\t\t\tausine.so
module\t\t\taubridge.so
module\t\t\tsndfile.so
module\t\t\taccount.so
"""


class Baresip:
    """baresip (Debian's, an independent SIP stack) in auto-answer, sending a sine and dumping what it decodes."""

    def __init__(self, port: int, freq: int = 440, codecs: tuple[str, ...] = ("g711", "g722")) -> None:
        self.port, self.freq, self.codecs = port, freq, codecs
        self.folder = Path(tempfile.mkdtemp(prefix="fb-baresip-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.uri = f"sip:agent@127.0.0.1:{port}"

    def __enter__(self) -> Baresip:
        exe = shutil.which("baresip")
        if exe is None:
            raise RuntimeError("baresip is not installed: scripts/setup.sh installs it (apt baresip-core)")
        rtp = 21000 + (self.port % 100) * 40
        text = BARESIP_CONFIG.format(port=self.port, freq=self.freq, rtp=rtp, rtp_end=rtp + 39, folder=self.folder)
        text = "\n".join(x for x in text.splitlines()
                         if not x.startswith("module\t\t\tg7") or any(c in x for c in self.codecs)) + "\n"
        (self.folder / "config").write_text(text)
        (self.folder / "accounts").write_text(f"<{self.uri}>;regint=0;answermode=auto\n")
        self.proc = subprocess.Popen([exe, "-f", str(self.folder), "-t", "60"], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env={**os.environ, "HOME": str(self.folder)})
        time.sleep(1.0)
        return self

    def decoded(self) -> Path | None:
        """The WAV of what baresip decoded from the call (after the call)."""
        found = sorted(self.folder.glob("dump-*-dec.wav"))
        return found[-1] if found else None

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()
