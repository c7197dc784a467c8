"""A managed LiveKit server bound to 127.0.0.1 only (or the one address $FLOORBENCH_LIVEKIT_BIND names),
and the connection settings for any server.

floorbench starts its own pinned LiveKit server for a run unless the user points
it at an existing one (``--livekit-url`` or ``LIVEKIT_URL`` with
``LIVEKIT_API_KEY``/``LIVEKIT_API_SECRET``). The generated config keeps every
socket on loopback (`server_config`): `--dev` would advertise the first
non-loopback address and listen for ICE-TCP on all interfaces, and the media
port alone would listen on every interface address.

Every failure is a `ServerError` with one line naming the cause and the fix.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from floorbench.child_env import minimal_environment
from floorbench.errors import FloorbenchError
from floorbench.redact import redact_url
from floorbench.transports.private_dir import private_dir

LIVEKIT_VERSION = "v1.13.5"
LIVEKIT_MODULE = "github.com/livekit/livekit-server/cmd/server"
BIN_NAME = "livekit-server"


class ServerError(FloorbenchError, RuntimeError):
    """The LiveKit server cannot be found, started, reached or kept alive."""


@dataclass(frozen=True)
class LiveKitConnection:
    """Where a LiveKit server is and the credentials to mint tokens for it.

    `repr` never shows the secret, so a connection can be logged safely.
    """

    url: str
    api_key: str
    api_secret: str = field(repr=False)

    @property
    def http_url(self) -> str:
        return self.url.replace("ws://", "http://", 1).replace("wss://", "https://", 1)

    @classmethod
    def from_env(cls, url: str | None = None) -> LiveKitConnection | None:
        """An existing server from `url`/LIVEKIT_URL plus LIVEKIT_API_KEY/SECRET, or None."""
        url = url or os.environ.get("LIVEKIT_URL")
        if not url:
            return None
        key = os.environ.get("LIVEKIT_API_KEY")
        secret = os.environ.get("LIVEKIT_API_SECRET")
        if not key or not secret:
            raise ServerError(
                f"LiveKit URL {redact_url(url)} given but LIVEKIT_API_KEY/LIVEKIT_API_SECRET are not set; "
                "export both for that server"
            )
        if not url.startswith(("ws://", "wss://")):
            raise ServerError(f"LiveKit URL {redact_url(url)!r} must start with ws:// or wss://")
        return cls(url=url, api_key=key, api_secret=secret)


def project_root() -> Path:
    return Path(__file__).resolve().parents[2]


def find_binary() -> Path:
    """The LiveKit server binary: $FLOORBENCH_LIVEKIT_BIN, the project's .bin/, or PATH."""
    env = os.environ.get("FLOORBENCH_LIVEKIT_BIN")
    if env:
        p = Path(env)
        if not (p.is_file() and os.access(p, os.X_OK)):
            raise ServerError(f"FLOORBENCH_LIVEKIT_BIN={env} is not an executable file; fix the path")
        return p
    local = project_root() / ".bin" / BIN_NAME
    if local.is_file():
        return local
    on_path = shutil.which(BIN_NAME)
    if on_path:
        return Path(on_path)
    raise ServerError(
        f"LiveKit server binary not found (looked in {local} and PATH); "
        "run `floorbench server --install` (needs Go) or scripts/setup.sh"
    )


