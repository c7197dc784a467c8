"""The `webrtc` bridge's own delay on loopback, each way, and the round trip through an echoing product.

No room here: the bridge processor (floorbench/processors/webrtc.py) runs in
this process under pipecat's test runner, fed real-time 20 ms frames of
speech-like bursts (tone bursts with pauses); the product is an echo in a
process of its own (tests/support/webrtc_servers.py: a real pipecat
SmallWebRTC bot for ``--style pipecat``, an aiortc WHIP endpoint for
``whip``), so Opus, SRTP and both jitter buffers are real.

Printed per run:

- ``room_to_model``: room audio entering the bridge → handed to the Opus
  encoder (p50/p95 over every 20 ms frame);
- ``model_to_room``: an RTP packet from the product arriving → its decoded
  audio pushed towards the room;
- ``round trip``: from a burst's first loud frame entering the bridge to the
  first loud frame of its echo leaving it: both bridge directions, the wire
  both ways and the product's own receive path and pipeline — an upper bound
  on what the bridge adds to one reply.

    python benchmarks/webrtc_bridge.py --style pipecat --seconds 20 --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RATE = 16000


def _signal(seconds: float) -> np.ndarray:
    """Bursts of 300-900 ms of a 300 Hz tone with 200-700 ms pauses (a fixed seed)."""
    rng = np.random.default_rng(7)
    parts: list[np.ndarray] = []
    total = 0
    while total < seconds * RATE:
        on, off = int(rng.integers(300, 900)) * RATE // 1000, int(rng.integers(200, 700)) * RATE // 1000
        t = np.arange(on) / RATE
        parts += [(0.3 * 32767 * np.sin(2 * np.pi * 300 * t)).astype(np.int16), np.zeros(off, dtype=np.int16)]
        total += on + off
    return np.concatenate(parts)


def _onsets(frames: list[tuple[float, np.ndarray]], rate: int) -> list[float]:
    """Times of the frames where sound starts after ≥ 100 ms of quiet."""
    quiet_ms, out = 100.0, []
    for t, x in frames:
        if np.abs(x.astype(np.int32)).max(initial=0) > 3000:
            if quiet_ms >= 100:
                out.append(t)
            quiet_ms = 0.0
        else:
            quiet_ms += len(x) * 1000 / rate
    return out


async def one_run(style: str, seconds: float, work: Path, prefetch: int) -> dict:
    from pipecat.frames.frames import OutputAudioRawFrame
    from pipecat.tests.utils import SleepFrame, run_test

    from floorbench.processors.registry import ModelContext, create_model
    from tests.support.audio import input_frames
    from tests.support.webrtc_servers import ProductProcess

    pcm = _signal(seconds)
    with ProductProcess(style, work / f"{style}.json", echo=True) as product:
        config = {"signalling": style, "url": product.endpoint, "receive_prefetch_packets": prefetch}
        (proc,) = create_model(ModelContext(name="webrtc", config=config)).processors()
        sent: list[tuple[float, np.ndarray]] = []
        got: list[tuple[float, np.ndarray]] = []
        on_room_audio, push_frame = proc.on_room_audio, proc.push_frame  # type: ignore[attr-defined]

        async def heard(frame):  # the time each input frame entered the bridge
            sent.append((time.monotonic(), np.frombuffer(frame.audio, dtype=np.int16)))
            await on_room_audio(frame)

        async def pushed(frame, *args):  # the time each output frame left it
            if isinstance(frame, OutputAudioRawFrame):
                got.append((time.monotonic(), np.frombuffer(frame.audio, dtype=np.int16)))
            await push_frame(frame, *args)

        proc.on_room_audio, proc.push_frame = heard, pushed  # type: ignore[attr-defined]
        frames: list = [SleepFrame(sleep=2.0)]
        for f in input_frames(pcm):
            frames += [f, SleepFrame(sleep=0.02)]
        await run_test(proc, frames_to_send=[*frames, SleepFrame(sleep=1.0)])
    trips = []
    out_times = _onsets(got, proc.out_rate)  # type: ignore[attr-defined]
    for t_on in _onsets(sent, RATE):
        later = [t for t in out_times if t >= t_on]
        if later and later[0] - t_on < 2.0:
            trips.append((later[0] - t_on) * 1000)
    m = proc.measures()  # type: ignore[attr-defined]
    return {
        "style": style,
        "receive_prefetch_packets": prefetch,
        **{k: m[k] for k in ("room_to_model", "model_to_room")},
        "round_trip_ms": {"n": len(trips), "p50": round(float(np.percentile(trips, 50)), 1),
                          "p95": round(float(np.percentile(trips, 95)), 1)} if trips else {"n": 0},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--style", choices=["pipecat", "whip"], default="pipecat")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--prefetch", type=int, default=4, help="the bridge's receive_prefetch_packets")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            r = asyncio.run(one_run(args.style, args.seconds, Path(tmp), args.prefetch))
            results.append(r)
            print(json.dumps(r), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
