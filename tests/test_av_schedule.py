"""The av live schedule on a virtual clock: every rule of docs/suites/av.md ("Live"), exact in ms.

As in tests/test_turns_schedule.py: a fake writer plays clips at exact samples
(sample S leaves at S / 16 000 s), a scripted model speaks at fixed times
(heard in 20 ms frames), the VAD margin is 0. Every clip is 1000 ms long; the
first starts at 500 ms (the lead-in). A fake camera records where each clip's
video was placed.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from support.virtual_room import FakeRoom, ScriptedModel, run_virtual  # type: ignore[import-not-found]

from floorbench.records import EventKind
from floorbench.suites.av.rules import CATEGORY, Dynamic
from floorbench.suites.av.schedule import AvSchedule, AvScheduleConfig
from floorbench.suites.av.schema import AvScenario

SR = 16000
EXACT = AvScheduleConfig(vad_margin_ms=0)


class FakeCamera:
    def __init__(self) -> None:
        self.placed: list[tuple[str, int, int | None]] = []

    def schedule(self, video: Path, at: int, clip_id: int | None, label: str = "") -> object:
        self.placed.append((video.name, at, clip_id))
        return None


class AvRoom(FakeRoom):
    def __init__(self, model: ScriptedModel) -> None:
        super().__init__(model, SR)
        self.video = FakeCamera()


def scenario(dynamic: Dynamic, clips: list[dict[str, Any]], event: dict[str, Any]) -> AvScenario:
    return AvScenario.model_validate(
        {
            "scenario_id": "v",
            "source": "synthetic",
            "system_prompt": "be brief",
            "speakers": {"U": {"name": "U", "voice": "piper:joe"}},
            "clips": [
                {"id": i, "audio": f"audio/{i}.wav", "video": f"video/{i}.mp4"} | c
                for i, c in enumerate(clips, 1)
            ],
            "event": {"dynamic": str(dynamic), "category": str(CATEGORY[dynamic]), "description": "d"}
            | event,
        }
    )


def play(
    s: AvScenario, speech: list[tuple[int, int | None]] | None = None, cfg: AvScheduleConfig = EXACT
) -> AvRoom:
    audio = {c.id: np.zeros(SR, dtype=np.int16) for c in s.clips}
    video = {c.id: Path(c.video) for c in s.clips}
    room = AvRoom(ScriptedModel(speech or []))
    t0 = time.perf_counter()
    run_virtual(AvSchedule(s, audio, video, SR, cfg).run(room))
    assert time.perf_counter() - t0 < 0.5, "a virtual-clock schedule must run in well under a second"
    return room


def waits(room: FakeRoom, reason: str) -> list[dict[str, Any]]:
    return [w for w in room.waits() if w["reason"] == reason]


def during(offset_ms: int = 2000) -> AvScenario:
    return scenario(
        Dynamic.raised_hand,
        [{"text": "tell me about it", "reply": "a long reply"}, {"offset_ms": offset_ms}],
        {"clip": 2, "start_ms": 0, "end_ms": 1500},
    )


def test_one_clip_plays_after_the_lead_in_with_its_video_on_the_same_sample() -> None:
    s = scenario(
        Dynamic.thinking_pause, [{"text": "so I was, hmm"}], {"clip": 1, "start_ms": 200, "end_ms": 900}
    )
    room = play(s)
    assert room.starts() == {1: 500}
    assert room.video.placed == [("1.mp4", 8000, 1)]
    (ev,) = waits(room, "event_window")
    assert (ev["turn_id"], ev["window_start_ms"], ev["window_end_ms"]) == (1, 700, 1400)
    assert (ev["planned_window_start_ms"], ev["planned_window_end_ms"]) == (700, 1400)
    assert (ev["dynamic"], ev["category"]) == ("thinking_pause", "stay_silent")
    # the room stays open tail_ms past the later of the clip's end (1500) and the window's end
    assert room.end_ms() == 1500 + 3000


def test_a_cue_during_the_models_speech_starts_offset_ms_after_its_onset_as_heard() -> None:
    room = play(during(2000), [(1800, 9000)])  # clip 1 ends at 1500; the model speaks 1800–9000
    assert room.starts() == {1: 500, 2: 1800 + 2000}
    assert room.video.placed == [("1.mp4", 8000, 1), ("2.mp4", 3800 * 16, 2)]
    start2 = next(f for k, f in room.events if k is EventKind.turn_start and f["turn_id"] == 2)
    assert (start2["reason"], start2["onset_ms"], start2["offset_ms"], start2["planned_ms"]) == (
        "timed",
        1800,
        2000,
        3800,
    )
    (ev,) = waits(room, "event_window")
    assert (ev["window_start_ms"], ev["window_end_ms"], ev["planned_window_start_ms"]) == (3800, 5300, 3800)
    assert waits(room, "onset")[0]["onset_ms"] == 1800


def test_already_speaking_at_the_request_end_times_the_cue_from_that_end() -> None:
    room = play(during(1000), [(1200, 6000)])  # the model starts before clip 1 is over
    assert waits(room, "already_speaking")[0]["onset_ms"] == 1500
    assert room.starts()[2] == 1500 + 1000


def test_a_cue_against_a_model_that_never_speaks_is_not_run_with_its_reason() -> None:
    room = play(during(), [])
    assert 2 not in room.starts()
    assert [p[2] for p in room.video.placed] == [1]
    (nr,) = waits(room, "not_run")
    assert nr["turn_id"] == 2 and "did not start speaking within 8000 ms" in nr["why"]
    assert (nr["from_ms"], nr["until_ms"]) == (1500, 1500 + 8000)
    assert not waits(room, "event_window")
    assert waits(room, "event_not_run")[0]["turn_id"] == 2


def test_an_onset_after_the_wait_does_not_count() -> None:
    room = play(during(), [(1500 + 8020, 20000)])
    assert 2 not in room.starts() and waits(room, "not_run")


def test_the_tail_waits_for_the_model_to_stop_after_the_window() -> None:
    s = scenario(
        Dynamic.handoff_gaze,
        [{"text": "what do you think?", "reply": "yes"}],
        {"clip": 1, "start_ms": 800, "end_ms": 3800},
    )
    room = play(s, [(2000, 7000)])
    # window ends at 500 + 3800 = 4300; tail_ms to 7300; the model stopped at 7000: 1500 ms endpoint
    assert waits(room, "tail_endpoint")
    assert room.end_ms() >= 7000 + 1500


def test_the_tail_is_capped_when_the_model_never_stops() -> None:
    s = scenario(
        Dynamic.handoff_gaze,
        [{"text": "what do you think?", "reply": "yes"}],
        {"clip": 1, "start_ms": 800, "end_ms": 3800},
    )
    room = play(s, [(2000, None)], AvScheduleConfig(vad_margin_ms=0, response_cap_ms=10000))
    assert waits(room, "tail_cap")
    assert room.end_ms() == 4300 + 10000


def test_an_untimed_clip_after_another_waits_for_the_models_reply_to_end() -> None:
    s = scenario(
        Dynamic.open_palm,
        [{"text": "first part"}, {"text": "your turn", "reply": "ok"}],
        {"clip": 2, "start_ms": 500, "end_ms": 1000},
    )
    room = play(s, [(1700, 3000)])  # a reply to clip 1: 1700–3000; endpoint 1500 ms of silence, then the gap
    assert waits(room, "endpoint")[0]["turn_id"] == 2
    assert room.starts()[2] == 3000 + 1500 + 500
    quiet = play(s, [])
    assert quiet.starts()[2] == 1500 + 500
