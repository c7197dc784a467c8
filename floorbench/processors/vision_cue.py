"""`cascade-vision`: the local cascade plus a vision cue detector — the baseline of suite av that looks.

The audio-only ``cascade`` (floorbench/processors/cascade.py) hears a user who
raises a hand or shakes their head while it talks only if they also make a
sound; it answers a user who holds a hand up in a pause as soon as the pause
is long enough. This model is the same cascade with eyes
(`floorbench.processors.vision_detect`: OpenCV's bundled face cascade, the
face's own skin tone, the eyes' whites and pupils), and two decisions:

- **yield** — while its speech is audible, a *raised hand* or a *head shake*
  stops it through the cascade's own stop path (the speaking task cancelled,
  Piper told to stop, an ``InterruptionFrame`` to clear the output queue),
  exactly as an audio barge-in would;
- **hold** — while it is not audible, a *hand held up* or a *look away*
  (thinking) keeps it from starting an answer: an answer ready meanwhile waits
  until the cue has not been seen for ``vision.hold_ms``, and is dropped if
  the user spoke again in the meantime (the user kept the floor).

Who is speaking decides between a raised hand (wants the floor) and a hand
held up (keeps it): the picture is the same. A nod, which VideoFDB counts as
support, is seen and recorded but changes nothing.

The model receives the user's video as pipecat ``InputImageRawFrame``s
(``UserImageRawFrame`` from the LiveKit transport with ``video_in_enabled``;
the processor's ``wants_video`` and ``video_in_fps`` tell the model process to
enable it at that rate, floorbench/pipelines/video/model_input.py) and looks at most
``vision.fps`` times a second, in a worker thread, dropping frames that arrive
while a look is running. Every decision is a marker like the
cascade's (loguru, and a data-channel message the recorder writes to the
timeline): ``{"event": "vision_cue", "cue", "decision", "frame_t_ms",
"frame_wall_ns", "look_ms", ...}`` with the arrival time of the frame it was
decided on.
"""

from __future__ import annotations

import asyncio
import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, Literal, cast

from pipecat.frames.frames import Frame, InputImageRawFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pydantic import Field

from floorbench.processors.adapter_config import Ms, Settings
from floorbench.processors.cascade import CascadeModel, CascadeProcessor, CascadeSettings
from floorbench.processors.cascade_llm import LLMLink, LLMResponder
from floorbench.processors.vision_detect import Cues, CueTracker, FrameReader, rgb_array

YIELD_CUES = ("raised_hand", "head_shake")
HOLD_CUES = ("hand_hold", "thinking_gaze")


class VisionSettings(Settings):
    """What the vision cue detector looks at and how its decisions last."""

    fps: float = Field(default=8.0, gt=0, le=30)
    """looks per second at most (frames in between are dropped); a head shake needs a few looks"""
    hold_ms: Ms = 1200
    """a hold lasts this long after its cue was last seen"""
    max_hold_ms: Ms = 8000
    """an answer waits at most this long for a hold to end (a hand left up must not mute the model)"""
    yield_on: list[Literal["raised_hand", "head_shake"]] = Field(default_factory=lambda: list(YIELD_CUES))
    hold_on: list[Literal["hand_hold", "thinking_gaze"]] = Field(default_factory=lambda: list(HOLD_CUES))


class CascadeVisionSettings(CascadeSettings):
    """The cascade's settings (cascade.yaml) plus ``vision:`` (cascade-vision.yaml)."""

    dyadic: bool = True
    """suite av is one user talking to the model: every utterance is for it (the cascade's default is False)"""
    vision: VisionSettings = VisionSettings()


def decide(cues: Cues, audible: bool, s: VisionSettings) -> tuple[str, str] | None:
    """(cue, "yield" | "hold") for what is seen, given whether the model is audible; None: nothing.

    The same hand means "let me speak" while the model talks and "one second" while it does not.
    """
    if audible:
        if cues.hand_up and "raised_hand" in s.yield_on:
            return "raised_hand", "yield"
        if cues.head_shake and "head_shake" in s.yield_on:
            return "head_shake", "yield"
        return None
    if cues.hand_up and "hand_hold" in s.hold_on:
        return "hand_hold", "hold"
    if cues.gaze_away and "thinking_gaze" in s.hold_on:
        return "thinking_gaze", "hold"
    return None


