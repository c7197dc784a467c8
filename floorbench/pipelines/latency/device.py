"""`floorbench latency --output DEV [--input DEV]`: the local machine's share when a sound device is in the path.

A fourth participant, ``device``, joins the latency room in the same process
(one monotonic clock) and puts this machine's sound devices into the probes'
path, through PortAudio *callback* streams, which give every block its device
timestamps (``time.outputBufferDacTime``, ``time.inputBufferAdcTime``,
``time.currentTime``; on Linux/ALSA they are on ``CLOCK_MONOTONIC``, the
session clock's source):

- **speaker**: the echo model's track, as heard here, is played on the
  output device. Each echoed probe is found in what was handed to PortAudio;
  its block's DAC time gives ``to_speaker`` (sent → DAC) and ``playout``
  (DAC − when this process received it: the local queue plus the device's
  output buffer);
- **microphone**: what the input device captures is published as the
  ``device`` track (the recorder keeps it). Every probe heard by the
  microphone (from the speaker through the air on a real machine; from the
  capture file on a virtual one) is found in the captured stream; its
  block's ADC time gives ``from_mic`` (ADC → the recorder), and
  ``capture_share`` = from_mic − the room's own one-way ``up`` p50.

Next to these, what PortAudio itself reports per block: capture latency
(currentTime − inputBufferAdcTime), playout latency (outputBufferDacTime −
currentTime) and the streams' nominal latency.

A device without a clock (an ALSA ``file`` PCM on the ``null`` slave: it
takes and gives samples as fast as asked, ~700× real time here) is paced by
the callbacks themselves, which sleep to real time; ``clocked: false`` then
says so, and its "device" times are only PortAudio's arithmetic on the null
PCM's zero delay, not the time a sound left or reached any hardware.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc

from floorbench.audio.alignment import best_match
from floorbench.clock import SessionClock
from floorbench.pipelines.demo.devices import FRAME, RATE, sounddevice
from floorbench.pipelines.latency.probes import (
    MATCH_THRESHOLD,
    Recording,
    find_probe,
    probe_set,
    stats_ms,
)
from floorbench.pipelines.room.participant import ScenarioRoom, settle
from floorbench.pipelines.room.recorder import TrackRecording
from floorbench.transports.rooms import RECORDER_IDENTITY, token

DEVICE = "device"
PACE_SLACK_S = {"output": 0.05, "input": 0.01}
"""a callback more than this far ahead of real time is held back (only an unclocked device gets there; an
output device may ask for its first blocks at once to fill its buffer, so it is allowed more)"""
CLOCKED_MAX_PACED = 10
"""a device whose callbacks were held back more often than this has no clock of its own"""


@dataclass
class BlockLog:
    """Per PortAudio callback: first sample index, currentTime and the device time (ADC or DAC), in ns."""

    first: list[int] = field(default_factory=list)
    current_ns: list[int] = field(default_factory=list)
    device_ns: list[int] = field(default_factory=list)
    paced: int = 0
    """callbacks held back to real time (none, or a few while an output buffer fills, on a clocked device)"""

    def add(self, first: int, current_s: float, device_s: float) -> None:
        self.first.append(first)
        self.current_ns.append(round(current_s * 1e9))
        self.device_ns.append(round(device_s * 1e9))

    def at(self, sample: int) -> tuple[int, int] | None:
        """(currentTime, device time) of `sample` in ns: its block's, plus its offset in the block."""
        k = int(np.searchsorted(self.first, sample, side="right")) - 1
        if k < 0 or k >= len(self.first):
            return None
        off = (sample - self.first[k]) * 1_000_000_000 // RATE
        return self.current_ns[k] + off, self.device_ns[k] + off

    def reported_ms(self, sign: int) -> dict[str, Any]:
        """What PortAudio reports per block: sign * (device − current) time, as stats."""
        d = sign * (np.array(self.device_ns, dtype=np.int64) - np.array(self.current_ns, dtype=np.int64))
        return stats_ms([int(x) for x in d])


class _Pacer:
    """Holds a callback back to real time when the device runs ahead (an unclocked device)."""

    def __init__(self, log: BlockLog, slack_s: float) -> None:
        self.log, self.slack_s = log, slack_s
        self.start: float | None = None

    def __call__(self, first: int) -> None:
        now = time.monotonic()
        if self.start is None:
            self.start = now
        ahead = self.start + first / RATE - now
        if ahead > self.slack_s:
            self.log.paced += 1
            time.sleep(ahead - self.slack_s)


