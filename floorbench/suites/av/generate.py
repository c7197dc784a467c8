"""Synthetic generator of suite `av` (docs/suites/av.md): the drawn person performs each dynamic's cue.

Everything is made offline from what ships with the project: the user's words
are rendered by the project's local TTS (`floorbench.speech.tts`, only the
deterministic flite and festival voices, so the same seed gives the same
bytes), laughter is synthesised (voiced "ha" syllables), and the video is drawn
frame by frame by `floorbench.suites.av.draw` in step with that audio: the
mouth follows the speech envelope and the dynamic's cue (gaze, brows, head,
hands) is held over the event window.

Three shapes of scenario, by category (`floorbench.suites.av.rules.CATEGORY`):

- stay_silent and backchannel (a pause mid-turn): one clip, "part one — pause —
  part two"; the cue is held over the pause, which is the window;
- keep_talking and must_yield (a cue while the model talks): clip 1 is a
  request with a long `reply` (≥ 6 s spoken) for the oracle; clip 2, timed
  `offset_ms` after the model's onset, is a short wordless clip (silence, or
  the laugh for `laughter`) whose window is the cue;
- smooth_handoff: one clip, a question and then the look to camera or the
  open palms held for 1.5 s; the window starts where the speech ends and runs
  3 s, past the clip's end, where the model should take the floor.

Synthetic cues are a functional test of the pipeline and of a model's use of
vision, not a substitute for human clips. Word times are estimates (each spoken
part's active span shared out by letters) and `meta.words` says so.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.av.draw import CODEC, Pose, draw_frame, encode_video, speech_envelope
from floorbench.suites.av.files import RATE, AvSuiteWriter
from floorbench.suites.av.rules import CATEGORY, DURING_MODEL_SPEECH, Category, Dynamic
from floorbench.suites.av.schema import (
    DEFAULT_FPS,
    DEFAULT_SIZE,
    AvClip,
    AvEvent,
    AvScenario,
    AvWord,
    user_speakers,
)

GENERATOR_VERSION = 1
MAX_PER_DYNAMIC = 50
USER_VOICES = ("flite:slt", "festival:slt_hts", "flite:awb", "flite:rms")
"""deterministic local voices only (piper's output varies run to run)"""
IDLE_MS = 2000
SYSTEM_PROMPT = (
    "You are a friendly assistant in a video call: you hear the user and see them through their camera. "
    "Talk naturally and briefly. Pay attention to what the user does as well as what they say: "
    "let them finish when they are still thinking, stop when they want to speak, "
    "and answer when they hand the turn to you."
)

# mid-turn pauses: (part one, part two)
PAUSE_TURNS: dict[Dynamic, list[tuple[str, str]]] = {
    Dynamic.thinking_pause: [
        ("For dinner tonight I might make,", "maybe a mushroom risotto."),
        ("The best holiday I ever had was,", "probably that week on the coast."),
        ("This year I would like to learn,", "how to play the piano."),
    ],
    Dynamic.gaze_aversion: [
        ("I need to buy one of those, um,", "things that open wine bottles."),
        ("My favourite film is, oh,", "the one with the tiger on a boat."),
        ("The capital of Australia is, hmm,", "Canberra, not Sydney."),
    ],
    Dynamic.hand_hold: [
        ("I have two questions,", "first, how long does bread keep?"),
        ("Before you answer, wait,", "does it work on weekends too?"),
        ("Let me explain the problem,", "the printer never prints."),
    ],
    Dynamic.backchannel_invite: [
        ("So yesterday at the market,", "I met my old maths teacher."),
        ("We moved into the new flat,", "and the heating broke down."),
        ("My sister started a new job,", "and she has her own office."),
    ],
}
# cues during the model's speech: (request, the oracle's long reply)
REQUESTS: list[tuple[str, str]] = [
    (
        "Can you tell me a bit about the history of tea?",
        "Tea was first drunk in China thousands of years ago. Later it spread along trade routes to Japan, "
        "India and Europe, where it became a daily habit, and today it is the most popular drink after water.",
    ),
    (
        "How does a bicycle stay upright when it moves?",
        "A moving bicycle stays up mostly because the rider keeps steering into the direction of a fall. "
        "The shape of the front fork helps too, since it turns the wheel a little on its own when the bike leans.",
    ),
    (
        "What should I pack for a weekend in the mountains?",
        "For a weekend in the mountains, pack layers you can add or take off, a warm jacket, a rain shell, "
        "good walking shoes, a water bottle, some snacks, sun cream, and a small first aid kit for blisters.",
    ),
    (
        "Why is the sky blue during the day?",
        "Sunlight holds every colour, and when it passes through the air the short blue waves are scattered "
        "much more than the red ones, so blue light reaches your eyes from every part of the sky at once.",
    ),
]
# smooth handoffs: (question, the oracle's answer)
HANDOFFS: list[tuple[str, str]] = [
    ("What time does the museum open on Sundays?", "On Sundays the museum opens at ten in the morning."),
    (
        "Do you think I should take the train or drive?",
        "The train is probably easier, you can relax on the way.",
    ),
    (
        "Can you recommend a good book for the holidays?",
        "A light novel would be nice, maybe a detective story.",
    ),
    ("How many eggs do I need for a pancake batter?", "Two eggs are enough for a normal batch of pancakes."),
]
DESCRIPTIONS: dict[Dynamic, str] = {
    Dynamic.thinking_pause: "mid-sentence the user stops and looks up and away, thinking, then goes on",
    Dynamic.gaze_aversion: "searching for a word, the user looks down and to the side, then goes on",
    Dynamic.hand_hold: "in a pause the user holds up one finger ('one second') to keep the floor",
    Dynamic.nod: "while the model talks the user nods several times, listening",
    Dynamic.laughter: "while the model talks the user laughs out loud, smiling",
    Dynamic.smile: "while the model talks the user smiles broadly, without a sound",
    Dynamic.raised_hand: "while the model talks the user raises a hand beside their head, wanting to speak",
    Dynamic.head_shake: "while the model talks the user shakes their head with a frown, disagreeing",
    Dynamic.handoff_gaze: "the user finishes a question looking aside, then looks straight at the camera and waits",
    Dynamic.open_palm: "the user finishes a question and opens both palms towards the camera, offering the turn",
    Dynamic.backchannel_invite: "mid-story the user pauses with raised brows and a small nod, inviting an 'mm-hm'",
}


@dataclass
class Part:
    """One stretch of a clip's audio, with the cue the person performs over it (None: just talk/listen)."""

    kind: str
    """'speech', 'silence' or 'laugh'"""
    text: str = ""
    ms: int = 0
    cue: str | None = None


@dataclass
class ClipPlan:
    parts: list[Part]
    window: tuple[int, int] = (0, 0)
    """filled in by `render_clip`: which part is the window is said by `window_parts`"""
    window_parts: tuple[int, int] = (0, 0)
    """indices (first, last) of the parts the window covers; the window may run on `window_extra_ms`"""
    window_extra_ms: int = 0
    offset_ms: int | None = None
    reply: str | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)
    """each part's [start, end) in samples, filled in by `render_clip`"""


