"""Acoustic conditions on the humans' audio: a room, background noise at an SNR, a telephone line; seeded.

`floorbench run --acoustics PROFILE` (and `floorbench test`) degrades what the
simulated humans say before the playback sends it; the suite's rendered audio
stays clean. Per scenario, in the runner (off the event loop, before the room
is set up):

1. every clip (preamble, turns) goes through the room's impulse response
   (floorbench.speech.rooms), cut to its clean length and brought back to its
   clean active level — the direct path on sample 0, so a turn starts and ends
   where its clean self does;
2. a noise *bed* is made (`LOOP_S` seconds, floorbench.speech.noises), set so
   that the speech's active level over the noise's mean power is the
   profile's SNR, and looped under the whole track by the playback's writer —
   between turns as well as under them, as background noise is;
3. with ``phone``, speech and bed each go through the telephone channel.

The playback writes what it sent (``humans.sent.wav``, degraded) and the same
track with the clean clips at the same samples (``humans.clean.wav``). Turn
times come from the clips' sample positions, which are the clean ones', so
scoring and timing stay on the clean reference.

A profile is a name (`PROFILES`) or parts joined by ``+``, as ``--impair``
takes them: ``room_office``, ``babble``, ``pink``, ``phone``, and numbers in
the part's name — ``snr5`` (dB), ``rt60300`` (ms), ``dist100`` (cm):
``cafe+phone``, ``cafe+snr5``, ``room_living+babble+snr0``. Later parts win.
Every draw comes from generators seeded by (seed, scenario id, component), so
a profile gives the same bytes on every run.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from floorbench.errors import FloorbenchError
from floorbench.speech import noises, rooms
from floorbench.speech.echo import EchoError, EchoPath, EchoSpec, parse_echo

PROFILES: dict[str, str] = {
    "none": "",
    "office": "room_office+pink+hum+events+snr20",
    "car": "room_car+road+snr5",
    "cafe": "room_cafe+babble+events+snr10",
    "phone": "phone",
    "reverb": "room_office",
}
"""named profiles; any ``+`` combination of them and of the parts works too"""
ROOM_PARTS = tuple(f"room_{name}" for name in rooms.ROOMS)
_NUMBER = re.compile(r"^(snr|rt60|dist)(-?\d+(?:\.\d+)?)$")
SNR_RANGE_DB = (-10.0, 60.0)
RT60_RANGE_MS = (50, 3000)
DIST_RANGE_CM = (10, 1000)
DEFAULT_SNR_DB = 15.0
"""a noise named without an ``snrN`` part"""
LOOP_S = 30
"""the noise bed's length; the writer loops it"""
FRAME_MS = 10
ACTIVE_DB = 40.0
"""a 10 ms frame is active speech when within this much of the clip's loudest frame"""
QUIET_GUARD_MS = 200
"""`estimate_snr_db` takes noise only this long after the clean track last sounded"""
METHOD = "rendered per scenario before playback; the noise bed looped under the whole humans' track"
PARTS_HELP = (
    f"a name ({', '.join(PROFILES)}) or parts joined by '+': {', '.join(ROOM_PARTS)}, "
    f"{', '.join(noises.NOISE_KINDS)}, phone, snrDB, rt60MS, distCM, echo[:ERL,DELAY]"
)


class AcousticsError(FloorbenchError, ValueError):
    """A profile name or setting that cannot be used."""


