"""The vision baseline (`cascade-vision`): what its detector sees in drawn frames, and what it decides.

The detector tests draw their own frames with OpenCV: a flat 2-D person (head,
hair, eyes with pupils, brows, mouth, neck, shirt, an optional raised hand) in
the suite's 320×240 format, unlike the suite's drawn person (av_draw, PIL) on
purpose, so that the detector is not tuned to one drawing; the processor tests
and tests/test_vision_cue_suite.py use the suite's person. The detector
(`processors.vision_detect`) is real: OpenCV's bundled face cascade runs on
every frame. The processor tests run the real
`VisionCascadeProcessor` through pipecat's test harness with only the
cascade's ASR/TTS loading skipped (nothing is heard or said in them): they
check that a raised hand while the cascade is audible interrupts it through
its stop path, and that a hand held up while it is quiet holds its answer.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2", reason="needs floorbench[vision] (opencv-python-headless)")

from pipecat.frames.frames import (  # noqa: E402
    InterruptionFrame,
    OutputTransportMessageUrgentFrame,
    UserImageRawFrame,
)
from pipecat.tests.utils import SleepFrame, run_test  # noqa: E402

from floorbench.processors.registry import ModelContext, ModelError, create_model  # noqa: E402
from floorbench.processors.vision_cue import (  # noqa: E402
    CascadeVisionSettings,
    VisionCascadeModel,
    VisionCascadeProcessor,
    VisionSettings,
    decide,
)
from floorbench.processors.vision_detect import Cues, CueTracker, FrameReader, rgb_array  # noqa: E402
from floorbench.suites.av.draw import Pose, draw_frame  # noqa: E402
from floorbench.suites.av.generate import cue_pose  # noqa: E402

SKIN = (225, 180, 150)
SHIRT = (40, 70, 120)
HAIR = (60, 40, 40)
W, H = 320, 240


def person(dx: int = 0, dy: int = 0, hand: bool = False, yaw: float = 0.0, gaze: float = 0.0) -> np.ndarray:
    """One RGB frame of the drawn person: `dx`/`dy` move the head, `yaw` turns its features,
    `gaze` moves the pupils sideways (in pupil widths), `hand` raises the right hand beside the head."""
    img = np.full((H, W, 3), (200, 210, 200), np.uint8)
    cx, cy, r = W // 2 + dx, int(H * 0.42) + dy, int(H * 0.16)
    cv2.ellipse(img, (W // 2, H), (int(W * 0.3), int(H * 0.3)), 0, 180, 360, SHIRT, -1)
    cv2.rectangle(img, (W // 2 - r // 3, cy + r - 4), (W // 2 + r // 3, cy + r + r // 2), SKIN, -1)
    cv2.ellipse(img, (cx, cy), (int(r * 0.85), r), 0, 0, 360, SKIN, -1)
    cv2.ellipse(img, (cx, cy - int(r * 0.7)), (int(r * 0.9), int(r * 0.45)), 0, 180, 360, HAIR, -1)
    off = int(yaw * r * 0.4)
    for side in (-1, 1):
        eye = (cx + off + side * int(r * 0.35), cy - int(r * 0.1))
        cv2.ellipse(img, eye, (int(r * 0.18), int(r * 0.1)), 0, 0, 360, (255, 255, 255), -1)
        cv2.circle(img, (eye[0] + int(gaze * r * 0.1), eye[1]), int(r * 0.08), (20, 30, 40), -1)
        brow_y = eye[1] - int(r * 0.26)
        cv2.line(img, (eye[0] - int(r * 0.2), brow_y), (eye[0] + int(r * 0.2), brow_y), HAIR, 3)
    cv2.line(img, (cx + off, cy), (cx + off - int(r * 0.08), cy + int(r * 0.3)), (190, 140, 110), 2)
    cv2.ellipse(img, (cx + off, cy + int(r * 0.5)), (int(r * 0.3), int(r * 0.1)), 0, 0, 180, (160, 60, 60), 3)
    if hand:
        hx, hy = cx + 2 * r, cy - int(r * 0.3)
        cv2.rectangle(img, (hx - r // 4, hy), (hx + r // 4, hy + int(r * 1.8)), SHIRT, -1)
        cv2.ellipse(img, (hx, hy), (int(r * 0.35), int(r * 0.4)), 0, 0, 360, SKIN, -1)
        for f in range(4):
            fx = hx - int(r * 0.27) + f * int(r * 0.18)
            cv2.rectangle(img, (fx, hy - int(r * 0.8)), (fx + int(r * 0.12), hy), SKIN, -1)
    return img


def idle(n: int) -> list[np.ndarray]:
    return [person() for _ in range(n)]


def head_shake(n: int) -> list[np.ndarray]:
    """Side to side: the head moves and turns, a quarter cycle per frame (2 Hz at 8 looks/s)."""
    return [
        person(dx=round(14 * math.sin(i * math.pi / 2)), yaw=0.6 * math.sin(i * math.pi / 2))
        for i in range(n)
    ]


def nod(n: int) -> list[np.ndarray]:
    return [person(dy=round(10 * math.sin(i * math.pi / 2))) for i in range(n)]


def seen(frames: list[np.ndarray], step_ms: int = 125) -> list[Cues]:
    reader, tracker = FrameReader(), CueTracker()
    return [tracker.update(i * step_ms, reader.read(f)) for i, f in enumerate(frames)]


# --- the detector -----------------------------------------------------------------------


def test_the_face_cascade_finds_the_drawn_face():
    look = FrameReader().read(person())
    assert look.found and look.face is not None
    x, y, w, h = look.face
    assert x < W // 2 < x + w and y < int(H * 0.42) < y + h


def test_a_raised_hand_is_seen_and_idle_frames_show_nothing():
    assert not any(c.names() for c in seen(idle(12)))
    cues = seen(idle(4) + [person(hand=True)] * 4)
    assert not any(c.hand_up for c in cues[:5])
    assert all(c.hand_up for c in cues[5:])
    assert not any(c.head_shake or c.nod for c in cues)


def test_a_head_shake_is_seen_and_a_nod_is_not_a_shake():
    shake = seen(idle(3) + head_shake(9))
    assert any(c.head_shake for c in shake[3:])
    assert not any(c.head_shake for c in shake[:3])
    assert not any(c.hand_up for c in shake)
    nods = seen(idle(3) + nod(9))
    assert not any(c.head_shake or c.hand_up for c in nods)
    assert any(c.nod for c in nods)


def test_a_look_away_departs_from_the_persons_own_resting_gaze():
    cues = seen(idle(6) + [person(gaze=1.2)] * 4)
    assert not any(c.gaze_away for c in cues[:6])
    assert cues[-1].gaze_away


def test_no_face_no_cues():
    blank = np.full((H, W, 3), (200, 210, 200), np.uint8)
    look = FrameReader().read(blank)
    assert look.face is None
    assert CueTracker().update(0, look) == Cues()


def test_frame_bytes_of_other_layouts_and_a_wrong_size():
    rgb = person()
    bgra = np.dstack([rgb[:, :, ::-1], np.full((H, W), 255, np.uint8)])
    assert np.array_equal(rgb_array(bgra.tobytes(), (W, H), "BGRA"), rgb)
    assert np.array_equal(rgb_array(rgb.tobytes(), (W, H), "RGB"), rgb)
    with pytest.raises(ValueError, match="not 320x241"):
        rgb_array(rgb.tobytes(), (W, H + 1), "RGB")


# --- deciding ---------------------------------------------------------------------------


def test_who_speaks_decides_what_a_hand_means():
    s = VisionSettings()
    hand, shake, away = (
        Cues(face=True, hand_up=True),
        Cues(face=True, head_shake=True),
        Cues(face=True, gaze_away=True),
    )
    assert decide(hand, audible=True, s=s) == ("raised_hand", "yield")
    assert decide(shake, audible=True, s=s) == ("head_shake", "yield")
    assert decide(away, audible=True, s=s) is None
    assert decide(hand, audible=False, s=s) == ("hand_hold", "hold")
    assert decide(away, audible=False, s=s) == ("thinking_gaze", "hold")
    assert decide(shake, audible=False, s=s) is None
    assert decide(Cues(face=True, nod=True), audible=True, s=s) is None
    only_shake = VisionSettings(yield_on=["head_shake"], hold_on=[])
    assert decide(hand, audible=True, s=only_shake) is None
    assert decide(hand, audible=False, s=only_shake) is None


# --- the processor ----------------------------------------------------------------------


def processor(monkeypatch, **config) -> VisionCascadeProcessor:
    model = create_model(ModelContext(name="cascade-vision", config=config))
    assert isinstance(model, VisionCascadeModel)
    (proc,) = model.processors()
    assert isinstance(proc, VisionCascadeProcessor)
    monkeypatch.setattr(proc, "_load", lambda: None)  # nothing is heard or said: no ASR/TTS needed
    return proc


def video(frames: list[np.ndarray], fps: int = 15) -> list:
    out: list = []
    for f in frames:
        out.append(UserImageRawFrame(user_id="user", image=f.tobytes(), size=(W, H), format="RGB"))
        out.append(SleepFrame(sleep=1 / fps))
    return out


def markers(frames) -> list[dict]:
    return [json.loads(f.message) for f in frames if isinstance(f, OutputTransportMessageUrgentFrame)]


def suite_person(cue: str, frames: int, fps: int = 15) -> list[np.ndarray]:
    """The suite's own drawn person (av_draw) performing `cue` from its first frame on."""
    return [draw_frame(cue_pose(cue, i * 1000 / fps, frames * 1000 / fps)) for i in range(frames)]


