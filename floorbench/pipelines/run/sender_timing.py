"""Every track timed at its sender, where floorbench owns the sender (docs/transport.md, "The timing clock").

The recorder's copy of a track went through its jitter buffer, which moves
audio by a few ms here and there when the machine is busy. The senders keep
their own account (floorbench.pipelines.room.sender_log): the playback what
it sent and when (``humans.sent.*``), the model process what its chain handed
to its source and when (``model.sent.*``) and what it received
(``model.heard.*``). From those and the recordings, per scenario:

- **humans → room**: each turn found in ``humans.wav`` against its send time
  (the transport latency of docs/transport.md, now from ns send times);
- **humans → model**: each turn found in ``model.heard.wav``, against its send
  time: when the model heard it; and the humans' whole sent track traced
  through it (`Hearing`): how far the model's own jitter buffer moved what it
  heard, anchor by anchor;
- **model → room**: every audible run the model sent, traced through
  ``model.wav`` (`floorbench.audio.track_alignment`): each onset's latency,
  and the map of model.wav onto the model's sent clock.

The **timing clock** of a track is its sender's clock plus its leg's measured
constant latency (the median): a turn's time is its send time plus the humans
→ room median, a model sample's time is its send time plus the model → room
median, less how much later than the humans → model median the model heard
the last audio before the reply it belongs to (`Hearing.excess_at`): a reply
to a turn the model heard 30 ms late was sent 30 ms late, and that is the
harness's load, not the model. That is the recorder's clock with the jitter
buffer's stretch taken out: turns.json holds the turns on it (t = 0 at model.wav's first sample, as
before) and ``model_time_map``, which carries the speech found on model.wav
onto it for scoring. A track nobody holds a sent copy of (an external agent)
stays on the recorder's clock (`Clocks`).

Pure functions on arrays and records, except `sender_timing`, which reads the files
(`floorbench.pipelines.run.sent_tracks`); what the model heard, moment by moment, is
`floorbench.pipelines.run.hearing`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.audio.alignment import align_turns, drift_ms_per_100s, percentile_ms
from floorbench.audio.time_map import TimeMap
from floorbench.audio.track_alignment import AUDIBLE_PEAK, Anchor, align_track, audible_runs
from floorbench.pipelines.room.sender_log import SentClock
from floorbench.pipelines.run.hearing import HeardAt, Hearing, hearing_of
from floorbench.pipelines.run.sent_tracks import NS, SentTrack, load_heard, load_sent, read_wav, resample
from floorbench.pipelines.run.turn_mapping import FOUND_SCORE, SILENT_PEAK, dialogue_turn
from floorbench.records import DialogueTurn, TimelineEvent, TrackInfo
from floorbench.scenarios.interface import ScenarioTurn

MS = 1_000_000
SLIP_NS = 20_000_000
"""a gap this long inside audible audio is a sender slip (the playback counts an underrun past the same 20 ms)"""
SLIP_MAX_NS = 1_000_000_000
"""a longer gap is a pause between replies, whatever its edges"""
EDGE_MS = 10
SENDER = "sender"
RECORDER = "recorder"


# -- the humans' turns -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnSend:
    """One turn as the playback sent it."""

    turn_id: int
    sample: int
    """first sample on the humans' sent track"""
    send_ns: int
    end_sample: int | None = None
    end_ns: int | None = None


def turn_sends(
    starts: Mapping[int, TimelineEvent], ends: Mapping[int, TimelineEvent], clock: SentClock | None
) -> dict[int, TurnSend]:
    """Every started turn's send time: from ``humans.sent.tsv`` (ns), else its timeline entry (ms)."""
    out: dict[int, TurnSend] = {}
    for tid, s in sorted(starts.items()):
        if s.sample is None:
            continue
        e = ends.get(tid)
        end_sample = e.sample if e is not None else None

        def at(sample: int, t_ms: int) -> int:
            return clock.time_ns(sample) if clock is not None and clock.frames else t_ms * MS

        out[tid] = TurnSend(
            tid,
            s.sample,
            at(s.sample, s.t_ms),
            end_sample,
            at(end_sample, e.t_ms) if e is not None and end_sample is not None else None,
        )
    return out


