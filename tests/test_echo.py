"""The echo path of `--acoustics …+echo[:ERL,DELAY]` (floorbench.speech.echo) on synthetic signals.

A writer is simulated on a virtual clock (playout of sample S at S / rate after the first write,
the writer `LEAD_MS` ahead of playout); the received audio is white noise fed in 10 ms frames as
the playback's monitor feeds it. The delay and the ERL realised in the caller's track are measured
back (cross-correlation peak, power ratio) and must match the settings.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from floorbench.speech.acoustics import AcousticsError, LiveAcoustics, parse_acoustics, render
from floorbench.speech.echo import (
    HEARD_RATE,
    EchoPath,
    EchoSpec,
    measured_delay_samples,
    measured_erl_db,
)

LEAD_MS = 200


def run_echo(spec: EchoSpec, rate: int, rir: np.ndarray | None, seconds: float = 2.0,
             recv_start_ns: int = 0) -> tuple[np.ndarray, np.ndarray, EchoPath]:
    """(received audio at `rate`, the caller's track the echo made, the path)."""
    import soxr

    rng = np.random.default_rng(7)
    heard = (rng.standard_normal(int(seconds * HEARD_RATE)) * 3000).astype(np.int16)
    path = EchoPath(spec, rate, rir)
    cursor = [0]
    path.bind(lambda t: t * rate // 1_000_000_000, lambda: cursor[0])
    track = np.zeros(int((seconds + 3) * rate))
    frame_in, block = HEARD_RATE // 100, rate // 50
    fed = 0
    for t_ms in range(0, int((seconds + 3) * 1000), 10):  # every 10 ms: a frame arrives, the writer keeps its lead
        if fed < len(heard) and t_ms * 1_000_000 >= recv_start_ns:
            path.heard(heard[fed:fed + frame_in], recv_start_ns)
            fed += frame_in
        while cursor[0] < (t_ms + LEAD_MS) * rate // 1000 and cursor[0] + block <= len(track):
            track[cursor[0]:cursor[0] + block] = path.take(cursor[0], cursor[0] + block)
            cursor[0] += block
    received = soxr.resample(heard.astype(np.float64) / 32768, HEARD_RATE, rate)
    return received, track, path


@pytest.mark.parametrize(("erl", "delay", "rate"), [(20.0, 300, 16000), (6.0, 500, 16000), (35.0, 250, 48000)])
def test_a_direct_echo_has_its_delay_and_erl(erl: float, delay: int, rate: int) -> None:
    received, track, path = run_echo(EchoSpec(erl, delay), rate, None)
    lag = measured_delay_samples(received, track, rate)  # one second of lags searched
    assert abs(lag - delay * rate // 1000) <= rate // 1000  # within 1 ms
    got = measured_erl_db(received, track[lag:lag + len(received)])
    assert got is not None and got == pytest.approx(erl, abs=0.3)
    rec = path.record()
    assert rec["late_ms"] == 0 and rec["realised_delay_ms"] == delay and rec["path"] == "direct"


def synthetic_room(rate: int, rt60_ms: int = 400) -> np.ndarray:
    """Direct path at sample 0, then an exponentially decaying diffuse tail (60 dB down at RT60)."""
    n = rate * rt60_ms // 1000
    rng = np.random.default_rng(1)
    h = rng.standard_normal(n) * 10 ** (-3 * np.arange(n) / n) * 0.3
    h[0] = 1.0
    return h


def test_a_room_echo_keeps_its_level_and_its_direct_path_delay() -> None:
    rate = 16000
    received, track, path = run_echo(EchoSpec(15.0, 400), rate, synthetic_room(rate))
    lag = measured_delay_samples(received, track, rate)
    assert abs(lag - 400 * rate // 1000) <= 16
    # the room's response has unit energy: the echo's power over the whole burst is the received less 15 dB
    got = measured_erl_db(received, track[lag:lag + len(received)])
    assert got is not None and got == pytest.approx(15.0, abs=1.0)
    assert path.record()["path"] == "room" and path.record()["filter_samples"] == 6400


def test_a_delay_the_writer_has_passed_is_realised_later_and_said() -> None:
    # the first frame arrives at 1 s; the writer (simulated, 20 ms blocks, 200 ms ahead of playout) has written up
    # to 1200 ms: a 100 ms echo (below the parser's range, built directly) cannot land at 1100 ms, so it starts at
    # the writer's cursor, 100 ms later, and the record says so; the echo stays one contiguous signal
    received, track, path = run_echo(EchoSpec(20.0, 100), 16000, None, recv_start_ns=1_000_000_000)
    rec = path.record()
    assert rec["realised_delay_ms"] == 200 and rec["late_ms"] == 0
    lag = measured_delay_samples(received, track[16000:], 16000)  # received sample 0 arrived at 1 s
    assert abs(lag - 200 * 16) <= 16
    got = measured_erl_db(received, track[16000 + lag:16000 + lag + len(received)])
    assert got == pytest.approx(20.0, abs=0.3)


def test_one_frame_through_a_long_room_is_cheap() -> None:
    path = EchoPath(EchoSpec(20.0, 300), 48000, synthetic_room(48000, 1000))
    path.bind(lambda t: t * 48 // 1_000_000, lambda: 0)
    frame = (np.random.default_rng(0).standard_normal(160) * 1000).astype(np.int16)
    path.heard(frame, 0)
    t0 = time.perf_counter()
    for _ in range(50):
        path.heard(frame, 0)
    per_frame_ms = (time.perf_counter() - t0) * 1000 / 50
    assert per_frame_ms < 5.0  # 10 ms of audio each; measured ~1 ms on the 2-core machine


@pytest.mark.parametrize(("profile", "why"), [
    ("office+echo:70", "echo ERL is 0..60 dB, got 70"),
    ("echo:20,100", "echo delay is 250..2000 ms, got 100"),
    ("echo:-3", "echo ERL is 0..60 dB, got -3"),
    ("cafe+echo:twenty", "is not an echo part; write echo, echo:ERL or echo:ERL,DELAY"),
])
def test_an_echo_out_of_range_is_one_line(profile: str, why: str) -> None:
    with pytest.raises(AcousticsError) as e:
        parse_acoustics(profile)
    assert why in str(e.value) and "\n" not in str(e.value) and str(e.value).startswith(f"--acoustics {profile!r}")


def test_echo_parts_parse_and_are_recorded() -> None:
    p = parse_acoustics("office+echo:12,450")
    assert p.echo == EchoSpec(12.0, 450) and p.room == "office" and p.active
    assert p.spec()["echo"] == {"erl_db": 12.0, "delay_ms": 450}
    assert parse_acoustics("echo").echo == EchoSpec(20.0, 300)
    assert parse_acoustics("cafe").echo is None and "echo" not in parse_acoustics("cafe").spec()


def test_an_echo_alone_leaves_the_clips_clean_and_gives_the_writer_its_path() -> None:
    clip = (np.random.default_rng(2).standard_normal(1600) * 2000).astype(np.int16)
    done = render(parse_acoustics("echo:20,300"), 16000, {"turn 1": clip}, "s1")
    assert np.array_equal(done.clips["turn 1"], clip) and done.bed is None
    live = LiveAcoustics.of(done, {"turn 1": clip})
    assert live.echo is not None and live.echo.record()["path"] == "direct"
    assert done.record["echo"] == {"erl_db": 20.0, "delay_ms": 300}
    silent = np.zeros(320, dtype=np.int16)
    assert np.array_equal(live.add_bed(silent, 0), silent)  # nothing heard yet: nothing echoed
