"""Resume and retry: what a run folder already holds, and what is left to run.

Running `floorbench run` again with the same ``--out`` continues the run. A
scenario is kept when its folder is intact — ``meta.json`` says `completed`
and ``model.wav``, ``humans.wav`` and ``turns.json`` are there and readable;
everything else (``in_progress`` left by a crash, ``failed``, ``interrupted``,
never started) runs again. Before a scenario runs again its earlier
``meta.json`` and ``timeline.jsonl`` are kept as ``meta.attempt-N.json`` and
``timeline.attempt-N.jsonl``, and every other file of that attempt moves into
``attempt-N/`` (recovered there when the attempt was killed), so every attempt
stays on record and the next one starts from an empty folder.

A folder made with another suite (name or suite hash) or another model card is
refused with one line: results of two systems or two suites never mix.

Within one invocation a scenario that failed for an infrastructure reason
(`INFRASTRUCTURE`) is tried again up to ``--retries`` times; a model's own
failure (it crashed, left, errored, timed out) is a result, not retried.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from floorbench.audio.consistency import recording_disagreement
from floorbench.audio.files import recover_folder
from floorbench.errors import FloorbenchError
from floorbench.paths import inside, inside_each
from floorbench.records import DialogueTurns, FailureKind, Outcome, RunMeta, read_meta
from floorbench.scenarios.validate import LoadedSuite, ScenarioError

INFRASTRUCTURE = frozenset(
    {
        FailureKind.server_died,
        FailureKind.model_never_joined,
        FailureKind.join_timeout,
        FailureKind.connection_lost,
        FailureKind.playback_stalled,
        FailureKind.worker_lost,
    }
)
"""failures of the room, not of the model: the server died, the model's process or
participant did not come up within the join timeout, the harness's own recorder or playback
did not (an overloaded machine or server), the server dropped the model's connection while its
process ran, the room ran out of time because its own playback stalled, or (dispatch) the worker
running it was lost"""
OVERLOAD = frozenset({FailureKind.join_timeout, FailureKind.connection_lost, FailureKind.playback_stalled})
"""the infrastructure failures that say the machine holds fewer rooms: `--concurrency auto` counts them
as degraded verdicts (a server killed or a worker lost says nothing about capacity)"""
RECORDINGS = ("model.wav", "humans.wav")
log = logging.getLogger(__name__)


class ResumeMismatch(FloorbenchError):
    """The run folder holds another suite's or another model's results."""


def suite_hash(suite: LoadedSuite) -> str:
    """SHA-256 over suite.yaml, every scenario file and audio/manifest.json (names and bytes)."""
    h = hashlib.sha256()
    files = [suite.root / "suite.yaml", *sorted(suite.files.values()), suite.root / "audio" / "manifest.json"]
    for p in files:
        if p.is_file():
            rel = inside(suite.root, p.relative_to(suite.root), f"{suite.root}: suite file", ScenarioError)
            h.update(str(rel.relative_to(suite.root.resolve())).encode())
            h.update(b"\0")
            h.update(p.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


@dataclass(frozen=True)
class RunIdentity:
    """What must match for a folder's results to be continued: suite, its hash, the model card."""

    suite: str
    suite_hash: str
    model: dict[str, Any]
    network: dict[str, Any] | None = None
    """the network impairment (`ImpairProfile.spec()`), None without one: results under another
    impairment are other results"""
    acoustics: dict[str, Any] | None = None
    """the acoustic condition (`AcousticProfile.spec()`), None: clean; the same rule"""

    def check(self, run_info: dict[str, Any], run_json: Path) -> None:
        """Raise `ResumeMismatch` (one line) unless `run_info` (an existing run.json) is this run's."""
        fix = f"use another --out, or remove {run_json.parent} to start over"
        if run_info.get("suite") != self.suite:
            raise ResumeMismatch(f"{run_json}: holds suite {run_info.get('suite')!r}, not {self.suite!r}; {fix}")
        if run_info.get("suite_hash") != self.suite_hash:
            raise ResumeMismatch(
                f"{run_json}: suite {self.suite!r} has changed since this folder was run "
                f"(suite hash {str(run_info.get('suite_hash'))[:12]} ≠ {self.suite_hash[:12]}); {fix}"
            )
        if _canonical(run_info.get("model")) != _canonical(self.model):
            name = (run_info.get("model") or {}).get("name") if isinstance(run_info.get("model"), dict) else None
            raise ResumeMismatch(
                f"{run_json}: holds results of model {name!r} with another model card than "
                f"{self.model.get('name')!r}; {fix}"
            )
        if _impairment(run_info.get("network")) != _impairment(self.network):
            raise ResumeMismatch(
                f"{run_json}: was run with network impairment {_profile(run_info.get('network'))}, "
                f"not {_profile(self.network)}; {fix}"
            )
        if _acoustics(run_info.get("acoustics")) != _acoustics(self.acoustics):
            raise ResumeMismatch(
                f"{run_json}: was run with acoustics {_profile(run_info.get('acoustics'))}, "
                f"not {_profile(self.acoustics)}; {fix}"
            )


    def check_kept(self, out: Path, kept: list[str]) -> None:
        """Kept folders must hold this suite's and this model's results (a folder may lack run.json)."""
        for sid in kept:
            meta = read_meta(out / sid)
            if meta is not None and _impairment(meta.network) != _impairment(self.network):
                raise ResumeMismatch(
                    f"{out / sid / 'meta.json'}: was run with network impairment {_profile(meta.network)}, not "
                    f"{_profile(self.network)}; use another --out, or remove {out} to start over"
                )
            if meta is not None and _acoustics(meta.acoustics) != _acoustics(self.acoustics):
                raise ResumeMismatch(
                    f"{out / sid / 'meta.json'}: was run with acoustics {_profile(meta.acoustics)}, not "
                    f"{_profile(self.acoustics)}; use another --out, or remove {out} to start over"
                )
            if meta is not None and (meta.suite != self.suite or _canonical(meta.model) != _canonical(self.model)):
                raise ResumeMismatch(
                    f"{out / sid / 'meta.json'}: holds results of suite {meta.suite!r}, model "
                    f"{meta.model.get('name')!r}, not this run's; use another --out, or remove {out} to start over"
                )


