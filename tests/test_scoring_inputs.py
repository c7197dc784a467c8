"""Inputs: run directories and recordings folders, one-line errors for bad files, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fixtures.scoring import build  # type: ignore[import-not-found]
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scoring.inputs import InputError, discover, load_turns, read_model_track


def turns_doc(turns: list[dict[str, object]]) -> dict[str, object]:
    return {"scenario_id": "s1", "pair_id": "p1", "condition": "explicit", "turns": turns}


def t(i: int, label: str, s: int, e: int, **kw: object) -> dict[str, object]:
    return {"turn_id": i, "speaker": "A", "label": label, "start_ms": s, "end_ms": e, "text": "", **kw}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{not json", "not valid JSON (line 1"),
        (turns_doc([t(1, "N2", 0, 100), t(2, "T", 200, 300)]), "turn 2: a T turn needs a 'gold' answer"),
        (turns_doc([t(1, "N4Q", 0, 100), t(2, "N2", 200, 300)]), "turn 1: an N4Q must be followed immediately"),
        (turns_doc([t(1, "N2", 0, 500), t(2, "N3", 400, 600)]), "human turns must not overlap"),
        (turns_doc([t(1, "X9", 0, 100)]), "unknown label 'X9'"),
        (turns_doc([t(1, "N2", 300, 100)]), "need 0 <= start <= end"),
        ({"scenario_id": "s1", "turns": [t(1, "N2", 0, 100)]}, "field 'pair_id'"),
    ],
)
def test_bad_turns_json_gives_one_line_naming_file_and_turn(tmp_path: Path, doc: object, message: str) -> None:
    p = tmp_path / "turns.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(InputError) as e:
        load_turns(p)
    assert message in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)


def test_bad_audio_files(tmp_path: Path) -> None:
    stereo = tmp_path / "stereo.wav"
    sf.write(str(stereo), np.zeros((1600, 2), dtype=np.int16), 16000)
    odd = tmp_path / "odd.wav"
    sf.write(str(odd), np.zeros(4410, dtype=np.int16), 44100)
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"not audio at all")
    for path, msg in [(stereo, "2 channels"), (odd, "44100 Hz; resample"), (junk, "not a readable audio file")]:
        with pytest.raises(InputError, match=msg):
            read_model_track(path)
    ok = tmp_path / "ok.wav"
    sf.write(str(ok), np.zeros(48000, dtype=np.int16), 48000, subtype="PCM_16")
    audio, rate = read_model_track(ok)
    assert (len(audio), rate, audio.dtype) == (16000, 48000, np.int16)


def simple_spec(sid: str, answer: bool = True) -> object:
    turns = [build.Turn(1, "N2", 500, 1500), build.Turn(2, "T", 2000, 3000, "Aria, which one?", "the taco place"),
             build.Turn(3, "N3", 11000, 12000)]
    speech = [build.Speech(3600, "answer_taco")] if answer else []
    return build.DialogueSpec(sid, turns, speech, 13000)


def test_run_directory_counts_failed_and_lost_scenarios(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"model": {"name": "oracle"}, "suite": "mpe"}))
    build.write_dialogue(run / "s1", simple_spec("s1"), build.run_meta("s1"))
    build.write_dialogue(run / "s2", simple_spec("s2"), build.run_meta("s2", outcome="failed"))
    (run / "s3").mkdir()
    (run / "s3" / "meta.json").write_text(json.dumps(build.run_meta("s3", outcome="in_progress")))
    build.write_dialogue(run / "s4", simple_spec("s4"), build.run_meta("s4"))
    (run / "s4" / "turns.json").write_text("{}")
    disc = discover(run)
    assert disc.kind == "run" and [d.folder.name for d in disc.scorable] == ["s1"]
    counts = disc.counts()
    assert (counts["completed"], counts["failed"], counts["in_progress"], counts["unreadable"]) == (1, 1, 1, 1)
    assert len(disc.errors) == 1 and "s4/turns.json" in disc.errors[0]


def test_cli_score_skips_bad_dialogues_with_one_line_each(tmp_path: Path) -> None:
    rec = tmp_path / "recordings"
    build.write_dialogue(rec / "good", simple_spec("good"))
    build.write_dialogue(rec / "silent", simple_spec("silent", answer=False))
    bad = build.write_dialogue(rec / "bad", simple_spec("bad"))
    sf.write(str(bad / "model.wav"), np.zeros((1600, 2), dtype=np.int16), 16000)
    (rec / "noturns").mkdir()
    sf.write(str(rec / "noturns" / "model.wav"), np.zeros(1600, dtype=np.int16), 16000)
    out = tmp_path / "out"
    res = CliRunner().invoke(
        app, ["score", str(rec), "--out", str(out), "--workers", "1", "--resamples", "200", "--quiet"]
    )
    assert res.exit_code == 0, res.output
    skipped = [line for line in res.output.splitlines() if line.startswith("skipped: ")]
    assert len(skipped) == 2
    assert any("bad/model.wav: 2 channels" in s for s in skipped)
    assert any("noturns: no turns.json" in s for s in skipped)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["scenarios"]["scored"] == 2 and scores["scenarios"]["unreadable"] == 2
    m = scores["conditions"]["explicit"]["metrics"]
    assert (m["fresh_onset_rate"]["passed"], m["fresh_onset_rate"]["n"]) == (1, 2)
    assert m["conditional_accuracy"]["value"] == 1.0 and m["conditional_accuracy"]["n"] == 1
    assert "Traceback" not in res.output


def test_cli_score_on_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["score", str(tmp_path / "nope"), "--quiet"])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0 and "not a folder" in res.output


def test_duplicate_scenario_ids_are_refused(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    build.write_dialogue(rec / "a", simple_spec("same"))
    build.write_dialogue(rec / "b", simple_spec("same"))
    disc = discover(rec)
    assert [d.folder.name for d in disc.scorable] == ["a"]
    assert len(disc.errors) == 1 and "scenario_id 'same' already used by" in disc.errors[0]


# --- missing evidence is never a pass: unreadable dialogues, unscorable items ---


def test_a_wav_with_no_samples_or_with_nan_samples_is_unreadable(tmp_path: Path) -> None:
    empty = tmp_path / "empty.wav"
    sf.write(str(empty), np.zeros(0, dtype=np.int16), 16000, subtype="PCM_16")
    nan = tmp_path / "nan.wav"
    x = np.zeros(16000, dtype=np.float32)
    x[100], x[200], x[300] = np.nan, np.inf, -np.inf
    sf.write(str(nan), x, 16000, subtype="FLOAT")
    with pytest.raises(InputError) as e:
        read_model_track(empty)
    assert str(e.value) == f"{empty}: holds no samples; the model's track was not recorded, re-run the scenario"
    with pytest.raises(InputError) as e:
        read_model_track(nan)
    assert str(e.value) == (
        f"{nan}: 3 NaN or infinite samples; the recording is corrupt, re-run the scenario or re-export it"
    )


def _score(rec: Path, out: Path, exit_code: int = 0) -> tuple[dict[str, object], list[str]]:
    res = CliRunner().invoke(
        app, ["score", str(rec), "--out", str(out), "--workers", "1", "--resamples", "200", "--quiet"]
    )
    assert res.exit_code == exit_code, res.output
    return json.loads((out / "scores.json").read_text()), res.output.splitlines()


def test_empty_and_non_finite_recordings_are_unreadable_not_silent(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    empty = build.write_dialogue(rec / "empty", simple_spec("empty", answer=False))
    sf.write(str(empty / "model.wav"), np.zeros(0, dtype=np.int16), 16000, subtype="PCM_16")
    nan = build.write_dialogue(rec / "nan", simple_spec("nan", answer=False))
    x = np.zeros(13000 * 16, dtype=np.float32)
    x[5000] = np.nan
    sf.write(str(nan / "model.wav"), x, 16000, subtype="FLOAT")
    scores, output = _score(rec, tmp_path / "out", exit_code=2)  # nothing could be scored
    counts = scores["scenarios"]
    assert isinstance(counts, dict) and (counts["scored"], counts["unreadable"]) == (0, 2)
    assert scores["conditions"] == {}  # nothing scored: no silence keeping of 1.0 for an absent model
    assert sorted(line.split(": ", 1)[1].split("/")[-2] for line in output if line.startswith("skipped: ")) == [
        "empty", "nan",
    ]


def test_a_recording_cut_before_the_last_turns_leaves_them_unscorable(tmp_path: Path) -> None:
    # N2 500-1500, T 2000-3000 (answer at 3600), N3 11000-12000; the file ends at 9000 ms
    rec = tmp_path / "rec"
    build.write_dialogue(rec / "cut", build.DialogueSpec(**{**vars(simple_spec("cut")), "duration_ms": 9000}))
    # turns.json says the recorder stopped at 9000 ms although the file holds 13000 ms
    said = build.write_dialogue(rec / "said", simple_spec("said"))
    doc = json.loads((said / "turns.json").read_text())
    (said / "turns.json").write_text(json.dumps(doc | {"model_wav_end_ms": 9000}))
    scores, _ = _score(rec, tmp_path / "out")
    m = scores["conditions"]["explicit"]["metrics"]  # type: ignore[index]
    sk = m["silence_keeping"]
    assert (sk["n"], sk["passed"], sk["unscorable"]) == (2, 2, 2)  # the two N2s; both N3s unscorable
    assert (m["fresh_onset_rate"]["n"], m["fresh_onset_rate"]["unscorable"]) == (2, 0)
    items = [json.loads(x) for x in (tmp_path / "out" / "items.jsonl").read_text().splitlines()]
    n3 = [i for i in items if i["turn_id"] == 3]
    assert [(i["scenario_id"], i["counted"], i["passed"], i["kind"]) for i in n3] == [
        ("cut", False, None, "unscorable"), ("said", False, None, "unscorable"),
    ]
    assert n3[0]["reason"] == "unscorable: model.wav ends at 9000 ms, before the silence window ends (12500 ms)"
