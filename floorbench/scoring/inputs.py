"""Find and read the dialogues to score: a run directory or a plain recordings folder.

Both are folders of dialogue folders holding ``model.wav`` + ``turns.json``
(``meta.json`` optional; a run directory also has ``run.json`` at the top).
A folder that itself holds ``turns.json`` is scored as a single dialogue.
Every problem with an input becomes an `InputError` with one line that names
the file, the item and the fix; the dialogue is skipped, the rest are scored.
Two kinds are not skipped but refused (`RefusedInput`: the command stops
with that one line, writing nothing): a dialogue folder or file that is a
link leading out of the folder given (floorbench.paths), and a completed
scenario whose recordings, frame logs, turns and meta.json disagree
(`check_recording`: a damaged record, such as an attempt written over a
killed one's files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from floorbench.audio.consistency import recording_disagreement
from floorbench.audio.time_map import TimeMap, time_map_of
from floorbench.errors import FloorbenchError
from floorbench.paths import inside, inside_each
from floorbench.plugins import SuitePlugin, all_suites
from floorbench.records import DialogueTurns, Outcome, RunMeta

ACCEPTED_RATES = (16000, 24000, 48000)


def suite_of_labels(first: str) -> SuitePlugin | None:
    """The suite whose turn labels include `first` (a dialogue holds one suite's labels only; each suite
    declares them, `SuitePlugin.labels`); None when none does."""
    for s in all_suites():
        if first in s.labels:
            return s
    return None
SCORING_RATE = 16000


class InputError(FloorbenchError, ValueError):
    """A bad input file; the message is one line naming the file and the fix."""


class RefusedInput(InputError):
    """An input that stops the command instead of being skipped: a record that cannot be trusted."""


class InconsistentRecording(RefusedInput):
    """A scenario folder whose WAVs, frame logs, turns.json and meta.json disagree: refused, never skipped."""


def check_recording(folder: Path, meta: RunMeta | None, turns: DialogueTurns | None = None) -> None:
    """Refuse (`InconsistentRecording`, one line naming the folder and the fix) a completed scenario whose
    files disagree with its meta.json (audio.consistency.recording_disagreement). Every reader of
    recordings calls this: discovery for `score`, the report for the folders it draws from."""
    if meta is None:
        return
    why = recording_disagreement(folder, meta, turns)
    if why is not None:
        raise InconsistentRecording(
            f"{folder}: {why}; its recordings and meta.json disagree, so it cannot be scored: run the same "
            "`floorbench run` command on this --out again to record the scenario afresh (the old files are kept "
            "in attempt-N/), or move the folder out of the run"
        )


DIALOGUE_FILES = ("turns.json", "meta.json", "model.wav", "timeline.jsonl")
"""what readers take from a dialogue folder by name (the track files meta.json names are checked with it)"""


def read_checked_dialogue(folder: Path) -> None:
    """`check_recording` for a dialogue folder found on disk (its meta.json and turns.json, when readable);
    a file it reads that is a link out of the folder is refused first (floorbench.paths)."""
    inside_each(folder, DIALOGUE_FILES, str(folder), RefusedInput)
    try:
        meta = RunMeta.model_validate(_read_json(folder / "meta.json")) if (folder / "meta.json").is_file() else None
        turns = load_turns(folder / "turns.json") if (folder / "turns.json").is_file() else None
    except (InputError, ValidationError):
        return  # unreadable records are reported where they are read
    if meta is not None and meta.outcome == Outcome.completed:
        check_recording(folder, meta, turns)


@dataclass
class DialogueSource:
    """One dialogue folder found on disk."""

    folder: Path
    turns: DialogueTurns | None = None
    meta: RunMeta | None = None
    outcome: str = "completed"
    error: str | None = None

    @property
    def model_wav(self) -> Path:
        return self.folder / "model.wav"

    @property
    def clock(self) -> str:
        """'timing' (turns.json's turns and model_time_map: each track's sender clock plus its leg's median
        latency, docs/transport.md) or 'recorder' (a folder from before the sender records, or from elsewhere)."""
        return "timing" if self.turns is not None and self.turns.clock == "timing" else "recorder"

    @property
    def time_map(self) -> TimeMap:
        """model.wav onto the turns' clock (empty: the recording's own, for a recorder-clock folder)."""
        return time_map_of(self.turns.model_time_map if self.turns is not None else None)

    def legs(self) -> dict[int, dict[str, float]]:
        """Per turn, its measured legs (turns.json ``legs``: humans → room, humans → model, model → room ms)."""
        out: dict[int, dict[str, float]] = {}
        for t in self.turns.turns if self.turns is not None else []:
            legs = (t.model_extra or {}).get("legs")
            if isinstance(legs, dict):
                out[t.turn_id] = {str(k): float(v) for k, v in legs.items() if isinstance(v, int | float)}
        return out


@dataclass
class Discovery:
    """Everything found under a target folder."""

    root: Path
    kind: str
    """'run' (has run.json), 'recordings' or 'dialogue'"""
    run_info: dict[str, Any] = field(default_factory=dict)
    dialogues: list[DialogueSource] = field(default_factory=list)

    @property
    def scorable(self) -> list[DialogueSource]:
        return [d for d in self.dialogues if d.error is None and d.outcome == "completed"]

    def counts(self) -> dict[str, int]:
        out = {"found": len(self.dialogues), "scored": len(self.scorable), "unreadable": 0}
        for o in Outcome:
            out[o.value] = 0
        for d in self.dialogues:
            if d.error is not None:
                out["unreadable"] += 1
            else:
                out[d.outcome] = out.get(d.outcome, 0) + 1
        return out

    @property
    def errors(self) -> list[str]:
        return [d.error for d in self.dialogues if d.error]


def _read_json(path: Path) -> Any:
    """A record file through the one reader (`floorbench.readers`: bounded size and depth, finite numbers)."""
    from floorbench.readers import load_json

    return load_json(path, InputError, "fix or re-export the file")


def first_error(e: ValidationError) -> str:
    """The first problem pydantic found, as one short phrase for an error line."""
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"])
    return f"field '{loc}': {err['msg']}"


def load_turns(path: Path) -> DialogueTurns:
    """Read and check a turns.json; raise `InputError` with one line on any problem."""
    raw = _read_json(path)
    try:
        turns = DialogueTurns.model_validate(raw)
    except ValidationError as e:
        raise InputError(f"{path}: {first_error(e)}; see docs/scoring.md for the format") from e
    check_turns(turns, path)
    try:
        time_map_of(turns.model_time_map)
    except ValueError as e:
        raise InputError(f"{path}: {e}; re-run the scenario or remove model_time_map (the recorder's clock)") from e
    turns.turns.sort(key=lambda t: (t.start_ms, t.turn_id))
    return turns


def read_scored_text(path: Path) -> str:
    """A file `floorbench score` wrote, as text; one-line `InputError` if it is not UTF-8 or unreadable."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start}); re-run `floorbench score`") from e
    except OSError as e:
        raise InputError(f"{path}: cannot be read ({e.strerror}); re-run `floorbench score`") from e


