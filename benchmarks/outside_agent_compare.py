"""The comparison half of `outside_agent_stops.py`: floorbench's figures per step against the agent's own log.

Clocks: every figure is put on the wall clock of the one machine. A floorbench figure is in ms of the trial's
recordings; sample 0 of model.wav is at ``meta.anchor.wall_ns + tracks.model.start_ns``. The agent logged
wall-clock ns (`time.time_ns()`) itself.

Legs, measured per event from the agent's own audio (not from floorbench's reading):

- **agent → room** (`out_leg`): the agent's played audio, placed on the wall clock by its own log, matched
  with model.wav over the 300 ms before the end of each of its runs of speech: how much later the room heard
  those samples than the agent played them (the trial's median);
- **room → agent** (`in_leg`): the caller's audio as the agent heard it (arrival times of its frames),
  matched with humans.wav over the 300 ms from the caller's start: how much later the agent heard it.

Per barge-in and backchannel step:

- ``stop``: floorbench's stop less `out_leg`, against the agent's last speech sample as played (like with
  like, both on the agent's sending clock); ``stop_raw`` keeps the leg in;
- ``start``: floorbench's caller start (as the room heard it) against the agent's onset as it heard it,
  less `in_leg`;
- ``yield``: floorbench's `yields_within_ms` value against the agent's stop (plus `out_leg`) less its heard
  onset (less `in_leg`): the same legs counted on both sides; ``yield_raw``: against the agent's own yield
  figure (heard onset to last speech played), so with both legs in floorbench's and neither in the agent's;
- ``verdict``: the assertion's verdict against what the agent's log says (its stop within the limit of the
  caller's start; still speaking `keep_ms` after the backchannel's last speech sample).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.records import read_timeline
from floorbench.suites.agent.timing import speech_offsets

RATE = 16000
NS = 1e9 / RATE
KEEP_MERGE_NS = 800 * 10**6  # keeps_talking's "still speaking": pauses under 800 ms merged


@dataclass
class Row:
    config: str
    trial: str
    check: str
    limit: float
    fb_value: float | None
    fb_passed: bool
    truth_passed: bool | None
    stop: float | None
    stop_raw: float | None
    start: float | None
    yield_err: float | None
    yield_raw: float | None
    out_leg: float | None
    in_leg: float | None
    note: str = ""


def _read16(path: Path) -> np.ndarray:
    x, sr = sf.read(str(path), dtype="float32", always_2d=False)
    if sr != RATE:
        import soxr

        x = soxr.resample(x, sr, RATE)
    return np.asarray(x, dtype=np.float64)


def placed_played(folder: Path, t0: int, n: int) -> np.ndarray:
    """The agent's played audio on the recording's 16 kHz grid (sample 0 at wall ns `t0`), cut where it
    cleared its queue. The log's sample numbers are at the agent's output rate."""
    raw, sr = sf.read(str(folder / "played.wav"), dtype="float32", always_2d=False)
    pcm = np.asarray(raw, dtype=np.float64)
    ns = 1e9 / sr
    rows = (folder / "played.tsv").read_text().split("\n")[1:]
    frames = [tuple(int(v) for v in r.split("\t")) for r in rows if r and not r.startswith("cut")]
    cuts = np.asarray(sorted(int(r.split("\t")[1]) for r in rows if r.startswith("cut")), dtype=np.int64)
    m = n * sr // RATE
    out = np.zeros(m)
    for i, (first, hand, play) in enumerate(frames):
        last = frames[i + 1][0] if i + 1 < len(frames) else len(pcm)
        seg = pcm[first:last]
        later = cuts[cuts >= hand]
        if len(later):
            seg = seg[: int(np.clip((later[0] - play) / ns, 0, len(seg)))]
        at = round((play - t0) / ns)
        a, b = max(0, at), min(m, at + len(seg))
        if b > a:
            out[a:b] = seg[a - at : b - at]
    if sr == RATE:
        return out
    import soxr

    return np.asarray(soxr.resample(out, sr, RATE), dtype=np.float64)[:n]


def placed_heard(folder: Path, t0: int, n: int) -> np.ndarray:
    """The caller's audio as the agent heard it, each frame ending where it arrived."""
    pcm = _read16(folder / "heard.wav")
    out = np.zeros(n)
    prev = 0
    for r in (folder / "heard.tsv").read_text().split("\n")[1:]:
        if not r:
            continue
        end, arrived = (int(v) for v in r.split("\t"))
        at = round((arrived - t0) / NS) - (end - prev)
        a, b = max(0, at), min(n, at + end - prev)
        if b > a:
            out[a:b] = pcm[prev + a - at : prev + b - at]
        prev = end
    return out


