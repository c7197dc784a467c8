"""`floorbench load` live: one caller, then two at once, against the `oracle` reference agent.

The command runs as a process on the `livekit` fixture's server (127.0.0.1), through the whole path
of `floorbench test` per step: the test written as a suite, rendered, played in N rooms at once,
every trial judged from its recording. Asserted: both steps ran with their number of rooms, every
turn's latency was measured from the audio (the oracle answers each turn), and load.json, load.md
and a well-formed load.svg are written. How the latency grows with N is a benchmark's figure
(docs/load.md), not this test's: a loaded CI machine may also end the steps at its own limit,
which the output must then say.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from floorbench.transports.server import LiveKitConnection

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[1]
TESTS = """\
voice: flite:slt
tests:
  - name: answer
    steps:
      - say: Hello there. Please say the word banana.
        expect:
          responds_within_ms: 3000
"""


def test_load_steps_the_callers_and_measures_every_turn(tmp_path: Path, livekit: LiveKitConnection) -> None:
    (tmp_path / "t.yaml").write_text(TESTS)
    (tmp_path / "oracle.yaml").write_text("adapter: oracle\nvoice: flite:kal16\n")
    out = tmp_path / "load"
    env = {**os.environ, "LIVEKIT_API_KEY": livekit.api_key, "LIVEKIT_API_SECRET": livekit.api_secret,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-c", "from floorbench.cli import main; main()", "load", str(tmp_path / "t.yaml"),
                        "--config", str(tmp_path / "oracle.yaml"), "--out", str(out), "--sessions", "1,2",
                        "--livekit-url", livekit.url, "--quiet"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    text = p.stdout + p.stderr
    assert p.returncode == 0, text
    load = json.loads((out / "load.json").read_text())
    steps = load["steps"]
    assert [(s["sessions"], s["trials"]) for s in steps] == [(1, 1), (2, 2)][: len(steps)] and steps, text
    for s in steps:
        assert sum(s["timing"].values()) == s["trials"] and s["latency"]["turns"] == s["trials"], s
        if s["harness_limited"]:  # this machine's own limit (a sender slipped, a track stretched): said, and the end
            assert s is steps[-1] and load["stopped"] == s["harness_reason"] and "stopped: " in text, text
            continue
        assert s["latency"]["unanswered"] == 0, s
        assert 0 < s["latency"]["p50_ms"] <= s["latency"]["p95_ms"] <= s["latency"]["p99_ms"] < 3000, s
    assert len(steps) == 2 or steps[-1]["harness_limited"], text
    assert "| callers |" in (out / "load.md").read_text()
    ET.fromstring((out / "load.svg").read_text())
    assert (out / "callers-1" / "run").is_dir()
    step1 = json.loads((out / "callers-1" / "results.json").read_text())  # as `floorbench test` writes it
    assert len(step1["trials"]) == 1 and step1["trials_per_test"] == 1 and step1["tests"][0]["n"] + step1["tests"][0]["errors"] == 1
