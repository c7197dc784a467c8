"""The same conversation test over WebRTC and over a phone line, against the same agent: what the phone leg adds.

Both paths play the same tests with ``floorbench test`` (a LiveKit server on
127.0.0.1), ``--trials N`` rooms each, one path after the other. With
``--agent oracle`` (the default), ``examples/phone/tests.yaml -k phone-greeting``:

- ``webrtc``: the `oracle` reference agent joins each room itself, as a
  pipeline model (``--config examples/phone/oracle.yaml``);
- ``sip``: the same agent, same config, behind a plain SIP endpoint
  (``floorbench phone-agent``); each room's phone line calls it
  (``--via sip:…``), G.711 µ-law both ways.

With ``--agent livekit``, ``examples/livekit_agent/tests.yaml`` against the
LiveKit Agents example (``agent.py start``, flite ``kal16``), one worker for
both paths:

- ``webrtc``: dispatched into each test room (``--dispatch``);
- ``sip``: behind ``floorbench phone-gateway``, which answers each call and
  dispatches the worker into a room of its own, as LiveKit SIP does.

The latency is the test's own: the caller's end of turn to the agent's first
speech, both read from the room's recording (the recorder's clock), so the
SIP figure holds both RTP legs, both PJSIP jitter buffers and the G.711
codec twice. Printed: p50/p95 per path and the difference, and from the
SIP trials' meta.json the call's codec, set-up time, RTP counters and the
leg's own delay each way. The agent's clock over SIP is the receiver's (the
leg's), as meta.json says.

    python benchmarks/sip_vs_webrtc.py --trials 6
    python benchmarks/sip_vs_webrtc.py --agent livekit --trials 5
    python benchmarks/sip_vs_webrtc.py --trials 5 --loss 5      # and a third path: SIP with 5 % RTP loss each way
    python benchmarks/sip_vs_webrtc.py --trials 5 --jitter 20   # and SIP with 40 ± 20 ms of RTP jitter each way

With ``--loss PCT`` a third path, ``sip-loss``, calls the same agent end with
``rtp_loss_to_agent_pct`` and ``rtp_loss_from_agent_pct`` at PCT (an
``adapter: sip`` config): printed, the loss realised each way against the
asked, and the latency it adds over plain SIP.

With ``--jitter MS`` a path ``sip-jitter`` calls it with ``rtp_jitter_to_agent``
and ``rtp_jitter_from_agent`` at ``{delay_ms: D, jitter_ms: MS}`` (D from
``--jitter-delay``, 2 × MS by default): printed, per way the
delay the relay added (median of the calls' p50 and p95), the jitter it added
(RFC 3550's mean change of delay, ≈ 2/3 MS) against what the receiver measured
(the leg's own RFC 3550 jitter and late packets back from the agent; the agent
end's RTCP reports towards it), and the latency it adds over plain SIP.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TESTS = ROOT / "examples" / "phone" / "tests.yaml"
CONFIG = ROOT / "examples" / "phone" / "oracle.yaml"
LK_AGENT = ROOT / "examples" / "livekit_agent" / "agent.py"
LK_TESTS = ROOT / "examples" / "livekit_agent" / "tests.yaml"


def _floorbench(*args: str) -> list[str]:
    return [sys.executable, "-c", "from floorbench.cli import main; main()", *args]


def play(out: Path, trials: int, tests: list[str], path: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One path's `floorbench test` run: its results.json and the SIP legs' records."""
    cmd = _floorbench("test", *tests, "--trials", str(trials), "--out", str(out), "--quiet", *path)
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{path[0]} run failed ({p.returncode}): {p.stdout[-800:]} {p.stderr[-800:]}")
    results = json.loads((out / "results.json").read_text())
    legs = [json.loads(m.read_text())["transport_latency_ms"].get("bridge") for m in sorted(out.glob("run/*/meta.json"))]
    return {"results": results, "legs": [x for x in legs if x]}


@contextmanager
def started(cmd: list[str], env: dict[str, str], ready: str, log: Path) -> Iterator[None]:
    """`cmd` running until the block ends, once its log (stdout and stderr) shows `ready`."""
    with log.open("wb") as f:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while ready not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{cmd[1:3]} did not start: {log.read_text(errors='replace')[-800:]}")
            time.sleep(0.3)
        yield
    finally:
        proc.terminate()
        proc.wait(20)


