"""Acoustic conditions on the humans' audio (floorbench.speech.acoustics): seeded, measured, the clean copy kept."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from floorbench.records import RunMeta, read_meta, write_json_atomic
from floorbench.speech import acoustics as ac
from floorbench.speech import noises, rooms

RATE = 16000
needs_flite = pytest.mark.skipif(shutil.which("flite") is None, reason="babble is made from the flite voices")
pytest.importorskip("pyroomacoustics")


def speechlike(seconds: float, seed: int, rate: int = RATE) -> np.ndarray:
    """A clip with the shape of a rendered turn: 50 ms of silence, syllable-like bursts, 50 ms of silence."""
    rng = np.random.default_rng(seed)
    n = int(seconds * rate)
    t = np.arange(n) / rate
    voiced = np.sin(2 * np.pi * 140 * t) + 0.5 * np.sin(2 * np.pi * 280 * t) + 0.2 * rng.standard_normal(n)
    envelope = np.clip(np.sin(2 * np.pi * 4 * t), 0, None) ** 2
    x = voiced * envelope
    x[: rate // 20] = 0
    x[-rate // 20 :] = 0
    x *= 0.1 / np.sqrt(np.mean(x[x != 0] ** 2))
    return np.round(x * 32767).astype(np.int16)


@pytest.fixture(scope="module")
def clean() -> dict[str, np.ndarray]:
    return {"turn 1": speechlike(1.5, 1), "turn 2": speechlike(2.0, 2), "preamble": speechlike(1.0, 3)}


def independent_snr_db(speech: list[np.ndarray], clean: list[np.ndarray], noise: np.ndarray) -> float:
    """The test's own measure: speech power over the clean clips' frames within 40 dB of their loudest, over the
    noise's mean power."""
    num, count = 0.0, 0
    for s, c in zip(speech, clean, strict=True):
        n = RATE // 100
        frames = len(c) // n
        p = np.mean(c[: frames * n].astype(float).reshape(frames, n) ** 2, axis=1)
        on = np.repeat(p >= p.max() * 1e-4, n)
        num += float(np.sum(s[: frames * n].astype(float)[on] ** 2))
        count += int(on.sum())
    return float(10 * np.log10((num / count) / np.mean(noise.astype(float) ** 2)))


# -- determinism --------------------------------------------------------------
@pytest.mark.parametrize("profile", ["office", "car", "phone", "reverb+white+snr3"])
def test_the_same_seed_gives_the_same_bytes_and_another_seed_others(clean: dict[str, np.ndarray], profile: str) -> None:
    a = ac.render(ac.parse_acoustics(profile, 5), RATE, clean, "scenario-1")
    b = ac.render(ac.parse_acoustics(profile, 5), RATE, clean, "scenario-1")
    assert all(a.clips[k].tobytes() == b.clips[k].tobytes() for k in clean)
    assert (a.bed is None) == (b.bed is None) and (a.bed is None or a.bed.tobytes() == b.bed.tobytes())
    assert a.record == b.record
    if profile == "phone":  # nothing is drawn: the line is the same for every seed
        return
    c = ac.render(ac.parse_acoustics(profile, 6), RATE, clean, "scenario-1")
    assert any(a.clips[k].tobytes() != c.clips[k].tobytes() for k in clean) or (
        a.bed is not None and c.bed is not None and a.bed.tobytes() != c.bed.tobytes()
    )


def test_another_scenario_draws_other_noise(clean: dict[str, np.ndarray]) -> None:
    a = ac.render(ac.parse_acoustics("pink+snr10", 0), RATE, clean, "scenario-1")
    b = ac.render(ac.parse_acoustics("pink+snr10", 0), RATE, clean, "scenario-2")
    assert a.bed is not None and b.bed is not None and a.bed.tobytes() != b.bed.tobytes()