def check_turns(turns: DialogueTurns, path: Path) -> None:
    """The constraints scoring relies on (a subset of the scenario validator's)."""
    ts = sorted(turns.turns, key=lambda t: (t.start_ms, t.turn_id))
    if not ts:
        raise InputError(f"{path}: 'turns' is empty; a dialogue needs its human turns")
    seen: set[int] = set()
    suite = suite_of_labels(ts[0].label)
    if suite is None:
        raise InputError(f"{path}: turn {ts[0].turn_id}: unknown label '{ts[0].label}'; use one suite's labels: "
                         + "; ".join(f"{s.name}: {', '.join(s.labels)}" for s in all_suites() if s.labels))
    missing = next((name for name in suite.turns_fields if not isinstance((turns.model_extra or {}).get(name), str)),
                   None)
    if missing is not None:
        raise InputError(f"{path}: field '{missing}': missing or not text (suite {suite.name}'s scorer reads it); "
                         "re-run the scenario, or see docs/scoring.md for the format")
    known = suite.labels
    for i, t in enumerate(ts):
        where = f"{path}: turn {t.turn_id}"
        if t.turn_id in seen:
            raise InputError(f"{where}: turn_id repeated; give every turn its own id")
        seen.add(t.turn_id)
        if t.label not in known:
            raise InputError(f"{where}: unknown label '{t.label}'; use one of {', '.join(known)}")
        if t.start_ms < 0 or t.end_ms < t.start_ms:
            raise InputError(f"{where}: start_ms {t.start_ms} / end_ms {t.end_ms} invalid; need 0 <= start <= end")
        if i + 1 < len(ts) and ts[i + 1].start_ms < t.end_ms:
            raise InputError(
                f"{where}: ends at {t.end_ms} ms after turn {ts[i + 1].turn_id} starts "
                f"({ts[i + 1].start_ms} ms); human turns must not overlap"
            )
    if suite.has("check_turns") and (problem := suite.part("check_turns")(ts)):
        raise InputError(f"{path}: {problem}")


