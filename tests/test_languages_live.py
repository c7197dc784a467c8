"""Conversations held in Spanish, live, against the `oracle` in real rooms on one LiveKit server on 127.0.0.1.

- The example conversation tests in Spanish: `floorbench test examples/languages/spanish.yaml -k saludo`
  (one trial): the caller's lines spoken by espeak-ng's Spanish voice, the oracle answering in Spanish
  with the same voice (its configured voice speaks English, so the test's language's voice is used), its
  replies heard by the packaged multilingual Whisper `base` in Spanish, and the assertions judged: the
  word asked for, a price said in words ("veinte euros") matched against digits ("20 euros"), the
  response time, no talking over, the MOS of its turns.
- A suite turns conversation in Spanish (what `generate --suite turns --language es` writes, cut to an end
  of turn and a barge-in: tests/fixtures/suites/turns-es), rendered, run and scored: the oracle takes
  the turn after the end of turn and yields to the barge-in, both in Spanish. Then, in the same test, an
  mpe request in Spanish (what `generate --suite mpe --language es` writes, cut to a fact, the request and
  a turn after it: tests/fixtures/suites/mpe-es): the run records the language, the timing metrics are
  scored, and the answer is left `unsure` by the offline judge (no Spanish rules) with one
  line (benchmarks/mpe_languages.py measures how well `base` hears such answers).

German and Mandarin are measured by benchmarks/languages.py instead (docs/measured.md "Languages").
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from floorbench.transports.server import LiveKitConnection

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[1]
SPANISH = ROOT / "examples" / "languages" / "spanish.yaml"


def test_the_spanish_example_tests_pass_against_the_oracle(tmp_path: Path, livekit: LiveKitConnection) -> None:
    t0 = time.monotonic()
    out, config = tmp_path / "es", tmp_path / "oracle.yaml"
    config.write_text("adapter: oracle\nvoice: flite:kal16\n")  # an English voice: the test's Spanish one is used
    env = {**os.environ, "LIVEKIT_API_KEY": livekit.api_key, "LIVEKIT_API_SECRET": livekit.api_secret,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-c", "from floorbench.cli import main; main()", "test", str(SPANISH), "--config",
           str(config), "--out", str(out), "--livekit-url", livekit.url, "--quiet", "-k", "saludo"]
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    code, text = p.returncode, p.stdout + p.stderr
    res = json.loads((out / "results.json").read_text()) if (out / "results.json").is_file() else {}
    print(f"spanish run: {time.monotonic() - t0:.0f} s")  # shown with -s
    assert code == 0, text
    tests = {t["test"]: t for t in res["tests"]}
    assert set(tests) == {"saludo"}, text
    assert all(t["status"] == "passed" and (t["k"], t["n"]) == (1, 1) for t in tests.values()), text
    heard = [a for a in tests["saludo"]["assertions"] if a["key"].endswith("contains")]
    assert len(heard) == 2 and all(a["k"] == 1 for a in heard), heard
    assert [t["language"] for t in res["trials"]] == ["es"]  # each trial records what it was held in


def test_a_spanish_turns_conversation_and_a_spanish_mpe_request_are_answered_in_spanish(
        tmp_path: Path, livekit: LiveKitConnection) -> None:
    from floorbench.pipelines.run.runner import RunOptions, run_suite
    from floorbench.scenarios.render import render_suite
    from floorbench.suites.mpe.score import ScoreOptions, score
    from floorbench.suites.turns.score import score_turns

    t0 = time.monotonic()
    suites = {name: tmp_path / name for name in ("turns-es", "mpe-es")}
    for name, suite in suites.items():
        shutil.copytree(ROOT / "tests" / "fixtures" / "suites" / name, suite)
        render_suite(suite, jobs=1)

    def opts(name: str, scenarios: list[str] | None = None) -> RunOptions:
        return RunOptions(suite=suites[name], model="oracle", out=tmp_path / f"run-{name}", connection=livekit,
                          progress=False, scenarios=scenarios,
                          config={"voice": "flite:kal16"})  # an English voice: the scenario's Spanish one is used

    async def both() -> None:  # one after the other: played at once on two cores, the turns oracle missed a turn
        await run_suite(opts("turns-es"))
        await run_suite(opts("mpe-es", ["es01-explicit"]))

    asyncio.run(both())
    print(f"spanish turns and mpe, played: {time.monotonic() - t0:.0f} s")  # shown with -s
    scores, _ = score_turns(tmp_path / "run-turns-es", tmp_path / "scored-turns", workers=1, resamples=200)
    assert scores["scenarios"]["scored"] == 1 and scores["not_run"] == {}  # it answered: the barge-in was played
    (d,) = scores["dialogues"]
    assert (d["eot"]["tp"], d["yield"]["tp"]) == (2, 1), d  # took both turns, stopped at the barge-in
    # it stops at the barge-in's first speech, which the scorer's VAD may place a little later than the
    # oracle's own did (espeak's soft first consonant: -12 ms measured)
    assert all(-150 <= x <= 1500 for x in d["yield"]["latencies_ms"]), d

    run = tmp_path / "run-mpe-es"
    meta = json.loads((run / "es01-explicit" / "meta.json").read_text())
    assert meta["schedule"]["language"] == "es"  # the run records what the scenario was held in
    res = score(run, ScoreOptions(workers=1, resamples=200, out=tmp_path / "scored-mpe"))
    m = res.scores.conditions["explicit"].metrics
    assert (m["fresh_onset_rate"].passed, m["fresh_onset_rate"].n) == (1, 1), m  # it answered the request
    assert (m["silence_keeping"].passed, m["silence_keeping"].n) == (2, 2), m  # and kept quiet otherwise
    # the offline judge has no Spanish rules: the answer is left unsure, with one line, never judged as English
    assert (m["conditional_accuracy"].n, m["conditional_accuracy"].unsure) == (0, 1), m
    (line,) = [w for w in res.scores.warnings if "not scored in Spanish" in w]
    assert line.endswith("1 answer(s) and 0 speech window(s) left unsure") and "\n" not in line
    print(f"spanish turns and mpe: {time.monotonic() - t0:.0f} s")  # shown with -s

