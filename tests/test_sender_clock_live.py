"""Live: every track timed at its sender (docs/transport.md, "The timing clock"), in real rooms.

One `oracle` room and one `silent` room on a real LiveKit server (the session's shared runs, read as
they are: tests/conftest.py): the senders' records exist, meta.json names the clock of each track, keeps both verdicts, the legs per turn and the recorder's jitter-buffer
counters, and the model's onsets on its sender's clock agree with the recorded ones — within a few ms
directly, and through turns.json's map to the precision of finding an onset in a recording, whatever the
recorder's jitter buffer did.
Bounds are loose where the machine's load enters (a shared CI box); the map's agreement is not load's.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from floorbench.audio.time_map import time_map_of
from floorbench.audio.track_alignment import audible_runs
from floorbench.pipelines.room.sender_log import read_sent_clock
from floorbench.pipelines.run.hearing import hearing_of
from floorbench.pipelines.run.sent_tracks import load_heard, load_sent, resample
from floorbench.records import DialogueTurns, Outcome, RunMeta, read_meta

pytestmark = [pytest.mark.live, pytest.mark.slow]

RECORDS = ("humans.sent.wav", "humans.sent.tsv", "model.sent.wav", "model.sent.tsv", "model.heard.wav", "model.heard.tsv")


def played(folder: Path) -> tuple[Path, RunMeta, DialogueTurns]:
    """A room the session played (conftest's shared runs, read as they are): completed, its meta and turns."""
    meta = read_meta(folder)
    assert meta is not None and meta.outcome == Outcome.completed, meta and (meta.failure_kind, meta.failure_reason)
    return folder, meta, DialogueTurns.model_validate_json((folder / "turns.json").read_text())


def common_records(folder: Path, meta: RunMeta, dialogue: DialogueTurns) -> None:
    for name in RECORDS:
        assert (folder / name).is_file(), name
    assert meta.timing is not None and meta.timing_receiver is not None
    assert meta.timing.clocks == {"humans": "sender", "model": "sender"}
    assert meta.timing.verdict in ("ok", "degraded")
    if meta.timing.verdict == "degraded":  # a busy machine may slip a sender; it says which and why
        assert meta.timing.reasons and all(
            r.startswith(("humans:", "model:", "evidence missing:")) for r in meta.timing.reasons
        ), meta.timing.reasons
    # a record the model process did not write is a failure; a turn a loaded machine left unfound in it is
    # evidence missing, said as such (the verdict is then degraded, never ok)
    assert not [r for r in meta.timing.reasons
                if ("model.sent" in r or "model.heard" in r) and not r.startswith("evidence missing:")]
    assert dialogue.clock == "timing"
    assert [row["turn_id"] for row in meta.legs] == [t.turn_id for t in dialogue.turns]
    for leg, record in (("humans_to_model_ms", "model.heard.wav"), ("humans_to_room_ms", "humans.wav")):
        unfound = [row["turn_id"] for row in meta.legs if leg not in row]
        if unfound:  # a loaded machine can leave a turn unfound in a copy: said, by turn, and never ok
            assert meta.timing.verdict == "degraded" and any(
                r.startswith("evidence missing: turn(s)") and record in r and all(str(t) in r for t in unfound)
                for r in meta.timing.reasons), (leg, unfound, meta.timing.reasons)
        assert len(unfound) <= 1, (leg, unfound)  # one turn at most: more is a broken leg, not a busy box
    assert all(0 < row[k] < 1000 for row in meta.legs for k in ("humans_to_model_ms", "humans_to_room_ms") if k in row)
    for track in ("humans", "model"):
        counters = meta.receivers[track]
        assert counters["samples"] >= 2 and "stretch_us" in counters and "inserted_samples_for_deceleration" in counters
    # the turns on the timing clock and where the recorder heard them differ by its jitter buffer only
    for t in dialogue.turns:
        extra = t.model_extra or {}
        assert abs(t.start_ms - extra["recorder_start_ms"]) <= 50, (t.turn_id, t.start_ms, extra)


def test_the_oracles_onsets_on_its_senders_clock_agree_with_the_recording(oracle_tiny_run: Path) -> None:
    folder, meta, dialogue = played(oracle_tiny_run / "tiny01-explicit")
    common_records(folder, meta, dialogue)
    leg = meta.transport_latency_ms["model_to_room"]
    assert leg["onsets_sent"] >= 2 and leg["onsets_not_found"] == 0, leg
    assert [row for row in meta.legs if "model_to_room_ms" in row]  # the replies' leg, per turn

    # the model's onsets, recomputed from its own record: sent time + the leg's median, less how much later than
    # its median the model heard the humans before each (its own jitter buffer's step), from model.wav's 0
    sent, rate = sf.read(str(folder / "model.sent.wav"), dtype="int16")
    clock = read_sent_clock(folder / "model.sent.tsv", rate)
    start_ns = meta.tracks["model"].start_ns
    median_ns = leg["p50_us"] * 1000
    humans, heard = load_sent(folder, "humans"), load_heard(folder, "model")
    assert humans is not None and heard is not None
    hearing = hearing_of(humans, heard, meta.transport_latency_ms["humans_to_model"]["p50_us"] * 1000)
    assert hearing is not None and meta.transport_latency_ms["model_hearing"]["anchors"] == len(hearing.heard_ns)
    sends = [clock.time_ns(s * rate / 16000) for s, _ in audible_runs(resample(sent, rate, 16000), 16000)]
    sent_onsets_ms = [(t + median_ns - hearing.excess_at(t).excess_ns - start_ns) / 1e6 for t in sends]
    recorded, _ = sf.read(str(folder / "model.wav"), dtype="int16")
    rec_onsets_ms = [s / 16 for s, _ in audible_runs(recorded, 16000)]
    tmap = time_map_of(dialogue.model_time_map)
    direct, mapped = [], []
    for t in sent_onsets_ms:
        r = min(rec_onsets_ms, key=lambda x: abs(x - t))
        direct.append(abs(r - t))
        mapped.append(abs(tmap.to_timing_us(r * 1000) / 1000 - t))
    print("onsets sent (ms):", [round(t, 1) for t in sent_onsets_ms], "| recorded − sent:", [round(d, 2) for d in direct],
          "| mapped − sent:", [round(d, 2) for d in mapped], "| model → room", leg)
    assert max(direct) <= 250  # the recorder's jitter buffer moved them a few ms (more on a loaded box)
    # through the map: where they were sent. The first audible sample of a recorded onset is itself a few ms
    # uncertain (a jitter buffer fades in after concealment: 8 ms seen), the map's anchors are not
    assert max(mapped) <= 10 and float(np.median(mapped)) <= 3


def test_a_silent_model_leaves_an_empty_sent_record(silent_tiny_run: Path) -> None:
    folder, meta, dialogue = played(silent_tiny_run)
    common_records(folder, meta, dialogue)
    sent, _ = sf.read(str(folder / "model.sent.wav"), dtype="int16")
    assert np.abs(sent.astype(np.int32)).max(initial=0) == 0  # it sent nothing, and says so
    assert meta.transport_latency_ms["model_to_room"]["onsets_sent"] == 0
    assert dialogue.model_time_map is None
    assert json.loads((folder / "meta.json").read_text())["timing"]["figures"]["model_slips"] == 0