def _check_inside(root: Path, folder: Path) -> None:
    """A dialogue folder and the files read from it stay under the folder given to `score`
    (a symlink to elsewhere would score, or expose, files the user did not point at): refused."""
    base = root if folder == root else inside(root, folder.name, str(folder), RefusedInput)
    for name in DIALOGUE_FILES:
        inside(base, name, str(folder / name), RefusedInput)


def _dialogue(folder: Path, root: Path) -> DialogueSource:
    src = DialogueSource(folder=folder)
    try:
        _check_inside(root, folder)
        if (folder / "meta.json").is_file():
            try:
                src.meta = RunMeta.model_validate(_read_json(folder / "meta.json"))
            except ValidationError as e:
                raise InputError(f"{folder / 'meta.json'}: {first_error(e)}") from e
            src.outcome = src.meta.outcome.value
        if src.outcome != "completed":
            return src
        if not (folder / "turns.json").is_file():
            raise InputError(f"{folder}: no turns.json; a dialogue folder needs model.wav and turns.json")
        if not src.model_wav.is_file():
            raise InputError(f"{folder}: no model.wav; a dialogue folder needs model.wav and turns.json")
        src.turns = load_turns(folder / "turns.json")
        check_recording(folder, src.meta, src.turns)
        check_covered(src.model_wav, src.turns, folder / "turns.json")
    except RefusedInput:
        raise
    except InputError as e:
        src.error = str(e)
    return src


def check_covered(wav: Path, turns: DialogueTurns, path: Path) -> None:
    """A dialogue whose every turn starts at or after the end of model.wav was not recorded at all (a
    turns.json from another run, or times in the wrong unit): `InputError`, so it is skipped, never scored
    as a model that kept silent. Turns partly past the end are each suite's to mark unscorable. A
    model.wav that is not a readable mono track is left to the track reader, which names the problem."""
    import soundfile as sf

    try:
        info = sf.info(str(wav))
    except (RuntimeError, sf.LibsndfileError):
        return
    if info.channels != 1 or info.samplerate not in ACCEPTED_RATES or not info.frames or not turns.turns:
        return  # the track reader's own line says what is wrong with it
    end_ms = info.frames * 1000 // info.samplerate
    first = min(turns.turns, key=lambda t: t.start_ms)
    if first.start_ms >= end_ms:
        raise InputError(
            f"{path}: every turn starts after model.wav ends (turn {first.turn_id} at {first.start_ms} ms, the "
            f"recording {end_ms} ms); the recording does not cover this dialogue: check turns.json's times (ms) "
            "and that it belongs to this model.wav"
        )


def label_suite(label: str) -> str | None:
    """The suite whose turn labels include `label` (`SuitePlugin.labels`), None when none does."""
    return next((s.name for s in all_suites() if label in s.labels), None)


def check_one_suite(disc: Discovery) -> None:
    """A folder is scored as one suite: dialogues of two suites (by their turns' labels) in one folder are
    refused (`RefusedInput`, naming one dialogue of each), never scored as the first one found."""
    seen: dict[str, Path] = {}
    for d in disc.scorable:
        if d.turns is None or not d.turns.turns:
            continue
        name = label_suite(d.turns.turns[0].label) or "?"
        seen.setdefault(name, d.folder)
    if len(seen) > 1:
        (a, fa), (b, fb) = list(seen.items())[:2]
        raise RefusedInput(
            f"{disc.root}: holds dialogues of more than one suite (suite {a}: {fa.name}, suite {b}: {fb.name}); "
            "move each suite's dialogues into a folder of their own and score each"
        )


