"""The noises and the telephone channel of the acoustic conditions (floorbench.speech.acoustics).

Every noise is made from a numpy generator the caller seeds, at the track's
rate, and returned at unit RMS (the caller sets the level from the SNR):

- ``white``, ``pink``, ``brown`` — Gaussian noise shaped to 1/f⁰, 1/f, 1/f²
  in the frequency domain;
- ``hum`` — mains hum at 50 Hz with its odd harmonics, a slow random wobble;
- ``road`` — a car's cabin: brown noise low-passed at 500 Hz plus an engine
  tone and its harmonics;
- ``events`` — non-speech events at drawn times: doors (a low thump with a
  click) and clatter (a few short, bright, decaying bursts), one every 2–6 s;
- ``babble`` — several overlapping talkers from the local flite voices the
  package already speaks with: fixed sentences, synthesised once per process
  and rate (flite is deterministic), each talker's order, gaps and gain drawn
  from the generator.

`phone_channel` is a telephone line: down to 8 kHz, a 300–3400 Hz band-pass
(zero phase: no delay is added to the turn), G.711 µ-law (8 bit) encoded and
decoded, back to the track's rate.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from floorbench.errors import FloorbenchError

NOISE_KINDS = ("babble", "white", "pink", "brown", "hum", "road", "events")
NOISE_WEIGHT_DB: dict[str, float] = {
    "babble": 0.0, "white": 0.0, "pink": 0.0, "brown": 0.0, "road": 0.0, "hum": -12.0, "events": -6.0,
}
"""the level of each noise in a mixture of several, before the mixture is set to the SNR"""
BABBLE_VOICES = ("flite:rms", "flite:awb", "flite:slt", "flite:kal16")
BABBLE_TALKERS = 6
BABBLE_SENTENCES = (  # Harvard sentences (IEEE 1969), public domain
    "The birch canoe slid on the smooth planks.",
    "Glue the sheet to the dark blue background.",
    "It's easy to tell the depth of a well.",
    "These days a chicken leg is a rare dish.",
    "Rice is often served in round bowls.",
    "The juice of lemons makes fine punch.",
)
PHONE_RATE = 8000
PHONE_BAND_HZ = (300.0, 3400.0)
MU = 255.0


class NoiseError(FloorbenchError, RuntimeError):
    """A noise that cannot be made here (babble without the flite voices)."""


def unit_rms(x: np.ndarray) -> np.ndarray:
    p = float(np.mean(x.astype(np.float64) ** 2))
    return x / np.sqrt(p) if p > 0 else x


def coloured(n: int, exponent: float, rng: np.random.Generator) -> np.ndarray:
    """Gaussian noise with a power spectrum ∝ 1/f^exponent (0 white, 1 pink, 2 brown), unit RMS."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n)
    f[0] = f[1] if n > 1 else 1.0
    spec *= f ** (-exponent / 2)
    spec[0] = 0.0
    return unit_rms(np.fft.irfft(spec, n))


def hum(n: int, rate: int, rng: np.random.Generator, mains_hz: float = 50.0) -> np.ndarray:
    t = np.arange(n) / rate
    wobble = 1 + 0.1 * np.sin(2 * np.pi * rng.uniform(0.05, 0.2) * t + rng.uniform(0, 2 * np.pi))
    x = sum(np.sin(2 * np.pi * mains_hz * k * t + rng.uniform(0, 2 * np.pi)) / k for k in (1, 3, 5, 7))
    return unit_rms(np.asarray(x) * wobble)