IMPAIRMENT_KEYS = ("profile", "delay_ms", "jitter_ms", "loss_pct", "legs", "seed")
"""what makes two impairments the same (not how this machine applied them)"""


def _impairment(network: Any) -> str:
    if not isinstance(network, dict):
        return _canonical(None)
    return _canonical({k: network.get(k) for k in IMPAIRMENT_KEYS})


ACOUSTICS_KEYS = ("profile", "room", "rt60_ms", "distance_cm", "noises", "snr_db", "phone", "seed")
"""what makes two acoustic conditions the same (not what was measured on them)"""


def _acoustics(record: Any) -> str:
    if not isinstance(record, dict):
        return _canonical(None)
    return _canonical({k: record.get(k) for k in ACOUSTICS_KEYS})


def _profile(network: Any) -> str:
    return repr(network.get("profile")) if isinstance(network, dict) else "none"


def _canonical(card: Any) -> str:
    return json.dumps(card, sort_keys=True, default=str)


def read_run_info(out: Path) -> dict[str, Any] | None:
    """The existing run.json of `out`, None when there is none; one-line error when it is broken."""
    path = out / "run.json"
    # run.json is read and rewritten, livekit.log appended to: never through a link out of the run folder
    inside_each(out, ["run.json", "livekit.log"], f"{out} (replace the link with the file itself, or use another --out)",
                ResumeMismatch)
    if not path.is_file():
        return None
    from floorbench.readers import ReadError, load_json

    try:
        info = load_json(path)
    except ReadError as e:
        raise ResumeMismatch(f"{path}: unreadable ({str(e).removeprefix(f'{path}: ')}); remove the folder or use "
                             "another --out") from None
    if not isinstance(info, dict):
        raise ResumeMismatch(f"{path}: not a run.json (not a mapping); remove the folder or use another --out")
    return info


def why_not_intact(folder: Path) -> str | None:
    """None when the folder holds a completed scenario with readable records that agree with its meta.json
    (audio.consistency); else why it must run again."""
    meta = read_meta(folder)
    if meta is None:
        return "no readable meta.json"
    if meta.outcome != Outcome.completed:
        return f"outcome {meta.outcome.value}"
    try:
        turns = DialogueTurns.model_validate_json((folder / "turns.json").read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError):
        return "no readable turns.json"
    import soundfile as sf

    for name in RECORDINGS:
        try:
            info = sf.info(str(folder / name))
        except Exception:  # soundfile raises RuntimeError or LibsndfileError, OSError for a missing file
            return f"no readable {name}"
        if info.frames <= 0:
            return f"{name} is empty"
    why = recording_disagreement(folder, meta, turns)  # the check every reader of recordings makes
    return None if why is None else f"records disagree: {why}"


