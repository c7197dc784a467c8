"""Pacing benchmark: how exactly the playback participant follows the live schedule.

Runs N scenarios live (managed LiveKit server on 127.0.0.1, real model
processes) and prints, over every turn of every scenario:

- turn-onset error: where the turn landed in the recorder's humans track vs
  its timeline entry, after removing the scenario's median transport latency
  (p50 / p99 of |error|, ms);
- drift: slope of the per-turn transport latency over each scenario (ms per
  100 s; median and worst |drift|);
- transport latency, playback → recorder, by cross-correlation (p50 / p95, ms).

    .venv/bin/python benchmarks/pacing.py --suite example --n 4 --model silent

Targets: onset error p99 ≤ 10 ms, drift ≤ 5 ms per 100 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.scenarios.files import resolve_suite


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="example", help="suite folder or packaged suite name")
    ap.add_argument("--n", type=int, default=4, help="number of scenarios")
    ap.add_argument("--model", default="silent")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="fb-pacing-"))
    t0 = time.monotonic()
    summary = asyncio.run(
        run_suite(RunOptions(suite=resolve_suite(args.suite), model=args.model, out=out, limit=args.n, progress=False))
    )
    wall = time.monotonic() - t0
    errors, latencies, drifts, durations = [], [], [], []
    for m in summary.metas:
        meta = json.loads((out / m.scenario_id / "meta.json").read_text())
        if meta["outcome"] != "completed":
            print(f"{m.scenario_id}: {meta['outcome']} ({meta.get('failure_reason')})")
            continue
        pb = meta.get("playback", {})
        errors += [abs(e["error_ms"]) for e in pb.get("turn_onset_error_ms", [])]
        latencies += [e["latency_ms"] for e in pb.get("turn_onset_error_ms", [])]
        d = meta["transport_latency_ms"]["humans"].get("drift_ms_per_100s")
        if d is not None:
            drifts.append(abs(d))
        durations.append(meta["duration_ms"] / 1000)
    if not errors:
        raise SystemExit("no completed scenario with turn measurements")
    e, lat = np.array(errors), np.array(latencies)
    print(f"scenarios: {summary.completed} completed, {summary.failed} failed; "
          f"{len(errors)} turns; {sum(durations):.0f} s of rooms in {wall:.0f} s wall "
          f"(real-time ratio {sum(durations) / wall:.2f})")
    print(f"turn-onset error |recorded - scheduled - latency|: p50 {np.percentile(e, 50):.2f} ms, "
          f"p99 {np.percentile(e, 99):.2f} ms, max {e.max():.2f} ms")
    if drifts:
        print(f"drift: median {np.median(drifts):.3f} ms/100 s, worst {max(drifts):.3f} ms/100 s "
              f"over {len(drifts)} scenarios")
    print(f"transport latency playback → recorder: p50 {np.percentile(lat, 50):.1f} ms, "
          f"p95 {np.percentile(lat, 95):.1f} ms")
    print(f"run folders: {out}")


if __name__ == "__main__":
    main()