@dataclass(frozen=True)
class AcousticProfile:
    """What is done to the humans' audio."""

    name: str
    room: str | None = None
    rt60_ms: int | None = None
    """the room's RT60, if not the named room's own"""
    distance_cm: int | None = None
    noises: tuple[str, ...] = ()
    snr_db: float | None = None
    phone: bool = False
    seed: int = 0
    echo: EchoSpec | None = None
    """the agent's audio fed back into the caller's track (floorbench.speech.echo); None: no echo"""

    @property
    def active(self) -> bool:
        return self.room is not None or bool(self.noises) or self.phone or self.echo is not None

    def room_spec(self) -> rooms.Room | None:
        if self.room is None:
            return None
        return rooms.ROOMS[self.room].with_(self.rt60_ms, self.distance_cm)

    def spec(self) -> dict[str, Any]:
        """What makes two conditions the same (resume compares it)."""
        room = self.room_spec()
        return {
            "profile": self.name,
            "room": self.room,
            "rt60_ms": room.rt60_ms if room else None,
            "distance_cm": room.distance_cm if room else None,
            "noises": list(self.noises),
            "snr_db": self.snr_db,
            "phone": self.phone,
            "seed": self.seed,
            **({"echo": {"erl_db": self.echo.erl_db, "delay_ms": self.echo.delay_ms}} if self.echo else {}),
        }


def parse_acoustics(text: str, seed: int = 0) -> AcousticProfile:
    """A profile from its name or ``+``-joined parts; one-line AcousticsError naming the option otherwise."""
    room: str | None = None
    values: dict[str, float] = {}
    kinds: list[str] = []
    phone = False
    echo: EchoSpec | None = None
    for raw in filter(None, (p.strip() for p in text.split("+"))):
        for part in filter(None, PROFILES.get(raw, raw).split("+")):
            m = _NUMBER.match(part)
            try:
                heard = parse_echo(part, f"--acoustics {text!r}")
            except EchoError as e:
                raise AcousticsError(str(e)) from None
            if heard is not None:
                echo = heard
            elif part in ROOM_PARTS:
                room = part.removeprefix("room_")
            elif part in noises.NOISE_KINDS:
                kinds += [part] if part not in kinds else []
            elif part == "phone":
                phone = True
            elif m:
                values[m.group(1)] = float(m.group(2))
            else:
                raise AcousticsError(f"--acoustics {text!r}: unknown part {part!r}; use {PARTS_HELP}")
    _check(text, values, room, kinds)
    snr = values.get("snr", DEFAULT_SNR_DB) if kinds else None
    rt60 = int(values["rt60"]) if "rt60" in values else None
    dist = int(values["dist"]) if "dist" in values else None
    return AcousticProfile(text, room, rt60, dist, tuple(kinds), snr, phone, seed, echo)


def _check(text: str, values: dict[str, float], room: str | None, kinds: list[str]) -> None:
    where = f"--acoustics {text!r}"
    if "snr" in values:
        lo, hi = SNR_RANGE_DB
        if not lo <= values["snr"] <= hi:
            raise AcousticsError(f"{where}: snr is {lo:g}..{hi:g} dB, got {values['snr']:g}")
        if not kinds:
            raise AcousticsError(f"{where}: snr{values['snr']:g} needs a noise ({', '.join(noises.NOISE_KINDS)})")
    for key, (lo_i, hi_i), unit in (("rt60", RT60_RANGE_MS, "ms"), ("dist", DIST_RANGE_CM, "cm")):
        if key not in values:
            continue
        if room is None:
            raise AcousticsError(f"{where}: {key} needs a room ({', '.join(ROOM_PARTS)})")
        if not lo_i <= values[key] <= hi_i:
            raise AcousticsError(f"{where}: {key} is {lo_i}..{hi_i} {unit}, got {values[key]:g}")


def generator(profile: AcousticProfile, stream: str, component: str) -> np.random.Generator:
    """The generator of one component (the room, a noise) of one scenario (`stream`): adding a part
    never changes another part's draws."""
    return np.random.default_rng([profile.seed, zlib.crc32(stream.encode()), zlib.crc32(component.encode())])


