"""Do a scenario folder's recordings, frame logs, turns and meta.json tell one story?

A completed scenario's ``meta.json`` says, per recorded track, which file holds
it, at which rate, and how many samples it has; ``tracks/NAME.frames.tsv`` holds
one line per received frame, the cumulative sample count and the arrival time;
``turns.json`` places the human turns on ``model.wav``'s clock and says where
that file ended. When a process dies mid-scenario and an attempt is written on
top of the dead one's files, these disagree (a WAV longer than meta.json says,
a frame counter that restarts mid-file, turns shifted by the dead attempt's
length), and scoring such a folder would score the wrong audio.

`recording_disagreement` is the one check: the first disagreement as a phrase,
or None. Scoring wraps it (scoring.inputs.check_recording) for every reader of
recordings; resume uses it to run such a scenario again instead of keeping it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from floorbench.paths import PathEscapeError, inside
from floorbench.records import DialogueTurns, RunMeta, TrackInfo

TURN_SLACK_MS = 1000
"""a turn may end this much after model.wav's last sample (the recorder stops both tracks at once;
a turn's end placed by its sent length may reach past the last received frame)"""


def frames_log(path: Path) -> tuple[np.ndarray, np.ndarray] | str:
    """(cumulative samples, arrival ns) of a frames.tsv, or why it is not a log of one attempt."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as e:
        return f"{path.parent.name}/{path.name} is unreadable ({type(e).__name__})"
    fields = text.split()
    if len(fields) % 2 or any(len(line.split("\t")) != 2 for line in text.splitlines()):
        return f"{path.parent.name}/{path.name} has a torn or malformed line"
    try:
        pairs = np.array(fields, dtype=np.int64).reshape(-1, 2)
    except ValueError:
        return f"{path.parent.name}/{path.name} has a line that is not two integers"
    return pairs[:, 0], pairs[:, 1]


def _track_disagreement(folder: Path, name: str, info: TrackInfo) -> str | None:
    import soundfile as sf

    file = info.file
    if not file or file in (".", "..") or "/" in file or "\\" in file:
        return f"meta.json names track {name!r} file {file!r}, not a file name in the folder"
    paths = []
    for rel in (file, f"tracks/{name}.frames.tsv"):
        try:  # the one confinement rule (floorbench.paths): a link may stay inside the folder, never leave it
            paths.append(inside(folder, rel, rel))
        except PathEscapeError:
            return f"{rel} leads outside the folder (to {(folder / rel).resolve()})"
    path, log = paths
    if not path.is_file():
        return f"meta.json lists {file} ({info.samples} samples) but it is missing"
    try:
        wav = sf.info(str(path))
    except Exception as e:  # soundfile raises RuntimeError or LibsndfileError
        return f"{file} is not readable audio ({type(e).__name__})"
    if wav.samplerate != info.sample_rate:
        return f"{file} is {wav.samplerate} Hz, meta.json says {info.sample_rate} Hz"
    if wav.frames != info.samples:
        return f"{file} holds {wav.frames} samples, meta.json says {info.samples}"
    if not log.exists():
        return None  # recordings made elsewhere need no frame log
    got = frames_log(log)
    if isinstance(got, str):
        return got
    counts, arrivals = got
    where = f"tracks/{log.name}"
    if len(counts) == 0:
        return None if info.samples == info.gaps_filled else f"{where} is empty, meta.json says {info.samples} samples"
    back = np.flatnonzero(np.diff(counts) <= 0)
    if counts[0] <= 0 or len(back):
        line = 1 if counts[0] <= 0 else int(back[0]) + 2
        return f"{where}: the sample counter does not rise at line {line} (the log holds more than one attempt?)"
    late = np.flatnonzero(np.diff(arrivals) < 0)
    if len(late):
        return f"{where}: the arrival time goes back at line {int(late[0]) + 2} (the log holds more than one attempt?)"
    if int(counts[-1]) != info.samples:
        return f"{where} counts {int(counts[-1])} samples in {len(counts)} frames, meta.json says {info.samples}"
    return None


def recording_disagreement(folder: Path, meta: RunMeta, turns: DialogueTurns | None = None) -> str | None:
    """The first way the folder's files disagree with its meta.json (and turns.json), or None.

    Per track meta.json lists: the file is there, at that rate, with that many samples; its
    frame log (when there is one) counts up without a restart and ends at that count.
    turns.json: ``model_wav_end_ms`` is the model track's length, and every turn lies inside it.
    A meta.json without tracks (recordings made elsewhere) has nothing to disagree with.
    """
    for name, info in sorted(meta.tracks.items()):
        if (why := _track_disagreement(folder, name, info)) is not None:
            return why
    model = meta.tracks.get("model")
    if turns is None or model is None or model.sample_rate <= 0:
        return None
    end_ms = model.samples * 1000 // model.sample_rate
    if turns.model_wav_end_ms is not None and turns.model_wav_end_ms != end_ms:
        return f"turns.json says model.wav ends at {turns.model_wav_end_ms} ms, meta.json's model track at {end_ms} ms"
    for t in turns.turns:
        if t.start_ms < 0 or t.end_ms > end_ms + TURN_SLACK_MS:
            return f"turns.json turn {t.turn_id} ({t.start_ms}–{t.end_ms} ms) lies outside model.wav (0–{end_ms} ms)"
    return None
