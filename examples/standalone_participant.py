"""A standalone LiveKit participant that behaves in a known way — a stand-in "product" for floorbench.

It uses only the LiveKit Python SDK (``livekit`` rtc, plus ``livekit-api`` to
mint a token when given a key/secret) and numpy: no floorbench code. Point
floorbench at it with ``--model external --identity NAME``.

Behaviours (``--mode``):

- ``periodic``: a tone burst of ``--burst-ms`` (880 Hz) every ``--period-s``
  seconds from the moment it joined, whatever it hears;
- ``reply``: after it hears sound for at least 300 ms followed by
  ``--gap-ms`` of quiet, it "answers" with a fixed two-tone clip of
  ``--burst-ms``; if sound starts again while it answers, it stops at once.

Sound is an energy gate (–40 dBFS over 10 ms) on every subscribed audio track.
Each burst it plays is logged as a JSON line (``--log``) with wall-clock
nanoseconds, so a test can compare what it did with what was recorded.

    python examples/standalone_participant.py --url ws://127.0.0.1:7880 \\
        --api-key devkey --api-secret secret --room ROOM --identity standalone --mode reply
    python examples/standalone_participant.py --url ws://… --token TOKEN
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time

import numpy as np
from livekit import rtc

RATE = 24000
FRAME = RATE // 100  # 10 ms


def clip(ms: int, freqs: tuple[float, ...], level: float = 0.3) -> np.ndarray:
    t = np.arange(RATE * ms // 1000) / RATE
    x = sum(np.sin(2 * np.pi * f * t) for f in freqs) / len(freqs)
    ramp = np.minimum(1.0, np.minimum(np.arange(len(t)), np.arange(len(t))[::-1]) / (RATE / 200))
    return (x * ramp * level * 32767).astype(np.int16)


class Participant:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.room = rtc.Room()
        self.source = rtc.AudioSource(RATE, 1, queue_size_ms=100)
        self.log = open(args.log, "a") if args.log else None
        freqs = (880.0,) if args.mode == "periodic" else (523.0, 784.0)
        self.burst = clip(args.burst_ms, freqs)
        self.play = asyncio.Event()
        self.stop_now = asyncio.Event()
        self.speaking = False
        self.voiced_ms = 0
        self.quiet_ms = 0
        self.heard = False
        self.t0 = time.monotonic()

    def note(self, event: str, **kw: object) -> None:
        line = json.dumps({"event": event, "t_ns": time.time_ns(), **kw})
        print(line, flush=True)
        if self.log:
            self.log.write(line + "\n")
            self.log.flush()

    async def writer(self) -> None:
        """The one task that writes to the AudioSource (two concurrent writers fail)."""
        while True:
            await self.play.wait()
            self.play.clear()
            self.stop_now.clear()
            self.speaking = True
            self.note("burst_start", ms=len(self.burst) * 1000 // RATE)
            stopped = False
            for i in range(0, len(self.burst), FRAME):
                if self.stop_now.is_set():
                    self.source.clear_queue()
                    stopped = True
                    break
                data = self.burst[i : i + FRAME]
                if len(data) < FRAME:
                    data = np.pad(data, (0, FRAME - len(data)))
                await self.source.capture_frame(rtc.AudioFrame(data.tobytes(), RATE, 1, FRAME))
            if not stopped:
                await self.source.wait_for_playout()
            self.speaking = False
            self.note("burst_stopped" if stopped else "burst_end")

    async def periodic(self) -> None:
        n = 1
        while True:
            await asyncio.sleep(max(0.0, self.t0 + n * self.args.period_s - time.monotonic()))
            self.play.set()
            n += 1

    async def listen(self, track: rtc.RemoteAudioTrack, who: str) -> None:
        stream = rtc.AudioStream(track, sample_rate=16000, num_channels=1)
        async for ev in stream:
            pcm = np.frombuffer(ev.frame.data, dtype=np.int16).astype(np.float64) / 32768.0
            ms = len(pcm) * 1000 // 16000
            loud = len(pcm) > 0 and 20 * np.log10(np.sqrt(np.mean(pcm**2)) + 1e-12) > -40
            if self.args.mode != "reply":
                continue
            if loud:
                self.voiced_ms += ms
                self.quiet_ms = 0
                if self.voiced_ms >= 300:
                    self.heard = True
                if self.speaking and self.voiced_ms >= 60:
                    self.stop_now.set()  # talked over: stop at once
            else:
                self.quiet_ms += ms
                if self.quiet_ms >= 200:
                    self.voiced_ms = 0
                if self.heard and not self.speaking and self.quiet_ms >= self.args.gap_ms:
                    self.heard = False
                    self.play.set()

    async def run(self) -> None:
        token = self.args.token or mint_token(self.args)

        @self.room.on("track_subscribed")
        def _on_track(track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant) -> None:
            if track.kind == rtc.TrackKind.KIND_AUDIO:
                asyncio.ensure_future(self.listen(track, p.identity))  # noqa: RUF006

        await self.room.connect(self.args.url, token)
        track = rtc.LocalAudioTrack.create_audio_track("voice", self.source)
        opts = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE, dtx=False, red=False)
        await self.room.local_participant.publish_track(track, opts)
        self.t0 = time.monotonic()
        self.note(
            "joined", identity=self.room.local_participant.identity, room=self.room.name, mode=self.args.mode
        )
        tasks = [asyncio.create_task(self.writer())]
        if self.args.mode == "periodic":
            tasks.append(asyncio.create_task(self.periodic()))
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, done.set)
        self.room.on("disconnected", lambda *_: done.set())
        try:
            await asyncio.wait_for(done.wait(), self.args.duration_s or None)
        except TimeoutError:
            pass
        for t in tasks:
            t.cancel()
        await self.room.disconnect()
        self.note("left")
        if self.log:
            self.log.close()


def mint_token(args: argparse.Namespace) -> str:
    if not (args.api_key and args.api_secret and args.room):
        sys.exit("give --token, or --api-key, --api-secret and --room to mint one")
    from livekit import api

    return (
        api.AccessToken(args.api_key, args.api_secret)
        .with_identity(args.identity)
        .with_grants(api.VideoGrants(room_join=True, room=args.room, can_publish=True, can_subscribe=True))
        .to_jwt()
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="LiveKit server URL, e.g. ws://127.0.0.1:7880")
    ap.add_argument("--token", help="a join token (floorbench prints one for external models)")
    ap.add_argument("--api-key")
    ap.add_argument("--api-secret")
    ap.add_argument("--room")
    ap.add_argument("--identity", default="standalone")
    ap.add_argument("--mode", choices=["periodic", "reply"], default="periodic")
    ap.add_argument("--period-s", type=float, default=4.0)
    ap.add_argument("--burst-ms", type=int, default=500)
    ap.add_argument("--gap-ms", type=int, default=700)
    ap.add_argument(
        "--duration-s", type=float, default=0.0, help="leave after this long (0: until signalled)"
    )
    ap.add_argument("--log", help="append one JSON line per event to this file")
    args = ap.parse_args()

    async def _main() -> None:
        # The SDK binds the AudioSource to the running loop: create it inside it.
        await Participant(args).run()

    asyncio.run(_main())


if __name__ == "__main__":
    main()
