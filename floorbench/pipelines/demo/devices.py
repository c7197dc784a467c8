"""Sound devices for `floorbench demo` and `floorbench devices`, through sounddevice (PortAudio).

The microphone is read and the speaker written with *blocking* 10 ms calls in
a worker thread, not PortAudio callbacks: a real device paces them itself, and
a device that does not (an ALSA ``file`` PCM that reads a WAV, used by the
tests) is paced by the room — `Microphone` waits on the LiveKit source's
queue before it reads again. Echo cancellation is LiveKit's
`AudioProcessingModule` (the WebRTC APM, as in livekit-rtc's `MediaDevices`):
every mic frame goes through ``process_stream``, every frame played through
``process_reverse_stream``, so the model's voice from the speaker is not sent
back to it as yours.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from livekit import rtc

from floorbench.errors import FloorbenchError

RATE = 48000
FRAME = RATE // 100
"""10 ms: the APM's frame"""
PORTAUDIO_FIX = "install PortAudio (Debian/Ubuntu: apt-get install libportaudio2; macOS: brew install portaudio)"


class DeviceError(FloorbenchError):
    """No PortAudio, no sound device, or a device name/index that matches none."""


def sounddevice() -> Any:
    """The sounddevice module; a one-line DeviceError when PortAudio is missing."""
    try:
        import sounddevice as sd
    except OSError as e:
        raise DeviceError(f"no sound devices: the PortAudio library is missing ({e}); {PORTAUDIO_FIX}") from None
    except ImportError:
        raise DeviceError("no sound devices: the sounddevice package is missing; pip install sounddevice") from None
    except Exception as e:  # sounddevice.PortAudioError: PortAudio could not start (it starts on import)
        raise DeviceError(f"the sound system cannot start ({type(e).__name__}: {str(e)[:160]}); "
                          "check the ALSA configuration (~/.asoundrc, /etc/asound.conf, ALSA_CONFIG_PATH)") from None
    return sd


@dataclass(frozen=True)
class Device:
    index: int
    name: str
    inputs: int
    outputs: int
    default_rate: int
    host: str

    def line(self, default_in: int | None, default_out: int | None) -> str:
        marks = ("<" if self.index == default_in else " ") + (">" if self.index == default_out else " ")
        return (
            f"{marks} {self.index:3d}  {self.name}  ({self.host}; {self.inputs} in, {self.outputs} out, "
            f"{self.default_rate} Hz)"
        )


ALSA_FIX = "check the ALSA configuration (~/.asoundrc, /etc/asound.conf, ALSA_CONFIG_PATH)"

_PROBE = """
import sys
import sounddevice as sd
sd.query_hostapis(); sd.query_devices()
for kind, arg in zip(("input", "output"), sys.argv[1:]):
    if arg != "-":
        getattr(sd, "check_" + kind + "_settings")(device=int(arg), samplerate=48000, channels=1, dtype="int16")
"""


def probe_sound_system(mic: int | None = None, speaker: int | None = None) -> None:
    """List the devices (and check the chosen ones) in a child process first: a broken ALSA configuration
    can abort the process inside PortAudio (signal 6), which no exception handler catches; in a child it is
    one `DeviceError` line naming the fix."""
    import subprocess
    import sys

    args = ["-" if mic is None else str(mic), "-" if speaker is None else str(speaker)]
    try:
        res = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise DeviceError(f"the sound system did not answer within 60 s while listing devices; {ALSA_FIX}") from None
    if res.returncode < 0:
        raise DeviceError(f"the sound system aborted (signal {-res.returncode}) while listing devices; {ALSA_FIX}")
    if res.returncode != 0:
        sounddevice()  # PortAudio or the package missing, or PortAudio not starting: its own line
        last = (res.stderr.strip().splitlines() or ["no message"])[-1]
        raise DeviceError(f"the sound system refused the devices ({last[:160]}); {ALSA_FIX}")


def list_devices() -> tuple[list[Device], int | None, int | None]:
    """Every device PortAudio sees, and the default input and output indexes (None: none)."""
    probe_sound_system()  # before PortAudio starts in this process (importing sounddevice starts it)
    sd = sounddevice()
    try:
        hosts = [h["name"] for h in sd.query_hostapis()]
        found = list(sd.query_devices())
    except sd.PortAudioError as e:
        raise DeviceError(f"the sound system cannot list devices ({e}); {ALSA_FIX}") from None
    devices = [
        Device(i, str(d["name"]), int(d["max_input_channels"]), int(d["max_output_channels"]),
               int(d["default_samplerate"]), hosts[int(d["hostapi"])] if int(d["hostapi"]) < len(hosts) else "?")
        for i, d in enumerate(found)
    ]
    default_in, default_out = (int(x) if x is not None and int(x) >= 0 else None for x in sd.default.device)
    return devices, default_in, default_out


