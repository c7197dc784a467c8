"""`floorbench test --via sip:` live: the phone examples against both agent ends, on one LiveKit server.

Three agent ends answer on loopback, each a process of its own:

- the LiveKit Agents example (`examples/livekit_agent/agent.py start`) behind
  `floorbench phone-gateway`, which answers each call and dispatches the worker
  into a room of its own, as LiveKit SIP does;
- the oracle and `silent` behind `floorbench phone-agent`, a plain SIP endpoint.

The worker loads Whisper and its voice while the phone-agent runs play, so its
start costs nothing; its own run comes after them, alone (run beside them on
two cores, the caller's audio slipped and the agent misheard "banana"). Each `floorbench test … --via sip:…` trial is a room whose
phone line calls the agent over SIP, G.711 both ways:

- the oracle passes `examples/phone/tests.yaml`'s greeting and keys tests with
  the call's codec recorded as PCMU at 8 kHz, set-up time and RTP counters;
  its keys (``1234#``, a dtmf step) reach it (its log), it reads them back, and
  the timeline has them; `silent` fails both as "no response";
- the LiveKit Agents example passes its own `tests.yaml` (the test it passes
  over WebRTC in tests/test_examples_live.py) and `phone.yaml` (keys) over the
  phone, budgets widened for a loaded machine (tests/support/widen.py): PCMU at
  8 kHz, and the keys in the worker's own log, handed to it by the gateway as
  SIP DTMF packets.

Both examples' `contains: banana` is left out here: Whisper tiny hears the
word through G.711 right most of the time, not always — the scorer's, of the
oracle's reply (1 trial of 5 in benchmarks/sip_vs_webrtc.py, none over
WebRTC), and the LiveKit agent's own, of the caller (1 of 5 over SIP, 0 of 5
over WebRTC, `--agent livekit`) — and this test is about the phone path, not
the ASR: how often a word survives the line is the benchmark's number. The
keys tests keep theirs (`contains: pound`, the read-back).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from floorbench.transports.server import LiveKitConnection

try:
    from tests.support.phone_agents import PhoneAgent
    from tests.support.widen import widened
except ModuleNotFoundError:
    from support.phone_agents import PhoneAgent
    from support.widen import widened

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[1]
PHONE = ROOT / "examples" / "phone"
LK_AGENT = ROOT / "examples" / "livekit_agent"
UP_S = 120.0
"""loading Whisper and a voice on a busy 2-core machine"""


def _env(conn: LiveKitConnection) -> dict[str, str]:
    return {**os.environ, "LIVEKIT_URL": conn.url, "LIVEKIT_API_KEY": conn.api_key, "LIVEKIT_API_SECRET": conn.api_secret,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def _test(out: Path, conn: LiveKitConnection, uri: str, *args: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-c", "from floorbench.cli import main; main()", "test", *args,
           "--via", uri, "--out", str(out), "--livekit-url", conn.url, "--quiet"]
    return subprocess.Popen(cmd, cwd=ROOT, env=_env(conn), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _call(run: Path, test: str = "") -> dict[str, Any]:
    """The phone leg's record of one trial's call (meta.json)."""
    meta = json.loads(next(run.glob(f"{test}*/meta.json")).read_text())
    assert meta["model"]["protocol"] == "sip/rtp"
    return meta["transport_latency_ms"]["bridge"]


def _timeline_keys(run: Path, test: str) -> list[dict[str, Any]]:
    lines = next(run.glob(f"{test}*/timeline.jsonl")).read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("reason") == "dtmf"]


class Worker:
    """The LiveKit Agents example, started as a team starts it, registered under its own agent name."""

    def __init__(self, conn: LiveKitConnection, log: Path) -> None:
        self.name, self.log = f"phone-example-agent-{os.getpid()}", log
        env = {**_env(conn), "AGENT_NAME": self.name, "AGENT_VOICE": "flite:kal16"}
        with log.open("wb") as out:
            self.proc = subprocess.Popen([sys.executable, str(LK_AGENT / "agent.py"), "start"], cwd=ROOT, env=env,
                                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_registered(self) -> None:
        deadline = time.monotonic() + UP_S
        while "registered worker" not in self.text():
            assert self.proc.poll() is None, f"the worker exited with {self.proc.returncode}:\n{self.text()[-3000:]}"
            assert time.monotonic() < deadline, f"the worker did not register within {UP_S:.0f} s:\n{self.text()[-3000:]}"
            time.sleep(0.3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


@pytest.mark.timeout(420)
def test_both_agent_ends_pass_over_the_phone_and_silent_fails(tmp_path: Path, livekit: LiveKitConnection) -> None:
    t0 = time.monotonic()
    text = (PHONE / "tests.yaml").read_text()
    tests = tmp_path / "tests.yaml"
    tests.write_text(text.replace("          contains: banana ", "          # contains: banana "))
    assert tests.read_text() != text
    picked = (str(tests), "-k", "phone-greeting", "-k", "phone-keys")
    lk_files = [widened(LK_AGENT / name, tmp_path / f"lk-{name}") for name in ("tests.yaml", "phone.yaml")]
    lk_text = Path(lk_files[0]).read_text()
    Path(lk_files[0]).write_text(lk_text.replace("      contains: banana\n", ""))
    assert Path(lk_files[0]).read_text() != lk_text
    worker = Worker(livekit, tmp_path / "agent.log")
    try:
        # the phone-agent runs play while the worker loads its models
        with PhoneAgent("--model", "oracle", "--config", str(PHONE / "oracle.yaml")) as oracle, \
                PhoneAgent("--model", "silent") as silent:
            runs = {name: _test(tmp_path / name, livekit, agent.uri, *picked) for name, agent in
                    (("oracle", oracle), ("silent", silent))}
            texts = {name: p.communicate(timeout=120)[0] for name, p in runs.items()}
        t1 = time.monotonic()
        worker.wait_registered()
        t2 = time.monotonic()
        # then the worker's run alone: at the same time as the others, the caller's audio and its ASR suffer
        with PhoneAgent("--dispatch", worker.name, "--livekit-url", livekit.url, command="phone-gateway",
                        env=_env(livekit)) as gateway:
            runs["lk"] = _test(tmp_path / "lk", livekit, gateway.uri, *lk_files, "--trials", "1")
            texts["lk"] = runs["lk"].communicate(timeout=180)[0]
    finally:
        worker.stop()
    print(f"phone live: phone-agent runs {t1 - t0:.0f} s, the worker up {t2 - t1:.0f} s later, "
          f"its run over SIP {time.monotonic() - t2:.0f} s")  # shown with -s
    _check_phone_agents(tmp_path, runs, texts, oracle)
    _check_livekit_agent(tmp_path, runs["lk"], texts["lk"], worker, gateway)


def _check_phone_agents(tmp_path: Path, runs: dict[str, subprocess.Popen[str]], texts: dict[str, str],
                        oracle: PhoneAgent) -> None:
    """The oracle behind `phone-agent` passed with G.711 recorded and read the keys back; silent failed."""
    assert runs["oracle"].returncode == 0, texts["oracle"]
    run = tmp_path / "oracle" / "run"
    leg = _call(run, "phone-greeting")
    assert (leg["style"], leg["codec"], leg["codec_sample_rate"]) == ("sip", "PCMU", 8000)
    assert isinstance(leg["setup_ms"], int) and leg["sip_status"] == 200 and leg["failure"] is None
    assert leg["rtp"]["rx_packets"] > 100 and leg["model_to_room"]["n"] > 100
    assert any(e["event"] == "call" and e["scenario"] == "phone-greeting.t1" for e in oracle.log())
    # the dtmf step: the keys reached the agent (its log, one by one, in order), it answered, the timeline has them
    assert "".join(e["digit"] for e in oracle.log() if e["event"] == "dtmf") == "1234#"
    assert [e["keys"] for e in oracle.log() if e["event"] == "reply"] == ["1234#"]
    assert any(e.get("digits") == "1234#" and e.get("step") == 2 for e in _timeline_keys(run, "phone-keys"))

    assert runs["silent"].returncode == 1, texts["silent"]
    results = json.loads((tmp_path / "silent" / "results.json").read_text())
    assert [t["status"] for t in results["tests"]] == ["failed", "failed"]
    assert "no response" in texts["silent"]


def _check_livekit_agent(tmp_path: Path, run: subprocess.Popen[str], text: str, worker: Worker,
                         gateway: PhoneAgent) -> None:
    """The LiveKit Agents example behind `phone-gateway` passed its own test and the keys test over the phone."""
    where = f"{text}\n--- the worker's log ---\n{worker.text()[-3000:]}\n--- the gateway's ---\n{gateway.log()}"
    assert run.returncode == 0, where
    results = json.loads((tmp_path / "lk" / "results.json").read_text())
    assert sorted((t["test"], t["status"]) for t in results["tests"]) == [
        ("presses-keys", "passed"), ("says-the-word", "passed")], where
    leg = _call(tmp_path / "lk" / "run", "says-the-word")
    assert (leg["codec"], leg["codec_sample_rate"], leg["failure"]) == ("PCMU", 8000, None), where
    # the keys: through the gateway (its log) into the worker's room, where the agent logged each one
    assert [e["digit"] for e in gateway.log() if e["event"] == "dtmf"] == list("1234#"), where
    logged = [json.loads(x) for x in worker.text().splitlines() if x.startswith("{") and '"local-voice-agent"' in x]
    assert [e["digit"] for e in logged if "digit" in e] == list("1234#"), where
    assert any(e.get("digits") == "1234#" for e in _timeline_keys(tmp_path / "lk" / "run", "presses-keys"))
    calls = [e for e in gateway.log() if e["event"] == "call"]
    assert len(calls) == 2 and all(e.get("room", "").startswith("phone-") for e in calls), where
