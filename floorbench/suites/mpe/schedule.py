"""Live schedules: what the playback participant plays when. One policy per suite.

`MpeSchedule` is the live schedule of docs/suites/mpe.md to the letter:

1. preamble, then 500 ms of silence;
2. ordinary turns 500 ms apart (configurable 400–500), placed at exact samples;
3. after `T`: 5 000 ms for the model to start; if it starts (or was already
   speaking when the request ended), wait for 2 000 ms of silence or 60 s since
   the onset (since the request end, if already speaking); then the next turn;
4. after `N4Q`: exactly 3 000 ms from the question's end, then `N4R`, whatever
   the model is doing;
5. "speaking" is the live VAD on the model audio received (`ModelSpeechMonitor`);
6. every decision is a timeline line with its sample, time and reason.

The numbers are `floorbench.suites.mpe.rules.MpeRules`, the same record the scorer
reads; `MpeScheduleConfig` only adds the schedule's operational knobs. The
schedule sees the room through small protocols (`Playback`: a clip writer, a
speech monitor, a clock, a log), so it runs as well on a virtual clock
(tests/test_schedule_virtual.py) as in a LiveKit room.

Decisions about the model are taken on the reception clock; a deadline is only
judged once audio up to it (plus a margin for the VAD's 120 ms minimum) has
been heard, so a late packet cannot turn an onset at 4.9 s into "no onset".
After a reactive wait the next turn starts at the writer's cursor, i.e. one
source queue (default 200 ms) after the decision; the timeline records where.

Decisions where the benchmark is silent (written down here and in docs/suites/mpe.md):
- with no onset in the 5 000 ms window, the next turn starts when the window
  closes (no extra 500 ms gap: the window already is one);
- after the last turn the room stays open for `tail_ms` (3 000 ms), longer if
  the model is speaking then (2 000 ms endpoint, 60 s cap), so the last
  window can be scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from floorbench.pipelines.room.schedule import MS, LiveKnobs, LivePlan, LiveRequest, Playback, SuiteSchedule
from floorbench.records import EventKind
from floorbench.suites.mpe.rules import MpeRules
from floorbench.suites.mpe.schema import Label, Scenario


@dataclass(frozen=True)
class MpeScheduleConfig(LiveKnobs):
    """The benchmark's rules plus the schedule's operational knobs (`LiveKnobs`; not benchmark rules)."""

    rules: MpeRules = field(default_factory=MpeRules)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> MpeScheduleConfig:
        """The run's schedule options (JSON, e.g. ``{"tail_ms": 1000, "rules": {"endpoint_ms": 1500}}``)."""
        opts = dict(options)
        rules = MpeRules(**opts.pop("rules")) if "rules" in opts else MpeRules()
        return cls(rules=rules, **opts)


