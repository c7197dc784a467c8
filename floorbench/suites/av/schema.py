"""Scenario records of suite `av` (docs/suites/av.md): the user seen and heard, one event window.

An av scenario is a short dyadic exchange whose user side is audio *and*
video. It is a list of clips, each a WAV (mono) plus a video file of the same
length (± one frame) at the scenario's constant frame rate, and one event: the
clip the cue is on, its dynamic (`floorbench.suites.av.rules.Dynamic`), the category
that dynamic maps to, and the window ``[start_ms, end_ms]`` relative to that
clip's start in which the model's takeover is scored.

Clips of a dynamic in `DURING_MODEL_SPEECH` (a nod, a raised hand …) happen
while the model talks, so they carry `offset_ms`: live, they start that long
after the model's speech onset as heard in the room, like the turns suite's
barge-ins. Clip 1 of such a scenario is a request that makes the model talk;
its `reply` is what the oracle says.

The suite folder is the same as turns' (suite.yaml with ``suite: av``,
scenarios/*.yaml, audio/, plus video/). The runner reads every suite through
the same few names, so this model offers them too: `scenario_id`, `run_fields`
(its own pair, and the dynamic as its condition), `speakers`, and `turns` (the clips); a clip has
``id``, ``speaker``, ``text``, ``audio``, ``label``, ``gold``. The rules
(known dynamic, category, window inside the clip, files present and
consistent) are checked in `floorbench.suites.av.validate`, one line per
problem, so fields here are typed loosely (``dynamic`` is a string) and an
unknown dynamic gets the one-line message listing the known ones.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from floorbench.scenarios.schema import OwnPairScenario, Speaker, UngradedClip, relative_pattern
from floorbench.suites.av.rules import Category, Dynamic, category_of

SUITE_KIND = "av"
SOURCES = ("synthetic", "import")
"""where a scenario's clips come from: drawn by the generator, or recorded and imported"""
DEFAULT_FPS = 15
DEFAULT_SIZE = (320, 240)
VIDEO_FORMAT = (
    "MP4 (.mp4), MPEG-4 Part 2 (FFmpeg's own mpeg4 encoder), yuv420p, no B-frames, constant frame rate"
)
"""the container and codec the generator writes (av_draw.encode_video); imports may be any
container/codec PyAV decodes at a constant frame rate"""


class AvWord(BaseModel):
    """One spoken word of a clip with its times relative to the clip's start (known for synthetic clips)."""

    model_config = ConfigDict(extra="forbid")

    word: str
    start_ms: int
    end_ms: int


class AvClip(UngradedClip):
    """One clip of the user's track: audio and video of the same length, played together."""

    speaker: str = Field(default="U", description="always 'U': the user (the one seen on camera)")
    text: str = Field(default="", description="transcript of the clip's audio; '' for a wordless cue")
    audio: str = Field(
        description="mono audio (WAV or FLAC, 16/24/48 kHz), relative to the suite folder; silence allowed"
    )
    video: str = Field(
        description=f"video relative to the suite folder: same length ± one frame, fps constant ({VIDEO_FORMAT})"
    )
    offset_ms: int | None = Field(
        default=None,
        description="only for clips of DURING_MODEL_SPEECH dynamics: start this long after the model's onset as heard",
    )
    reply: str | None = Field(
        default=None, description="what the oracle says after this clip when it should take or hold the floor"
    )
    words: list[AvWord] | None = Field(
        default=None, description="word times relative to the clip, where known"
    )

    @field_validator("audio", "video")
    @classmethod
    def _relative(cls, value: str) -> str:
        return relative_pattern(value)

    @property
    def label(self) -> str:
        """The runner's per-clip label: every av clip is an 'av' clip (the event says what it means)."""
        return "av"


class AvEvent(BaseModel):
    """The scored moment: which clip, which dynamic, and the window (relative to that clip's start)."""

    model_config = ConfigDict(extra="forbid")

    clip: int = Field(description="id of the clip the event is on")
    dynamic: str = Field(description="one of floorbench.suites.av.rules.Dynamic (checked by av_validate)")
    category: str = Field(description="must equal CATEGORY[dynamic] (checked by av_validate)")
    start_ms: int = Field(description="window start, ms after the clip's start")
    end_ms: int = Field(description="window end, ms after the clip's start")
    description: str = Field(description="plain words of what the user does, for the judge")

    @classmethod
    def on_last(cls, clips: list[AvClip], dynamic: Dynamic, window: tuple[int, int], description: str) -> AvEvent:
        """The event of a `dynamic` cue on the last of `clips`, its category the one the dynamic maps to."""
        return cls(clip=len(clips), dynamic=dynamic.value, category=category_of(dynamic.value).value,
                   start_ms=window[0], end_ms=window[1], description=description)

    @property
    def kind(self) -> Dynamic:
        """The dynamic as the enum; a ValueError naming the known ones if it is not one."""
        category_of(self.dynamic)
        return Dynamic(self.dynamic)

    @property
    def expected_category(self) -> Category:
        return category_of(self.dynamic)


def user_speakers(voice: str) -> dict[str, Speaker]:
    """An av scenario's `speakers`: the user ('U') alone, in `voice`."""
    return {"U": Speaker(name="User", voice=voice)}


class AvScenario(OwnPairScenario):
    """One av scenario: the user's clips (audio + video), a fixed system prompt, one event."""

    suite: str = SUITE_KIND
    source: Literal["synthetic", "import"]
    system_prompt: str = Field(description="the fixed text given to the model as its instructions")
    fps: int = Field(
        default=DEFAULT_FPS, description="the videos' constant frame rate (AvRules.fps_min..fps_max)"
    )
    size: list[int] = Field(
        default_factory=lambda: list(DEFAULT_SIZE), description="[width, height] of every video"
    )
    idle_video: str | None = Field(
        default=None,
        description="a short loop shown between clips (relative path); None for one continuous clip",
    )
    speakers: dict[str, Speaker] = Field(description="'U': the user (voice 'import:recorded' for imports)")
    clips: list[AvClip]
    event: AvEvent
    meta: dict[str, str | int] = Field(default_factory=dict, description="provenance; never read by scoring")

    @field_validator("idle_video")
    @classmethod
    def _idle_relative(cls, value: str | None) -> str | None:
        return None if value is None else relative_pattern(value)

    @property
    def id(self) -> str:
        """The contract's name for the scenario id."""
        return self.scenario_id

    @property
    def condition(self) -> str:
        """The runner's condition: the dynamic."""
        return self.event.dynamic

    @property
    def run_fields(self) -> dict[str, str]:
        """What meta.json and turns.json carry beside the id: the clip sequence is its own pair."""
        return {"pair_id": self.scenario_id, "condition": self.condition}

    @property
    def turns(self) -> list[AvClip]:
        """The runner's name for the clips (the runner, renderer and turns.json iterate `turns`)."""
        return self.clips

    @property
    def category(self) -> str:
        return self.event.category

    @property
    def event_clip(self) -> AvClip:
        """The clip the event is on (validated scenarios have it)."""
        return next(c for c in self.clips if c.id == self.event.clip)

    def clip(self, clip_id: int) -> AvClip:
        for c in self.clips:
            if c.id == clip_id:
                return c
        raise KeyError(clip_id)
