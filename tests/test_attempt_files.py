"""A killed attempt's files stay that attempt's; the next starts empty; a folder whose files disagree is refused.

A runner killed by SIGKILL mid-scenario (the OOM killer, a reboot) leaves part
files, frame logs and an `in_progress` meta.json. Resuming on the same --out
must keep them as that attempt's (``attempt-N/``, recovered), start the next
attempt from empty files, and `score` must refuse a scenario whose WAVs,
frame logs, turns.json and meta.json do not agree (they did: an attempt glued
after the dead one's audio was scored).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from floorbench.audio.consistency import recording_disagreement
from floorbench.audio.files import PcmAppender, fix_wav_header, recover_folder
from floorbench.pipelines.run import resume
from floorbench.records import (
    ClockAnchor,
    DialogueTurn,
    DialogueTurns,
    Outcome,
    RunMeta,
    TrackInfo,
    write_json_atomic,
)
from floorbench.scoring.inputs import InconsistentRecording, check_recording, discover

RATE = 16000


def _meta(sid: str, outcome: Outcome, tracks: dict[str, TrackInfo] | None = None) -> RunMeta:
    return RunMeta(
        floorbench_version="0", scenario_id=sid, pair_id="p", condition="explicit", suite="tiny", room="r",
        created_wall_ns=0, anchor=ClockAnchor(monotonic_ns=0, wall_ns=0), outcome=outcome, tracks=tracks or {},
    )


def _track(name: str, samples: int, rate: int = RATE) -> TrackInfo:
    return TrackInfo(
        name=name, participant=name, file=f"{name}.wav", sample_rate=rate, samples=samples, start_ms=0,
        start_ns=0, fit_residual_p50_us=0, fit_residual_p99_us=0,
    )


def _frames(folder: Path, name: str, samples: int, frame: int = 160, t0_ns: int = 0) -> str:
    lines = [f"{n}\t{t0_ns + n * 62_500}" for n in range(frame, samples + 1, frame)]
    (folder / "tracks").mkdir(exist_ok=True)
    text = "".join(line + "\n" for line in lines)
    with (folder / "tracks" / f"{name}.frames.tsv").open("a") as f:
        f.write(text)
    return text


def _killed_attempt(folder: Path, samples: int) -> dict[str, bytes]:
    """What a SIGKILLed runner leaves mid-scenario: part files, frame logs, an unfinished WAV, in_progress."""
    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / "meta.json", _meta(folder.name, Outcome.in_progress))
    (folder / "timeline.jsonl").write_text('{"t_ms": 0, "kind": "session_start"}\n')
    parts: dict[str, bytes] = {}
    for name in ("model", "humans", "humans.sent"):
        a = PcmAppender(folder / f"{name}.wav", RATE)
        a.write(np.full(samples, 3, dtype=np.int16))
        a._f.flush()  # killed: never finalised
        parts[name] = (folder / f"{name}.part.pcm").read_bytes()
        if name != "humans.sent":
            _frames(folder, name, samples)
    (folder / "model.log").write_text("model stderr of the dead attempt\n")
    (folder / "model.pid").write_text("12345")
    return parts


def _unfinalised_wav(path: Path, samples: int, declared: int) -> None:
    """A 16-bit mono WAV whose header sizes were never updated (a writer killed before it closed the file)."""
    data = np.arange(samples, dtype=np.int16).tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, RATE, RATE * 2, 2, 16)
    path.write_bytes(
        b"RIFF" + struct.pack("<I", 0) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
        + b"data" + struct.pack("<I", declared) + data
    )


# -- the resume preparation ------------------------------------------------------------


def test_a_killed_attempts_files_move_to_its_attempt_folder_recovered(tmp_path: Path) -> None:
    d = tmp_path / "s"
    parts = _killed_attempt(d, samples=22 * RATE // 10)
    _unfinalised_wav(d / "device.wav", 800, declared=0)
    (d / "dispatch.json").write_text("{}")  # the runner's dispatch state stays where it is
    assert resume.archive_attempt(d) == 2
    assert sorted(p.name for p in d.iterdir()) == [
        "attempt-1", "dispatch.json", "meta.attempt-1.json", "timeline.attempt-1.jsonl",
    ]
    kept = d / "attempt-1"
    for name, pcm in parts.items():  # every part file became its WAV, sample for sample
        data, sr = sf.read(str(kept / f"{name}.wav"), dtype="int16")
        assert sr == RATE and data.tobytes() == pcm
    assert not list(kept.glob("*.part.*"))
    assert sf.info(str(kept / "device.wav")).frames == 800  # its header fixed from the data length
    assert (kept / "tracks" / "model.frames.tsv").is_file() and (kept / "model.log").is_file()
    assert RunMeta.model_validate_json((d / "meta.attempt-1.json").read_text()).outcome == Outcome.in_progress
    # a second kill: attempt 2's files go to attempt-2/, attempt 1's stay as they are
    _killed_attempt(d, samples=RATE)
    assert resume.archive_attempt(d) == 3
    assert sf.info(str(d / "attempt-2" / "model.wav")).frames == RATE
    assert sf.info(str(kept / "model.wav")).frames == 22 * RATE // 10


def test_the_next_attempt_starts_from_empty_files(tmp_path: Path) -> None:
    """Even where a dead attempt's part file and frame log are still there, a new writer never appends to them."""
    from floorbench.pipelines.room.recorder import TrackRecording

    d = tmp_path / "s"
    _killed_attempt(d, samples=RATE)
    rec = TrackRecording("model", "model", RATE, d)
    rec.add(np.ones(160, dtype=np.int16), 10)
    rec._frames_f.flush()
    rec.appender._f.flush()
    assert (d / "model.part.pcm").stat().st_size == 320
    assert (d / "tracks" / "model.frames.tsv").read_text() == "160\t10\n"


