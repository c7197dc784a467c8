"""An LLM-persona caller live: the stand-in endpoint plays a shopper against the `cascade` agent.

`floorbench persona-standin` (a process, any free port) serves the script of
`examples/persona/fruit.yaml`; `floorbench test examples/persona/persona.yaml --persona-url URL`
(one trial, the session's LiveKit server) plays it against the cascade (Silero VAD → tiny.en →
rules → Piper, `dyadic: true`): the persona opens with what it bought, asks the total, hears the
cascade's "That's 5 … in total" through its own live ASR, and the stand-in answers with the done
marker. The test passes `goal_reached`, and the trial's timeline and results.json hold every line,
the transcript it reacted to and the caller's own ASR/LLM/TTS latencies; each line's audio is in
the run folder. Timing is not asserted beyond order (a loaded 2-core machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_agent_live import ROOT  # type: ignore[import-not-found]

from floorbench.transports.server import LiveKitConnection

pytestmark = pytest.mark.live
EXAMPLE = ROOT / "examples" / "persona" / "persona.yaml"
SCRIPT = ROOT / "examples" / "persona" / "fruit.yaml"
CASCADE = ROOT / "examples" / "persona" / "cascade.yaml"


def test_a_persona_reaches_its_goal_with_the_cascade(tmp_path: Path, livekit: LiveKitConnection) -> None:
    env = {**os.environ, "LIVEKIT_API_KEY": livekit.api_key, "LIVEKIT_API_SECRET": livekit.api_secret,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cli = [sys.executable, "-c", "from floorbench.cli import main; main()"]
    standin = subprocess.Popen([*cli, "persona-standin", "--script", str(SCRIPT), "--port", "0"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert standin.stdout is not None
        first = standin.stdout.readline()
        assert first.startswith("persona stand-in: http://127.0.0.1:"), first
        url = first.split()[2]
        out = tmp_path / "persona"
        t0 = time.monotonic()
        p = subprocess.run([*cli, "test", str(EXAMPLE), "--config", str(CASCADE), "--out", str(out),
                            "--livekit-url", livekit.url, "--quiet", "--persona-url", url],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
        print(f"persona run: {time.monotonic() - t0:.0f} s")  # shown with -s
    finally:
        standin.terminate()
        standin.wait(10)
    text = p.stdout + p.stderr
    res = json.loads((out / "results.json").read_text())
    (trial,) = res["trials"]
    (persona,) = trial["personas"]
    said = persona["lines"]
    print(json.dumps([{k: x.get(k) for k in ("text", "transcript", "asr_ms", "llm_ms", "tts_ms", "caller_delay_ms")}
                      for x in said], indent=1))
    assert p.returncode == 0, text
    assert persona["end"]["outcome"] == "done", persona["end"]
    assert said[0]["text"].startswith("Hi Aria") and said[-1]["done"] is True and len(said) >= 3
    asked = said[1]
    assert asked["transcript"] and asked["asr_ms"] > 0 and asked["llm_ms"] >= 0 and asked["tts_ms"] > 0, asked
    assert asked["caller_delay_ms"] >= asked["chain_ms"] >= asked["asr_ms"], asked
    assert any(w in said[-1]["transcript"].lower() for w in ("five", "5")), said[-1]
    run = out / "run" / "fruit-total.t1"
    timeline = [json.loads(x) for x in (run / "timeline.jsonl").read_text().splitlines()]
    assert [e["text"] for e in timeline if e["kind"] == "persona" and e["reason"] == "line"] == [x["text"] for x in said]
    for x in said:  # every line's audio, in the run folder, for a listener
        assert (run / x["audio"]).is_file()
    turns = json.loads((run / "turns.json").read_text())
    assert {t["turn_id"] for t in turns["turns"]} >= {x["clip"] for x in said}
    (test,) = res["tests"]
    measured = {a["key"]: a["measured"][0] for a in test["assertions"]}
    assert measured["step 1 goal_reached"]["passed"], measured
