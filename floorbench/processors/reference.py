"""Reference agents: known-good and known-bad systems that bound every real one.

- `silent` — never speaks (silence keeping 1, everything else 0);
- `eager` — answers every human turn end after a short pause, whoever was
  addressed (the chatty failure mode);
- `oracle` — reads the scenario from its config (never from the room), finds
  each clip in the room audio and says what the scenario's suite plans for it
  (its part `oracle`: an `OraclePlan` of `OracleClip`s) with real TTS: a reply
  after a clip, a stop when a clip that barges in starts, a stop when the next
  clip is due (each suite's `oracle.py` says what its clips ask for);
- `echo` — plays back what it hears after a fixed delay (latency checks).

The oracle's `shared_backend` makes it a deliberately slow agent under load:
every reply of every room waits its turn for one backend (a lock on a file
that all the rooms' model processes share) and holds it `reply_ms` — a
queue like one LLM server that answers one request at a time. The queue is
real; the service time is a sleep (`SharedBackend`).

All of them listen with Silero on the room audio they receive and count time
in *received samples*, not wall-clock time: the input stream is continuous,
so "turn k ends 2.41 s after its first speech window" is exact in samples and
immune to event-loop jitter.
"""

from __future__ import annotations

import asyncio
import fcntl
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import Field

from floorbench.audio.alignment import best_match
from floorbench.audio.vad import VAD_RATE, WINDOW, VadRules, VadStream, speech_probabilities
from floorbench.processors.adapter_config import AdapterSettings, Ms, Settings
from floorbench.processors.registry import Model, ModelContext, ModelError

DEFAULT_VOICE = "piper:joe"
DEFAULT_ATTEMPT = (
    "Let me think about that for a moment. I believe it depends on a few things, "
    "so let me go through them one by one before I answer."
)
DEFAULT_REPLIES = (
    "Sure, I can help with that. Let me know if you need anything else.",
    "Okay, that sounds good to me. I am happy to help with that.",
    "Great question! I think that should work out fine for everyone.",
)


def _tts(text: str, voice: str, sample_rate: int) -> np.ndarray:
    from floorbench.speech.tts import synthesize

    return synthesize(text, voice, sample_rate)


class ListeningAgent(FrameProcessor):
    """Base: consumes room audio at 16 kHz, runs Silero per window, speaks PCM on demand."""

    def __init__(self, out_rate: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.out_rate = out_rate
        self.vad = VadStream()
        self.received = 0
        """room audio samples received so far (the agent's clock)"""
        self.speaking_until = 0
        """received-sample index until which our current utterance lasts"""
        self.log: list[dict[str, Any]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame):
            if frame.sample_rate != VAD_RATE:
                raise ModelError(f"reference agents need 16 kHz input, got {frame.sample_rate} Hz")
            pcm = np.frombuffer(frame.audio, dtype=np.int16)
            self.on_pcm(pcm)
            for w in self.vad.feed(pcm):
                await self.on_window(w.probability, w.start)
            self.received += len(pcm)
            await self.on_samples(self.received)
            return
        await self.push_frame(frame, direction)

    def on_pcm(self, pcm: np.ndarray) -> None:
        """Every input frame's samples, before the VAD windows."""

    async def on_window(self, p: float, start: int) -> None:
        """One 32 ms Silero window starting at received-sample `start`."""

    async def on_samples(self, received: int) -> None:
        """Called after every input frame with the received-sample count."""

    @property
    def speaking(self) -> bool:
        return self.received < self.speaking_until

    async def speak(self, pcm: np.ndarray, what: str) -> None:
        self.speaking_until = self.received + len(pcm) * VAD_RATE // self.out_rate
        self.log.append({"t_ns": time.monotonic_ns(), "event": "speak", "what": what})
        await self.push_frame(
            OutputAudioRawFrame(audio=pcm.astype(np.int16).tobytes(), sample_rate=self.out_rate, num_channels=1)
        )

    async def stop_speaking(self, why: str) -> None:
        self.speaking_until = self.received
        self.log.append({"t_ns": time.monotonic_ns(), "event": "stop", "why": why})
        await self.push_frame(InterruptionFrame())


class SilentProcessor(FrameProcessor):
    """Swallows room audio; passes everything else."""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, InputAudioRawFrame):
            await self.push_frame(frame, direction)


