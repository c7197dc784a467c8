"""Shoebox rooms for the acoustic conditions: a room impulse response from pyroomacoustics, and its RT60.

A room is a box (metres), a target reverberation time and a talker–microphone
distance. The walls' absorption comes from Sabine's formula for that RT60
(`pyroomacoustics.inverse_sabine`), the response from the image source method.
Where in the box talker and microphone stand is drawn from the caller's
generator (within 0.25 m of a fixed spot), so a seed gives the same response.

The response is shifted so that its direct path lands on sample 0: a
reverberant turn starts where the clean one starts, and the turn times of the
clean reference stay the times of what was sent.

pyroomacoustics is imported lazily; without it the error names the extra to
install (``local``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from floorbench.errors import FloorbenchError


class RoomError(FloorbenchError, ValueError):
    """A room that cannot be built (pyroomacoustics missing, an RT60 the box cannot have)."""


@dataclass(frozen=True)
class Room:
    """A shoebox: size in metres, reverberation time, talker–microphone distance."""

    dims_m: tuple[float, float, float]
    rt60_ms: int
    distance_cm: int
    talker_height_m: float = 1.2

    def with_(self, rt60_ms: int | None = None, distance_cm: int | None = None) -> Room:
        return Room(self.dims_m, rt60_ms or self.rt60_ms, distance_cm or self.distance_cm, self.talker_height_m)


ROOMS: dict[str, Room] = {
    "office": Room((5.0, 4.0, 3.0), 500, 150),
    "car": Room((2.2, 1.5, 1.2), 80, 60, 0.8),
    "cafe": Room((10.0, 8.0, 3.5), 800, 200),
    "living": Room((6.0, 5.0, 2.6), 400, 250),
}
"""named rooms (``room_office`` … in an `--acoustics` profile)"""
MAX_ORDER = 80
"""image-source reflections are cut at this order (the largest Sabine asks of a named room is 85)"""
JITTER_M = 0.25


def _pra():  # the module
    try:
        import pyroomacoustics as pra
    except ImportError:
        raise RoomError(
            "room acoustics need pyroomacoustics: pip install 'floorbench[local]' (or bash scripts/setup.sh)"
        ) from None
    return pra


def sabine_rt60_ms(dims_m: tuple[float, float, float], absorption: float) -> int:
    """Sabine's RT60 of a box whose walls all absorb `absorption` (0..1 of the energy)."""
    x, y, z = dims_m
    return round(1000 * 0.161 * x * y * z / (2 * (x * y + y * z + x * z) * absorption))


def room_rir(room: Room, rate: int, rng: np.random.Generator, absorption: float | None = None) -> np.ndarray:
    """The room's impulse response at `rate` (float64), direct path at sample 0, peak 1.

    The walls absorb what Sabine's formula gives for the room's RT60, or `absorption` when given."""
    pra = _pra()
    dims = np.array(room.dims_m, dtype=float)
    rt60_s = room.rt60_ms / 1000 if absorption is None else sabine_rt60_ms(room.dims_m, absorption) / 1000
    try:
        sabine, order = pra.inverse_sabine(rt60_s, list(dims))
    except ValueError:
        raise RoomError(
            f"a {dims[0]:g}×{dims[1]:g}×{dims[2]:g} m room cannot have an RT60 of {room.rt60_ms} ms; "
            "choose a longer rt60"
        ) from None
    absorption = float(sabine) if absorption is None else absorption
    box = pra.ShoeBox(
        list(dims), fs=rate, materials=pra.Material(absorption), max_order=min(int(order), MAX_ORDER),
        air_absorption=False,
    )
    d = room.distance_cm / 100
    margin = 0.2
    talker = np.array([dims[0] * 0.3, dims[1] * 0.5, room.talker_height_m])
    talker[:2] += rng.uniform(-JITTER_M, JITTER_M, 2)
    direction = rng.uniform(-0.5, 0.5)  # radians off the room's long axis
    mic = talker + d * np.array([np.cos(direction), np.sin(direction), 0.0])
    talker = np.clip(talker, margin, dims - margin)
    mic = np.clip(mic, margin, dims - margin)
    if np.linalg.norm(mic - talker) < 0.05:
        raise RoomError(f"talker and microphone {room.distance_cm} cm apart do not fit a {dims.tolist()} m room")
    box.add_source(talker.tolist())
    box.add_microphone(mic.tolist())
    box.compute_rir()
    rir = box.rir
    if rir is None:
        raise RoomError("pyroomacoustics computed no impulse response")
    h = np.asarray(rir[0][0], dtype=np.float64)
    peak = int(np.argmax(np.abs(h)))
    h = h[peak:]
    return h / np.abs(h[0])


def measure_rt60_ms(h: np.ndarray, rate: int) -> int:
    """RT60 of an impulse response by Schroeder's backward integration (T30 doubled, as ISO 3382 reads it)."""
    energy = np.cumsum((h.astype(np.float64) ** 2)[::-1])[::-1]
    if energy[0] <= 0:
        return 0
    edc = 10 * np.log10(np.maximum(energy / energy[0], 1e-30))
    t = np.arange(len(h)) / rate
    sel = (edc <= -5) & (edc >= -35)
    if sel.sum() < 2:
        return 0
    slope, _ = np.polyfit(t[sel], edc[sel], 1)
    return round(float(-60 / slope * 1000)) if slope < 0 else 0


def reverberate(x: np.ndarray, h: np.ndarray, fade_ms: int = 10, rate: int = 16000) -> np.ndarray:
    """`x` through `h`, cut to the length of `x` (the turn keeps its clean length) with a short fade at the cut."""
    from scipy.signal import fftconvolve

    y = fftconvolve(x.astype(np.float64), h)[: len(x)]
    n = min(len(y), rate * fade_ms // 1000)
    if n > 1:
        y[-n:] *= 0.5 * (1 + np.cos(np.linspace(0, np.pi, n)))
    return y