@needs_flite
def test_babble_is_the_same_twice_and_sounds_like_talkers(clean: dict[str, np.ndarray]) -> None:
    a = ac.render(ac.parse_acoustics("cafe", 1), RATE, clean, "s")
    b = ac.render(ac.parse_acoustics("cafe", 1), RATE, clean, "s")
    assert a.bed is not None and b.bed is not None and a.bed.tobytes() == b.bed.tobytes()
    spectrum = np.abs(np.fft.rfft(a.bed.astype(float))) ** 2
    f = np.fft.rfftfreq(len(a.bed), 1 / RATE)
    speech_band = spectrum[(f > 100) & (f < 4000)].sum() / spectrum.sum()
    assert speech_band > 0.7  # voices, not white noise


# -- SNR ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "profile,snr",
    [("office", 20.0), ("car", 5.0), ("white+snr0", 0.0), ("pink+snr-5", -5.0), ("reverb+brown+hum+snr12", 12.0),
     ("office+snr30", 30.0), ("road+events+snr8", 8.0)],
)
def test_the_measured_snr_is_the_profiles(clean: dict[str, np.ndarray], profile: str, snr: float) -> None:
    r = ac.render(ac.parse_acoustics(profile, 3), RATE, clean, "s")
    assert r.bed_mic is not None
    keys = list(clean)
    got = independent_snr_db([r.speech_mic[k] for k in keys], [clean[k] for k in keys], r.bed_mic)
    assert abs(got - snr) <= 0.5
    assert abs(r.record["snr_measured_db"] - snr) <= 0.5
    assert r.record["snr_db"] == snr


@needs_flite
@pytest.mark.parametrize("profile,snr", [("cafe", 10.0), ("cafe+snr0", 0.0), ("cafe+phone+snr5", 5.0)])
def test_the_measured_snr_of_babble_is_the_profiles(clean: dict[str, np.ndarray], profile: str, snr: float) -> None:
    r = ac.render(ac.parse_acoustics(profile, 3), RATE, clean, "s")
    assert r.bed_mic is not None
    keys = list(clean)
    assert abs(independent_snr_db([r.speech_mic[k] for k in keys], [clean[k] for k in keys], r.bed_mic) - snr) <= 0.5


def test_the_snr_of_a_whole_sent_track_is_measured_from_it_and_the_clean_track(clean: dict[str, np.ndarray]) -> None:
    r = ac.render(ac.parse_acoustics("pink+snr10", 2), RATE, clean, "s")
    live = ac.LiveAcoustics.of(r, clean)
    track_clean = np.zeros(8 * RATE, dtype=np.int16)
    track_sent = np.zeros(8 * RATE, dtype=np.int16)
    at = RATE
    for k in clean:
        n = len(clean[k])
        track_clean[at : at + n] = live.clean(r.clips[k])
        track_sent[at : at + n] = r.clips[k]
        at += n + RATE // 2
    sent = live.add_bed(track_sent, 0)
    got = ac.estimate_snr_db(sent, track_clean, RATE)
    assert got is not None and abs(got - 10.0) <= 1.0
    assert live.unmatched == 0


# -- the telephone line -------------------------------------------------------------
def test_the_telephone_line_removes_what_is_above_3400_hz_and_below_300() -> None:
    x = np.random.default_rng(0).standard_normal(2 * RATE) * 0.1
    y = noises.phone_channel(x, RATE)
    assert len(y) == len(x)
    f = np.fft.rfftfreq(len(y), 1 / RATE)
    before, after = np.abs(np.fft.rfft(x)) ** 2, np.abs(np.fft.rfft(y)) ** 2
    band = (f > 500) & (f < 3000)
    high = f > 3600
    low = f < 150
    assert after[band].sum() / before[band].sum() > 0.7  # the band passes
    assert after[high].sum() / after[band].sum() < 0.01  # -20 dB re the band (white noise had more above)
    assert before[high].sum() / before[band].sum() > 1.0
    assert after[low].mean() / after[band].mean() < 0.05


