"""Benchmark: suite av's user video on the audio's clock — capture error and transport latency, pooled.

    .venv/bin/python benchmarks/av_video_timing.py RUN_FOLDER [RUN_FOLDER ...]

For a run of an av suite (any model: `floorbench run --suite tests/fixtures/suites/av-tiny
--model oracle --out RUN`), reads every scenario's frame logs (the playback's
``humans.video.sent.jsonl``, the recorder's ``humans.video.frames.jsonl``) and
prints one JSON line per run: the clip frames' capture error against the
schedule (|capture − planned|, p50/p99/max, the share within one frame
period), each clip's first frame against its audio start, and the video's
transport latency (arrival − capture per frame, by the index read from the
pixels) beside the audio's per-clip latency from meta.json — pooled over the
run's scenarios, with their timing verdicts (numbers from `degraded` rooms
are not comparable).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from floorbench.pipelines.video.timing import read_jsonl


def pct(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    v = np.asarray(values, dtype=np.float64)
    return {
        "n": len(v),
        "p50": round(float(np.percentile(v, 50)), 2),
        "p99": round(float(np.percentile(v, 99)), 2),
        "max": round(float(v.max()), 2),
    }


def run_numbers(run: Path) -> dict[str, object]:
    errors: list[float] = []
    starts: list[float] = []
    video: list[float] = []
    audio: list[float] = []
    within = total = 0
    verdicts: dict[str, int] = {}
    for meta_path in sorted(run.glob("*/meta.json")):
        folder = meta_path.parent
        meta = json.loads(meta_path.read_text())
        sent_info = (meta.get("video") or {}).get("sent")
        if not sent_info:
            continue
        verdict = (meta.get("timing") or {}).get("verdict", "none")
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        period_ms = 1000 / int(sent_info["fps"])
        sent = read_jsonl(folder / sent_info["sent_file"])
        clip = [abs(s["capture_ns"] - s["planned_ns"]) / 1e6 for s in sent if s.get("clip") is not None]
        errors += clip
        within += sum(1 for e in clip if e <= period_ms)
        total += len(clip)
        seen: set[int] = set()
        for s in sent:
            if s.get("clip") is not None and s["clip"] not in seen:
                seen.add(s["clip"])
                starts.append((s["capture_ns"] - s["planned_ns"]) / 1e6)
        capture = {s["index"]: s["capture_ns"] for s in sent}
        got: set[int] = set()
        for r in read_jsonl(folder / "humans.video.frames.jsonl"):
            i = r.get("sent_index")
            if i in capture and i not in got:
                got.add(i)
                video.append((r["arrival_ns"] - capture[i]) / 1e6)
        lat = meta.get("transport_latency_ms", {}).get("humans", {})
        if lat.get("n"):
            audio.append(float(lat["p50"]))
    return {
        "run": str(run),
        "scenarios": sum(verdicts.values()),
        "verdicts": verdicts,
        "clip_frame_capture_error_ms": pct(errors),
        "clip_frames_within_one_period": f"{within}/{total}",
        "clip_first_frame_error_ms": pct(starts),
        "video_transport_latency_ms": pct(video),
        "audio_transport_latency_p50_ms_per_scenario": pct(audio),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    for run in ap.parse_args().runs:
        print(json.dumps(run_numbers(run)))


if __name__ == "__main__":
    main()
