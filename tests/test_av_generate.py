"""Suite av's synthetic clips: deterministic, and every dynamic's cue is in the frames over its window only.

Each cue is measured on the drawn frames with a plain pixel measure (skin in
a hand's region, the hair's centroid for the head, the pupils against the
hair for the gaze, the brows against the pupils, teeth for a smile), so a
vision detector has something real to see; the fixture suite's encoded video
is decoded and measured the same way to show the encoding keeps the cue.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from floorbench.scenarios.validate import ScenarioError, load_suite
from floorbench.suites.av import draw as D
from floorbench.suites.av.generate import (
    AvGenConfig,
    parse_dynamics,
    plan_scenario,
    render_clip,
    write_av_suite,
)
from floorbench.suites.av.rules import Dynamic

FIXTURE = Path(__file__).parent / "fixtures" / "suites" / "av-tiny"
FPS = 15


def _mask(frames: np.ndarray, color: tuple[int, int, int], tol: int = 40) -> np.ndarray:
    return np.abs(frames.astype(np.int32) - np.array(color)).sum(axis=-1) < tol


def _centroid(mask: np.ndarray) -> tuple[float, float]:
    ys, xs = np.nonzero(mask)
    return (float(xs.mean()), float(ys.mean())) if len(xs) else (float("nan"), float("nan"))


def _hair(f: np.ndarray) -> tuple[float, float]:
    return _centroid(_mask(f, D.HAIR))


def _skin_in(f: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> float:
    return float(_mask(f[y0:y1, x0:x1], D.SKIN).sum())


REST = D.draw_frame(D.Pose())


def _gaze(f: np.ndarray) -> float:
    """How far the pupils sit from where they rest, relative to the head (px)."""

    def rel(g: np.ndarray) -> np.ndarray:
        return np.subtract(_centroid(_mask(g[40:130], D.PUPIL)), _hair(g))

    return float(np.hypot(*(rel(f) - rel(REST))))


def _brow_lift(f: np.ndarray) -> float:
    """How far the brows sit above where they rest, relative to the pupils (px; positive = raised)."""

    def gap(g: np.ndarray) -> float:
        return _centroid(_mask(g[40:130], D.PUPIL))[1] - _centroid(_mask(g[40:130], D.BROW, 20))[1]

    return gap(f) - gap(REST)


def _head_dx(f: np.ndarray) -> float:
    return abs(_hair(f)[0] - _hair(REST)[0])


def _head_dy(f: np.ndarray) -> float:
    return abs(_hair(f)[1] - _hair(REST)[1])


def _teeth(f: np.ndarray) -> float:
    return float(_mask(f[118:160, 120:200], D.EYE_WHITE).sum())


# dynamic -> (measure, in-window threshold reached, outside-window ceiling, oscillating cue)
CUES: dict[Dynamic, tuple[Callable[[np.ndarray], float], float, float, bool]] = {
    Dynamic.thinking_pause: (_gaze, 4.0, 1.0, False),
    Dynamic.gaze_aversion: (_gaze, 4.0, 1.0, False),
    Dynamic.hand_hold: (lambda f: _skin_in(f, 205, 270, 150, 240), 400, 0, False),
    Dynamic.nod: (_head_dy, 6.0, 0.5, True),
    Dynamic.laughter: (_teeth, 30, 0, False),
    Dynamic.smile: (_teeth, 30, 0, False),
    Dynamic.raised_hand: (lambda f: _skin_in(f, 222, 320, 0, 150), 800, 0, False),
    Dynamic.head_shake: (_head_dx, 8.0, 0.5, True),
    Dynamic.open_palm: (
        lambda f: _skin_in(f, 0, 135, 160, 240) + _skin_in(f, 185, 320, 160, 240),
        800,
        0,
        False,
    ),
    Dynamic.backchannel_invite: (_brow_lift, 5.0, 1.0, False),
}


def _frames_of(dynamic: Dynamic) -> tuple[np.ndarray, tuple[int, int], np.ndarray]:
    """The event clip of the first scenario of `dynamic`: drawn frames, the window, the audio."""
    rng = random.Random(f"test:{dynamic.value}")
    plan = plan_scenario(dynamic, 0, rng)[-1]
    r = render_clip(plan, "flite:slt", rng, FPS)
    return np.stack([D.draw_frame(p) for p in r.poses]), r.window, r.pcm


def _split(n: int, window: tuple[int, int], margin_ms: int = 300) -> tuple[list[int], list[int]]:
    t = [i * 1000 / FPS for i in range(n)]
    inside = [i for i in range(n) if window[0] + margin_ms <= t[i] <= window[1] - margin_ms]
    outside = [i for i in range(n) if t[i] + 1000 / FPS < window[0] or t[i] > window[1] + 70]
    return inside, outside


@pytest.mark.parametrize("dynamic", list(CUES), ids=lambda d: d.value)
def test_each_cue_is_in_the_frames_over_its_window_and_not_outside(dynamic: Dynamic) -> None:
    measure, reach, ceiling, oscillating = CUES[dynamic]
    frames, window, _ = _frames_of(dynamic)
    inside, outside = _split(len(frames), window)
    assert inside and outside, (window, len(frames))
    vin = [measure(frames[i]) for i in inside]
    vout = [measure(frames[i]) for i in outside]
    level = max(vin) if oscillating else float(np.median(vin))
    assert level >= reach, (dynamic, vin)
    assert max(vout) <= ceiling, (dynamic, vout)


def test_handoff_gaze_looks_away_while_speaking_then_at_the_camera_in_the_window() -> None:
    frames, window, _ = _frames_of(Dynamic.handoff_gaze)
    inside, outside = _split(len(frames), window)
    before = [i for i in outside if i * 1000 / FPS < window[0]]
    assert min(_gaze(frames[i]) for i in before) > 4.0
    assert max(_gaze(frames[i]) for i in inside) < 1.0
    assert min(_brow_lift(frames[i]) for i in inside) > 3.0


def test_laughter_is_heard_in_the_window_and_the_rest_of_the_cue_clip_is_silent() -> None:
    _, window, pcm = _frames_of(Dynamic.laughter)
    ms = lambda a, b: pcm[a * 16 : b * 16].astype(np.float64)  # noqa: E731
    rms_in = np.sqrt(np.mean(ms(window[0] + 100, window[1] - 300) ** 2))
    assert rms_in > 1000
    assert not ms(0, window[0]).any() and not ms(window[1] + 50, len(pcm) // 16).any()


def test_mouth_follows_speech_and_is_shut_in_a_silent_pause() -> None:
    frames, window, _ = _frames_of(Dynamic.thinking_pause)
    open_px = [float(_mask(f[118:160, 120:200], D.MOUTH).sum()) for f in frames]
    inside, _ = _split(len(frames), window, margin_ms=100)
    assert max(open_px) > 150  # speaking before and after the pause
    assert max(open_px[i] for i in inside) == 0


def test_generation_is_byte_identical_for_a_seed(tmp_path: Path) -> None:
    cfg = AvGenConfig(per_dynamic=1, seed=3, dynamics=(Dynamic.smile,))
    a, b = write_av_suite(tmp_path / "a", cfg), write_av_suite(tmp_path / "b", cfg)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert len(files) >= 6  # suite, scenario, 2 clips' audio + video, idle, manifests
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    loaded = load_suite(a)
    assert [s.condition for s in loaded.scenarios] == ["smile"]


def test_generator_refuses_a_full_folder_and_bad_dynamics(tmp_path: Path) -> None:
    cfg = AvGenConfig(per_dynamic=1, dynamics=(Dynamic.nod,))
    write_av_suite(tmp_path, cfg)
    with pytest.raises(ScenarioError, match="not empty; pass --force"):
        write_av_suite(tmp_path, cfg)
    with pytest.raises(ScenarioError, match="unknown dynamic 'wave'; known dynamics: thinking_pause"):
        parse_dynamics("nod,wave")
    with pytest.raises(ScenarioError, match=r"1\.\.50 per dynamic"):
        write_av_suite(tmp_path / "x", AvGenConfig(per_dynamic=0))


def test_fixture_video_decodes_frame_exact_and_keeps_the_raised_hand() -> None:
    suite = load_suite(FIXTURE)
    s = next(s for s in suite.scenarios if s.condition == "raised_hand")
    clip = s.turns[s.event.clip - 1]
    frames = np.stack(list(D.read_frames(FIXTURE / clip.video)))
    import soundfile as sf

    info = sf.info(str(FIXTURE / clip.audio))
    assert len(frames) == -(-info.frames * FPS // info.samplerate)
    inside, outside = _split(len(frames), (s.event.start_ms, s.event.end_ms))
    hand = [_skin_in(f, 222, 320, 0, 150) for f in frames]
    assert min(hand[i] for i in inside) > 800
    assert max(hand[i] for i in outside) < 20  # lossy coding: a few stray pixels at most


def test_fixture_is_small_and_one_scenario_per_category() -> None:
    size = sum(p.stat().st_size for p in FIXTURE.rglob("*") if p.is_file())
    assert size < 3_000_000
    suite = load_suite(FIXTURE)
    cats = sorted(s.event.category for s in suite.scenarios)  # type: ignore[attr-defined]
    assert cats == ["backchannel", "keep_talking", "must_yield", "smooth_handoff", "stay_silent"]


def test_cli_generate_av(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from floorbench.cli import app

    runner = CliRunner()
    out = tmp_path / "s"
    ok = runner.invoke(
        app,
        [
            "generate",
            "--suite",
            "av",
            "--per-dynamic",
            "1",
            "--dynamics",
            "head_shake",
            "--seed",
            "5",
            "--out",
            str(out),
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert "wrote 1 av scenarios" in ok.output
    assert [s.condition for s in load_suite(out).scenarios] == ["head_shake"]
    bad = runner.invoke(
        app, ["generate", "--suite", "av", "--per-dynamic", "0", "--out", str(tmp_path / "t")]
    )
    assert bad.exit_code == 2 and "--per-dynamic" in bad.output
    rendered = runner.invoke(app, ["render", str(out)])
    assert rendered.exit_code == 2 and "do not render it" in rendered.output
