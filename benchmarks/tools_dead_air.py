"""Benchmark: `dead_air_ms` against an agent whose silence during a tool call is set, live.

    flock /tmp/floorbench-live.lock .venv/bin/python benchmarks/tools_dead_air.py            # 4 delays × 4 trials
    .venv/bin/python benchmarks/tools_dead_air.py --delays 500,1000 --trials 3 --json

The stand-in is the `oracle` reference agent with a test's tools
(`floorbench.suites.agent.tool_oracle`): after the caller's line it starts its
filler and the call together, and says its answer the moment the call returns;
the filler and the answer start at their first speech sample and end in
silence to a whole output chunk. With the tool's latency set to the filler's
speech plus D, the agent is silent for D between the filler and the answer
(its set delay), plus its own reaction (a few ms). Each D is a test of its
own, played in real LiveKit rooms by `floorbench test`; `dead_air_ms` is judged
from the recording and the mock's records as any test's.

The truth is what the agent sent: its own record of every frame it handed its
source and when (``model.sent.wav`` / ``.tsv``, on the session clock). Its
speech is read there by the rule the voices are trimmed by and the recording
is read by (`floorbench.audio.edges.speech_edge`: within 40 dB of the loudest
10 ms nearby), so a quiet voice or a soft last consonant is speech on both
sides; runs are split at silences of 300 ms, as `dead_air_ms` splits the
agent's speech. The benchmark prints, per delay and over all trials, p50 and
p95 of |error| and the signed median: the error of `dead_air_ms` against that
sent silence, and against the set delay D. `--voice` picks the stand-in's
voice (flite, Piper, espeak: each says the filler its own way).

    .venv/bin/python benchmarks/tools_dead_air.py --rejudge OUT   # score a kept --out again, no rooms
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUIET_DB = 40.0
"""the agent's sent audio is speech within this many dB of its loudest 10 ms (the voices' trimming rule)"""


def filler_ms(voice: str, rate: int = 24000) -> int:
    """The stand-in's filler as it says it: its speech, first sample to last, at the model's output rate."""
    from floorbench.audio.edges import clip_speech
    from floorbench.speech.tts import synthesize
    from floorbench.suites.agent.tool_oracle import FILLER

    edges = clip_speech(synthesize(FILLER, voice, rate), rate)
    assert edges is not None
    return (edges[1] - edges[0]) * 1000 // rate


def test_file(delays: list[int], filler: int) -> str:
    lines = ["tests:"]
    for d in delays:
        lines += [
            f"  - name: delay-{d}",
            "    tools:",
            "      - name: lookup_order",
            "        parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}",
            f"        latency_ms: {filler + d}",
            "        respond: [{returns: {status: shipped}}]",
            "    steps:",
            "      - say: Where is my order four two seven?",
            "        reply: Your order has shipped.",
            f"        expect: {{calls_tool: {{name: lookup_order, arguments: {{order_id: '427'}}}}, dead_air_ms: {d}}}",
        ]
    return "\n".join(lines) + "\n"


def speech_runs(x: np.ndarray, rate: int, bridge_ms: int = 300) -> list[tuple[int, int]]:
    """The speech of a clean track as (first sample, one past the last) runs, silences under `bridge_ms` bridged:
    10 ms frames within `QUIET_DB` of the loudest mark it, and each run's ends go to their energy edge (quieter
    gaps under `bridge_ms` inside it bridged, as the judge reads the recording: `tool_checks.refined_speech`)."""
    from dataclasses import replace

    from floorbench.audio.edges import EDGE_RULES, speech_edge

    rules = replace(EDGE_RULES, bridge_ms=bridge_ms)
    frame = rate // 100
    n = len(x) // frame
    p = (np.asarray(x[: n * frame], dtype=np.float64).reshape(n, frame) ** 2).mean(axis=1)
    db = 10 * np.log10(np.maximum(p, 1e-12))
    voiced = np.flatnonzero(db > db.max() - QUIET_DB) if n else np.empty(0, dtype=int)
    coarse: list[list[int]] = []
    for k in voiced.tolist():
        if coarse and (k - coarse[-1][1]) * 10 < bridge_ms:
            coarse[-1][1] = k + 1
        else:
            coarse.append([k, k + 1])
    out = []
    for i, (a, b) in enumerate(coarse):
        lo = (coarse[i - 1][1] + a) * frame // 2 if i else 0
        hi = (b + coarse[i + 1][0]) * frame // 2 if i + 1 < len(coarse) else len(x)
        out.append((speech_edge(x, rate, a * frame, "onset", lo=lo, hi=hi, rules=rules),
                    speech_edge(x, rate, b * frame, "offset", lo=lo, hi=hi, rules=rules)))
    return out


def sent_silence(folder: Path, start_ms: int, end_ms: int) -> int | None:
    """The longest silence the agent *sent* that overlaps the call (session ms), from model.sent.*."""
    import soundfile as sf

    from floorbench.pipelines.room.sender_log import read_sent_clock, sent_paths

    wav, tsv = sent_paths(folder, "model")
    if not wav.is_file() or not tsv.is_file():
        return None
    x, rate = sf.read(str(wav), dtype="int16", always_2d=False)
    clock = read_sent_clock(tsv, int(rate))
    runs = [(clock.time_ns(a) // 1_000_000, clock.time_ns(b) // 1_000_000) for a, b in speech_runs(x, int(rate))]
    if not runs:
        return None
    worst = 0
    for (_, e0), (s1, _) in itertools.pairwise(runs):
        if e0 < end_ms and s1 > start_ms:
            worst = max(worst, s1 - e0)
    return worst


def judged(out: Path) -> list[dict[str, object]]:
    """Each trial: its set delay, the measured dead_air_ms and the silence the agent sent."""
    from floorbench.suites.agent.score import score_trials
    from floorbench.tools.records import read_tools

    rows = []
    for t in score_trials(out / "run"):
        d = int(str(t["test"]).removeprefix("delay-"))
        v = next((a.get("value") for a in t["assertions"] if a["check"] == "dead_air_ms"), None)
        rec = read_tools(out / "run" / str(t["scenario_id"]))
        call = rec.calls[0] if rec is not None and rec.calls else None
        truth = sent_silence(out / "run" / str(t["scenario_id"]), call.start_ms, call.end_ms) if call else None
        rows.append({"delay": d, "measured": v, "sent": truth})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delays", default="400,800,1200,1600", help="set delays D, ms")
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("-j", "--concurrency", default="2")
    ap.add_argument("--keep", type=Path, help="keep the test run's folder here")
    ap.add_argument("--rejudge", type=Path, help="score a kept run folder again (no rooms)")
    ap.add_argument("--voice", default="flite:kal16", help="the stand-in's voice: flite:kal16, piper, espeak:en, …")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    delays = [int(x) for x in args.delays.split(",")]
    filler = filler_ms(args.voice)
    if args.rejudge is not None:
        rows = judged(args.rejudge)
    else:
        with tempfile.TemporaryDirectory(prefix="fb-dead-air-") as tmp:
            f = Path(tmp) / "dead_air.yaml"
            f.write_text(test_file(delays, filler))
            config = Path(tmp) / "stand-in.yaml"
            config.write_text(f"adapter: oracle\nvoice: {args.voice}\n")
            out = args.keep or Path(tmp) / "out"
            cmd = [str(ROOT / ".venv/bin/floorbench"), "test", str(f), "--config", str(config), "--trials",
                   str(args.trials), "-j", args.concurrency, "--out", str(out), "--quiet"]
            subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=sys.stderr, env=os.environ.copy())
            rows = judged(out)
    report(rows, filler, args.json)


def stats(err: list[float]) -> dict[str, float | int | None]:
    if not err:
        return {"n": 0, "abs_p50_ms": None, "abs_p95_ms": None, "median_ms": None}
    a = np.abs(err)
    return {"n": len(err), "abs_p50_ms": float(np.percentile(a, 50)), "abs_p95_ms": float(np.percentile(a, 95)),
            "median_ms": float(np.median(err))}


def report(rows: list[dict[str, object]], filler: int, as_json: bool) -> None:
    ok = [r for r in rows if r["measured"] is not None and r["sent"] is not None]
    by: dict[int, list[dict[str, object]]] = {}
    for r in ok:
        by.setdefault(int(str(r["delay"])), []).append(r)
    vs_sent = {d: [float(str(r["measured"])) - float(str(r["sent"])) for r in rs] for d, rs in by.items()}
    vs_set = {d: [float(str(r["measured"])) - d for r in rs] for d, rs in by.items()}
    every = [e for v in vs_sent.values() for e in v]
    out = {"filler_ms": filler, "trials": len(rows), "not_measured": len(rows) - len(ok),
           "vs_sent": {str(d): {**stats(v), "errors_ms": v} for d, v in vs_sent.items()},
           "vs_set": {str(d): {**stats(v), "errors_ms": v} for d, v in vs_set.items()},
           "all_vs_sent": stats(every), "all_vs_set": stats([e for v in vs_set.values() for e in v]),
           "within_20_ms_of_sent": sum(abs(e) <= 20 for e in every),
           "within_20_ms_of_set": sum(abs(e) <= 20 for v in vs_set.values() for e in v)}
    if as_json:
        print(json.dumps(out, indent=2))
        return

    def fmt(x: object) -> str:
        return "–" if x is None else f"{float(str(x)):.0f}"

    print(f"dead_air_ms against the silence the agent sent, and against the set delay D "
          f"({len(rows)} trials, {out['not_measured']} not measured; filler about {filler} ms)")
    print(f"{'D ms':>6} {'n':>3} | vs sent: {'|e| p50':>7} {'|e| p95':>7} {'median':>7} | vs D: {'|e| p50':>7} "
          f"{'|e| p95':>7} {'median':>7} | errors vs sent, ms")
    for d in sorted(by):
        a, b = stats(vs_sent[d]), stats(vs_set[d])
        print(f"{d:>6} {a['n']:>3} |          {fmt(a['abs_p50_ms']):>7} {fmt(a['abs_p95_ms']):>7} {fmt(a['median_ms']):>7} |"
              f"       {fmt(b['abs_p50_ms']):>7} {fmt(b['abs_p95_ms']):>7} {fmt(b['median_ms']):>7} | "
              + ", ".join(f"{e:+.0f}" for e in vs_sent[d]))
    a, b = out["all_vs_sent"], out["all_vs_set"]
    assert isinstance(a, dict) and isinstance(b, dict)
    print(f"{'all':>6} {a['n']:>3} |          {fmt(a['abs_p50_ms']):>7} {fmt(a['abs_p95_ms']):>7} {fmt(a['median_ms']):>7} |"
          f"       {fmt(b['abs_p50_ms']):>7} {fmt(b['abs_p95_ms']):>7} {fmt(b['median_ms']):>7} | "
          f"within 20 ms of the sent silence: {out['within_20_ms_of_sent']}/{len(every)}, "
          f"of D: {out['within_20_ms_of_set']}/{len(every)}")


if __name__ == "__main__":
    main()
