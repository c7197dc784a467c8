"""Transport latency, repeated: the spread of `floorbench latency` across runs, and what an impairment adds.

Starts one managed LiveKit server, then runs the probe train `--repeats` times
unimpaired and (with `--impair`) as many times impaired, alternating, each in a
fresh room. Prints per run the p50/p95 of each direction, then per direction
the median and spread (min..max) of the runs' p50s, and for an impairment the
rise of the round trip and of the model's legs over the paired unimpaired run
(expected: the profile's delay once per impaired leg).

    .venv/bin/python benchmarks/latency.py --repeats 5
    .venv/bin/python benchmarks/latency.py --repeats 5 --impair delay100 --legs both
    .venv/bin/python benchmarks/latency.py --repeats 5 --probes 40 --impair delay100 --legs both --interleave

With ``--interleave`` each repeat is one room whose probes alternate unimpaired and impaired
(`floorbench.processors.impair.Interleave`): the rise is measured within the room, so the
rooms' different settling (10-20 ms between rooms) does not enter it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path
from typing import Any

from floorbench.pipelines.latency.measure import LatencyOptions, measure
from floorbench.processors.impair import parse_profile
from floorbench.transports.server import LiveKitServer

SHOWN = ("up", "round_trip", "via_model", "model_legs")


def _line(tag: str, report: dict[str, Any]) -> str:
    d = report["directions"]
    return f"{tag:10s} " + "  ".join(
        f"{n} {d[n].get('p50', float('nan')):6.1f}/{d[n].get('p95', float('nan')):6.1f}" for n in SHOWN
    )


def _spread(label: str, runs: list[dict[str, Any]]) -> None:
    print(f"{label}: p50 of each run, median [min..max] over {len(runs)} runs (ms)")
    for n in SHOWN:
        v = [r["directions"][n]["p50"] for r in runs if r["directions"][n].get("n")]
        p95 = [r["directions"][n]["p95"] for r in runs if r["directions"][n].get("n")]
        if v:
            print(
                f"  {n:11s} p50 {statistics.median(v):7.2f} [{min(v):.2f}..{max(v):.2f}]"
                f"  p95 {statistics.median(p95):7.2f} [{min(p95):.2f}..{max(p95):.2f}]"
            )


def _rises(expected: int, base: list[dict[str, Any]], hurt: list[dict[str, Any]]) -> None:
    """Per pair and over the pairs: the rise of each direction's p50, and what the stages say they added."""
    for i, (b, h) in enumerate(zip(base, hurt, strict=True)):
        stage = "  ".join(
            f"stage {leg} added p50 {r['added_ms']['p50']:.2f} ms" for leg, r in h.get("stage", {}).items()
        )
        print(
            f"pair {i}: rise round_trip {h['directions']['round_trip']['p50'] - b['directions']['round_trip']['p50']:6.1f}"
            f"  model_legs {h['directions']['model_legs']['p50'] - b['directions']['model_legs']['p50']:6.1f} ms  {stage}"
        )
    for n in ("round_trip", "model_legs"):
        rises = [
            h["directions"][n]["p50"] - b["directions"][n]["p50"] for b, h in zip(base, hurt, strict=True)
        ]
        print(
            f"rise of {n} p50 over the paired unimpaired run: median {statistics.median(rises):.1f} ms "
            f"[{min(rises):.1f}..{max(rises):.1f}], expected {expected} ms"
        )


async def _interleaved(args: argparse.Namespace, conn: Any, out: Path) -> None:
    """`--interleave`: each repeat is one room whose probes alternate unimpaired / impaired."""
    profile = parse_profile(args.impair, args.legs)
    rises: dict[str, list[float]] = {"round_trip": [], "via_model": [], "model_legs": []}
    stage_of: list[str] = []
    for i in range(args.repeats):
        opts = LatencyOptions(
            out=out / f"mixed{i}",
            probes=args.probes,
            interval_ms=args.interval_ms,
            warmup_ms=args.warmup_ms,
            connection=conn,
            impair=profile,
            interleave=True,
        )
        r = await measure(opts)
        il = r["interleaved"]
        line = "  ".join(
            f"{n} {d['unimpaired']['p50']:.1f} → {d['impaired']['p50']:.1f} (+{d['rise_ms']:.2f})"
            for n, d in il["directions"].items()
            if "rise_ms" in d
        )
        print(
            f"room {i}: {il['unimpaired_probes']}+{il['impaired_probes']} probes "
            f"({il['unassigned_probes']} unassigned)  {line}",
            flush=True,
        )
        for n, d in il["directions"].items():
            if "rise_ms" in d:
                rises[n].append(d["rise_ms"])
        stage_of.append(" ".join(f"{leg}: {v.get('interleave')}" for leg, v in r["stage"].items()))
    expected = profile.delay_ms * len(profile.legs)
    print(
        f"{args.probes} probes per room, interleaved; {args.impair} on {args.legs}, expected rise {expected} ms"
    )
    for n, v in rises.items():
        if v:
            print(
                f"rise of {n} p50 (impaired probes − unimpaired probes, same room): median {statistics.median(v):.2f} ms "
                f"[{min(v):.2f}..{max(v):.2f}] over {len(v)} rooms"
            )
    print("samples inserted / cut per stage: " + " | ".join(stage_of))


async def _main(args: argparse.Namespace) -> None:
    out = Path(tempfile.mkdtemp(prefix="fb-latency-bench-"))
    profile = parse_profile(args.impair, args.legs) if args.impair else None
    server = LiveKitServer(log_path=out / "livekit.log")
    conn = server.start()
    base: list[dict[str, Any]] = []
    hurt: list[dict[str, Any]] = []
    if args.interleave:
        try:
            await _interleaved(args, conn, out)
        finally:
            server.stop()
        print(f"→ {out}")
        return
    try:
        for i in range(args.repeats):
            for tag, impair, into in (("base", None, base), ("impaired", profile, hurt)):
                if tag == "impaired" and profile is None:
                    continue
                opts = LatencyOptions(
                    out=out / f"{tag}{i}",
                    probes=args.probes,
                    interval_ms=args.interval_ms,
                    warmup_ms=args.warmup_ms,
                    connection=conn,
                    impair=impair,
                    passthrough_legs=args.legs if args.passthrough and impair is None else None,
                )
                into.append(await measure(opts))
                print(_line(f"{tag}{i}", into[-1]), flush=True)
    finally:
        server.stop()
    print(
        f"{args.probes} probes per run, resolution {base[0]['resolution_ms']} ms; clock: {base[0]['clock_method']}"
    )
    _spread("unimpaired", base)
    if profile is not None:
        _spread(f"impaired {args.impair} on {args.legs}", hurt)
        _rises(profile.delay_ms * len(profile.legs), base, hurt)
    print(f"→ {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--probes", type=int, default=20)
    ap.add_argument("--interval-ms", type=int, default=500)
    ap.add_argument(
        "--warmup-ms", type=int, default=3000, help="silence before the first probe (jitter buffers settle)"
    )
    ap.add_argument(
        "--impair", default=None, help="a profile (delay100, loss5, ...); runs paired with unimpaired ones"
    )
    ap.add_argument("--legs", default="both", choices=("in", "out", "both"))
    ap.add_argument(
        "--interleave",
        action="store_true",
        help="one room per repeat, the delay on every other probe (rise within a room; delay-only profiles)",
    )
    ap.add_argument(
        "--passthrough",
        action="store_true",
        help="the unimpaired runs keep the impairment stages in the chain at delay 0 (like with like)",
    )
    asyncio.run(_main(ap.parse_args()))


if __name__ == "__main__":
    main()
