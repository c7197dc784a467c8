"""What the vision baseline sees in one frame, and which cues a short history of frames shows.

The detector behind ``cascade-vision`` (docs/suites/av.md, "Vision baseline").
Only OpenCV (``opencv-python-headless``, extra ``vision``) is needed: its wheel
ships the Haar face cascades, so nothing is downloaded at run time and no torch
is involved.

Per frame (`FrameReader.read` → `FrameLook`):

1. **Face** — OpenCV's bundled frontal-face Haar cascade on a grey copy at most
   320 px wide. The face is also *tracked*: when the cascade misses (a turned
   head, a hand over the cheek) the last face box is kept for up to
   ``track_frames`` frames, so a head shake does not lose the face.
2. **Skin** — the colour of the face's centre (Cr/Cb in YCrCb, the person's own
   skin tone, not a fixed range) marks skin pixels in the frame.
3. **Hand up** — a skin region apart from the face (and the neck joined to it),
   at least ``hand_min_area`` of the face's area, reaching above the chin: a
   hand raised beside the head or held up in front of the chest (hands resting
   low, like an open palm offering the floor, are not up). Whether it is a *raised hand* (wanting
   the floor) or a *hand held up to hold it* is not in the picture: the
   processor decides that from who is speaking (`floorbench.processors.vision_cue`).
4. **Head position** — the centre of the dark features of the face's upper
   half (eyes and brows: holes of the face's skin region; not the mouth, which
   opens with speech), in face widths; it moves when the head moves and when
   it turns.
5. **Gaze** — the pupils (dark pixels) inside the whites of the eyes (bright,
   unsaturated pixels in the face's upper half), as an offset from the whites'
   centre in eye widths; None when no eye white is seen.

Over the last ``window_ms`` of looks (`CueTracker.update` → `Cues`): a *head
shake* is a horizontal back-and-forth of the head position (at least
``shake_reversals`` turns, ``shake_min_span`` face widths, more sideways than up
and down), a *nod* the same vertically; *hand up* and *gaze away* must hold in
``persist`` / ``gaze_persist`` of the last three looks, so one odd frame decides nothing.

Limits: one person facing the camera, lit evenly; skin-coloured clothing or
background near the face reads as a hand; the Haar cascade finds faces turned
less than about 30°. Tuned and tested on the suite's drawn person and on
frames drawn by the tests; not validated on human video.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_WIDTH = 320
"""frames are scaled down to this width before looking (Haar and masks cost scale with pixels)"""


@dataclass(frozen=True)
class FrameLook:
    """What one frame shows (image x to the right, y down)."""

    face: tuple[int, int, int, int] | None
    """the face box (x, y, w, h) in the scaled frame; None: no face seen or tracked"""
    found: bool = False
    """the cascade found the face in this frame (False: tracked from an earlier one)"""
    hand_up: bool = False
    head: tuple[float, float] | None = None
    """centre of the face's dark features, in pixels of the scaled frame"""
    gaze: tuple[float, float] | None = None
    """pupils' offset from the eye whites' centre, in eye widths (0, 0: straight ahead)"""


@dataclass(frozen=True)
class Cues:
    """The cues a short history of looks shows (all False without a face)."""

    face: bool = False
    hand_up: bool = False
    head_shake: bool = False
    nod: bool = False
    gaze_away: bool = False

    def names(self) -> list[str]:
        return [n for n in ("hand_up", "head_shake", "nod", "gaze_away") if getattr(self, n)]


def _cv2() -> Any:
    try:
        import cv2
    except ModuleNotFoundError:
        from floorbench.processors.adapter_config import ModelError

        raise ModelError(
            "cascade-vision: OpenCV is not installed; pip install 'floorbench[vision]'"
        ) from None
    return cv2