def oracle_paths(stack: ExitStack, base: Path, port: int, env: dict[str, str]) -> tuple[list[str], dict[str, list[str]]]:
    """The oracle in each room (webrtc) and behind `phone-agent` (sip)."""
    stack.enter_context(started(_floorbench("phone-agent", "--port", str(port), "--model", "oracle", "--config",
                                            str(CONFIG)), env, '"ready"', base / "phone-agent.log"))
    return [str(TESTS), "-k", "phone-greeting"], {"webrtc": ["--config", str(CONFIG)],
                                                  "sip": ["--via", f"sip:agent@127.0.0.1:{port}"]}


def livekit_paths(stack: ExitStack, base: Path, port: int, env: dict[str, str]) -> tuple[list[str], dict[str, list[str]]]:
    """One LiveKit server and the LiveKit Agents worker: dispatched into each room (webrtc), behind the gateway (sip)."""
    from floorbench.transports.server import LiveKitServer

    server = LiveKitServer(log_path=base / "livekit.log")
    conn = server.start()
    stack.callback(server.stop)
    env.update(LIVEKIT_URL=conn.url, LIVEKIT_API_KEY=conn.api_key, LIVEKIT_API_SECRET=conn.api_secret)
    name = f"bench-agent-{os.getpid()}"
    stack.enter_context(started([sys.executable, str(LK_AGENT), "start"], {**env, "AGENT_NAME": name,
                                "AGENT_VOICE": "flite:kal16"}, "registered worker", base / "agent.log"))
    stack.enter_context(started(_floorbench("phone-gateway", "--port", str(port), "--dispatch", name), env,
                                '"ready"', base / "gateway.log"))
    at = ["--livekit-url", conn.url]
    return [str(LK_TESTS)], {"webrtc": ["--dispatch", name, *at], "sip": ["--via", f"sip:agent@127.0.0.1:{port}", *at]}


def latencies(results: dict[str, Any]) -> list[int]:
    return [int(v) for t in results["trials"] for v in t["latencies_ms"]]


def pct(xs: list[int]) -> tuple[float, float]:
    if not xs:
        return float("nan"), float("nan")
    p50, p95 = np.percentile(np.array(xs, dtype=float), [50, 95])
    return float(p50), float(p95)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--agent", choices=("oracle", "livekit"), default="oracle",
                    help="oracle: the reference agent; livekit: the LiveKit Agents example (behind phone-gateway)")
    ap.add_argument("--port", type=int, default=5090, help="the agent end's SIP port on 127.0.0.1")
    ap.add_argument("--loss", type=int, default=0, help="also a SIP path with this %% of RTP lost each way (0-50)")
    ap.add_argument("--jitter", type=int, default=0, help="also a SIP path with this ± ms of RTP jitter each way")
    ap.add_argument("--jitter-delay", type=int, default=None, help="its mean delay (ms; default twice --jitter)")
    ap.add_argument("--out", type=Path, default=None, help="keep the runs here (default: a temp folder)")
    args = ap.parse_args()
    base = args.out or Path(tempfile.mkdtemp(prefix="fb-sip-vs-webrtc-"))
    base.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ExitStack() as stack:
        paths = livekit_paths if args.agent == "livekit" else oracle_paths
        tests, how = paths(stack, base, args.port, env)
        if args.loss:
            lossy = base / "loss.yaml"
            lossy.write_text(f"adapter: sip\nrtp_loss_to_agent_pct: {args.loss}\nrtp_loss_from_agent_pct: {args.loss}\n")
            how["sip-loss"] = [*how["sip"], "--config", str(lossy)]
        if args.jitter:
            delay = args.jitter_delay if args.jitter_delay is not None else 2 * args.jitter
            jittery = base / "jitter.yaml"
            jittery.write_text("adapter: sip\n" + "".join(
                f"rtp_jitter_{way}: {{delay_ms: {delay}, jitter_ms: {args.jitter}}}\n" for way in ("to_agent", "from_agent")))
            how["sip-jitter"] = [*how["sip"], "--config", str(jittery)]
        runs = {name: play(base / name, args.trials, tests, path, env) for name, path in how.items()}
    report(runs, base)


