"""`floorbench demo`: talk to a system under test from this machine's microphone and speakers.

One room, as for a scenario: the hidden recorder (so the session is kept like
a run: ``you.wav``, ``model.wav``, ``timeline.jsonl``, ``meta.json`` and
``demo.json`` with your turns), the model (any registry model, in its own
child process, exactly as `floorbench run` joins it), and you — the
participant ``you``, whose track is the microphone after echo cancellation
(`demo_devices`), and whose speaker plays the model. A status line shows who
is speaking and, after each of your turns, the model's latency as you heard
it (`demo_view.TurnWatcher`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc

from floorbench import __version__
from floorbench.audio.vad import VAD_RATE, WINDOW, VadStream
from floorbench.clock import SessionClock
from floorbench.pipelines.demo.devices import RATE, Microphone, Speaker, echo_canceller
from floorbench.pipelines.demo.scenario import Step, play_script
from floorbench.pipelines.demo.view import HUMANS, MODEL, YOU, TurnLatency, TurnWatcher, turn_line
from floorbench.pipelines.room.model_messages import ModelSpec
from floorbench.pipelines.room.participant import ScenarioRoom, cancel_and_wait, settle
from floorbench.pipelines.room.playback import PlaybackParticipant
from floorbench.pipelines.room.recorder import Recorder
from floorbench.pipelines.run.model_process import ModelProcess
from floorbench.processors.registry import ModelContext, create_model, redact
from floorbench.records import Outcome, RunMeta, TimelineWriter, write_json_atomic
from floorbench.transports.rooms import PLAYBACK_IDENTITY, model_token, room_name, token
from floorbench.transports.server import LiveKitConnection, LiveKitServer

SPEECH_P = 0.5


class DemoError(RuntimeError):
    """The demo could not start (the model never joined, the room refused us)."""


@dataclass
class DemoOptions:
    out: Path
    model: str
    input_device: int
    output_device: int
    config: dict[str, Any] = field(default_factory=dict)
    connection: LiveKitConnection | None = None
    aec: bool = True
    duration_s: float | None = None
    """None: until Ctrl-C"""
    live_view: bool = True
    """a status line redrawn in place (a terminal); otherwise only one line per turn"""
    scenario: Path | None = None
    """`--scenario FILE --as SPEAKER`: the playback plays the other humans (`steps`, demo_scenario)"""
    suite_root: Path | None = None
    steps: list[Step] = field(default_factory=list)


class _Vad:
    """Silero on one participant's audio, feeding the watcher with each window's time."""

    def __init__(self, who: str, rate: int, watcher: TurnWatcher, on_turn: Callable[[TurnLatency], None]) -> None:
        import soxr

        self.who, self.watcher, self.on_turn = who, watcher, on_turn
        self.vad = VadStream()
        self.resampler = soxr.ResampleStream(rate, VAD_RATE, 1, dtype="int16") if rate != VAD_RATE else None

    def feed(self, pcm: np.ndarray, t_ns: int) -> None:
        x = self.resampler.resample_chunk(pcm) if self.resampler is not None else pcm
        windows = self.vad.feed(x)
        for i, w in enumerate(windows):  # the last window ends at t_ns
            at = t_ns - (len(windows) - 1 - i) * WINDOW * 1_000_000_000 // VAD_RATE
            turn = self.watcher.feed(self.who, at, w.probability >= SPEECH_P)
            if turn is not None:
                self.on_turn(turn)


class DemoSession:
    """One demo room; `run` returns when the time is up or it is cancelled, with the records written."""

    def __init__(self, opts: DemoOptions, conn: LiveKitConnection) -> None:
        self.opts, self.conn = opts, conn
        self.clock = SessionClock()
        self.room_name = room_name(time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6], "demo")
        self.watcher = TurnWatcher()
        self.apm = echo_canceller(opts.aec)
        self.room = rtc.Room()
        self.source = rtc.AudioSource(RATE, 1, queue_size_ms=100)
        self.speaker = Speaker(opts.output_device, self.apm)
        self.mic_vad = _Vad(YOU, RATE, self.watcher, self._turn)
        self.mic = Microphone(opts.input_device, self.source, self.apm, self.mic_vad.feed, self.clock.now_ns)
        self.tasks: list[asyncio.Task[Any]] = []
        self.heard: dict[str, int] = {}
        """frames heard per remote participant"""
        self.result: dict[str, Any] = {}

    def _turn(self, t: TurnLatency) -> None:
        self._print(turn_line(t), newline=True)

    def _print(self, text: str, newline: bool = False) -> None:
        if self.opts.live_view:
            sys.stdout.write("\r\x1b[2K" + text + ("\n" if newline else ""))
        elif newline:
            sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def _subscribed(self, track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant) -> None:
        if not isinstance(track, rtc.RemoteAudioTrack):
            return
        self.speaker.add(track)
        who = {MODEL: MODEL, PLAYBACK_IDENTITY: HUMANS}.get(p.identity, p.identity)
        self.tasks.append(asyncio.create_task(self._monitor(track, who), name=f"demo-vad-{who}"))

    async def _monitor(self, track: rtc.RemoteAudioTrack, who: str) -> None:
        vad = _Vad(who, VAD_RATE, self.watcher, self._turn)
        stream = rtc.AudioStream(track, sample_rate=VAD_RATE, num_channels=1)
        try:
            async for ev in stream:
                self.heard[who] = self.heard.get(who, 0) + 1
                vad.feed(np.frombuffer(ev.frame.data, dtype=np.int16), self.clock.now_ns())
        finally:
            await settle(stream.aclose(), None, f"demo: closing the {who} stream")

    async def _join(self) -> None:
        self.room.on("track_subscribed", self._subscribed)
        await asyncio.wait_for(
            self.room.connect(self.conn.url, token(self.conn, self.room_name, YOU), options=rtc.RoomOptions(auto_subscribe=True)),
            10.0,
        )
        track = rtc.LocalAudioTrack.create_audio_track(YOU, self.source)
        opts = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE, dtx=False, red=False)
        await asyncio.wait_for(self.room.local_participant.publish_track(track, opts), 10.0)

    async def _view(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            if self.opts.live_view:
                self._print(self.watcher.status())

    def _spec(self) -> ModelSpec:
        return ModelSpec(
            url=self.conn.url, token=model_token(self.conn, self.room_name, MODEL), room=self.room_name,
            identity=MODEL, model=self.opts.model, config=self.opts.config, in_sample_rate=16000,
            out_sample_rate=24000, out_queue_ms=100, parent_pid=os.getpid(),
            max_lifetime_s=(self.opts.duration_s or 6 * 3600) + 120,
            scenario_file=self.opts.scenario.resolve() if self.opts.scenario else None,
            suite_root=self.opts.suite_root.resolve() if self.opts.suite_root else None,
        )

    async def run(self) -> dict[str, Any]:
        opts = self.opts
        opts.out.mkdir(parents=True, exist_ok=True)
        timeline = TimelineWriter(opts.out / "timeline.jsonl")
        where = ScenarioRoom(self.conn, self.room_name, opts.out, self.clock, timeline)
        recorder = Recorder(where, 16000, track_names={YOU: YOU, PLAYBACK_IDENTITY: HUMANS}, is_model=lambda i: i == MODEL)
        playback = PlaybackParticipant(where, 16000, lambda i: i == MODEL) if opts.steps else None
        self.script_log: list[dict[str, Any]] = []
        model = ModelProcess(self._spec(), opts.out / "model.log")
        card = redact(create_model(ModelContext(name=opts.model, config=opts.config)).card())
        started = time.time()
        try:
            await recorder.start()
            await model.start(60.0)
            deadline = time.monotonic() + 60
            while MODEL not in recorder.audio_from:
                if time.monotonic() > deadline:
                    raise DemoError(f"demo: the model {opts.model!r} did not join with audio in 60 s; see {opts.out}/model.log")
                await asyncio.sleep(0.05)
            await self._join()
            self._print(f"room {self.room_name}: talking to {opts.model} (echo cancellation {'on' if opts.aec else 'off'}); Ctrl-C ends", newline=True)
            self.tasks += [asyncio.create_task(c, name=n) for c, n in ((self.mic.run(), "demo-mic"), (self.speaker.run(), "demo-speaker"), (self._view(), "demo-view"))]
            waiter = [*self.tasks[-3:-1]]
            if playback is not None:
                waiter.append(await self._start_script(playback))
            await asyncio.wait(waiter, timeout=opts.duration_s, return_when=asyncio.FIRST_COMPLETED)
            for t in waiter:
                if t.done() and not t.cancelled() and (exc := t.exception()) is not None:
                    raise exc
        finally:
            if playback is not None:
                await settle(playback.stop(), None, "demo: stopping the playback")
            await cancel_and_wait(self.tasks, 5.0, "demo: audio tasks")
            await settle(self.room.disconnect(), 5.0, "demo: leaving the room")
            await model.stop()
            timeline.close()
            self._print("", newline=False)
            self.result = self._records(card, started, await recorder.stop())  # kept on Ctrl-C too
        return self.result

    async def _start_script(self, playback: PlaybackParticipant) -> asyncio.Task[Any]:
        """Join the playback and start the script; the task ends 3 s after the script's last turn."""
        await playback.start()

        async def play(pcm: np.ndarray) -> None:
            await playback.writer.schedule(pcm).written.wait()

        async def run() -> None:
            self.script_log = await play_script(
                self.opts.steps, play, lambda: self.watcher.your_turns, lambda t: self._print(t, newline=True)
            )
            await asyncio.sleep(3.0)

        task = asyncio.create_task(run(), name="demo-script")
        self.tasks.append(task)
        return task

    def _records(self, card: dict[str, Any], started: float, infos: dict[str, Any]) -> dict[str, Any]:
        opts = self.opts
        meta = RunMeta(
            floorbench_version=__version__, scenario_id="demo", suite="demo",
            room=self.room_name, created_wall_ns=self.clock.anchor.wall_ns, anchor=self.clock.anchor,
            outcome=Outcome.completed, model=card, tracks=infos, duration_ms=self.clock.now_ms(),
        )
        write_json_atomic(opts.out / "meta.json", meta)
        demo = {
            "model": card,
            "started_wall": started,
            "echo_cancellation": opts.aec,
            "devices": {"input": opts.input_device, "output": opts.output_device},
            "mic_frames": self.mic.frames,
            "speaker_frames": self.speaker.frames,
            "heard_frames": self.heard,
            "turns": [t.__dict__ for t in self.watcher.turns],
            "scenario": str(opts.scenario) if opts.scenario else None,
            "script": self.script_log,
            "latency_method": "model's first speech window heard here minus the end of your speech (Silero, 32 ms windows)",
        }
        (opts.out / "demo.json").write_text(json.dumps(demo, indent=2) + "\n")
        return demo


async def run_demo(opts: DemoOptions) -> dict[str, Any]:
    """Start a managed server unless a connection is given, run the session, stop the server."""
    server = None
    conn = opts.connection
    if conn is None:
        server = LiveKitServer(log_path=opts.out / "livekit.log")
        opts.out.mkdir(parents=True, exist_ok=True)
        conn = server.start()
    try:
        return await DemoSession(opts, conn).run()
    finally:
        if server is not None:
            server.stop()
