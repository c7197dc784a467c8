"""Benchmark: the acoustic conditions on real rendered turns — measured SNR and RT60 per profile, render speed.

    .venv/bin/python benchmarks/acoustics.py                       # the example suite's scenarios, 16 kHz
    .venv/bin/python benchmarks/acoustics.py --profiles cafe,cafe+snr0 --rate 24000 --json

Per profile, every scenario of the packaged example suite is rendered as the runner renders it
(floorbench.speech.acoustics.render: its clips and its noise bed), twice, to check the bytes are the
same. Printed per profile: the SNR it asks for, the SNR measured at the microphone and after the
telephone line (on the rendered clips and bed), the SNR of a whole track as the playback would send
it (the scenario's clips 500 ms apart with the bed under them, measured from that track and its
clean copy alone), the room's target and measured RT60, and the render time per second of audio
(the first profile with babble pays for synthesising the talkers once).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

DEFAULT_PROFILES = "office,car,cafe,phone,cafe+phone,reverb,cafe+snr0,cafe+snr5,office+snr30,car+phone"


def track_of(clips: list[np.ndarray], cleans: list[np.ndarray], rate: int) -> tuple[np.ndarray, np.ndarray]:
    gap = np.zeros(rate // 2, dtype=np.int16)
    sent = np.concatenate([gap] + [x for c in clips for x in (c, gap)])
    clean = np.concatenate([gap] + [x for c in cleans for x in (c, gap)])
    return sent, clean


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profiles", default=DEFAULT_PROFILES)
    ap.add_argument("--rate", type=int, default=16000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = ap.parse_args()

    from floorbench.pipelines.run.scenario_run import load_audio
    from floorbench.scenarios.files import resolve_suite
    from floorbench.scenarios.validate import load_suite
    from floorbench.speech.acoustics import LiveAcoustics, estimate_snr_db, parse_acoustics, render

    suite = load_suite(resolve_suite(Path("example")))
    scenarios = [
        (s.scenario_id, {f"turn {t.id}": load_audio(suite.audio_path(t.audio), args.rate, s.scenario_id) for t in s.turns if t.audio})
        for s in suite.scenarios
    ]
    audio_s = sum(len(x) for _, clips in scenarios for x in clips.values()) / args.rate
    rows = []
    for name in args.profiles.split(","):
        profile = parse_acoustics(name, args.seed)
        t0 = time.perf_counter()
        done = [render(profile, args.rate, clips, sid) for sid, clips in scenarios]
        wall = time.perf_counter() - t0
        again = [render(profile, args.rate, clips, sid) for sid, clips in scenarios]
        same = all(_digest(a) == _digest(b) for a, b in zip(done, again, strict=True))
        tracks = []
        for (_, clean), d in zip(scenarios, done, strict=True):
            if d.bed is None:
                continue
            live = LiveAcoustics.of(d, clean)
            sent, kept = track_of([d.clips[k] for k in clean], [clean[k] for k in clean], args.rate)
            tracks.append(estimate_snr_db(live.add_bed(sent, 0), kept, args.rate))
        rec = [d.record for d in done]
        rows.append({
            "profile": name,
            "snr_db": profile.snr_db,
            "snr_measured_db": _span(r.get("snr_measured_db") for r in rec),
            "snr_phone_db": _span(r.get("snr_phone_db") for r in rec),
            "snr_sent_track_db": _span(tracks),
            "rt60_ms": rec[0].get("rt60_ms"),
            "rt60_measured_ms": _span(r.get("rt60_measured_ms") for r in rec),
            "render_ms_per_audio_s": round(1000 * wall / audio_s, 2),
            "same_bytes_twice": same,
        })
    out = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores", "rate": args.rate, "seed": args.seed,
        "scenarios": len(scenarios), "audio_s": round(audio_s, 1), "profiles": rows,
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{out['machine']}; {len(scenarios)} scenarios, {audio_s:.1f} s of turns at {args.rate} Hz, seed {args.seed}")
    head = ("profile", "snr", "measured", "after phone", "sent track", "rt60", "rt60 meas.", "ms/audio s", "same")
    print("  ".join(f"{h:>12s}" for h in head))
    for r in rows:
        cells = [r["profile"], r["snr_db"], r["snr_measured_db"], r["snr_phone_db"], r["snr_sent_track_db"],
                 r["rt60_ms"], r["rt60_measured_ms"], r["render_ms_per_audio_s"], r["same_bytes_twice"]]
        print("  ".join(f"{'-' if c is None else str(c):>12s}" for c in cells))


def _digest(d: object) -> str:
    h = hashlib.sha256()
    for k in sorted(d.clips):  # type: ignore[attr-defined]
        h.update(d.clips[k].tobytes())  # type: ignore[attr-defined]
    if d.bed is not None:  # type: ignore[attr-defined]
        h.update(d.bed.tobytes())  # type: ignore[attr-defined]
    return h.hexdigest()


def _span(values: object) -> str | None:
    """min..max of the scenarios' values (one value when they agree)."""
    got = [float(v) for v in values if v is not None]  # type: ignore[attr-defined]
    if not got:
        return None
    lo, hi = min(got), max(got)
    return f"{lo:g}" if lo == hi else f"{lo:g}..{hi:g}"


if __name__ == "__main__":
    main()
