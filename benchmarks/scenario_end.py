"""CPU spent at the end of a scenario measuring where each turn landed (``measure_latency``).

It runs while the other rooms of a ``--concurrency`` run are still playing, so
every CPU-second here is taken from them. Replays a recorded scenario folder
(``humans.sent.wav``, ``humans.wav``, ``timeline.jsonl``, ``meta.json``) with
the current window-energy code and with the direct convolution it replaced,
and checks both find the same lags.

    .venv/bin/python benchmarks/scenario_end.py RUN_FOLDER/SCENARIO_ID [...]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import soundfile as sf

from floorbench.audio import alignment
from floorbench.pipelines.run.turn_mapping import measure_latency, turn_entries
from floorbench.records import read_timeline


def direct_window_sums(x: np.ndarray, width: int) -> np.ndarray:
    """The code before: a full convolution with a box of ``width`` ones."""
    return np.convolve(x, np.ones(width), "valid")


def measure(folder: Path) -> tuple[float, list[int]]:
    meta = json.loads((folder / "meta.json").read_text())
    starts, _ = turn_entries(read_timeline(folder / "timeline.jsonl"))
    sent, sr_sent = sf.read(str(folder / "humans.sent.wav"), dtype="int16")
    rec, sr_rec = sf.read(str(folder / "humans.wav"), dtype="int16")
    t = time.process_time()
    lat = measure_latency(sent, sr_sent, rec, sr_rec, starts, meta["tracks"]["humans"]["start_ns"])
    return time.process_time() - t, [lg.lag for lg in lat.lags]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    args = ap.parse_args()
    print("scenario | turns | CPU s now | CPU s before | ratio | same lags")
    for folder in args.folders:
        now_s, lags_now = measure(folder)
        current = alignment.window_sums
        alignment.window_sums = direct_window_sums
        try:
            before_s, lags_before = measure(folder)
        finally:
            alignment.window_sums = current
        print(f"{folder.name} | {len(lags_now)} | {now_s:.3f} | {before_s:.2f} | {before_s / max(now_s, 1e-6):.0f}x | "
              f"{lags_now == lags_before}")


if __name__ == "__main__":
    main()
