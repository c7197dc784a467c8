"""Benchmark: suite av live — the audio-only cascade against the cascade that looks (`cascade-vision`).

    .venv/bin/python benchmarks/av_baselines.py --per-dynamic 2 --seed 0 --out runs/av-bench
    .venv/bin/python benchmarks/av_baselines.py --dynamics raised_hand,head_shake --systems cascade,cascade-vision
    .venv/bin/python benchmarks/av_baselines.py --out runs/av-bench --rescore   # score existing runs again
    .venv/bin/python benchmarks/av_baselines.py --look-cost   # the detector's CPU per look, no room

It generates a synthetic av suite (`floorbench generate --suite av`, drawn
person, local voices; skipped when `--out`/suite exists), runs each system
live one after the other (`floorbench run`, a managed LiveKit server each),
scores each run (`floorbench score`, which detects suite av) and prints one
JSON line per system:

- ``tor``: TOR alignment per category (aligned/n, the clip-bootstrap 95 %
  interval) and overall; the acceptance is cascade-vision above cascade on
  ``must_yield``;
- ``latency_ms``: median and p90 per category (the scorer's definitions);
- ``speech_in_window_ms``: median model speech inside the window per category
  (how long it kept talking over a raised hand or a head shake);
- ``vision``: per dynamic, clips where cascade-vision decided to yield or hold
  and the median delay from the event window's start to that decision (the
  decision's marker on the timeline, session clock);
- ``unscorable`` clips and the rooms' timing verdicts (numbers from rooms whose
  verdict is ``degraded`` are not comparable);
- ``against_derivation`` (``silent``, ``eager``): clips whose live outcome is
  what the rules derive from the scenario (floorbench/suites/av/expected.py),
  and the clips that differ (borderline ones apart).

Then one last line compares the systems' must_yield alignment.

``--look-cost`` instead times the vision detector alone on the suite's drawn
person (every dynamic's cue, 320×240): wall and CPU ms per look (p50, p90,
max) and the share of one core it takes at the baseline's 8 looks a second.

Systems: ``cascade`` (dyadic, audio only: it hears a raised hand only if it
makes a sound), ``cascade-vision`` (the same cascade plus the vision cue
detector, floorbench/processors/vision_cue.py), and for reference ``oracle``,
``eager``, ``silent``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

SYSTEMS: dict[str, tuple[str, dict[str, object]]] = {
    "cascade": ("cascade", {"dyadic": True}),
    "cascade-vision": ("cascade-vision", {}),
    "oracle": ("oracle", {}),
    "eager": ("eager", {}),
    "silent": ("silent", {}),
}
FB = [sys.executable, "-m", "floorbench.cli"]


def run(args: list[str], lock: Path | None = None) -> None:
    """One floorbench command; a live one under `flock LOCK` when several people share the machine."""
    subprocess.run([*(["flock", str(lock)] if lock else []), *FB, *args], check=True)


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def vision_decisions(folder: Path) -> tuple[int | None, list[dict[str, Any]]]:
    """(event window start, vision decisions) from a scenario's timeline, both on the session clock."""
    window_start, decisions = None, []
    path = folder / "timeline.jsonl"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []
    for line in lines:
        try:
            e = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "window_start_ms" in e:
            window_start = int(e["window_start_ms"])
        payload = e.get("payload") if e.get("kind") == "marker" else None
        if not isinstance(payload, str) or "vision_cue" not in payload:
            continue
        try:
            record = json.loads(payload)
        except json.JSONDecodeError:
            continue
        if record.get("event") == "vision_cue":
            decisions.append(
                {"t_ms": int(e["t_ms"]), "cue": record.get("cue"), "decision": record.get("decision")}
            )
    return window_start, decisions


def vision_summary(run_dir: Path, clips: list[dict[str, Any]]) -> dict[str, Any]:
    """Per dynamic: clips with a yield / a hold decision, and the median delay from the window's start."""
    out: dict[str, Any] = {}
    for clip in clips:
        window_start, decisions = vision_decisions(run_dir / clip["folder"])
        row = out.setdefault(clip["dynamic"], {"clips": 0, "yield": 0, "hold": 0, "delays_ms": []})
        row["clips"] += 1
        for kind in ("yield", "hold"):
            mine = [d for d in decisions if d["decision"] == kind]
            row[kind] += int(bool(mine))
            if mine and window_start is not None:
                row["delays_ms"].append(min(d["t_ms"] for d in mine) - window_start)
    for row in out.values():
        row["decision_delay_p50_ms"] = _median(row.pop("delays_ms"))
    return dict(sorted(out.items()))


def summary(name: str, scored: Path, run_dir: Path) -> dict[str, Any]:
    s = json.loads((scored / "av_scores.json").read_text())
    verdicts = [
        json.loads(p.read_text()).get("timing", {}).get("verdict")
        for p in sorted(run_dir.glob("*/meta.json"))
    ]
    by_category: dict[str, list[float]] = {}
    for c in s["clips"]:
        by_category.setdefault(c["category"], []).append(c["speech_in_window_ms"])
    return {
        "system": name,
        "tor": {
            k: {"aligned": v["aligned"], "n": v["n"], "tor_alignment": v["tor_alignment"], "ci": v["ci"]}
            for k, v in s["tor_alignment"].items()
        },
        "latency_ms": {
            k: {"p50": v["p50"], "p90": v["p90"], "n": v["n"]} for k, v in s["latency_ms"].items()
        },
        "speech_in_window_ms": {k: _median(v) for k, v in sorted(by_category.items())},
        "vision": vision_summary(run_dir, s["clips"]) if name == "cascade-vision" else None,
        "unscorable": [(u["scenario_id"], u.get("reason", "")) for u in s["unscorable"]],
        "verdicts": {str(v): verdicts.count(v) for v in set(verdicts)},
    }


