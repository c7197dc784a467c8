"""`floorbench score` on an av run folder: real speech in model.wav, real VAD and ASR, the files written.

The run is built by hand the way the live runner leaves it (meta.json with
the model track's start on the session clock, timeline.jsonl with the clips'
starts and the event window's actual session times, turns.json with the clips
as heard), so every number below follows from where the speech was put.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf
from typer.testing import CliRunner

from floorbench.cli import app

TURNS_AUDIO = Path(__file__).parent / "fixtures" / "suites" / "turns-tiny" / "audio"
SPEECH = "5bd1c707dabbc4c38056.flac"
"""'Tell me a story about a dragon.' — 1.92 s, used as the model's voice"""
T0 = 50_000
"""session ms of model.wav's first sample"""
HEARD_LAG = 40
"""the recorder heard every user clip this much later than it left the playback"""


def _speech() -> np.ndarray:
    x, sr = sf.read(str(TURNS_AUDIO / SPEECH), dtype="int16")
    assert sr == 16000
    return x


def _meta(sid: str, dynamic: str, **extra: Any) -> dict[str, Any]:
    return {
        "floorbench_version": "test",
        "scenario_id": sid,
        "pair_id": sid,
        "condition": dynamic,
        "suite": "av-tiny",
        "schedule": {"policy": "av"},
        "room": "r",
        "created_wall_ns": 0,
        "anchor": {"monotonic_ns": 0, "wall_ns": 0},
        "outcome": "completed",
        "tracks": {
            "model": {
                "name": "model",
                "participant": "model",
                "file": "model.wav",
                "sample_rate": 16000,
                "samples": 14 * 16000,  # model.wav as `scenario` writes it (meta.json and the file agree)
                "start_ms": T0,
                "start_ns": T0 * 1_000_000,
                "fit_residual_p50_us": 0,
                "fit_residual_p99_us": 0,
            }
        },
        **extra,
    }


def scenario(
    root: Path,
    sid: str,
    dynamic: str,
    category: str,
    window: tuple[int, int],
    speech_at: list[int],
    *,
    clip_start: int = 1000,
    not_run: bool = False,
    meta: dict[str, Any] | None = None,
) -> Path:
    """One av scenario folder: the event clip (id 1) starts `clip_start` ms into model.wav."""
    d = root / sid
    d.mkdir(parents=True)
    model = np.zeros(14 * 16000, dtype=np.int16)
    sp = _speech()
    for at in speech_at:
        model[at * 16 : at * 16 + len(sp)] = sp
    sf.write(str(d / "model.wav"), model, 16000)
    (d / "meta.json").write_text(json.dumps(meta or _meta(sid, dynamic)))
    turns = {
        "scenario_id": sid,
        "pair_id": sid,
        "condition": dynamic,
        "model_wav_end_ms": 14000,
        "turns": [
            {
                "turn_id": 1,
                "speaker": "U",
                "label": "av",
                "start_ms": clip_start + HEARD_LAG,
                "end_ms": clip_start + HEARD_LAG + 6000,
                "text": "so what do you think?",
            }
        ],
    }
    (d / "turns.json").write_text(json.dumps(turns))
    (d / "timeline.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in _timeline(clip_start, window, dynamic, category, not_run))
    )
    return d


def _timeline(
    clip_start: int, window: tuple[int, int], dynamic: str, category: str, not_run: bool
) -> list[dict[str, Any]]:
    """The playback's lines as the av live schedule writes them (schedules_av)."""
    at = T0 + clip_start
    if not_run:
        return [
            {
                "t_ms": at,
                "kind": "wait",
                "source": "playback",
                "turn_id": 1,
                "reason": "not_run",
                "why": "the model did not start speaking",
            }
        ]
    start = {"t_ms": at, "kind": "turn_start", "source": "playback", "turn_id": 1, "sample": 0, "label": "av"}
    event = {
        "t_ms": at,
        "kind": "wait",
        "source": "playback",
        "turn_id": 1,
        "reason": "event_window",
        "dynamic": dynamic,
        "category": category,
        "window_start_ms": at + window[0],
        "window_end_ms": at + window[1],
        "clip_start_ms": at,
        "planned_clip_start_ms": at - 3,
    }
    return [start, event]


def _suite(root: Path) -> Path:
    """A suite folder holding h1's scenario file (JSON is YAML): the event's description and the words."""
    suite = root / "suite"
    (suite / "scenarios").mkdir(parents=True)
    words = [{"word": "so", "start_ms": 0, "end_ms": 300}, {"word": "what?", "start_ms": 300, "end_ms": 900}]
    event = {
        "clip": 1,
        "dynamic": "handoff_gaze",
        "category": "smooth_handoff",
        "start_ms": 3000,
        "end_ms": 6000,
        "description": "the user looks straight at the camera, waiting",
    }
    (suite / "suite.yaml").write_text("name: av-tiny\nsuite: av\n")
    (suite / "scenarios" / "h1.yaml").write_text(
        json.dumps({"clips": [{"id": 1, "words": words}], "event": event})
    )
    return suite


def build_run(root: Path) -> Path:
    run = root / "run"
    # window on model.wav: [1000 + 40 + 3000, 1000 + 40 + 6000] = [4040, 7040]
    scenario(run, "h1", "handoff_gaze", "smooth_handoff", (3000, 6000), [4540])  # answers 500 ms in
    scenario(run, "s1", "thinking_pause", "stay_silent", (3000, 6000), [])  # keeps quiet
    scenario(run, "s2", "gaze_aversion", "stay_silent", (3000, 6000), [4600])  # talks into the pause
    scenario(run, "k1", "nod", "keep_talking", (3000, 6000), [], not_run=True)  # the cue never played
    failed = _meta(
        "y1",
        "raised_hand",
        outcome="failed",
        failure_kind="model_never_joined",
        failure_reason="the model never joined the room",
    )
    scenario(run, "y1", "raised_hand", "must_yield", (3000, 6000), [], meta=failed)
    info = {
        "model": {"name": "tester"},
        "suite_path": str(_suite(root)),
        "scenarios": [{"scenario_id": "b9", "outcome": "not_run"}],
    }
    (run / "run.json").write_text(json.dumps(info))
    return run