def _is_dialogue(folder: Path) -> bool:
    return any((folder / n).exists() for n in ("turns.json", "meta.json", "model.wav"))


def discover(target: Path) -> Discovery:
    """Find the dialogues under `target` (a run directory, a recordings folder or one dialogue)."""
    if not target.is_dir():
        raise InputError(f"{target}: not a folder; give a run directory or a recordings folder")
    if (target / "turns.json").is_file():
        return Discovery(root=target, kind="dialogue", dialogues=[_dialogue(target, target)])
    run_info: dict[str, Any] = {}
    kind = "recordings"
    if (target / "run.json").is_file():
        kind = "run"
        info = _read_json(target / "run.json")
        run_info = info if isinstance(info, dict) else {}
    subs = sorted(p for p in target.iterdir() if p.is_dir() and _is_dialogue(p))
    if not subs:
        raise InputError(
            f"{target}: no dialogue folders (sub-folders with model.wav and turns.json) found"
        )
    disc = Discovery(root=target, kind=kind, run_info=run_info, dialogues=[_dialogue(p, target) for p in subs])
    check_one_suite(disc)
    first: dict[str, Path] = {}
    for d in disc.scorable:
        assert d.turns is not None
        sid = d.turns.scenario_id
        if sid in first:
            d.error = (
                f"{d.folder / 'turns.json'}: scenario_id '{sid}' already used by {first[sid]}; "
                "give every dialogue its own scenario_id"
            )
        else:
            first[sid] = d.folder
    return disc


def read_model_track(path: Path) -> tuple[np.ndarray, int]:
    """model.wav as int16 at 16 kHz, and the file's own rate. One-line `InputError` on a bad file."""
    import soundfile as sf

    try:
        info = sf.info(str(path))
    except (RuntimeError, sf.LibsndfileError) as e:
        raise InputError(f"{path}: not a readable audio file ({e}); export mono WAV at 16/24/48 kHz") from e
    if info.channels != 1:
        raise InputError(f"{path}: {info.channels} channels; scoring needs the model's track alone, mono")
    if info.samplerate not in ACCEPTED_RATES:
        raise InputError(
            f"{path}: {info.samplerate} Hz; resample to 16000, 24000 or 48000 Hz before scoring"
        )
    if info.frames == 0:
        raise InputError(f"{path}: holds no samples; the model's track was not recorded, re-run the scenario")
    # read as float so that NaN/inf samples (possible only in float files) can be seen
    try:
        audio_f, rate = sf.read(str(path), dtype="float32", always_2d=False)
    except (RuntimeError, sf.LibsndfileError) as e:  # a header that reads, a body that does not
        raise InputError(
            f"{path}: truncated or corrupt audio ({e}); re-run the scenario or re-export it as mono WAV"
        ) from e
    bad = int(np.count_nonzero(~np.isfinite(audio_f)))
    if bad:
        raise InputError(
            f"{path}: {bad} NaN or infinite samples; the recording is corrupt, re-run the scenario or re-export it"
        )
    audio = np.clip(np.rint(audio_f * 32768.0), -32768, 32767).astype(np.int16)
    if rate != SCORING_RATE:
        import soxr

        audio = soxr.resample(audio, rate, SCORING_RATE, quality="HQ")
    return np.ascontiguousarray(audio, dtype=np.int16), int(rate)


def clock_counts(sources: list[DialogueSource]) -> dict[str, int]:
    """``clock_timing``: dialogues scored on the timing clock (sender records); ``clock_recorder``: on the
    recorder's clock (a folder from before them, or recordings from elsewhere)."""
    timing = sum(1 for d in sources if d.clock == "timing")
    return {"clock_timing": timing, "clock_recorder": len(sources) - timing}


def run_label(disc: Discovery) -> str:
    """A short name for the run in reports: the model card's name, else the folder name."""
    model = disc.run_info.get("model")
    if isinstance(model, dict) and model.get("name"):
        return str(model["name"])
    if isinstance(model, str) and model:
        return model
    for d in disc.dialogues:
        if d.meta and d.meta.model.get("name"):
            return str(d.meta.model["name"])
    return disc.root.name
