"""cascade-vision live: a silent raised hand stops it in a real room (suite av's fixture, real runner, real scorer).

The fixture's raised-hand scenario (tests/fixtures/suites/av-tiny, av003): the
user asks a question, the cascade answers (real Silero, faster-whisper, Piper),
and 1.9 s into its answer the drawn user raises a hand without a sound. The
audio-only cascade hears nothing to stop for; cascade-vision must see the hand
on the user's video track (LiveKit → pipecat image frames) and yield:

- a ``vision_cue`` marker (raised_hand, yield) on the timeline, not before the
  cue's window opened;
- the av scorer counts the must_yield clip aligned (no takeover in the window).

The scorer's check depends on when things were heard, so it is excused only by
the room's own ``degraded`` verdict, and then must hold in a fresh room
(tests/support/live_checks.py).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.transports.server import LiveKitConnection
from tests.support.live_checks import holds_or_room_degraded

pytest.importorskip("cv2", reason="needs floorbench[vision] (opencv-python-headless)")
pytestmark = pytest.mark.live
SUITE = Path(__file__).parent / "fixtures" / "suites" / "av-tiny"
SCENARIO = "av003-raised-hand"


def timeline(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "timeline.jsonl").read_text().splitlines() if line.strip()]


def vision_yields(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The yield decisions, each with ``frame_session_ms``: when the frame it was taken on reached the
    model, on the session clock. The record's own ``t_ms``/``frame_t_ms`` count from the cascade processor's
    start; its ``frame_wall_ns`` is this machine's wall clock, as is the timeline's anchor."""
    anchor_wall_ns = next(e["wall_ns"] for e in lines if e.get("kind") == "session_start")
    out = []
    for e in lines:
        if e.get("kind") == "marker" and "vision_cue" in str(e.get("payload")):
            record = json.loads(e["payload"])
            if record.get("decision") == "yield":
                out.append({**record, "frame_session_ms": (record["frame_wall_ns"] - anchor_wall_ns) // 1_000_000})
    return out


def test_a_silent_raised_hand_stops_cascade_vision(tmp_path: Path, livekit: LiveKitConnection) -> None:
    from floorbench.suites.av.score import AvScoreOptions, score_av

    def play(attempt: str) -> list[Path]:
        out = tmp_path / attempt
        opts = RunOptions(
            suite=SUITE,
            model="cascade-vision",
            out=out,
            connection=livekit,
            progress=False,
            scenarios=[SCENARIO],
        )
        asyncio.run(run_suite(opts))
        return [out / SCENARIO]

    def check(folder: Path) -> None:
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["outcome"] == "completed", meta.get("failure_reason")
        lines = timeline(folder)
        window = next(e for e in lines if "window_start_ms" in e)
        yields = vision_yields(lines)
        assert yields, "no vision yield on the timeline"
        assert yields[0]["cue"] == "raised_hand"
        # taken on a frame that reached the model after the hand began to rise, never before
        assert yields[0]["frame_session_ms"] >= window["window_start_ms"], (yields[0], window)
        scores, _ = score_av(
            folder.parent, AvScoreOptions(workers=1, resamples=100, out=folder.parent / "scored")
        )
        (clip,) = scores["clips"]
        print(
            f"{folder.parent.name}: yield on a frame +{yields[0]['frame_session_ms'] - window['window_start_ms']} ms from the "
            f"window; speech in window {clip['speech_in_window_ms']} ms, {clip['words_in_window']} words"
        )
        assert clip["category"] == "must_yield" and clip["aligned"], clip

    holds_or_room_degraded(play, check)