def test_score_detects_av_and_scores_each_clip_by_the_rules(tmp_path: Path) -> None:
    run = build_run(tmp_path)
    res = CliRunner().invoke(
        app, ["score", str(run), "--out", str(tmp_path / "out"), "--resamples", "200", "--workers", "1"]
    )
    assert res.exit_code == 0, res.output
    assert "scored 3 av clips, 3 unscorable" in res.output
    s = json.loads((tmp_path / "out" / "av_scores.json").read_text())
    clips = {c["scenario_id"]: c for c in s["clips"]}
    assert clips["h1"]["window_ms"] == [4040, 7040] and clips["h1"]["window_basis"] == "heard"
    assert (clips["h1"]["takeover"], clips["h1"]["aligned"]) == (1, True)
    assert (
        clips["h1"]["description"] == "the user looks straight at the camera, waiting"
    )  # from the scenario file
    assert clips["h1"]["user_words"][1] == {
        "word": "what?",
        "start_ms": 1340,
        "end_ms": 1940,
    }  # clip as heard
    assert (
        400 <= clips["h1"]["latency_ms"] <= 700
    )  # the voice starts 500 ms in, to a VAD window and the lead-in
    assert len(clips["h1"]["transcript"]["inside"].split()) >= 4  # ASR heard the sentence in the window
    assert (clips["s1"]["takeover"], clips["s1"]["aligned"]) == (0, True)
    assert (clips["s2"]["takeover"], clips["s2"]["aligned"]) == (1, False)
    reasons = {u["scenario_id"]: u["reason"] for u in s["unscorable"]}
    assert reasons["k1"].startswith("cue_not_played")
    assert reasons["y1"].startswith("model_never_connected")
    assert reasons["b9"].startswith("not_run")
    tor = s["tor_alignment"]
    assert (tor["overall"]["aligned"], tor["overall"]["n"]) == (2, 3)
    assert tor["stay_silent"]["tor_alignment"] == 0.5 and tor["smooth_handoff"]["tor_alignment"] == 1.0
    assert tor["keep_talking"]["n"] == 0 and tor["must_yield"]["n"] == 0  # unscorable never counts
    lo, hi = tor["overall"]["ci"]
    assert 0.0 <= lo <= 2 / 3 <= hi <= 1.0
    assert s["rubric"]["judged"] is False and "not judged" in s["rubric"]["reason"]
    assert s["latency_ms"]["smooth_handoff"]["n"] == 1
    md = (tmp_path / "out" / "av_report.md").read_text()
    assert "| stay_silent | 0 | 0.50" in md and "cue_not_played" in md


def test_nothing_scorable_is_one_error_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    scenario(run, "k1", "nod", "keep_talking", (3000, 6000), [], not_run=True)
    res = CliRunner().invoke(app, ["score", str(run), "--out", str(tmp_path / "out"), "--workers", "1"])
    assert res.exit_code == 2, res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("error: ") and "no av clip could be scored (1 unscorable" in last


def test_exclude_degraded_lists_the_clip_as_unscorable(tmp_path: Path) -> None:
    run = tmp_path / "run"
    scenario(run, "s1", "thinking_pause", "stay_silent", (3000, 6000), [])
    timing = {"verdict": "degraded", "reasons": ["underruns 2 > 0"]}
    scenario(
        run,
        "s2",
        "thinking_pause",
        "stay_silent",
        (3000, 6000),
        [],
        meta=_meta("s2", "thinking_pause", timing=timing),
    )
    res = CliRunner().invoke(
        app,
        [
            "score",
            str(run),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "1",
            "--exclude-degraded",
            "--resamples",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    s = json.loads((tmp_path / "out" / "av_scores.json").read_text())
    assert [u["scenario_id"] for u in s["unscorable"]] == ["s2"]
    assert s["unscorable"][0]["reason"].startswith("timing_degraded: underruns")
    assert s["tor_alignment"]["overall"]["n"] == 1 and s["tor_alignment"]["overall"]["ci"] == [None, None]
    assert s["scenarios"]["timing_degraded"] == 0  # the degraded one was left out before scoring


def test_a_run_where_the_model_never_connected_is_still_an_av_run(tmp_path: Path) -> None:
    """No turns.json anywhere: the suite is known from the suite the run played (run.json suite_path)."""
    run = tmp_path / "run"
    failed = _meta(
        "y1",
        "raised_hand",
        outcome="failed",
        failure_kind="model_never_joined",
        failure_reason="the model never joined the room",
        schedule={},
    )
    d = run / "y1"
    d.mkdir(parents=True)
    (d / "meta.json").write_text(json.dumps(failed))
    (run / "run.json").write_text(json.dumps({"suite_path": str(_suite(tmp_path))}))
    res = CliRunner().invoke(app, ["score", str(run), "--out", str(tmp_path / "out"), "--workers", "1"])
    assert res.exit_code == 2, res.output
    assert "no av clip could be scored (1 unscorable" in res.output.strip().splitlines()[-1]
    s = json.loads((tmp_path / "out" / "av_scores.json").read_text())
    assert s["unscorable"][0]["reason"] == "model_never_connected: the model never joined the room"
