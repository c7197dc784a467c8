"""Barge-in benchmark: how fast does a pipeline model stop talking when a human talks over it?

In a real LiveKit room (a managed server on 127.0.0.1, or ``--livekit-url``),
the model runs in its own child process exactly as in a floorbench run
(LiveKitTransport → model processors → LiveKitTransport). A driver
participant, in this process, repeats one trial after another:

1. it asks the model something (Piper speech: "Aria, is there a pharmacy near
   the station?"), which the cascade answers at some length;
2. once the model's audio has been arriving for a random 0.4–1.4 s, it talks
   over it ("Never mind, I found it.");
3. the **stop latency** is the time from the interruption's speech onset
   leaving the driver (capture time, plus what was still queued in its
   AudioSource, plus the clip's leading silence) to the first 10 ms frame of the model's audio that begins
   ≥ 300 ms of silence (–40 dBFS), as received by the driver. The driver
   starts talking over a loud frame (not inside a pause between words), and
   only a silence that begins after the interruption counts.

So a latency includes one trip driver → SFU → model and one trip model → SFU
→ driver (≈ 2 × 20–50 ms on loopback), the model's own reaction, and its
output queues. A trial where the model had already stopped, or never
started, is counted apart, not measured. The model's own barge-in markers
(the cascade's ``detect_delay_ms``/``stop_ms``) are collected beside it.

    python benchmarks/bargein.py --trials 20 --out runs/bargein.json
    python benchmarks/bargein.py --model cascade --config cascade

Prints p50/p95 and writes every trial to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000
FRAME = RATE // 100
QUESTIONS = [
    "Aria, is there a pharmacy near the station?",
    "Aria, what is the weather like tomorrow?",
    "Aria, do you know when the museum opens?",
    "Aria, can you tell me how late the bakery is open?",
    "Aria, is the swimming pool open on Sundays?",
]
INTERRUPTIONS = [
    "Never mind, I found it.",
    "Wait, stop, we already know.",
    "Actually, forget it, thanks.",
    "Hold on, I see it on the sign.",
]


@dataclass
class Trial:
    index: int
    outcome: str = "measured"  # measured | no_onset | already_stopped | no_stop
    question: str = ""
    interruption: str = ""
    talked_over_after_ms: int = 0
    stop_latency_ms: int | None = None
    restarted_within_2s: bool = False
    model_marker: dict[str, Any] | None = None


@dataclass
class ModelTrack:
    """Arrival-time view of the model's audio at the driver: speaking or not, and since when."""

    threshold_db: float = -40.0
    speaking: bool = False
    onset_t: float = 0.0
    loud_run: int = 0
    quiet_run: int = 0
    quiet_since: float = 0.0
    frames: int = 0
    events: list[tuple[str, float]] = field(default_factory=list)

    def feed(self, pcm: np.ndarray, t: float) -> None:
        self.frames += 1
        x = pcm.astype(np.float64) / 32768.0
        loud = 20 * np.log10(np.sqrt(np.mean(x**2)) + 1e-12) > self.threshold_db
        if loud:
            self.loud_run += 1
            if self.quiet_run:
                self.quiet_run = 0
            if not self.speaking and self.loud_run >= 3:
                self.speaking, self.onset_t = True, t - 0.02
                self.events.append(("onset", self.onset_t))
        else:
            self.loud_run = 0
            if self.quiet_run == 0:
                self.quiet_since = t
            self.quiet_run += 1
            if self.speaking and self.quiet_run >= 30:
                self.speaking = False
                self.events.append(("offset", self.quiet_since))