class DeviceParticipant:
    """The ``device`` participant: the model's track to the output device, the input device to the room."""

    def __init__(
        self, where: ScenarioRoom, model_identity: str, output: int | None, input_: int | None
    ) -> None:
        self.where, self.model_identity = where, model_identity
        self.output, self.input = output, input_
        self.room = rtc.Room()
        self.clock: SessionClock = where.clock
        self.out_log, self.in_log = BlockLog(), BlockLog()
        self.heard = TrackRecording("device_heard", model_identity, RATE, where.out_dir)
        self.fifo: deque[np.ndarray] = deque()
        self.lock = threading.Lock()
        self.written: list[np.ndarray] = []
        self.captured: list[np.ndarray] = []
        self.n_written = self.n_captured = 0
        self.streams: list[Any] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.source = rtc.AudioSource(RATE, 1, queue_size_ms=100)
        self.mic_queue: asyncio.Queue[np.ndarray] = asyncio.Queue()
        self.latency_s: dict[str, float] = {}

    def _mono_to_session(self, t_ns: int) -> int:
        return t_ns - self.clock.anchor.monotonic_ns

    def _on_track(self, track: rtc.Track, pub: rtc.RemoteTrackPublication, p: rtc.RemoteParticipant) -> None:
        if (
            p.identity == self.model_identity
            and isinstance(track, rtc.RemoteAudioTrack)
            and self.output is not None
        ):
            stream = rtc.AudioStream(track, sample_rate=RATE, num_channels=1)
            self.tasks.append(asyncio.create_task(self._hear(stream), name="device-hear"))

    async def _hear(self, stream: rtc.AudioStream) -> None:
        try:
            async for ev in stream:
                pcm = np.frombuffer(ev.frame.data, dtype=np.int16).copy()
                self.heard.add(pcm, self.clock.now_ns())
                with self.lock:
                    self.fifo.append(pcm)
        finally:
            await settle(stream.aclose(), None, "latency: closing the device's stream")

    def _play(self, outdata: np.ndarray, frames: int, t: Any, _status: Any) -> None:
        first = self.n_written
        self.out_pace(first)
        self.out_log.add(first, t.currentTime, t.outputBufferDacTime)
        block = np.zeros(frames, dtype=np.int16)
        got = 0
        with self.lock:
            while got < frames and self.fifo:
                head = self.fifo[0]
                take = min(frames - got, len(head))
                block[got : got + take] = head[:take]
                got += take
                if take == len(head):
                    self.fifo.popleft()
                else:
                    self.fifo[0] = head[take:]
        outdata[:, 0] = block
        self.written.append(block)
        self.n_written += frames

    def _capture(self, indata: np.ndarray, frames: int, t: Any, _status: Any) -> None:
        first = self.n_captured
        self.in_pace(first)
        self.in_log.add(first, t.currentTime, t.inputBufferAdcTime)
        block = indata[:, 0].copy()
        self.captured.append(block)
        self.n_captured += frames
        self.loop.call_soon_threadsafe(self.mic_queue.put_nowait, block)

    async def _publish(self) -> None:
        while True:
            block = await self.mic_queue.get()
            await self.source.capture_frame(rtc.AudioFrame(block.tobytes(), RATE, 1, len(block)))

    def _open_stream(
        self, stream_class: Any, direction: str, device: int, callback: Callable[..., None]
    ) -> None:
        """One PortAudio callback stream of this participant: mono int16 at the room's rate, 10 ms blocks.

        Both directions take the same format, so a captured block is one room frame as it is
        published and every block's device time covers 10 ms; the stream's nominal latency is
        kept per direction for the report (`latency_s`).
        """
        stream = stream_class(
            device=device, samplerate=RATE, channels=1, dtype="int16", blocksize=FRAME, callback=callback
        )
        self.streams.append(stream)
        self.latency_s[direction] = float(stream.latency)

    async def start(self) -> None:
        """Join, publish the microphone track, open the streams (callbacks start at once)."""
        sd = sounddevice()
        self.loop = asyncio.get_running_loop()
        self.out_pace, self.in_pace = (
            _Pacer(self.out_log, PACE_SLACK_S["output"]),
            _Pacer(self.in_log, PACE_SLACK_S["input"]),
        )
        self.room.on("track_subscribed", self._on_track)
        tok = token(self.where.conn, self.where.name, DEVICE, publish=True, subscribe=True)
        await asyncio.wait_for(
            self.room.connect(self.where.conn.url, tok, options=rtc.RoomOptions(auto_subscribe=True)), 10.0
        )
        if self.input is not None:
            # only the recorder may hear the microphone: the echo model would send its probes round again
            self.room.local_participant.set_track_subscription_permissions(
                allow_all_participants=False,
                participant_permissions=[
                    rtc.ParticipantTrackPermission(participant_identity=RECORDER_IDENTITY, allow_all=True)
                ],
            )
            track = rtc.LocalAudioTrack.create_audio_track(DEVICE, self.source)
            opts = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE, dtx=False, red=False)
            await asyncio.wait_for(self.room.local_participant.publish_track(track, opts), 10.0)
            self._open_stream(sd.InputStream, "input", self.input, self._capture)
            self.tasks.append(asyncio.create_task(self._publish(), name="device-publish"))
        if self.output is not None:
            self._open_stream(sd.OutputStream, "output", self.output, self._play)
        for s in self.streams:
            s.start()

    async def stop(self) -> None:
        """Stop the streams, leave, and write device_out.wav, device_in.wav and device_blocks.json."""
        import soundfile as sf

        for s in self.streams:
            await asyncio.to_thread(s.stop)
            await asyncio.to_thread(s.close)
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await settle(self.room.disconnect(), 5.0, "latency: the device leaving")
        await asyncio.to_thread(self.heard.finalize, self.clock)
        out = self.where.out_dir
        for name, parts in (("device_out", self.written), ("device_in", self.captured)):
            pcm = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)
            await asyncio.to_thread(sf.write, str(out / f"{name}.wav"), pcm, RATE, subtype="PCM_16")
        logs = {"output": self.out_log.__dict__, "input": self.in_log.__dict__, "latency_s": self.latency_s}
        (out / "device_blocks.json").write_text(json.dumps(logs) + "\n")


