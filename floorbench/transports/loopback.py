"""Loopback means loopback: the WebRTC participants of a room on a loopback server listen on loopback only.

The LiveKit SDK (libwebrtc inside ``liblivekit_ffi.so``) gathers ICE host
candidates on every network interface: each participant of a room holds UDP
sockets bound to the machine's own addresses (measured with ``ss`` on a
one-room run: 2 per participant and peer connection, on the LAN address and on
the IPv6 one), although the managed server listens on 127.0.0.1 and
advertises loopback candidates only. The SDK's `rtc.RtcConfiguration` has no
interface filter (only the ICE transport type, the gathering policy and the
ICE servers), and relay-only would need a TURN server and still bind per
interface.

So floorbench interposes ``bind()``: a small shared library built from
``floorbench/data/native/loopback_bind.c`` with the system's C compiler,
loaded with ``LD_PRELOAD``, rebinds every UDP bind outside loopback to the
loopback address of the same family (port kept). The command re-executes
itself with the library once, at start (`reexec_if_wanted`), and every child
it starts inherits it (`child_variables`): the model processes, the fork
server, pool workers. TCP sockets are left alone (the mock tool server, a
demo page, an operator's own address), and so is everything when any UDP peer
of the command is outside loopback: a ``--livekit-url`` on another host, a
``--via`` SIP URI elsewhere, a model config naming a host outside loopback
(a WebRTC product), a managed server bound elsewhere (``FLOORBENCH_LIVEKIT_BIND``). A process
that learns only later that its WebRTC peer is elsewhere (the `webrtc` bridge's default endpoint)
switches the loaded interposer off and unsets its variable for children (`release_for_peers`). Linux only; elsewhere, and where no compiler is found,
the command says once that its sockets bind on every interface and goes on.
``FLOORBENCH_LOOPBACK=0`` turns it off.
"""

from __future__ import annotations

import ctypes
import hashlib
import ipaddress
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "data" / "native" / "loopback_bind.c"
ACTIVE_VAR = "FLOORBENCH_LOOPBACK_LIB"
"""set to the library's path in a process that runs with it (and so in its children)"""
SWITCH_VAR = "FLOORBENCH_LOOPBACK"
"""``0`` turns the interposer off"""
LIVE_COMMANDS = frozenset({"run", "test", "load", "demo", "latency", "worker"})
"""the commands that put WebRTC participants into rooms"""
_URL_HOST = re.compile(r"""\b[a-zA-Z][a-zA-Z0-9+.\-]*://(?:[^@/\s'"]*@)?(\[[0-9a-fA-F:.]+\]|[^:/\s'"?#]+)""")
_SIP_HOST = re.compile(r"""\bsips?:(?:[^@\s'"]*@)?(\[[0-9a-fA-F:.]+\]|[^:;/\s'"?>]+)""")


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 or the name localhost."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def outside_hosts(text: str) -> list[str]:
    """The hosts outside loopback that URLs and SIP URIs in `text` name."""
    hosts = [m.group(1) for m in _URL_HOST.finditer(text)] + [m.group(1) for m in _SIP_HOST.finditer(text)]
    return [h for h in hosts if not is_loopback_host(h)]


def _option_values(argv: list[str], name: str) -> list[str]:
    out: list[str] = []
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif a.startswith(name + "="):
            out.append(a.split("=", 1)[1])
    return out


def _config_file_text(value: str) -> str:
    """A model config's text when `value` is a readable file of at most 1 MB ('' otherwise)."""
    try:
        path = Path(value)
        if path.is_file() and path.stat().st_size <= 1_000_000:
            return path.read_text(errors="replace")
    except OSError:  # an unreadable config is the command's own error to report, later
        return ""
    return ""


ConfigText = Callable[[str], str]
"""`--config`'s value → the config's text ('' when it cannot be read); the CLI resolves packaged names"""