def _ramp(t: float, span: float, attack: float = 250, release: float = 250) -> float:
    """0 → 1 over `attack` ms, held, 1 → 0 over the last `release` ms of a cue lasting `span` ms."""
    if t < 0 or t > span:
        return 0.0
    return max(0.0, min(1.0, t / attack, (span - t) / release))


def cue_pose(cue: str, t: float, span: float) -> Pose:
    """The person's pose `t` ms into a cue lasting `span` ms (outside it: the rest pose)."""
    k = _ramp(t, span)
    z = Pose()
    if cue == "thinking_pause":
        return z.blend(Pose(gaze_x=0.9, gaze_y=-1.0, head_dx=5, head_dy=-4, brow=0.3), k)
    if cue in ("gaze_aversion", "handoff_pre"):
        return z.blend(
            Pose(gaze_x=-1.0, gaze_y=0.7, head_dx=-7, head_dy=3), k if cue == "gaze_aversion" else 1.0
        )
    if cue == "hand_hold":
        return z.blend(Pose(hold=1.0, brow=0.2), _ramp(t, span, 350, 350))
    if cue == "nod":
        return Pose(head_dy=10 * k * (1 - math.cos(2 * math.pi * t / 700)) / 2, smile=0.3 * k)
    if cue == "laughter":
        return Pose(smile=k, squint=0.7 * k, head_dy=3 * k * math.sin(2 * math.pi * t / 230))
    if cue == "smile":
        return z.blend(Pose(smile=1.0, squint=0.4), _ramp(t, span, 400, 400))
    if cue == "raised_hand":
        return z.blend(Pose(raise_=1.0, brow=0.5), _ramp(t, span, 400, 400))
    if cue == "head_shake":
        return Pose(head_dx=14 * k * math.sin(2 * math.pi * t / 500), brow=-0.8 * k)
    if cue == "handoff_gaze":
        return Pose(gaze_x=-1.0, gaze_y=0.7, head_dx=-7, head_dy=3).blend(Pose(brow=0.6), min(1.0, t / 250))
    if cue == "open_palm":
        return z.blend(Pose(palms=1.0, brow=0.4), min(1.0, t / 350))
    if cue == "backchannel_invite":
        dip = 8 * math.sin(math.pi * min(1.0, max(0.0, (t - 300) / 600)))
        return replace(z.blend(Pose(brow=1.0, smile=0.3), k), head_dy=dip if k > 0 else 0.0)
    return z


