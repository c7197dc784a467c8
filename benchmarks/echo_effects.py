"""What the agent's own echo does: the cascade and the reference agent with and without `+echo` (docs/acoustics.md).

Runs the example suite (or its first `--limit` scenarios) four times — cascade and oracle, clean
and under `--acoustics echo:ERL,DELAY` — one room at a time, scores each run, and prints per run
the echo realised (humans.echo.json), the model's speech quality, its cut-offs and
self-interruptions, and the usual metrics, so the differences can be quoted. `--runs DIR...`
only summarises runs already made (scored or not).

    flock /tmp/floorbench-live.lock .venv/bin/python benchmarks/echo_effects.py --limit 1 --out runs/echo
    .venv/bin/python benchmarks/echo_effects.py --runs runs/echo/cascade-clean runs/echo/cascade-echo
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

FLOORBENCH = [sys.executable, "-c", "from floorbench.cli import main; main()"]
METRICS = ("fresh_onset_rate", "conditional_accuracy", "silence_keeping", "response_presence")


def run_all(out: Path, limit: int, echo: str) -> list[Path]:
    runs = []
    for model in ("cascade", "oracle"):
        for name, extra in (("clean", []), ("echo", ["--acoustics", echo])):
            folder = out / f"{model}-{name}"
            cmd = [*FLOORBENCH, "run", "--suite", "example", "--model", model, "--out", str(folder),
                   "--concurrency", "1", "--limit", str(limit), *extra]
            subprocess.run(cmd, check=True)
            runs.append(folder)
    return runs


def summarise(folder: Path) -> dict[str, object]:
    scored = folder.parent / f"{folder.name}-scored"
    subprocess.run([*FLOORBENCH, "score", str(folder), "--out", str(scored)], check=True, capture_output=True)
    scores = json.loads((scored / "scores.json").read_text(encoding="utf-8"))
    q = scores.get("speech_quality") or {}
    echoes = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*/humans.echo.json"))]
    metrics = {k: [(c["metrics"][k]["value"], c["metrics"][k]["n"]) for c in scores["conditions"].values()]
               for k in METRICS}
    return {
        "run": folder.name,
        "echo": [f"{e['erl_db']:g} dB, {e['realised_delay_ms']} ms, {e['late_ms']} ms late" for e in echoes] or "none",
        "mos": (q.get("run") or {}).get("mean"), "turns": (q.get("run") or {}).get("n"),
        "self_interruptions": q.get("self_interruptions"), "restarts": q.get("restarts"),
        "cut_offs": q.get("cut_offs"), **metrics,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("runs/echo-effects"))
    ap.add_argument("--limit", type=int, default=8)
    ap.add_argument("--echo", default="echo:6,300")
    ap.add_argument("--runs", type=Path, nargs="*", help="summarise these runs instead of making new ones")
    args = ap.parse_args()
    runs = args.runs if args.runs else run_all(args.out, args.limit, args.echo)
    for folder in runs:
        print(json.dumps(summarise(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
