"""The user's camera: the frame index strip, the pacer on a virtual clock, decoding, the writer thread."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from floorbench.pipelines.video import marker as video_marker
from floorbench.pipelines.video.source import (
    BLANK_LUMA,
    ClipFrames,
    VideoClip,
    VideoFileError,
    VideoPacer,
    VideoTrackWriter,
    decode_i420,
    i420_size,
)

MS = 1_000_000


def frame(value: int, w: int = 320, h: int = 240) -> np.ndarray:
    return np.full(i420_size(w, h), value, dtype=np.uint8)


# -- the frame index strip ----------------------------------------------------
@pytest.mark.parametrize("size", [(320, 240), (640, 480), (160, 120), (1280, 720)])
@pytest.mark.parametrize("index", [0, 1, 2, 255, 4097, 65535])
def test_a_stamped_index_reads_back(size: tuple[int, int], index: int) -> None:
    w, h = size
    f = np.random.default_rng(index).integers(0, 256, i420_size(w, h)).astype(np.uint8)
    video_marker.stamp(f, w, h, index)
    assert video_marker.read(f[: w * h].reshape(h, w)) == index


def test_the_strip_reads_back_from_a_frame_scaled_to_half() -> None:
    w, h = 640, 480
    f = frame(100, w, h)
    video_marker.stamp(f, w, h, 1234)
    half = f[: w * h].reshape(h, w)[::2, ::2]
    assert video_marker.read(np.ascontiguousarray(half)) == 1234


def test_a_frame_without_a_strip_or_with_a_broken_one_reads_as_none() -> None:
    w, h = 320, 240
    plain = frame(100)
    assert video_marker.read(plain[: w * h].reshape(h, w)) is None
    f = frame(100)
    video_marker.stamp(f, w, h, 77)
    y = f[: w * h].reshape(h, w)
    c = int(video_marker.cell_px(w))
    y[:c, 5 * c : 6 * c] = 255 - y[:c, 5 * c : 6 * c]  # one index bit flipped: the checksum catches it
    assert video_marker.read(y) is None


def test_a_wrapped_index_unwraps_to_the_send_index_nearest_the_last_one() -> None:
    assert video_marker.unwrap(3, 65534) == 65539
    assert video_marker.unwrap(65535, 65539) == 65535
    assert video_marker.unwrap(10, None) == 10


# -- the pacer on a virtual clock ---------------------------------------------
def run_pacer(p: VideoPacer, until_ns: int, now_ns: int = 0) -> list[tuple[int, int | None, int, int]]:
    """Send every due frame until `until_ns` as if each went out exactly when due: (due ms, clip, k, value)."""
    out = []
    while True:
        due = p.peek(now_ns)
        if due.due_ns > until_ns:
            return out
        now_ns = max(now_ns, due.due_ns)
        p.commit(due)
        out.append((due.due_ns // MS, due.clip.clip_id if due.clip else None, due.k, int(due.frame[0])))


def pacer(fps: int = 10) -> VideoPacer:
    p = VideoPacer(fps, 320, 240, lambda s: s * 1_000_000_000 // 16000, idle=[frame(1), frame(2), frame(3)])
    p.start(0)
    return p


def test_a_clips_first_frame_goes_out_with_its_first_sample_and_idle_loops_around_it() -> None:
    p = pacer()
    p.pending.append(VideoClip(1, "clip 1", 250 * 16, [frame(10), frame(11), frame(12)]))
    sent = run_pacer(p, 900 * MS)
    assert sent == [
        (0, None, 0, 1),
        (100, None, 1, 2),
        (200, None, 2, 3),  # the idle loop
        (250, 1, 0, 10),
        (350, 1, 1, 11),
        (450, 1, 2, 12),  # the clip on its own grid from 250 ms
        (550, None, 3, 1),
        (650, None, 4, 2),
        (750, None, 5, 3),
        (850, None, 6, 1),  # idle again, looping on
    ]


def test_without_an_idle_loop_the_last_clip_frame_is_held() -> None:
    p = VideoPacer(10, 320, 240, lambda s: s * 1_000_000_000 // 16000)
    p.start(0)
    p.pending.append(VideoClip(1, "clip 1", 100 * 16, [frame(10), frame(11)]))
    values = [v for *_, v in run_pacer(p, 500 * MS)]
    assert values == [BLANK_LUMA, 10, 11, 11, 11, 11]  # grey before the first clip


def test_a_late_clip_keeps_its_grid_and_drops_what_is_overdue() -> None:
    p = pacer()
    clip = VideoClip(1, "clip 1", 700 * 16, [frame(10 + i) for i in range(6)])
    p.pending.append(clip)
    p.base_ns = 1000 * MS  # the pacer stalled until 1 000 ms: frames due at 700, 800, 900 are gone
    sent = run_pacer(p, 1200 * MS, now_ns=1000 * MS)
    assert sent[:2] == [(1000, 1, 3, 13), (1100, 1, 4, 14)]
    assert clip.dropped == 3 and clip.planned_start_ns == 700 * MS


def test_the_clip_start_follows_the_audio_clock_at_the_moment_it_is_reached() -> None:
    slip = {"ns": 0}
    p = VideoPacer(10, 320, 240, lambda s: s * 1_000_000_000 // 16000 + slip["ns"], idle=[frame(1)])
    p.start(0)
    p.pending.append(VideoClip(1, "clip 1", 300 * 16, [frame(10)]))
    run_pacer(p, 100 * MS)
    slip["ns"] = 40 * MS  # the audio source ran dry: its sample clock slipped 40 ms
    sent = run_pacer(p, 400 * MS, now_ns=100 * MS)
    assert (340, 1, 0, 10) in sent


# -- decoding ----------------------------------------------------------------
def write_video(path: Path, n: int, w: int = 160, h: int = 120, fps: int = 15) -> None:
    import av

    with av.open(str(path), "w") as c:
        st = c.add_stream("mpeg4", rate=fps)
        st.width, st.height, st.pix_fmt = w, h, "yuv420p"
        st.codec_context.time_base = Fraction(1, fps)
        for i in range(n):
            img = np.full((h, w, 3), 20 * i % 256, dtype=np.uint8)
            vf = av.VideoFrame.from_ndarray(img, format="rgb24")
            vf.pts = i
            for pkt in st.encode(vf):
                c.mux(pkt)
        for pkt in st.encode():
            c.mux(pkt)


def test_a_clip_decodes_to_its_frames_at_the_scenario_size(tmp_path: Path) -> None:
    path = tmp_path / "c.mp4"
    write_video(path, 7)
    frames = decode_i420(path, 320, 240)  # scaled up to the scenario's size
    assert len(frames) == 7 and all(f.shape == (i420_size(320, 240),) for f in frames)
    streamed = ClipFrames(path, 320, 240, ahead=2)
    got = []
    while (f := streamed.next()) is not None:
        got.append(f)
    assert len(got) == 7 and streamed.next() is None


def test_an_unreadable_video_is_a_one_line_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(
        VideoFileError, match=r"broken\.mp4: cannot open the video .*re-generate or re-import"
    ):
        decode_i420(bad, 320, 240)
    assert ClipFrames(bad, 320, 240).next() is None  # live: the clip's video ends, logged, the run goes on


# -- the writer thread (real time, short) ---------------------------------------
class ListSink:
    def __init__(self) -> None:
        self.got: list[tuple[int, int, int | None]] = []

    def capture(self, i420: np.ndarray, index: int, capture_ns: int) -> None:
        y = i420[: 160 * 120].reshape(120, 160)
        self.got.append((index, capture_ns, video_marker.read(y)))


def test_the_writer_sends_idle_then_the_clip_and_logs_every_frame(tmp_path: Path) -> None:
    clip = tmp_path / "c.mp4"
    write_video(clip, 4)
    t0 = time.monotonic_ns()

    def now() -> int:
        return time.monotonic_ns() - t0

    sink = ListSink()
    w = VideoTrackWriter(
        sink, 10, (160, 120), now, lambda s: s * 1_000_000_000 // 16000, tmp_path / "v.sent.jsonl"
    )
    w.start()
    w.schedule(clip, 200 * 16, 1)  # the clip starts 200 ms in
    while now() < 800 * MS:
        time.sleep(0.02)
    w.stop()
    lines = [json.loads(x) for x in (tmp_path / "v.sent.jsonl").read_text().splitlines()]
    assert [x["index"] for x in lines] == list(range(len(lines))) == [g[0] for g in sink.got]
    assert [g[2] for g in sink.got] == [g[0] for g in sink.got]  # each frame carries its index
    clip_lines = [x for x in lines if x["clip"] == 1]
    assert [x["frame"] for x in clip_lines] == [0, 1, 2, 3]
    assert [x["planned_ns"] for x in clip_lines] == [200 * MS + k * 100 * MS for k in range(4)]
    assert all(x["capture_ns"] >= x["planned_ns"] for x in lines)
    assert lines[0]["clip"] is None and lines[-1]["clip"] is None  # idle before and after
    assert w.summary()["clips"] == [
        {
            "clip": 1,
            "label": "clip 1",
            "frames_sent": 4,
            "frames_dropped": 0,
            "planned_start_ns": 200 * MS,
            "first_capture_ns": clip_lines[0]["capture_ns"],
        }
    ]
