"""Suite summary and audio integrity check (`floorbench suite info DIR`).

Counts by label, attribute and task family; hours of audio; mean dialogue
length; request positions; which turns differ within pairs; and a check of
every audio file against the SHA-256 recorded in `audio/manifest.json`.
All durations are integer milliseconds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from floorbench.plugins import suite_of
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.render import MANIFEST, file_sha256
from floorbench.scenarios.validate import SUPPORTED_RATES, LoadedSuite, load_suite


@dataclass
class SuiteInfo:
    name: str
    root: str
    pairs: int
    scenarios: int
    sample_rate: int
    generator: dict | None
    labels: dict[str, int]
    attributes: dict[str, dict[str, int]]
    tasks: dict[str, int]
    humans: dict[int, int]
    turns_mean_x100: int
    """mean turns per scenario, times 100 (integers only in records)"""
    turns_min: int
    turns_max: int
    request_quintiles: dict[int, int]
    differs: dict[str, int]
    """'request only' / 'request and the turn before' -> number of pairs"""
    rendered: bool
    audio_unique_ms: int = 0
    """sum of the distinct audio files"""
    audio_playback_ms: int = 0
    """what a full run plays: preamble + every turn of every scenario"""
    dialogue_mean_ms: int = 0
    """mean spoken length of a scenario's turns (no gaps, no preamble)"""
    audio_problems: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(self.__dict__, indent=1, ensure_ascii=False, default=str)

    def measure_audio(self, suite: LoadedSuite, scenarios: Sequence[ScenarioRecord], preamble: bool) -> None:
        """The audio figures and problems from the suite's files (each against its manifest hash); with
        `preamble`, a run plays the suite's preamble before every scenario."""
        problems: list[str] = []
        dur = clip_durations_ms(suite, problems)
        self.audio_problems = problems
        self.audio_unique_ms = sum(dur.values())
        pre = dur.get(suite.suite.preamble.audio or "", 0) if preamble else 0
        per_scen = [sum(dur.get(t.audio or "", 0) for t in s.turns) for s in scenarios]
        self.audio_playback_ms = sum(per_scen) + pre * len(scenarios)
        self.dialogue_mean_ms = sum(per_scen) // max(1, len(per_scen))


def clip_durations_ms(suite: LoadedSuite, problems: list[str]) -> dict[str, int]:
    """Duration in ms of every referenced audio file; checks each against the manifest hash."""
    import soundfile as sf

    manifest_path = suite.audio_path(MANIFEST)  # a link that leads out of the suite is refused, as `run` does
    clips: dict[str, dict] = {}
    if manifest_path.is_file():
        from floorbench.readers import ReadError, load_json

        try:
            data = load_json(manifest_path, fix="re-run `floorbench render`")
            found = data.get("clips", {}) if isinstance(data, dict) else None
            if not isinstance(found, dict) or not all(isinstance(e, dict) for e in found.values()):
                raise ReadError(f"{manifest_path}: not a manifest (clips: a mapping of files); re-run `floorbench render`")
            clips = found
        except ReadError as e:
            problems.append(str(e))
    else:
        problems.append(f"{manifest_path}: missing; run `floorbench render` on the suite")
    refs = {suite.suite.preamble.audio} | {t.audio for s in suite.scenarios for t in s.turns}
    refs.discard(None)
    out: dict[str, int] = {}
    for rel in sorted(r for r in refs if r):
        p = suite.audio_path(rel)
        if not p.is_file():
            problems.append(f"{p}: missing; run `floorbench render` on the suite")
            continue
        entry = clips.get(rel)
        if entry is None:
            problems.append(f"{p}: not in {MANIFEST}; re-run `floorbench render`")
        elif file_sha256(p) != entry.get("sha256"):
            problems.append(f"{p}: SHA-256 differs from {MANIFEST}; the file changed, re-run `floorbench render`")
        try:
            info = sf.info(str(p))
        except Exception as e:  # libsndfile raises several types on broken files
            problems.append(f"{p}: unreadable ({e}); re-run `floorbench render`")
            continue
        if info.samplerate not in SUPPORTED_RATES:
            problems.append(f"{p}: {info.samplerate} Hz; render at 16000, 24000 or 48000 Hz")
        out[rel] = info.frames * 1000 // info.samplerate
    return out


def suite_info(root: Path | str, check_audio: bool = True) -> SuiteInfo:
    """Summarise a suite; raises ScenarioError (one line) if it does not validate."""
    root = Path(root)
    suite = load_suite(root, audio=False)
    return suite_of(suite.suite).part("suite_info")(suite, root, check_audio)


def hours(ms: int) -> str:
    return f"{ms / 3_600_000:.2f} h"
