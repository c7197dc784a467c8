"""Speak one text through a pipecat TTS service (for users with cloud TTS).

The service class, its constructor arguments and its key variable come from
the operator's voices file, by the name a ``service:NAME`` voice id gives
(`floorbench.speech.tts_voices`; only classes under ``pipecat.services``);
never from the voice id itself. Errors are redacted (a provider's reply may
echo the key, masked or whole). The text goes through a
two-processor pipecat pipeline — the service and a collector of its
`TTSAudioRawFrame`s — so any service that works in a pipecat bot works here.
Imported only when a `pipecat:` voice is used.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path

import numpy as np

from floorbench.redact import redact_text
from floorbench.speech.tts import PipecatVoice, TTSError, env_key
from floorbench.speech.tts_voices import SERVICE_RE

SYNTH_TIMEOUT_S = 120.0


def build_service(cfg: PipecatVoice, sample_rate: int, voice_id: str):
    """Import the service class and construct it from the config (key from the environment)."""
    if not SERVICE_RE.fullmatch(f"{cfg.module}:{cfg.cls}"):
        raise TTSError(f"voice {voice_id!r}: only a pipecat.services class is built")
    try:
        mod = importlib.import_module(cfg.module)
    except ImportError as e:
        raise TTSError(
            f"voice {voice_id!r}: cannot import {cfg.module} ({e}); install the pipecat extra for that service"
        ) from None
    cls = getattr(mod, cfg.cls, None)
    if cls is None:
        raise TTSError(f"voice {voice_id!r}: {cfg.module} has no class {cfg.cls}; check the spelling")
    kwargs: dict[str, object] = {}
    settings: dict[str, object] = {}
    for k, v in cfg.kwargs.items():
        if k.startswith("settings."):
            settings[k.removeprefix("settings.")] = v
        elif (k.endswith("_dir") or k.endswith("_path")) and isinstance(v, str):
            kwargs[k] = Path(v).expanduser()
        else:
            kwargs[k] = v
    if settings:
        settings_cls = getattr(cls, "Settings", None)
        if settings_cls is None:
            raise TTSError(f"voice {voice_id!r}: {cfg.cls} has no Settings; drop the settings.* parameters")
        try:
            kwargs["settings"] = settings_cls(**settings)
        except TypeError as e:
            raise TTSError(f"voice {voice_id!r}: bad settings.* parameter ({e}); check the names") from None
    key = env_key(cfg, voice_id)
    if key is not None:
        kwargs[cfg.api_key_arg] = key
    kwargs.setdefault("sample_rate", sample_rate)
    try:
        return cls(**kwargs)
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise TTSError(redact_text(f"voice {voice_id!r}: cannot create {cfg.cls} ({msg[:200]}); check its parameters",
                                   [key or ""])) from None


async def _speak(service, text: str, sample_rate: int) -> tuple[list[bytes], list[str]]:
    from pipecat.frames.frames import EndFrame, ErrorFrame, TTSAudioRawFrame, TTSSpeakFrame
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineParams, PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.workers.runner import WorkerRunner

    chunks: list[bytes] = []
    errors: list[str] = []

    class _Collect(FrameProcessor):
        async def process_frame(self, frame, direction: FrameDirection):
            await super().process_frame(frame, direction)
            if isinstance(frame, TTSAudioRawFrame):
                if frame.sample_rate != sample_rate or frame.num_channels != 1:
                    errors.append(f"service sent {frame.sample_rate} Hz x{frame.num_channels}")
                else:
                    chunks.append(frame.audio)
            elif isinstance(frame, ErrorFrame):
                errors.append(str(frame.error))
            await self.push_frame(frame, direction)

    worker = PipelineWorker(
        Pipeline([service, _Collect()]),
        params=PipelineParams(audio_out_sample_rate=sample_rate, audio_in_sample_rate=sample_rate),
        idle_timeout_secs=None,
        enable_rtvi=False,
        check_dangling_tasks=False,
    )

    @worker.event_handler("on_pipeline_error")
    async def _on_error(_worker, frame):
        errors.append(str(getattr(frame, "error", frame)))

    await worker.queue_frames([TTSSpeakFrame(text), EndFrame()])
    runner = WorkerRunner(handle_sigint=False, check_dangling_tasks=False)
    await runner.add_workers(worker)
    await runner.run()
    return chunks, errors


def synthesize_pipecat(text: str, cfg: PipecatVoice, sample_rate: int, voice_id: str) -> np.ndarray:
    """Mono int16 audio of `text` from the pipecat service described by `cfg`."""
    service = build_service(cfg, sample_rate, voice_id)

    async def _go():
        return await asyncio.wait_for(_speak(service, text, sample_rate), SYNTH_TIMEOUT_S)

    try:
        chunks, errors = asyncio.run(_go())
    except TimeoutError:
        raise TTSError(f"voice {voice_id!r}: no end of speech after {SYNTH_TIMEOUT_S:.0f} s; check the service") from None
    except RuntimeError as e:
        if "asyncio.run() cannot be called" in str(e):
            raise TTSError(
                f"voice {voice_id!r}: synthesize() was called inside an event loop; "
                "call it via asyncio.to_thread"
            ) from None
        raise
    if errors and not chunks:
        key = env_key(cfg, voice_id) or ""
        first = " ".join(errors[0].split())[:200]
        raise TTSError(redact_text(f"voice {voice_id!r}: the service failed ({first}); check key, network and "
                                   "parameters", [key]))
    if not chunks:
        raise TTSError(f"voice {voice_id!r}: the service returned no audio; check its parameters")
    return np.frombuffer(b"".join(chunks), dtype=np.int16).copy()