def install_binary(dest_dir: Path | None = None) -> Path:
    """`go install` the pinned LiveKit server into the project's .bin/ (idempotent)."""
    dest_dir = dest_dir or project_root() / ".bin"
    dest = dest_dir / BIN_NAME
    if dest.is_file():
        return dest
    go = shutil.which("go")
    if not go:
        raise ServerError("Go not found on PATH; install Go >= 1.22 to build the LiveKit server")
    dest_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as gobin:
        env = dict(os.environ, GOBIN=gobin)
        proc = subprocess.run(
            [go, "install", f"{LIVEKIT_MODULE}@{LIVEKIT_VERSION}"],
            env=env,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise ServerError(f"go install of LiveKit server {LIVEKIT_VERSION} failed: {last}")
        shutil.move(str(Path(gobin) / "server"), dest)
    return dest


BIND_ENV = "FLOORBENCH_LIVEKIT_BIND"
"""the address the managed LiveKit server listens on and offers for media; default 127.0.0.1 (docs/transport.md)"""
LOOPBACK = "127.0.0.1"


def bind_address(value: str | None = None) -> str:
    """`value`, else $FLOORBENCH_LIVEKIT_BIND, else 127.0.0.1: one IPv4 address of this machine (not 0.0.0.0)."""
    import ipaddress

    text = (value or os.environ.get(BIND_ENV) or LOOPBACK).strip()
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        addr = None
    if not isinstance(addr, ipaddress.IPv4Address) or addr.is_unspecified or addr.is_multicast:
        raise ServerError(
            f"{BIND_ENV}={redact_url(text)!r}: give one IPv4 address of this machine that the other boxes reach "
            "(e.g. 10.0.0.5), not 0.0.0.0 or a name; unset it to stay on 127.0.0.1"
        )
    return str(addr)


def port_is_free(port: int, kind: int = socket.SOCK_STREAM, host: str = LOOPBACK) -> bool:
    with socket.socket(socket.AF_INET, kind) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def free_port(kind: int = socket.SOCK_STREAM, host: str = LOOPBACK) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def server_config(port: int, udp_port: int, api_key: str, api_secret: str, redis: str | None = None,
                  bind: str = LOOPBACK) -> str:
    """The generated YAML config: every socket on `bind` (loopback unless told), no TURN, ICE-TCP off;
    with `redis` (host:port), one node of several.

    ``bind_addresses`` holds the HTTP/WebSocket port; the media port (``rtc.udp_port``,
    one UDP mux) would otherwise get a socket on *every* interface address, so
    ``rtc.ips.includes`` keeps only `bind` (livekit-server's mediatransportutil
    ``CreateUDPMuxesFromPorts`` filters its interface addresses with it; loopback itself is
    included only with ``enable_loopback_candidate``); ``node_ip`` and ``use_external_ip:
    false`` make it offer that address and no STUN-discovered one.
    """
    shared = f"redis:\n  address: {redis}\n" if redis else ""
    loopback = "true" if bind.startswith("127.") else "false"
    return shared + f"""\
port: {port}
bind_addresses:
  - {bind}
keys:
  {api_key}: {api_secret}
rtc:
  udp_port: {udp_port}
  tcp_port: 0
  node_ip: {bind}
  use_external_ip: false
  enable_loopback_candidate: {loopback}
  ips:
    includes:
      - {bind}/32
turn:
  enabled: false
logging:
  level: warn
"""


def die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    """preexec_fn: the server is killed when the process that started it dies (it holds no state)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass(eq=False)
class LiveKitServer:
    """A LiveKit server child process on 127.0.0.1; use as a (sync or async) context manager."""

    port: int | None = None
    """None: a free port, chosen at start"""
    udp_port: int | None = None
    binary: Path | None = None
    """None: `find_binary()`"""
    log_path: Path | None = None
    api_key: str = "floorbench"
    api_secret: str = field(default="", repr=False)
    """empty: a random secret for this server"""
    redis: str | None = None
    """host:port of the Redis that the nodes of a multi-node server share; None: a single node"""
    bind: str | None = None
    """the one address it listens on and offers; None: `bind_address()` ($FLOORBENCH_LIVEKIT_BIND or 127.0.0.1)"""
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _dir: Path | None = field(default=None, init=False, repr=False)
    """this server's private folder (transports/private_dir.py): its config, and its log unless `log_path`"""

    def __post_init__(self) -> None:
        self.api_secret = self.api_secret or secrets.token_hex(24)

    @property
    def connection(self) -> LiveKitConnection:
        if self.port is None:
            raise ServerError("LiveKit server not started")
        return LiveKitConnection(f"ws://{self.bind or LOOPBACK}:{self.port}", self.api_key, self.api_secret)

    def start(self, timeout_s: float = 20.0) -> LiveKitConnection:
        binary = self.binary or find_binary()
        self.bind = host = bind_address(self.bind)
        if self.port is None:
            self.port = free_port(host=host)
        elif not port_is_free(self.port, host=host):
            raise ServerError(
                f"port {self.port} on {host} is in use; stop what holds it or choose another --port"
            )
        if self.udp_port is None:
            self.udp_port = free_port(socket.SOCK_DGRAM, host=host)
        elif not port_is_free(self.udp_port, socket.SOCK_DGRAM, host=host):
            raise ServerError(f"UDP port {self.udp_port} on {host} is in use; choose another --udp-port")
        self._dir = private_dir("livekit")
        cfg = self._dir / "livekit.yaml"
        fd = os.open(cfg, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(server_config(self.port, self.udp_port, self.api_key, self.api_secret, self.redis, host))
        log = self.log_path or self._dir / "livekit.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        self.log_path = log
        with log.open("ab") as logf:
            self.proc = subprocess.Popen(
                [str(binary), "--config", str(cfg)],
                stdout=logf,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=minimal_environment(),  # no shell keys; no LIVEKIT_KEYS/NODE_IP/UDP_PORT overriding the config
                cwd=self._dir,
                start_new_session=True,
                # not left running by a killed run; the parent *thread* must live
                # as long as the server, so start it from the main thread
                preexec_fn=die_with_parent,
            )
        self.wait_healthy(timeout_s)
        cfg.unlink(missing_ok=True)  # read once at start: the secret stays on disk no longer than that
        return self.connection

    def wait_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        url = f"http://{self.bind or LOOPBACK}:{self.port}/"
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                with urllib.request.urlopen(url, timeout=1.0) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise ServerError(
            f"LiveKit server on {self.bind or LOOPBACK}:{self.port} not healthy after {timeout_s:.0f} s; see {self.log_path}"
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def check_alive(self) -> None:
        if self.proc is None:
            raise ServerError("LiveKit server not started")
        code = self.proc.poll()
        if code is not None:
            tail = self._log_tail()
            raise ServerError(f"LiveKit server exited with code {code}{': ' + tail if tail else ''}")

    def _log_tail(self) -> str:
        if not self.log_path or not self.log_path.exists():
            return ""
        lines = self.log_path.read_text(errors="replace").strip().splitlines()
        return lines[-1][:300] if lines else ""

    def stop(self, timeout_s: float = 5.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout_s)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> LiveKitServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


REDIS_BIN = "redis-server"


@dataclass(eq=False)
class RedisServer:
    """A throwaway Redis on 127.0.0.1 (Debian's redis-server), no persistence, dying with its parent."""

    port: int | None = None
    log_path: Path | None = None
    """None: in a private folder of its own (transports/private_dir.py), removed at stop"""
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _dir: Path | None = field(default=None, init=False, repr=False)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 10.0) -> str:
        binary = shutil.which(REDIS_BIN)
        if binary is None:
            raise ServerError("redis-server not found on PATH; `apt-get install redis-server` (scripts/setup.sh does)")
        self.port = self.port or free_port()
        log = self.log_path
        if log is None:
            self._dir = private_dir("redis")
            log = self._dir / "redis.log"
        with log.open("ab") as logf:
            self.proc = subprocess.Popen(
                [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
                 "--protected-mode", "yes"],
                stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=minimal_environment(),
                cwd=log.parent, start_new_session=True, preexec_fn=die_with_parent,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"redis-server exited with code {self.proc.returncode}; see {log}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.5) as c:
                c.sendall(b"PING\r\n")
                if c.recv(16).startswith(b"+PONG"):
                    return self.address
            time.sleep(0.05)
        self.stop()
        raise ServerError(f"redis-server on {self.address} did not answer PING in {timeout_s:.0f} s; see {log}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout_s: float = 5.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # it holds nothing worth a clean shutdown
            self.proc.wait(timeout_s)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


@dataclass(eq=False)
class LiveKitCluster:
    """`floorbench server --nodes N`: N LiveKit nodes on 127.0.0.1 sharing one local Redis.

    Each node has its own HTTP and UDP port; a room lives on one node, and a
    participant or agent worker may connect to any node (LiveKit routes it
    through Redis). Start it from the main thread: every process dies with it.
    """

    nodes: int = 2
    base_port: int | None = None
    """node i listens on base_port + 2*i (UDP base_port + 2*i + 1); None: free ports"""
    log_dir: Path | None = None
    api_key: str = "floorbench"
    api_secret: str = field(default="", repr=False)
    redis: RedisServer = field(default_factory=RedisServer)
    servers: list[LiveKitServer] = field(default_factory=list)

    def start(self, timeout_s: float = 30.0) -> list[LiveKitConnection]:
        if not 1 <= self.nodes <= 8:
            raise ServerError(f"--nodes {self.nodes}: use 1..8 local nodes")
        self.api_secret = self.api_secret or secrets.token_hex(24)
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self.redis.log_path = self.log_dir / "redis.log"
        try:
            address = self.redis.start()
            for i in range(self.nodes):
                port = None if self.base_port is None else self.base_port + 2 * i
                udp = None if port is None else port + 1
                log = None if self.log_dir is None else self.log_dir / f"livekit-node{i + 1}.log"
                node = LiveKitServer(port=port, udp_port=udp, log_path=log, api_key=self.api_key,
                                     api_secret=self.api_secret, redis=address)
                self.servers.append(node)
                node.start(timeout_s)
        except BaseException:
            self.stop()
            raise
        return [s.connection for s in self.servers]

    def alive(self) -> bool:
        return self.redis.alive() and all(s.alive() for s in self.servers)

    def stop(self) -> None:
        for node in self.servers:
            node.stop()
        self.redis.stop()

    def __enter__(self) -> LiveKitCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