class EchoProcessor(FrameProcessor):
    """Re-emits the room audio `delay_ms` later, counted in received samples."""

    def __init__(self, delay_ms: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.delay_ms = delay_ms
        self.received = 0
        self.queue: deque[tuple[int, InputAudioRawFrame]] = deque()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, InputAudioRawFrame):
            await self.push_frame(frame, direction)
            return
        self.queue.append((self.received, frame))
        self.received += len(frame.audio) // 2
        delay = self.delay_ms * frame.sample_rate // 1000
        while self.queue and self.queue[0][0] + delay <= self.received:
            _, f = self.queue.popleft()
            await self.push_frame(
                OutputAudioRawFrame(audio=f.audio, sample_rate=f.sample_rate, num_channels=f.num_channels)
            )


SPEECH = VadRules()
"""the eager agent hears speech with the benchmark's thresholds"""


class EagerProcessor(ListeningAgent):
    """Answers every end of human speech (after `end_silence_ms`) with a canned reply."""

    def __init__(self, replies: list[np.ndarray], end_silence_ms: int, pause_ms: int, **kw: Any) -> None:
        super().__init__(**kw)
        self.replies = replies
        self.end_silence = end_silence_ms * VAD_RATE // 1000
        self.pause = pause_ms * VAD_RATE // 1000
        self.min_speech = 200 * VAD_RATE // 1000
        self.run_start: int | None = None
        self.last_speech_end = 0
        self.pending_at: int | None = None
        self.count = 0

    async def on_window(self, p: float, start: int) -> None:
        if p >= SPEECH.threshold:
            if self.run_start is None:
                self.run_start = start
            self.last_speech_end = start + WINDOW
            self.pending_at = None
        elif self.run_start is not None and p < SPEECH.neg_threshold:
            if start + WINDOW - self.last_speech_end >= self.end_silence:
                if self.last_speech_end - self.run_start >= self.min_speech:
                    self.pending_at = self.last_speech_end + self.end_silence + self.pause
                self.run_start = None

    async def on_samples(self, received: int) -> None:
        if self.pending_at is not None and received >= self.pending_at:
            self.pending_at = None
            if not self.speaking:
                reply = self.replies[self.count % len(self.replies)]
                self.count += 1
                await self.speak(reply, f"reply {self.count}")


