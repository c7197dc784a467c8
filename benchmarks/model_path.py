"""Model-path latency: what the room adds between a human's sound and a model's reply.

Runs the `echo` agent (repeats what it hears after `--delay-ms`) live and
cross-correlates each human turn in the recorder's humans track with its echo
in the model track, both on the recorder clock. The lag minus the echo's own
delay is the path's overhead any model pays: playback → model transport, the
pipecat input (resampler, mixer), the output queue, model → recorder
transport, minus playback → recorder transport. Prints p50/p95 over turns.

    .venv/bin/python benchmarks/model_path.py --n 2 --delay-ms 0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.audio.alignment import best_match
from floorbench.pipelines.run.runner import RunOptions, run_suite


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", type=Path, default=Path("tests/fixtures/suites/tiny"))
    ap.add_argument("--n", type=int, default=2)
    ap.add_argument("--delay-ms", type=int, default=0)
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="fb-model-path-"))
    summary = asyncio.run(
        run_suite(
            RunOptions(
                suite=args.suite, model="echo", config={"delay_ms": args.delay_ms}, out=out, limit=args.n, progress=False
            )
        )
    )
    overheads = []
    for m in summary.metas:
        d = out / m.scenario_id
        meta = json.loads((d / "meta.json").read_text())
        if meta["outcome"] != "completed":
            continue
        humans, sr = sf.read(str(d / "humans.wav"), dtype="float32")
        model, _ = sf.read(str(d / "model.wav"), dtype="float32")
        offset = (meta["tracks"]["humans"]["start_ns"] - meta["tracks"]["model"]["start_ns"]) * sr // 10**9
        for t in json.loads((d / "turns.json").read_text())["turns"]:
            at_model = t["start_ms"] * sr // 1000
            ref = humans[at_model - offset :][:sr]
            pos, score = best_match(ref, model, at_model, at_model + 3 * sr)
            if score >= 0.5:
                overheads.append((pos - at_model) * 1000 / sr - args.delay_ms)
    if not overheads:
        raise SystemExit("no echo found")
    o = np.array(overheads)
    print(f"{summary.completed} scenarios, {len(o)} turns, echo delay {args.delay_ms} ms")
    print(f"model-path overhead (reply lag − echo delay): p50 {np.percentile(o, 50):.1f} ms, "
          f"p95 {np.percentile(o, 95):.1f} ms, min {o.min():.1f} ms, max {o.max():.1f} ms")


if __name__ == "__main__":
    main()
