"""Suite av's scenario schema and validator: each rule gives one line naming the file and the fix.

Every case starts from a copy of the fixture suite (tests/fixtures/suites/av-tiny),
breaks one thing, and checks the message; the untouched copy loads.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
import yaml

from floorbench.scenarios.validate import ScenarioError, load_suite
from floorbench.suites.av.rules import CATEGORY, Dynamic
from floorbench.suites.av.schema import AvScenario

FIXTURE = Path(__file__).parent / "fixtures" / "suites" / "av-tiny"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "av"
    shutil.copytree(FIXTURE, root)
    return root


def _edit(root: Path, dynamic: str, change: Callable[[dict[str, Any]], None]) -> Path:
    path = next(
        p
        for p in (root / "scenarios").glob("*.yaml")
        if yaml.safe_load(p.read_text())["event"]["dynamic"] == dynamic
    )
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _error(root: Path, audio: bool = True) -> str:
    with pytest.raises(ScenarioError) as e:
        load_suite(root, audio=audio)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_the_fixture_loads_with_its_runner_names() -> None:
    loaded = load_suite(FIXTURE)
    assert len(loaded.scenarios) == 5
    for s in loaded.scenarios:
        assert isinstance(s, AvScenario)
        assert s.condition == s.event.dynamic and s.scenario_id == s.id
        assert s.run_fields == {"pair_id": s.scenario_id, "condition": s.event.dynamic}
        assert s.turns is s.clips and all(c.label == "av" and c.gold is None for c in s.turns)
        assert s.event.category == CATEGORY[Dynamic(s.event.dynamic)].value


def test_unknown_dynamic_lists_the_known_ones(suite: Path) -> None:
    _edit(suite, "nod", lambda d: d["event"].update(dynamic="wave"))
    msg = _error(suite, audio=False)
    assert (
        "av002-nod" in msg
        and "unknown dynamic 'wave'" in msg
        and "head_shake" in msg
        and "fix 'dynamic'" in msg
    )


def test_category_must_be_the_dynamics(suite: Path) -> None:
    _edit(suite, "nod", lambda d: d["event"].update(category="must_yield"))
    assert "dynamic nod is keep_talking; set category: keep_talking" in _error(suite, audio=False)


@pytest.mark.parametrize(
    ("start", "end", "expect"),
    [
        (1000, 1200, "200 ms long; make it 500–10000 ms"),
        (0, 12000, "12000 ms long; make it 500–10000 ms"),
        (-100, 900, "needs 0 ≤ start_ms < end_ms"),
        (900, 900, "needs 0 ≤ start_ms < end_ms"),
    ],
)
def test_window_length_and_order(suite: Path, start: int, end: int, expect: str) -> None:
    _edit(suite, "thinking_pause", lambda d: d["event"].update(start_ms=start, end_ms=end))
    assert expect in _error(suite, audio=False)


def test_window_outside_its_clip(suite: Path) -> None:
    _edit(suite, "thinking_pause", lambda d: d["event"].update(start_ms=5000, end_ms=9000))
    assert "after clip 1 ends" in _error(suite) and "move the window inside the clip" in _error(suite)


def test_synthetic_handoff_window_may_run_past_the_clip_but_an_imported_one_may_not(suite: Path) -> None:
    load_suite(suite)  # the fixture's handoff window already runs 1.5 s past its clip
    _edit(suite, "handoff_gaze", lambda d: d.update(source="import"))
    assert "after clip 1 ends" in _error(suite)


def test_offset_only_for_cues_during_the_models_speech(suite: Path) -> None:
    _edit(suite, "thinking_pause", lambda d: d["clips"][0].update(offset_ms=1500))
    msg = _error(suite, audio=False)
    assert (
        "offset_ms on a thinking_pause scenario" in msg and "remove offset_ms" in msg and "raised_hand" in msg
    )


def test_a_cue_during_speech_needs_its_offset_and_a_reply_before_it(suite: Path) -> None:
    path = _edit(suite, "nod", lambda d: d["clips"][1].pop("offset_ms"))
    assert "a nod cue needs offset_ms" in _error(suite, audio=False)
    shutil.copy(FIXTURE / "scenarios" / path.name, path)
    _edit(suite, "nod", lambda d: d["clips"][0].pop("reply"))
    assert "clip 1: no reply" in _error(suite, audio=False)
    shutil.copy(FIXTURE / "scenarios" / path.name, path)
    _edit(suite, "nod", lambda d: d["clips"][1].update(offset_ms=20000))
    assert "offset_ms=20000; use 500–10000 ms" in _error(suite, audio=False)


def test_missing_audio_and_video_files(suite: Path) -> None:
    path = _edit(suite, "nod", lambda d: d["clips"][0].update(audio="audio/gone.flac"))
    assert "clip 1: audio file audio/gone.flac is missing" in _error(suite)
    shutil.copy(FIXTURE / "scenarios" / path.name, path)
    _edit(suite, "nod", lambda d: d["clips"][1].update(video="video/gone.mp4"))
    assert "clip 2: video file video/gone.mp4 is missing; regenerate the suite" in _error(suite)


def test_video_fps_and_size_must_be_the_scenarios(suite: Path) -> None:
    path = _edit(suite, "nod", lambda d: d.update(fps=30))
    assert "is 15.000 fps, the scenario says 30; re-encode it at 30 fps or set fps" in _error(suite)
    shutil.copy(FIXTURE / "scenarios" / path.name, path)
    _edit(suite, "nod", lambda d: d.update(size=[640, 480]))
    assert "is 320x240, the scenario says 640x480" in _error(suite)
    _edit(suite, "nod", lambda d: d.update(size=[641, 480]))
    assert "both positive and even" in _error(suite, audio=False)


def test_audio_and_video_must_agree_within_one_frame(suite: Path) -> None:
    def swap(d: dict[str, Any]) -> None:
        d["clips"][0]["audio"] = d["clips"][1][
            "audio"
        ]  # the cue clip's audio is longer than the request's video

    _edit(suite, "nod", swap)
    msg = _error(suite)
    assert "clip 1: audio" in msg and "must agree within one frame (67 ms)" in msg


def test_sample_rate_and_channels(suite: Path) -> None:
    sf.write(suite / "audio" / "slow.wav", np.zeros(8000 * 2, dtype=np.int16), 8000)
    sf.write(suite / "audio" / "stereo.wav", np.zeros((16000, 2), dtype=np.int16), 16000)
    path = _edit(suite, "nod", lambda d: d["clips"][0].update(audio="audio/slow.wav"))
    assert "audio/slow.wav is 8000 Hz; use 16000, 24000 or 48000 Hz" in _error(suite)
    shutil.copy(FIXTURE / "scenarios" / path.name, path)
    _edit(suite, "nod", lambda d: d["clips"][0].update(audio="audio/stereo.wav"))
    assert "has 2 channels; the user's audio is mono" in _error(suite)


def test_unknown_field_and_bad_clip_ids_are_one_line(suite: Path) -> None:
    path = _edit(suite, "nod", lambda d: d["event"].update(colour="red"))
    assert "unknown field 'event.colour'" in _error(suite, audio=False)
    shutil.copy(FIXTURE / "scenarios" / path.name, path)
    _edit(suite, "nod", lambda d: d["clips"][1].update(id=3))
    assert "clip ids must be 1, 2, 3, … in order" in _error(suite, audio=False)


def test_paths_must_stay_inside_the_suite(suite: Path) -> None:
    _edit(suite, "nod", lambda d: d["clips"][1].update(video="../elsewhere.mp4"))
    assert "must be relative to the suite folder, without '..'" in _error(suite, audio=False)


def test_suite_info_checks_both_manifests(suite: Path) -> None:
    from floorbench.scenarios.info import suite_info

    assert suite_info(FIXTURE).audio_problems == []
    video = suite / "video" / "idle.mp4"
    video.write_bytes(video.read_bytes() + b"\0")
    problems = suite_info(suite).audio_problems
    assert (
        len(problems) == 1
        and "idle.mp4: missing or its SHA-256 differs from video/manifest.json" in problems[0]
    )
