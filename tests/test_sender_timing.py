"""Tracks timed at their senders (floorbench.pipelines.run.sender_timing) and a receiver's counters
(floorbench.pipelines.room.neteq), on synthetic folders: a stretched recording no longer moves a time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from floorbench.audio.track_alignment import audible_runs, warp
from floorbench.clock import TrackFit
from floorbench.pipelines.room.neteq import NetEqSample, summarize
from floorbench.pipelines.room.sender_log import SentClock
from floorbench.pipelines.run.hearing import HeardAt, Hearing, hearing_of
from floorbench.pipelines.run.sender_timing import (
    RECORDER,
    SENDER,
    TurnSend,
    find_turns,
    model_leg,
    sender_slips,
    sender_timing,
)
from floorbench.pipelines.run.sent_tracks import HeardTrack, SentTrack, load_heard, load_sent, resample
from floorbench.pipelines.run.timing_verdict import sender_figures, sender_verdict
from floorbench.records import EventKind, TimelineEvent, TrackInfo
from tests.support.warp import jitter_buffer_edits, received, sent_track, speech_like

S = 1_000_000_000
MS = 1_000_000


def continuous_clock(n: int, rate: int, t0: int, frame: int = 960) -> SentClock:
    starts = np.arange(0, n, frame, dtype=np.int64)
    return SentClock(rate, starts, t0 + starts * S // rate, np.minimum(frame, n - starts))


def test_the_model_leg_takes_the_recorders_stretch_out() -> None:
    """24 kHz sent, 16 kHz recorded 60 ms later through a jitter buffer that moved it 40 times."""
    rng = np.random.default_rng(5)
    sent24, _ = sent_track(21, bursts=10, rate=24000)
    t0, start = 5 * S, 5 * S - 200 * MS  # the recorder's sample 0 came 200 ms before the model's first
    x16 = resample(sent24, 24000, 16000)
    runs_onsets = [s for s, _ in audible_runs(x16, 16000)]
    edits = jitter_buffer_edits(rng, len(x16), runs_onsets, count=40)
    warped, where = warp(x16, edits)
    lead = 200 * 16 + 60 * 16  # the recording's offset and the leg's 60 ms
    recorded = received(warped, rng, lead)
    leg = model_leg(SentTrack(sent24, 24000, continuous_clock(len(sent24), 24000, t0)), recorded, 16000, start)
    assert leg.onsets_sent == len(runs_onsets) == len(leg.onsets_found)
    assert leg.slips == []
    tmap = leg.time_map(start)
    med = leg.median_ns
    assert med is not None
    for onset in runs_onsets:
        true_rec = int(where[onset]) + lead
        # each onset's own latency is the leg plus the stretch before it ...
        send = t0 + onset * S // 16000
        moved = (true_rec - onset - lead) * S // 16000
        found = min(leg.onsets_found, key=lambda o: abs(o[0] - send))
        assert abs(found[1] - (60 * MS + moved)) <= 130_000
        # ... and on the timing clock it is its send time plus the one median: the stretch is gone
        timing_us = tmap.to_timing_us(true_rec * 1_000_000 / 16000)
        assert abs(timing_us - (send + med - start) / 1000) <= 130


def test_turns_found_in_a_copy_give_each_turns_latency() -> None:
    rng = np.random.default_rng(2)
    sent, onsets = sent_track(3, bursts=5)
    sends = {k: TurnSend(k, o, 10 * S + o * S // 16000) for k, o in enumerate(onsets)}
    copy = received(sent, rng, 48 * 16)  # the copy's sample 0 arrived when sent sample 0 left; the audio 48 ms later
    arrivals = find_turns(sent, 16000, copy, 16000, sends, 10 * S)
    assert arrivals.not_found == ()
    assert all(abs(v - 48 * MS) <= 100_000 for v in arrivals.latency_ns.values())
    assert arrivals.spread_ns()[1] is not None and arrivals.spread_ns()[1] <= 100_000


def test_a_gap_inside_sound_is_a_slip_a_pause_or_an_interruption_is_not() -> None:
    rate = 16000
    tone = (np.sin(np.arange(rate) * 0.3) * 8000).astype(np.int16)
    z = np.zeros
    # 0.5 s of sound, 50 ms dry, 0.5 s, a 1.5 s pause, 0.5 s cut by a clear, 100 ms, 0.5 s
    audio = np.concatenate([tone[:8000], z(800, np.int16), tone[:8000], z(24000, np.int16), tone[:8000],
                            z(1600, np.int16), tone[:8000]])
    starts = np.array([0, 8800, 40800, 50400], np.int64)
    times = np.array([S, S + 550 * MS, S + 2550 * MS, S + 3150 * MS], np.int64)
    clock = SentClock(rate, starts, times, np.array([8000, 8000, 8000, 8000], np.int64), clears=[(48800, 0, 4000)])
    slips = sender_slips(SentTrack(audio, rate, clock))
    assert slips == [(S + 550 * MS, 50 * MS)]


def test_receiver_counters_bound_the_stretch() -> None:
    def c(ins: float, rem: float, conc: float, received_: float = 48000.0) -> dict[str, float]:
        return {
            "inserted_samples_for_deceleration": ins, "removed_samples_for_acceleration": rem,
            "concealed_samples": conc, "total_samples_received": received_, "total_samples_duration": received_ / 48000,
            "jitter_buffer_delay": 0.04 * received_, "jitter_buffer_emitted_count": received_,
        }

    samples = [
        NetEqSample(0, c(0, 0, 2000, 0)),  # before the first packet: start-up concealment, not counted
        NetEqSample(2000, c(0, 0, 2000)),
        NetEqSample(4000, c(480, 0, 2000)),  # +10 ms
        NetEqSample(6000, c(480, 960, 2240)),  # −20 ms + 5 ms
        NetEqSample(8000, c(480, 960, 2240)),
    ]
    out = summarize(samples)
    assert out["stretch_us"] == 15_000  # from +10 ms to −5 ms
    assert out["moved_us"] == 35_000
    assert out["displacement_us"] == [[2000, 0], [4000, 10_000], [6000, -5_000], [8000, -5_000]]
    assert out["jitter_buffer_delay_ms"] == 40.0 and out["clock_rate"] == 48000
    assert summarize([]) == {"samples": 0}


# -- the model's own hearing ----------------------------------------------------------------------------


def test_a_reply_to_a_turn_heard_late_is_timed_as_if_heard_at_the_median() -> None:
    """The model heard the humans 45 ms after they were sent until its jitter buffer stepped 40 ms deeper in
    the silence after turn 3; it answers each turn 300 ms after it heard its end. On the timing clock every
    reply lands the same 45 + 300 + 50 ms after its turn's end was sent: the step is the harness's, not the
    model's. Without the hearing, the replies after the step come 40 ms late."""
    rng = np.random.default_rng(11)
    humans, _ = sent_track(4, bursts=6)
    runs = audible_runs(humans, 16000)
    h0 = 10 * S
    hclock = continuous_clock(len(humans), 16000, h0, 160)
    step_at = (runs[2][1] + runs[3][0]) // 2  # a silence between turns 3 and 4
    stretched, where = warp(humans, [(step_at, 40 * 16)])
    heard = received(stretched, rng, 45 * 16)  # heard sample n arrived at h0 + n / 16 kHz
    fit = TrackFit(16000, h0, 0, 0, len(heard) // 160)
    hearing = hearing_of(SentTrack(humans, 16000, hclock), HeardTrack(heard, 16000, fit), 45 * MS)
    assert hearing is not None
    before, after = hearing.excess_at(h0 + runs[2][1] * S // 16000), hearing.excess_at(h0 + runs[5][1] * S // 16000 + S)
    assert abs(before.excess_ns) <= 200_000 and abs(after.excess_ns - 40 * MS) <= 200_000
    assert before.uncertain_ns <= 200_000 and after.uncertain_ns == 0  # in silence after a turn: sure

    # the model's replies, sent 300 ms after it heard each turn's end, recorded 50 ms later
    rate = 24000
    model = np.zeros(len(humans) * 3 // 2 + 3 * rate, np.int16)
    m_start = h0  # the model's sent sample 0 left at h0 as well
    reply_sent: list[int] = []
    for _, end in runs:
        heard_end = h0 + (int(where[end - 1]) + 1 + 45 * 16) * S // 16000
        send = heard_end + 300 * MS
        at = (send - m_start) * rate // S
        model[at : at + rate // 2] = (speech_like(rng, rate // 2, rate) * 9000).astype(np.int16)
        reply_sent.append(send)
    x16 = resample(model, rate, 16000)
    rec_start = h0 - 100 * MS
    recorded = received(x16, rng, (100 + 50) * 16)
    leg = model_leg(SentTrack(model, rate, continuous_clock(len(model), rate, m_start)), recorded, 16000, rec_start)
    assert leg.onsets_sent == len(runs) == len(leg.onsets_found)
    med = leg.median_ns
    assert med is not None
    corrected, plain = leg.time_map(rec_start, hearing), leg.time_map(rec_start)
    for (_, end), send in zip(runs, reply_sent, strict=True):
        end_sent = h0 + end * S // 16000
        rec_us = ((send - m_start) * 16000 // S + (100 + 50) * 16) * 1_000_000 / 16000
        on_timing = corrected.to_timing_us(rec_us) * 1000 + rec_start
        assert abs(on_timing - end_sent - (45 + 300 + 50) * MS) <= 1 * MS
        late = plain.to_timing_us(rec_us) * 1000 + rec_start - end_sent - (45 + 300 + 50) * MS
        assert abs(late - (40 * MS if end > step_at else 0)) <= 1 * MS


def test_a_step_inside_the_humans_speech_is_found_to_a_few_ms() -> None:
    """The model's jitter buffer stepped 30 ms deeper in the middle of a 2 s run of speech; a reply begun
    60 ms after it, or 80 ms before it (both between the 200 ms anchors), is timed on its side of the step,
    and sure of it."""
    rng = np.random.default_rng(3)
    rate = 16000
    humans = np.concatenate([np.zeros(rate // 2), speech_like(rng, 2 * rate) * 12000, np.zeros(rate)]).astype(np.int16)
    h0 = 10 * S
    step_at = rate // 2 + rate + 1234  # 1.08 s into the speech
    stretched, _ = warp(humans, [(step_at, 30 * 16)])
    heard = received(stretched, rng, 45 * 16)
    hearing = hearing_of(SentTrack(humans, rate, continuous_clock(len(humans), rate, h0, 160)),
                         HeardTrack(heard, rate, TrackFit(rate, h0, 0, 0, len(heard) // 160)), 45 * MS)
    assert hearing is not None
    heard_step = h0 + (step_at + 45 * 16) * S // rate  # when the model heard the sound just before the step
    before, after = hearing.excess_at(heard_step - 80 * MS), hearing.excess_at(heard_step + 30 * MS + 60 * MS)
    assert abs(before.excess_ns) <= 200_000 and before.uncertain_ns <= 1 * MS
    assert abs(after.excess_ns - 30 * MS) <= 200_000 and after.uncertain_ns <= 1 * MS


def test_a_reply_begun_while_the_hearing_moved_is_unsure_by_that_much() -> None:
    """Inside a run of the humans' sound the moment of a step between two anchors is unknown; after the anchor
    that closes a run the model heard only silence, so it is sure; after a run whose end was not anchored, the
    step to the next run's first anchor may have come before the reply."""
    hearing = Hearing(
        (0, 200 * MS, 400 * MS, 900 * MS, 1500 * MS),
        (0, 0, 30 * MS, 30 * MS, 12 * MS),
        (False, False, True, False, True),
        45 * MS,
    )
    assert hearing.excess_at(-1) == HeardAt(0, 0)
    assert hearing.excess_at(300 * MS) == HeardAt(0, 30 * MS)  # mid-run, between a step
    assert hearing.excess_at(500 * MS) == HeardAt(30 * MS, 0)  # after the run's closing anchor
    assert hearing.excess_at(1000 * MS) == HeardAt(30 * MS, 18 * MS)  # its run's end never anchored
    assert hearing.excess_at(2 * S) == HeardAt(12 * MS, 0)


# -- a whole folder ----------------------------------------------------------------------------------


def write(folder: Path, name: str, audio: np.ndarray, rate: int) -> None:
    sf.write(str(folder / name), audio, rate, subtype="PCM_16")


def sent_tsv(path: Path, clock: SentClock) -> None:
    path.write_text("".join(f"f\t{s}\t{t}\t{n}\t{t}\n" for s, t, n in zip(clock.starts, clock.times_ns, clock.lengths, strict=True)))


def folder_of_a_scenario(tmp: Path, model_records: bool) -> tuple[dict[int, TimelineEvent], dict[int, TimelineEvent], TrackInfo, TrackInfo]:
    """Humans sent at 16 kHz from t = 2 s, heard by the model 45 ms later, recorded 40 ms later through a
    stretching jitter buffer; the model's replies sent from t = 3 s, recorded 50 ms later, stretched too."""
    rng = np.random.default_rng(9)
    humans, turn_onsets = sent_track(31, bursts=4)
    h0, rec0 = 2 * S, 2 * S - 100 * MS
    hclock = continuous_clock(len(humans), 16000, h0, 160)
    write(tmp, "humans.sent.wav", humans, 16000)
    sent_tsv(tmp / "humans.sent.tsv", hclock)
    hw, _ = warp(humans, jitter_buffer_edits(rng, len(humans), turn_onsets, 12))
    write(tmp, "humans.wav", received(hw, rng, (100 + 40) * 16), 16000)
    model, model_onsets = sent_track(32, bursts=3, rate=24000)
    m0 = 3 * S
    mclock = continuous_clock(len(model), 24000, m0)
    m16 = resample(model, 24000, 16000)
    mw, _ = warp(m16, jitter_buffer_edits(rng, len(m16), [o * 2 // 3 for o in model_onsets], 12))
    write(tmp, "model.wav", received(mw, rng, (1100 + 50) * 16), 16000)
    if model_records:
        write(tmp, "model.sent.wav", model, 24000)
        sent_tsv(tmp / "model.sent.tsv", mclock)
        write(tmp, "model.heard.wav", received(humans, rng, 0), 16000)
        ends = np.arange(160, len(humans) + 1, 160)
        (tmp / "model.heard.tsv").write_text("".join(f"{n}\t{h0 + 45 * MS + n * S // 16000}\n" for n in ends))
    starts = {k: TimelineEvent.of((h0 + o * S // 16000) // MS, EventKind.turn_start, "playback", turn_id=k, sample=o)
              for k, o in enumerate(turn_onsets)}
    ends_ = {k: TimelineEvent.of((h0 + (o + 4800) * S // 16000) // MS, EventKind.turn_end, "playback", turn_id=k,
                                 sample=o + 4800) for k, o in enumerate(turn_onsets)}

    def info(name: str, samples: int) -> TrackInfo:
        return TrackInfo(name=name, participant=name, file=f"{name}.wav", sample_rate=16000, samples=samples,
                         start_ms=rec0 // MS, start_ns=rec0, fit_residual_p50_us=0, fit_residual_p99_us=0)

    return starts, ends_, info("humans", len(hw)), info("model", len(mw))


def test_a_folder_with_sender_records_is_timed_at_its_senders(tmp_path: Path) -> None:
    starts, ends, humans, model = folder_of_a_scenario(tmp_path, model_records=True)
    timing = sender_timing(tmp_path, starts, ends, humans, model, model_is_ours=True)
    assert timing.clocks.record() == {"humans": SENDER, "model": SENDER}
    assert timing.evidence_missing == []
    assert timing.humans_to_model is not None
    assert all(abs(v - 45 * MS) < 200_000 for v in timing.humans_to_model.latency_ns.values())
    assert timing.model is not None and len(timing.model.onsets_found) == timing.model.onsets_sent == 3
    # a turn's time: its send time plus the humans → room median, from model.wav's sample 0
    med = timing.humans_to_room.median_ns
    assert med is not None and abs(med - 40 * MS) < 20 * MS
    for s in timing.sends.values():
        assert timing.place_ms(s.send_ns, model.start_ns) == round((s.send_ns + med - model.start_ns) / MS)
    legs = timing.legs(sorted(timing.sends))
    assert all("humans_to_model_ms" in row and "humans_to_room_ms" in row for row in legs)
    hearing = timing.transport()["model_hearing"]  # heard at one steady latency: nothing to take off a reply
    assert hearing["anchors"] > 0 and hearing["replies"] == 3 and hearing["reply_correction_max_us"] <= 200
    figures = sender_figures(timing, underruns=0)
    verdict = sender_verdict(figures, timing.clocks.record())
    assert (verdict.verdict, verdict.reasons) == ("ok", [])
    assert verdict.clocks == {"humans": "sender", "model": "sender"}


def test_a_model_without_records_is_timed_by_the_recorder_and_bounded_by_its_counters(tmp_path: Path) -> None:
    starts, ends, humans, model = folder_of_a_scenario(tmp_path, model_records=False)
    external = sender_timing(tmp_path, starts, ends, humans, model, model_is_ours=False)
    assert external.clocks.record() == {"humans": SENDER, "model": RECORDER}
    assert external.evidence_missing == [] and external.time_map.is_identity
    v = sender_verdict(sender_figures(external, 0, {"model": {"stretch_us": 4000}}), external.clocks.record())
    assert v.verdict == "ok"
    v = sender_verdict(sender_figures(external, 0, {"model": {"stretch_us": 12000}}), external.clocks.record())
    assert v.verdict == "degraded"
    assert v.reasons == ["model: timed by the recorder, whose jitter buffer moved it up to 12000 µs > 10000 µs"]
    v = sender_verdict(sender_figures(external, 0, {}), external.clocks.record())
    assert v.reasons == ["evidence missing: no jitter-buffer counters for the model track: how far its recording "
                         "moved is unknown"]
    # floorbench's own model process without its records: the evidence is missing, not an external agent
    ours = sender_timing(tmp_path, starts, ends, humans, model, model_is_ours=True)
    assert ours.clocks.model == RECORDER
    assert ours.evidence_missing == [
        "no model.heard.wav/.tsv: when the model heard each turn is unknown",
        "no model.sent.wav/.tsv: the model's track is timed by the recorder",
    ]


def test_a_track_is_read_only_when_its_log_times_it(tmp_path: Path) -> None:
    """`load_sent`/`load_heard`: a wav without its log, or a heard log of no frame, is missing; a broken wav is said."""
    wav = tmp_path / "model.heard.wav"
    sf.write(str(wav), np.zeros(480, np.int16), 16000, subtype="PCM_16")
    assert load_heard(tmp_path, "model") is None  # no .heard.tsv
    (tmp_path / "model.heard.tsv").write_text("")
    assert load_heard(tmp_path, "model") is None  # a log of no frame times nothing
    (tmp_path / "model.heard.tsv").write_text("480\t7000000000\n")
    heard = load_heard(tmp_path, "model")
    assert heard is not None and heard.sample_rate == 16000 and len(heard.audio) == 480
    (tmp_path / "model.sent.wav").write_bytes(b"RIFF, but not a wav")
    assert load_sent(tmp_path, "model") is None  # no .sent.tsv
    (tmp_path / "model.sent.tsv").write_text("f\t0\t100\t960\t100\n")
    with pytest.raises(ValueError, match=r"model\.sent\.wav: unreadable"):
        load_sent(tmp_path, "model")


def test_a_turn_missing_from_a_copy_is_evidence_missing_by_turn(tmp_path: Path) -> None:
    """A turn the recorder's copy (or the model's heard copy) lacks is named, and the verdict is never ok."""
    starts, ends, humans, model = folder_of_a_scenario(tmp_path, model_records=True)
    gone = sorted(starts)[2]
    for name, lead_ms in (("humans.wav", 140), ("model.heard.wav", 0)):  # the turn, up to the next one, is lost
        audio, rate = sf.read(str(tmp_path / name), dtype="int16")
        at, upto = (starts[k].sample + lead_ms * 16 for k in (gone, gone + 1))
        audio[at - 1600 : upto - 1600] = 0
        write(tmp_path, name, audio, rate)
    timing = sender_timing(tmp_path, starts, ends, humans, model, model_is_ours=True)
    assert timing.humans_to_room.not_found == (gone,)
    assert f"turn(s) {gone} not found in humans.wav: the recorder's copy of them is unconfirmed and their " \
           "humans → room latency unknown" in timing.evidence_missing
    assert any(m.startswith(f"turn(s) {gone} not found in model.heard.wav") for m in timing.evidence_missing)
    legs = {row["turn_id"]: row for row in timing.legs(sorted(timing.sends))}
    assert "humans_to_room_ms" not in legs[gone] and "humans_to_model_ms" not in legs[gone]
    assert all("humans_to_room_ms" in row for tid, row in legs.items() if tid != gone)
    verdict = sender_verdict(sender_figures(timing, underruns=0), timing.clocks.record())
    assert verdict.verdict == "degraded" and any(f"turn(s) {gone} not found in humans.wav" in r for r in verdict.reasons)
