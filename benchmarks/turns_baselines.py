"""Benchmark: suite turns live — reference agents and the two cascade endpointing baselines side by side.

    .venv/bin/python benchmarks/turns_baselines.py --dialogues 5 --seed 0 --out runs/turns-bench
    .venv/bin/python benchmarks/turns_baselines.py --systems cascade-silero,cascade-smart-turn

It generates and renders a turns suite (`--dialogues`, `--seed`), runs each
system live one after the other (`floorbench run`, a managed LiveKit server
each), scores each run (`floorbench score`) and prints one JSON line per
system: both tracks' recall, false-positive rate and latency p10/p50/p90,
the takeover rate per event type, clips not run, and the timing verdicts
(numbers from a machine whose verdicts say `degraded` are not comparable).

Systems: `oracle` (response_delay_ms 300), `eager`, `silent`, and the cascade in
dyadic mode with `turn_detector: silence` (Silero alone) or `smart_turn_v3`
(pipecat's bundled Smart Turn v3 after the silence).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

SYSTEMS: dict[str, tuple[str, dict[str, object]]] = {
    "oracle": ("oracle", {"response_delay_ms": 300}),
    "eager": ("eager", {}),
    "silent": ("silent", {}),
    "cascade-silero": ("cascade", {"dyadic": True, "turn_detector": "silence"}),
    "cascade-smart-turn": ("cascade", {"dyadic": True, "turn_detector": "smart_turn_v3"}),
}
FB = [sys.executable, "-m", "floorbench.cli"]


def run(args: list[str]) -> None:
    subprocess.run([*FB, *args], check=True)


def summary(name: str, scored: Path, run_dir: Path) -> dict[str, object]:
    s = json.loads((scored / "turns_scores.json").read_text())
    verdicts = [json.loads(p.read_text()).get("timing", {}).get("verdict") for p in sorted(run_dir.glob("*/meta.json"))]
    tracks = {k: {"recall": t["recall"], "fp_rate": t["fp_rate"], "latency_ms": t["latency_ms"],
                  "tp_fn_fp_tn": [t["tp"], t["fn"], t["fp"], t["tn"]]} for k, t in s["tracks"].items()}
    return {"system": name, "tracks": tracks, "takeover_rate": {k: v["rate"] for k, v in s["takeover_rate"].items()},
            "not_run": s["not_run"], "verdicts": {v: verdicts.count(v) for v in set(verdicts)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dialogues", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("runs/turns-bench"))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    a = ap.parse_args()
    suite = a.out / "suite"
    if not (suite / "suite.yaml").is_file():
        run(["generate", "--suite", "turns", "--pairs", str(a.dialogues), "--seed", str(a.seed), "--out", str(suite)])
        run(["render", str(suite)])
    for name in a.systems.split(","):
        model, config = SYSTEMS[name]
        cfg = a.out / f"{name}.yaml"
        cfg.write_text(yaml.safe_dump({"adapter": model, **config}))
        run_dir, scored = a.out / f"run-{name}", a.out / f"scored-{name}"
        run(["run", "--suite", str(suite), "--config", str(cfg), "--out", str(run_dir)])
        run(["score", str(run_dir), "--out", str(scored), "--resamples", "1000", "--workers", "1"])
        print(json.dumps(summary(name, scored, run_dir)), flush=True)


if __name__ == "__main__":
    main()
