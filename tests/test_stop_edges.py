"""Stops and starts timed to the sample: the energy edge (`floorbench.audio.edges`) on generated audio whose
true edges are known, and a yield and a backchannel judged from a trial folder against them.

- the agent's speech: syllables of a harmonic voice at a random level, the last one fading out to a known
  last sample, then a reverberant decay under the speech's 40 dB range and a noise floor at a random
  level (digital silence up to −55 dBFS); the coarse boundary is a VAD's, on the 32 ms grid, up to four
  windows late or one early (measured: 30–116 ms late), and with the real Silero on real voices;
- a caller's clip: a silent pad of random length, a weak first consonant 15–35 dB under the body, the
  body, the voice's trailing pad — at 16 and 48 kHz;
- every generated case must come within 10 ms of the truth.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from floorbench.audio.edges import clip_speech, loudest_db, speech_edge
from floorbench.audio.vad import WINDOW

TOLERANCE_MS = 10
RATE = 16000


def _db(level: float) -> float:
    return float(10 ** (level / 20))


def voice(n: int, rate: int, f0: float, rng: np.random.Generator) -> np.ndarray:
    """A harmonic voice at RMS 1 (a few harmonics falling off as 1/k, random phases)."""
    t = np.arange(n) / rate
    x = sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi)) / k for k in range(1, 7))
    x = np.asarray(x, dtype=np.float64)
    return x / max(1e-9, float(np.sqrt((x**2).mean())))


def syllables(rate: int, level_db: float, rng: np.random.Generator, fade_ms: float) -> tuple[np.ndarray, float]:
    """2–5 syllables at `level_db` RMS (each 0–12 dB under it), gaps under the bridge; the last sample is
    the true last speech sample (its syllable fades out over `fade_ms`). Also the last syllable's level."""
    parts: list[np.ndarray] = []
    last = level_db
    count = int(rng.integers(2, 6))
    for i in range(count):
        n = int(rng.uniform(0.1, 0.3) * rate)
        env = np.ones(n)
        att = int(0.01 * rate)
        env[:att] = np.sin(np.linspace(0, np.pi / 2, att)) ** 2
        rel = max(2, int((fade_ms if i == count - 1 else rng.uniform(10, 40)) * rate / 1000))
        env[-rel:] = np.cos(np.linspace(0, np.pi / 2, rel)) ** 2
        last = level_db - (0 if i == 0 else rng.uniform(0, 12))
        parts.append(voice(n, rate, rng.uniform(90, 260), rng) * env * _db(last))
        if i < count - 1:
            parts.append(np.zeros(int(rng.uniform(0.02, 0.08) * rate)))
    return np.concatenate(parts), last


def floor_noise(n: int, floor_db: float | None, rng: np.random.Generator) -> np.ndarray:
    return np.zeros(n) if floor_db is None else rng.normal(0, _db(floor_db), n)


def vad_like(truth: int, late_windows: int) -> int:
    """Where a 32 ms VAD would put the boundary: the truth's window edge, some windows late (−1: early)."""
    return (-(-truth // WINDOW) + late_windows) * WINDOW


floors = st.one_of(st.none(), st.floats(-96, -55))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), level=st.floats(-32, -6), floor=floors, fade_ms=st.floats(2, 15),
       decay=st.booleans(), late=st.integers(-1, 4))
def test_the_agents_stop_is_found_within_10_ms_of_its_last_speech_sample(
        seed: int, level: float, floor: float | None, fade_ms: float, decay: bool, late: int) -> None:
    rng = np.random.default_rng(seed)
    if floor is not None:
        floor = min(floor, level - 35)  # the speech stands out of its floor
    lead = int(0.3 * RATE)
    speech, last = syllables(RATE, level, rng, fade_ms)
    truth = lead + len(speech)
    x = np.concatenate([np.zeros(lead), speech, np.zeros(RATE)])
    if decay:  # a room's or a codec's decaying tail, under the last syllable's 40 dB range
        n = len(x) - truth
        tau = rng.uniform(0.005, 0.04) * RATE
        x[truth:] += rng.normal(0, 1, n) * _db(last - rng.uniform(45, 55)) * np.exp(-np.arange(n) / tau)
    x += floor_noise(len(x), floor, rng)
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)
    coarse = vad_like(truth, late)
    found = speech_edge(pcm, RATE, coarse, "offset")
    assert abs(found - truth) <= TOLERANCE_MS * RATE // 1000, (found - truth) * 1000 / RATE


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), level=st.floats(-26, -6), quiet_db=st.floats(8, 14),
       tail_db=st.floats(43, 50), tail_ms=st.floats(30, 80), late=st.integers(0, 4))
