"""The espeak-ng voices (`espeak:es`, `espeak:de`, `espeak:cmn`, `espeak:en-us`): the local caller voices beyond
English (floorbench.speech.languages). Debian's espeak-ng, run as a subprocess: formant synthesis, robotic
but intelligible and deterministic; no model files, nothing downloaded."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ESPEAK_VOICES = ("es", "de", "cmn", "en-us")
TIMEOUT_S = 60


def synth_espeak(text: str, name: str, voice_id: str, error: type[Exception]) -> tuple[np.ndarray, int]:
    """(float audio, rate) of `text` spoken by espeak-ng's voice `name`; `error` (one line) when it cannot."""
    import soundfile as sf

    if name not in ESPEAK_VOICES:
        raise error(f"voice {voice_id!r}: unknown espeak voice; use one of {', '.join(ESPEAK_VOICES)}")
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise error(f"voice {voice_id!r}: espeak-ng is not installed; apt-get install espeak-ng "
                    "(or run bash scripts/setup.sh)")
    with tempfile.TemporaryDirectory(prefix="fb-espeak-") as d:
        wav = Path(d) / "out.wav"
        try:
            subprocess.run([exe, "-v", name, "-w", str(wav), "--", text], check=True, capture_output=True,
                           timeout=TIMEOUT_S)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            raise error(f"voice {voice_id!r}: espeak-ng failed ({type(e).__name__}); check the text") from None
        x, rate = sf.read(str(wav), dtype="float64", always_2d=False)
    return np.asarray(x, dtype=np.float64), int(rate)
