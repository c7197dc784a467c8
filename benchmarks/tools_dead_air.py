"""Benchmark: `dead_air_ms` against an agent whose silence during a tool call is set, live.

    flock /tmp/floorbench-live.lock .venv/bin/python benchmarks/tools_dead_air.py            # 4 delays × 4 trials
    .venv/bin/python benchmarks/tools_dead_air.py --delays 500,1000 --trials 3 --json

The stand-in is the `oracle` reference agent with a test's tools
(`floorbench.suites.agent.tool_oracle`): after the caller's line it starts its
filler and the call together, and says its answer the moment the call returns;
the filler and the answer are trimmed of the voice's silence. With the tool's
latency set to the filler's length plus D, the agent is silent for D between
the filler and the answer (its set delay). Each D is a test of its own, played
in real LiveKit rooms by `floorbench test`; `dead_air_ms` is judged from the
recording and the mock's records as any test's, and the benchmark prints its
error against D: per delay and over all trials, p50 and p95 of |error| and the
signed median.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def filler_ms(rate: int = 48000) -> int:
    from floorbench.processors.reference import DEFAULT_VOICE
    from floorbench.speech.tts import synthesize
    from floorbench.suites.agent.tool_oracle import FILLER, trimmed

    return len(trimmed(synthesize(FILLER, DEFAULT_VOICE, rate))) * 1000 // rate


def test_file(delays: list[int], filler: int) -> str:
    lines = ["tests:"]
    for d in delays:
        lines += [
            f"  - name: delay-{d}",
            "    tools:",
            "      - name: lookup_order",
            "        parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}",
            f"        latency_ms: {filler + d}",
            "        respond: [{returns: {status: shipped}}]",
            "    steps:",
            "      - say: Where is my order four two seven?",
            "        reply: Your order has shipped.",
            f"        expect: {{calls_tool: {{name: lookup_order, arguments: {{order_id: '427'}}}}, dead_air_ms: {d}}}",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delays", default="400,800,1200,1600", help="set delays D, ms")
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("-j", "--concurrency", default="2")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    delays = [int(x) for x in args.delays.split(",")]
    filler = filler_ms()
    with tempfile.TemporaryDirectory(prefix="fb-dead-air-") as tmp:
        f = Path(tmp) / "dead_air.yaml"
        f.write_text(test_file(delays, filler))
        out = Path(tmp) / "out"
        cmd = [str(ROOT / ".venv/bin/floorbench"), "test", str(f), "--model", "oracle", "--trials", str(args.trials),
               "-j", args.concurrency, "--out", str(out), "--quiet"]
        subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=sys.stderr, env=os.environ.copy())
        results = json.loads((out / "results.json").read_text())
    rows: dict[int, list[float]] = {d: [] for d in delays}
    missing = 0
    for t in results["trials"]:
        d = int(str(t["test"]).removeprefix("delay-"))
        v = next((a.get("value") for a in t["assertions"] if a["check"] == "dead_air_ms"), None)
        if v is None:
            missing += 1
            continue
        rows[d].append(float(v) - d)

    def stats(err: list[float]) -> dict[str, float | int | None]:
        if not err:
            return {"n": 0, "abs_p50_ms": None, "abs_p95_ms": None, "median_ms": None}
        a = np.abs(err)
        return {"n": len(err), "abs_p50_ms": float(np.percentile(a, 50)), "abs_p95_ms": float(np.percentile(a, 95)),
                "median_ms": float(np.median(err))}

    every = [e for v in rows.values() for e in v]
    report = {"filler_ms": filler, "trials_per_delay": args.trials, "not_measured": missing,
              "per_delay": {str(d): {**stats(v), "errors_ms": v} for d, v in rows.items()}, "all": stats(every),
              "within_20_ms": sum(abs(e) <= 20 for e in every)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"dead_air_ms against a set delay (filler {filler} ms; {args.trials} trials per delay; "
          f"{missing} trial(s) not measured)")
    print(f"{'delay ms':>9} {'n':>3} {'|err| p50':>10} {'|err| p95':>10} {'median err':>11}  errors ms")
    for d, v in rows.items():
        s = stats(v)
        fmt = (lambda x: "–" if x is None else f"{x:.0f}")  # noqa: E731
        print(f"{d:>9} {s['n']:>3} {fmt(s['abs_p50_ms']):>10} {fmt(s['abs_p95_ms']):>10} {fmt(s['median_ms']):>11}  "
              + ", ".join(f"{e:+.0f}" for e in v))
    s = stats(every)
    print(f"{'all':>9} {s['n']:>3} {s['abs_p50_ms'] or 0:>10.0f} {s['abs_p95_ms'] or 0:>10.0f} {s['median_ms'] or 0:>11.0f}"
          f"  within 20 ms: {report['within_20_ms']}/{len(every)}")


if __name__ == "__main__":
    main()
