"""Loopback means loopback: with the managed server on 127.0.0.1 nothing of a run listens elsewhere.

- The interposer (floorbench/transports/loopback.py) rebinds binds to an
  ephemeral port outside loopback (the wildcard, an interface address,
  v4-mapped; UDP and TCP) and leaves a chosen port and loopback binds alone:
  checked in a child Python that runs with it.
- Which commands run with it, from their arguments (hosts generated).
- Live: a whole `floorbench run` (runner, fork server, model process) sampled
  every 100 ms holds no UDP socket and no listening TCP socket outside
  loopback, and its room still completes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floorbench.transports import loopback

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "fixtures" / "suites" / "tiny"
LOOPBACK_IPS = ("127.", "::1", "::ffff:127.")

_PROBE = r"""
import json, socket
free = socket.socket(); free.bind(("127.0.0.1", 0)); PORT = free.getsockname()[1]; free.close()
out = {}
for name, fam, kind, addr in [
    ("udp4_any", socket.AF_INET, socket.SOCK_DGRAM, ("0.0.0.0", 0)),
    ("udp6_any", socket.AF_INET6, socket.SOCK_DGRAM, ("::", 0)),
    ("udp6_mapped", socket.AF_INET6, socket.SOCK_DGRAM, ("::ffff:0.0.0.0", 0)),
    ("udp4_lo", socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.2", 0)),
    ("tcp4_any", socket.AF_INET, socket.SOCK_STREAM, ("0.0.0.0", 0)),
    ("tcp4_chosen", socket.AF_INET, socket.SOCK_STREAM, ("0.0.0.0", PORT)),
]:
    s = socket.socket(fam, kind)
    try:
        s.bind(addr)
        out[name] = s.getsockname()[0]
    except OSError as e:
        out[name] = "error: " + str(e)
    s.close()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lib, why = loopback.build_library(tmp_path_factory.mktemp("native") / "loopback.so")
    assert lib is not None, why
    return lib


def test_the_interposer_rebinds_ephemeral_binds_outside_loopback_and_leaves_chosen_ports(library: Path) -> None:
    env = {**os.environ, "LD_PRELOAD": str(library), loopback.ACTIVE_VAR: str(library)}
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=60)
    got = json.loads(out.stdout)
    assert got["udp4_any"] == "127.0.0.1"
    assert got["udp4_lo"] == "127.0.0.2"  # already loopback: as asked
    assert got["tcp4_any"] == "127.0.0.1"  # libwebrtc's passive TCP candidates
    assert got["tcp4_chosen"] == "0.0.0.0"  # a chosen port is the operator's own address
    if not got["udp6_any"].startswith("error"):  # a machine without IPv6 refuses the family itself
        assert got["udp6_any"] == "::1"
        assert got["udp6_mapped"] in ("::ffff:127.0.0.1", "::1") or got["udp6_mapped"].startswith("error")
    plain = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60,
                           env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
    assert json.loads(plain.stdout)["udp4_any"] == "0.0.0.0"  # the probe itself is no proof without it


def test_children_inherit_the_interposer_only_when_the_process_runs_with_it(library: Path) -> None:
    on = {loopback.ACTIVE_VAR: str(library), "LD_PRELOAD": f"{library} /other.so"}
    assert loopback.child_variables(on) == {loopback.ACTIVE_VAR: str(library), "LD_PRELOAD": str(library)}
    assert loopback.child_variables({loopback.ACTIVE_VAR: str(library)}) == {}  # named but not loaded
    assert loopback.child_variables({}) == {}


def test_which_commands_run_on_loopback_only() -> None:
    env: dict[str, str] = {}
    assert loopback.why_not_loopback(["run", "--suite", "x", "--out", "o"], env) is None
    assert loopback.why_not_loopback(["test", "t.yaml", "--livekit-url", "ws://127.0.0.1:7880"], env) is None
    assert loopback.why_not_loopback(["score", "runs/x"], env) is not None
    assert "10.1.2.3" in (loopback.why_not_loopback(["run", "--livekit-url=ws://10.1.2.3:7880"], env) or "")
    assert loopback.why_not_loopback(["test", "t", "--via", "sip:agent@198.51.100.7:5060"], env) is not None
    assert loopback.why_not_loopback(["test", "t", "--via", "sip:agent@127.0.0.1:5062"], env) is None
    assert loopback.why_not_loopback(["worker", "--suite", "s"], {"LIVEKIT_URL": "wss://x.livekit.cloud"})
    assert loopback.why_not_loopback(["run"], {loopback.SWITCH_VAR: "0"}) == f"{loopback.SWITCH_VAR}=0"
    assert loopback.why_not_loopback(["run"], {"FLOORBENCH_LIVEKIT_BIND": "10.0.0.5"}) is not None
    assert loopback.why_not_loopback(["run"], {"FLOORBENCH_LIVEKIT_BIND": "127.0.0.1"}) is None


