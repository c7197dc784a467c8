"""Benchmark: suite av's synthetic generator — CPU per second of video, bytes per second, decode speed.

    .venv/bin/python benchmarks/av_generate.py --per-dynamic 2 --seed 0

Generates the synthetic av suite into a temporary folder (all eleven
dynamics), then decodes every video once with PyAV, and prints one JSON line:
scenarios, clips, seconds of video, the generator's wall and CPU time (and
CPU seconds per second of video), bytes per second of video and of audio, the
largest clip, and decoded frames per CPU second with the frame counts checked
against the video manifest.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)  # festival/flite run as child processes
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-dynamic", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import av

    from floorbench.suites.av.generate import AvGenConfig, write_av_suite

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "av"
        t0, c0 = time.monotonic(), _cpu_s()
        write_av_suite(out, AvGenConfig(per_dynamic=args.per_dynamic, seed=args.seed))
        wall, cpu = time.monotonic() - t0, _cpu_s() - c0
        videos = json.loads((out / "video" / "manifest.json").read_text())["videos"]
        audio = json.loads((out / "audio" / "manifest.json").read_text())["clips"]
        clips = {k: v for k, v in videos.items() if not k.endswith("idle.mp4")}
        video_s = sum(v["frames"] / v["fps"] for v in clips.values())
        c1, frames, mismatched = _cpu_s(), 0, 0
        for rel, v in videos.items():
            with av.open(str(out / rel)) as c:
                n = sum(1 for _ in c.decode(video=0))
            frames += n
            mismatched += n != v["frames"]
        decode_cpu = _cpu_s() - c1
        print(
            json.dumps(
                {
                    "per_dynamic": args.per_dynamic,
                    "scenarios": len(list((out / "scenarios").glob("*.yaml"))),
                    "clips": len(clips),
                    "video_s": round(video_s, 1),
                    "wall_s": round(wall, 2),
                    "cpu_s": round(cpu, 2),
                    "cpu_s_per_video_s": round(cpu / video_s, 3),
                    "video_bytes_per_s": round(sum((out / k).stat().st_size for k in clips) / video_s),
                    "audio_bytes_per_s": round(sum((out / k).stat().st_size for k in audio) / video_s),
                    "largest_clip_s": round(max(v["frames"] / v["fps"] for v in clips.values()), 2),
                    "decode_frames_per_cpu_s": round(frames / max(decode_cpu, 1e-6)),
                    "frame_count_mismatches": mismatched,
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