def test_a_quiet_last_word_does_not_turn_its_tail_into_speech(
        seed: int, level: float, quiet_db: float, tail_db: float, tail_ms: float, late: int) -> None:
    """A sentence ending in a word `quiet_db` under the voice, longer than 300 ms, then a tail `tail_db`
    under the voice (within 40 dB of the quiet word, not of the voice): the stop is where the word ends. Read
    against the last word's own level (the last 300 ms), the tail counted and the stop came 30-80 ms late, as
    against an outside agent's own log."""
    rng = np.random.default_rng(seed)
    lead = int(0.3 * RATE)
    body = voice(int(1.2 * RATE), RATE, rng.uniform(90, 260), rng) * _db(level)
    n = int(rng.uniform(0.35, 0.5) * RATE)
    env = np.ones(n)
    env[-RATE // 200 :] = np.linspace(1, 0, RATE // 200)  # a 5 ms release
    word = voice(n, RATE, rng.uniform(90, 260), rng) * _db(level - quiet_db) * env
    m = int(tail_ms * RATE / 1000)
    tail = rng.normal(0, 1, m) * _db(level - tail_db) * np.linspace(1, 0.5, m)
    x = np.concatenate([np.zeros(lead), body, np.zeros(int(0.05 * RATE)), word, tail, np.zeros(RATE)])
    truth = lead + len(body) + int(0.05 * RATE) + n
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)
    found = speech_edge(pcm, RATE, vad_like(truth + m, late), "offset")
    assert abs(found - truth) <= TOLERANCE_MS * RATE // 1000, (found - truth) * 1000 / RATE


def caller_clip(rate: int, pad_ms: float, weak_db: float, weak_ms: float, fricative: bool, noisy_pad: bool,
                rng: np.random.Generator) -> tuple[np.ndarray, int, int]:
    """A caller's line as a voice renders it: (clip int16, true first speech sample, one past the last)."""
    level = rng.uniform(-26, -14)
    pad = floor_noise(int(pad_ms * rate / 1000), rng.uniform(-96, -80) if noisy_pad else None, rng)
    n = int(weak_ms * rate / 1000)
    weak = (rng.normal(0, 1, n) if fricative else voice(n, rate, rng.uniform(90, 260), rng)) * _db(level - weak_db)
    att = max(2, int(0.002 * rate))
    weak[:att] *= np.linspace(0, 1, att)
    body = syllables(rate, level, rng, rng.uniform(2, 10))[0]
    tail = np.zeros(rate * 50 // 1000)
    x = np.concatenate([pad, weak, body, tail])
    return np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16), len(pad), len(pad) + n + len(body)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([16000, 48000]), pad_ms=st.floats(0, 300),
       weak_db=st.floats(15, 35), weak_ms=st.floats(10, 100), fricative=st.booleans(), noisy_pad=st.booleans())
def test_a_callers_first_and_last_speech_samples_are_found_past_its_pad_and_weak_onset(
        seed: int, rate: int, pad_ms: float, weak_db: float, weak_ms: float, fricative: bool, noisy_pad: bool) -> None:
    rng = np.random.default_rng(seed)
    clip, first, last = caller_clip(rate, pad_ms, weak_db, weak_ms, fricative, noisy_pad, rng)
    span = clip_speech(clip, rate)
    assert span is not None
    tol = TOLERANCE_MS * rate // 1000
    assert abs(span[0] - first) <= tol and abs(span[1] - last) <= tol, (span, first, last)