def active_mask(clean: np.ndarray, rate: int) -> np.ndarray:
    """Per sample of `clean`, whether its 10 ms frame is active speech (within `ACTIVE_DB` of the loudest)."""
    n = rate * FRAME_MS // 1000
    frames = len(clean) // n
    if frames == 0:
        return np.zeros(len(clean), dtype=bool)
    x = clean[: frames * n].astype(np.float64).reshape(frames, n)
    p = np.mean(x**2, axis=1)
    on = p >= p.max() * 10 ** (-ACTIVE_DB / 10) if p.max() > 0 else np.zeros(frames, dtype=bool)
    mask = np.zeros(len(clean), dtype=bool)
    mask[: frames * n] = np.repeat(on, n)
    return mask


def speech_power(speech: list[np.ndarray], clean: list[np.ndarray], rate: int) -> float:
    """Mean power of the speech over the clean clips' active frames (every clip together)."""
    total, count = 0.0, 0
    for s, c in zip(speech, clean, strict=True):
        m = active_mask(c, rate)
        total += float(np.sum(s.astype(np.float64)[m] ** 2))
        count += int(m.sum())
    return total / count if count else 0.0


def snr_db(speech: list[np.ndarray], clean: list[np.ndarray], noise: np.ndarray, rate: int) -> float | None:
    """The speech's active level over the noise's mean power, in dB (None without noise or speech)."""
    ps = speech_power(speech, clean, rate)
    pn = float(np.mean(noise.astype(np.float64) ** 2)) if len(noise) else 0.0
    if ps <= 0 or pn <= 0:
        return None
    return 10 * np.log10(ps / pn)


def estimate_snr_db(sent: np.ndarray, clean: np.ndarray, rate: int) -> float | None:
    """The SNR of a whole sent track, from it alone and the clean track beside it: the noise's power where
    the clean track has been silent for `QUIET_GUARD_MS`, the speech's where it is active (less that noise
    power). Non-stationary noise (events, babble) makes this a sample of the bed, not its mean."""
    n = min(len(sent), len(clean))
    sent, clean = sent[:n].astype(np.float64), clean[:n].astype(np.float64)
    speech = active_mask(clean, rate)
    f = rate * FRAME_MS // 1000
    frames = n // f
    sounding = np.any(clean[: frames * f].reshape(frames, f) != 0, axis=1).astype(np.int64)
    # a clip's silent pad after its speech still carries the room's tail: noise only well after a clip
    guard = QUIET_GUARD_MS // FRAME_MS
    silent_frames = np.convolve(sounding, np.ones(guard + 1, dtype=np.int64))[:frames] == 0
    silent = np.zeros(n, dtype=bool)
    silent[: frames * f] = np.repeat(silent_frames, f)
    if not speech.any() or not silent.any():
        return None
    pn = float(np.mean(sent[silent] ** 2))
    ps = float(np.mean(sent[speech] ** 2)) - pn
    if pn <= 0 or ps <= 0:
        return None
    return round(10 * np.log10(ps / pn), 2)


def to_int16(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)


@dataclass
class Rendered:
    """A scenario's degraded clips, its noise bed and what meta.json records of them."""

    clips: dict[str, np.ndarray]
    """the degraded clips, as sent (int16), by the caller's keys"""
    bed: np.ndarray | None
    """the noise bed as sent (int16), looped under the track; None: no noise"""
    record: dict[str, Any] = field(default_factory=dict)
    speech_mic: dict[str, np.ndarray] = field(default_factory=dict)
    """the clips at the microphone, before the telephone channel (int16; what `record`'s snr_db is measured on)"""
    bed_mic: np.ndarray | None = None
    echo: EchoSpec | None = None
    """the echo path's settings (None: no echo)"""
    echo_rir: np.ndarray | None = None
    """the room's impulse response the echo goes through (None: a direct path)"""
    rate: int = 16000