class OracleProcessor(ListeningAgent):
    """Knows the script; finds each expected clip in the room audio by template matching.

    For the next expected clip it cross-correlates the clip's first speech
    (`probe`, up to 0.6 s) with the received audio; where the normalised peak
    passes `match_threshold`, the clip started there, so its end is exact in
    received samples — pauses inside a turn or a slow VAD cannot make it lose
    its place. A clip may say that the next one is due a fixed time after it
    ends (``yield_after``, samples: the schedule's fixed wait), so the oracle
    stops then, and that the next one barges in (``barges_in``): hearing speech
    while it waits for such a clip stops it too. `n4_wait_ms` is not read (the
    clips carry their waits); it stays in the signature for callers that pass it.
    """

    HISTORY_S = 20
    SEARCH_EVERY = 800  # samples (50 ms)

    def __init__(
        self,
        segments: list[dict[str, Any]],
        response_delay_ms: int,
        n4_wait_ms: int = 3000,
        match_threshold: float = 0.5,
        backend: SharedBackend | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.backend = backend
        self.serving: tuple[asyncio.Future[float], np.ndarray, str] | None = None
        """a reply waiting for the shared backend (`backend`), and what to say when it is served"""
        self.segments = segments
        """per expected clip: label, lead (samples to first speech), length, probe, speech (PCM or None)"""
        self.delay = response_delay_ms * VAD_RATE // 1000
        self.threshold = match_threshold
        self.k = 0
        self.segment_end: int | None = None
        """received-sample index where the current clip ends, once found"""
        self.search_from = 0
        self._last_search = 0
        self.history = np.zeros(self.HISTORY_S * VAD_RATE, dtype=np.float32)
        self.yield_at: int | None = None
        self.speak_at: tuple[int, np.ndarray, str] | None = None
        self.found: list[tuple[str, int, float]] = []

    def on_pcm(self, pcm: np.ndarray) -> None:
        n = len(pcm)
        self.history = np.roll(self.history, -n)
        self.history[-n:] = pcm.astype(np.float32) / 32768.0

    async def on_window(self, p: float, start: int) -> None:
        waiting_for = self.segments[self.k] if self.k < len(self.segments) else None
        # a clip that barges in is due while the oracle speaks: its first speech stops it
        if (waiting_for is not None and waiting_for.get("barges_in") and self.segment_end is None and p >= 0.5
                and self.speaking):
            self.speak_at = self.yield_at = None
            await self.stop_speaking(f"{waiting_for['label']} heard")

    def _search(self, received: int) -> None:
        """Look for the next clip's probe in the received audio not searched yet."""
        seg = self.segments[self.k]
        probe: np.ndarray = seg["probe"]
        hist_start = received - len(self.history)
        lo = max(self.search_from, hist_start, 0)
        if received - lo < len(probe):
            return
        at, score = best_match(probe, self.history, lo - hist_start, len(self.history) - len(probe))
        if score >= self.threshold:
            start = hist_start + at - seg["lead"]
            self.segment_end = start + seg["length"]
            self.found.append((seg["label"], start, score))
            if seg.get("barges_in"):  # heard: no need to stop at its due time
                self.yield_at = None
        else:
            # every placement starting before this point has been tried with the whole probe
            self.search_from = received - len(probe) + 1

    async def on_samples(self, received: int) -> None:
        if self.k < len(self.segments) and self.segment_end is None:
            if received - self._last_search >= self.SEARCH_EVERY:
                self._last_search = received
                self._search(received)
        if self.segment_end is not None and received >= self.segment_end:
            seg = self.segments[self.k]
            end = self.segment_end
            self.k += 1
            self.segment_end = None
            self.search_from = end
            if seg.get("speech") is not None:
                self.speak_at = (end + self.delay, seg["speech"], f"after {seg['label']}")
            if seg.get("yield_after") is not None:
                self.yield_at = end + seg["yield_after"]
        if self.yield_at is not None and received >= self.yield_at:
            # the resolution is due now: the input stream is sample-continuous, so
            # this is exact, and the oracle need not wait to hear it
            self.yield_at = None
            self.speak_at = self.serving = None
            if self.speaking:
                await self.stop_speaking(f"the clip after {self.segments[self.k - 1]['label']} due")
        if self.speak_at is not None and received >= self.speak_at[0]:
            _, pcm, what = self.speak_at
            self.speak_at = None
            if self.backend is None:
                await self.speak(pcm, what)
            else:  # wait for the shared backend in a thread; spoken once it has served this reply
                self.serving = (asyncio.get_running_loop().run_in_executor(None, self.backend.serve), pcm, what)
        if self.serving is not None and self.serving[0].done():
            fut, pcm, what = self.serving
            self.serving = None
            await self.speak(pcm, f"{what} (shared backend: {fut.result():.0f} ms)")


class SilentAgent(Model[AdapterSettings], name="silent"):
    """Never speaks; publishes a silent track."""

    def processors(self) -> list[FrameProcessor]:
        return [SilentProcessor()]


class EchoSettings(AdapterSettings):
    delay_ms: Ms = 500


class EchoAgent(Model[EchoSettings], name="echo"):
    """Plays back the room audio after `delay_ms` (default 500)."""

    def processors(self) -> list[FrameProcessor]:
        return [EchoProcessor(self.settings.delay_ms)]


class EagerSettings(AdapterSettings):
    voice: str = DEFAULT_VOICE
    replies: list[str] = Field(default=list(DEFAULT_REPLIES), min_length=1)
    """said in turn, one per end of human speech"""
    end_silence_ms: Ms = 300
    pause_ms: Ms = 200


class EagerAgent(Model[EagerSettings], name="eager"):
    """Replies to every end of human speech, addressed or not."""

    def processors(self) -> list[FrameProcessor]:
        rate = self.ctx.out_sample_rate
        s = self.settings
        pcm = [_tts(r, s.voice, rate) for r in s.replies]
        return [EagerProcessor(pcm, s.end_silence_ms, s.pause_ms, out_rate=rate)]


@dataclass(frozen=True)
class OracleClip:
    """One clip the oracle listens for, and what it says when the clip's turn is handed over."""

    label: str
    audio: str | None
    """the clip's audio, relative to the suite folder"""
    text: str | None
    """what the oracle says after it (None: nothing)"""
    ends_ms: int | None = None
    """the turn is handed over this far into the clip (None: at its end)"""
    barges_in: bool = False
    """the clip may start while the oracle speaks, and its first speech stops it"""
    yield_after_ms: int | None = None
    """the next clip is due this long after this one ends: the oracle stops speaking then, without
    waiting to hear it (None: no such wait)"""


@dataclass
class OraclePlan:
    """A suite's part `oracle`: the clips in playing order, and the processor that plays them.

    `processor(segments, settings, out_rate)` builds the chain's processor; None: the
    `OracleProcessor` (answers after each handed-over turn, stops where a clip says).
    """

    clips: list[OracleClip]
    processor: Callable[[list[dict[str, Any]], OracleSettings, int], FrameProcessor] | None = None
    voice: str | None = None
    """the voice its replies are spoken in where the scenario needs another than the settings' (a call
    held in a language the settings' voice does not speak); None: the settings' voice"""


class SharedBackend(Settings):
    """One backend that every room's oracle waits for, one reply at a time: a deliberately slow agent
    under load (docs/load.md). The rooms' model processes share it through an exclusive lock on `lock`
    (a file; relative paths are from the runner's folder); each reply holds it `reply_ms`, so N
    replies due at once are served in N * `reply_ms`. The queue is real, the service time a sleep."""

    lock: str = Field(min_length=1)
    reply_ms: Ms = 500

    def serve(self) -> float:
        """Blocks until this reply has been served (waited for the lock, held it `reply_ms`); the ms it took."""
        t0 = time.monotonic()
        with open(self.lock, "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                time.sleep(self.reply_ms / 1000)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
        return (time.monotonic() - t0) * 1000


class OracleSettings(AdapterSettings):
    voice: str = DEFAULT_VOICE
    answer_template: str = "The answer is {gold}."
    response_delay_ms: Ms = 400
    n4_wait_ms: Ms = 3000
    """suite mpe's fixed wait between a question and its resolution (its oracle plan reads it)"""
    shared_backend: SharedBackend | None = None
    """a deliberately slow agent under load: every reply waits its turn for one backend (`SharedBackend`)"""


class OracleAgent(Model[OracleSettings], name="oracle"):
    """Says what the scenario's suite plans (`OraclePlan`), where its clips are heard in the room."""

    def __init__(self, ctx: ModelContext) -> None:
        super().__init__(ctx)
        if ctx.scenario is None:
            raise ModelError("oracle: needs the scenario (run it through `floorbench run`)")

    def _segments(self) -> list[dict[str, Any]]:
        import soundfile as sf
        import soxr

        ctx = self.ctx
        assert ctx.scenario is not None
        root = ctx.suite_root or Path(".")
        plan = self.plan()
        voice = plan.voice or self.settings.voice
        out = []
        rate = ctx.out_sample_rate
        for clip in plan.clips:
            label, audio, text, ends_ms = clip.label, clip.audio, clip.text, clip.ends_ms
            if audio is None:
                raise ModelError(f"oracle: {label} turn has no audio; render the suite first")
            x, sr = sf.read(str(root / audio), dtype="float32", always_2d=True)
            x = x.mean(axis=1)
            x16 = soxr.resample(x, sr, VAD_RATE) if sr != VAD_RATE else x
            probs = speech_probabilities(x16)
            hit = np.nonzero(probs >= 0.5)[0]
            lead = int(hit[0]) * WINDOW if len(hit) else 0
            probe = x16[lead : lead + min(len(x16) - lead, 6 * VAD_RATE // 10)].astype(np.float32)
            out.append(
                {
                    "label": label,
                    "lead": lead,
                    # a clip whose turn is handed over before its end (OracleClip.ends_ms)
                    "length": len(x16) if ends_ms is None else min(len(x16), ends_ms * VAD_RATE // 1000),
                    "probe": probe,
                    "speech": _tts(text, voice, rate) if text else None,
                    "barges_in": clip.barges_in,
                    "yield_after": None if clip.yield_after_ms is None else clip.yield_after_ms * VAD_RATE // 1000,
                }
            )
        return out

    def plan(self) -> OraclePlan:
        """What this scenario's suite has the oracle say (its part `oracle`, floorbench.plugins)."""
        from floorbench.plugins import suite_of

        return suite_of(self.ctx.scenario).part("oracle")(self.ctx.scenario, self.ctx.suite, self.settings)

    def processors(self) -> list[FrameProcessor]:
        plan = self.plan()
        if plan.processor is not None:
            settings = self.settings if plan.voice is None else self.settings.model_copy(update={"voice": plan.voice})
            return [plan.processor(self._segments(), settings, self.ctx.out_sample_rate)]
        return [
            OracleProcessor(
                self._segments(),
                self.settings.response_delay_ms,
                self.settings.n4_wait_ms,
                backend=self.settings.shared_backend,
                out_rate=self.ctx.out_sample_rate,
            )
        ]