def laugh(ms: int, rng: random.Random, rate: int = RATE) -> np.ndarray:
    """A synthetic laugh: voiced 'ha' syllables (glottal pulses through /a/ formants) with breathy onsets."""
    n = ms * rate // 1000
    out = np.zeros(n, dtype=np.float64)
    noise = np.random.default_rng(rng.randrange(2**32))
    t0, f0 = 0.05, 260.0
    while t0 < ms / 1000 - 0.2:
        syl = int(0.16 * rate)
        a = int(t0 * rate)
        tt = np.arange(syl) / rate
        f = f0 * (1 - 0.25 * tt / 0.16)
        phase = 2 * np.pi * np.cumsum(f) / rate
        voiced = sum(np.sin(k * phase) / k for k in range(1, 12))
        env = np.minimum(1, tt / 0.03) * np.exp(-tt / 0.09)
        syl_sig = voiced * env + noise.normal(0, 0.25, syl) * np.exp(-tt / 0.03)
        out[a : a + syl] += syl_sig[: max(0, min(syl, n - a))]
        t0 += rng.uniform(0.2, 0.26)
        f0 *= 0.96
    return _to_int16(_formants(out, rate), -20)


def _formants(x: np.ndarray, rate: int) -> np.ndarray:
    """Emphasise /a/'s formants (800, 1200 Hz) with two resonators applied in the frequency domain."""
    spec = np.fft.rfft(x)
    f = np.fft.rfftfreq(len(x), 1 / rate)
    gain = 0.15 + sum(1 / (1 + ((f - fc) / bw) ** 2) for fc, bw in ((800, 120), (1200, 150), (2500, 250)))
    return np.fft.irfft(spec * gain, len(x))


def _to_int16(x: np.ndarray, dbfs: float) -> np.ndarray:
    active = x[np.abs(x) > 1e-3 * (np.max(np.abs(x)) or 1)]
    rms = float(np.sqrt(np.mean(active**2))) if len(active) else 0.0
    if rms > 0:
        x = x * (10 ** (dbfs / 20) / rms)
    return (np.clip(x, -1, 1) * 32767).astype(np.int16)