@dataclass(frozen=True)
class Arrivals:
    """Where each turn's first 1.5 s was found in a received copy: its latency from the send time."""

    latency_ns: dict[int, int]
    """found turns only"""
    not_found: tuple[int, ...]
    silent: tuple[int, ...]
    """turns with nothing audible to find"""
    send_ns: dict[int, int] = field(default_factory=dict)

    @property
    def median_ns(self) -> int | None:
        return int(np.median(list(self.latency_ns.values()))) if self.latency_ns else None

    def spread_ns(self) -> tuple[int | None, int | None]:
        """(the turn furthest from the median, its distance): how far the leg moved one turn."""
        med = self.median_ns
        if med is None:
            return None, None
        tid, lat = max(self.latency_ns.items(), key=lambda kv: abs(kv[1] - med))
        return tid, abs(lat - med)

    def summary(self, method: str) -> dict[str, Any]:
        lat = [self.latency_ns[t] for t in sorted(self.latency_ns)]
        tid, spread = self.spread_ns()
        return {
            "method": method,
            "n": len(lat),
            "p50": percentile_ms(lat, 50),
            "p95": percentile_ms(lat, 95),
            "p50_us": int(np.median(lat)) // 1000 if lat else None,
            "spread_us": None if spread is None else spread // 1000,
            "spread_turn": tid,
            "drift_ms_per_100s": drift_ms_per_100s([self.send_ns[t] for t in sorted(self.latency_ns)], lat),
            "not_found": list(self.not_found),
            **({"silent": list(self.silent)} if self.silent else {}),
        }


def find_turns(
    sent: np.ndarray, sr_sent: int, received: np.ndarray, sr_rec: int, sends: Mapping[int, TurnSend], start_ns: int
) -> Arrivals:
    """Each turn's sent audio found in a received copy whose sample 0 arrived at `start_ns`."""
    x = resample(sent, sr_sent, sr_rec)
    ratio = sr_rec / sr_sent
    probe_len = 1500 * sr_rec // 1000
    probes, silent = [], []
    for tid, s in sends.items():
        at = int(s.sample * ratio)
        if np.abs(x[at : at + probe_len].astype(np.int32)).max(initial=0) < SILENT_PEAK:
            silent.append(tid)
            continue
        expected = (s.send_ns - start_ns) * sr_rec // NS - at
        probes.append((tid, at, int(expected)))
    lags = align_turns(x, received, probes, sr_rec)
    latency = {}
    for lg in lags:
        if lg.score >= FOUND_SCORE:
            latency[lg.turn_id] = start_ns + (lg.sent_start + lg.lag) * NS // sr_rec - sends[lg.turn_id].send_ns
    not_found = tuple(lg.turn_id for lg in lags if lg.score < FOUND_SCORE)
    return Arrivals(latency, not_found, tuple(silent), {t: s.send_ns for t, s in sends.items()})


