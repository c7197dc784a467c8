"""Import a two-channel recorded conversation with event labels as a live turns scenario.

`floorbench suite import-turns CONVERSATION.wav LABELS.csv --out DIR` turns one
channel of a real recording into the user of a `turns` scenario: each labelled
row of LABELS.csv becomes one clip cut from that channel, so real human
pauses, barge-ins and backchannels are played to the model live.

LABELS.csv (header required; times in integer ms on the recording, rows in time order):

    label,start_ms,end_ms,text
    pause,1200,2900,so I was thinking
    eot,3700,5200,we could leave on Friday
    backchannel,7400,7800,mm-hm

- `pause` rows: `pause_ms` is the gap to the next row's start (400–1 500 ms);
- `interrupt`, `backchannel` rows (and `noise` rows during the other
  speaker's speech): `offset_ms` is the row's start minus the onset of the
  other channel's speech after the last end of turn (Silero, the shared speech
  rules), so the live schedule places them as far into the model's reply as
  they were into the recorded partner's;
- `text` is what is said (kept for reading; nothing is synthesised).

The suite is written already "rendered": clips are FLAC files under audio/ with
a manifest (SHA-256, samples), and suite.yaml's preamble is 100 ms of silence
(the suite plays no preamble). Do not run `floorbench render` on it: recorded
clips have no voice to synthesise (the voice id `recorded` says so).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from floorbench.paths import prepare_out
from floorbench.scenarios.files import write_suite, write_text_atomic
from floorbench.scenarios.schema import Preamble, Speaker, Suite, check_id
from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.turns.generate import dump_turns_scenario
from floorbench.suites.turns.rules import TurnEvent
from floorbench.suites.turns.schema import SUITE_KIND, TurnsClip, TurnsScenario
from floorbench.suites.turns.validate import check_turns_scenario

RATE = 16000
RECORDED_VOICE = "recorded"
E = TurnEvent


@dataclass(frozen=True)
class Row:
    label: TurnEvent
    start_ms: int
    end_ms: int
    text: str


def read_labels(path: Path) -> list[Row]:
    """LABELS.csv as rows; one ScenarioError line naming the file and row on any problem."""
    from floorbench.escape import excerpt
    from floorbench.readers import read_text

    fix = "save it as UTF-8 CSV with label,start_ms,end_ms,text"
    text = read_text(path, 64 * 1024 * 1024, ScenarioError, fix)
    try:
        reader = csv.DictReader(io.StringIO(text))
        records = list(reader)
    except csv.Error as e:
        raise ScenarioError(f"{path}: cannot read ({excerpt(str(e), 80)}); {fix}") from None
    if not records or not {"label", "start_ms", "end_ms"} <= set(records[0]):
        raise ScenarioError(f"{path}: needs a header label,start_ms,end_ms,text and at least one row")
    rows: list[Row] = []
    for n, r in enumerate(records, 2):
        try:
            row = Row(E(r["label"].strip()), int(r["start_ms"]), int(r["end_ms"]), (r.get("text") or "").strip())
        except (ValueError, AttributeError, TypeError):  # TypeError: a short row (a field is None)
            raise ScenarioError(
                f"{path}:{n}: label must be one of {', '.join(e.value for e in E)} and times integer ms; fix the row"
            ) from None
        if None in r:  # more fields than the header names
            raise ScenarioError(f"{path}:{n}: more fields than the header label,start_ms,end_ms,text; fix the row")
        if row.start_ms < 0:
            raise ScenarioError(f"{path}:{n}: start_ms {row.start_ms} is before the recording; times are ms from its start (0 or more)")
        if row.end_ms <= row.start_ms or (rows and row.start_ms < rows[-1].end_ms):
            raise ScenarioError(f"{path}:{n}: {row.start_ms}–{row.end_ms} ms is empty or overlaps the row before")
        rows.append(row)
    return rows


def check_rows_inside(rows: list[Row], labels: Path, wav: Path, samples: int) -> None:
    """Every row's clip lies inside the recording (`samples` at 16 kHz): a row past its end would be an
    empty or cut clip; one line naming the row, before anything is written."""
    end_ms = samples * 1000 // RATE
    for n, r in enumerate(rows, 2):
        if r.end_ms > end_ms:
            raise ScenarioError(f"{labels}:{n}: {r.start_ms}–{r.end_ms} ms ends after {wav.name} ({end_ms} ms); "
                                "fix the row's times or give the full recording")


def partner_onsets(partner: np.ndarray) -> list[int]:
    """Starts (ms) of the other channel's speech segments (shared VAD rules)."""
    from floorbench.audio.vad import WINDOW_MS, VadRules, probabilities_to_segments, speech_probabilities

    probs = speech_probabilities(partner.astype(np.float32) / 32768.0)
    return [int(s) for s, _ in probabilities_to_segments(probs, VadRules(), WINDOW_MS)]


