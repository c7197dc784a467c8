"""The user video's timing, measured after the run from the two frame logs.

- **capture error**: per sent frame, actual capture time minus the time the
  schedule planned for it (``NAME.sent.jsonl``: ``capture_ns - planned_ns``,
  both on the session clock). A clip's frame k is planned at its audio
  start plus k / fps, so this is the video's error against the audio's
  schedule. Acceptance: every clip frame within one frame period.
- **transport latency**: per received frame whose index was read back from
  its pixels (``NAME.frames.jsonl``, `video_marker`), arrival time at the
  recorder minus the sender's capture time of that index. It is beside the
  audio's transport latency in meta.json ``transport_latency_ms``, which the
  audio gets by cross-correlating what was sent with what was recorded.

Times in records are integer ns; summaries are ms with two decimals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

NS_PER_MS = 1_000_000
METHOD = (
    "frame index in a pixel code strip (top-left), read back by the recorder; "
    "arrival at the recorder minus capture at the playback, session clock"
)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    with path.open() as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:  # a torn last line of an interrupted run
                    break
    return out


def _stats_ms(values_ns: list[int] | np.ndarray) -> dict[str, Any]:
    v = np.asarray(values_ns, dtype=np.float64) / NS_PER_MS
    if len(v) == 0:
        return {"n": 0}
    return {
        "n": len(v),
        "p50": round(float(np.percentile(v, 50)), 2),
        "p95": round(float(np.percentile(v, 95)), 2),
        "p99": round(float(np.percentile(v, 99)), 2),
        "max": round(float(v.max()), 2),
    }


def capture_error(sent: list[dict[str, Any]], fps: int) -> dict[str, Any]:
    """|capture − planned| over clip frames (idle frames apart): percentiles and the one-period check."""
    period_ns = 1_000_000_000 // fps
    clip = [abs(s["capture_ns"] - s["planned_ns"]) for s in sent if s.get("clip") is not None]
    idle = [abs(s["capture_ns"] - s["planned_ns"]) for s in sent if s.get("clip") is None]
    within = sum(1 for e in clip if e <= period_ns)
    return {
        "frame_period_ms": round(period_ns / NS_PER_MS, 2),
        "clip_frames": _stats_ms(clip),
        "idle_frames": _stats_ms(idle),
        "clip_frames_within_one_period": within,
        "all_within_one_period": bool(clip) and within == len(clip),
    }


def clip_starts(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each clip's first frame: planned (its audio start) and captured, and the error."""
    seen: dict[int, dict[str, Any]] = {}
    for s in sent:
        cid = s.get("clip")
        if cid is not None and cid not in seen:
            seen[cid] = {
                "clip": cid,
                "frame": s["frame"],
                "planned_ns": s["planned_ns"],
                "capture_ns": s["capture_ns"],
                "error_ms": round((s["capture_ns"] - s["planned_ns"]) / NS_PER_MS, 2),
            }
    return list(seen.values())


def transport_latency(sent: list[dict[str, Any]], received: list[dict[str, Any]]) -> dict[str, Any]:
    """Arrival − capture per received frame whose index was read; frames lost and repeated."""
    capture = {s["index"]: s["capture_ns"] for s in sent}
    lat: list[int] = []
    first_seen: set[int] = set()
    unread = 0
    for r in received:
        if r.get("placeholder"):
            continue
        idx = r.get("sent_index")
        if idx is None or idx not in capture:
            unread += 1
            continue
        if idx in first_seen:  # a repeated frame (a receiver that re-delivers) is not a new arrival
            continue
        first_seen.add(idx)
        lat.append(r["arrival_ns"] - capture[idx])
    meta_agree = sum(
        1 for r in received if r.get("frame_id") is not None and r.get("frame_id") == r.get("sent_index")
    )
    meta_seen = sum(1 for r in received if r.get("frame_id") is not None)
    return {
        "method": METHOD,
        **_stats_ms(lat),
        "frames_sent": len(sent),
        "frames_received": len(received),
        "frames_unread": unread,
        "frames_lost": len(capture) - len(first_seen),
        "frame_metadata_seen": meta_seen,
        "frame_metadata_agrees": meta_agree,
    }


def measure(out_dir: Path, sent_file: str, received_file: str, fps: int) -> dict[str, Any]:
    """meta.json's ``video.timing``: capture error against the schedule, per-clip starts, latency."""
    sent = read_jsonl(out_dir / sent_file)
    received = read_jsonl(out_dir / received_file)
    return {
        "capture_error_ms": capture_error(sent, fps),
        "clip_starts": clip_starts(sent),
        "transport_latency_ms": transport_latency(sent, received),
    }


def meta_entry(
    out_dir: Path,
    camera: dict[str, Any] | None,
    recorded: dict[str, dict[str, Any]],
    user_track: str = "humans.video",
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """meta.json's ``video`` (what was sent, what was recorded, the timing) and the user video's latency entry.

    `camera` is the playback's `VideoTrackWriter.summary()` (None: no camera);
    `recorded` the recorder's video tracks. The latency entry (None without a
    camera or without the recorded user track) goes beside the audio's in
    ``transport_latency_ms``.
    """
    entry: dict[str, Any] = {"tracks": recorded}
    latency = None
    if camera is not None:
        entry["sent"] = camera
        if user_track in recorded:
            timing = measure(
                out_dir, str(camera["sent_file"]), f"{user_track}.frames.jsonl", int(camera["fps"])
            )
            entry["timing"] = timing
            latency = timing["transport_latency_ms"]
        else:
            entry["timing"] = {"unmeasured": f"the recorder never received {user_track}"}
    return entry, latency
