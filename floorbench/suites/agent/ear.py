"""The branching caller's ear, live: the packaged ``tiny.en`` of the scorer (`floorbench.scoring.asr`), off
the event loop, so the caller and the scorer hear an agent's turn with the same model and clip rules."""

from __future__ import annotations

import asyncio
import threading

import numpy as np

from floorbench.scoring.asr import Transcriber

_MODELS: dict[str, Transcriber] = {}
_LOCK = threading.Lock()
"""one model per process for every room's caller (rooms of one run share a process); one call at a time"""


class WhisperEar:
    """The packaged faster-whisper ``tiny.en`` (`floorbench.scoring.asr.Transcriber`), in a worker thread."""

    def __init__(self, model: str = "tiny.en", cpu_threads: int = 2) -> None:
        self.name = model
        self.cpu_threads = cpu_threads

    @property
    def model(self) -> str:
        return self.name

    def _transcriber(self) -> Transcriber:
        with _LOCK:
            tr = _MODELS.get(self.name)
            if tr is None:
                tr = Transcriber(self.name, cpu_threads=self.cpu_threads)
                tr.load()  # here, before the call: the first branch must not pay for it
                _MODELS[self.name] = tr
            return tr

    async def load(self) -> None:
        await asyncio.to_thread(self._transcriber)

    def _run(self, audio: np.ndarray) -> str:
        tr = self._transcriber()
        with _LOCK:
            return tr.transcribe([audio])[0]

    async def transcribe(self, audio: np.ndarray) -> str:
        return await asyncio.to_thread(self._run, audio)