def test_a_model_config_naming_an_outside_host_keeps_every_interface(tmp_path: Path) -> None:
    far = tmp_path / "far.yaml"
    far.write_text("adapter: webrtc\nurl: https://product.example.com/offer\n")
    near = tmp_path / "near.yaml"
    near.write_text("adapter: webrtc\nurl: http://localhost:7860/api/offer\n")
    assert "product.example.com" in (loopback.why_not_loopback(["run", "--config", str(far)], {}) or "")
    assert loopback.why_not_loopback(["run", "--config", str(near)], {}) is None
    from floorbench.cli import _model_config_text  # a packaged config by name: the CLI resolves it

    assert loopback.why_not_loopback(["run", "--config", "webrtc-pipecat"], {}, _model_config_text) is None


def test_a_process_whose_peer_is_outside_releases_the_interposer(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(loopback.ACTIVE_VAR, str(library))
    monkeypatch.setenv("LD_PRELOAD", str(library))
    assert loopback.release_for_peers("http://127.0.0.1:7860/api/offer", "stun:127.0.0.1:3478") is None
    assert loopback.active_library() == str(library)
    assert loopback.release_for_peers("https://api.openai.com/v1/realtime/calls") == "api.openai.com"
    assert loopback.active_library() is None and "LD_PRELOAD" not in os.environ
    probe = "import socket; from floorbench.transports import loopback; " \
            "loopback.release_for_peers('https://api.openai.com/v1/realtime/calls'); s = socket.socket(socket.AF_INET, " \
            "socket.SOCK_DGRAM); s.bind(('0.0.0.0', 0)); print(s.getsockname()[0])"
    env = {**os.environ, loopback.ACTIVE_VAR: str(library), "LD_PRELOAD": str(library)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "0.0.0.0", out.stderr  # released at run time: the loaded library binds as asked
    # libc's setenv in another thread, outside the GIL, as native code (libwebrtc's network thread binds
    # meanwhile) may do: the library reads its variable once, so no bind reads an environment being moved
    # (a getenv at every bind crashed this probe, or could read the variable as unset)
    churn = "import ctypes, socket, threading; libc = ctypes.CDLL(None); " \
            "t = threading.Thread(target=lambda: [libc.setenv(b'X%d' % i, b'1', 1) for i in range(30000)]); " \
            "t.start(); seen = set()\n" \
            "while t.is_alive():\n" \
            "    x = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); x.bind(('0.0.0.0', 0)); " \
            "seen.add(x.getsockname()[0]); x.close()\n" \
            "print(sorted(seen))"
    out = subprocess.run([sys.executable, "-c", churn], capture_output=True, text=True, env=env, timeout=120)
    assert (out.returncode, out.stdout.strip()) == (0, "['127.0.0.1']"), out.stderr[-500:]


_octet = st.integers(0, 255)


@settings(max_examples=60, deadline=None)
@given(a=_octet, b=_octet, c=_octet, d=_octet, scheme=st.sampled_from(["ws", "wss", "http", "https"]),
       port=st.integers(1, 65535))
def test_a_url_is_outside_exactly_when_its_host_is_not_loopback(
    a: int, b: int, c: int, d: int, scheme: str, port: int
) -> None:
    host = f"{a}.{b}.{c}.{d}"
    found = loopback.outside_hosts(f"x {scheme}://user:pw@{host}:{port}/path?q=1 y")
    assert found == ([] if a == 127 else [host])
    assert loopback.outside_hosts(f"sip:bob@{host}:{port};transport=udp") == ([] if a == 127 else [host])


def _preloaded(p: psutil.Process) -> str:
    try:
        return "preloaded" if loopback.ACTIVE_VAR in p.environ() else f"no interposer: {p.cmdline()[:4]}"
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "?"


def _outside_sockets(root: psutil.Process) -> set[tuple[str, str, int, int, str]]:
    """UDP sockets and listening TCP sockets outside loopback held by `root` and its descendants."""
    found: set[tuple[str, str, int, int, str]] = set()
    try:
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return found
    for p in procs:
        try:
            conns = p.net_connections(kind="inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for c in conns:
            udp = c.type == 2
            if not udp and c.status != psutil.CONN_LISTEN:
                continue
            if udp and c.raddr:  # connected (a route probe, a DNS query): it takes datagrams from its peer only
                continue
            if c.laddr and not str(c.laddr.ip).startswith(LOOPBACK_IPS):
                found.add(("udp" if udp else "tcp", str(c.laddr.ip), int(c.laddr.port), p.pid, _preloaded(p)))
    return found


@pytest.mark.live
def test_a_run_on_the_managed_server_listens_on_loopback_only(tmp_path: Path) -> None:
    out = tmp_path / "run"
    exe = Path(sys.executable).with_name("floorbench")
    proc = psutil.Popen([str(exe), "run", "--suite", str(TINY), "--model", "silent", "--limit", "1",
                         "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
    outside: set[tuple[str, str, int, int, str]] = set()
    samples = 0
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        outside |= _outside_sockets(proc)
        samples += 1
        time.sleep(0.1)
    if proc.poll() is None:
        proc.kill()
    log = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    assert proc.returncode == 0, log[-2000:]
    assert samples > 20, "the run ended before it could be watched"
    assert outside == set(), outside
    run = json.loads((out / "run.json").read_text())
    assert run["counts"]["completed"] == 1, run["counts"]