# -- the model's track -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelLeg:
    """The model's sent audio traced through model.wav."""

    anchors: list[Anchor]
    """on the recording's rate: `sent` indexes the sent track resampled to it"""
    latency_ns: list[int]
    """per anchor: recorded time − sent time"""
    sent_ns: list[int]
    onsets_sent: int
    """audible runs the model sent (each one an onset to time)"""
    onsets_found: list[tuple[int, int]]
    """(sent time ns, latency ns) of each onset found in model.wav"""
    slips: list[tuple[int, int]]
    """(sent time ns, gap ns): the source ran dry inside audible audio"""

    @property
    def median_ns(self) -> int | None:
        return int(np.median(self.latency_ns)) if self.latency_ns else None

    def time_map(self, record_start_ns: int, hearing: Hearing | None = None) -> TimeMap:
        """model.wav → the timing clock: each anchor's sent time + the median latency, from model.wav's sample 0;
        with `hearing`, each reply (an audible run, from its onset) less the excess of the model's hearing
        when it began (`reply_excess`)."""
        med = self.median_ns
        if med is None:
            return TimeMap()
        sr = self.rec_rate
        excess = self.reply_excess(hearing)
        return TimeMap.from_points(
            (a.rec * 1_000_000 // sr, (t - e + med - record_start_ns) // 1000)
            for a, t, e in zip(self.anchors, self.sent_ns, excess, strict=True)
        )

    def reply_excess(self, hearing: Hearing | None) -> list[int]:
        """Per anchor: the excess of the model's hearing when the reply it belongs to began (0 without
        `hearing`): a whole reply moves as one, so its inside keeps its own pace."""
        if hearing is None or not self.runs:
            return [0] * len(self.anchors)
        starts = [s for s, _ in self.runs]
        at_onset = [hearing.excess_at(t).excess_ns for t in self.run_onsets_ns]
        return [at_onset[i] if (i := bisect_right(starts, a.sent) - 1) >= 0 else 0 for a in self.anchors]

    rec_rate: int = 16000
    runs: list[tuple[int, int]] = field(default_factory=list)
    """the sent track's audible runs (replies), on the recording's rate like `anchors`"""
    run_onsets_ns: list[int] = field(default_factory=list)
    """each run's first sample's send time"""

    def summary(self) -> dict[str, Any]:
        onset_lat = [lat for _, lat in self.onsets_found]
        med = self.median_ns
        spread = max((abs(v - med) for v in onset_lat), default=None) if med is not None else None
        return {
            "method": "xcorr along every audible run: model.sent.wav vs the recorder's model.wav",
            "anchors": len(self.anchors),
            "n": len(onset_lat),
            "p50": percentile_ms(onset_lat, 50),
            "p95": percentile_ms(onset_lat, 95),
            "p50_us": med // 1000 if med is not None else None,
            "spread_us": None if spread is None else spread // 1000,
            "drift_ms_per_100s": drift_ms_per_100s([t for t, _ in self.onsets_found], onset_lat),
            "onsets_sent": self.onsets_sent,
            "onsets_not_found": self.onsets_sent - len(self.onsets_found),
            "slips": len(self.slips),
            "slipped_ms": round(sum(g for _, g in self.slips) / MS, 1),
        }


def sender_slips(track: SentTrack, min_ns: int = SLIP_NS, max_ns: int = SLIP_MAX_NS) -> list[tuple[int, int]]:
    """Gaps of the sent clock with audible audio on both sides: the source ran dry mid-sound.

    Not a gap after the chain cleared its queue (an interrupted reply stops mid-sound by design), nor one
    longer than `max_ns` (a pause between replies). A chain that pauses mid-sound on purpose cannot be told
    from one whose process starved: both count.
    """
    out = []
    edge = EDGE_MS * track.sample_rate // 1000
    x = np.abs(track.audio.astype(np.int32))
    cuts = {cut for cut, _, _ in track.clock.clears}
    for g in track.clock.gaps(min_ns):
        if g.gap_ns > max_ns or (g.sample - g.gap_ns * track.sample_rate // NS) in cuts:
            continue
        silence = g.gap_ns * track.sample_rate // NS
        before = x[max(0, g.sample - silence - edge) : max(0, g.sample - silence)]
        after = x[g.sample : g.sample + edge]
        if before.max(initial=0) > AUDIBLE_PEAK and after.max(initial=0) > AUDIBLE_PEAK:
            out.append((track.clock.time_ns(g.sample), g.gap_ns))
    return out


def model_leg(sent: SentTrack, recorded: np.ndarray, rec_rate: int, record_start_ns: int) -> ModelLeg:
    """Trace the model's sent audio through model.wav (recorded at `rec_rate`, sample 0 at `record_start_ns`)."""
    x = resample(sent.audio, sent.sample_rate, rec_rate)
    ratio = sent.sample_rate / rec_rate
    clock = sent.clock
    runs = audible_runs(x, rec_rate)
    anchors: list[Anchor] = []
    if runs and clock.frames:
        first_lag = (clock.time_ns(0) - record_start_ns) * rec_rate // NS
        anchors = align_track(x, recorded, rec_rate, int(first_lag), runs=runs)
    sent_ns = [clock.time_ns(a.sent * ratio) for a in anchors]
    latency = [record_start_ns + a.rec * NS // rec_rate - t for a, t in zip(anchors, sent_ns, strict=True)]
    onsets = [(t, lat) for a, t, lat in zip(anchors, sent_ns, latency, strict=True) if a.kind == "onset"]
    run_onsets = [clock.time_ns(r * ratio) for r, _ in runs] if clock.frames else []
    return ModelLeg(anchors, latency, sent_ns, len(runs), onsets, sender_slips(sent), rec_rate, runs, run_onsets)


# -- putting it together ---------------------------------------------------------------------------


@dataclass
class Clocks:
    """Which clock timed each track (meta.json ``timing.clocks``)."""

    humans: str = RECORDER
    model: str = RECORDER

    def record(self) -> dict[str, str]:
        return {"humans": self.humans, "model": self.model}


@dataclass
class SenderTiming:
    """One scenario's tracks on the timing clock, with the legs measured on the way."""

    clocks: Clocks
    sends: dict[int, TurnSend]
    humans_to_room: Arrivals
    humans_to_model: Arrivals | None
    model: ModelLeg | None
    time_map: TimeMap
    evidence_missing: list[str] = field(default_factory=list)
    """what could not be measured, as phrases for the verdict"""
    hearing: Hearing | None = None
    """the model's hearing, anchor by anchor (None: no model.heard record, or nothing found in it)"""

    def replies_heard(self) -> list[tuple[int, HeardAt]]:
        """Each reply onset the model sent and that was found (its sent ns) with the model's hearing then."""
        if self.model is None or self.hearing is None:
            return []
        return [(t, self.hearing.excess_at(t)) for t, _ in self.model.onsets_found]

    @property
    def humans_latency_ns(self) -> int:
        return self.humans_to_room.median_ns or 0

    def place_ms(self, send_ns: int, record_start_ns: int) -> int:
        """A humans' sent time on the timing clock (ms from model.wav's sample 0)."""
        return round((send_ns + self.humans_latency_ns - record_start_ns) / MS)

    def legs(self, order: Sequence[int]) -> list[dict[str, Any]]:
        """Per turn (meta.json ``legs``, turns.json): its humans → room and humans → model latencies, and the
        model → room latency of the first reply the model began sending between it and the next turn."""
        rows = []
        ids = [t for t in order if t in self.sends]
        for i, tid in enumerate(ids):
            row: dict[str, Any] = {"turn_id": tid}
            if tid in self.humans_to_room.latency_ns:
                row["humans_to_room_ms"] = round(self.humans_to_room.latency_ns[tid] / MS, 3)
            if self.humans_to_model is not None and tid in self.humans_to_model.latency_ns:
                row["humans_to_model_ms"] = round(self.humans_to_model.latency_ns[tid] / MS, 3)
            if self.model is not None:
                lo = self.sends[tid].send_ns
                hi = self.sends[ids[i + 1]].send_ns if i + 1 < len(ids) else None
                reply = next((o for o in self.model.onsets_found if o[0] >= lo and (hi is None or o[0] < hi)), None)
                if reply is not None:
                    row["model_to_room_ms"] = round(reply[1] / MS, 3)
                    if self.hearing is not None:
                        row["model_heard_excess_ms"] = round(self.hearing.excess_at(reply[0]).excess_ns / MS, 3)
            rows.append(row)
        return rows

    def transport(self) -> dict[str, Any]:
        """meta.json ``transport_latency_ms`` entries of the new legs."""
        out: dict[str, Any] = {
            "humans_sent": self.humans_to_room.summary(
                "xcorr per turn: playback sent vs recorder received, from the turn's send time (ns)"
            )
        }
        if self.humans_to_model is not None:
            out["humans_to_model"] = self.humans_to_model.summary(
                "xcorr per turn: playback sent vs what the model process received (model.heard.wav)"
            )
        if self.hearing is not None:
            replies = self.replies_heard()
            out["model_hearing"] = {
                **self.hearing.summary(),
                "replies": len(replies),
                "reply_correction_max_us": max((abs(h.excess_ns) for _, h in replies), default=0) // 1000,
                "reply_uncertain_max_us": max((h.uncertain_ns for _, h in replies), default=0) // 1000,
            }
        if self.model is not None:
            out["model_to_room"] = self.model.summary()
        return out


def sender_timing(
    folder: Path,
    starts: Mapping[int, TimelineEvent],
    ends: Mapping[int, TimelineEvent],
    humans: TrackInfo,
    model: TrackInfo,
    model_is_ours: bool,
) -> SenderTiming:
    """Read a scenario folder's sent, heard and recorded tracks and time them (module docstring).

    `model_is_ours`: floorbench ran the model's process, so its sent and heard records should be there;
    their absence is missing evidence, not an external agent.
    """
    clocks = Clocks()
    missing: list[str] = []
    humans_sent = load_sent(folder, "humans")
    humans_rec, rec_rate = read_wav(folder / humans.file)
    if humans_sent is not None and humans_sent.clock.frames:
        clocks.humans = SENDER
        sent_audio, sent_rate = humans_sent.audio, humans_sent.sample_rate
    else:  # a folder from before the sender records: the timeline's ms and humans.sent.wav
        sent_audio, sent_rate = read_wav(folder / "humans.sent.wav")
    sends = turn_sends(starts, ends, humans_sent.clock if clocks.humans == SENDER and humans_sent else None)
    to_room = find_turns(sent_audio, sent_rate, humans_rec, rec_rate, sends, humans.start_ns)
    if not to_room.latency_ns:
        missing.append("no turn found in humans.wav: the humans → room latency is unknown")
    elif to_room.not_found:
        missing.append(
            f"turn(s) {', '.join(map(str, to_room.not_found))} not found in humans.wav: "
            "the recorder's copy of them is unconfirmed and their humans → room latency unknown"
        )

    to_model = None
    hearing = None
    heard = _optional(lambda: load_heard(folder, "model"), missing)
    if heard is not None:
        to_model = find_turns(sent_audio, sent_rate, heard.audio, heard.sample_rate, sends, heard.fit.start_ns)
        if humans_sent is not None and clocks.humans == SENDER:
            hearing = hearing_of(humans_sent, heard, to_model.median_ns)
        if to_model.not_found:
            missing.append(
                f"turn(s) {', '.join(map(str, to_model.not_found))} not found in model.heard.wav: "
                "when the model heard them is unknown"
            )
    elif model_is_ours:
        missing.append("no model.heard.wav/.tsv: when the model heard each turn is unknown")

    leg = None
    tmap = TimeMap()
    sent = _optional(lambda: load_sent(folder, "model"), missing)
    if sent is not None:
        recorded, model_rate = read_wav(folder / model.file)
        leg = model_leg(sent, recorded, model_rate, model.start_ns)
        tmap = leg.time_map(model.start_ns, hearing)
        clocks.model = SENDER
        lost = leg.onsets_sent - len(leg.onsets_found)
        if lost:
            missing.append(f"{lost} of {leg.onsets_sent} onset(s) the model sent not found in model.wav")
    elif model_is_ours:
        missing.append("no model.sent.wav/.tsv: the model's track is timed by the recorder")
    return SenderTiming(clocks, sends, to_room, to_model, leg, tmap, missing, hearing)


def _optional(read: Any, missing: list[str]) -> Any:
    try:
        return read()
    except ValueError as e:
        missing.append(str(e))
        return None


def timed_turns(
    turns: Sequence[ScenarioTurn],
    timing: SenderTiming,
    record_start_ns: int,
    on_recorder: Sequence[DialogueTurn],
) -> list[DialogueTurn]:
    """Every turn that was both started and ended, on the timing clock; its place on the recorder's clock
    (the old figures) and its legs beside it."""
    old = {t.turn_id: t for t in on_recorder}
    legs = {row["turn_id"]: row for row in timing.legs([t.id for t in turns])}
    out = []
    for t in turns:
        s = timing.sends.get(t.id)
        if s is None or s.end_ns is None:
            continue
        extra: dict[str, Any] = {}
        if t.id in old:
            extra["recorder_start_ms"], extra["recorder_end_ms"] = old[t.id].start_ms, old[t.id].end_ms
        if len(legs.get(t.id, {})) > 1:
            extra["legs"] = {k: v for k, v in legs[t.id].items() if k != "turn_id"}
        out.append(dialogue_turn(t, timing.place_ms(s.send_ns, record_start_ns),
                                 timing.place_ms(s.end_ns, record_start_ns), **extra))
    return out
