"""Import of recorded av clips (one JSON each): media converted, the suite's rules hold, one-line errors.

The "recordings" are made here with PyAV: a drawn person at 29.97 fps in an
MP4 with an AAC stereo track at 44.1 kHz (a raised hand from 1.2 s to 3.0 s),
so the importer's resampling to a whole frame rate, 16 kHz mono audio and
the length fitting are exercised on the kind of file a camera writes.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scenarios.validate import ScenarioError, load_suite
from floorbench.suites.av import draw as D
from floorbench.suites.av.importer import ImportOptions, import_av
from floorbench.suites.av.schema import AvScenario

NTSC = Fraction(30000, 1001)


def record(path: Path, seconds: float = 4.0, video: bool = True, audio: bool = True, sr: int = 44100) -> Path:
    with av.open(str(path), "w") as c:
        vs = c.add_stream("mpeg4", rate=NTSC) if video else None
        a = c.add_stream("aac", rate=sr) if audio else None
        if vs is not None:
            vs.width, vs.height, vs.pix_fmt = 320, 240, "yuv420p"
            vs.codec_context.options = {"flags": "+qscale", "qmin": "3", "qmax": "3"}  # no ghosts of the hand
            for i in range(int(seconds * NTSC)):
                pose = D.Pose(raise_=1.0 if 1.2 <= i / NTSC <= 3.0 else 0.0)
                c.mux(vs.encode(av.VideoFrame.from_ndarray(D.draw_frame(pose), format="rgb24")))
            c.mux(vs.encode(None))
        if a is not None:
            a.layout = "stereo"
            t = np.arange(int(seconds * sr)) / sr
            x = (0.2 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
            st = np.stack([x, x])
            for k in range(0, st.shape[1], 1024):
                fr = av.AudioFrame.from_ndarray(
                    np.ascontiguousarray(st[:, k : k + 1024]), format="fltp", layout="stereo"
                )
                fr.sample_rate = sr
                c.mux(a.encode(fr))
            c.mux(a.encode(None))
    return path


REQUEST = {
    "text": "Tell me about tea.",
    "reply": "Tea was first drunk in China long ago, then it spread to Japan, India and Europe.",
}


def clip_json(folder: Path, name: str = "clip", **fields: Any) -> Path:
    data: dict[str, Any] = {
        "video": "rec.mp4",
        "dynamic": "raised_hand",
        "window": {"start_ms": 1200, "end_ms": 3000},
        "offset_ms": 1500,
        "request": REQUEST,
    }
    data.update(fields)
    data = {k: v for k, v in data.items() if v is not None}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def rec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("rec")
    record(d / "rec.mp4")
    record(d / "silent.mp4", audio=False)
    record(d / "sound.m4a", video=False)
    sf.write(d / "voice.wav", np.zeros(16000 * 4, dtype=np.int16), 16000)
    sf.write(d / "long.wav", np.zeros(16000 * 6, dtype=np.int16), 16000)
    return d


def test_a_recorded_clip_becomes_a_valid_av_suite(rec_dir: Path, tmp_path: Path) -> None:
    src = clip_json(rec_dir, "tea-hand", transcript="", words=[])
    out = tmp_path / "suite"
    [s] = import_av(src, out, ImportOptions(fps=15))
    loaded = load_suite(out)  # the suite's own rules, files included
    assert [x.scenario_id for x in loaded.scenarios] == ["tea-hand"]
    assert isinstance(s, AvScenario) and s.source == "import" and s.fps == 15 and s.size == [320, 240]
    assert [c.id for c in s.clips] == [1, 2] and s.clips[1].offset_ms == 1500 and s.clips[0].reply
    assert (s.event.dynamic, s.event.category, s.event.start_ms, s.event.end_ms) == (
        "raised_hand",
        "must_yield",
        1200,
        3000,
    )
    info = sf.info(str(out / s.clips[1].audio))
    assert (info.samplerate, info.channels) == (16000, 1)
    frames = np.stack(list(D.read_frames(out / s.clips[1].video)))
    assert abs(len(frames) / 15 - 4.0) < 0.1  # 29.97 fps in, 15 fps out, same length
    hand = [float(np.abs(f[0:150, 222:320].astype(int) - D.SKIN).sum(-1).__lt__(40).sum()) for f in frames]
    t = np.arange(len(frames)) / 15
    assert min(h for h, x in zip(hand, t, strict=True) if 1.35 < x < 2.9) > 800
    assert max(h for h, x in zip(hand, t, strict=True) if x < 1.1 or x > 3.1) < 20


def test_separate_audio_file_and_default_frame_rate(rec_dir: Path, tmp_path: Path) -> None:
    src = clip_json(rec_dir, "nod-sep", video="silent.mp4", audio="voice.wav", dynamic="nod")
    [s] = import_av(src, tmp_path / "s")
    assert s.fps == 30  # 29.97 rounded
    load_suite(tmp_path / "s")


def test_a_handoff_needs_no_request_and_gets_a_reply(rec_dir: Path, tmp_path: Path) -> None:
    src = clip_json(rec_dir, "handoff", dynamic="open_palm", offset_ms=None, request=None)
    [s] = import_av(src, tmp_path / "s", ImportOptions(fps=10, height=120))
    assert len(s.clips) == 1 and s.clips[0].reply and s.size == [160, 120]


@pytest.mark.parametrize(
    ("fields", "expect"),
    [
        ({"video": "sound.m4a"}, "sound.m4a has no video stream; give a file with video"),
        ({"video": "silent.mp4"}, 'silent.mp4 has no audio stream; add "audio"'),
        ({"window": {"start_ms": 3000, "end_ms": 5000}}, "window 3000–5000 ms is outside the clip (0–"),
        ({"dynamic": "wave"}, "unknown dynamic 'wave'; known dynamics: thinking_pause"),
        ({"category": "keep_talking"}, "dynamic raised_hand is must_yield; set category: must_yield"),
        ({"request": None}, 'add "request"'),
        ({"audio": "long.wav"}, "audio is 6000 ms but the video"),
        ({"video": "nowhere.mp4"}, "video file nowhere.mp4 not found next to the JSON"),
        ({"colour": "red"}, "unknown field(s) colour"),
        ({"window": {"start_ms": "1s", "end_ms": 3000}}, "window.start_ms must be an integer number of ms"),
        ({"dynamic": "thinking_pause", "request": None}, "offset_ms on a thinking_pause scenario"),
    ],
)
def test_import_errors_are_one_line_naming_the_file(
    rec_dir: Path, tmp_path: Path, fields: dict[str, Any], expect: str
) -> None:
    src = clip_json(rec_dir, "bad", **fields)
    with pytest.raises(ScenarioError) as e:
        import_av(src, tmp_path / "s")
    msg = str(e.value)
    assert "\n" not in msg and str(src) in msg and expect in msg, msg


def test_cli_import_av(rec_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        app,
        ["suite", "import-av", str(clip_json(rec_dir, "cli")), "--out", str(tmp_path / "s"), "--fps", "15"],
    )
    assert ok.exit_code == 0, ok.output
    assert "imported 1 av clips" in ok.output
    bad = runner.invoke(
        app,
        ["suite", "import-av", str(clip_json(rec_dir, "cli2", dynamic="wave")), "--out", str(tmp_path / "t")],
    )
    assert bad.exit_code == 2 and "unknown dynamic 'wave'" in bad.output