def look_cost(rounds: int) -> dict[str, Any]:
    """The detector's cost per look on the suite's drawn person (no room, no pipeline)."""
    import time

    from floorbench.processors.vision_cue import VisionSettings
    from floorbench.processors.vision_detect import CueTracker, FrameReader
    from floorbench.suites.av.draw import draw_frame
    from floorbench.suites.av.generate import cue_pose
    from floorbench.suites.av.rules import Dynamic

    frames = [draw_frame(cue_pose(d.value, t, 1600)) for d in Dynamic for t in range(0, 1600, 125)]
    reader, tracker = FrameReader(), CueTracker()
    wall, cpu = [], []
    for r in range(rounds):
        for i, f in enumerate(frames):
            t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
            tracker.update((r * len(frames) + i) * 125, reader.read(f))
            wall.append((time.perf_counter_ns() - t0) / 1e6)
            cpu.append((time.thread_time_ns() - c0) / 1e6)

    def pct(v: list[float], q: float) -> float:
        return round(sorted(v)[min(len(v) - 1, int(q * len(v)))], 2)

    fps = VisionSettings().fps
    return {
        "looks": len(wall),
        "frame": list(frames[0].shape[1::-1]),
        "wall_ms": {"p50": pct(wall, 0.5), "p90": pct(wall, 0.9), "max": round(max(wall), 2)},
        "cpu_ms": {"p50": pct(cpu, 0.5), "p90": pct(cpu, 0.9), "max": round(max(cpu), 2)},
        "core_share_at_fps": {"fps": fps, "share": round(statistics.mean(cpu) * fps / 1000, 3)},
    }


def against_derivation(name: str, suite: Path, scored: Path) -> dict[str, Any] | None:
    """For `silent` and `eager`: each clip's live outcome beside what the rules derive for it
    (floorbench.suites.av.expected), so "scores what its behaviour implies" is checked clip by clip.

    A clip counts as matching when it is unscorable in both, or scorable in both with the same
    alignment; a mismatch on a clip the derivation marks ``borderline`` is listed apart (a live run may
    honestly land on either side of it)."""
    if name not in ("silent", "eager"):
        return None
    from floorbench.processors.reference import DEFAULT_REPLIES, DEFAULT_VOICE
    from floorbench.suites.av.expected import eager_from_tts, expected_for_suite
    from floorbench.suites.av.schema import AvScenario

    scenarios = [AvScenario.model_validate(yaml.safe_load(p.read_text())) for p in sorted((suite / "scenarios").glob("*.yaml"))]
    eager = eager_from_tts(DEFAULT_REPLIES, DEFAULT_VOICE) if name == "eager" else None
    expected = expected_for_suite(scenarios, suite, name, eager)
    s = json.loads((scored / "av_scores.json").read_text())
    live: dict[str, bool | None] = {c["scenario_id"]: bool(c["aligned"]) for c in s["clips"]}
    live |= {u["scenario_id"]: None for u in s["unscorable"]}
    match, differ, borderline = 0, [], []
    for sid, e in sorted(expected.items()):
        want = None if e.unscorable is not None else bool(e.aligned)
        got = live.get(sid, None)
        if got == want:
            match += 1
        else:
            (borderline if e.borderline else differ).append({"scenario_id": sid, "derived": want, "live": got,
                                                            "borderline": e.borderline})
    return {"clips": len(expected), "as_derived": match, "differ": differ, "differ_borderline": borderline}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-dynamic", type=int, default=2)
    ap.add_argument("--dynamics", default=None, help="comma-separated dynamics (default: all eleven)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("runs/av-bench"))
    ap.add_argument("--systems", default="cascade,cascade-vision")
    ap.add_argument("--rescore", action="store_true", help="score the runs already in --out, run nothing")
    ap.add_argument("--look-cost", action="store_true", help="time the vision detector alone and stop")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="rooms at once in each system's run (run -j)")
    ap.add_argument("--lock", type=Path, default=None, help="run each system's live run under `flock LOCK`")
    a = ap.parse_args()
    if a.look_cost:
        print(json.dumps(look_cost(rounds=3)), flush=True)
        return
    suite = a.out / "suite"
    if not (suite / "suite.yaml").is_file() and not a.rescore:
        gen = ["generate", "--suite", "av", "--per-dynamic", str(a.per_dynamic), "--seed", str(a.seed)]
        run([*gen, *(["--dynamics", a.dynamics] if a.dynamics else []), "--out", str(suite)])
    results: dict[str, dict[str, Any]] = {}
    for name in a.systems.split(","):
        model, config = SYSTEMS[name]
        run_dir, scored = a.out / f"run-{name}", a.out / f"scored-{name}"
        if not a.rescore:
            cfg = a.out / f"{name}.yaml"
            cfg.write_text(yaml.safe_dump({"adapter": model, **config}))
            live = ["run", "--suite", str(suite), "--config", str(cfg), "--out", str(run_dir), "--quiet", "-j", str(a.jobs)]
            run(live, lock=a.lock)
        run(["score", str(run_dir), "--out", str(scored), "--resamples", "1000", "--workers", "1"])
        results[name] = summary(name, scored, run_dir)
        results[name]["against_derivation"] = against_derivation(name, suite, scored)
        print(json.dumps(results[name]), flush=True)
    must = {k: r["tor"].get("must_yield", {}) for k, r in results.items()}
    print(
        json.dumps({"must_yield": {k: [v.get("aligned"), v.get("n")] for k, v in must.items()}}), flush=True
    )


if __name__ == "__main__":
    main()