async def test_a_raised_hand_while_audible_stops_the_cascade(monkeypatch):
    proc = processor(monkeypatch)
    proc._audible_until_ns = time.monotonic_ns() + 60 * 10**9  # as if it were mid-answer
    rest = [draw_frame(Pose())] * 8
    down, _ = await run_test(proc, frames_to_send=video(rest + suite_person("raised_hand", 15)))
    yields = [m for m in markers(down) if m.get("decision") == "yield"]
    assert [m["cue"] for m in yields] == ["raised_hand"]
    assert yields[0]["source"] == "cascade-vision" and yields[0]["frame_wall_ns"] > 0
    assert "frame_t_ms" in yields[0] and yields[0]["look_ms"] >= 0
    assert any(isinstance(f, InterruptionFrame) for f in down)
    assert not proc.audible
    assert not any(isinstance(f, UserImageRawFrame) for f in down)  # consumed, never played back


async def test_idle_and_nodding_while_audible_do_not_stop_it(monkeypatch):
    proc = processor(monkeypatch)
    proc._audible_until_ns = time.monotonic_ns() + 60 * 10**9
    down, _ = await run_test(proc, frames_to_send=video(idle(6) + nod(12) + suite_person("nod", 15)))
    assert not any(isinstance(f, InterruptionFrame) for f in down)
    assert not [m for m in markers(down) if m.get("event") == "vision_cue"]
    assert proc.audible