def test_mu_law_keeps_silence_silent_and_quantises_to_255_levels() -> None:
    assert np.all(noises.mu_law(np.zeros(10)) == 0)
    levels = np.unique(noises.mu_law(np.linspace(-1, 1, 100_000)))
    assert len(levels) == 255


def test_phone_changes_the_clips_but_not_their_length_or_onset(clean: dict[str, np.ndarray]) -> None:
    r = ac.render(ac.parse_acoustics("phone"), RATE, clean, "s")
    for k, x in clean.items():
        y = r.clips[k]
        assert len(y) == len(x) and y.tobytes() != x.tobytes()
        lag = int(np.argmax(np.correlate(y.astype(float)[: RATE // 2], x.astype(float)[: RATE // 2], "full"))) - (
            RATE // 2 - 1
        )
        assert abs(lag) <= 1  # zero-phase: no delay added to the turn


# -- rooms ------------------------------------------------------------------------
def test_the_room_lengthens_a_click_and_keeps_its_onset() -> None:
    click = np.zeros(RATE, dtype=np.int16)
    click[800] = 20000
    r = ac.render(ac.parse_acoustics("reverb"), RATE, {"c": click}, "s")
    y = r.clips["c"].astype(float)
    assert len(y) == len(click)
    assert int(np.argmax(np.abs(y))) == 800  # the direct path where the click was
    tail = y[800 + RATE // 20 : 800 + RATE // 5]  # 50..200 ms after it: the clean clip is silent there
    assert np.sqrt(np.mean(tail**2)) > 10 * 32767 * 1e-4
    assert r.record["rt60_measured_ms"] > 200


def test_rt60_follows_the_profile_the_room_size_and_the_absorption() -> None:
    def rt60(room: rooms.Room, absorption: float | None = None) -> int:
        return rooms.measure_rt60_ms(rooms.room_rir(room, RATE, np.random.default_rng(0), absorption), RATE)

    office = rooms.ROOMS["office"]
    assert rt60(office.with_(rt60_ms=300)) < rt60(office.with_(rt60_ms=600)) < rt60(office.with_(rt60_ms=1200))
    small, large = rooms.Room((3.0, 3.0, 2.5), 300, 100), rooms.Room((9.0, 8.0, 4.0), 300, 100)
    assert rt60(small, 0.3) < rt60(large, 0.3)  # the same walls, a bigger room: a longer decay
    assert rt60(office, 0.6) < rt60(office, 0.3) < rt60(office, 0.15)  # more absorption: a shorter one
    assert rooms.sabine_rt60_ms((5.0, 4.0, 3.0), 0.3) < rooms.sabine_rt60_ms((5.0, 4.0, 3.0), 0.15)


def test_the_rt60_part_changes_the_room(clean: dict[str, np.ndarray]) -> None:
    short = ac.render(ac.parse_acoustics("room_office+rt60200"), RATE, clean, "s").record["rt60_measured_ms"]
    long = ac.render(ac.parse_acoustics("room_office+rt601200"), RATE, clean, "s").record["rt60_measured_ms"]
    assert short < long


# -- the clean reference --------------------------------------------------------------
def test_the_clean_clips_are_unchanged_and_kept(clean: dict[str, np.ndarray]) -> None:
    before = {k: v.copy() for k, v in clean.items()}
    r = ac.render(ac.parse_acoustics("office+phone", 1), RATE, clean, "s")
    assert all(np.array_equal(clean[k], before[k]) for k in clean)
    live = ac.LiveAcoustics.of(r, clean)
    for k in clean:
        assert len(r.clips[k]) == len(clean[k])  # a turn keeps its clean length: its times are the clean ones
        assert live.clean(r.clips[k]) is clean[k]
    other = np.zeros(10, dtype=np.int16)
    assert live.clean(other) is other and live.unmatched == 1


class _Source:
    """A stand-in for rtc.AudioSource that takes every frame at once."""

    async def capture_frame(self, frame: object) -> None:
        await asyncio.sleep(0)


async def test_the_writer_sends_the_degraded_track_and_keeps_the_clean_one(
    clean: dict[str, np.ndarray], tmp_path: Path
) -> None:
    from floorbench.clock import SessionClock
    from floorbench.pipelines.room.playback import TrackWriter

    r = ac.render(ac.parse_acoustics("reverb+pink+snr10", 4), RATE, clean, "s")
    live = ac.LiveAcoustics.of(r, clean)
    w = TrackWriter(_Source(), RATE, SessionClock(), tmp_path / "humans.sent.wav", 200, acoustics=live)  # type: ignore[arg-type]
    w.start()
    clip = w.schedule(r.clips["turn 1"], 1600, "turn 1")
    for _ in range(2000):
        if w.cursor >= clip.end + 1600:
            break
        await asyncio.sleep(0.001)
    await w.stop()
    sent, _ = sf.read(str(tmp_path / "humans.sent.wav"), dtype="int16")
    kept, _ = sf.read(str(tmp_path / "humans.clean.wav"), dtype="int16")
    assert len(sent) == len(kept) >= clip.end
    assert np.array_equal(kept[1600 : clip.end], clean["turn 1"])  # the clean clip at the sent clip's samples
    assert not kept[:1600].any() and not kept[clip.end :].any()
    assert r.bed is not None
    expect = np.clip(r.clips["turn 1"].astype(np.int32) + r.bed[1600 : clip.end], -32768, 32767)
    assert np.array_equal(sent[1600 : clip.end], expect)
    assert np.array_equal(sent[:1600], r.bed[:1600])  # the noise is there before the turn too


# -- parsing ------------------------------------------------------------------------
def test_profiles_parse_by_name_and_by_parts() -> None:
    p = ac.parse_acoustics("cafe+phone", 7)
    assert (p.room, p.noises, p.snr_db, p.phone, p.seed) == ("cafe", ("babble", "events"), 10.0, True, 7)
    assert ac.parse_acoustics("cafe+snr5").snr_db == 5.0
    assert ac.parse_acoustics("snr5+cafe").snr_db == 10.0  # later parts win, as in --impair
    assert ac.parse_acoustics("room_living+babble").snr_db == ac.DEFAULT_SNR_DB
    assert not ac.parse_acoustics("none").active
    assert ac.parse_acoustics("office+rt60300+dist50").room_spec() == rooms.ROOMS["office"].with_(300, 50)
    for name in ac.PROFILES:
        ac.parse_acoustics(name)


@pytest.mark.parametrize(
    "text,words",
    [
        ("kitchen", ["unknown part 'kitchen'", "office", "cafe", "snrDB"]),
        ("cafe@5", ["unknown part 'cafe@5'"]),
        ("cafe+snr99", ["snr is -10..60 dB, got 99"]),
        ("cafe+snr-20", ["snr is -10..60 dB"]),
        ("phone+snr5", ["needs a noise"]),
        ("white+rt60300", ["rt60 needs a room"]),
        ("office+rt6010", ["rt60 is 50..3000 ms"]),
        ("office+dist5000", ["dist is 10..1000 cm"]),
    ],
)
def test_a_bad_profile_is_one_line_naming_the_option(text: str, words: list[str]) -> None:
    with pytest.raises(ac.AcousticsError) as e:
        ac.parse_acoustics(text)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"--acoustics {text!r}")
    for w in words:
        assert w in msg


@pytest.mark.parametrize(
    "args,words",
    [(["--acoustics", "kitchen"], ["--acoustics 'kitchen'", "office, car, cafe, phone"]),
     (["--acoustics", "cafe+snr99"], ["snr is -10..60 dB"]),
     (["--acoustics", "cafe", "--acoustics-seed", "-1"], ["--acoustics-seed"])],
)
def test_the_commands_refuse_a_bad_profile_in_one_line(tmp_path: Path, args: list[str], words: list[str]) -> None:
    from floorbench.cli import app

    runner = CliRunner()
    for cmd in (["run", "--suite", "example", "--model", "echo", "--out", str(tmp_path / "r")],
                ["test", str(tmp_path), "--model", "echo", "--out", str(tmp_path / "t")]):
        res = runner.invoke(app, [*cmd, *args])
        assert res.exit_code == 2, res.output
        lines = [x for x in res.output.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), res.output
        for w in words:
            assert w in lines[0]


# -- the records --------------------------------------------------------------------------
def test_meta_json_carries_the_profile_and_resume_tells_conditions_apart(
    clean: dict[str, np.ndarray], tmp_path: Path
) -> None:
    from floorbench.pipelines.run.resume import ResumeMismatch, RunIdentity

    profile = ac.parse_acoustics("office+phone", 9)
    r = ac.render(profile, RATE, clean, "sid")
    meta = RunMeta.model_validate({
        "floorbench_version": "0", "scenario_id": "sid", "pair_id": "p", "condition": "c", "suite": "mpe",
        "room": "r", "created_wall_ns": 0, "anchor": {"monotonic_ns": 0, "wall_ns": 0}, "acoustics": r.record,
    })
    write_json_atomic(tmp_path / "sid" / "meta.json", meta)
    back = read_meta(tmp_path / "sid")
    assert back is not None and back.acoustics is not None
    assert back.acoustics["profile"] == "office+phone" and back.acoustics["seed"] == 9
    assert back.acoustics["snr_db"] == 20.0 and abs(back.acoustics["snr_measured_db"] - 20.0) <= 0.5
    assert back.acoustics["phone"] is True and back.acoustics["rt60_measured_ms"] > 0
    same = RunIdentity("mpe", "h", {}, None, profile.spec())
    same.check({"suite": "mpe", "suite_hash": "h", "model": {}, "acoustics": r.record}, tmp_path / "run.json")
    same.check_kept(tmp_path, ["sid"])
    other = RunIdentity("mpe", "h", {}, None, ac.parse_acoustics("office", 9).spec())
    with pytest.raises(ResumeMismatch, match="acoustics 'office\\+phone', not 'office'"):
        other.check({"suite": "mpe", "suite_hash": "h", "model": {}, "acoustics": r.record}, tmp_path / "run.json")
    with pytest.raises(ResumeMismatch, match="acoustics"):
        other.check_kept(tmp_path, ["sid"])
    with pytest.raises(ResumeMismatch, match="not none"):
        RunIdentity("mpe", "h", {}).check(
            {"suite": "mpe", "suite_hash": "h", "model": {}, "acoustics": r.record}, tmp_path / "run.json"
        )


def test_dispatch_refuses_acoustics_in_one_line() -> None:
    from floorbench.pipelines.dispatch.protocol import DispatchError, settings_record
    from floorbench.pipelines.run.scenario_run import ScenarioSettings

    with pytest.raises(DispatchError, match="--acoustics"):
        settings_record(ScenarioSettings(acoustics=ac.parse_acoustics("cafe")))
    assert "acoustics" not in settings_record(ScenarioSettings())


def test_scores_json_names_the_condition_the_scenarios_ran_under(clean: dict[str, np.ndarray]) -> None:
    from floorbench.scoring.transport_summary import latency_cell, transport_summary

    r = ac.render(ac.parse_acoustics("office+phone", 2), RATE, clean, "sid")
    meta = RunMeta.model_validate({
        "floorbench_version": "0", "scenario_id": "sid", "pair_id": "p", "condition": "c", "suite": "mpe",
        "room": "r", "created_wall_ns": 0, "anchor": {"monotonic_ns": 0, "wall_ns": 0}, "acoustics": r.record,
    })
    out = transport_summary([meta, meta])
    assert out["acoustics"] == [{k: r.record[k] for k in ("profile", "room", "noises", "snr_db", "phone", "seed")}]
    assert "humans' acoustics: " + r.record["profile"] in latency_cell({**out, "humans": {"n_turns": 1, "p50": 1.0,
                                                                                         "p95": 2.0}})
