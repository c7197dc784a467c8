"""floorbench's yields and stops against an agent written outside it, whose own log is the truth.

floorbench reads an agent's stop from the recording and a caller's start from what it sent; both were
measured once against its own `oracle` (benchmarks/stop_edges.py), whose sent track is floorbench's own.
This benchmark takes the truth from outside: a LiveKit Agents worker (`benchmarks/outside_agent/agent.py`,
which imports nothing from floorbench) that logs, on the wall clock, every frame it handed to its audio
source and when it plays, every cleared queue, the caller's audio as it arrived, and its VAD's events.

It starts a LiveKit server on 127.0.0.1, then per agent configuration (a shorter and a longer minimum
interruption) the worker and `floorbench test benchmarks/outside_agent/tests.yaml --dispatch`; then per
barge-in and backchannel step it compares (`compare`):

- **stop**: floorbench's stop (the end of the agent's run of speech in model.wav, on the recorder's clock,
  as `yields_within_ms` and `keeps_talking` take it) less the agent → recorder leg, against the agent's
  last speech sample as played (its own log). The leg is measured per trial by matching the agent's
  played audio with model.wav (cross-correlation at each run's start), so like is compared with like:
  both on the agent's sending clock;
- **yield**: floorbench's `yields_within_ms` value against the agent's stop as played less floorbench's
  caller start, plus the measured leg back (a yield counts the agent → room leg, docs/testing.md) —
  and, for the record, against the agent's own yield figure (from the caller's onset as it heard it, so
  without either leg);
- **verdict**: each assertion's verdict against what the agent's log says: it stopped within the limit
  after the caller's start; it was still speaking `keep_ms` after the backchannel's end.

    flock /tmp/floorbench-live.lock .venv/bin/python benchmarks/outside_agent_stops.py --out runs/outside-agent
    .venv/bin/python benchmarks/outside_agent_stops.py --out runs/outside-agent --compare-only [--rejudge]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from outside_agent_compare import compare, report  # noqa: E402

CONFIGS = {"interrupt-0.6s": 0.6, "interrupt-0.25s": 0.25}


def run_config(name: str, min_s: float, out: Path, conn: object, trials: int) -> None:
    env = {**os.environ, "LIVEKIT_URL": conn.url, "LIVEKIT_API_KEY": conn.api_key,  # type: ignore[attr-defined]
           "LIVEKIT_API_SECRET": conn.api_secret, "AGENT_NAME": f"outside-{name}-{os.getpid()}",  # type: ignore[attr-defined]
           "MIN_INTERRUPTION_S": str(min_s), "AGENT_LOG_DIR": str(out / "agent")}
    out.mkdir(parents=True, exist_ok=True)
    log = out / "agent.log"
    with log.open("wb") as f:
        worker = subprocess.Popen([sys.executable, str(HERE / "outside_agent" / "agent.py"), "start"], cwd=ROOT,
                                  env=env, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while "registered worker" not in log.read_text(errors="replace"):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"error: the outside agent did not start; see {log}")
            time.sleep(0.3)
        cmd = [sys.executable, "-m", "floorbench.cli", "test", str(HERE / "outside_agent" / "tests.yaml"),
               "--dispatch", env["AGENT_NAME"], "--livekit-url", env["LIVEKIT_URL"], "--trials", str(trials),
               "--out", str(out / "floorbench"), "--quiet"]
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
        print(f"{name}: floorbench test exit {p.returncode}\n{p.stdout[-1500:]}{p.stderr[-1500:]}", flush=True)
        time.sleep(3)  # the last job writes its log as it leaves the room
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("runs/outside-agent"))
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--compare-only", action="store_true", help="read an earlier --out again")
    ap.add_argument("--rejudge", action="store_true", help="with --compare-only: judge its recordings again")
    ap.add_argument("--speech-level-ms", type=int, default=None,
                    help="with --rejudge: the energy edge's speech level over this span (300: the reading before "
                         "it was taken over 2 s)")
    args = ap.parse_args()
    if not args.compare_only:
        from floorbench.transports.server import LiveKitServer

        server = LiveKitServer(log_path=args.out / "livekit.log")
        args.out.mkdir(parents=True, exist_ok=True)
        conn = server.start()
        try:
            for name, min_s in CONFIGS.items():
                run_config(name, min_s, args.out / name, conn, args.trials)
        finally:
            server.stop()
    if args.speech_level_ms is not None:
        import dataclasses

        from floorbench.audio import edges

        old = dataclasses.replace(edges.EDGE_RULES, speech_level_ms=args.speech_level_ms)
        assert edges.speech_edge.__kwdefaults__ is not None
        edges.speech_edge.__kwdefaults__["rules"] = old  # as floorbench read stops with that span
    rows = [r for name in CONFIGS if (args.out / name).is_dir() for r in compare(args.out / name, name, args.rejudge)]
    report(rows)


if __name__ == "__main__":
    main()
