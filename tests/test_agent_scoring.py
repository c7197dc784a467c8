"""Scoring suite agent from a run folder alone, and `floorbench test`'s errors before any room.

A run folder is made by hand the way the runner leaves one: meta.json (with the schedule's
`describe()`: the steps and expectations), turns.json (the caller's clips on the model's clock),
timeline.jsonl and a model.wav holding real synthesized speech at known times, so the VAD and the
ASR are the real ones. Trials whose room failed, whose evidence is missing or that never ran are
errors, never passes; `floorbench score` recognises the folder as suite agent's.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from floorbench.records import (
    DialogueTurn,
    FailureKind,
    Outcome,
)
from floorbench.suites.agent.importer import write_test_suite
from floorbench.suites.agent.validate import load_test_file
from tests.support.agent_trials import write_trial

pytestmark = pytest.mark.slow  # Silero, flite and tiny.en on a few seconds of audio
SR = 16000
TESTS = """
tests:
  - name: greet
    steps:
      - say: hello
        expect: {responds_within_ms: 1000, contains: banana}
      - barge_in: wait
        expect: {yields_within_ms: 800}
    expect: {no_overlap_ms: 200, latency_p95_ms: 900}
"""


def speech(text: str) -> np.ndarray:
    from floorbench.speech.tts import synthesize

    return synthesize(text, "flite:kal16", SR)


def make_trial(run: Path, scenario, reply_at_ms: int, outcome: Outcome = Outcome.completed) -> Path:
    """One trial's folder: the caller's clips at 1000–2000 (say) and, if replied, 2 s into the reply (barge-in)."""
    track = np.zeros(9 * SR, dtype=np.int16)
    clips = [DialogueTurn(turn_id=1, speaker="U", label="caller_say", start_ms=1000, end_ms=2000)]
    if reply_at_ms:
        reply = speech("The word is banana. I can help you with that right now.")
        a = reply_at_ms * SR // 1000
        track[a : a + len(reply)] = reply[: len(track) - a]
        clips.append(DialogueTurn(turn_id=2, speaker="U", label="caller_barge_in", start_ms=reply_at_ms + 1000,
                                  end_ms=reply_at_ms + 1500))
    not_run = [] if reply_at_ms else [{"t_ms": 0, "kind": "wait", "source": "playback", "turn_id": 2, "step": 2,
                                        "reason": "not_run"}]
    failed = None if outcome is Outcome.completed else (FailureKind.model_crashed, "the model process exited with code 1")
    return write_trial(run, scenario, track, clips, not_run, outcome, failed)


def test_trials_are_judged_from_their_folders_and_failed_rooms_are_errors(tmp_path: Path) -> None:
    from floorbench.suites.agent.score import score_trials
    from floorbench.suites.agent.verdicts import aggregate, exit_code

    (tmp_path / "t.yaml").write_text(TESTS)
    scen = write_test_suite(load_test_file(tmp_path / "t.yaml"), tmp_path / "suite", 5)
    run = tmp_path / "run"
    make_trial(run, scen[0], 2600)  # replies 600 ms after the caller's end (the voice's lead-in adds a little)
    make_trial(run, scen[1], 0)  # never replies: the barge-in was not played
    make_trial(run, scen[2], 2600, Outcome.failed)
    (make_trial(run, scen[3], 2600) / "turns.json").unlink()
    trials = {t["scenario_id"]: t for t in score_trials(run, expected=[s.scenario_id for s in scen],
                                                        cache_dir=tmp_path / "cache")}
    ok = {a["key"]: a for a in trials["greet.t1"]["assertions"]}
    assert trials["greet.t1"]["status"] == "failed"  # a recorded reply does not stop for the barge-in (below)
    assert 550 <= ok["step 1 responds_within_ms"]["value"] <= 750 and ok["step 1 responds_within_ms"]["passed"]
    assert ok["step 1 contains"]["passed"] and "banana" in ok["step 1 contains"]["measured"].lower()
    assert ok["test no_overlap_ms"]["passed"] and ok["test latency_p95_ms"]["passed"]
    assert not ok["step 2 yields_within_ms"]["passed"]  # a recording does not stop for a barge-in
    silent = {a["key"]: a for a in trials["greet.t2"]["assertions"]}
    assert silent["step 1 responds_within_ms"]["measured"] == "no response"
    assert silent["step 2 yields_within_ms"]["measured"].startswith("not played")
    assert silent["test latency_p95_ms"]["measured"] == "no response (1 of 1 turns unanswered)"
    assert trials["greet.t3"]["status"] == "error" and "the room failed (model_crashed)" in trials["greet.t3"]["error"]
    assert trials["greet.t4"]["status"] == "error" and "evidence missing" in trials["greet.t4"]["error"]
    assert trials["greet.t5"]["status"] == "error" and trials["greet.t5"]["error"].startswith("not run")
    (verdict,) = aggregate(list(trials.values()))
    assert (verdict["status"], verdict["errors"], verdict["n"]) == ("error", 3, 2) and exit_code([verdict]) == 2


def test_floorbench_score_takes_an_agent_run(tmp_path: Path) -> None:
    from floorbench.cli import app

    (tmp_path / "t.yaml").write_text(TESTS)
    (scen,) = write_test_suite(load_test_file(tmp_path / "t.yaml"), tmp_path / "suite", 1)
    make_trial(tmp_path / "run", scen, 0)
    res = CliRunner().invoke(app, ["score", str(tmp_path / "run"), "--out", str(tmp_path / "scored")])
    assert res.exit_code == 0, res.output
    scores = json.loads((tmp_path / "scored" / "agent_scores.json").read_text())
    assert scores["suite"] == "agent" and scores["tests"][0]["status"] == "failed"
    assert "step 1 responds_within_ms ≤ 1000 ms: 0/1: t1 no response" in res.output


def invoke(args: list[str]) -> tuple[int, str]:
    from floorbench.cli import app, run_cli

    try:
        run_cli(app, args)
    except SystemExit as e:
        return int(e.code or 0), ""
    return 0, ""


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        (["missing.yaml"], "missing.yaml: no such test file or folder"),
        (["t.yaml", "-k", "nothing"], "no test selected"),
        (["t.yaml", "--pass-threshold", "1.5"], "--pass-threshold must be above 0 and at most 1"),
        (["t.yaml", "--baseline", "nope.json"], "nope.json: not found; give the results.json"),
        (["bad.yaml"], "bad.yaml: test greet: step 1 (say): unknown key 'afer_ms'"),
        (["t.yaml", "--trials", "0"], "--trials must be 1..100"),
        (["t.yaml", "--out", "old"], "holds an earlier test run; pass another --out, or --resume"),
    ],
)
def test_floorbench_test_errors_are_one_line_and_exit_2_before_any_room(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str], wanted: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(TESTS)
    (tmp_path / "bad.yaml").write_text(TESTS.replace("      - say: hello\n", "      - say: hello\n        afer_ms: 3\n"))
    (tmp_path / "old" / "run").mkdir(parents=True)
    out = [] if "--out" in args else ["--out", "new"]
    code, _ = invoke(["test", *args, "--model", "silent", *out])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and wanted in err[0], err


def test_the_verdict_stage_writes_results_and_junit_and_a_regression_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from floorbench.suites.agent.commands import _judge

    (tmp_path / "t.yaml").write_text(TESTS.replace(", yields_within_ms: 800", "").replace(
        "      - barge_in: wait\n        expect: {yields_within_ms: 800}\n", ""))
    tests = load_test_file(tmp_path / "t.yaml")
    (scen,) = write_test_suite(tests, tmp_path / "suite", 1)
    make_trial(tmp_path / "good" / "run", scen, 2600)
    code = _judge(tests, tmp_path / "good", tmp_path / "good" / "run", 1, "tiny.en", None, tmp_path / "good.xml", None, 100)
    good = json.loads((tmp_path / "good" / "results.json").read_text())
    assert code == 0 and good["exit_code"] == 0 and good["tests"][0]["status"] == "passed", capsys.readouterr().out
    assert '<testcase name="greet" classname="t"' in (tmp_path / "good.xml").read_text()

    make_trial(tmp_path / "bad" / "run", scen, 0)  # the agent went silent
    code = _judge(tests, tmp_path / "bad", tmp_path / "bad" / "run", 1, "tiny.en", None, None, good["tests"], 100)
    out = capsys.readouterr().out
    assert code == 1 and "baseline: " in out and "regressed" in out and "no response" in out, out
    bad = json.loads((tmp_path / "bad" / "results.json").read_text())
    assert {(c["what"], c["change"]) for c in bad["baseline"]} >= {("pass rate", "regressed")}


def test_a_tone_in_a_silence_window_is_not_silence(tmp_path: Path) -> None:
    """The agent answers the caller's line, then fills the window it should keep silent with a 440 Hz
    tone: real Silero does not call it speech, and the `silent` assertion fails naming the sound."""
    from floorbench.suites.agent.score import score_trials

    (tmp_path / "t.yaml").write_text("tests:\n  - name: hush\n    steps:\n      - say: hello\n"
                                     "      - silence: 3000\n        expect: {silent: {after_ms: 500}}\n")
    (scen,) = write_test_suite(load_test_file(tmp_path / "t.yaml"), tmp_path / "suite", 1)
    track = np.zeros(7 * SR, dtype=np.int16)
    t = np.arange(int(1.5 * SR)) / SR
    track[3 * SR : 3 * SR + len(t)] = (0.3 * 32767 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    clips = [DialogueTurn(turn_id=1, speaker="U", label="caller_say", start_ms=1000, end_ms=2000),
             DialogueTurn(turn_id=2, speaker="U", label="caller_silence", start_ms=2000, end_ms=5000)]
    write_trial(tmp_path / "run", scen, track, clips)
    (trial,) = score_trials(tmp_path / "run", expected=[scen.scenario_id], cache_dir=tmp_path / "cache")
    hush = {a["key"]: a for a in trial["assertions"]}["step 2 silent"]
    assert not hush["passed"] and "loud non-speech sound" in hush["measured"], hush
    assert trial["status"] == "failed"
