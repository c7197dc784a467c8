"""The vision baseline on the suite's own drawn person: every dynamic's cue, looked at as live.

Frames come from suite av's generator (`av_generate.cue_pose` → `av_draw.draw_frame`),
one second at rest, then the cue, sampled at the baseline's 8 looks a second. The
real detector and `decide` give each dynamic one vision decision, with the model
audible exactly for the dynamics whose cue comes while it speaks:

- must_yield (raised_hand, head_shake) → yield;
- stay_silent (thinking_pause, gaze_aversion, hand_hold) → hold;
- everything else (a nod, laughter, a smile, a look to camera, open palms,
  raised brows) → nothing: the cascade behaves as it would without eyes.
"""

from __future__ import annotations

import pytest

pytest.importorskip("cv2", reason="needs floorbench[vision] (opencv-python-headless)")

from floorbench.processors.vision_cue import VisionSettings, decide
from floorbench.processors.vision_detect import CueTracker, FrameReader
from floorbench.suites.av.draw import Pose, draw_frame
from floorbench.suites.av.generate import cue_pose
from floorbench.suites.av.rules import CATEGORY, DURING_MODEL_SPEECH, Category, Dynamic

LOOK_MS = 125
CUE_MS = 1600

EXPECTED = {
    Category.must_yield: "yield",
    Category.stay_silent: "hold",
    Category.keep_talking: None,
    Category.smooth_handoff: None,
    Category.backchannel: None,
}


def decisions(dynamic: Dynamic) -> set[str | None]:
    """Every decision taken over one second at rest, the cue, and half a second after it."""
    reader, tracker, settings = FrameReader(), CueTracker(), VisionSettings()
    audible = dynamic in DURING_MODEL_SPEECH
    out: set[str | None] = set()
    for i in range((1000 + CUE_MS + 500) // LOOK_MS):
        t = i * LOOK_MS - 1000
        pose = cue_pose(dynamic.value, t, CUE_MS) if 0 <= t <= CUE_MS else Pose()
        cues = tracker.update(i * LOOK_MS, reader.read(draw_frame(pose)))
        if t < 0:
            assert not cues.names(), f"{dynamic}: {cues.names()} seen at rest"
        decided = decide(cues, audible, settings)
        out.add(decided[1] if decided else None)
    return out


@pytest.mark.parametrize("dynamic", list(Dynamic), ids=lambda d: d.value)
def test_each_dynamic_gets_its_categorys_decision(dynamic: Dynamic):
    expected = EXPECTED[CATEGORY[dynamic]]
    got = decisions(dynamic)
    if expected is None:
        assert got == {None}
    else:
        assert expected in got and ({"yield", "hold"} - {expected}).isdisjoint(got)
