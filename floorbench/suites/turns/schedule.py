"""The live schedule of suite `turns` (docs/suites/turns.md): the user's clips, timed against the model.

- the user's speech plays clip after clip; after a `pause` clip the next one
  starts exactly `pause_ms` later, whatever the model does (a pause is the
  test: the model must not take the floor in it);
- after an end of turn (`eot`, or the end of a barge-in) the schedule watches
  the model's reply: up to `onset_window_ms` for an onset, then
  `endpoint_ms` of silence (or `response_cap_ms`) before the user's next turn;
- a clip with `offset_ms` (barge-in, backchannel, background voice) starts
  that long after the onset of the model's reply as heard in the room; if the
  model never started, the clip is not played and the timeline says
  ``not_run`` with the clip's id and label;
- every decision is a timeline line (`EventKind`), with samples and times.

The suite plays no duty preamble: suite.yaml's `preamble` is rendered like
every suite's, but a turns conversation starts with the user's first clip.

The numbers are `floorbench.suites.turns.rules.TurnsRules` (the scorer's record);
`TurnsScheduleConfig` adds only operational knobs. The schedule sees the room
through `floorbench.suites.mpe.schedule.Playback`, so it runs on a virtual
clock in tests/test_turns_schedule.py exactly as in a LiveKit room.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from floorbench.pipelines.room.schedule import MS, LiveKnobs, LivePlan, LiveRequest, Playback, SuiteSchedule
from floorbench.records import EventKind
from floorbench.suites.turns.rules import TurnEvent, TurnsRules
from floorbench.suites.turns.schema import TurnsClip, TurnsScenario

E = TurnEvent


@dataclass(frozen=True)
class TurnsScheduleConfig(LiveKnobs):
    """The suite's rules plus the schedule's operational knobs (`LiveKnobs`; not benchmark rules)."""

    rules: TurnsRules = field(default_factory=TurnsRules)


@dataclass
class _Reply:
    """The model's reply to one end of turn, as the schedule learns it."""

    eot_ns: int
    decided: bool = False
    onset_ns: int | None = None
    done: bool = False


def timed_to_model(clip: TurnsClip) -> bool:
    """Clips placed against the model's onset rather than after the previous clip."""
    return clip.offset_ms is not None


class TurnsSchedule(SuiteSchedule[TurnsScenario, TurnsScheduleConfig]):
    """The turns suite's reactive schedule over one scenario's clip audio."""

    policy = "turns"

    def default_config(self) -> TurnsScheduleConfig:
        return TurnsScheduleConfig()

    def timeout_s(self, audio_s: float) -> float:
        """A scenario's wall-clock limit: its audio, every reply's longest wait, and slack."""
        r = self.cfg.rules
        replies = sum(1 for c in self.scenario.turns if c.label in (E.eot, E.interrupt))
        per_reply = (r.onset_window_ms + r.response_cap_ms + r.endpoint_ms) / 1000 + 2
        return audio_s + len(self.scenario.turns) + replies * per_reply + self.cfg.tail_ms / 1000 + 90

    async def run(self, pb: Playback) -> None:
        w = pb.writer
        at = self.lead_in(pb)
        reply: _Reply | None = None
        for clip in self.scenario.turns:
            if timed_to_model(clip):
                onset = await self._onset(pb, reply) if reply is not None else None
                if onset is None:
                    pb.log(EventKind.wait, turn_id=clip.id, reason="not_run", label=str(clip.label),
                           why="the model did not start speaking after the last end of turn")
                    continue
                _, end_ns = await self._play(pb, clip, self.sample_at(pb, onset + (clip.offset_ms or 0) * MS), onset)
                if clip.label is E.interrupt:
                    reply = _Reply(end_ns)
                at = w.cursor
                continue
            if reply is not None and not reply.done:
                await self._endpoint(pb, clip.id, reply)
                at = w.cursor + self.samples(self.cfg.rules.turn_gap_ms)
            end_sample, end_ns = await self._play(pb, clip, at, None)
            if clip.label is E.pause:
                at = end_sample + self.samples(clip.pause_ms or 0)
            elif clip.label is E.eot:
                reply = _Reply(end_ns)
            else:
                at = end_sample + self.samples(self.cfg.rules.turn_gap_ms)
        if reply is not None and not reply.done:
            await self._endpoint(pb, None, reply)
        await self._tail(pb, w.playout_ns(w.cursor))

    async def _play(self, pb: Playback, clip: TurnsClip, at: int, onset_ns: int | None) -> tuple[int, int]:
        """Play one clip from sample `at`; log its start and end; return its end (sample, session ns)."""
        w = pb.writer
        sc = w.schedule(self.clip_audio[clip.id], at, f"clip {clip.id}")
        late = sc.start - at
        extra: dict[str, object] = {}
        if onset_ns is not None:
            extra = {"onset_ms": onset_ns // MS, "offset_ms": clip.offset_ms}
        pb.log(
            EventKind.turn_start, turn_id=clip.id, sample=sc.start, t_ms=w.playout_ns(sc.start) // MS,
            label=str(clip.label), speaker=clip.speaker,
            reason=("timed" if onset_ns is not None else "scheduled") if late <= 0
            else f"late by {late * 1000 // self.sr} ms",
            **extra,
        )
        await sc.written.wait()
        end_ns = w.playout_ns(sc.end)
        pb.log(EventKind.turn_end, turn_id=clip.id, sample=sc.end, t_ms=end_ns // MS, label=str(clip.label))
        return sc.end, end_ns

    async def _onset(self, pb: Playback, reply: _Reply) -> int | None:
        """The onset of the model's reply to `reply.eot_ns` (waiting for it up to the onset window)."""
        if reply.decided:
            return reply.onset_ns
        deadline = reply.eot_ns + self.cfg.rules.onset_window_ms * MS
        onset, reason = await self.wait_onset(pb, reply.eot_ns, deadline)
        reply.decided, reply.onset_ns = True, onset
        pb.log(EventKind.wait, reason=reason, from_ms=reply.eot_ns // MS,
               **({"onset_ms": onset // MS} if onset is not None else {"until_ms": deadline // MS}))
        return onset

    async def _endpoint(self, pb: Playback, next_clip: int | None, reply: _Reply) -> None:
        """Wait for the end of the model's reply: `endpoint_ms` of silence, or the cap from its onset."""
        onset = await self._onset(pb, reply)
        reply.done = True
        if onset is None:
            return
        rules, mon = self.cfg.rules, pb.monitor
        ended = await self.wait_endpoint(pb, rules.endpoint_ms, onset + rules.response_cap_ms * MS)
        pb.log(EventKind.wait, turn_id=next_clip, reason=ended, until_ms=pb.clock.now_ns() // MS,
               last_speech_ms=(mon.last_speech_end_ns or 0) // MS)

    async def _tail(self, pb: Playback, last_ns: int) -> None:
        cfg = self.cfg
        await self.until_heard(pb, last_ns + cfg.tail_ms * MS)
        if pb.monitor.silent_for_ns(pb.clock.now_ns()) < cfg.rules.endpoint_ms * MS:
            await self._endpoint(pb, None, _Reply(last_ns, decided=True, onset_ns=pb.clock.now_ns()))
        self.log_end(pb)


def live_schedule(req: LiveRequest) -> LivePlan:
    """Suite turns' part `live_schedule` (floorbench.plugins): its own schedule, no preamble.

    The run's schedule options are suite mpe's knobs; this suite keeps its own defaults.
    """
    schedule = TurnsSchedule(req.scenario, req.turn_audio, req.sample_rate)
    return LivePlan(schedule, schedule.timeout_s(req.audio_s))
