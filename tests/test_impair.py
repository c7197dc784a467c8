"""The impairment stage (floorbench.processors.impair): exact delays, measured loss, seeded draws."""

from __future__ import annotations

import time

import numpy as np
import pytest
from pipecat.frames.frames import InputAudioRawFrame, OutputAudioRawFrame, TextFrame
from pipecat.tests.utils import run_test

from floorbench.processors.impair import (
    ImpairError,
    ImpairProfile,
    ImpairSchedule,
    Leg,
    netem_status,
    parse_profile,
)
from floorbench.processors.impair_stage import impair_stage, impair_stages

FRAME = np.full(160, 1000, dtype=np.int16).tobytes()  # 10 ms at 16 kHz, never silent


def frames(n: int, kind: type = InputAudioRawFrame) -> list:
    return [kind(audio=FRAME, sample_rate=16000, num_channels=1) for _ in range(n)]


def test_profiles_parse_names_and_parts():
    p = parse_profile("wan")
    assert (p.delay_ms, p.jitter_ms, p.loss_pct, p.legs) == (100, 20, 1.0, ("in", "out"))
    p = parse_profile("delay150+loss2.5", legs="out", seed=7)
    assert (p.delay_ms, p.jitter_ms, p.loss_pct, p.legs, p.seed) == (150, 0, 2.5, ("out",), 7)
    assert not parse_profile("none").active
    with pytest.raises(ImpairError, match=r"unknown part 'lag3'; use a name \(none, delay50"):
        parse_profile("lag3")
    with pytest.raises(ImpairError, match="at most 50 %"):
        parse_profile("loss60")
    with pytest.raises(ImpairError, match="in, out or both"):
        parse_profile("delay100", legs="up")


def test_delay_is_exact_in_the_schedule():
    s = ImpairSchedule(parse_profile("delay100"), "in")
    arrivals = [i * 10_000_000 for i in range(200)]
    releases = [s.next(a) for a in arrivals]
    assert all(r - a == 100_000_000 and not lost for a, (r, lost) in zip(arrivals, releases, strict=True))


def test_jitter_keeps_order_and_bounds():
    s = ImpairSchedule(parse_profile("delay40+jitter30"), "out")
    out = [s.next(i * 10_000_000)[0] - i * 10_000_000 for i in range(2000)]
    rel = out
    assert min(rel) >= 10_000_000 and max(rel) <= 70_000_000
    assert np.std(rel) > 5_000_000  # it does jitter
    absolute = [r + i * 10_000_000 for i, r in enumerate(rel)]
    assert absolute == sorted(absolute)  # order kept


def test_seeded_draws_repeat_and_differ_by_seed_and_leg():
    def lost(seed: int, leg: Leg) -> list[bool]:
        s = ImpairSchedule(parse_profile("loss5+jitter30", seed=seed), leg)
        return [s.next(i)[1] for i in range(2000)]

    assert lost(3, "in") == lost(3, "in")
    assert lost(3, "in") != lost(4, "in")
    assert lost(3, "in") != lost(3, "out")


async def test_stage_delays_frames_by_100_ms():
    stage = impair_stage(parse_profile("delay100"), "in")
    sent = time.monotonic_ns()
    down, _ = await run_test(stage, frames_to_send=frames(5), expected_down_frames=[InputAudioRawFrame] * 5)
    took_ms = (time.monotonic_ns() - sent) / 1e6
    assert len(down) == 5
    # the schedule is exact (test above); a busy machine only adds to the real sleep
    assert took_ms >= 100


async def test_loss_five_percent_over_2000_frames_measured_at_the_receiver():
    stage = impair_stage(parse_profile("loss5", seed=1), "out")
    down, _ = await run_test(stage, frames_to_send=frames(2000, OutputAudioRawFrame))
    audio = [f for f in down if isinstance(f, OutputAudioRawFrame)]
    assert len(audio) == 2000  # a lost frame is concealed as silence: the sample clock stays whole
    silent = sum(1 for f in audio if not any(f.audio))
    assert 0.035 <= silent / 2000 <= 0.065, silent
    assert all(len(f.audio) == len(FRAME) for f in audio)


async def test_stage_leaves_other_frames_and_the_other_leg_alone():
    stage = impair_stage(parse_profile("loss50", seed=2), "in")
    down, _ = await run_test(stage, frames_to_send=[TextFrame("hi"), *frames(20, OutputAudioRawFrame)])
    assert isinstance(down[0], TextFrame)
    audio = [f for f in down if isinstance(f, OutputAudioRawFrame)]
    assert all(any(f.audio) for f in audio) and len(audio) == 20 and len(down) == 21


def test_stages_per_leg_and_recorded_method():
    ins, outs = impair_stages(parse_profile("delay100", legs="in").spec())
    assert len(ins) == 1 and outs == []
    assert impair_stages(None) == ([], []) and impair_stages(parse_profile("none").spec()) == ([], [])
    rec = parse_profile("loss5").record()
    assert rec["method"] == "processor stage" and rec["loss_pct"] == 5.0 and rec["legs"] == ["in", "out"]
    assert ImpairProfile.from_spec(parse_profile("jitter30", seed=9).spec()) == parse_profile(
        "jitter30", seed=9
    )


def test_netem_detection_reads_only(tmp_path):
    mods = tmp_path / "modules"
    mods.write_text("sch_netem 40960 0 - Live 0x0\n")
    assert netem_status(mods, tmp_path)[0] is True
    mods.write_text("tcp_bbr 20480 0 - Live 0x0\n")
    available, why = netem_status(mods, tmp_path)
    assert available is False and "no sch_netem" in why