def test_a_finished_attempt_moves_too(tmp_path: Path) -> None:
    """A retried attempt that ended (failed) leaves WAVs and frame logs: they are its, not the next one's."""
    d = tmp_path / "s"
    d.mkdir()
    write_json_atomic(d / "meta.json", _meta("s", Outcome.failed, {"model": _track("model", 1600)}))
    sf.write(str(d / "model.wav"), np.zeros(1600, dtype=np.int16), RATE)
    _frames(d, "model", 1600)
    assert resume.archive_attempt(d) == 2
    assert sorted(p.name for p in d.iterdir()) == ["attempt-1", "meta.attempt-1.json"]
    assert recording_disagreement(d / "attempt-1", _meta("s", Outcome.failed, {"model": _track("model", 1600)})) is None


def test_leftovers_without_a_meta_json_are_kept_under_their_own_number(tmp_path: Path) -> None:
    d = tmp_path / "s"
    d.mkdir()
    (d / "model.part.pcm").write_bytes(b"\0\0" * 10)
    (d / "model.part.json").write_text(json.dumps({"sample_rate": RATE}))
    assert resume.archive_attempt(d) == 2
    assert sf.info(str(d / "attempt-1" / "model.wav")).frames == 10
    assert resume.archive_attempt(d) == 2  # nothing left to keep


def test_unfinalised_wav_headers_are_fixed_and_finished_ones_left_alone(tmp_path: Path) -> None:
    for declared in (0, 0xFFFFFFFF, 999_999):
        p = tmp_path / f"x{declared}.wav"
        _unfinalised_wav(p, 1000, declared)
        assert fix_wav_header(p)
        data, _ = sf.read(str(p), dtype="int16")
        assert len(data) == 1000 and data[999] == 999
        assert not fix_wav_header(p)  # now it agrees with the file
    good = tmp_path / "good.wav"
    sf.write(str(good), np.zeros(500, dtype=np.int16), RATE)
    before = good.read_bytes()
    assert not fix_wav_header(good) and good.read_bytes() == before
    odd = tmp_path / "odd.wav"  # a WAV cut mid-sample keeps its whole samples
    _unfinalised_wav(odd, 300, 0)
    odd.write_bytes(odd.read_bytes() + b"\x01")
    assert fix_wav_header(odd) and sf.info(str(odd)).frames == 300
    part_without_rate = tmp_path / "old.part.pcm"
    part_without_rate.write_bytes(b"\0\0")
    notes = recover_folder(tmp_path)
    assert part_without_rate.exists() and any("old.part.json" in n for n in notes)  # kept, and said


# -- the consistency check ------------------------------------------------------------


def _completed(folder: Path, model_samples: int = 32000, humans_samples: int = 32000) -> RunMeta:
    """A completed scenario whose files agree with its meta.json."""
    folder.mkdir(parents=True)
    tracks = {"model": _track("model", model_samples), "humans": _track("humans", humans_samples)}
    meta = _meta(folder.name, Outcome.completed, tracks)
    write_json_atomic(folder / "meta.json", meta)
    for name, info in tracks.items():
        sf.write(str(folder / info.file), np.zeros(info.samples, dtype=np.int16), RATE)
        _frames(folder, name, info.samples)
    end_ms = model_samples * 1000 // RATE
    turns = DialogueTurns(
        scenario_id=folder.name, pair_id="p", condition="explicit", model_wav_end_ms=end_ms,
        turns=[DialogueTurn(turn_id=1, speaker="A", label="T", start_ms=100, end_ms=900, gold="x")],
    )
    write_json_atomic(folder / "turns.json", turns)
    return meta


def _turns(folder: Path) -> DialogueTurns:
    return DialogueTurns.model_validate_json((folder / "turns.json").read_text())


def test_agreeing_files_pass(tmp_path: Path) -> None:
    meta = _completed(tmp_path / "s")
    assert recording_disagreement(tmp_path / "s", meta, _turns(tmp_path / "s")) is None
    assert resume.why_not_intact(tmp_path / "s") is None