def road(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    rumble = sosfilt(butter(2, 500, fs=rate, output="sos"), coloured(n, 2.0, rng))
    t = np.arange(n) / rate
    rpm_hz = rng.uniform(25, 40)
    engine = sum(np.sin(2 * np.pi * rpm_hz * k * t + rng.uniform(0, 2 * np.pi)) / k for k in (1, 2, 3))
    return unit_rms(unit_rms(np.asarray(rumble)) + 0.3 * unit_rms(np.asarray(engine)))


def _door(rate: int, rng: np.random.Generator) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    n = int(rate * rng.uniform(0.25, 0.45))
    t = np.arange(n) / rate
    thump = np.asarray(sosfilt(butter(2, 200, fs=rate, output="sos"), rng.standard_normal(n))) * np.exp(-t / 0.06)
    click_n = max(2, rate // 500)
    thump[:click_n] += rng.standard_normal(click_n) * 0.5 * np.max(np.abs(thump))
    return np.asarray(thump)


def _clatter(rate: int, rng: np.random.Generator) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    n = int(rate * rng.uniform(0.3, 0.7))
    out = np.zeros(n)
    bright = butter(2, min(2000, rate * 0.4), btype="highpass", fs=rate, output="sos")
    for _ in range(int(rng.integers(3, 8))):
        m = int(rate * rng.uniform(0.01, 0.05))
        at = int(rng.integers(0, max(1, n - m)))
        burst = np.asarray(sosfilt(bright, rng.standard_normal(m))) * np.exp(-np.arange(m) / (m / 4)) * rng.uniform(0.3, 1.0)
        out[at : at + m] += burst
    return out


def events(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    """Doors and clatter at drawn times (one every 2–6 s), silence between; unit RMS over all `n`."""
    out = np.zeros(n)
    at = int(rate * rng.uniform(0.5, 2.0))
    while at < n:
        ev = _door(rate, rng) if rng.random() < 0.4 else _clatter(rate, rng)
        ev = unit_rms(ev) * rng.uniform(0.5, 1.0)
        m = min(len(ev), n - at)
        out[at : at + m] += ev[:m]
        at += int(rate * rng.uniform(2.0, 6.0))
    return unit_rms(out)


@lru_cache(maxsize=8)
def _talker_clips(rate: int) -> tuple[tuple[np.ndarray, ...], ...]:
    """Per babble voice, its sentences as float audio (synthesised once per process and rate)."""
    from floorbench.speech import tts

    try:
        return tuple(
            tuple(tts.synthesize(s, v, rate).astype(np.float64) / 32768 for s in BABBLE_SENTENCES)
            for v in BABBLE_VOICES
        )
    except tts.TTSError as e:
        raise NoiseError(f"babble noise is made from the flite voices: {e}") from None


def babble(n: int, rate: int, rng: np.random.Generator, talkers: int = BABBLE_TALKERS) -> np.ndarray:
    """`talkers` overlapping voices, each its voice's sentences in a drawn order with drawn gaps and gain."""
    voices = _talker_clips(rate)
    out = np.zeros(n)
    for k in range(talkers):
        clips = voices[k % len(voices)]
        parts: list[np.ndarray] = []
        total = 0
        while total < n + rate:
            for i in rng.permutation(len(clips)):
                gap = np.zeros(int(rate * rng.uniform(0.1, 0.5)))
                parts += [clips[int(i)], gap]
                total += len(clips[int(i)]) + len(gap)
        stream = np.concatenate(parts)
        start = int(rng.integers(0, len(stream) - n))
        out += unit_rms(stream[start : start + n]) * 10 ** (rng.uniform(-3, 3) / 20)
    return unit_rms(out)


def make_noise(kind: str, n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    """One noise of `NOISE_KINDS`, `n` samples at `rate`, unit RMS."""
    if kind == "white":
        return coloured(n, 0.0, rng)
    if kind == "pink":
        return coloured(n, 1.0, rng)
    if kind == "brown":
        return coloured(n, 2.0, rng)
    if kind == "hum":
        return hum(n, rate, rng)
    if kind == "road":
        return road(n, rate, rng)
    if kind == "events":
        return events(n, rate, rng)
    if kind == "babble":
        return babble(n, rate, rng)
    raise NoiseError(f"unknown noise {kind!r}; use one of {', '.join(NOISE_KINDS)}")


def mu_law(x: np.ndarray) -> np.ndarray:
    """G.711-style µ-law: compand, quantise to 8 bits (255 levels, silence stays 0), expand (x in [-1, 1])."""
    y = np.sign(x) * np.log1p(MU * np.abs(np.clip(x, -1, 1))) / np.log1p(MU)
    q = np.round(y * 127) / 127
    return np.sign(q) * np.expm1(np.abs(q) * np.log1p(MU)) / MU


def phone_channel(x: np.ndarray, rate: int) -> np.ndarray:
    """`x` (float, full scale 1) through a telephone line and back at `rate`, the same length."""
    import soxr
    from scipy.signal import butter, sosfiltfilt

    narrow = soxr.resample(x.astype(np.float64), rate, PHONE_RATE) if rate != PHONE_RATE else x.astype(np.float64)
    if len(narrow) > 30:
        narrow = sosfiltfilt(butter(4, PHONE_BAND_HZ, btype="bandpass", fs=PHONE_RATE, output="sos"), narrow)
    coded = mu_law(narrow)
    back = soxr.resample(coded, PHONE_RATE, rate) if rate != PHONE_RATE else coded
    out = np.zeros(len(x))
    m = min(len(x), len(back))
    out[:m] = back[:m]
    return out