def build_clips(rows: list[Row], onsets: list[int]) -> list[dict[str, object]]:
    """Scenario clips (without audio) from the rows; offsets against the partner's onsets."""
    clips: list[dict[str, object]] = []
    last_eot: int | None = None
    for i, r in enumerate(rows):
        c: dict[str, object] = {"id": i + 1, "speaker": "U", "label": r.label.value, "text": r.text or f"({r.label})"}
        if r.label is E.pause and i + 1 < len(rows):
            c["pause_ms"] = rows[i + 1].start_ms - r.end_ms
        if r.label in (E.interrupt, E.backchannel, E.noise):
            onset = next((o for o in onsets if last_eot is not None and last_eot <= o <= r.start_ms), None)
            if onset is not None:
                c["offset_ms"] = r.start_ms - onset
        if r.label in (E.eot, E.interrupt):
            last_eot = r.end_ms
        clips.append(c)
    return clips


def import_recording(wav: Path, labels: Path, out: Path, user_channel: int = 1, scenario_id: str | None = None,
                     conversation_type: str = "casual", force: bool = False) -> Path:
    """Write a one-scenario turns suite at `out` from `wav` (two channels) and `labels`; return the scenario file.

    Like every writer, it refuses an `out` that already holds a suite (or files in scenarios/ or audio/)
    unless `force`, and then replaces those folders (floorbench.paths.prepare_out), after every check.
    """
    import soundfile as sf
    import soxr

    try:
        pcm, sr = sf.read(str(wav), dtype="int16", always_2d=True)
    except Exception as e:  # libsndfile raises several types
        raise ScenarioError(f"{wav}: cannot read audio ({type(e).__name__}); give a two-channel WAV or FLAC") from None
    if pcm.shape[1] != 2 or user_channel not in (1, 2):
        raise ScenarioError(f"{wav}: {pcm.shape[1]} channel(s), --user-channel {user_channel}; need two channels, 1 or 2")
    if sr != RATE:  # sample-exact clips at 16 kHz; other rates are resampled once
        x = soxr.resample(pcm.astype(np.float32) / 32768.0, sr, RATE)
        pcm = (np.clip(x, -1, 1) * 32767).astype(np.int16)
    user, partner = pcm[:, user_channel - 1], pcm[:, 2 - user_channel]
    rows = read_labels(labels)
    check_rows_inside(rows, labels, wav, len(user))
    try:
        sid = check_id(scenario_id or wav.stem)
    except ValueError as e:
        raise ScenarioError(f"{wav}: scenario id {e}; pass --scenario-id") from None
    clips = build_clips(rows, partner_onsets(partner))
    s = TurnsScenario(scenario_id=sid, conversation_type=conversation_type,
                      speakers={"U": Speaker(name="User", voice=RECORDED_VOICE)},
                      turns=[TurnsClip.model_validate(c) for c in clips],
                      meta={"imported_from": wav.name, "labels": labels.name, "user_channel": user_channel})
    check_turns_scenario(s, labels)  # before anything is deleted or written
    prepare_out(out, ("scenarios", "audio"), force, ScenarioError)
    manifest: dict[str, dict[str, object]] = {}
    for c, r in zip(clips, rows, strict=True):
        piece = user[r.start_ms * RATE // 1000 : r.end_ms * RATE // 1000]
        buf = io.BytesIO()
        sf.write(buf, piece, RATE, format="FLAC", subtype="PCM_16")
        data = buf.getvalue()
        rel = f"audio/{hashlib.sha256(data).hexdigest()[:20]}.flac"
        (out / rel).write_bytes(data)
        c["audio"] = rel
        manifest[rel] = {"sha256": hashlib.sha256(data).hexdigest(), "text": c["text"], "voice": RECORDED_VOICE,
                         "backend": "recorded", "rate": RATE, "samples": len(piece), "duration_ms": len(piece) * 1000 // RATE}
    silence = io.BytesIO()
    sf.write(silence, np.zeros(RATE // 10, dtype=np.int16), RATE, format="FLAC", subtype="PCM_16")
    pre = silence.getvalue()
    (out / "audio" / "preamble-silence.flac").write_bytes(pre)
    manifest["audio/preamble-silence.flac"] = {"sha256": hashlib.sha256(pre).hexdigest(), "text": "", "voice": RECORDED_VOICE,
                                               "backend": "recorded", "rate": RATE, "samples": RATE // 10, "duration_ms": 100}
    s = s.model_copy(update={"turns": [TurnsClip.model_validate(c) for c in clips]})
    path = out / "scenarios" / f"{sid}.yaml"
    write_suite(out, Suite(name=out.name, suite=SUITE_KIND, description=f"Imported from {wav.name} and {labels.name}.",
                           preamble=Preamble(text="(no preamble)", voice=RECORDED_VOICE, audio="audio/preamble-silence.flac")))
    write_text_atomic(path, dump_turns_scenario(s))
    manifest_doc = {"render_version": 0, "sample_rate": RATE, "format": "FLAC PCM_16 mono", "clips": dict(sorted(manifest.items()))}
    write_text_atomic(out / "audio" / "manifest.json", json.dumps(manifest_doc, indent=1, ensure_ascii=False) + "\n")
    return path
