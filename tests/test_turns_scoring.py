"""Scoring of suite turns: events from turns.json clips, both tracks, takeovers, the export, the CLI.

The pure parts run on hand-made clips and speech segments with exact counts;
the last test scores a dialogue folder whose model.wav holds real rendered
speech at known places, through `floorbench score` (VAD included).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import soundfile as sf
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.records import DialogueTurn
from floorbench.suites.turns.events import decisions, eot_events, score_dialogue, yield_events
from floorbench.suites.turns.export import seconds, submission
from floorbench.suites.turns.match import Anchor, Span
from floorbench.suites.turns.rules import TurnsRules

R = TurnsRules()
FIXTURE = Path(__file__).parent / "fixtures" / "suites" / "turns-tiny"


def clip(i: int, label: str, start: int, end: int) -> DialogueTurn:
    return DialogueTurn(turn_id=i, speaker="U", label=label, start_ms=start, end_ms=end)


# pause 1000–2000 (then the user resumes at 2900), eot at 4000, backchannel 6500–7000 while the
# model talks, barge-in 9000–10500 (an end of turn at 10500 too), noise 14000–14500
CLIPS = [
    clip(1, "pause", 1000, 2000), clip(2, "eot", 2900, 4000), clip(3, "backchannel", 6500, 7000),
    clip(4, "interrupt", 9000, 10500), clip(5, "noise", 14000, 14500),
]
ORACLE = [[4300, 9200], [10800, 12500]]  # takes 300 ms after each end of turn, yields 200 ms into the barge-in
EAGER = [[2500, 2800], [4500, 12500]]  # talks into the pause, talks on 3.5 s past the barge-in


def test_events_of_each_track() -> None:
    e, y = eot_events(CLIPS), yield_events(CLIPS)
    assert e.positives == [Anchor(1, 4000), Anchor(1, 10500)]
    assert (e.negatives, e.negative_labels) == ([Span(1, 2000, 2900), Span(1, 14000, 14500)], ["pause", "noise"])
    assert y.positives == [Anchor(1, 9000)]
    assert (y.negatives, y.negative_labels) == ([Span(1, 6500, 7000), Span(1, 14000, 14500)], ["backchannel", "noise"])


def test_an_end_at_the_recordings_end_is_not_a_yield() -> None:
    assert decisions([[100, 900], [2000, 5000]], 5000) == ([100, 2000], [900])
    assert decisions([[100, 900], [2000, 4900]], 5000) == ([100, 2000], [900, 4900])


def test_oracle_like_speech_scores_perfectly() -> None:
    o = score_dialogue("d", "casual", CLIPS, ORACLE, 20000, R)
    assert (o.eot.tp, o.eot.fn, o.eot.fp, o.eot.tn, o.eot.latencies_ms) == (2, 0, 0, 2, [300, 300])
    assert (o.yield_.tp, o.yield_.fn, o.yield_.fp, o.yield_.tn, o.yield_.latencies_ms) == (1, 0, 0, 2, [200])
    assert o.takeovers == {"pause": [False], "eot": [True], "backchannel": [False], "interrupt": [True], "noise": [False]}


def test_eager_like_speech_fires_in_the_pause_and_never_yields() -> None:
    o = score_dialogue("d", "casual", CLIPS, EAGER, 20000, R)
    assert (o.eot.tp, o.eot.fn, o.eot.fp, o.eot.tn) == (1, 1, 1, 1) and o.eot.fired == [True, False]
    assert (o.yield_.tp, o.yield_.fn, o.yield_.fp, o.yield_.tn) == (0, 1, 0, 2)


def test_silence_has_recall_zero_and_no_false_positives() -> None:
    o = score_dialogue("d", "casual", CLIPS, [], 20000, R)
    assert (o.eot.recall, o.eot.fp_rate, o.yield_.recall, o.yield_.fp_rate) == (0.0, 0.0, 0.0, 0.0)


def test_takeover_needs_a_response_of_one_second() -> None:
    short = score_dialogue("d", "casual", [clip(1, "eot", 0, 1000)], [[1300, 2299]], 5000, R)
    long = score_dialogue("d", "casual", [clip(1, "eot", 0, 1000)], [[1300, 2300]], 5000, R)
    assert (short.takeovers, long.takeovers) == ({"eot": [False]}, {"eot": [True]})


def test_submission_is_turnbenchs_format_strictly_increasing_seconds() -> None:
    o = score_dialogue("conv-1", "casual", CLIPS, ORACLE, 20000, R)
    assert submission([o]) == {
        "schema_version": 1,
        "predictions": [{
            "conversation_id": "conv-1",
            "speaker_1": {"eot": [4.3, 10.8], "interruption": [9.2, 12.5]},
            "speaker_2": {"eot": [], "interruption": []},
        }],
    }
    assert seconds([3001, 1500, 1500]) == [1.5, 3.001]


def _speech(name: str) -> np.ndarray:
    x, sr = sf.read(str(FIXTURE / "audio" / name), dtype="int16")
    assert sr == 16000
    return x


def test_score_command_detects_the_suite_and_writes_its_files(tmp_path: Path) -> None:
    manifest = json.loads((FIXTURE / "audio" / "manifest.json").read_text())
    longest = max(manifest["clips"], key=lambda k: manifest["clips"][k]["samples"]).split("/")[1]
    speech = _speech(longest)  # about two seconds of rendered speech, used as the model's voice
    d = tmp_path / "rec" / "dlg"
    d.mkdir(parents=True)
    model = np.zeros(12 * 16000, dtype=np.int16)
    model[4300 * 16 : 4300 * 16 + len(speech)] = speech  # the model takes 300 ms after the end of turn at 4000
    sf.write(str(d / "model.wav"), model, 16000)
    turns = {"scenario_id": "dlg", "pair_id": "dlg", "condition": "casual", "model_wav_end_ms": 12000,
             "turns": [c.model_dump() for c in (clip(1, "pause", 500, 1500), clip(2, "eot", 2400, 4000))]}
    (d / "turns.json").write_text(json.dumps(turns))
    res = CliRunner().invoke(app, ["score", str(tmp_path / "rec"), "--out", str(tmp_path / "out"),
                                   "--resamples", "100", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "end of turn (takes)            recall 1.000  fp 0.000" in res.output
    scores = json.loads((tmp_path / "out" / "turns_scores.json").read_text())
    eot = scores["tracks"]["eot"]
    assert (eot["tp"], eot["fn"], eot["fp"], eot["tn"]) == (1, 0, 0, 1)
    assert 250 <= eot["latency_ms"]["p50"] <= 450  # the onset is at 300 ms plus the clip's lead-in, to one VAD window
    sub = json.loads((tmp_path / "out" / "turnbench_submission.json").read_text())
    assert sub["predictions"][0]["conversation_id"] == "dlg" and len(sub["predictions"][0]["speaker_1"]["eot"]) == 1
    assert "| rec | end of turn (takes) | 1.000" in (tmp_path / "out" / "turns_report.md").read_text()
    rep = CliRunner().invoke(app, ["report", str(tmp_path / "out"), "--out", str(tmp_path / "rep")])
    assert rep.exit_code == 0, rep.output
    assert "| rec | end of turn (takes) | 1.000" in (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    assert html.count("latency p50 vs FP rate") == 2 and html.count("<circle") == 1  # the yield track has no latency


def test_nothing_scorable_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    d = tmp_path / "rec" / "dlg"
    d.mkdir(parents=True)
    (d / "model.wav").write_bytes(b"RIFF not a wav")
    turns = {"scenario_id": "dlg", "pair_id": "dlg", "condition": "casual",
             "turns": [clip(1, "eot", 500, 1500).model_dump()]}
    (d / "turns.json").write_text(json.dumps(turns))
    res = CliRunner().invoke(app, ["score", str(tmp_path / "rec"), "--out", str(tmp_path / "out"), "--workers", "1"])
    assert res.exit_code == 2, res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("error: ") and "no turns dialogue could be scored (1 unreadable" in last, res.output