def lag_ms(ref: np.ndarray, other: np.ndarray, a: int, b: int, lo_ms: int = -60, hi_ms: int = 250) -> float | None:
    """How much later (ms) `other` holds `ref[a:b]`; None if no clear match."""
    win = ref[a:b]
    if b - a < RATE // 20 or not np.any(win):
        return None
    lo, hi = a + lo_ms * RATE // 1000, b + hi_ms * RATE // 1000
    if lo < 0 or hi > len(other):
        return None
    seg = other[lo:hi]
    c = np.correlate(seg, win, "valid")
    e = np.sqrt(np.convolve(seg**2, np.ones(len(win)), "valid") * float(win @ win))
    score = c / np.maximum(e, 1e-12)
    k = int(np.argmax(score))
    return (lo + k - a) * 1000 / RATE if score[k] >= 0.6 else None


def _covering(runs: list[tuple[int, int]], t: float, slack: float = 0.0) -> tuple[int, int] | None:
    return next(((s, e) for s, e in runs if s <= t <= e + slack), None)


def _merged(runs: list[tuple[int, int]], gap: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in runs:
        if out and s - out[-1][1] < gap:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def trial_rows(config: str, folder: Path, agent_dir: Path, judged: list[dict]) -> list[Row]:
    meta = json.loads((folder / "meta.json").read_text())
    log = agent_dir / meta["room"]
    if not (log / "summary.json").is_file():
        return []
    summary = json.loads((log / "summary.json").read_text())
    t0 = int(meta["anchor"]["wall_ns"]) + int(meta["tracks"]["model"]["start_ns"])
    rec, humans = _read16(folder / "model.wav"), _read16(folder / "humans.wav")
    played, heard = placed_played(log, t0, len(rec)), placed_heard(log, t0, len(humans))
    runs = [(int(r["first_ns"]), int(r["last_ns"])) for r in summary["runs"]]
    onsets = [int(o) for o in summary["caller_onsets"]]
    turns = {t["turn_id"]: t for t in json.loads((folder / "turns.json").read_text())["turns"]}
    offsets = speech_offsets(folder, read_timeline(folder / "timeline.jsonl"))
    result = next(t for t in judged if t["scenario_id"] == folder.name)
    wall = lambda ms: t0 + ms * 1e6  # noqa: E731
    # the agent -> room leg: its played audio matched with model.wav over the 300 ms before each run's end
    legs = [lag_ms(played, rec, max(0, i - 300 * RATE // 1000), i)
            for i in (round((e - t0) / NS) for _, e in runs)]
    found = [x for x in legs if x is not None]
    out_leg = float(np.median(found)) if found else None
    # the runs as the room heard them (a run the recording ended before is not heard)
    heard_runs = [] if out_leg is None else [(s + out_leg * 1e6, e + out_leg * 1e6) for s, e in runs
                                              if s + out_leg * 1e6 < wall(len(rec) * 1000 / RATE)]
    rows: list[Row] = []
    for st in meta["schedule"]["steps"]:
        if st["kind"] not in ("barge_in", "backchannel") or st.get("clip") not in turns:
            continue
        a = next((x for x in result["assertions"] if x["step"] == st["n"]), None)
        if a is None:
            continue
        t = turns[st["clip"]]
        lead, tail = offsets.get(st["clip"], (0, 0))
        start_ms, end_ms = t["start_ms"] + lead, t["end_ms"] - tail
        i0 = round(start_ms * RATE / 1000)
        in_leg = lag_ms(humans, heard, i0, i0 + 300 * RATE // 1000)
        heard_onset = next((o for o in onsets if o >= wall(start_ms) - 50e6), None)
        start = None if in_leg is None or heard_onset is None else (
            wall(start_ms) - (heard_onset - in_leg * 1e6)) / 1e6
        keep = st["kind"] == "backchannel"
        mine = _merged(heard_runs, KEEP_MERGE_NS) if keep else heard_runs
        # the agent's run going when the caller started (pauses under 300 ms: the yield's; a backchannel's, 800)
        run = _covering(mine, wall(start_ms), 0 if keep else 300e6)
        limit = float(st["expect"].get("yields_within_ms") or 0) if not keep else 500.0
        if isinstance(st["expect"].get("keeps_talking"), int) and not isinstance(st["expect"]["keeps_talking"], bool):
            limit = float(st["expect"]["keeps_talking"])
        value = a.get("value")
        fb_stop = None if value is None else (start_ms + value if not keep else end_ms + value)
        truth: bool | None = None
        stop = stop_raw = yerr = yraw = None
        note = a["measured"]
        if run is not None and run[1] >= wall(len(rec) * 1000 / RATE - 40):
            note += "; the agent's run outlasted the recording: no stop to compare"
            truth = True if keep else None  # still speaking at the end; a yield that never came is not judged here
        elif run is not None and out_leg is not None:
            room_stop = (run[1] - t0) / 1e6
            truth = (room_stop - end_ms >= limit) if keep else (room_stop - start_ms <= limit)
            if fb_stop is not None:
                stop = fb_stop - room_stop
                stop_raw = stop + out_leg
            own = next((y for y in summary["yields"] if abs(y["stop_ns"] + out_leg * 1e6 - run[1]) < 1e6), None)
            if not keep and value is not None and start is not None and heard_onset is not None:
                agent_yield = (run[1] - (heard_onset - (in_leg or 0) * 1e6)) / 1e6
                yerr = value - agent_yield
                if own is not None:
                    yraw = value - own["yield_ms"]
        rows.append(Row(config, folder.name, a["check"], limit, value, bool(a["passed"]), truth, stop, stop_raw,
                        start, yerr, yraw, out_leg, in_leg, note))
    return rows


def compare(out: Path, config: str, rejudge: bool = False) -> list[Row]:
    """Rows of one configuration's run; `rejudge`: its trials judged again by this floorbench (the recordings
    kept, the reading changed) instead of the verdicts `floorbench test` wrote."""
    run = out / "floorbench" / "run"
    rows: list[Row] = []
    if not (out / "floorbench" / "results.json").is_file():
        print(f"{config}: no results.json (floorbench test did not finish); left out")
        return rows
    if rejudge:
        from floorbench.suites.agent.score import score_trials

        judged = score_trials(run, cache_dir=out / "floorbench" / "scoring-cache")
    else:
        judged = json.loads((out / "floorbench" / "results.json").read_text())["trials"]
    for folder in sorted(p for p in run.iterdir() if (p / "meta.json").is_file()):
        rows += trial_rows(config, folder, out / "agent", judged)
    return rows


def _stats(name: str, v: list[float]) -> str:
    if not v:
        return f"{name:38s} n=0"
    a = np.asarray(v)
    return (f"{name:38s} n={len(a):2d}  median {np.median(a):+6.0f}  p90 |.| {np.percentile(np.abs(a), 90):5.0f}  "
            f"min {a.min():+6.0f}  max {a.max():+6.0f} ms")


def report(rows: list[Row]) -> None:
    f = lambda x: "   -" if x is None else f"{x:+5.0f}"  # noqa: E731
    print(f"{'config':16s} {'trial':26s} {'check':16s} {'fb':>6s} fb/log  stop  raw  start yield  yraw  out  in")
    for r in rows:
        v = "   -" if r.fb_value is None else f"{r.fb_value:6.0f}"
        tv = "?" if r.truth_passed is None else "PF"[not r.truth_passed]
        print(f"{r.config:16s} {r.trial:26s} {r.check:16s} {v} {'PF'[not r.fb_passed]}/{tv}  {f(r.stop)} {f(r.stop_raw)} "
              f"{f(r.start)} {f(r.yield_err)} {f(r.yield_raw)} {f(r.out_leg)} {f(r.in_leg)}  {r.note}")
    pick = lambda attr, check=None: [getattr(r, attr) for r in rows  # noqa: E731
                                     if getattr(r, attr) is not None and (check is None or r.check == check)]
    print(_stats("stop, legs out (fb - agent as played)", pick("stop")))
    print(_stats("stop, raw (agent->room leg in)", pick("stop_raw")))
    print(_stats("caller start (fb - agent heard, leg out)", pick("start")))
    print(_stats("yield, legs out", pick("yield_err")))
    print(_stats("yield, raw (vs the agent's own figure)", pick("yield_raw")))
    print(_stats("agent -> room leg", pick("out_leg")))
    print(_stats("room -> agent leg", pick("in_leg")))
    judged = [r for r in rows if r.truth_passed is not None]
    right = sum(r.fb_passed == r.truth_passed for r in judged)
    print(f"verdicts: {right} of {len(judged)} as the agent's log says ({len(rows) - len(judged)} not judged from "
          f"the log); passed {sum(r.fb_passed for r in rows)} of {len(rows)}")
