"""The rules of suite `av` on one scenario file: one line per broken rule, naming the file and the fix.

Called by `floorbench.scenarios.validate.load_scenario_file` for files that
say ``suite: av``. The checks are what the live schedule and the scorer rely
on: the dynamic is one of the eleven and the category is the one it maps to,
the event window is 0.5–10 s and inside its clip, clips timed against the
model's speech exist only for dynamics that happen while the model talks, and
every clip's audio and video are there, agree in length (± one frame) and
have the scenario's frame rate and size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.schema import inside
from floorbench.scenarios.validate import SUPPORTED_RATES, LoadedSuite, ScenarioError, parse_record
from floorbench.suites.av.rules import CATEGORY, DURING_MODEL_SPEECH, AvRules, Category, Dynamic, category_of
from floorbench.suites.av.schema import AvClip, AvScenario

if TYPE_CHECKING:
    from floorbench.scenarios.info import SuiteInfo

FIX_FILES = "regenerate the suite (floorbench generate --suite av) or re-import the clip"
F = TypeVar("F", bound="AudioFacts | VideoFacts")


@dataclass(frozen=True)
class VideoFacts:
    """What the validator needs of a video file, read by demuxing (no decoding)."""

    fps: Fraction
    width: int
    height: int
    frames: int
    codec: str
    audio_streams: int

    @property
    def duration_ms(self) -> int:
        return int(self.frames * 1000 / self.fps) if self.fps else 0


@dataclass(frozen=True)
class AudioFacts:
    rate: int
    channels: int
    frames: int

    @property
    def duration_ms(self) -> int:
        return self.frames * 1000 // self.rate if self.rate else 0


def probe_video(path: Path) -> VideoFacts:
    """Frame rate, size and frame count of the first video stream (packets counted, nothing decoded).

    Raises ValueError (one line) when PyAV cannot open the file or it holds no video.
    """
    import av
    import av.error

    try:
        with av.open(str(path)) as c:
            if not c.streams.video:
                raise ValueError("no video stream")
            vs = c.streams.video[0]
            rate = vs.average_rate or vs.guessed_rate or vs.base_rate
            frames = sum(1 for p in c.demux(vs) if p.size)
            return VideoFacts(
                fps=Fraction(rate) if rate else Fraction(0),
                width=vs.codec_context.width,
                height=vs.codec_context.height,
                frames=frames,
                codec=vs.codec_context.name,
                audio_streams=len(c.streams.audio),
            )
    except (av.error.FFmpegError, OSError) as e:
        raise ValueError(f"PyAV cannot read it ({type(e).__name__})") from None


def probe_audio(path: Path) -> AudioFacts:
    import soundfile as sf

    try:
        info = sf.info(str(path))
    except Exception as e:  # libsndfile raises several types on broken files
        raise ValueError(f"unreadable ({type(e).__name__})") from None
    return AudioFacts(rate=info.samplerate, channels=info.channels, frames=info.frames)


def check_av_scenario(s: AvScenario, path: Path, rules: AvRules = AvRules()) -> None:
    """Raise a one-line ScenarioError for the first broken rule that needs no file."""
    where = f"{path}: scenario {s.scenario_id}"
    if not s.system_prompt.strip():
        raise ScenarioError(f"{where}: empty system_prompt; write the fixed instructions the model gets")
    if not rules.fps_min <= s.fps <= rules.fps_max:
        raise ScenarioError(f"{where}: fps {s.fps}; use {rules.fps_min}–{rules.fps_max}")
    if len(s.size) != 2 or any(v <= 0 or v % 2 for v in s.size):
        raise ScenarioError(f"{where}: size {s.size}; give [width, height], both positive and even")
    if not s.clips:
        raise ScenarioError(f"{where}: no clips; add the clip the event is on")
    if [c.id for c in s.clips] != list(range(1, len(s.clips) + 1)):
        raise ScenarioError(f"{where}: clip ids must be 1, 2, 3, … in order; renumber them")
    dynamic = _check_event(s, where, rules)
    during = dynamic in DURING_MODEL_SPEECH
    for c in s.clips:
        _check_clip(s, c, during, f"{where}: clip {c.id}", rules)
    ev = s.event
    if during:
        if ev.clip == 1:
            raise ScenarioError(
                f"{where}: event on clip 1, but a {dynamic} cue happens while the model talks; "
                "put a request clip (with a reply) before it"
            )
        if s.clip(ev.clip).offset_ms is None:
            raise ScenarioError(
                f"{where}: clip {ev.clip}: a {dynamic} cue needs offset_ms (when, after the model's onset)"
            )
        if not s.clip(ev.clip - 1).reply:
            raise ScenarioError(
                f"{where}: clip {ev.clip - 1}: no reply; the oracle needs what to say while the {dynamic} cue comes"
            )
    if CATEGORY[dynamic] is Category.smooth_handoff and not s.clip(ev.clip).reply:
        raise ScenarioError(
            f"{where}: clip {ev.clip}: no reply; on a {dynamic} the oracle takes the floor with it"
        )


def _check_event(s: AvScenario, where: str, rules: AvRules) -> Dynamic:
    ev = s.event
    try:
        expected = category_of(ev.dynamic)
    except ValueError as e:
        raise ScenarioError(f"{where}: event: {e}; fix 'dynamic'") from None
    if ev.category != expected.value:
        raise ScenarioError(
            f"{where}: event category {ev.category!r}, but dynamic {ev.dynamic} is {expected.value}; "
            f"set category: {expected.value}"
        )
    if ev.clip not in {c.id for c in s.clips}:
        raise ScenarioError(f"{where}: event on clip {ev.clip}, which does not exist; use a clip id")
    if ev.start_ms < 0 or ev.end_ms <= ev.start_ms:
        raise ScenarioError(
            f"{where}: event window {ev.start_ms}–{ev.end_ms} ms; needs 0 ≤ start_ms < end_ms"
        )
    length = ev.end_ms - ev.start_ms
    if not rules.window_min_ms <= length <= rules.window_max_ms:
        raise ScenarioError(
            f"{where}: event window {length} ms long; make it {rules.window_min_ms}–{rules.window_max_ms} ms"
        )
    if not ev.description.strip():
        raise ScenarioError(f"{where}: empty event description; say in plain words what the user does")
    return Dynamic(ev.dynamic)


def _check_clip(s: AvScenario, c: AvClip, during: bool, where: str, rules: AvRules) -> None:
    if c.speaker != "U" or c.speaker not in s.speakers:
        raise ScenarioError(
            f"{where}: speaker {c.speaker!r}; every av clip is the user's: set speaker: U and list U in speakers"
        )
    if c.offset_ms is not None:
        if not during:
            raise ScenarioError(
                f"{where}: offset_ms on a {s.event.dynamic} scenario; only cues during the model's speech "
                f"({', '.join(sorted(DURING_MODEL_SPEECH))}) are timed against it: remove offset_ms"
            )
        if c.id != s.event.clip:
            raise ScenarioError(
                f"{where}: offset_ms on a clip the event is not on; only the cue clip is timed"
            )
        if not rules.offset_min_ms <= c.offset_ms <= rules.offset_max_ms:
            raise ScenarioError(
                f"{where}: offset_ms={c.offset_ms}; use {rules.offset_min_ms}–{rules.offset_max_ms} ms"
            )
    last = -1
    for w in c.words or []:
        if w.start_ms < last or w.end_ms < w.start_ms:
            raise ScenarioError(
                f"{where}: word {w.word!r} at {w.start_ms}–{w.end_ms} ms is out of order; fix 'words'"
            )
        last = w.start_ms


def check_av_files(s: AvScenario, path: Path, root: Path) -> dict[int, int]:
    """Every clip's audio and video (and the idle loop): present, consistent, the window inside its clip.

    One exception: a synthetic smooth_handoff window may run on past its clip's
    end, since the model is meant to take the floor after the user is done.

    Returns each clip's duration in ms (the shorter of its audio and video).
    """
    where = f"{path}: scenario {s.scenario_id}"
    tol_ms = 1000 / s.fps
    durations: dict[int, int] = {}
    for c in s.clips:
        cw = f"{where}: clip {c.id}"
        a = _audio(root, c.audio, cw)
        v = _video(root, c.video, cw, s)
        if abs(a.duration_ms - v.duration_ms) > tol_ms:
            raise ScenarioError(
                f"{cw}: audio {a.duration_ms} ms but video {v.duration_ms} ms ({v.frames} frames); "
                f"they must agree within one frame ({tol_ms:.0f} ms): {FIX_FILES}"
            )
        durations[c.id] = min(a.duration_ms, v.duration_ms)
    if s.idle_video is not None:
        _video(root, s.idle_video, f"{where}: idle_video", s)
    ev = s.event
    if ev.start_ms >= durations[ev.clip]:
        raise ScenarioError(
            f"{where}: event window starts at {ev.start_ms} ms, after clip {ev.clip} ends ({durations[ev.clip]} ms); "
            "move the window inside the clip"
        )
    runs_on = s.source == "synthetic" and ev.category == Category.smooth_handoff.value
    if ev.end_ms > durations[ev.clip] and not runs_on:
        raise ScenarioError(
            f"{where}: event window ends at {ev.end_ms} ms, after clip {ev.clip} ends ({durations[ev.clip]} ms); "
            "move the window inside the clip"
        )
    return durations


def _probed(root: Path, rel: str, where: str, kind: str, probe: Callable[[Path], F]) -> F:
    """`probe` of the `kind` ("audio", "video") file `rel`: inside the suite, present and readable, or one line."""
    p = inside(root, rel, f"{where}: {kind} file", ScenarioError)
    if not p.is_file():
        raise ScenarioError(f"{where}: {kind} file {rel} is missing; {FIX_FILES}")
    try:
        return probe(p)
    except ValueError as e:
        raise ScenarioError(f"{where}: {kind} file {rel}: {e}; {FIX_FILES}") from None


def _audio(root: Path, rel: str, where: str) -> AudioFacts:
    a = _probed(root, rel, where, "audio", probe_audio)
    if a.rate not in SUPPORTED_RATES:
        raise ScenarioError(f"{where}: audio file {rel} is {a.rate} Hz; use 16000, 24000 or 48000 Hz")
    if a.channels != 1:
        raise ScenarioError(f"{where}: audio file {rel} has {a.channels} channels; the user's audio is mono")
    return a


def _video(root: Path, rel: str, where: str, s: AvScenario) -> VideoFacts:
    v = _probed(root, rel, where, "video", probe_video)
    if v.fps != s.fps:
        raise ScenarioError(
            f"{where}: video file {rel} is {float(v.fps):.3f} fps, the scenario says {s.fps}; "
            f"re-encode it at {s.fps} fps or set fps"
        )
    if [v.width, v.height] != list(s.size):
        raise ScenarioError(
            f"{where}: video file {rel} is {v.width}x{v.height}, the scenario says {s.size[0]}x{s.size[1]}; "
            "re-encode it or set size"
        )
    if v.frames == 0:
        raise ScenarioError(f"{where}: video file {rel} has no frames; {FIX_FILES}")
    return v


def load_av_scenario(
    path: Path, data: object, root: Path | None = None, audio: bool = False, strict_vocab: bool = False
) -> ScenarioRecord:
    """Parse and check an av scenario file (and, with `audio`, its clips' audio and video files).

    Returned as the runner's `Scenario` type: the runner uses only what the
    schemas share (scenario_id, pair_id, condition, speakers, turns).
    """
    s = parse_record(AvScenario, path, data)
    check_av_scenario(s, path)
    if audio:
        check_av_files(s, path, root or path.parent)
    return cast(ScenarioRecord, s)


def av_suite_info(suite: LoadedSuite, root: Path, check_audio: bool) -> SuiteInfo:
    """`floorbench suite info` of an av suite: scenarios per dynamic and category, audio and video."""
    from collections import Counter

    from floorbench.scenarios.info import SuiteInfo

    scen = [s for s in suite.scenarios if isinstance(s, AvScenario)]
    lengths = [len(s.clips) for s in scen] or [0]
    info = SuiteInfo(
        name=suite.suite.name,
        root=str(root),
        pairs=len(scen),
        scenarios=len(scen),
        sample_rate=suite.suite.sample_rate,
        generator=suite.suite.generator,
        labels={d.value: sum(1 for s in scen if s.event.dynamic == d.value) for d in Dynamic},
        attributes={
            "category": dict(sorted(Counter(s.event.category for s in scen).items())),
            "source": dict(sorted(Counter(s.source for s in scen).items())),
        },
        tasks={},
        humans={1: len(scen)},
        turns_mean_x100=round(100 * sum(lengths) / len(lengths)),
        turns_min=min(lengths),
        turns_max=max(lengths),
        request_quintiles={},
        differs={},
        rendered=True,
    )
    if check_audio:
        info.measure_audio(suite, scen, preamble=False)
        info.audio_problems += video_manifest_problems(root, scen)
    return info


def video_manifest_problems(root: Path, scenarios: Sequence[AvScenario]) -> list[str]:
    """Each referenced video against video/manifest.json's SHA-256 (as audio/manifest.json does for audio)."""

    from floorbench.suites.av.files import VIDEO_MANIFEST, file_sha256

    path = inside(root, VIDEO_MANIFEST, f"{root}: video manifest", ScenarioError)
    from floorbench.readers import ReadError, load_json

    try:
        data = load_json(path, fix=FIX_FILES) if path.is_file() else None
    except ReadError as e:
        return [str(e)]
    videos = data.get("videos", {}) if isinstance(data, dict) else None
    if not isinstance(videos, dict) or not all(isinstance(e, dict) for e in videos.values()):
        return [f"{path}: unreadable, missing or not a manifest (videos: a mapping of files); {FIX_FILES}"]
    refs = {c.video for s in scenarios for c in s.clips} | {s.idle_video for s in scenarios if s.idle_video}
    out = []
    for rel in sorted(refs):
        entry = videos.get(rel)
        p = inside(root, rel, f"{root}: video", ScenarioError)  # as the audio: a link out of the suite is refused
        if entry is None:
            out.append(f"{p}: not in {VIDEO_MANIFEST}; {FIX_FILES}")
        elif not p.is_file() or file_sha256(p) != entry.get("sha256"):
            out.append(f"{p}: missing or its SHA-256 differs from {VIDEO_MANIFEST}; {FIX_FILES}")
    return out
