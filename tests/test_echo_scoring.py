"""Self-interruptions (floorbench.scoring.self_interruptions) on synthetic agent tracks.

A "voice" is modulated noise at about -20 dBFS; a natural end decays over 80 ms (as a TTS sentence
does), a cut one stops within a sample (as a cleared output queue does). The live case — the
cascade under `echo:6,300` cutting its own answer — is quoted in docs/acoustics.md.
"""

from __future__ import annotations

import numpy as np

from floorbench.scoring.self_interruptions import cut_at, frame_levels_db, self_interruptions, summary

RATE = 16000


def voice(ms: int, ending: str, seed: int = 0) -> np.ndarray:
    n = RATE * ms // 1000
    t = np.arange(n) / RATE
    x = np.random.default_rng(seed).standard_normal(n) * 0.1 * (0.6 + 0.4 * np.sin(2 * np.pi * 4 * t))
    if ending == "decays":
        tail = RATE * 80 // 1000
        x[-tail:] *= np.geomspace(1.0, 1e-3, tail)
    return x


def track(parts: list[tuple[int, np.ndarray]], ms: int = 12000) -> np.ndarray:
    out = np.zeros(RATE * ms // 1000)
    for at, x in parts:
        s = RATE * at // 1000
        out[s:s + len(x)] += x
    return out


def test_a_cut_voice_is_abrupt_and_a_decaying_one_is_not() -> None:
    levels = frame_levels_db(track([(1000, voice(1500, "cut")), (4000, voice(1500, "decays"))]), RATE)
    cut = cut_at(levels, (1000, 2500))
    assert cut is not None and cut[0] == 2500 and cut[1] >= 60
    assert cut_at(levels, (4000, 5500)) is None
    assert cut_at(levels, (1000, 1030)) is None  # too short to judge


def test_only_a_cut_with_no_caller_near_counts_and_a_restart_is_found() -> None:
    audio = track([(1000, voice(1500, "cut")), (3500, voice(1200, "decays", 1)),
                   (6000, voice(1500, "cut", 2)), (9000, voice(1000, "cut", 3))])
    runs = [(1000, 2500), (3500, 4700), (6000, 7500), (9000, 10000)]
    caller = [(5000, 7200)]  # the caller spoke over the third run: a barge-in, not an echo
    found = self_interruptions(audio, RATE, runs, caller)
    assert [(f.start_ms, f.stop_ms, f.restarted_ms) for f in found] == [(1000, 2500, 3500), (9000, 10000, None)]
    s = summary(found, echo=True)
    assert (s["self_interruptions"], s["restarts"]) == (2, 1) and s["at"][0]["drop_db"] >= 20


def test_a_caller_between_the_cut_and_the_next_run_is_no_restart() -> None:
    audio = track([(1000, voice(1500, "cut")), (4000, voice(1000, "decays"))])
    found = self_interruptions(audio, RATE, [(1000, 2500), (4000, 5000)], [(2700, 3600)])
    assert len(found) == 1 and found[0].restarted_ms is None


def test_int16_tracks_read_the_same() -> None:
    audio = track([(500, voice(1000, "cut"))], 3000)
    as_int = np.round(audio * 32767).astype(np.int16)
    assert [f.stop_ms for f in self_interruptions(as_int, RATE, [(500, 1500)], [])] == [1500]


def test_without_echo_a_cut_is_a_cut_off_not_a_self_interruption() -> None:
    audio = track([(1000, voice(1500, "cut"))], 4000)
    found = self_interruptions(audio, RATE, [(1000, 2500)], [])
    assert summary(found, echo=False) | {"at": []} == {"self_interruptions": 0, "restarts": 0, "cut_offs": 1,
                                                        "at": []}
    assert summary(found, echo=True)["self_interruptions"] == 1
