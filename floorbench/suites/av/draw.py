"""A procedurally drawn 2-D person for suite `av`'s synthetic clips, and the video encoding.

The person is a few filled shapes (PIL): head, hair, eyes with movable pupils,
brows, a mouth that opens with the speech envelope and can smile, neck,
shoulders, and two hands that are out of the frame at rest. Every visual cue
of the eleven dynamics is one field of `Pose`, drawn large on purpose so that
a vision detector (or a test measuring pixels) sees it without doubt:

- head_dx / head_dy: the head moves (a nod is ±10 px vertically, a shake ±14 px
  sideways, a turn away a few px);
- gaze_x / gaze_y: the pupils move to the corners of the eyes;
- brow: brows up (+1) or knitted down (−1);
- mouth / smile / squint: speech and laughter open the mouth, a smile curves it;
- raise: one hand rises above the shoulder beside the head, fingers up;
- hold: one hand up in front of the chest, index finger up ("one second");
- palms: both hands forward, palms open, at the bottom of the frame.

Synthetic cues are a functional test of the pipeline and of a model's use of
vision, not a stand-in for human behaviour (docs/suites/av.md).

Videos are MP4 files with FFmpeg's own MPEG-4 Part 2 encoder (in every FFmpeg
build, so in PyAV's wheels: no system package needed), yuv420p, no B-frames, a
key frame every second, a fixed quantiser, bit-exact flags so the same frames give the same bytes;
one packet per frame, so PyAV decodes them frame-exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

CODEC = "mpeg4"
QSCALE = 4
"""MPEG-4 fixed quantiser: 2 (best) … 31; 4 keeps the drawn edges clean at about 1 kB per frame"""

BG = (196, 206, 214)
SKIN = (233, 192, 158)
SKIN_DARK = (204, 158, 124)
HAIR = (74, 50, 34)
SHIRT = (58, 92, 140)
EYE_WHITE = (250, 250, 250)
PUPIL = (28, 28, 36)
MOUTH = (122, 34, 44)
LIP = (176, 82, 84)
BROW = (62, 42, 30)

REF_W, REF_H = 320, 240
"""the drawing's own coordinates; other frame sizes scale them"""
HEAD = (160.0, 100.0)
"""the head's centre at rest, in reference coordinates"""


@dataclass(frozen=True)
class Pose:
    """Everything the person does in one frame; the zero pose looks at the camera, mouth shut."""

    head_dx: float = 0.0
    head_dy: float = 0.0
    gaze_x: float = 0.0
    """−1 (the viewer's left) … +1 (right)"""
    gaze_y: float = 0.0
    """−1 (up) … +1 (down)"""
    brow: float = 0.0
    """−1 knitted … +1 raised"""
    mouth: float = 0.0
    """0 closed … 1 wide open"""
    smile: float = 0.0
    squint: float = 0.0
    raise_: float = 0.0
    """0 hand out of frame … 1 hand raised beside the head"""
    hold: float = 0.0
    """0 … 1 hand up in front of the chest, index finger up"""
    palms: float = 0.0
    """0 … 1 both hands forward, palms open"""
    breath: float = 0.0
    """shoulders' rise in px (idle breathing)"""

    def blend(self, other: Pose, k: float) -> Pose:
        """This pose moved a fraction `k` (0…1) of the way to `other`."""
        k = min(1.0, max(0.0, k))
        fields = {f: getattr(self, f) + (getattr(other, f) - getattr(self, f)) * k for f in _FIELDS}
        return replace(self, **fields)


_FIELDS = tuple(Pose.__dataclass_fields__)