def resolve(spec: str | None, kind: Literal["input", "output"], devices: list[Device], default: int | None) -> int:
    """A device index from an index or a (case-insensitive) part of its name; the default when `spec` is None."""
    usable = [d for d in devices if (d.inputs if kind == "input" else d.outputs) > 0]
    if not usable:
        raise DeviceError(f"no sound {kind} device found; connect one, or see `floorbench devices`")
    if spec is None:
        if default is not None and any(d.index == default for d in usable):
            return default
        return usable[0].index
    if spec.isdigit():
        if any(d.index == int(spec) for d in usable):
            return int(spec)
        raise DeviceError(f"--{kind} {spec}: no {kind} device with that index; see `floorbench devices`")
    hits = [d for d in usable if spec.lower() in d.name.lower()]
    if not hits:
        names = ", ".join(repr(d.name) for d in usable[:8])
        raise DeviceError(f"--{kind} {spec!r}: no {kind} device matches; {kind}s: {names}")
    exact = [d for d in hits if d.name.lower() == spec.lower()]
    return (exact or hits)[0].index


def echo_canceller(enabled: bool) -> rtc.AudioProcessingModule | None:
    """The WebRTC APM with echo cancellation, noise suppression, high-pass filter and gain control."""
    if not enabled:
        return None
    return rtc.AudioProcessingModule(
        echo_cancellation=True, noise_suppression=True, high_pass_filter=True, auto_gain_control=True
    )


class Microphone:
    """Reads the input device 10 ms at a time into `source` (through the APM); `on_frame(pcm, t_ns)` sees each."""

    def __init__(
        self, device: int, source: rtc.AudioSource, apm: rtc.AudioProcessingModule | None,
        on_frame: Callable[[np.ndarray, int], None], now_ns: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.device, self.source, self.apm, self.on_frame, self.now_ns = device, source, apm, on_frame, now_ns
        self.frames = 0

    async def run(self) -> None:
        sd = sounddevice()
        stream = sd.InputStream(device=self.device, samplerate=RATE, channels=1, dtype="int16", blocksize=FRAME)
        stream.start()
        try:
            while True:
                data, _overflow = await asyncio.to_thread(stream.read, FRAME)
                t = self.now_ns()
                frame = rtc.AudioFrame(np.ascontiguousarray(data[:, 0]).tobytes(), RATE, 1, FRAME)
                if self.apm is not None:
                    self.apm.process_stream(frame)
                self.on_frame(np.frombuffer(bytes(frame.data), dtype=np.int16), t)
                await self.source.capture_frame(frame)  # waits while the source's queue is full: the pace
                self.frames += 1
        finally:
            await asyncio.to_thread(stream.close)


class Speaker:
    """Plays the room (a mix of remote tracks) on the output device; feeds the APM what it plays."""

    def __init__(self, device: int, apm: rtc.AudioProcessingModule | None) -> None:
        self.device, self.apm = device, apm
        self.mixer = rtc.AudioMixer(RATE, 1, blocksize=FRAME)
        self.streams: list[rtc.AudioStream] = []
        self.frames = 0

    def add(self, track: rtc.Track) -> None:
        stream = rtc.AudioStream(track, sample_rate=RATE, num_channels=1)
        self.streams.append(stream)
        self.mixer.add_stream(_frames(stream))

    async def run(self) -> None:
        sd = sounddevice()
        out = sd.OutputStream(device=self.device, samplerate=RATE, channels=1, dtype="int16", blocksize=FRAME)
        out.start()
        try:
            async for frame in self.mixer:
                pcm = np.frombuffer(bytes(frame.data), dtype=np.int16)
                if self.apm is not None:
                    for i in range(0, len(pcm) - FRAME + 1, FRAME):
                        self.apm.process_reverse_stream(rtc.AudioFrame(pcm[i : i + FRAME].tobytes(), RATE, 1, FRAME))
                await asyncio.to_thread(out.write, pcm.reshape(-1, 1))
                self.frames += 1
        finally:
            await asyncio.to_thread(out.close)
            for s in self.streams:
                await s.aclose()
            await self.mixer.aclose()


async def _frames(stream: rtc.AudioStream) -> AsyncIterator[rtc.AudioFrame]:
    async for ev in stream:
        yield ev.frame