@dataclass(frozen=True)
class ResumePlan:
    """Scenario ids in suite order: kept as they are, or to run (with why)."""

    keep: list[str]
    run: dict[str, str]
    """scenario id → why it runs ('new', 'outcome failed', 'no readable turns.json', …)"""


def plan(out: Path, scenario_ids: list[str]) -> ResumePlan:
    """Which of `scenario_ids` the folder `out` already holds intact, and which must run."""
    keep: list[str] = []
    run: dict[str, str] = {}
    for sid in scenario_ids:
        folder = out / sid
        confine_folder(out, sid)
        if not folder.exists():
            run[sid] = "new"
            continue
        why = why_not_intact(folder)
        if why is None:
            keep.append(sid)
        else:
            run[sid] = why
    return ResumePlan(keep, run)


ATTEMPT_NAME = re.compile(r"^(?:meta\.attempt-(\d+)\.json|timeline\.attempt-(\d+)\.jsonl|attempt-(\d+))$")
"""what an earlier attempt keeps in the scenario folder: its meta.json and timeline.jsonl renamed,
and its other files (recordings, frame logs, model.log, video) in the folder ``attempt-N/``"""
DISPATCH_STATE = frozenset({".dispatch.lock", "dispatch.json"})
"""the scenario's dispatch state (pipelines/dispatch.py): the runner's, not an attempt's"""


def _attempt_of(name: str) -> int | None:
    m = ATTEMPT_NAME.match(name)
    return None if m is None else int(next(g for g in m.groups() if g is not None))


KEPT_FILES = ("meta.json", "turns.json", "timeline.jsonl", *RECORDINGS)
"""what resume reads of a scenario folder"""


def confine_folder(out: Path, sid: str) -> None:
    """A scenario folder of the run, and the files resume reads from it, stay inside `out` (floorbench.paths):
    a link to elsewhere refuses the run in one line before anything is written."""
    fix = "replace the link with the folder or file itself, or use another --out"
    folder = out / sid
    inside(out, sid, f"{out}: scenario folder {sid} ({fix})", ResumeMismatch)
    if folder.is_dir():
        inside_each(folder, KEPT_FILES, f"{folder} ({fix})", ResumeMismatch)


def attempts_on_record(folder: Path) -> int:
    """The highest attempt number the folder keeps (meta.attempt-N.json, timeline.attempt-N.jsonl, attempt-N/)."""
    if not folder.is_dir():
        return 0
    return max((n for p in folder.iterdir() if (n := _attempt_of(p.name)) is not None), default=0)


def attempt_files(folder: Path) -> list[Path]:
    """The files of the folder's last attempt: everything but earlier attempts' records and the dispatch state."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if _attempt_of(p.name) is None and p.name not in DISPATCH_STATE)


def archive_attempt(folder: Path) -> int:
    """Keep the last attempt's files as that attempt's, so the next starts from an empty folder; its number.

    meta.json and timeline.jsonl become ``meta.attempt-N.json`` and
    ``timeline.attempt-N.jsonl``; every other file it left (part files, WAVs,
    ``tracks/``, model.log, video) moves into ``attempt-N/``, where part files left
    by a killed process are turned into WAVs and a WAV whose header was never
    finalised gets its header from the data length (audio.files.recover_folder).
    Nothing of an earlier attempt is ever appended to or overwritten. A folder
    with nothing in it (never started) has nothing to keep.
    """
    n = attempts_on_record(folder)
    files = attempt_files(folder)
    if not files:
        return n + 1
    n += 1
    rest = [p for p in files if p.name not in ("meta.json", "timeline.jsonl")]
    if rest:
        kept = folder / f"attempt-{n}"
        kept.mkdir()
        for p in rest:
            p.replace(kept / p.name)
        for note in recover_folder(kept):
            log.info("%s attempt %d: %s", folder.name, n, note)
    # meta.json last: a folder that still has it has not been archived in full
    if (folder / "timeline.jsonl") in files:
        (folder / "timeline.jsonl").replace(folder / f"timeline.attempt-{n}.jsonl")
    if (folder / "meta.json") in files:
        (folder / "meta.json").replace(folder / f"meta.attempt-{n}.json")
    return n + 1


def should_retry(meta: RunMeta, tries_here: int, retries: int) -> bool:
    """Retry a scenario whose failure was the infrastructure's, while this invocation has retries left."""
    return meta.outcome == Outcome.failed and meta.failure_kind in INFRASTRUCTURE and tries_here <= retries