def _part_audio(part: Part, voice: str, rng: random.Random) -> np.ndarray:
    from floorbench.speech import tts

    if part.kind == "speech":
        return tts.synthesize(part.text, voice, RATE)
    if part.kind == "laugh":
        return laugh(part.ms, rng)
    return np.zeros(part.ms * RATE // 1000, dtype=np.int16)


@dataclass
class RenderedClip:
    """A clip's audio (int16, `RATE`), its frames' poses and what the scenario records of it."""

    pcm: np.ndarray
    poses: list[Pose]
    words: list[AvWord]
    window: tuple[int, int]
    text: str


def _frame_count(samples: int, fps: int) -> int:
    return -(-samples * fps // RATE)


def render_clip(plan: ClipPlan, voice: str, rng: random.Random, fps: int) -> RenderedClip:
    """The clip's audio, padded to a whole number of frames, and one pose per frame in step with it."""
    chunks = [_part_audio(p, voice, rng) for p in plan.parts]
    spans, at = [], 0
    for c in chunks:
        spans.append((at, at + len(c)))
        at += len(c)
    frames = _frame_count(at, fps)
    pcm = np.concatenate([*chunks, np.zeros(frames * RATE // fps - at + 1, dtype=np.int16)])[
        : frames * RATE // fps
    ]
    env = speech_envelope(pcm, RATE, fps, frames)
    poses = []
    for i in range(frames):
        s = i * RATE // fps
        k = next((j for j, (a, b) in enumerate(spans) if a <= s < b), len(spans) - 1)
        part, (a, b) = plan.parts[k], spans[k]
        pose = cue_pose(part.cue, (s - a) * 1000 / RATE, (b - a) * 1000 / RATE) if part.cue else Pose()
        breath = 1.5 * math.sin(2 * math.pi * (s * 1000 / RATE) / IDLE_MS)
        poses.append(Pose(**{**pose.__dict__, "mouth": max(pose.mouth, float(env[i])), "breath": breath}))
    first, last = plan.window_parts
    window = (spans[first][0] * 1000 // RATE, spans[last][1] * 1000 // RATE + plan.window_extra_ms)
    words = [
        w
        for p, c, (a, _) in zip(plan.parts, chunks, spans, strict=True)
        if p.kind == "speech"
        for w in _estimate_words(p.text, c, a)
    ]
    text = " ".join(p.text for p in plan.parts if p.kind == "speech")
    return RenderedClip(pcm=pcm, poses=poses, words=words, window=window, text=text)


def _estimate_words(text: str, pcm: np.ndarray, start: int) -> list[AvWord]:
    """Word times shared out by letters over the part's active span (10 ms frames above −30 dB of the peak)."""
    hop = RATE // 100
    x = pcm.astype(np.float32)
    rms = np.array([np.sqrt(np.mean(x[i : i + hop] ** 2)) for i in range(0, max(1, len(x) - hop + 1), hop)])
    on = np.flatnonzero(rms > (rms.max() if len(rms) else 0) * 10 ** (-30 / 20))
    a, b = (int(on[0]) * hop, int(on[-1] + 1) * hop) if len(on) else (0, len(x))
    words = text.split()
    weights = np.array([len(w) + 1 for w in words], dtype=np.float64)
    edges = a + np.concatenate([[0], np.cumsum(weights)]) / weights.sum() * (b - a)
    to_ms = lambda n: int((start + n) * 1000 // RATE)  # noqa: E731
    return [AvWord(word=w, start_ms=to_ms(edges[i]), end_ms=to_ms(edges[i + 1])) for i, w in enumerate(words)]


def plan_scenario(dynamic: Dynamic, k: int, rng: random.Random) -> list[ClipPlan]:
    """The clips of the `k`-th scenario of `dynamic` (see the module doc for the three shapes)."""
    cat = CATEGORY[dynamic]
    if dynamic in PAUSE_TURNS:
        first, second = PAUSE_TURNS[dynamic][k % len(PAUSE_TURNS[dynamic])]
        pause = rng.randrange(1800, 2601, 100)
        parts = [Part("speech", first), Part("silence", ms=pause, cue=dynamic.value), Part("speech", second)]
        return [ClipPlan(parts, window_parts=(1, 1))]
    if dynamic in DURING_MODEL_SPEECH:
        request, reply = REQUESTS[(k + list(Dynamic).index(dynamic)) % len(REQUESTS)]
        cue_ms = rng.randrange(2000, 2601, 100)
        kind = "laugh" if dynamic is Dynamic.laughter else "silence"
        cue = ClipPlan(
            [Part("silence", ms=500), Part(kind, ms=cue_ms, cue=dynamic.value), Part("silence", ms=600)],
            window_parts=(1, 1),
            offset_ms=rng.randrange(1500, 2501, 100),
        )
        return [ClipPlan([Part("speech", request)], reply=reply), cue]
    assert cat is Category.smooth_handoff, cat
    question, answer = HANDOFFS[(k + (dynamic is Dynamic.open_palm)) % len(HANDOFFS)]
    pre = "handoff_pre" if dynamic is Dynamic.handoff_gaze else None
    parts = [Part("speech", question, cue=pre), Part("silence", ms=1500, cue=dynamic.value)]
    return [ClipPlan(parts, window_parts=(1, 1), window_extra_ms=1500, reply=answer)]


@dataclass(frozen=True)
class AvGenConfig:
    per_dynamic: int = 2
    seed: int = 0
    dynamics: tuple[Dynamic, ...] = tuple(Dynamic)
    fps: int = DEFAULT_FPS
    size: tuple[int, int] = DEFAULT_SIZE
    name: str | None = None
    """the suite's name (default av-seed<seed>)"""


def generate_scenario(w: AvSuiteWriter, cfg: AvGenConfig, dynamic: Dynamic, k: int, n: int) -> AvScenario:
    """Plan, render, draw and encode one scenario's clips into the suite; the scenario record."""
    rng = random.Random(f"{cfg.seed}:{dynamic.value}:{k}")
    voice = rng.choice(USER_VOICES)
    sid = f"av{n:03d}-{dynamic.value.replace('_', '-')}"
    clips: list[AvClip] = []
    window = (0, 0)
    for cid, plan in enumerate(plan_scenario(dynamic, k, rng), 1):
        r = render_clip(plan, voice, rng, cfg.fps)
        from floorbench.speech import tts

        backend = (
            tts.backend_version(voice)
            if r.text
            else "synthetic laugh"
            if dynamic is Dynamic.laughter
            else "silence"
        )
        audio = w.add_audio(r.pcm, r.text, voice, backend)
        rel = f"video/{sid}-c{cid}.mp4"
        frames = encode_video(w.root / rel, (draw_frame(p, cfg.size) for p in r.poses), cfg.fps, cfg.size)
        w.add_video(rel, cfg.fps, cfg.size, frames, CODEC)
        clips.append(
            AvClip(
                id=cid,
                text=r.text,
                audio=audio,
                video=rel,
                offset_ms=plan.offset_ms,
                reply=plan.reply,
                words=r.words or None,
            )
        )
        window = r.window
    return AvScenario(
        scenario_id=sid,
        source="synthetic",
        system_prompt=SYSTEM_PROMPT,
        fps=cfg.fps,
        size=list(cfg.size),
        idle_video=IDLE_VIDEO,
        speakers=user_speakers(voice),
        clips=clips,
        event=AvEvent.on_last(clips, dynamic, window, DESCRIPTIONS[dynamic]),
        meta={
            "generator": "av-synthetic",
            "version": GENERATOR_VERSION,
            "seed": cfg.seed,
            "words": "estimated: each spoken part's active span shared out by letters",
        },
    )


IDLE_VIDEO = "video/idle.mp4"


def idle_poses(fps: int) -> Iterator[Pose]:
    """The idle loop: the person at rest, looking at the camera, breathing (the loop joins seamlessly)."""
    n = IDLE_MS * fps // 1000
    for i in range(n):
        yield Pose(breath=1.5 * math.sin(2 * math.pi * i / n))


def write_av_suite(
    out: Path, cfg: AvGenConfig, force: bool = False, progress: Callable[[int, int], None] | None = None
) -> Path:
    """Generate `cfg.per_dynamic` scenarios of each dynamic into the suite folder `out`."""
    if not 1 <= cfg.per_dynamic <= MAX_PER_DYNAMIC:
        raise ScenarioError(
            f"--per-dynamic {cfg.per_dynamic}: the av generator makes 1..{MAX_PER_DYNAMIC} per dynamic"
        )
    out = Path(out)
    w = AvSuiteWriter.emptied(out, force)
    frames = encode_video(
        out / IDLE_VIDEO, (draw_frame(p, cfg.size) for p in idle_poses(cfg.fps)), cfg.fps, cfg.size
    )
    w.add_video(IDLE_VIDEO, cfg.fps, cfg.size, frames, CODEC)
    total, n = len(cfg.dynamics) * cfg.per_dynamic, 0
    for k in range(cfg.per_dynamic):
        for dynamic in cfg.dynamics:
            n += 1
            w.write_scenario(generate_scenario(w, cfg, dynamic, k, n))
            if progress:
                progress(n, total)
    names = ", ".join(d.value for d in cfg.dynamics)
    w.finish(
        name=cfg.name or f"av-seed{cfg.seed}",
        description=f"Synthetic av suite: {cfg.per_dynamic} per dynamic ({names}), seed {cfg.seed}; drawn person.",
        generator={
            "name": "av-synthetic",
            "version": GENERATOR_VERSION,
            "seed": cfg.seed,
            "per_dynamic": cfg.per_dynamic,
            "fps": cfg.fps,
        },
    )
    return out


def parse_dynamics(value: str | None) -> tuple[Dynamic, ...]:
    """`--dynamics a,b,c` (None: all eleven, in the suite's order); one-line error naming the known ones."""
    if value is None or not value.strip():
        return tuple(Dynamic)
    from floorbench.suites.av.rules import category_of

    out: list[Dynamic] = []
    for name in (v.strip() for v in value.split(",") if v.strip()):
        try:
            category_of(name)
        except ValueError as e:
            raise ScenarioError(f"--dynamics: {e}") from None
        if Dynamic(name) not in out:
            out.append(Dynamic(name))
    return tuple(out)