def why_not_loopback(argv: list[str], environ: dict[str, str] | None = None,
                     config_text: ConfigText = _config_file_text) -> str | None:
    """Why the command `argv` (without the program name) must not be bound to loopback; None when it may."""
    environ = dict(os.environ) if environ is None else environ
    if not argv or argv[0] not in LIVE_COMMANDS:
        return "not a command that joins rooms"
    if environ.get(SWITCH_VAR) == "0":
        return f"{SWITCH_VAR}=0"
    if not sys.platform.startswith("linux"):
        return "the bind interposer is Linux only"
    urls = _option_values(argv, "--livekit-url") or ([environ["LIVEKIT_URL"]] if argv[0] == "worker"
                                                      and environ.get("LIVEKIT_URL") else [])
    bind = environ.get("FLOORBENCH_LIVEKIT_BIND", "")  # the managed server on another address of this box
    peers = [*urls, *_option_values(argv, "--via"), *_option_values(argv, "--sip")]
    if bind and not is_loopback_host(bind):
        return f"the managed server binds {bind} (FLOORBENCH_LIVEKIT_BIND)"
    peers += [config_text(c) for c in _option_values(argv, "--config")]
    outside = [h for text in peers for h in outside_hosts(text)]
    if outside:
        return f"a peer outside loopback ({outside[0]})"
    return None


def library_path(environ: dict[str, str] | None = None) -> Path:
    """Where the interposer built from this floorbench's source lives (keyed by the source's hash)."""
    environ = dict(os.environ) if environ is None else environ
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "floorbench" / "native"
    return cache / f"libfloorbench-loopback-{digest}.so"


def build_library(dest: Path | None = None) -> tuple[Path | None, str]:
    """Build the interposer with the system's C compiler (once); (path, '') or (None, why not)."""
    dest = dest or library_path()
    if dest.is_file():
        return dest, ""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        return None, "no C compiler (install gcc, or build-essential)"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(f".{os.getpid()}.tmp")
    try:
        done = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(SOURCE), "-ldl"],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"the C compiler failed: {e}"
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        first = (done.stderr.strip().splitlines() or ["no message"])[0][:200]
        return None, f"the C compiler failed: {first}"
    os.replace(tmp, dest)
    return dest, ""


def active_library(environ: dict[str, str] | None = None) -> str | None:
    """The interposer this process runs with (its path), or None."""
    environ = dict(os.environ) if environ is None else environ
    lib = environ.get(ACTIVE_VAR)
    if lib and lib in environ.get("LD_PRELOAD", "").split():
        return lib
    return None


def child_variables(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables a child needs to run with this process's interposer ({} when it runs without)."""
    lib = active_library(environ)
    return {ACTIVE_VAR: lib, "LD_PRELOAD": lib} if lib else {}


def release_for_peers(*peers: str) -> str | None:
    """Let this process bind as asked from now on when one of `peers` (URLs, hosts) is outside loopback.

    The component that learns its WebRTC peer (the `webrtc` bridge's offer URL and ICE servers) calls
    this before it gathers candidates: it switches the loaded interposer off in this process (the
    library reads its variable once, at load) and unsets the variables for the children it starts
    later. Returns the outside host.
    """
    outside = [h for p in peers for h in (outside_hosts(p) if "://" in p or ":" in p else
                                          ([] if is_loopback_host(p) else [p]))]
    lib = active_library()
    if outside and os.environ.pop(ACTIVE_VAR, None):
        os.environ.pop("LD_PRELOAD", None)  # for children; this process keeps the library loaded, inert
        if lib:
            _release_loaded(lib)
        return outside[0]
    return outside[0] if outside else None


def _release_loaded(lib: str) -> None:
    """Turn the loaded interposer off in this process (it reads its variable once, at load)."""
    try:
        ctypes.CDLL(lib).floorbench_loopback_release()
    except (OSError, AttributeError):  # a library built from an older source: nothing to switch off
        pass


def reexec_if_wanted(argv: list[str], config_text: ConfigText = _config_file_text) -> None:
    """Run this command again with the interposer when it joins rooms on a loopback server only.

    Called first thing by the console script; returns when the process already runs with it, may not,
    or cannot (a one-line warning says why, and the command goes on with sockets on every interface).
    """
    if active_library() or why_not_loopback(argv, config_text=config_text) is not None:
        return
    lib, why = build_library()
    if lib is None:
        print(f"warning: WebRTC sockets will bind on every interface, not loopback only: {why}", file=sys.stderr)
        return
    preload = " ".join([str(lib), *os.environ.get("LD_PRELOAD", "").split()])
    env = {**os.environ, ACTIVE_VAR: str(lib), "LD_PRELOAD": preload}
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)


if __name__ == "__main__":  # scripts/setup.sh builds it ahead of the first run
    path, reason = build_library()
    print(path if path else f"error: loopback interposer not built: {reason}", file=sys.stdout if path else sys.stderr)
    raise SystemExit(0 if path else 1)