class VisionCascadeProcessor(CascadeProcessor):
    """The cascade, also fed the user's video: yields and holds on what it sees (module docstring)."""

    wants_video: ClassVar[bool] = True
    """the model process enables the transport's video input for a chain holding this processor"""

    def __init__(
        self, settings: CascadeVisionSettings, llm: LLMResponder | None = None, out_rate: int = 24000
    ) -> None:
        super().__init__(settings, llm, out_rate)
        self.vision = settings.vision
        self.video_in_fps = math.ceil(self.vision.fps)
        """the rate the transport passes frames on at (floorbench.pipelines.video.model_input): the rest are
        dropped before they are converted to RGB"""
        self.decisions: list[dict[str, Any]] = []
        """every vision decision record (also in `latencies` and sent as markers)"""
        self._look_pool = ThreadPoolExecutor(1, thread_name_prefix="cascade-vision")
        self._reader: FrameReader | None = None
        self._tracker = CueTracker()
        self._looking = False
        self._last_look_ns = 0
        self._hold_until_ns = 0
        self._holding_cue: str | None = None
        self._seen: tuple[str, ...] = ()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, InputImageRawFrame):
            await FrameProcessor.process_frame(self, frame, direction)
            await self.on_image(frame)  # consumed, like the room's audio
            return
        await super().process_frame(frame, direction)

    async def on_stop(self) -> None:
        await super().on_stop()
        self._look_pool.shutdown(wait=False, cancel_futures=True)

    # --- looking ----------------------------------------------------------------------

    async def on_image(self, frame: InputImageRawFrame) -> None:
        """One video frame: looked at if a look is due and none is running, else dropped."""
        now = time.monotonic_ns()
        # 0.8 of the period: frames sampled at `fps` by the transport arrive with jitter,
        # and a strict period would drop every other one
        if self._looking or self._closed or now - self._last_look_ns < 0.8e9 / self.vision.fps:
            return
        self._looking, self._last_look_ns = True, now
        arrival = {"frame_t_ms": (now - self._t0) // 1_000_000, "frame_wall_ns": time.time_ns()}
        try:
            loop = asyncio.get_running_loop()
            cues, look_ms = await loop.run_in_executor(self._look_pool, self._look, frame, now)
        except RuntimeError:  # the pool is shut down: the session ends
            return
        except ValueError as e:  # a frame of an unexpected layout: one warning, no decision
            await self._vision_marker({"event": "vision_error", "error": str(e), **arrival})
            return
        finally:
            self._looking = False
        await self.on_cues(cues, {**arrival, "look_ms": look_ms})

    def _look(self, frame: InputImageRawFrame, now_ns: int) -> tuple[Cues, int]:
        t = time.monotonic_ns()
        if self._reader is None:
            self._reader = FrameReader()
        look = self._reader.read(rgb_array(frame.image, frame.size, frame.format))
        cues = self._tracker.update((now_ns - self._t0) // 1_000_000, look)
        return cues, (time.monotonic_ns() - t) // 1_000_000

    # --- deciding ---------------------------------------------------------------------

    @property
    def audible(self) -> bool:
        """Speech pushed and not yet played out (an answer being prepared or held is not audible)."""
        return time.monotonic_ns() < self._audible_until_ns

    async def on_cues(self, cues: Cues, when: dict[str, Any]) -> None:
        """Act on the cues of one look; `when` carries the frame's arrival time for the record."""
        seen = tuple(cues.names())
        if seen != self._seen and seen:
            await self._vision_marker({"event": "vision_seen", "cues": list(seen), **when})
        self._seen = seen
        decision = decide(cues, self.audible, self.vision)
        if decision is None:
            return
        cue, action = decision
        if action == "yield":
            await self._vision_yield(cue, when)
            return
        starting = time.monotonic_ns() >= self._hold_until_ns
        self._hold_until_ns = time.monotonic_ns() + self.vision.hold_ms * 1_000_000
        if starting or cue != self._holding_cue:
            self._holding_cue = cue
            await self._vision_marker({"event": "vision_cue", "cue": cue, "decision": "hold", **when})

    async def _vision_yield(self, cue: str, when: dict[str, Any]) -> None:
        """The cascade's own stop path (`CascadeProcessor.stop_speaking`, as a barge-in), recorded as a vision decision."""
        t = time.monotonic_ns()
        await self.stop_speaking()
        record = {
            "event": "vision_cue",
            "cue": cue,
            "decision": "yield",
            "stop_ms": (time.monotonic_ns() - t) // 1_000_000,
            "t_ms": (time.monotonic_ns() - self._t0) // 1_000_000,
            **when,
        }
        await self._vision_marker(record)

    async def _vision_marker(self, record: dict[str, Any]) -> None:
        record = {"source": "cascade-vision", **record}
        if record["event"] == "vision_cue":
            self.decisions.append(record)
        await self._marker(record)

    # --- holding --------------------------------------------------------------------

    @property
    def holding(self) -> bool:
        return time.monotonic_ns() < self._hold_until_ns

    async def _speak(self, text: str, record: dict[str, Any], after: asyncio.Task | None = None) -> None:
        """Speak as the cascade does, after any hold ends; the user speaking again meanwhile drops the answer."""
        waited_ns, t = 0, time.monotonic_ns()
        while self.holding and waited_ns < self.vision.max_hold_ms * 1_000_000:
            await asyncio.sleep(0.05)
            waited_ns = time.monotonic_ns() - t
        if waited_ns:
            record["held_ms"] = waited_ns // 1_000_000
            record["held_by"] = self._holding_cue
            if self._onset_ms > record["speech_end_ms"]:
                self._pending_answer = False
                record["event"] = "decision"
                record["dropped"] = "held: the user went on after the pause"
                await self._marker(record)
                return
        await super()._speak(text, record, after)


class VisionCascadeModel(CascadeModel, name="cascade-vision", settings=CascadeVisionSettings):
    """The cascade plus the vision cue detector (module docstring); local only, like the cascade."""

    def processors(self) -> list[FrameProcessor]:
        settings = cast(CascadeVisionSettings, self.settings)
        cascade = VisionCascadeProcessor(settings, self.llm, self.ctx.out_sample_rate)
        return [LLMLink(self.llm, self.name), cascade] if self.llm else [cascade]

    def card(self) -> dict[str, Any]:
        card = super().card()
        v = cast(CascadeVisionSettings, self.settings).vision
        card.update(
            model_id="cascade-vision: the cascade + OpenCV face cascade, skin and eye cues",
            vision={
                "detector": "opencv haarcascade_frontalface_default + skin/eye cues (vision_detect)",
                "fps": v.fps,
                "hold_ms": v.hold_ms,
                "yield_on": list(v.yield_on),
                "hold_on": list(v.hold_on),
            },
        )
        return card
