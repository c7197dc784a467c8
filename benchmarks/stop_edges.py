"""The agent's stops and the caller's starts, on VAD's windows and at the energy edge (docs/testing.md, "Where a
step and a stop are timed").

For every trial of a `floorbench test` output folder run against a model floorbench runs (so its sent
track, model.sent.wav, is kept):

- **stops**: each end of the agent's speech that VAD finds in model.wav (pauses of 300 ms cut, as a yield
  is read) against the truth — where the last speech sample the model *sent* before it landed in
  model.wav: the sent run's end (audible at −40 dBFS, the sender timing's rule, then taken to the sent
  speech's own 40 dB range), its last 60 ms found in model.wav by cross-correlation. The error is given
  on VAD's window edge (before) and at the energy edge (after);
- **starts**: each barge-in's and backchannel's lead, from its clip's first sample to its first speech
  sample as sent;
- **yields and backchannels**: each `yields_within_ms` / `keeps_talking` value as scored before (clip
  start, VAD end) and now.

    .venv/bin/python benchmarks/stop_edges.py runs/basic-tests
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.audio.alignment import best_match
from floorbench.audio.edges import speech_edge
from floorbench.audio.track_alignment import audible_runs
from floorbench.audio.vad import VadRules, probabilities_to_segments, speech_probabilities
from floorbench.records import read_timeline
from floorbench.scoring.inputs import read_model_track
from floorbench.suites.agent.assertions import Evidence, Placed, keeps_talking, yields_within
from floorbench.suites.agent.rules import AgentRules, StepKind
from floorbench.suites.agent.timing import refined_stops, speech_offsets

RATE = 16000
MS = RATE // 1000


def sent_model(folder: Path) -> np.ndarray | None:
    path = folder / "model.sent.wav"
    if not path.is_file():
        return None
    x, sr = sf.read(str(path), dtype="float32", always_2d=False)
    if sr != RATE:
        import soxr

        x = soxr.resample(x, sr, RATE)
    return np.clip(np.rint(np.asarray(x) * 32768), -32768, 32767).astype(np.int16)


def true_end(rec: np.ndarray, sent: np.ndarray, e: int, s: int) -> int | None:
    """Where the sent run that ends near model.wav sample `e` ended, in model.wav (None: not found)."""
    a = max(s, e - 400 * MS)
    win = rec[a : min(e - 150 * MS, a + 250 * MS)].astype(np.float64)
    if len(win) < 80 * MS:
        return None
    pos, score = best_match(win, sent.astype(np.float64), 0, len(sent))
    if score < 0.8:
        return None
    lag = pos - a  # sent index = recorded index + lag
    runs = [r for r in audible_runs(sent, RATE, min_gap_ms=300) if r[0] <= e + lag]  # the run going at VAD's end
    if not runs:
        return None
    run = runs[-1]
    end = speech_edge(sent, RATE, run[1], "offset")  # the sent speech's own last sample (its 40 dB range)
    tail = sent[end - 60 * MS : end].astype(np.float64)
    guess = end - 60 * MS - lag
    r, score = best_match(tail, rec.astype(np.float64), guess - 30 * MS, guess + 30 * MS)
    return r + 60 * MS if score >= 0.8 else None


def trial(folder: Path, rules: AgentRules) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"stop_before": [], "stop_after": [], "lead": [], "yield_before": [],
                                   "yield_after": [], "keep_before": [], "keep_after": []}
    sent = sent_model(folder)
    rec = read_model_track(folder / "model.wav")[0]
    dur = len(rec) // MS
    probs = speech_probabilities(rec)
    fine = probabilities_to_segments(probs, VadRules(merge_gap_ms=rules.yield_gap_ms))
    merged = probabilities_to_segments(probs, VadRules())
    fine_r, merged_r = refined_stops(fine, rec, dur), refined_stops(merged, rec, dur)
    if sent is not None:
        for (s, e), (_, e2) in zip(fine, fine_r, strict=True):
            if e >= dur - 40:
                continue
            t = true_end(rec, sent, e * MS, s * MS)
            if t is not None:
                out["stop_before"].append(e - t / MS)
                out["stop_after"].append(e2 - t / MS)
    meta = json.loads((folder / "meta.json").read_text())
    turns = {t["turn_id"]: t for t in json.loads((folder / "turns.json").read_text())["turns"]}
    events = read_timeline(folder / "timeline.jsonl")
    offsets = speech_offsets(folder, events)
    for st in meta["schedule"]["steps"]:
        kind, clip = StepKind(st["kind"]), st.get("clip")
        if kind not in (StepKind.barge_in, StepKind.backchannel) or clip not in turns:
            continue
        t = turns[clip]
        lead, tail = offsets.get(clip, (0, 0))
        out["lead"].append(lead)
        padded = Placed(t["start_ms"], t["end_ms"])
        exact = Placed(t["start_ms"], t["end_ms"], t["start_ms"] + lead, t["end_ms"] - tail)
        n = int(st["n"])
        for label, placed, segs, fines in (("before", padded, merged, fine), ("after", exact, merged_r, fine_r)):
            ev = Evidence(placed={n: placed}, segments=segs, fine=fines, duration_ms=dur)
            if kind is StepKind.barge_in:
                v = yields_within([], ev, n, 10**6, rules).value
                if v is not None:
                    out[f"yield_{label}"].append(v)
            else:
                v = keeps_talking([], ev, n, rules.keep_talking_ms).value
                if v is not None:
                    out[f"keep_{label}"].append(v)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="a `floorbench test` --out folder (or its run/ folder)")
    args = ap.parse_args()
    run = args.out / "run" if (args.out / "run").is_dir() else args.out
    rules = AgentRules()
    total: dict[str, list[float]] = {}
    for folder in sorted(p for p in run.iterdir() if (p / "turns.json").is_file() and (p / "model.wav").is_file()):
        got = trial(folder, rules)
        for k, v in got.items():
            total.setdefault(k, []).extend(v)
        print(folder.name, {k: [round(x) for x in v] for k, v in got.items() if v})
    for k, v in total.items():
        if v:
            a = np.asarray(v)
            print(f"{k:13s} n={len(a):3d}  median {np.median(a):+7.1f}  min {a.min():+7.1f}  max {a.max():+7.1f} ms")


if __name__ == "__main__":
    main()
