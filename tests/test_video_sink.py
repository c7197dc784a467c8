"""The recorder's video sink and the video timing measures, on frames made here (no room)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc

from floorbench.pipelines.video import marker as video_marker
from floorbench.pipelines.video.sink import VideoRecording
from floorbench.pipelines.video.source import i420_size
from floorbench.pipelines.video.timing import capture_error, meta_entry, transport_latency

MS = 1_000_000
W, H = 320, 240


def picture(index: int) -> rtc.VideoFrame:
    data = np.full(i420_size(W, H), 90, dtype=np.uint8)
    video_marker.stamp(data, W, H, index)
    return rtc.VideoFrame(W, H, rtc.VideoBufferType.I420, data.tobytes())


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_every_frame_is_logged_with_its_sent_index_and_kept_in_the_container(tmp_path: Path) -> None:
    rec = VideoRecording("humans.video", "playback", tmp_path)
    for i in range(5):
        rec.add(picture(10 + i), 1000 * MS + i * 66 * MS, 10 + i)
    stub = rtc.VideoFrame(8, 8, rtc.VideoBufferType.I420, bytes(i420_size(8, 8)))
    rec.add(stub, 1400 * MS, None)  # the receiver's stand-in once the track ended
    info = rec.finalize()
    log = lines(tmp_path / "humans.video.frames.jsonl")
    assert [x.get("sent_index") for x in log] == [10, 11, 12, 13, 14, None]
    assert [x.get("pts_ms") for x in log[:5]] == [0, 66, 132, 198, 264]
    assert log[-1]["placeholder"] is True
    assert (info["file"], info["frames"], info["placeholder_frames"], info["frames_in_file"]) == (
        "humans.video.mkv",
        6,
        1,
        5,
    )
    assert info["pts_origin_ns"] == 1000 * MS and info["sizes"] == [[W, H]]
    import av

    with av.open(str(tmp_path / "humans.video.mkv")) as c:
        frames = list(c.decode(video=0))
    assert [f.pts for f in frames] == [0, 66, 132, 198, 264]
    assert [video_marker.read(f.to_ndarray(format="yuv420p")[:H]) for f in frames] == [10, 11, 12, 13, 14]


def test_a_frame_without_a_strip_is_logged_with_no_index(tmp_path: Path) -> None:
    rec = VideoRecording("model.video", "model", tmp_path)
    plain = rtc.VideoFrame(W, H, rtc.VideoBufferType.I420, bytes(i420_size(W, H)))
    rec.add(plain, 5 * MS, None)
    info = rec.finalize()
    assert lines(tmp_path / "model.video.frames.jsonl")[0]["sent_index"] is None
    assert info["frames_with_index"] == 0 and info["frames_in_file"] == 1


def sent_log(n: int, fps: int = 15, clip_from: int = 3, late_ns: int = 0) -> list[dict[str, Any]]:
    period = 1_000_000_000 // fps
    return [
        {
            "index": i,
            "clip": 1 if i >= clip_from else None,
            "label": "x",
            "frame": i,
            "planned_ns": i * period,
            "capture_ns": i * period + late_ns + (i % 3) * MS,
        }
        for i in range(n)
    ]


def test_capture_error_counts_clip_frames_against_one_frame_period() -> None:
    ok = capture_error(sent_log(10), 15)
    assert ok["clip_frames"]["n"] == 7 and ok["idle_frames"]["n"] == 3
    assert ok["clip_frames"]["max"] == 2.0 and ok["all_within_one_period"] is True
    late = capture_error(sent_log(10, late_ns=70 * MS), 15)  # past 66.67 ms: a frame period late
    assert late["all_within_one_period"] is False and late["clip_frames_within_one_period"] < 7
    assert capture_error([], 15)["all_within_one_period"] is False  # nothing sent is no pass


def test_transport_latency_joins_the_logs_on_the_sent_index() -> None:
    sent = sent_log(6)
    received = [
        {"n": 0, "arrival_ns": sent[1]["capture_ns"] + 20 * MS, "sent_index": 1, "frame_id": 1},
        {"n": 1, "arrival_ns": sent[2]["capture_ns"] + 30 * MS, "sent_index": 2, "frame_id": None},
        {"n": 2, "arrival_ns": sent[2]["capture_ns"] + 90 * MS, "sent_index": 2, "frame_id": 2},  # repeated
        {"n": 3, "arrival_ns": sent[4]["capture_ns"] + 40 * MS, "sent_index": None, "frame_id": None},
        {"n": 4, "arrival_ns": 0, "placeholder": True},
    ]
    t = transport_latency(sent, received)
    assert (t["n"], t["p50"], t["max"]) == (2, 25.0, 30.0)
    assert (t["frames_sent"], t["frames_unread"], t["frames_lost"]) == (6, 1, 4)
    assert (t["frame_metadata_seen"], t["frame_metadata_agrees"]) == (2, 2)


def test_meta_entry_says_why_when_the_user_video_never_arrived(tmp_path: Path) -> None:
    (tmp_path / "humans.video.sent.jsonl").write_text("".join(json.dumps(x) + "\n" for x in sent_log(4)))
    camera = {"sent_file": "humans.video.sent.jsonl", "fps": 15}
    entry, latency = meta_entry(tmp_path, camera, {})
    assert latency is None and "never received humans.video" in entry["timing"]["unmeasured"]
    (tmp_path / "humans.video.frames.jsonl").write_text(
        json.dumps({"n": 0, "arrival_ns": 5 * MS, "sent_index": 0, "frame_id": 0}) + "\n"
    )
    entry, latency = meta_entry(tmp_path, camera, {"humans.video": {"frames": 1}})
    assert latency is not None and latency["n"] == 1 and entry["sent"] is camera
    assert entry["timing"]["clip_starts"][0]["clip"] == 1