def test_silence_and_an_unchanging_signal_have_no_edge_to_move_to() -> None:
    assert clip_speech(np.zeros(RATE, dtype=np.int16), RATE) is None
    noise = np.random.default_rng(1).normal(0, 300, RATE).astype(np.int16)
    assert speech_edge(noise, RATE, 8000, "offset") == 8000  # no contrast: the coarse boundary stays
    assert speech_edge(np.zeros(RATE, dtype=np.int16), RATE, 4000, "onset") == 4000


# -- real voices, real Silero ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def voices() -> list[np.ndarray]:
    from floorbench.speech.tts import synthesize

    lines = [("I can help with that. Let me tell you more about it.", "flite:slt"),
             ("How does the delivery work?", "flite:rms"), ("Sorry, wait a moment.", "flite:kal16")]
    return [synthesize(text, v, RATE).astype(np.float64) / 32768 for text, v in lines]


def true_span(x: np.ndarray) -> tuple[int, int]:
    """First and one past the last sample within 40 dB of the loudest 10 ms frame (the voices' trim rule)."""
    thr = _db(loudest_db(x, RATE) - 40)
    hit = np.flatnonzero(np.abs(x) >= thr)
    return int(hit[0]), int(hit[-1]) + 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 2), gain_db=st.floats(-12, 0), floor=floors, seed=st.integers(0, 2**32 - 1))
def test_silero_segments_refined_to_the_energy_edge_match_real_voices(
        voices: list[np.ndarray], which: int, gain_db: float, floor: float | None, seed: int) -> None:
    from floorbench.audio.vad import VadRules, probabilities_to_segments, speech_probabilities

    rng = np.random.default_rng(seed)
    clean = voices[which] * _db(gain_db)
    first, last = true_span(clean)
    lead = RATE // 2
    if floor is not None:  # the floor clear of the voice's 40 dB range (a tail under the floor cannot be heard)
        floor = min(floor, loudest_db(clean, RATE) - 50)
    x = np.concatenate([np.zeros(lead), clean, np.zeros(RATE)]) + floor_noise(lead + len(clean) + RATE, floor, rng)
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)
    segs = probabilities_to_segments(speech_probabilities(pcm), VadRules(merge_gap_ms=300))
    start, end = segs[0][0] * RATE // 1000, segs[-1][1] * RATE // 1000
    tol = TOLERANCE_MS * RATE // 1000
    assert abs(speech_edge(pcm, RATE, end, "offset") - (lead + last)) <= tol
    assert abs(speech_edge(pcm, RATE, start, "onset") - (lead + first)) <= tol


# -- judged from a trial folder ----------------------------------------------------------------------

TESTS = """
tests:
  - name: edges
    steps:
      - say: hello
      - barge_in: Sorry, wait a moment.
        expect: {yields_within_ms: 800}
      - say: go on
      - backchannel: Uh-huh.
        expect: {keeps_talking: 300}
"""


def loud_cut(reply: np.ndarray, at: int, want: int) -> int:
    """The first sample from `want` on where the reply (placed at `at`) is in the middle of a loud word:
    a stop there has its last speech sample right before it."""
    x = reply.astype(np.float64) / 32768
    frame = RATE // 100
    thr = _db(loudest_db(x, RATE) - 20)
    k = want - at
    while np.sqrt((x[k - 2 * frame : k] ** 2).mean()) < thr or np.sqrt((x[k : k + frame] ** 2).mean()) < thr:
        k += frame // 2
    return at + k