class Driver:
    def __init__(self, conn: Any, room: str, model_identity: str) -> None:
        from livekit import rtc

        self.rtc = rtc
        self.conn, self.room_name, self.model_identity = conn, room, model_identity
        self.room = rtc.Room()
        self.source = rtc.AudioSource(RATE, 1, queue_size_ms=100)
        self.track = ModelTrack()
        self.markers: list[dict[str, Any]] = []
        self.model_audio = asyncio.Event()

    async def connect(self) -> None:
        from floorbench.transports.rooms import token

        rtc = self.rtc

        @self.room.on("track_subscribed")
        def _sub(track: Any, pub: Any, p: Any) -> None:
            if p.identity == self.model_identity and track.kind == rtc.TrackKind.KIND_AUDIO:
                asyncio.ensure_future(self._listen(track))  # noqa: RUF006

        @self.room.on("data_received")
        def _data(packet: Any) -> None:
            try:
                msg = json.loads(packet.data.decode())
            except Exception:
                return
            if isinstance(msg, dict) and msg.get("event") == "barge_in":
                self.markers.append(msg)

        await self.room.connect(self.conn.url, token(self.conn, self.room_name, "humans-driver"))
        lt = rtc.LocalAudioTrack.create_audio_track("humans", self.source)
        opts = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE, dtx=False, red=False)
        await self.room.local_participant.publish_track(lt, opts)

    async def _listen(self, track: Any) -> None:
        self.model_audio.set()
        async for ev in self.rtc.AudioStream(track, sample_rate=RATE, num_channels=1):
            self.track.feed(np.frombuffer(ev.frame.data, dtype=np.int16), time.monotonic())

    async def say(self, pcm: np.ndarray) -> float:
        """Play `pcm`; return the monotonic time its first sample leaves the AudioSource."""
        first = time.monotonic() + self.source.queued_duration
        for i in range(0, len(pcm) - FRAME + 1, FRAME):
            f = self.rtc.AudioFrame(pcm[i : i + FRAME].tobytes(), RATE, 1, FRAME)
            await self.source.capture_frame(f)
        return first

    async def wait_until(self, cond: Any, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if cond():
                return True
            await asyncio.sleep(0.005)
        return False


def speech_onset_s(pcm: np.ndarray, threshold_db: float = -40.0) -> float:
    """Where speech starts inside a clip (TTS clips begin with some silence)."""
    frames = pcm[: len(pcm) // FRAME * FRAME].astype(np.float64).reshape(-1, FRAME) / 32768.0
    env = 20 * np.log10(np.sqrt((frames**2).mean(axis=1)) + 1e-12)
    loud = np.flatnonzero(env > threshold_db)
    return float(loud[0] * FRAME / RATE) if len(loud) else 0.0


def speech(text: str) -> np.ndarray:
    from floorbench.processors.cascade_speech import Voice, packaged_piper_joe

    global _VOICE
    if "_VOICE" not in globals():
        _VOICE = Voice(str(packaged_piper_joe()), RATE)
    import threading

    return np.concatenate(list(_VOICE.sentences(text, threading.Event())))


async def run_trials(driver: Driver, n: int, rng: random.Random) -> list[Trial]:
    trials: list[Trial] = []
    clips_q = {q: speech(q) for q in QUESTIONS}
    clips_i = {t: speech(t) for t in INTERRUPTIONS}
    for k in range(n):
        tr = Trial(k, question=rng.choice(QUESTIONS), interruption=rng.choice(INTERRUPTIONS))
        trk = driver.track
        await driver.wait_until(lambda trk=trk: not trk.speaking, 10)
        n_events = len(trk.events)
        await driver.say(clips_q[tr.question])
        started = await driver.wait_until(
            lambda trk=trk, n0=n_events: any(e == "onset" for e, _ in trk.events[n0:]), 8
        )
        if not started:
            tr.outcome = "no_onset"
            trials.append(tr)
            continue
        onset_t = trk.onset_t
        tr.talked_over_after_ms = int(rng.uniform(400, 1400))
        await asyncio.sleep(max(0.0, onset_t + tr.talked_over_after_ms / 1000 - time.monotonic()))
        # talk over *sound*, not over a pause between words
        if not trk.speaking or not await driver.wait_until(lambda trk=trk: trk.loud_run > 0, 1.0):
            tr.outcome = "already_stopped"
            trials.append(tr)
            continue
        n_markers = len(driver.markers)
        n_events = len(trk.events)
        say = asyncio.create_task(driver.say(clips_i[tr.interruption]))
        await asyncio.sleep(0)
        # from the interruption's speech onset, not from the silence a TTS clip starts with
        leave_t = time.monotonic() + driver.source.queued_duration + speech_onset_s(clips_i[tr.interruption])
        stopped = await driver.wait_until(
            lambda trk=trk, n0=n_events: any(e == "offset" for e, _ in trk.events[n0:]), 6
        )
        await say
        if not stopped:
            tr.outcome = "no_stop"
        else:
            off_t = next(t for e, t in trk.events[n_events:] if e == "offset")
            tr.stop_latency_ms = int((off_t - leave_t) * 1000)
            # restarted within 2 s of stopping?
            await asyncio.sleep(max(0.0, off_t + 2.0 - time.monotonic()))
            tr.restarted_within_2s = any(e == "onset" and t > off_t for e, t in trk.events[n_events:])
        tr.model_marker = driver.markers[n_markers] if len(driver.markers) > n_markers else None
        trials.append(tr)
        print(
            f"trial {k + 1}/{n}: {tr.outcome} stop latency {tr.stop_latency_ms} ms "
            f"(talked over after {tr.talked_over_after_ms} ms)",
            file=sys.stderr,
            flush=True,
        )
        await asyncio.sleep(1.5)  # let the model hear the interruption out and stay quiet
    return trials


def summarize(trials: list[Trial]) -> dict[str, Any]:
    lat = sorted(t.stop_latency_ms for t in trials if t.stop_latency_ms is not None)
    out: dict[str, Any] = {"n_trials": len(trials), "n_measured": len(lat)}
    for kind in ("no_onset", "already_stopped", "no_stop"):
        out[kind] = sum(1 for t in trials if t.outcome == kind)
    out["restarted_within_2s"] = sum(1 for t in trials if t.restarted_within_2s)
    if lat:
        out.update(
            p50_ms=int(np.percentile(lat, 50)),
            p95_ms=int(np.percentile(lat, 95)),
            mean_ms=int(statistics.mean(lat)),
            min_ms=lat[0],
            max_ms=lat[-1],
        )
    det = [
        t.model_marker["detect_delay_ms"] for t in trials if t.model_marker and t.stop_latency_ms is not None
    ]
    if det:
        out["model_detect_delay_p50_ms"] = int(np.percentile(det, 50))
    return out


async def main_async(args: argparse.Namespace, config: dict[str, Any]) -> dict[str, Any]:
    from floorbench.pipelines.room.model_messages import ModelSpec
    from floorbench.pipelines.run.model_process import ModelProcess
    from floorbench.processors.registry import ModelContext, create_model
    from floorbench.transports.rooms import model_token
    from floorbench.transports.server import LiveKitConnection, LiveKitServer

    model = create_model(ModelContext(name=args.model, config=config))  # config errors first
    if model.joins != "pipeline":
        raise SystemExit(f"{args.model}: barge-in is measured for pipeline models only")
    server = None
    conn = LiveKitConnection.from_env(args.livekit_url) if args.livekit_url else None
    if conn is None:
        server = LiveKitServer()
        conn = await asyncio.to_thread(server.start)
    room = f"bargein-{int(time.time())}"
    tmp = Path(tempfile.mkdtemp(prefix="floorbench-bargein-"))
    spec = ModelSpec(
        url=conn.url,
        token=model_token(conn, room, "model"),
        room=room,
        identity="model",
        model=args.model,
        config=config,
        in_sample_rate=16000,
        out_sample_rate=24000,
        out_queue_ms=100,
        parent_pid=os.getpid(),
        max_lifetime_s=None,
    )
    proc = ModelProcess(spec, tmp / "model.log")
    driver = Driver(conn, room, "model")
    # SIGTERM/SIGINT cancel the benchmark so that `finally` stops the model process
    # (it runs in its own session and would otherwise outlive us).
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        if task is not None:
            loop.add_signal_handler(sig, task.cancel)
    try:
        await proc.start(60)
        await driver.connect()
        if not await asyncio.wait_for(driver.model_audio.wait(), 30):
            raise SystemExit("the model never published audio")
        await asyncio.sleep(3.0)  # the cascade loads its models
        trials = await run_trials(driver, args.trials, random.Random(args.seed))
    finally:
        await driver.room.disconnect()
        await proc.stop()
        if server is not None:
            server.stop()
    card = model.card()
    result = {
        "benchmark": "bargein",
        "model": card,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "definition": "interruption's first sample leaving the driver → first frame of ≥300 ms model silence "
        "(-40 dBFS) received by the driver; includes both SFU legs",
        "summary": summarize(trials),
        "trials": [asdict(t) for t in trials],
        "model_log": str(tmp / "model.log"),
    }
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="cascade")
    ap.add_argument("--config", help="model config YAML, or a packaged one by name (cascade)")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--livekit-url", help="existing server (LIVEKIT_API_KEY/SECRET from env)")
    ap.add_argument("--out", type=Path, help="write the full result JSON here")
    args = ap.parse_args()
    import yaml

    from floorbench.scenarios.files import resolve_model_config

    config = yaml.safe_load(resolve_model_config(args.config).read_text()) if args.config else {}
    result = asyncio.run(main_async(args, config or {}))
    s = result["summary"]
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    print(json.dumps(s))
    if "p50_ms" in s:
        print(f"barge-in stop latency: p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms (n={s['n_measured']})")


if __name__ == "__main__":
    main()