def test_a_resumed_attempt_glued_after_a_dead_one_is_refused(tmp_path: Path) -> None:
    """As found: model.wav held the dead attempt's audio and the new one's, meta.json counted the new one's only,
    and frames.tsv's counter restarted mid-file."""
    d = tmp_path / "s"
    meta = _completed(d, model_samples=32000)
    sf.write(str(d / "model.wav"), np.zeros(32000 + 22 * RATE // 10, dtype=np.int16), RATE)
    assert recording_disagreement(d, meta) == "model.wav holds 67200 samples, meta.json says 32000"
    assert resume.why_not_intact(d) == "records disagree: model.wav holds 67200 samples, meta.json says 32000"
    sf.write(str(d / "model.wav"), np.zeros(32000, dtype=np.int16), RATE)
    (d / "tracks" / "model.frames.tsv").unlink()
    _frames(d, "model", 16000)
    _frames(d, "model", 32000)
    why = recording_disagreement(d, meta)
    assert why is not None and why.startswith("tracks/model.frames.tsv: the sample counter does not rise at line 101")


@pytest.mark.parametrize(
    ("edit", "phrase"),
    [
        (lambda d: sf.write(str(d / "humans.wav"), np.zeros(32000, dtype=np.int16), 24000),
         "humans.wav is 24000 Hz, meta.json says 16000 Hz"),
        (lambda d: (d / "humans.wav").unlink(), "meta.json lists humans.wav (32000 samples) but it is missing"),
        (lambda d: (d / "tracks" / "humans.frames.tsv").write_text("160\t1\n320\t2\n"),
         "tracks/humans.frames.tsv counts 320 samples in 2 frames, meta.json says 32000"),
        (lambda d: (d / "tracks" / "humans.frames.tsv").write_text("160\t5\n320\t2\n"),
         "tracks/humans.frames.tsv: the arrival time goes back at line 2 (the log holds more than one attempt?)"),
        (lambda d: (d / "tracks" / "humans.frames.tsv").write_text("160\t5\n32"),
         "tracks/humans.frames.tsv has a torn or malformed line"),
        (lambda d: _edit_turns(d, model_wav_end_ms=2500),
         "turns.json says model.wav ends at 2500 ms, meta.json's model track at 2000 ms"),
        (lambda d: _edit_turns(d, shift_ms=22_000),
         "turns.json turn 1 (22100–22900 ms) lies outside model.wav (0–2000 ms)"),
    ],
)
def test_every_disagreement_is_named(tmp_path: Path, edit: object, phrase: str) -> None:
    d = tmp_path / "s"
    meta = _completed(d)
    edit(d)  # type: ignore[operator]
    assert recording_disagreement(d, meta, _turns(d)) == phrase


def _edit_turns(d: Path, model_wav_end_ms: int | None = None, shift_ms: int = 0) -> None:
    t = _turns(d)
    if model_wav_end_ms is not None:
        t.model_wav_end_ms = model_wav_end_ms
    for turn in t.turns:
        turn.start_ms += shift_ms
        turn.end_ms += shift_ms
    write_json_atomic(d / "turns.json", t)


def test_score_refuses_an_inconsistent_scenario_in_one_line_naming_folder_and_fix(tmp_path: Path) -> None:
    from floorbench.cli import app

    run = tmp_path / "run"
    _completed(run / "a")
    meta = _completed(run / "b")
    write_json_atomic(run / "run.json", {"suite": "tiny", "scenarios": []})
    sf.write(str(run / "b" / "model.wav"), np.zeros(50000, dtype=np.int16), RATE)
    with pytest.raises(InconsistentRecording) as err:
        discover(run)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{run / 'b'}: model.wav holds 50000 samples, meta.json says 32000; ")
    assert "run the same `floorbench run` command on this --out again" in msg
    with pytest.raises(InconsistentRecording):
        check_recording(run / "b", meta)
    res = CliRunner().invoke(app, ["score", str(run), "--workers", "1", "--resamples", "0", "--quiet"])
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {msg}"
    assert not (run / "scores.json").exists()


def test_report_refuses_a_scored_run_whose_scenario_no_longer_agrees(tmp_path: Path) -> None:
    from floorbench.cli import app

    run = tmp_path / "run"
    _completed(run / "a")
    _completed(run / "b")
    write_json_atomic(run / "run.json", {"suite": "tiny", "scenarios": []})
    res = CliRunner().invoke(app, ["score", str(run), "--workers", "1", "--resamples", "0", "--quiet"])
    assert res.exit_code == 0, res.output
    sf.write(str(run / "b" / "model.wav"), np.zeros(40000, dtype=np.int16), RATE)
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {run / 'b'}: model.wav holds 40000 samples, meta.json says 32000; ")
    assert res.stderr.count("\n") == 1
    assert not (tmp_path / "report").exists()