async def test_a_hand_held_up_while_quiet_holds_and_a_held_answer_is_dropped_if_the_user_goes_on(
    monkeypatch,
):
    proc = processor(monkeypatch)
    rest = [draw_frame(Pose())] * 6
    down, _ = await run_test(proc, frames_to_send=video(rest + suite_person("hand_hold", 15)))
    holds = [m for m in markers(down) if m.get("decision") == "hold"]
    assert [m["cue"] for m in holds] == ["hand_hold"]
    assert not any(isinstance(f, InterruptionFrame) for f in down)
    # an answer ready during the hold waits; the user speaking again meanwhile drops it
    proc._hold_until_ns = time.monotonic_ns() + 300 * 10**6
    proc._onset_ms = 5000
    record = {"event": "decision", "speech_end_ms": 4000}
    await proc._speak("Sure.", record)
    assert record["dropped"].startswith("held") and record["held_ms"] >= 250


def test_settings_card_and_the_video_rate_asked_of_the_transport(monkeypatch):
    from floorbench.pipelines.video.model_input import video_in_params

    settings = CascadeVisionSettings()
    assert settings.dyadic and settings.vision.fps == 8.0
    params = video_in_params([processor(monkeypatch, vision={"fps": 5.5})])
    assert params["video_in_enabled"] and params["video_in_sources"]["camera"].framerate == 6
    with pytest.raises(ModelError, match="vision"):
        create_model(ModelContext(name="cascade-vision", config={"vision": {"fsp": 5}}))
    card = create_model(ModelContext(name="cascade-vision", config={})).card()
    assert card["name"] == "cascade-vision" and card["vision"]["yield_on"] == ["raised_hand", "head_shake"]