def rgb_array(image: bytes, size: tuple[int, int], fmt: str | None) -> np.ndarray:
    """A pipecat image frame's bytes as an (h, w, 3) RGB array (RGB, RGBA or BGRA frames)."""
    w, h = size
    channels = len(image) // (w * h) if w * h else 0
    if channels not in (3, 4) or len(image) != w * h * channels:
        raise ValueError(f"image of {len(image)} bytes is not {w}x{h} RGB/RGBA ({fmt})")
    arr = np.frombuffer(image, dtype=np.uint8).reshape(h, w, channels)
    if fmt in ("BGRA", "BGR"):
        return np.ascontiguousarray(arr[:, :, 2::-1])
    if fmt == "ARGB":
        return np.ascontiguousarray(arr[:, :, 1:4])
    return np.ascontiguousarray(arr[:, :, :3])


@dataclass
class FrameReader:
    """Looks at frames one by one (`read`); keeps the last face for tracking."""

    track_frames: int = 8
    """a face the cascade misses is kept this many frames (a turned head, a hand over it)"""
    hand_min_area: float = 0.12
    """a hand region is at least this share of the face box's area"""
    skin_tolerance: float = 12.0
    """Cr/Cb distance from the face's own skin tone still counted as skin"""
    _cascade: Any = None
    _last_face: tuple[int, int, int, int] | None = None
    _missed: int = 0

    def __post_init__(self) -> None:
        cv2 = _cv2()
        path = cv2.data.haarcascades + "haarcascade_frontalface_default.xml"
        self._cascade = cv2.CascadeClassifier(path)
        if self._cascade.empty():
            from floorbench.processors.adapter_config import ModelError

            raise ModelError(f"cascade-vision: OpenCV's face cascade {path} did not load; reinstall OpenCV")

    def read(self, rgb: np.ndarray) -> FrameLook:
        """One frame (h, w, 3 RGB) → what it shows."""
        cv2 = _cv2()
        if rgb.shape[1] > MAX_WIDTH:
            scale = MAX_WIDTH / rgb.shape[1]
            rgb = cv2.resize(rgb, (MAX_WIDTH, round(rgb.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        face, found = self._face(grey)
        if face is None:
            return FrameLook(face=None)
        ycc = cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb)
        skin = self._skin(ycc, face)
        face_region, features = self._face_region(skin, face)
        return FrameLook(
            face=face,
            found=found,
            hand_up=self._hand_up(skin, face_region, face),
            head=self._head(features, face),
            gaze=self._gaze(rgb, features, face),
        )

    # --- the face -----------------------------------------------------------------

    def _face(self, grey: np.ndarray) -> tuple[tuple[int, int, int, int] | None, bool]:
        boxes: Any = ()
        if self._last_face is not None:
            # the face seldom changes size between looks: search near its last size first (3× cheaper)
            w = self._last_face[2]
            near = {"minSize": (w * 3 // 4, w * 3 // 4), "maxSize": (w * 4 // 3, w * 4 // 3)}
            boxes = self._cascade.detectMultiScale(grey, 1.05, 3, **near)
        if not len(boxes):
            min_side = max(24, grey.shape[0] // 8)
            boxes = self._cascade.detectMultiScale(grey, 1.05, 3, minSize=(min_side, min_side))
        if len(boxes):
            x, y, w, h = max(boxes, key=lambda b: int(b[2]) * int(b[3]))
            self._last_face, self._missed = (int(x), int(y), int(w), int(h)), 0
            return self._last_face, True
        self._missed += 1
        if self._last_face is not None and self._missed <= self.track_frames:
            return self._last_face, False
        self._last_face = None
        return None, False

    def _skin(self, ycc: np.ndarray, face: tuple[int, int, int, int]) -> np.ndarray:
        """Pixels of the face centre's colour (its middle third: cheeks and nose, not eyes or hair)."""
        x, y, w, h = face
        centre = ycc[y + h * 2 // 5 : y + h * 3 // 4, x + w // 3 : x + w * 2 // 3, 1:3].reshape(-1, 2)
        tone = np.median(centre, axis=0) if len(centre) else np.array([150.0, 110.0])
        dist = np.abs(ycc[:, :, 1:3].astype(np.float32) - tone.astype(np.float32)).max(axis=2)
        return (dist <= self.skin_tolerance).astype(np.uint8)

    def _face_region(
        self, skin: np.ndarray, face: tuple[int, int, int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The skin region holding the face centre, and its holes (the dark features)."""
        cv2 = _cv2()
        x, y, w, h = face
        n, labels = cv2.connectedComponents(skin, connectivity=8)
        cy, cx = min(y + h // 2, skin.shape[0] - 1), min(x + w // 2, skin.shape[1] - 1)
        label = labels[cy, cx]
        if n <= 1 or label == 0:
            # the centre is a feature pixel (a nose line): take the largest region inside the box
            inside = labels[y : y + h, x : x + w]
            counts = np.bincount(inside.ravel(), minlength=n)
            counts[0] = 0
            label = int(counts.argmax())
        region = (labels == label).astype(np.uint8) if label else np.zeros_like(skin)
        # only the face box rows: the neck joins the face region, the features are above it
        boxed = np.zeros_like(region)
        boxed[y : y + h, x : x + w] = region[y : y + h, x : x + w]
        contours, _ = cv2.findContours(boxed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(boxed)
        cv2.drawContours(filled, contours, -1, 1, thickness=-1)
        features = (filled > 0) & (boxed == 0)
        return region, features

    # --- cues in the frame ----------------------------------------------------------

    def _hand_up(self, skin: np.ndarray, face_region: np.ndarray, face: tuple[int, int, int, int]) -> bool:
        cv2 = _cv2()
        x, y, w, h = face
        others = ((skin > 0) & (face_region == 0)).astype(np.uint8)
        n, _, stats, centroids = cv2.connectedComponentsWithStats(others, connectivity=8)
        min_area = self.hand_min_area * w * h
        for i in range(1, n):
            top, area = stats[i, cv2.CC_STAT_TOP], stats[i, cv2.CC_STAT_AREA]
            cx = centroids[i][0]
            # up to the chin at least: a hand raised beside the head, or one held up in front of
            # the chest; hands resting low (an open palm offering the floor) are not "up"
            if area >= min_area and top < y + h * 0.9 and abs(cx - (x + w / 2)) < w * 3:
                return True
        return False

    def _head(self, features: np.ndarray, face: tuple[int, int, int, int]) -> tuple[float, float] | None:
        x, y, w, h = face
        # eyes and brows only: a mouth opening to speak or laugh would move the centre down
        ys, xs = np.nonzero(features[: y + h * 11 // 20])
        if len(xs) < 6:
            return (x + w / 2, y + h / 2)
        return (float(xs.mean()), float(ys.mean()))

    def _gaze(
        self, rgb: np.ndarray, features: np.ndarray, face: tuple[int, int, int, int]
    ) -> tuple[float, float] | None:
        cv2 = _cv2()
        x, y, w, h = face
        rows = slice(y, y + h // 2 + h // 10)
        top = rgb[rows, x : x + w]
        hsv = cv2.cvtColor(top, cv2.COLOR_RGB2HSV)
        # eye whites are holes of the face's skin region (a bright background is not)
        inside = features[rows, x : x + w]
        white = ((hsv[:, :, 2] > 190) & (hsv[:, :, 1] < 50) & inside).astype(np.uint8)
        # the pupil may cut the white in two: grow the whites over it before taking each eye
        eyes = cv2.dilate(white, np.ones((5, 5), np.uint8))
        dark = (hsv[:, :, 2] < 90) & (eyes > 0)
        n, _, stats, _ = cv2.connectedComponentsWithStats(eyes, connectivity=8)
        offsets: list[tuple[float, float]] = []
        for i in range(1, n):
            ex, ey, ew, eh, area = (int(v) for v in stats[i])
            if area < 10 or ew < w * 0.08 or ew > w * 0.5:
                continue
            box = dark[ey : ey + eh, ex : ex + ew]
            py, px = np.nonzero(box)
            if len(px) < 2:
                continue
            offsets.append(((px.mean() - (ew - 1) / 2) / ew, (py.mean() - (eh - 1) / 2) / ew))
        if not offsets:
            return None
        gx, gy = np.mean(offsets, axis=0)
        return (float(gx), float(gy))


@dataclass
class CueTracker:
    """Cues from the looks of the last `window_ms` (`update`, one look at a time)."""

    window_ms: int = 1600
    shake_reversals: int = 2
    """turns of direction a head shake (or a nod) needs within the window"""
    shake_min_span: float = 0.12
    """the head's back-and-forth spans at least this many face widths"""
    step_min: float = 0.03
    """a move smaller than this (face widths) is jitter, not a direction"""
    gaze_away_min: float = 0.12
    """pupils this far from the eye whites' centre (eye widths) look away"""
    persist: int = 2
    """a hand up must show in this many of the last three looks"""
    gaze_persist: int = 3
    """a look away must show in this many of the last three looks (a glance is not thinking)"""
    baseline_looks: int = 30
    """the person's own resting gaze is the median of this many resting looks (a drawn or
    real face's pupils are seldom exactly centred); looking away is a departure from it"""
    _looks: deque[tuple[int, FrameLook]] = field(default_factory=deque)
    _gazes: deque[tuple[float, float]] = field(default_factory=deque)

    def update(self, t_ms: int, look: FrameLook) -> Cues:
        self._looks.append((t_ms, look))
        while self._looks and self._looks[0][0] < t_ms - self.window_ms:
            self._looks.popleft()
        recent = [lk for _, lk in list(self._looks)[-3:]]
        if look.face is None:
            return Cues()
        looks = [lk for _, lk in self._looks if lk.head is not None and lk.face is not None]
        # in face widths (the median width: the cascade's box size jitters from frame to frame)
        unit = float(np.median([lk.face[2] for lk in looks])) if looks else 1.0  # type: ignore[index]
        xs = [lk.head[0] / unit for lk in looks]  # type: ignore[index]
        ys = [lk.head[1] / unit for lk in looks]  # type: ignore[index]
        span_x = max(xs) - min(xs) if xs else 0.0
        span_y = max(ys) - min(ys) if ys else 0.0
        gaze_away = 0
        if len(self._gazes) >= 5:
            rest = np.median(np.array(self._gazes), axis=0)
            away = [
                lk.gaze is not None and np.hypot(*(np.array(lk.gaze) - rest)) >= self.gaze_away_min
                for lk in recent
            ]
            gaze_away = sum(away)
            resting = look.gaze is not None and not away[-1]
        else:
            resting = look.gaze is not None
        if resting:  # only resting looks make the baseline: a long look away must not become it
            self._gazes.append(look.gaze)  # type: ignore[arg-type]
            while len(self._gazes) > self.baseline_looks:
                self._gazes.popleft()
        return Cues(
            face=True,
            hand_up=sum(lk.hand_up for lk in recent) >= self.persist,
            head_shake=span_x >= self.shake_min_span
            and span_x > 1.5 * span_y
            and self._reversals(xs) >= self.shake_reversals,
            nod=span_y >= self.shake_min_span
            and span_y > 1.5 * span_x
            and self._reversals(ys) >= self.shake_reversals,
            gaze_away=gaze_away >= self.gaze_persist,
        )

    def _reversals(self, values: list[float]) -> int:
        """How often the direction of movement turns (moves under `step_min` ignored)."""
        turns, direction, anchor = 0, 0, values[0] if values else 0.0
        for v in values[1:]:
            step = v - anchor
            if abs(step) < self.step_min:
                continue
            d = 1 if step > 0 else -1
            if direction and d != direction:
                turns += 1
            direction, anchor = d, v
        return turns
