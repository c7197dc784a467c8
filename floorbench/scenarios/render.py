"""Render a suite's turns and duty preamble to audio (`floorbench render DIR`).

Audio is content-addressed: each clip is `audio/<key>.flac`, where `key` is a
hash of (text, voice, backend version, sample rate, post-processing). So

- the folder is its own cache: turns shared by the explicit and implicit
  scenario of a pair are rendered once, and a second render does nothing;
- a render is resumable: clips are written atomically, an interrupted run
  keeps what it finished and the next run renders only what is missing;
- changing a text, a voice or the rate changes the key, never reuses stale audio.

A turn whose record says ``recorded: true`` (a suite's recorded clip, copied
into the suite folder with its audio set) is neither synthesized nor
rewritten; the runner resamples it to the suite's rate when it plays it.

`audio/manifest.json` lists every clip with its key facts and the SHA-256 of
the file, which `floorbench suite info` checks. Voices come from each
scenario's fixed speaker→voice map (`speakers: {A: {voice: ...}}`) and from
`preamble.voice`; `voice_map` swaps voice ids suite-wide (e.g. a local voice
for a pipecat cloud voice). Work runs in a process pool, one process per core.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel

from floorbench.paths import inside, remove_stale
from floorbench.plugins import suite_of
from floorbench.scenarios.files import write_scenario, write_suite, write_text_atomic
from floorbench.scenarios.validate import LoadedSuite, ScenarioError, load_suite
from floorbench.speech import tts

RENDER_VERSION = 1
"""Bump when post-processing changes so that cached clips are re-rendered."""
AUDIO_DIR = "audio"
MANIFEST = "audio/manifest.json"
_KEY_RE = re.compile(r"^[0-9a-f]{20}\.flac$")
RenderResult = tuple[str, int, int, str | None]
"""(output path, frames, cpu_ms, error) of one clip, as `_render_clip` returns it"""


@dataclass(frozen=True)
class Clip:
    """One piece of audio to render."""

    text: str
    voice: str
    rate: int
    backend: str
    key: str

    @property
    def rel(self) -> str:
        return f"{AUDIO_DIR}/{self.key}.flac"


@dataclass
class RenderStats:
    """What a render did; times in integer ms."""

    clips: int = 0
    """distinct clips the suite needs (shared turns count once)"""
    rendered: int = 0
    cached: int = 0
    """clips already on disk at the right rate, not rendered again"""
    failed: list[str] = field(default_factory=list)
    """one line per clip that could not be synthesized"""
    audio_ms_rendered: int = 0
    audio_ms_total: int = 0
    """audio of every clip, rendered or cached (set only when none failed)"""
    cpu_ms: int = 0
    """CPU time of the synthesis, TTS engine processes included"""
    wall_ms: int = 0

    @property
    def audio_hours_per_cpu_minute(self) -> float:
        if self.cpu_ms <= 0:
            return 0.0
        return (self.audio_ms_rendered / 3_600_000) / (self.cpu_ms / 60_000)


def clip_key(text: str, voice: str, rate: int, backend: str) -> str:
    blob = json.dumps(
        {
            "v": RENDER_VERSION,
            "text": text,
            "voice": voice,
            "backend": backend,
            "rate": rate,
            "pad_ms": tts.PAD_MS,
            "target_dbfs": tts.TARGET_RMS_DBFS,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


def make_clip(text: str, voice: str, rate: int, backends: dict[str, str]) -> Clip:
    if voice not in backends:
        backends[voice] = tts.backend_version(voice)
    return Clip(text=text, voice=voice, rate=rate, backend=backends[voice], key=clip_key(tts.spoken_text(text, voice), voice, rate, backends[voice]))


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _clip_ok(path: Path, rate: int) -> int | None:
    """Frames of an existing, readable clip at `rate`, or None."""
    import soundfile as sf

    if not path.is_file():
        return None
    try:
        info = sf.info(str(path))
    except Exception:
        return None
    if info.samplerate != rate or info.frames == 0:
        return None
    return int(info.frames)


def _render_clip(text: str, voice: str, rate: int, out: str) -> RenderResult:
    """Worker: synthesize one clip and write it atomically. Returns (out, frames, cpu_ms, error)."""
    import soundfile as sf

    from floorbench.speech.tts_festival import sessions_cpu_s

    t0 = os.times()
    f0 = sessions_cpu_s()
    try:
        audio = tts.synthesize(text, voice, rate)
    except tts.TTSError as e:
        return out, 0, 0, str(e)
    # a long-lived festival process is not a reaped child: count its CPU directly
    fest = sum(v - f0.get(pid, 0.0) for pid, v in sessions_cpu_s().items())
    path = Path(out)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.flac")
    sf.write(str(tmp), audio, rate, format="FLAC", subtype="PCM_16")
    os.replace(tmp, path)
    t1 = os.times()
    cpu = (t1.user - t0.user) + (t1.system - t0.system) + (t1.children_user - t0.children_user)
    cpu += t1.children_system - t0.children_system + fest
    return out, int(audio.size), int(cpu * 1000), None


def _worker_init() -> None:
    # One process per core: keep each engine to one thread so they do not fight.
    os.environ["FLOORBENCH_TTS_THREADS"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"


def plan(suite: LoadedSuite, rate: int, voice_map: dict[str, str] | None = None) -> tuple[list[Clip], dict]:
    """Every clip the suite needs, and where each goes (`("preamble",)` or `(scenario_id, turn_id)`)."""
    voice_map = voice_map or {}
    backends: dict[str, str] = {}
    pre = suite.suite.preamble
    pre_voice = voice_map.get(pre.voice, pre.voice)
    clips: dict[str, Clip] = {}
    where: dict[tuple, str] = {}
    if pre.text.strip():  # a suite with no preamble text has none to render
        c = make_clip(pre.text, pre_voice, rate, backends)
        clips[c.key] = c
        where[("preamble",)] = c.key
    for s in suite.scenarios:
        for t in s.turns:
            if getattr(t, "recorded", False):  # a recorded clip the suite copied in: its audio is kept as it is
                continue
            v = s.speakers[t.speaker].voice
            v = voice_map.get(v, v)
            c = make_clip(t.text, v, rate, backends)
            clips.setdefault(c.key, c)
            where[(s.scenario_id, t.id)] = c.key
    return list(clips.values()), where


def render_suite(
    root: Path | str,
    rate: int = 16000,
    jobs: int | None = None,
    voice_map: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    prune: bool = True,
) -> RenderStats:
    """Render every missing clip of the suite at `root`, then point the files at them.

    Raises ScenarioError if the suite is invalid (before any audio is made).
    Clips that fail are listed in `stats.failed`; the files are only updated
    when every clip exists, so a failed render can simply be run again.
    """
    root = Path(root)
    if rate not in tts.SUPPORTED_RATES:
        raise ScenarioError(f"{root}: rate {rate} Hz; use 16000, 24000 or 48000")
    suite = load_suite(root, audio=False)
    plugin = suite_of(suite.suite)
    if plugin.rendered_by_generator:  # its audio is made with the rest (suite av: with its video, in step)
        raise ScenarioError(f"{root}: a {plugin.name} suite comes with its audio already made; do not render it")
    voice_map = voice_map or {}
    for v in voice_map.values():
        tts.parse_voice(v)
    clips, where = plan(suite, rate, voice_map)
    # every file render reads, writes or deletes stays in the suite folder (a linked audio/ or clip that
    # leads elsewhere is refused before anything is written)
    audio_dir = inside(root, AUDIO_DIR, f"{root}: {AUDIO_DIR}/", ScenarioError)
    inside(root, MANIFEST, f"{root}: audio manifest", ScenarioError)
    paths = {c.key: inside(root, c.rel, f"{root}: clip", ScenarioError) for c in clips}
    audio_dir.mkdir(parents=True, exist_ok=True)
    stats = RenderStats(clips=len(clips))
    frames: dict[str, int] = {}
    todo: list[Clip] = []
    for c in clips:
        n = _clip_ok(paths[c.key], rate)
        if n is None:
            todo.append(c)
        else:
            frames[c.key] = n
            stats.cached += 1
    t_start = time.monotonic()
    done = stats.cached
    if progress:
        progress(done, len(clips))
    jobs = max(1, jobs or os.cpu_count() or 1)
    by_out = {str(root / c.rel): c for c in todo}

    def _take(result: RenderResult) -> None:
        nonlocal done
        out, n, cpu_ms, err = result
        c = by_out[out]
        done += 1
        if err:
            stats.failed.append(err)
        else:
            frames[c.key] = n
            stats.rendered += 1
            stats.cpu_ms += cpu_ms
            stats.audio_ms_rendered += n * 1000 // rate
        if progress:
            progress(done, len(clips))

    _render_all(todo, root, jobs, _take)
    stats.wall_ms = int((time.monotonic() - t_start) * 1000)
    if stats.failed:
        return stats
    _write_back(suite, clips, where, frames, rate, voice_map)
    if prune:
        _prune(root, clips)
    stats.audio_ms_total = sum(frames[c.key] * 1000 // rate for c in clips)
    return stats


def _render_all(todo: list[Clip], root: Path, jobs: int, take: Callable[[RenderResult], None]) -> None:
    """Render `todo` in this process (one job) or a pool of `jobs` processes, handing each result to `take`."""
    if jobs == 1 or len(todo) <= 1:
        for c in todo:
            take(_render_clip(c.text, c.voice, c.rate, str(root / c.rel)))
        return
    # Order by voice so each worker mostly reuses one loaded engine.
    todo.sort(key=lambda c: (c.voice, c.key))
    with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init) as pool:
        pending: set[Future] = set()
        for c in todo:
            pending.add(pool.submit(_render_clip, c.text, c.voice, c.rate, str(root / c.rel)))
            if len(pending) >= jobs * 4:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    take(f.result())
        for f in pending:
            take(f.result())


def _prune(root: Path, clips: list[Clip]) -> None:
    """Delete clip files the suite no longer uses (only files named like clips; `floorbench.paths.remove_stale`)."""
    keep = {f"{c.key}.flac" for c in clips}
    remove_stale(root, AUDIO_DIR, lambda name: _KEY_RE.match(name) is not None and name not in keep, ScenarioError)


def _write_back(
    suite: LoadedSuite,
    clips: list[Clip],
    where: dict[tuple, str],
    frames: dict[str, int],
    rate: int,
    voice_map: dict[str, str],
) -> None:
    root = suite.root
    by_key = {c.key: c for c in clips}
    s_suite = suite.suite.model_copy(deep=True)
    s_suite.sample_rate = rate
    s_suite.preamble.voice = voice_map.get(s_suite.preamble.voice, s_suite.preamble.voice)
    if ("preamble",) in where:
        s_suite.preamble.audio = by_key[where[("preamble",)]].rel
    for s in suite.scenarios:
        # every suite's record is a pydantic model: a copy with the voices and audio paths set
        new: Any = cast(BaseModel, s).model_copy(deep=True)
        for sp in new.speakers.values():
            sp.voice = voice_map.get(sp.voice, sp.voice)
        for t in new.turns:
            if (s.scenario_id, t.id) in where:
                t.audio = by_key[where[(s.scenario_id, t.id)]].rel
        if new != s:
            write_scenario(suite.files[s.scenario_id], new)
    write_suite(root, s_suite)
    manifest = {
        "render_version": RENDER_VERSION,
        "sample_rate": rate,
        "format": "FLAC PCM_16 mono",
        "clips": {
            c.rel: {
                "sha256": file_sha256(root / c.rel),
                "text": c.text,
                "voice": c.voice,
                "backend": c.backend,
                "rate": c.rate,
                "samples": frames[c.key],
                "duration_ms": frames[c.key] * 1000 // rate,
            }
            for c in sorted(clips, key=lambda c: c.rel)
        },
    }
    write_text_atomic(root / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")


def read_voice_map(path: Path) -> dict[str, str]:
    """A YAML mapping `old voice id: new voice id`; one-line ScenarioError if malformed."""
    from floorbench.scenarios.validate import read_yaml

    data = read_yaml(path)
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ScenarioError(f"{path}: expected a mapping 'old voice id: new voice id'; fix the file")
    for k, v in data.items():
        try:
            tts.parse_voice(v)
        except tts.TTSError as e:
            raise ScenarioError(f"{path}: {k}: {e}") from None
    return dict(data)