class _Canvas:
    """Reference coordinates (320×240) mapped onto the frame, centred, uniformly scaled."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.w, self.h = size
        self.s = min(self.w / REF_W, self.h / REF_H)
        self.ox = (self.w - REF_W * self.s) / 2
        self.oy = (self.h - REF_H * self.s) / 2
        self.img = Image.new("RGB", size, BG)
        self.d = ImageDraw.Draw(self.img)

    def p(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x * self.s, self.oy + y * self.s)

    def box(self, cx: float, cy: float, rx: float, ry: float) -> list[float]:
        x0, y0 = self.p(cx - rx, cy - ry)
        x1, y1 = self.p(cx + rx, cy + ry)
        return [x0, y0, x1, y1]

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, fill: tuple[int, int, int]) -> None:
        self.d.ellipse(self.box(cx, cy, rx, ry), fill=fill)

    def line(self, pts: list[tuple[float, float]], fill: tuple[int, int, int], width: float) -> None:
        self.d.line(
            [self.p(x, y) for x, y in pts], fill=fill, width=max(1, round(width * self.s)), joint="curve"
        )


def draw_frame(pose: Pose, size: tuple[int, int] = (REF_W, REF_H)) -> np.ndarray:
    """One RGB frame (H×W×3 uint8) of the person in `pose`."""
    c = _Canvas(size)
    _body(c, pose)
    hx, hy = HEAD[0] + pose.head_dx, HEAD[1] + pose.head_dy
    _head(c, pose, hx, hy)
    if pose.palms > 0.01:
        _palms(c, pose.palms)
    if pose.hold > 0.01:
        _hold_hand(c, pose.hold)
    if pose.raise_ > 0.01:
        _raised_hand(c, pose.raise_)
    return np.asarray(c.img, dtype=np.uint8)


def _body(c: _Canvas, pose: Pose) -> None:
    top = 186 - pose.breath
    c.ellipse(160, top + 70, 112, 70, SHIRT)
    c.d.rectangle([*c.p(144, 140), *c.p(176, top + 6)], fill=SKIN_DARK)


def _head(c: _Canvas, pose: Pose, hx: float, hy: float) -> None:
    c.ellipse(hx, hy - 8, 52, 58, HAIR)
    c.ellipse(hx - 47, hy + 4, 7, 12, SKIN_DARK)
    c.ellipse(hx + 47, hy + 4, 7, 12, SKIN_DARK)
    c.ellipse(hx, hy + 6, 46, 56, SKIN)
    ey = hy - 6
    for side in (-1, 1):
        ex = hx + side * 18
        open_y = 7.5 * (1 - 0.65 * pose.squint)
        c.ellipse(ex, ey, 10.5, open_y, EYE_WHITE)
        px = ex + pose.gaze_x * 6.5
        py = ey + pose.gaze_y * 4.0 * (1 - 0.5 * pose.squint)
        c.ellipse(px, py, 4.8, min(4.8, open_y), PUPIL)
        by = ey - 15 - max(0.0, pose.brow) * 8
        knit = max(0.0, -pose.brow) * 7
        c.line([(ex - side * 11, by + knit), (ex + side * 11, by - knit * 0.3)], BROW, 4)
    c.line([(hx, hy + 2), (hx - 3, hy + 16), (hx + 2, hy + 17)], SKIN_DARK, 2)
    _mouth(c, pose, hx, hy + 33)


def _mouth(c: _Canvas, pose: Pose, mx: float, my: float) -> None:
    """Lips; open with `mouth`; a smile widens them into an upturned, open grin showing teeth."""
    half = 13 + 7 * pose.smile
    curve = 6 * pose.smile
    if pose.smile > 0.3:
        depth = 4 + 10 * pose.smile
        c.d.chord(c.box(mx, my - curve, half, depth), 0, 180, fill=MOUTH)
    if pose.mouth > 0.04:
        c.ellipse(mx, my + 2 * pose.smile, half * (0.75 + 0.25 * pose.mouth), 1.5 + 11 * pose.mouth, MOUTH)
    if pose.smile > 0.3:
        c.d.chord(c.box(mx, my - curve, half * 0.8, 2 + 5 * pose.smile), 0, 180, fill=EYE_WHITE)
    pts = [(mx - half, my - curve)]
    pts += [(mx + half * x, my - curve + curve * (1 - x * x) * 1.4) for x in (-0.5, 0.0, 0.5)]
    pts.append((mx + half, my - curve))
    c.line(pts, LIP, 3)


def _hand(c: _Canvas, x: float, y: float, fingers: int) -> None:
    """A palm facing the camera with `fingers` raised fingers (1 = only the index) and a thumb."""
    c.ellipse(x, y, 21, 24, SKIN)
    tops = [(-15, -50), (-5, -58), (6, -56), (16, -46)][:fingers] if fingers > 1 else [(-2, -60)]
    for fx, fy in tops:
        c.line([(x + fx * 0.6, y - 12), (x + fx, y + fy)], SKIN, 11)
    c.line([(x - 16, y + 4), (x - 36, y - 14)], SKIN, 11)
    c.line([(x - 4, y + 10), (x + 6, y + 10)], SKIN_DARK, 2)


def _raised_hand(c: _Canvas, k: float) -> None:
    """A hand up beside the head (the viewer's right), fingers spread: 'I want to speak'."""
    y = 320 - (320 - 82) * k
    c.line([(236, 250), (256, y + 24)], SHIRT, 26)
    _hand(c, 256, y, 4)


def _hold_hand(c: _Canvas, k: float) -> None:
    """A hand up in front of the chest, index finger up: 'one second'."""
    y = 320 - (320 - 186) * k
    c.line([(214, 270), (222, y + 20)], SHIRT, 26)
    _hand(c, 222, y, 1)


def _palms(c: _Canvas, k: float) -> None:
    """Both hands forward at the bottom of the frame, palms up and open: 'over to you'."""
    y = 300 - (300 - 200) * k
    for x in (92, 228):
        c.line([(x + (x - 160) * 0.4, 268), (x, y + 12)], SHIRT, 28)
        c.ellipse(x, y, 32, 16, SKIN)
        for f in (-22, -8, 6, 20):
            c.line([(x + f, y - 6), (x + f * 1.5, y - 28)], SKIN, 10)


def speech_envelope(pcm: np.ndarray, rate: int, fps: int, frames: int) -> np.ndarray:
    """Per video frame, how far the mouth opens (0…1) from the audio's RMS in that frame's span."""
    x = pcm.astype(np.float32) / 32768.0
    out = np.zeros(frames, dtype=np.float32)
    for i in range(frames):
        a, b = i * rate // fps, (i + 1) * rate // fps
        seg = x[a:b]
        if len(seg):
            out[i] = float(np.sqrt(np.mean(seg * seg)))
    peak = float(np.percentile(out[out > 0], 95)) if np.any(out > 0) else 0.0
    if peak <= 1e-4:
        return out * 0
    db = 20 * np.log10(np.maximum(out, 1e-6) / peak)
    return np.clip((db + 30) / 30, 0, 1).astype(np.float32)


def encode_video(path: Path, frames: Iterable[np.ndarray], fps: int, size: tuple[int, int]) -> int:
    """Write RGB frames as MP4/MPEG-4 Part 2 (see module doc); returns how many frames were written."""
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.part")
    n = 0
    with av.open(str(tmp), "w", format="mp4", options={"fflags": "+bitexact"}) as out:
        st = out.add_stream(CODEC, rate=fps)
        st.width, st.height = size
        st.pix_fmt = "yuv420p"
        st.codec_context.gop_size = fps
        st.codec_context.max_b_frames = 0
        q = str(
            QSCALE
        )  # a fixed quantiser: rate control starves static areas and leaves ghosts of moved hands
        st.codec_context.options = {"flags": "+qscale+bitexact", "qmin": q, "qmax": q}
        for rgb in frames:
            frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
            frame.pts = n
            for pkt in st.encode(frame):
                out.mux(pkt)
            n += 1
        for pkt in st.encode(None):
            out.mux(pkt)
    tmp.replace(path)
    return n


def read_frames(path: Path) -> Iterator[np.ndarray]:
    """Decode every frame of a video as RGB arrays, in order (for tests and the vision baseline)."""
    import av

    with av.open(str(path)) as c:
        for frame in c.decode(video=0):
            yield frame.to_ndarray(format="rgb24")
