"""Benchmark: procedural generation time and local-voice render speed (hours of audio per CPU-minute).

    .venv/bin/python benchmarks/render_speed.py                 # generate 2000 pairs, render 50 of them
    .venv/bin/python benchmarks/render_speed.py --render-pairs 200 --jobs 4 --rate 24000

It generates `--gen-pairs` pairs (timed, validated), then renders a fresh
`--render-pairs` suite of the same seed with the local voices and prints one
JSON object. CPU time counts the worker processes and the TTS engines they
start; `suite info` is run on the result to check that it reports correctly.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen-pairs", type=int, default=2000)
    ap.add_argument("--render-pairs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=int, default=16000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", type=Path, default=None, help="render into this folder and keep it")
    args = ap.parse_args()

    from floorbench.scenarios.info import suite_info
    from floorbench.scenarios.render import render_suite
    from floorbench.scenarios.validate import load_suite
    from floorbench.suites.mpe.generate import write_generated_suite

    result: dict[str, object] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "seed": args.seed}
    with tempfile.TemporaryDirectory(prefix="fb-bench-") as tmp:
        tmp_path = Path(tmp)
        t0 = time.monotonic()
        write_generated_suite(tmp_path / "gen", args.gen_pairs, args.seed)
        gen_s = time.monotonic() - t0
        t0 = time.monotonic()
        load_suite(tmp_path / "gen", audio=False, strict_vocab=True)
        result.update(gen_pairs=args.gen_pairs, gen_and_write_s=round(gen_s, 1),
                      reload_and_validate_s=round(time.monotonic() - t0, 1))

        out = args.keep or (tmp_path / "render")
        write_generated_suite(out, args.render_pairs, args.seed, force=True)
        t0 = time.monotonic()
        c0 = os.times()
        stats = render_suite(out, rate=args.rate, jobs=args.jobs)
        c1 = os.times()
        wall = time.monotonic() - t0
        # all CPU of this process and its reaped children (workers and the engines they ran)
        cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user)
        cpu += c1.children_system - c0.children_system
        info = suite_info(out)
        audio_h = stats.audio_ms_rendered / 3_600_000
        result.update(
            render_pairs=args.render_pairs, rate=args.rate, jobs=args.jobs, clips=stats.clips,
            failed=len(stats.failed), audio_hours=round(audio_h, 3), render_wall_s=round(wall, 1),
            render_cpu_min=round(cpu / 60, 2),
            audio_hours_per_cpu_minute=round(audio_h / (cpu / 60), 3) if cpu else None,
            audio_hours_per_wall_minute=round(audio_h / (wall / 60), 3) if wall else None,
            worker_only_hours_per_cpu_minute=round(stats.audio_hours_per_cpu_minute, 3),
            info_pairs=info.pairs, info_scenarios=info.scenarios, info_audio_problems=len(info.audio_problems),
            info_audio_unique_h=round(info.audio_unique_ms / 3_600_000, 3),
            info_playback_h=round(info.audio_playback_ms / 3_600_000, 3),
        )
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