@pytest.mark.slow  # flite, Silero and scoring twice: about 9 s on 2 cores
def test_a_yield_and_a_backchannel_are_timed_from_the_callers_speech_to_the_agents_last_sample(tmp_path: Path) -> None:
    """The agent's reply stops about 400 ms after the barge-in's first speech sample, and its second reply
    goes on about 700 ms past the backchannel's last: measured within 10 ms of both, where the clips' padded
    starts and VAD's windows read them 50–150 ms apart."""
    from floorbench.records import DialogueTurn
    from floorbench.speech.tts import synthesize
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.suites.agent.score import score_trials
    from floorbench.suites.agent.validate import load_test_file
    from tests.support.agent_trials import write_trial

    (tmp_path / "t.yaml").write_text(TESTS)
    (scen,) = write_test_suite(load_test_file(tmp_path / "t.yaml"), tmp_path / "suite", 1)
    barge, mhm = (synthesize(t, "flite:slt", RATE) for t in ("Sorry, wait a moment.", "Uh-huh."))
    reply = synthesize("I can help you with the delivery of your order to your home address on any weekday morning "
                       "or afternoon that suits you best", "flite:kal16", RATE)  # one sentence: no pause to stop in
    ms = RATE // 1000
    b_at, k_at = 3000 * ms, 9000 * ms  # where the clips start on both tracks (one clock here)
    b_first = true_span(barge.astype(np.float64))[0]
    k_last = true_span(mhm.astype(np.float64))[1]
    # the agent's last samples: hard stops (as a yielding agent cuts its audio) inside a word
    stop1 = loud_cut(reply, 2000 * ms, b_at + b_first + 400 * ms)
    stop2 = loud_cut(reply, 8000 * ms, k_at + k_last + 700 * ms)
    model = np.zeros(14 * RATE)
    model[2000 * ms : stop1] = reply[: stop1 - 2000 * ms] / 32768
    model[8000 * ms : stop2] = reply[: stop2 - 8000 * ms] / 32768
    model += np.random.default_rng(3).normal(0, _db(-92), len(model))  # an Opus-like floor
    sent = np.zeros(14 * RATE, dtype=np.int16)
    sent[b_at : b_at + len(barge)] = barge
    sent[k_at : k_at + len(mhm)] = mhm
    at = {1: (500 * ms, 1500 * ms), 2: (b_at, b_at + len(barge)), 3: (7000 * ms, 7500 * ms),
          4: (k_at, k_at + len(mhm))}
    clips = {st.clip: (st.n, at[st.n], f"caller_{st.kind}") for st in scen.steps if st.clip is not None}
    turns = [DialogueTurn(turn_id=c, speaker="U", label=label, start_ms=s // ms, end_ms=e // ms)
             for c, (_, (s, e), label) in clips.items()]
    timeline = [{"t_ms": 0, "kind": k, "source": "playback", "turn_id": c, "sample": s if k == "turn_start" else e,
                 "step": n} for c, (n, (s, e), _) in clips.items() for k in ("turn_start", "turn_end")]
    pcm = np.clip(np.round(model * 32767), -32768, 32767).astype(np.int16)
    folder = write_trial(tmp_path / "run", scen, pcm, turns, timeline)
    sf.write(str(folder / "humans.sent.wav"), sent, RATE)
    (trial,) = score_trials(tmp_path / "run", cache_dir=tmp_path / "cache")
    got = {a["check"]: a for a in trial["assertions"]}
    yielded = (stop1 - b_at - b_first) * 1000 / RATE
    went_on = (stop2 - k_at - k_last) * 1000 / RATE
    assert abs(got["yields_within_ms"]["value"] - yielded) <= TOLERANCE_MS, (got["yields_within_ms"], yielded)
    assert abs(got["keeps_talking"]["value"] - went_on) <= TOLERANCE_MS, (got["keeps_talking"], went_on)
    assert trial["status"] == "passed"
    # without the sent track the clips keep their padded starts: the same yield reads longer by the pad and more
    (folder / "humans.sent.wav").unlink()
    (again,) = score_trials(tmp_path / "run", cache_dir=tmp_path / "cache")
    padded = next(a for a in again["assertions"] if a["check"] == "yields_within_ms")
    assert padded["value"] - got["yields_within_ms"]["value"] >= b_first * 1000 // RATE - 1
    assert json.dumps(trial)  # the record stays plain JSON