def _to_session(log: BlockLog, anchor_ns: int) -> BlockLog:
    return BlockLog(
        log.first, [t - anchor_ns for t in log.current_ns], [t - anchor_ns for t in log.device_ns], log.paced
    )


def find_all(template: np.ndarray, pcm: np.ndarray, min_gap: int) -> list[tuple[int, float]]:
    """Every place `template` matches `pcm` (normalised peak ≥ the threshold), at least `min_gap` apart."""
    hits: list[tuple[int, float]] = []
    ref = template.astype(np.float64)
    x = pcm.astype(np.float64)
    step = max(min_gap // 2, 1)
    for lo in range(0, max(len(x) - len(ref), 0) + 1, step):
        at, score = best_match(ref, x, lo, lo + step - 1)
        if score >= MATCH_THRESHOLD and (not hits or at - hits[-1][0] >= min_gap):
            hits.append((at, score))
        elif hits and at - hits[-1][0] < min_gap and score > hits[-1][1]:
            hits[-1] = (at, score)
    return hits


def _speaker(
    kinds: list[int], sent_ns: list[int], out_dir: Path, log: BlockLog, echo_ns: int
) -> dict[str, Any]:
    """Each echoed probe in what was handed to the output device: sent → DAC, and DAC − heard here."""
    import soundfile as sf

    templates = probe_set(RATE)
    written, _ = sf.read(str(out_dir / "device_out.wav"), dtype="int16")
    heard_pcm, _ = sf.read(str(out_dir / "device_heard.wav"), dtype="int16")
    frames = np.loadtxt(out_dir / "tracks" / "device_heard.frames.tsv", dtype=np.int64, ndmin=2)
    from floorbench.clock import fit_track

    heard = Recording(np.asarray(heard_pcm), fit_track(frames[:, 0], frames[:, 1], RATE).start_ns, RATE)
    to_dac: list[int | None] = []
    playout: list[int | None] = []
    for kind, sent in zip(kinds, sent_ns, strict=True):
        got = find_probe(
            templates[kind], heard.pcm, heard.sample_at(sent + echo_ns), RATE // 20, RATE * 19 // 10
        )
        if not got.ok:
            to_dac.append(None)
            playout.append(None)
            continue
        arrived = heard.time_ns(got.sample)
        # where it was handed to PortAudio: searched from the first block asked for after it arrived
        k = min(int(np.searchsorted(log.current_ns, arrived)), len(log.first) - 1)
        at = find_probe(templates[kind], written, log.first[k], RATE // 20, RATE * 19 // 10)
        times = log.at(at.sample) if at.ok else None
        to_dac.append(None if times is None else times[1] - sent - echo_ns)
        playout.append(None if times is None else times[1] - arrived)
    return {"to_speaker": to_dac, "playout": playout}


def _microphone(out_dir: Path, log: BlockLog, recorder_track: Recording) -> dict[str, Any]:
    """Each probe heard by the input device: ADC (PortAudio) → the recorder's ``device`` track."""
    import soundfile as sf

    captured, _ = sf.read(str(out_dir / "device_in.wav"), dtype="int16")
    lo_rate = recorder_track.rate
    found: list[tuple[int, int]] = []
    for kind, template in enumerate(probe_set(RATE)):
        found += [(at, kind) for at, _ in find_all(template, np.asarray(captured), RATE * 3 // 10)]
    small = probe_set(lo_rate)
    from_mic: list[int | None] = []
    for at, kind in sorted(found):
        times = log.at(at)
        if times is None:
            continue
        adc = times[1]
        got = find_probe(
            small[kind], recorder_track.pcm, recorder_track.sample_at(adc), lo_rate // 20, lo_rate * 19 // 10
        )
        from_mic.append(recorder_track.time_ns(got.sample) - adc if got.ok else None)
    return {"from_mic": from_mic}


def analyse_device(
    out_dir: Path,
    clock_anchor_ns: int,
    kinds: list[int],
    sent_ns: list[int],
    echo_ns: int,
    recorder_track: Recording | None,
    up_p50_ms: float | None,
) -> dict[str, Any]:
    """latency.json's ``device`` section: PortAudio's own figures and what the probes measured through the devices."""
    body = json.loads((out_dir / "device_blocks.json").read_text())
    result: dict[str, Any] = {
        "nominal_latency_s": body["latency_s"],
        "portaudio": {},
        "directions": {},
        "clocked": {},
    }
    lags: dict[str, list[int | None]] = {}
    if body["output"]["first"]:
        log = _to_session(BlockLog(**body["output"]), clock_anchor_ns)
        result["portaudio"]["playout"] = log.reported_ms(+1)
        result["clocked"]["output"] = log.paced <= CLOCKED_MAX_PACED
        lags.update(_speaker(kinds, sent_ns, out_dir, log, echo_ns))
    if body["input"]["first"] and recorder_track is not None:
        log = _to_session(BlockLog(**body["input"]), clock_anchor_ns)
        result["portaudio"]["capture"] = log.reported_ms(-1)
        result["clocked"]["input"] = log.paced <= CLOCKED_MAX_PACED
        lags.update(_microphone(out_dir, log, recorder_track))
    for name, values in lags.items():
        ok = [v for v in values if v is not None]
        result["directions"][name] = {**stats_ms(ok), "not_found": len(values) - len(ok)}
    mic = result["directions"].get("from_mic", {})
    if mic.get("n") and up_p50_ms is not None:
        result["capture_share_ms"] = round(mic["p50"] - up_p50_ms, 2)
    return result


DEVICE_DIRECTIONS = {
    "to_speaker": "playback → SFU → echo model → SFU → this machine → the output device's DAC (PortAudio's time)",
    "playout": "received here → DAC: the local queue and the output device's buffer (from the same probes)",
    "from_mic": "the input device's ADC (PortAudio's time) → SFU → a listener",
}


def device_lines(device: dict[str, Any] | None) -> list[str]:
    """The summary's lines for a sound device in the path (none without one)."""
    if not device:
        return []
    lines = []
    pa = device["portaudio"]
    for what, key in (("capture", "capture"), ("playout", "playout")):
        if key in pa and pa[key].get("n"):
            lines.append(
                f"  PortAudio {what:8s} p50 {pa[key]['p50']:7.2f}  p95 {pa[key]['p95']:7.2f} ms per block "
                f"(nominal {device['nominal_latency_s'].get('input' if key == 'capture' else 'output', 0) * 1000:.1f} ms)"
            )
    for name, d in device["directions"].items():
        if d.get("n"):
            lines.append(
                f"  {name:11s} p50 {d['p50']:7.2f}  p95 {d['p95']:7.2f}  max {d['max']:7.2f} ms  ({d['n']} found, "
                f"{d['not_found']} missing)  {DEVICE_DIRECTIONS[name]}"
            )
        else:
            lines.append(f"  {name:11s} no probe found ({d['not_found']} missing)")
    if "capture_share_ms" in device:
        lines.append(f"  capture share (from_mic − up) {device['capture_share_ms']:.2f} ms")
    unclocked = [k for k, v in device["clocked"].items() if not v]
    if unclocked:
        lines.append(
            f"  the {' and '.join(unclocked)} device ran ahead of real time (no clock, e.g. an ALSA file PCM): paced by "
            "floorbench; its PortAudio times are not hardware times"
        )
    return lines
