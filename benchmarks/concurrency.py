"""Concurrency benchmark: how many rooms at once this machine holds with every scenario's timing `ok`.

For each N, runs N scenarios at once (`run --concurrency N`, one managed
LiveKit server on 127.0.0.1, one model process per room) with a light model,
and prints per N:

- onset error p50 / p99 (ms, |error| over every found turn of every scenario);
- worst |drift| (ms per 100 s) and transport latency p95 (ms, playback → recorder);
- playback underruns (sum) and turns not found;
- timing verdicts (ok / degraded) and outcomes, twice: the deciding one, every
  track timed at its sender (meta.json ``timing``), and beside it the verdict the
  receiver-clock figures alone would get (``timing_receiver``, as before the
  sender records);
- the recorder's jitter buffers (meta.json ``receivers``): per track the samples
  it inserted, removed and concealed (ms, summed over the scenarios) and the
  largest stretch they bound; the model's hearing (the largest humans → model
  spread) and its sender slips;
- CPU in cores: this process plus its children (model processes, the LiveKit
  server), from `resource.getrusage`, over the wall time; and what one room
  costs: CPU-seconds per second of dialogue, runner + children (model
  processes and server), start-up included;
- throughput: dialogue-hours recorded per wall-hour;
- where a room's CPU went: per process role (runner, model, server) and thread
  (Python's main thread, libwebrtc's Opus encoders, playout devices, network and
  worker threads, the SDK's tokio runtime), sampled from /proc (`thread_cpu.py`).

Then "largest N with every scenario ok". Each N plays N × --per-room scenarios:
the suite's scenarios, copied under new ids (``<id>-c<k>``) when N needs more
than the suite has, so every room plays real scenario audio.

    .venv/bin/python benchmarks/concurrency.py --suite tests/fixtures/suites/tiny --n 1 2 4 8 --model silent
    .venv/bin/python benchmarks/concurrency.py --suite example --n 1 2 4 --model oracle

The tiny suite's scenarios last about 30 s each, the example suite's about 85 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from thread_cpu import ThreadCpu, breakdown_lines

from floorbench.pipelines.run.runner import RunOptions, run_suite
from floorbench.scenarios.files import resolve_suite
from floorbench.scenarios.validate import load_suite


def cpu_s() -> tuple[float, float]:
    """CPU seconds of this process (the runner) and of its reaped children (model processes, the server)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def widened_suite(suite: Path, count: int, into: Path) -> Path:
    """A copy of `suite` with at least `count` scenarios: its own, then copies under new ids."""
    loaded = load_suite(suite)
    dest = into / "suite"
    shutil.copytree(suite, dest, ignore=shutil.ignore_patterns("scenarios"))
    (dest / "scenarios").mkdir()
    k = 0
    while k * len(loaded.scenarios) < count:
        for sid, path in loaded.files.items():
            data = yaml.safe_load(path.read_text())
            if k:
                data["scenario_id"], data["pair_id"] = f"{sid}-c{k}", f"{data['pair_id']}-c{k}"
            (dest / "scenarios" / f"{data['scenario_id']}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        k += 1
    return dest


def measure(out: Path, wall_s: float, cpu: tuple[float, float], n: int) -> dict[str, Any]:
    """The figures of one N from its scenarios' meta.json files; `cpu` is (runner, children) CPU seconds."""
    errors, latencies, drifts = [], [], []
    row: dict[str, Any] = {"n": n, "wall_s": wall_s, "cores": sum(cpu) / wall_s, "cpu": cpu, "underruns": 0, "not_found": 0,
                           "ok": 0, "degraded": 0, "recv_ok": 0, "recv_degraded": 0, "failed": 0, "dialogue_s": 0.0,
                           "neteq": {}, "heard_spread_us": [], "heard_correction_us": [], "heard_uncertain_us": [],
                           "model_slips": 0}
    for path in sorted(out.glob("*/meta.json")):
        meta = json.loads(path.read_text())
        if meta["outcome"] != "completed":
            row["failed"] += 1
            print(f"  {meta['scenario_id']}: {meta['outcome']} ({meta.get('failure_reason')})")
            continue
        row["dialogue_s"] += meta["duration_ms"] / 1000
        timing = meta.get("timing") or {}
        receiver = meta.get("timing_receiver") or {}
        row["ok" if timing.get("verdict") == "ok" else "degraded"] += 1
        row["recv_ok" if receiver.get("verdict") == "ok" else "recv_degraded"] += 1
        if timing.get("verdict") != "ok":
            print(f"  {meta['scenario_id']}: timing degraded: {'; '.join(timing.get('reasons') or [])}")
        if receiver.get("verdict") != "ok":
            print(f"  {meta['scenario_id']}: (receiver clock) degraded: {'; '.join(receiver.get('reasons') or [])}")
        figures = receiver.get("figures") or timing.get("figures") or {}
        row["not_found"] += figures.get("turns_not_found") or 0
        sender = timing.get("figures") or {}
        for key in ("heard_spread_us", "heard_correction_max_us", "heard_uncertain_us"):
            if sender.get(key) is not None:
                row[key.replace("_max", "")].append(sender[key])
        row["model_slips"] += sender.get("model_slips") or 0
        for track, c in (meta.get("receivers") or {}).items():
            agg = row["neteq"].setdefault(track, {"ins": 0.0, "rem": 0.0, "conc": 0.0, "stretch": [], "delay": []})
            rate = c.get("clock_rate") or 48000
            agg["ins"] += 1000 * (c.get("inserted_samples_for_deceleration") or 0) / rate
            agg["rem"] += 1000 * (c.get("removed_samples_for_acceleration") or 0) / rate
            agg["conc"] += 1000 * (c.get("concealed_samples") or 0) / rate
            if c.get("stretch_us") is not None:
                agg["stretch"].append(c["stretch_us"])
            if c.get("jitter_buffer_delay_ms") is not None:
                agg["delay"].append(c["jitter_buffer_delay_ms"])
        pb = meta.get("playback", {})
        row["underruns"] += pb.get("underruns") or 0
        errors += [abs(e["error_ms"]) for e in pb.get("turn_onset_error_ms", [])]
        latencies += [e["latency_ms"] for e in pb.get("turn_onset_error_ms", [])]
        d = (meta.get("transport_latency_ms") or {}).get("humans", {}).get("drift_ms_per_100s")
        if d is not None:
            drifts.append(abs(d))

    def pct(xs: list[float], q: float) -> float:
        return float(np.percentile(xs, q)) if xs else float("nan")

    row |= {"onset_p50": pct(errors, 50), "onset_p99": pct(errors, 99), "drift_max": max(drifts, default=float("nan")),
            "latency_p95": pct(latencies, 95), "throughput": row["dialogue_s"] / wall_s}
    # CPU-seconds per second of dialogue recorded: what one room costs, split by process
    per = row["dialogue_s"] or float("nan")
    row["per_room"] = (cpu[0] / per, cpu[1] / per)
    return row


def run_one(suite: Path, model: str, n: int, per_room: int, out: Path, processes: int = 1) -> dict[str, Any]:
    ids = [s.scenario_id for s in load_suite(suite).scenarios][: n * per_room]
    t0, c0 = time.monotonic(), cpu_s()
    threads = ThreadCpu().start()
    asyncio.run(run_suite(RunOptions(suite=suite, model=model, out=out, scenarios=ids, progress=False,
                                     progress_lines=True, concurrency=n, processes=min(processes, n))))
    roles = threads.stop()
    c1 = cpu_s()
    row = measure(out, time.monotonic() - t0, (c1[0] - c0[0], c1[1] - c0[1]), n)
    row["threads"] = roles
    return row


HEADER = ("N", "wall s", "onset p50 ms", "onset p99 ms", "worst drift ms/100s", "latency p95 ms", "underruns",
          "not found", "ok", "degraded", "failed", "cores", "core per room: runner + children", "dialogue-h / wall-h")


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        cells = [r["n"], f"{r['wall_s']:.0f}", f"{r['onset_p50']:.2f}", f"{r['onset_p99']:.2f}",
                 f"{r['drift_max']:.2f}", f"{r['latency_p95']:.0f}", r["underruns"], r["not_found"], r["ok"],
                 r["degraded"], r["failed"], f"{r['cores']:.2f}",
                 f"{r['per_room'][0]:.3f} + {r['per_room'][1]:.3f}", f"{r['throughput']:.2f}"]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


VERDICT_HEADER = ("N", "ok / degraded: sender clock (deciding)", "ok / degraded: receiver clock (before)",
                  "humans jitter buffer: inserted / removed / concealed ms; max stretch µs; mean delay ms",
                  "model jitter buffer: inserted / removed / concealed ms; max stretch µs; mean delay ms",
                  "max humans → model spread µs", "max taken off a reply µs", "max reply unsure µs", "model slips")


def verdict_table(rows: list[dict[str, Any]]) -> str:
    """Both verdicts side by side, and what the recorder's jitter buffers did (summed over the scenarios)."""

    def buf(r: dict[str, Any], track: str) -> str:
        a = r["neteq"].get(track)
        if not a:
            return "—"
        stretch = max(a["stretch"], default=0)
        delay = f"{np.mean(a['delay']):.1f}" if a["delay"] else "—"
        return f"{a['ins']:.1f} / {a['rem']:.1f} / {a['conc']:.1f}; {stretch}; {delay}"

    lines = ["| " + " | ".join(VERDICT_HEADER) + " |", "|" + "---|" * len(VERDICT_HEADER)]
    for r in rows:
        cells = [r["n"], f"{r['ok']} / {r['degraded']}", f"{r['recv_ok']} / {r['recv_degraded']}", buf(r, "humans"),
                 buf(r, "model"), max(r["heard_spread_us"], default="—"), max(r["heard_correction_us"], default="—"),
                 max(r["heard_uncertain_us"], default="—"), r["model_slips"]]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="tests/fixtures/suites/tiny", help="suite folder or packaged suite name")
    ap.add_argument("--n", type=int, nargs="+", default=[1, 2, 4, 8], help="rooms at once, one run each")
    ap.add_argument("--per-room", type=int, default=1, help="scenarios each room plays in turn")
    ap.add_argument("--model", default="silent", help="a light model: silent, echo, oracle")
    ap.add_argument("--out", type=Path, default=None, help="keep the run folders here")
    ap.add_argument("--processes", type=int, default=1,
                    help="rooms spread over this many worker processes (`run --processes`; at most N)")
    args = ap.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="fb-concurrency-"))
    work.mkdir(parents=True, exist_ok=True)
    suite = widened_suite(resolve_suite(args.suite), max(args.n) * args.per_room, work)
    rows = []
    for n in args.n:
        print(f"== N={n}: {n * args.per_room} scenarios of {args.suite}, model {args.model}", flush=True)
        rows.append(run_one(suite, args.model, n, args.per_room, work / f"n{n}", args.processes))
    print(table(rows))
    print("timing verdicts, sender clock beside receiver clock, and the recorder's jitter buffers:")
    print(verdict_table(rows))
    print("where a room's CPU went (CPU-seconds per second of dialogue, by process and thread; benchmarks/thread_cpu.py):")
    for r in rows:
        print(f"N={r['n']}")
        print("\n".join(breakdown_lines(r["threads"], r["dialogue_s"])))
    all_ok = [r["n"] for r in rows if r["failed"] == 0 and r["degraded"] == 0]
    recv_ok = [r["n"] for r in rows if r["failed"] == 0 and r["recv_degraded"] == 0]
    print(f"largest N with every scenario ok: {max(all_ok) if all_ok else 'none'} on the sender clock, "
          f"{max(recv_ok) if recv_ok else 'none'} on the receiver clock  (runs in {work})")


if __name__ == "__main__":
    main()
