"""`floorbench latency`: probe arithmetic (pure), and live: probes come back, an impaired leg adds its delay."""

from __future__ import annotations

import numpy as np
import pytest

from floorbench.pipelines.latency.measure import LatencyOptions, measure, summary_lines
from floorbench.pipelines.latency.probes import (
    Recording,
    find_probe,
    latencies,
    probe_set,
    stats_ms,
)
from floorbench.processors.impair import parse_profile

RATE = 16000


def test_probe_found_at_the_exact_sample_and_not_mistaken_for_another():
    probes = probe_set(RATE)
    rng = np.random.default_rng(0)
    rec = (rng.normal(0, 300, RATE * 2)).astype(np.int16)
    rec[12345 : 12345 + len(probes[2])] += probes[2]
    found = find_probe(probes[2], rec, 12000, 2000, 2000)
    assert found.sample == 12345 and found.ok
    # the other chirps do not match there: probes cannot be confused with their neighbours
    assert all(not find_probe(p, rec, 12000, 2000, 2000).ok for i, p in enumerate(probes) if i != 2)


def test_latencies_on_one_clock():
    probes = probe_set(RATE)
    start_ns = 5_000_000_000
    rec = np.zeros(RATE * 3, dtype=np.int16)
    sent_ns = [start_ns + 200_000_000, start_ns + 700_000_000]
    # the first probe arrives 37.5 ms (600 samples) after it left; the second never arrives
    at = (sent_ns[0] - start_ns) * RATE // 10**9 + 600
    rec[at : at + len(probes[0])] = probes[0]
    lags, scores = latencies([0, 1], probes, sent_ns, Recording(rec, start_ns, RATE), (50, 1000))
    assert lags == [37_500_000, None] and scores[0] > 0.99


def test_stats_and_jitter():
    s = stats_ms([10_000_000, 12_000_000, 11_000_000, 15_000_000])
    assert (s["n"], s["min"], s["max"], s["p50"]) == (4, 10.0, 15.0, 11.5)
    assert s["jitter"] == pytest.approx((2 + 1 + 4) / 3, abs=0.01)
    assert stats_ms([]) == {"n": 0}


def test_the_model_spec_carries_the_stages_and_where_they_write(tmp_path):
    """Impaired: the profile and the records folder; a like-with-like baseline: the stages at delay 0."""
    from floorbench.pipelines.latency.measure import _model_spec
    from floorbench.transports.server import LiveKitConnection

    conn = LiveKitConnection("ws://127.0.0.1:9", "key", "secret-for-tests-only-0123456789abcdef")
    hurt = _model_spec(LatencyOptions(out=tmp_path, impair=parse_profile("delay100", legs="out")), conn, "r")
    assert (
        hurt.impair is not None
        and hurt.impair["delay_ms"] == 100
        and hurt.impair["records_dir"] == str(tmp_path)
    )
    base = _model_spec(LatencyOptions(out=tmp_path, passthrough_legs="out"), conn, "r")
    assert base.impair is not None and base.impair["passthrough"] is True and base.impair["delay_ms"] == 0
    assert base.impair["legs"] == ["out"]
    assert _model_spec(LatencyOptions(out=tmp_path), conn, "r").impair is None


async def _round_trip(livekit, tmp, impair):
    opts = LatencyOptions(
        out=tmp, probes=8, interval_ms=400, connection=livekit, impair=impair, search_ms=(50, 1200)
    )
    return await measure(opts)


@pytest.mark.live
async def test_latency_live_impaired_leg_adds_its_delay(livekit, tmp_path):
    """Unimpaired, then +200 ms on the model's outbound leg: every probe comes back, the round trip rises.

    The rise is asserted within 100..350 ms, not ±5 ms: on a busy 2-core machine the room's
    jitter buffers, the sources' queues and playback underruns move the figures by tens to
    hundreds of ms between runs (measured under load 6-11: unimpaired round-trip p50 214..487 ms;
    on the least disturbed pair the rise was 200.5 ms). The precise figure is
    benchmarks/latency.py's (repeats, spread). A first pair outside the band is run once more.
    """
    rise, base, slow = float("nan"), {}, {}
    for attempt in range(2):
        base = await _round_trip(livekit, tmp_path / f"base{attempt}", None)
        slow = await _round_trip(livekit, tmp_path / f"slow{attempt}", parse_profile("delay200", legs="out"))
        for r in (base, slow):
            for name in ("up", "round_trip", "via_model"):
                assert r["directions"][name]["n"] >= 6, (name, r["directions"])
            assert r["resolution_ms"] == 0.0625
        assert slow["network"]["method"] == "processor stage" and slow["network"]["legs"] == ["out"]
        # the model's legs (round trip − up) leave out what load adds to the playback's own track
        rise = slow["directions"]["model_legs"]["p50"] - base["directions"]["model_legs"]["p50"]
        print(f"attempt {attempt}: model-legs rise {rise:.1f} ms for +200 ms on one leg")
        if 100 <= rise <= 350:
            break
    assert 100 <= rise <= 350, (rise, base["directions"], slow["directions"])
    lines = summary_lines(slow)
    assert any(line.strip().startswith("round_trip  p50") for line in lines)
    assert "processor stage" in lines[1]
    assert (tmp_path / "slow0" / "latency.json").is_file()


@pytest.mark.live
async def test_latency_live_interleaved_rise_is_the_delay_per_leg(livekit, tmp_path):
    """One room, +100 ms on both legs for every other probe: the round trip of the impaired probes is
    200 ms ± 5 ms above the unimpaired ones (the stages' own records say what they inserted and cut).

    On a loaded 2-core machine a receiving jitter buffer can step by tens of ms within the 6 s of
    probes (seen: a 219.9 ms rise); the rise must then hold in a fresh room, as the other live
    timing checks do (tests/support/live_checks.py): one miss is the machine's, two are the tool's."""
    for attempt in range(2):
        opts = LatencyOptions(
            out=tmp_path / f"attempt{attempt}",
            probes=12,
            interval_ms=500,
            connection=livekit,
            impair=parse_profile("delay100", legs="both"),
            interleave=True,
        )
        report = await measure(opts)
        il = report["interleaved"]
        assert il["unimpaired_probes"] >= 5 and il["impaired_probes"] >= 5, il
        rises = {name: il["directions"][name]["rise_ms"] for name in ("round_trip", "via_model")}
        print(f"attempt {attempt}: interleaved rises {rises}")
        if all(abs(r - 200) <= 5 for r in rises.values()):
            break
    for name in ("round_trip", "via_model"):
        assert abs(il["directions"][name]["rise_ms"] - 200) <= 5, il["directions"]
    for leg in ("in", "out"):
        assert report["stage"][leg]["interleave"]["inserted"] == 1600 * len(
            [o for o in report["stage"][leg]["onsets"] if o[1]]
        )
    assert any("interleaved:" in line for line in summary_lines(report))
