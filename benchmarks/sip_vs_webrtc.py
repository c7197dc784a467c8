"""The same conversation test over WebRTC and over a phone line, against the same agent: what the phone leg adds.

Both paths play ``examples/phone/tests.yaml -k phone-greeting`` with
``floorbench test`` (a LiveKit server on 127.0.0.1 started by the command),
``--trials N`` rooms each, one path after the other:

- ``webrtc``: the `oracle` reference agent joins each room itself, as a
  pipeline model (``--config examples/phone/oracle.yaml``);
- ``sip``: the same agent, same config, behind a plain SIP endpoint
  (``floorbench phone-agent``); each room's phone line calls it
  (``--via sip:…``), G.711 µ-law both ways.

The latency is the test's own: the caller's end of turn to the agent's first
speech, both read from the room's recording (the recorder's clock), so the
SIP figure holds both RTP legs, both PJSIP jitter buffers and the G.711
codec twice. Printed: p50/p95 per path and the difference, and from the
SIP trials' meta.json the call's codec, set-up time, RTP counters and the
leg's own delay each way. The agent's clock over SIP is the receiver's (the
leg's), as meta.json says.

    python benchmarks/sip_vs_webrtc.py --trials 6
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TESTS = ROOT / "examples" / "phone" / "tests.yaml"
CONFIG = ROOT / "examples" / "phone" / "oracle.yaml"


def _floorbench(*args: str) -> list[str]:
    return [sys.executable, "-c", "from floorbench.cli import main; main()", *args]


def play(out: Path, trials: int, via: str | None) -> dict[str, Any]:
    """One path's `floorbench test` run: its results.json and the SIP legs' records."""
    path = ["--via", via] if via else ["--config", str(CONFIG)]
    cmd = _floorbench("test", str(TESTS), "-k", "phone-greeting", "--trials", str(trials), "--out", str(out),
                      "--quiet", *path)
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    if p.returncode not in (0, 1):
        raise SystemExit(f"{'sip' if via else 'webrtc'} run failed ({p.returncode}): {p.stdout[-800:]} {p.stderr[-800:]}")
    results = json.loads((out / "results.json").read_text())
    legs = [json.loads(m.read_text())["transport_latency_ms"].get("bridge") for m in sorted(out.glob("run/*/meta.json"))]
    return {"results": results, "legs": [x for x in legs if x]}


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
    ap.add_argument("--port", type=int, default=5090, help="the phone agent's SIP port on 127.0.0.1")
    ap.add_argument("--out", type=Path, default=None, help="keep the runs here (default: a temp folder)")
    args = ap.parse_args()
    base = args.out or Path(tempfile.mkdtemp(prefix="fb-sip-vs-webrtc-"))
    agent = subprocess.Popen(_floorbench("phone-agent", "--port", str(args.port), "--model", "oracle", "--config",
                                         str(CONFIG)), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert agent.stdout is not None
        while '"ready"' not in (line := agent.stdout.readline()):
            if not line:
                raise SystemExit("the phone agent did not start")
        runs = {"webrtc": play(base / "webrtc", args.trials, None),
                "sip": play(base / "sip", args.trials, f"sip:agent@127.0.0.1:{args.port}")}
    finally:
        agent.terminate()
        agent.wait(10)
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


if __name__ == "__main__":
    main()
