"""The espeak-ng voices (`espeak:es`, `espeak:de`, `espeak:cmn`, `espeak:en-us`): the local caller voices beyond
English (floorbench.speech.languages). Debian's espeak-ng, run as a subprocess: formant synthesis, robotic
but deterministic; no model files, nothing downloaded.

Two settings were measured against the packaged multilingual Whisper `base` (benchmarks/languages.py,
docs/measured.md "Languages"), since a caller line or an oracle reply that ASR cannot hear makes a content
check fail for the voice's sake, not the agent's:

- The voices beyond English speak slower than espeak-ng's default (110 words a minute, not 175) with an
  80 ms gap between words: on the example tests' lines `base`'s word error fell from 0.56 to 0.28
  (Spanish) and from 0.85 to 0.33 (German), Mandarin's character error from 0.99 to 0.41 with the
  voice below.
- `cmn` is spoken by espeak-ng's `cmn-latn-pinyin` voice. Its `cmn` voice (1.51, Debian 12) looks each
  character up as pinyin with a tone digit and then reads that pinyin *as English* ("qu4" as "kwo four"):
  `base` wrote digit strings back. The pinyin voice says the syllables in Mandarin.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ESPEAK_VOICES = ("es", "de", "cmn", "en-us")
TIMEOUT_S = 60
ENGINE_VOICE = {"cmn": "cmn-latn-pinyin"}
"""floorbench's voice name → espeak-ng's, where they differ (see above)"""
SLOW = ("-s", "110", "-g", "8")
"""words a minute and the gap between words (10 ms units) of the voices beyond English (see above)"""


def espeak_args(name: str) -> list[str]:
    """espeak-ng's voice and speed options for floorbench's voice `name` (also in the render cache's key)."""
    return ["-v", ENGINE_VOICE.get(name, name), *(SLOW if name != "en-us" else ())]


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
            subprocess.run([exe, *espeak_args(name), "-w", str(wav), "--", text], check=True, capture_output=True,
                           timeout=TIMEOUT_S)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            raise error(f"voice {voice_id!r}: espeak-ng failed ({type(e).__name__}); check the text") from None
        x, rate = sf.read(str(wav), dtype="float64", always_2d=False)
    return np.asarray(x, dtype=np.float64), int(rate)