def test_a_run_records_the_profile_and_passes_it_to_the_model_child(tmp_path):
    """`run --impair`: meta.json's `network` says what and how; the child's spec carries the stages' settings."""
    from floorbench.pipelines.run.scenario_run import ScenarioRun, ScenarioSettings
    from floorbench.processors.registry import ModelContext, create_model
    from floorbench.scenarios.validate import load_suite
    from floorbench.transports.server import LiveKitConnection
    from tests.conftest import TINY_SUITE

    suite = load_suite(TINY_SUITE)
    scenario = suite.scenarios[0]
    model = create_model(
        ModelContext(name="echo", scenario=scenario, suite=suite.suite, suite_root=suite.root)
    )
    conn = LiveKitConnection("ws://127.0.0.1:9", "key", "secret-for-tests-only-0123456789abcdef")
    impaired = ScenarioRun(
        "r", suite, scenario, model, conn, tmp_path, ScenarioSettings(impair=parse_profile("loss5", seed=4))
    )
    assert impaired.meta.network is not None
    assert impaired.meta.network["method"] == "processor stage" and impaired.meta.network["loss_pct"] == 5.0
    assert impaired._model_spec().impair == parse_profile("loss5", seed=4).spec()
    plain = ScenarioRun(
        "r", suite, scenario, model, conn, tmp_path, ScenarioSettings(impair=parse_profile("none"))
    )
    assert plain.meta.network is None and plain._model_spec().impair is None


def test_the_stage_learns_how_late_the_loop_wakes_and_aims_that_early():
    from floorbench.processors.impair import WakeupBias

    bias = WakeupBias()
    for _ in range(200):
        bias.woke(900_000)  # every sleep wakes 0.9 ms after its aim
    assert abs(bias.early_ns - 900_000) < 1_000
    for _ in range(200):
        bias.woke(60_000_000)  # a stalled loop is not rounding: the aim stays within the cap
    assert bias.early_ns == bias.cap_ns


def test_stage_records_say_what_the_stage_added_and_how_late_it_was(tmp_path):
    from floorbench.processors.impair import StageRecords, read_stage_records

    r = StageRecords("out")
    for i in range(4):
        a = i * 10_000_000
        r.arrival_ns.append(a)
        r.due_ns.append(a + 100_000_000)
        r.passed_ns.append(a + 100_000_000 + i * 500_000)  # 0, 0.5, 1.0, 1.5 ms late
        r.lost.append(i == 3)
    s = r.summary()
    assert s["added_ms"]["min"] == 100.0 and s["added_ms"]["max"] == 101.5 and s["late_ms"]["p50"] == 0.75
    assert (s["frames"], s["passed"], s["lost"], s["lost_pct"]) == (4, 4, 1, 25.0)
    r.write(tmp_path)
    back = read_stage_records(tmp_path)
    assert (
        set(back) == {"out"} and back["out"]["added_ms"] == s["added_ms"] and "arrival_ns" not in back["out"]
    )


def test_passthrough_puts_the_stages_in_the_chain_at_delay_zero():
    """The baseline of an impaired measurement has the same chain, the delay at 0 (like with like)."""
    spec = {**parse_profile("none", legs="both").spec(), "passthrough": True}
    ins, outs = impair_stages(spec)
    assert len(ins) == 1 and len(outs) == 1
    assert ins[0].schedule.next(5)[0] == 5  # passed on at once
    assert impair_stages(parse_profile("none", legs="both").spec()) == ([], [])


async def test_a_stage_with_a_records_folder_writes_them_when_the_pipeline_ends(tmp_path):
    spec = {**parse_profile("delay20", legs="in").spec(), "records_dir": str(tmp_path)}
    ins, _ = impair_stages(spec)
    await run_test(ins[0], frames_to_send=frames(10), expected_down_frames=[InputAudioRawFrame] * 10)
    from floorbench.processors.impair import read_stage_records

    rec = read_stage_records(tmp_path)["in"]
    assert (
        rec["frames"] == 10 and rec["passed"] == 10 and rec["added_ms"]["min"] >= 15
    )  # aims early by < 5 ms at most


def test_interleave_inserts_the_delay_before_every_other_talkspurt_and_cuts_it_after():
    from floorbench.processors.impair import INTERLEAVE_LEVEL, Interleave

    il = Interleave(delay_samples=1600)  # 100 ms at 16 kHz
    ms = 1_000_000
    actions = {}
    for t in range(0, 2000, 10):  # 10 ms frames: an 80 ms burst every 500 ms, silence between
        peak = INTERLEAVE_LEVEL if t % 500 < 80 else 10
        insert, cut = il.frame(peak, t * ms, 160)
        if insert or cut:
            actions[t] = (insert, cut)
    assert [on for _, on in il.onsets] == [False, True, False, True]  # the first talkspurt is unimpaired
    # 100 ms of silence before the second burst; cut again from the silence 100 ms after it ended
    assert actions[500] == (1600, 0)
    assert [t for t, (_, c) in actions.items() if c and t < 1000] == list(range(670, 770, 10))
    assert all(c == 160 for t, (_, c) in actions.items() if c) and il.cut == 3200 and il.owed == 0
    assert actions[1500] == (1600, 0) and il.inserted == 3200
    assert il.frame(INTERLEAVE_LEVEL, 1_600 * ms, 160) == (
        0,
        0,
    )  # sound 100 ms after sound: the same talkspurt
