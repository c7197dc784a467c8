"""Import recorded audio-visual clips, one JSON file each, into an av suite folder.

`floorbench suite import-av SRC --out DIR` reads SRC (one clip JSON, or a
folder of them) and writes a suite like the generator's (suite.yaml,
scenarios/, audio/, video/, both manifests), validated by the suite's rules.

A clip JSON (paths relative to the JSON file; times in integer ms on the clip):

    {
      "scenario_id": "vfdb-0001",             optional; default: the JSON file's name
      "video": "clip.mp4",                    any container/codec PyAV reads
      "audio": "clip.wav",                    optional; default: the video's own audio stream
      "dynamic": "raised_hand",               one of the eleven (floorbench.suites.av.rules.Dynamic)
      "category": "must_yield",               optional; must match the dynamic if given
      "window": {"start_ms": 1200, "end_ms": 3400},
      "system_prompt": "...",                 optional; default: the synthetic suite's prompt
      "description": "...",                   optional; default: the dynamic's plain description
      "transcript": "...",                    optional: what the user says in the clip
      "words": [{"word": "so", "start_ms": 0, "end_ms": 180}],   optional
      "reply": "...",                         smooth_handoff: what the oracle says (a default is used)
      "offset_ms": 1500,                      cues during the model's speech (keep_talking,
      "request": {"text": "...",              must_yield): the clip starts this long after the
                  "audio": "req.wav",         model's onset in reply to `request` (its audio
                  "reply": "..."}             optional: rendered with --voice), `reply` ≥ 6 s spoken
    }

What the importer does to the media, so the suite's rules hold: audio is
mixed to mono and resampled to 16 kHz FLAC; the video is decoded and
re-encoded like the generator's (MP4, MPEG-4 Part 2, yuv420p) at a whole frame
rate (`--fps`, default the source's rounded), each output frame being the
source frame showing at that time, so variable or 29.97 fps sources come out
at a constant rate; `--height` scales it (width kept even). Audio that differs
from the video's length by up to 250 ms is padded or cut to it (and `meta`
says so); more is an error. A request clip, and the idle loop, show the clip's
first frame held still.

Errors are one line naming the JSON file and the fix: a missing video or audio
stream, a window outside the clip, an unknown dynamic, a category that does
not match.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.paths import check_out, inside, prepare_out
from floorbench.scenarios.schema import check_id
from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.av.draw import CODEC, encode_video
from floorbench.suites.av.files import RATE, AvSuiteWriter
from floorbench.suites.av.generate import DESCRIPTIONS, SYSTEM_PROMPT
from floorbench.suites.av.rules import DURING_MODEL_SPEECH, AvRules, Category, Dynamic, category_of
from floorbench.suites.av.schema import AvClip, AvEvent, AvScenario, AvWord, user_speakers
from floorbench.suites.av.validate import check_av_files, check_av_scenario

RECORDED_VOICE = "import:recorded"
LENGTH_SLACK_MS = 250
"""audio this much longer or shorter than the video is cut or padded to it; more is an error"""
IDLE_MS = 1000
SUITE_FOLDERS = ("scenarios", "audio", "video")
"""the folders of --out an import replaces"""
DEFAULT_HANDOFF_REPLY = "Sure, let me answer that."
FIELD_TYPES: dict[str, tuple[type, str]] = {
    "scenario_id": (str, "text"),
    "video": (str, "a file path"),
    "audio": (str, "a file path"),
    "dynamic": (str, "text"),
    "category": (str, "text"),
    "window": (dict, 'an object {"start_ms": …, "end_ms": …}'),
    "system_prompt": (str, "text"),
    "description": (str, "text"),
    "transcript": (str, "text"),
    "words": (list, 'a list of {"word", "start_ms", "end_ms"}'),
    "reply": (str, "text"),
    "offset_ms": (int, "a whole number of ms"),
    "request": (dict, 'an object {"text", "reply", "audio"?}'),
}
"""every field a clip JSON may carry and the JSON type it must have (checked before anything else)"""
KEYS = set(FIELD_TYPES)


@dataclass(frozen=True)
class ImportOptions:
    fps: int | None = None
    """output frame rate (default: the source's, rounded)"""
    height: int | None = None
    """scale the video to this height (default: keep the source's size)"""
    voice: str = "flite:slt"
    """voice for a request given as text only"""


@dataclass
class Media:
    frames: list[np.ndarray]
    fps: int
    pcm: np.ndarray
    note: str = ""


def _read_json(path: Path) -> dict[str, Any]:
    from floorbench.readers import load_json

    data = load_json(path, ScenarioError, "fix the file")
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a JSON object with the clip's fields (docs/suites/av.md)")
    extra = sorted(set(data) - KEYS)
    if extra:
        raise ScenarioError(
            f"{path}: unknown field(s) {', '.join(extra)}; remove or rename them (docs/suites/av.md)"
        )
    for key in ("video", "dynamic", "window"):
        if key not in data:
            raise ScenarioError(f"{path}: missing field '{key}'; add it (docs/suites/av.md)")
    for key, value in data.items():
        kind, what = FIELD_TYPES[key]
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise ScenarioError(f"{path}: '{key}' must be {what}, got {value!r}; fix the JSON (docs/suites/av.md)")
    return data


def _media_path(path: Path, data: dict[str, Any], key: str) -> Path:
    """A media file named in a clip JSON: relative to the JSON's folder and inside it (floorbench.paths)."""
    value = data[key]
    if not isinstance(value, str) or not value:
        raise ScenarioError(f"{path}: '{key}' must be a file path relative to the JSON file")
    p = inside(path.parent, value, f"{path}: {key} file", ScenarioError)
    if not p.is_file():
        raise ScenarioError(f"{path}: {key} file {value} not found next to the JSON; fix the path")
    return p


def _int(path: Path, obj: dict[str, Any], key: str, where: str) -> int:
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ScenarioError(f"{path}: {where}{key} must be an integer number of ms; got {v!r}")
    return v


@contextmanager
def _decoding(path: Path, src: Path, what: str) -> Iterator[None]:
    """Decode `src` inside: an error PyAV raises on it is one line, naming `what` it could not read."""
    import av.error

    try:
        yield
    except av.error.FFmpegError as e:
        raise ScenarioError(f"{path}: {src.name}: PyAV cannot read {what} ({type(e).__name__}); convert it") from None


def read_video(path: Path, video: Path, fps: int | None, height: int | None) -> tuple[list[np.ndarray], int]:
    """Every frame as RGB, resampled to a whole frame rate by the source frame showing at each time."""
    import av

    with _decoding(path, video, "it"), av.open(str(video)) as c:
        if not c.streams.video:
            raise ScenarioError(f"{path}: {video.name} has no video stream; give a file with video")
        vs = c.streams.video[0]
        rate = vs.average_rate or vs.guessed_rate
        src_fps = float(rate) if rate else 0.0
        out_fps = fps or round(src_fps)
        if not AvRules().fps_min <= out_fps <= AvRules().fps_max:
            raise ScenarioError(
                f"{path}: {video.name} is {src_fps:.3f} fps; pass --fps "
                f"{AvRules().fps_min}–{AvRules().fps_max}"
            )
        timed: list[tuple[float, np.ndarray]] = []
        for i, frame in enumerate(c.decode(vs)):
            t = float(frame.time) if frame.time is not None else i / src_fps
            w, h = frame.width, frame.height
            if height:
                w, h = round(w * height / h), height
            timed.append((t, frame.to_ndarray(format="rgb24", width=w - w % 2, height=h - h % 2)))
    if not timed:
        raise ScenarioError(f"{path}: {video.name} has a video stream but no frames; give a real clip")
    t0 = timed[0][0]
    span = timed[-1][0] - t0 + (1 / src_fps if src_fps else 0)
    n = max(1, round(span * out_fps))
    out, k = [], 0
    for j in range(n):
        while k + 1 < len(timed) and timed[k + 1][0] - t0 <= j / out_fps + 1e-6:
            k += 1
        out.append(timed[k][1])
    return out, out_fps


def read_audio(path: Path, src: Path) -> np.ndarray:
    """Mono int16 at 16 kHz from an audio file or a video's audio stream (PyAV decodes both)."""
    import av
    import soxr

    with _decoding(path, src, "its audio"), av.open(str(src)) as c:
        if not c.streams.audio:
            raise ScenarioError(
                f'{path}: {src.name} has no audio stream; add "audio": a WAV/FLAC of the user\'s sound'
            )
        chunks, sr = [], 0
        for frame in c.decode(audio=0):
            x = frame.to_ndarray().astype(np.float32)
            if frame.format.is_planar:
                x = x.mean(axis=0)
            else:
                x = x.reshape(-1, len(frame.layout.channels)).mean(axis=1)
            if frame.format.name.startswith("s16"):
                x /= 32768.0
            elif frame.format.name.startswith("s32"):
                x /= 2**31
            chunks.append(x)
            sr = frame.sample_rate
    if not chunks:
        raise ScenarioError(f"{path}: {src.name} has an audio stream but no samples; give a real recording")
    mono = np.concatenate(chunks)
    if sr != RATE:
        mono = soxr.resample(mono, sr, RATE)
    return (np.clip(mono, -1, 1) * 32767).astype(np.int16)


def _fit_audio(path: Path, pcm: np.ndarray, frames: int, fps: int) -> tuple[np.ndarray, str]:
    want = frames * RATE // fps
    diff_ms = (len(pcm) - want) * 1000 // RATE
    if abs(diff_ms) > LENGTH_SLACK_MS:
        raise ScenarioError(
            f"{path}: audio is {len(pcm) * 1000 // RATE} ms but the video {frames * 1000 // fps} ms; "
            f"they must be one recording (within {LENGTH_SLACK_MS} ms)"
        )
    note = f"audio {'cut' if diff_ms > 0 else 'padded'} by {abs(diff_ms)} ms to the video" if diff_ms else ""
    fitted = np.concatenate([pcm, np.zeros(max(0, want - len(pcm)), dtype=np.int16)])[:want]
    return fitted, note


def _event_fields(path: Path, data: dict[str, Any]) -> tuple[Dynamic, int, int]:
    """The dynamic (checked, with its category) and the window's start and end."""
    dyn = data["dynamic"]
    try:
        cat = category_of(str(dyn))
    except ValueError as e:
        raise ScenarioError(f"{path}: {e}; fix 'dynamic'") from None
    if "category" in data and data["category"] != cat.value:
        raise ScenarioError(
            f"{path}: category {data['category']!r}, but dynamic {dyn} is {cat.value}; set category: {cat.value}"
        )
    win = data["window"]
    if not isinstance(win, dict):
        raise ScenarioError(f'{path}: window must be {{"start_ms": …, "end_ms": …}}')
    return Dynamic(str(dyn)), _int(path, win, "start_ms", "window."), _int(path, win, "end_ms", "window.")


def _request_clip(path: Path, data: dict[str, Any], opts: ImportOptions) -> tuple[str, np.ndarray, str]:
    """(text, audio, reply) of the request that makes the model talk before a during-speech cue."""
    req = data.get("request")
    if (
        not isinstance(req, dict)
        or not isinstance(req.get("text"), str)
        or not isinstance(req.get("reply"), str)
    ):
        raise ScenarioError(
            f'{path}: a {data["dynamic"]} cue comes while the model talks; add "request": '
            '{"text": …, "reply": …} (and "offset_ms")'
        )
    if "audio" in req:
        pcm = read_audio(path, _media_path(path, req, "audio"))
    else:
        from floorbench.speech import tts

        try:
            pcm = tts.synthesize(req["text"], opts.voice, RATE)
        except tts.TTSError as e:
            raise ScenarioError(f"{path}: request: {e}") from None
    return req["text"], pcm, req["reply"]


def check_media_paths(path: Path) -> None:
    """Every media path a clip JSON names stays inside the JSON's folder; checked before anything is written."""
    data = _read_json(path)
    for key in ("video", "audio"):
        if isinstance(data.get(key), str):
            _media_path(path, data, key)
    req = data.get("request")
    if isinstance(req, dict) and isinstance(req.get("audio"), str):
        _media_path(path, req, "audio")


def import_clip(path: Path, w: AvSuiteWriter, opts: ImportOptions = ImportOptions()) -> AvScenario:
    """One clip JSON into the suite `w` writes: media converted, scenario checked and written."""
    from pydantic import ValidationError

    try:
        return _import_clip(Path(path), w, opts)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ScenarioError(
            f"{path}: field {where}: {first['msg']}; fix the JSON (docs/suites/av.md)"
        ) from None


def _import_clip(path: Path, w: AvSuiteWriter, opts: ImportOptions) -> AvScenario:
    data = _read_json(path)
    try:
        sid = check_id(str(data.get("scenario_id") or path.stem))
    except ValueError as e:
        raise ScenarioError(f"{path}: scenario_id {e}") from None
    dynamic, start_ms, end_ms = _event_fields(path, data)
    video = _media_path(path, data, "video")
    frames, fps = read_video(path, video, opts.fps, opts.height)
    pcm = read_audio(path, _media_path(path, data, "audio") if "audio" in data else video)
    pcm, note = _fit_audio(path, pcm, len(frames), fps)
    clip_ms = len(frames) * 1000 // fps
    if start_ms < 0 or end_ms > clip_ms or start_ms >= end_ms:
        raise ScenarioError(
            f"{path}: window {start_ms}–{end_ms} ms is outside the clip (0–{clip_ms} ms); fix 'window'"
        )
    size = (frames[0].shape[1], frames[0].shape[0])
    clips: list[AvClip] = []
    still = frames[0]
    if dynamic in DURING_MODEL_SPEECH:
        text, req_pcm, reply = _request_clip(path, data, opts)
        n = -(-len(req_pcm) * fps // RATE)
        req_pcm = np.concatenate([req_pcm, np.zeros(n * RATE // fps, dtype=np.int16)])[: n * RATE // fps]
        clips.append(_write_clip(w, sid, 1, [still] * n, fps, size, req_pcm, text, reply=reply))
    cat = category_of(dynamic.value)
    reply = data.get("reply") or (DEFAULT_HANDOFF_REPLY if cat is Category.smooth_handoff else None)
    words = [AvWord.model_validate(x) for x in data.get("words") or []] or None
    clips.append(
        _write_clip(
            w,
            sid,
            len(clips) + 1,
            frames,
            fps,
            size,
            pcm,
            str(data.get("transcript") or ""),
            reply=reply,
            offset_ms=data.get("offset_ms"),
            words=words,
        )
    )
    idle = f"video/{sid}-idle.mp4"
    w.add_video(
        idle, fps, size, encode_video(w.root / idle, [still] * (IDLE_MS * fps // 1000), fps, size), CODEC
    )
    s = AvScenario(
        scenario_id=sid,
        source="import",
        system_prompt=str(data.get("system_prompt") or SYSTEM_PROMPT),
        fps=fps,
        size=list(size),
        idle_video=idle,
        speakers=user_speakers(RECORDED_VOICE),
        clips=clips,
        event=AvEvent.on_last(
            clips, dynamic, (start_ms, end_ms), str(data.get("description") or DESCRIPTIONS[dynamic])
        ),
        meta={"importer": "av-json", "source_video": video.name, **({"note": note} if note else {})},
    )
    check_av_scenario(s, path)
    check_av_files(s, path, w.root)
    w.write_scenario(s)
    return s


def _write_clip(
    w: AvSuiteWriter,
    sid: str,
    cid: int,
    frames: list[np.ndarray],
    fps: int,
    size: tuple[int, int],
    pcm: np.ndarray,
    text: str,
    **fields: Any,
) -> AvClip:
    audio = w.add_audio(pcm, text, RECORDED_VOICE, "import")
    rel = f"video/{sid}-c{cid}.mp4"
    w.add_video(rel, fps, size, encode_video(w.root / rel, frames, fps, size), CODEC)
    return AvClip(id=cid, text=text, audio=audio, video=rel, **fields)


def import_av(
    src: Path, out: Path, opts: ImportOptions = ImportOptions(), name: str | None = None, force: bool = False
) -> list[AvScenario]:
    """Every clip JSON of `src` (a file, or a folder's *.json) into the suite folder `out`."""
    src, out = Path(src), Path(out)
    # a folder's clip files stay in it (a link to a JSON elsewhere is refused, like every path under a root)
    files = sorted(inside(src, p.name, f"{src}: clip file", ScenarioError) for p in src.glob("*.json")) if src.is_dir() else [src]
    if not files:
        raise ScenarioError(f"{src}: no *.json clip files in the folder (docs/suites/av.md)")
    for f in files:
        check_media_paths(f)
    check_out(out, SUITE_FOLDERS, force, ScenarioError)  # a refused --out costs no work
    # every clip is converted and checked in a staging folder beside --out, which takes the suite only
    # once all of them are: a bad clip (the tenth as much as the first) leaves --out as it was
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.importing-", dir=out.parent))
    try:
        w = AvSuiteWriter.emptied(staging, True)
        done: list[AvScenario] = []
        for f in files:
            s = import_clip(f, w, opts)
            if any(d.scenario_id == s.scenario_id for d in done):
                raise ScenarioError(f"{f}: scenario_id {s.scenario_id} is used twice; give each clip its own")
            done.append(s)
        w.finish(
            name=name or out.name, description=f"Imported av clips: {len(done)} from {src.name}.", generator=None
        )
        for d in prepare_out(out, SUITE_FOLDERS, force, ScenarioError):
            for p in sorted((staging / d.name).iterdir()):
                p.replace(d / p.name)
        (staging / "suite.yaml").replace(out / "suite.yaml")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return done
