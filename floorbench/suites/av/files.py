"""Writing an av suite folder: scenario YAML, FLAC audio, videos, and both manifests with hashes.

The generator (`av_generate`) and the importer (`av_import`) write through
here, so both give the same layout:

    suite.yaml                 suite: av; preamble = 100 ms of silence (the suite plays none)
    scenarios/<id>.yaml        one AvScenario each
    audio/<name>.flac          mono PCM_16, 16 kHz; audio/manifest.json (SHA-256, samples, like render's)
    video/<name>.mp4           the clips and the idle loop; video/manifest.json (SHA-256, fps, size, frames)

The suite comes "rendered": never run `floorbench render` on it (its clips'
audio must stay in step with their video).
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.paths import prepare_out
from floorbench.scenarios.files import dump_yaml, write_suite, write_text_atomic
from floorbench.scenarios.render import MANIFEST as AUDIO_MANIFEST
from floorbench.scenarios.render import file_sha256
from floorbench.scenarios.schema import Preamble, Suite
from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.av.schema import AvScenario

__all__ = ["AUDIO_MANIFEST", "VIDEO_MANIFEST", "AvSuiteWriter", "dump_av_scenario", "file_sha256"]

VIDEO_MANIFEST = "video/manifest.json"
RATE = 16000
PREAMBLE_VOICE = "recorded"


def dump_av_scenario(s: AvScenario) -> str:
    """Canonical YAML: unset optional fields left out, so hand-written and generated files look alike."""
    d = s.model_dump(mode="json")
    d["clips"] = [{k: v for k, v in c.items() if v is not None} for c in d["clips"]]
    if d.get("idle_video") is None:
        d.pop("idle_video", None)
    if not d.get("meta"):
        d.pop("meta", None)
    return dump_yaml(d)


def flac_bytes(pcm: np.ndarray, rate: int = RATE) -> bytes:
    """Mono int16 samples as FLAC PCM_16 bytes (byte-stable for the same samples)."""
    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, pcm.astype(np.int16), rate, format="FLAC", subtype="PCM_16")
    return buf.getvalue()


class AvSuiteWriter:
    """Collects a suite's files under `root` and writes the manifests at the end (`finish`)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.audio: dict[str, dict[str, Any]] = {}
        self.video: dict[str, dict[str, Any]] = {}

    @classmethod
    def emptied(cls, root: Path, force: bool) -> AvSuiteWriter:
        """A writer of a new suite in `root`: its scenarios, audio and video folders must be empty,
        or are emptied with `force` (a one-line ScenarioError otherwise; never through a link:
        `floorbench.paths.prepare_out`)."""
        prepare_out(Path(root), ("scenarios", "audio", "video"), force, ScenarioError)
        return cls(Path(root))

    def add_audio(self, pcm: np.ndarray, text: str, voice: str, backend: str, rate: int = RATE) -> str:
        """Write `pcm` as audio/<hash>.flac (content-addressed: equal clips share one file); its path."""
        data = flac_bytes(pcm, rate)
        rel = f"audio/{hashlib.sha256(data).hexdigest()[:20]}.flac"
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
        self.audio[rel] = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "text": text,
            "voice": voice,
            "backend": backend,
            "rate": rate,
            "samples": len(pcm),
            "duration_ms": len(pcm) * 1000 // rate,
        }
        return rel

    def add_video(self, rel: str, fps: int, size: tuple[int, int], frames: int, codec: str) -> str:
        """Record a video already written at `rel` in the video manifest."""
        self.video[rel] = {
            "sha256": file_sha256(self.root / rel),
            "fps": fps,
            "width": size[0],
            "height": size[1],
            "frames": frames,
            "duration_ms": frames * 1000 // fps,
            "codec": codec,
        }
        return rel

    def write_scenario(self, s: AvScenario) -> Path:
        path = self.root / "scenarios" / f"{s.scenario_id}.yaml"
        write_text_atomic(path, dump_av_scenario(s))
        return path

    def finish(self, name: str, description: str, generator: dict[str, str | int] | None) -> None:
        """suite.yaml (with a silent 100 ms preamble) and both manifests."""
        silence = np.zeros(RATE // 10, dtype=np.int16)
        pre = self.add_audio(silence, "", PREAMBLE_VOICE, "silence")
        write_suite(
            self.root,
            Suite(
                name=name,
                suite="av",
                description=description,
                sample_rate=RATE,
                preamble=Preamble(text="(silence)", voice=PREAMBLE_VOICE, audio=pre),
                generator=generator,
            ),
        )
        audio = {
            "render_version": 1,
            "sample_rate": RATE,
            "format": "FLAC PCM_16 mono",
            "clips": dict(sorted(self.audio.items())),
        }
        write_text_atomic(self.root / AUDIO_MANIFEST, json.dumps(audio, indent=1, ensure_ascii=False) + "\n")
        video = {"format": "see each entry's codec", "videos": dict(sorted(self.video.items()))}
        write_text_atomic(self.root / VIDEO_MANIFEST, json.dumps(video, indent=1, ensure_ascii=False) + "\n")