class MpeSchedule(SuiteSchedule[Scenario, MpeScheduleConfig]):
    """The reactive Duplex-MPE schedule over one scenario's turn audio."""

    policy = "mpe"

    def __init__(
        self,
        scenario: Scenario,
        preamble: np.ndarray | None,
        turn_audio: dict[int, np.ndarray],
        sample_rate: int,
        config: MpeScheduleConfig | None = None,
    ) -> None:
        super().__init__(scenario, turn_audio, sample_rate, config)
        self.preamble = preamble

    def default_config(self) -> MpeScheduleConfig:
        return MpeScheduleConfig()

    def describe(self) -> dict[str, object]:
        """meta.json's ``schedule``; with the language a scenario beyond English is held in (the scorer hears
        and judges in it: floorbench.scoring.held_in)."""
        lang = getattr(self.scenario, "language", "en")
        return super().describe() | ({"language": lang} if lang != "en" else {})

    async def run(self, pb: Playback) -> None:
        rules, w = self.cfg.rules, pb.writer
        at = self.lead_in(pb)
        if self.preamble is not None and len(self.preamble):
            clip = w.schedule(self.preamble, at, "preamble")
            pb.log(EventKind.preamble_start, sample=clip.start, t_ms=w.playout_ns(clip.start) // MS)
            await clip.written.wait()
            pb.log(EventKind.preamble_end, sample=clip.end, t_ms=w.playout_ns(clip.end) // MS)
            at = clip.end + self.samples(rules.preamble_gap_ms)
        turns = self.scenario.turns
        for turn in turns:
            audio = self.clip_audio[turn.id]
            clip = w.schedule(audio, at, f"turn {turn.id}")
            late = clip.start - at
            pb.log(
                EventKind.turn_start,
                turn_id=turn.id,
                sample=clip.start,
                t_ms=w.playout_ns(clip.start) // MS,
                label=str(turn.label),
                speaker=turn.speaker,
                reason="scheduled" if late <= 0 else f"late by {late * 1000 // self.sr} ms",
            )
            await clip.written.wait()
            end_ns = w.playout_ns(clip.end)
            pb.log(EventKind.turn_end, turn_id=turn.id, sample=clip.end, t_ms=end_ns // MS)
            if turn.label is Label.T:
                await self._after_request(pb, turn.id, end_ns)
                at = w.cursor
            elif turn.label is Label.N4Q:
                at = clip.end + self.samples(rules.n4_window_ms)
                pb.log(
                    EventKind.wait,
                    turn_id=turn.id,
                    reason="n4_fixed_wait",
                    sample=at,
                    until_ms=w.playout_ns(at) // MS,
                )
            else:
                at = clip.end + self.samples(rules.turn_gap_ms)
        await self._tail(pb, w.playout_ns(w.cursor))

    async def _after_request(self, pb: Playback, turn_id: int, end_ns: int) -> None:
        rules, mon = self.cfg.rules, pb.monitor
        deadline = end_ns + rules.onset_window_ms * MS
        onset, outcome = await self.wait_onset(pb, end_ns, deadline)
        if onset is None:
            pb.log(EventKind.wait, turn_id=turn_id, reason=outcome, from_ms=end_ns // MS, until_ms=deadline // MS)
            return
        pb.log(EventKind.wait, turn_id=turn_id, reason=outcome, from_ms=end_ns // MS, onset_ms=onset // MS)
        ended = await self.wait_endpoint(pb, rules.endpoint_ms, onset + rules.response_cap_ms * MS)
        pb.log(
            EventKind.wait,
            turn_id=turn_id,
            reason=ended,
            until_ms=pb.clock.now_ns() // MS,
            last_speech_ms=(mon.last_speech_end_ns or 0) // MS,
        )

    async def _tail(self, pb: Playback, last_ns: int) -> None:
        cfg = self.cfg
        await self.until_heard(pb, last_ns + cfg.tail_ms * MS)
        if pb.monitor.silent_for_ns(pb.clock.now_ns()) < cfg.rules.endpoint_ms * MS:
            ended = await self.wait_endpoint(pb, cfg.rules.endpoint_ms, last_ns + cfg.rules.response_cap_ms * MS)
            pb.log(EventKind.wait, reason=f"tail_{ended}", until_ms=pb.clock.now_ns() // MS)
        self.log_end(pb)


def default_timeout_s(scenario: Scenario, audio_s: float, cfg: MpeScheduleConfig) -> float:
    """The room's time limit: the audio, a second per turn, and every T window at its longest."""
    n_t = sum(1 for t in scenario.turns if t.label == "T")
    r = cfg.rules
    per_t = (r.onset_window_ms + r.response_cap_ms + r.endpoint_ms) / 1000 + 2
    return audio_s + len(scenario.turns) * 1.0 + n_t * per_t + (r.response_cap_ms / 1000) + 90


def live_schedule(req: LiveRequest) -> LivePlan:
    """Suite mpe's part `live_schedule` (floorbench.plugins)."""
    cfg = MpeScheduleConfig.from_options(req.options)
    schedule = MpeSchedule(req.scenario, req.preamble, req.turn_audio, req.sample_rate, cfg)
    return LivePlan(schedule, default_timeout_s(req.scenario, req.audio_s, cfg))
