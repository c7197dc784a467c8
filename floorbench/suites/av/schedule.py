"""The live schedule of suite `av` (docs/suites/av.md): the user's clips, seen and heard, timed against the model.

- clips play in order, audio and video together: a clip's video is placed on
  the same audio sample as its sound (`video_source`), so its first frame
  leaves with its first sample;
- a clip with ``offset_ms`` (a cue of a dynamic that happens while the model
  talks: a nod, a raised hand …) starts that long after the model's speech
  onset as heard in the room, the onset of its reply to the clip before; if
  the model does not start within `AvRules.onset_wait_ms`, the cue is not
  played and the timeline says ``not_run`` with the clip id and why (never a
  silent pass: the scorer counts the clip unscorable);
- a clip without ``offset_ms`` after another waits for the floor: the model's
  reply (if it speaks) must end (`endpoint_ms` of silence, or a cap), then
  `turn_gap_ms`;
- after the last clip the room stays open until the event window has passed
  plus `tail_ms` (longer while the model speaks, up to a cap), so the window
  and the model's answer to it are recorded;
- every clip gets ``turn_start``/``turn_end`` lines (planned and actual,
  samples and ms), and the event gets one line (``wait``, reason
  ``event_window``) with the window's planned and actual session times,
  ``window_start_ms``/``window_end_ms`` being the actual ones: the clip's
  actual start plus the event's ``start_ms``/``end_ms``. The scorer reads it
  and never recomputes the schedule.

The numbers are `floorbench.suites.av.rules.AvRules` (the scorer's record);
`AvScheduleConfig` adds only operational knobs. The schedule sees the room
through `schedules.Playback` (plus its camera, if it has one), so it runs on a
virtual clock in tests/test_av_schedule.py exactly as in a LiveKit room.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from floorbench.pipelines.room.schedule import MS, LiveKnobs, LivePlan, LiveRequest, Playback, SuiteSchedule
from floorbench.records import EventKind
from floorbench.suites.av.rules import AvRules
from floorbench.suites.av.schema import AvClip, AvScenario


class Camera(Protocol):
    """The user's video track (`video_source.UserCamera`, or a fake in tests)."""

    def schedule(self, video: Path, at: int, clip_id: int | None, label: str = "") -> object:
        """Play `video` from audio sample `at` on."""
        ...


def camera_of(pb: Playback) -> Camera | None:
    """The playback's camera (`PlaybackParticipant.video`), if it has one: audio-only rooms have none."""
    return getattr(pb, "video", None)


@dataclass(frozen=True)
class AvScheduleConfig(LiveKnobs):
    """The suite's rules plus the schedule's own knobs (not benchmark rules); `tail_ms` counts from the
    event window's end or the last clip's, whichever is later."""

    rules: AvRules = field(default_factory=AvRules)
    turn_gap_ms: int = 500
    """silence between a clip and the next untimed one, once the model has the floor no more"""
    endpoint_ms: int = 1500
    """model silence that ends its reply before the user's next untimed clip"""
    response_cap_ms: int = 30000
    """the longest the schedule waits for the model to stop, from the clip's end"""


@dataclass
class _Played:
    clip: AvClip
    planned_ns: int
    start_sample: int
    end_sample: int
    start_ns: int
    end_ns: int


