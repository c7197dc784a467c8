"""A conversation held in Spanish, live: the example tests in Spanish against the `oracle`, in a real room.

`floorbench test examples/languages/spanish.yaml` (two of its tests, one trial each) on one LiveKit
server on 127.0.0.1: the caller's lines spoken by espeak-ng's Spanish voice, the oracle answering in
Spanish with the same voice (its configured voice speaks English, so the test's language's voice is used),
every reply heard by the packaged multilingual Whisper `base` in Spanish, and the assertions judged:
the word asked for, a price said in words ("veinte euros") matched against digits ("20 euros"), the
response time, no talking over, the MOS of its turns, and a barge-in it yields to. German and Mandarin
are measured by benchmarks/languages.py instead (docs/measured.md "Languages").
"""

from __future__ import annotations

import json
import os
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
           str(config), "--out", str(out), "--livekit-url", livekit.url, "--quiet", "-k", "saludo", "-k", "interrumpir"]
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    code, text = p.returncode, p.stdout + p.stderr
    res = json.loads((out / "results.json").read_text()) if (out / "results.json").is_file() else {}
    print(f"spanish run: {time.monotonic() - t0:.0f} s")  # shown with -s
    assert code == 0, text
    tests = {t["test"]: t for t in res["tests"]}
    assert set(tests) == {"saludo", "se-calla-al-interrumpir"}, text
    assert all(t["status"] == "passed" and (t["k"], t["n"]) == (1, 1) for t in tests.values()), text
    heard = [a for a in tests["saludo"]["assertions"] if a["key"].endswith("contains")]
    assert len(heard) == 2 and all(a["k"] == 1 for a in heard), heard
    assert [t["language"] for t in res["trials"]] == ["es", "es"]  # each trial records what it was held in