def report(runs: dict[str, dict[str, Any]], base: Path) -> None:
    rows = {}
    for name, run in runs.items():
        xs = latencies(run["results"])
        passed = sum(t["status"] == "passed" for t in run["results"]["trials"])
        rows[name] = {"n": len(xs), "passed": passed, "trials": len(run["results"]["trials"]), "latencies_ms": xs,
                      "p50_ms": pct(xs)[0], "p95_ms": pct(xs)[1]}
        print(f"{name:7s} trials passed {passed}/{rows[name]['trials']}  replies {len(xs)}  "
              f"p50 {rows[name]['p50_ms']:.0f} ms  p95 {rows[name]['p95_ms']:.0f} ms  all {xs}")
    d50 = rows["sip"]["p50_ms"] - rows["webrtc"]["p50_ms"]
    d95 = rows["sip"]["p95_ms"] - rows["webrtc"]["p95_ms"]
    print(f"sip - webrtc: p50 {d50:+.0f} ms, p95 {d95:+.0f} ms")
    if "sip-loss" in rows:
        print(f"sip-loss - sip: p50 {rows['sip-loss']['p50_ms'] - rows['sip']['p50_ms']:+.0f} ms, "
              f"p95 {rows['sip-loss']['p95_ms'] - rows['sip']['p95_ms']:+.0f} ms")
        for key in ("to_agent_pct", "from_agent_pct"):
            got = [leg["rtp_loss"][key] for leg in runs["sip-loss"]["legs"] if leg.get("rtp_loss", {}).get(key) is not None]
            asked = runs["sip-loss"]["legs"][0]["rtp_loss"][f"asked_{key}"]
            print(f"loss {key.removesuffix('_pct').replace('_', ' ')}: asked {asked} %, realised per call {got}")
    if "sip-jitter" in rows:
        jitter_report(rows, runs["sip-jitter"]["legs"])
    legs = runs["sip"]["legs"]
    if legs:
        def med(key: str, sub: str) -> float:
            return float(np.median([leg[key][sub] for leg in legs if leg[key].get(sub) is not None]))

        codecs = sorted({f"{leg['codec']}/{leg['codec_sample_rate']}" for leg in legs})
        print(f"sip legs: {len(legs)}  codec {', '.join(codecs)}  set-up ms {[leg['setup_ms'] for leg in legs]}  "
              f"lost {sum(leg['rtp'].get('lost', 0) for leg in legs)}  late {sum(leg['rtp'].get('late', 0) for leg in legs)}"
              f"  jitter ms (median) {med('rtp', 'jitter_ms'):.1f}  agent jitter buffer ms (median) "
              f"{med('rtp', 'jitter_buffer_ms'):.0f}")
        print(f"leg's own delay (median of per-call p50): room→agent {med('room_to_model', 'p50_ms'):.1f} ms, "
              f"agent→room {med('model_to_room', 'p50_ms'):.1f} ms; agent clock: {legs[0]['agent_clock'].split(':')[0]}")
    out = {"paths": rows, "difference_ms": {"p50": d50, "p95": d95}, "sip_legs": legs}
    (base / "sip_vs_webrtc.json").write_text(json.dumps(out, indent=1))
    print(f"→ {base / 'sip_vs_webrtc.json'}")


def jitter_report(rows: dict[str, dict[str, Any]], legs: list[dict[str, Any]]) -> None:
    """The jitter path: latency over plain SIP; per way what the relay added and what the receiver measured."""
    print(f"sip-jitter - sip: p50 {rows['sip-jitter']['p50_ms'] - rows['sip']['p50_ms']:+.0f} ms, "
          f"p95 {rows['sip-jitter']['p95_ms'] - rows['sip']['p95_ms']:+.0f} ms")
    ways = [leg["rtp_jitter"] for leg in legs if leg.get("rtp_jitter")]
    for way in ("to_agent", "from_agent"):
        rs = [w[way] for w in ways]
        if not rs:
            continue

        def med(xs: list[Any]) -> float:
            xs = [x for x in xs if x is not None]
            return float(np.median(xs)) if xs else float("nan")

        asked = rs[0]["asked"]
        print(f"jitter {way.replace('_', ' ')}: asked {asked['delay_ms']} ± {asked['jitter_ms']} ms "
              f"(added jitter ≈ {2 * asked['jitter_ms'] / 3:.1f} ms); relay delay p50 {med([r['delay_ms']['p50'] for r in rs]):.1f}"
              f" p95 {med([r['delay_ms']['p95'] for r in rs]):.1f} ms, added jitter {med([r['added_jitter_ms'] for r in rs]):.1f}"
              f" ms, reordered {sum(r['reordered'] for r in rs)} of {sum(r['packets'] for r in rs)} packets; receiver: "
              f"jitter {med([r['receiver'].get('jitter_ms') for r in rs]):.1f} ms (median of calls), late "
              f"{[r['receiver'].get('late') for r in rs]}")


if __name__ == "__main__":
    main()