class AvSchedule(SuiteSchedule[AvScenario, AvScheduleConfig]):
    """Suite av's reactive schedule over one scenario's clips (audio + video)."""

    policy = "av"

    def __init__(
        self,
        scenario: AvScenario,
        clip_audio: dict[int, np.ndarray],
        clip_video: dict[int, Path],
        sample_rate: int,
        config: AvScheduleConfig | None = None,
    ) -> None:
        super().__init__(scenario, clip_audio, sample_rate, config)
        self.clip_video = clip_video

    def default_config(self) -> AvScheduleConfig:
        return AvScheduleConfig()

    def describe(self) -> dict[str, object]:
        return super().describe() | {"fps": self.scenario.fps, "size": list(self.scenario.size)}

    def timeout_s(self, audio_s: float) -> float:
        """A scenario's wall-clock limit: its audio, every wait at its longest, and slack."""
        c, n = self.cfg, len(self.scenario.clips)
        per_clip = (c.rules.onset_wait_ms + c.rules.offset_max_ms + c.response_cap_ms) / 1000 + 2
        return audio_s + n * per_clip + (c.rules.window_max_ms + c.tail_ms + c.response_cap_ms) / 1000 + 90

    async def run(self, pb: Playback) -> None:
        w = pb.writer
        at = self.lead_in(pb)
        last: _Played | None = None
        event: _Played | None = None
        for clip in self.scenario.clips:
            if clip.offset_ms is not None:
                since = last.end_ns if last is not None else w.playout_ns(at)
                onset = await self._onset(pb, clip, since)
                if onset is None:
                    continue
                planned = onset + clip.offset_ms * MS
                played = await self._play(pb, clip, self.sample_at(pb, planned), planned, onset)
            else:
                if last is not None:
                    replied = await self._wait_floor(pb, clip.id, last.end_ns)
                    gap = self.samples(self.cfg.turn_gap_ms)
                    at = max(w.cursor + gap if replied else last.end_sample + gap, w.cursor)
                played = await self._play(pb, clip, at, w.playout_ns(at), None)
            last = played
            at = w.cursor
            if clip.id == self.scenario.event.clip:
                event = played
        if event is None:
            why = f"clip {self.scenario.event.clip} (the event's) was not played"
            pb.log(EventKind.wait, turn_id=self.scenario.event.clip, reason="event_not_run", why=why)
        await self._tail(pb, event)

    async def _play(
        self, pb: Playback, clip: AvClip, at: int, planned_ns: int, onset_ns: int | None
    ) -> _Played:
        """Play one clip (sound and picture) from sample `at`; log its start, end and, if it has it, the event."""
        w = pb.writer
        sc = w.schedule(self.clip_audio[clip.id], at, f"clip {clip.id}")
        if (camera := camera_of(pb)) is not None:
            camera.schedule(self.clip_video[clip.id], sc.start, clip.id, f"clip {clip.id}")
        start_ns = w.playout_ns(sc.start)
        late_ms = (start_ns - planned_ns) // MS
        extra: dict[str, object] = {"planned_ms": planned_ns // MS}
        if onset_ns is not None:
            extra |= {"onset_ms": onset_ns // MS, "offset_ms": clip.offset_ms}
        pb.log(
            EventKind.turn_start,
            turn_id=clip.id,
            sample=sc.start,
            t_ms=start_ns // MS,
            label="av",
            speaker=clip.speaker,
            start_ns=start_ns,
            planned_ns=planned_ns,
            reason=("timed" if onset_ns is not None else "scheduled")
            if late_ms <= 1
            else f"late by {late_ms} ms",
            **extra,
        )
        if clip.id == self.scenario.event.clip:
            self._log_event(pb, clip, planned_ns, start_ns)
        await sc.written.wait()
        end_ns = w.playout_ns(sc.end)
        pb.log(
            EventKind.turn_end, turn_id=clip.id, sample=sc.end, t_ms=end_ns // MS, label="av", end_ns=end_ns
        )
        return _Played(clip, planned_ns, sc.start, sc.end, start_ns, end_ns)

    def _log_event(self, pb: Playback, clip: AvClip, planned_ns: int, start_ns: int) -> None:
        ev = self.scenario.event
        pb.log(
            EventKind.wait,
            turn_id=clip.id,
            reason="event_window",
            t_ms=start_ns // MS,
            dynamic=ev.dynamic,
            category=ev.category,
            window_start_ms=(start_ns + ev.start_ms * MS) // MS,
            window_end_ms=(start_ns + ev.end_ms * MS) // MS,
            window_start_ns=start_ns + ev.start_ms * MS,
            window_end_ns=start_ns + ev.end_ms * MS,
            planned_window_start_ms=(planned_ns + ev.start_ms * MS) // MS,
            planned_window_end_ms=(planned_ns + ev.end_ms * MS) // MS,
            clip_start_ms=start_ns // MS,
            planned_clip_start_ms=planned_ns // MS,
        )

    async def _onset(self, pb: Playback, clip: AvClip, since_ns: int) -> int | None:
        """The model's speech onset after `since_ns` (the previous clip's end), waiting up to onset_wait_ms.

        Already speaking at `since_ns` counts as an onset there. None: logged as
        the clip's ``not_run`` line with the reason.
        """
        deadline = since_ns + self.cfg.rules.onset_wait_ms * MS
        onset, reason = await self.wait_onset(pb, since_ns, deadline)
        if onset is None:
            pb.log(
                EventKind.wait,
                turn_id=clip.id,
                reason="not_run",
                label="av",
                why=f"the model did not start speaking within {self.cfg.rules.onset_wait_ms} ms "
                f"of the previous clip's end, so the cue had nothing to happen during",
                from_ms=since_ns // MS,
                until_ms=deadline // MS,
            )
            return None
        pb.log(EventKind.wait, turn_id=clip.id, reason=reason, from_ms=since_ns // MS, onset_ms=onset // MS)
        return onset

    async def _wait_floor(self, pb: Playback, next_clip: int, end_ns: int) -> bool:
        """Before an untimed clip: let the model's reply to the last one end (endpoint or cap).

        True if the model spoke (the gap then counts from now), False if it stayed quiet.
        """
        c, mon = self.cfg, pb.monitor
        await self.until_heard(pb, end_ns + c.turn_gap_ms * MS + c.vad_margin_ms * MS)
        spoke = mon.last_speech_end_ns is not None or mon.speaking_at(pb.clock.now_ns())
        ended = await self.wait_endpoint(pb, c.endpoint_ms, end_ns + c.response_cap_ms * MS) if spoke else "quiet"
        pb.log(
            EventKind.wait,
            turn_id=next_clip,
            reason=ended,
            until_ms=pb.clock.now_ns() // MS,
            last_speech_ms=(mon.last_speech_end_ns or 0) // MS,
        )
        return ended != "quiet"

    async def _tail(self, pb: Playback, event: _Played | None) -> None:
        """Keep the room open past the event window and the last clip, longer while the model speaks."""
        c, mon, w = self.cfg, pb.monitor, pb.writer
        last_ns = w.playout_ns(w.cursor)
        if event is not None:
            last_ns = max(last_ns, event.start_ns + self.scenario.event.end_ms * MS)
        await self.until_heard(pb, last_ns + c.tail_ms * MS)
        while pb.clock.now_ns() < last_ns + c.tail_ms * MS:
            await mon.wait_change(0.05)
        cap = last_ns + c.response_cap_ms * MS
        quiet = mon.silent_for_ns(pb.clock.now_ns()) >= c.endpoint_ms * MS
        ended = "quiet" if quiet else await self.wait_endpoint(pb, c.endpoint_ms, cap)
        pb.log(EventKind.wait, reason=f"tail_{ended}", until_ms=pb.clock.now_ns() // MS)
        self.log_end(pb)


def live_schedule(req: LiveRequest) -> LivePlan:
    """Suite av's part `live_schedule` (floorbench.plugins): its own schedule over the
    clips' sound and pictures, and the camera that shows them."""
    from floorbench.pipelines.video.source import CameraSettings

    s = req.scenario
    videos = {c.id: req.suite.audio_path(c.video) for c in s.clips}
    idle = req.suite.audio_path(s.idle_video) if s.idle_video else None
    camera = CameraSettings(s.fps, (s.size[0], s.size[1]), idle)
    schedule = AvSchedule(s, req.turn_audio, videos, req.sample_rate)
    return LivePlan(schedule, schedule.timeout_s(req.audio_s), camera)