def render(profile: AcousticProfile, rate: int, clean: dict[str, np.ndarray], stream: str) -> Rendered:
    """`clean` (int16 clips at `rate`) under `profile`, for the scenario `stream` (its id): pure and seeded."""
    keys = list(clean)
    fl = {k: clean[k].astype(np.float64) / 32768 for k in keys}
    record: dict[str, Any] = {**profile.spec(), "method": METHOD, "stream": stream}
    room = profile.room_spec()
    h: np.ndarray | None = None
    if room is not None:
        h = rooms.room_rir(room, rate, generator(profile, stream, "room"))
        record["rt60_measured_ms"] = rooms.measure_rt60_ms(h, rate)
        record["rir_samples"] = len(h)
        for k in keys:
            level = speech_power([fl[k]], [clean[k]], rate)
            y = rooms.reverberate(fl[k], h, rate=rate)
            got = speech_power([y], [clean[k]], rate)
            fl[k] = y * np.sqrt(level / got) if got > 0 else y
    speech_mic = {k: to_int16(fl[k]) for k in keys}
    bed_mic: np.ndarray | None = None
    bed_f: np.ndarray | None = None
    if profile.noises and profile.snr_db is not None:
        n = LOOP_S * rate
        mix = np.zeros(n)
        for kind in profile.noises:
            mix += noises.make_noise(kind, n, rate, generator(profile, stream, kind)) * 10 ** (
                noises.NOISE_WEIGHT_DB[kind] / 20
            )
        ps = speech_power([speech_mic[k] / 32768 for k in keys], [clean[k] for k in keys], rate)
        target = ps / 10 ** (profile.snr_db / 10)
        scaled = noises.unit_rms(mix) * np.sqrt(target)
        bed_f, bed_mic = scaled, to_int16(scaled)
        record["bed_clipped_samples"] = int(np.sum(np.abs(scaled) >= 1.0))
        record["snr_measured_db"] = _rounded(snr_db(
            [speech_mic[k] for k in keys], [clean[k] for k in keys], bed_mic, rate
        ))
        if "babble" in profile.noises:
            record["babble_voices"] = list(noises.BABBLE_VOICES)
    sent, bed = speech_mic, bed_mic
    if profile.phone:
        sent = {k: to_int16(noises.phone_channel(speech_mic[k] / 32768, rate)) for k in keys}
        if bed_f is not None:
            bed = to_int16(noises.phone_channel(bed_f, rate))
            record["snr_phone_db"] = _rounded(snr_db([sent[k] for k in keys], [clean[k] for k in keys], bed, rate))
    return Rendered(sent, bed, record, speech_mic, bed_mic, profile.echo, h if profile.echo else None, rate)


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(float(x), 2)


@dataclass
class LiveAcoustics:
    """What the playback's writer needs: the clean clip of each degraded one it is handed, the bed, the echo."""

    bed: np.ndarray | None
    clean_of: dict[int, np.ndarray]
    """id() of a degraded clip (kept alive by the schedule's audio dict) → its clean clip"""
    unmatched: int = 0
    """clips handed to the writer that are not one of the degraded clips (their clean copy is themselves)"""
    echo: EchoPath | None = None
    """the agent's audio fed back into the track (the playback feeds it what it hears)"""

    @classmethod
    def of(cls, rendered: Rendered, clean: dict[str, np.ndarray]) -> LiveAcoustics:
        echo = EchoPath(rendered.echo, rendered.rate, rendered.echo_rir) if rendered.echo is not None else None
        return cls(rendered.bed, {id(rendered.clips[k]): clean[k] for k in rendered.clips}, echo=echo)

    def clean(self, audio: np.ndarray) -> np.ndarray:
        found = self.clean_of.get(id(audio))
        if found is None:
            self.unmatched += 1
            return audio
        return found

    def add_bed(self, buf: np.ndarray, start: int) -> np.ndarray:
        """`buf` (int16, track samples from `start`) with the bed under it and the echo of the agent in it,
        saturated to int16."""
        out = buf.astype(np.int32)
        if self.bed is not None and len(self.bed):
            out += self.bed[(np.arange(start, start + len(buf)) % len(self.bed)).astype(np.int64)]
        if self.echo is not None:
            out += np.round(self.echo.take(start, start + len(buf)) * 32768).astype(np.int32)
        return np.clip(out, -32768, 32767).astype(np.int16)
