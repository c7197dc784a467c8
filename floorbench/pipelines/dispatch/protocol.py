"""The dispatch protocol between `run --play-on workers` and `floorbench worker`, on a shared run folder.

LiveKit's agent dispatch carries the job: the runner creates the scenario's room
with an explicit dispatch to the workers' agent name, and the job's metadata
(`JobSpec`) names the suite by its manifest hash, the scenario, the model with
its config, the settings, the run folder and an **attempt token**. Everything
else travels through the run folder, which every worker must be able to write
(one disk for one box; a shared filesystem with working POSIX locks for many):

- ``OUT/<id>/dispatch.json`` — the attempt the runner waits for (its token);
  only the runner changes the token, under the folder's lock.
- ``OUT/.dispatch/<token>/claim.json`` — written by the worker that accepted
  the job and touched every `HEARTBEAT_S` while the scenario runs; the
  scenario plays into ``OUT/.dispatch/<token>/<id>/`` (staging).
- `publish`: at the end the worker moves its staged files into ``OUT/<id>/``
  (meta.json last) — only while ``dispatch.json`` still holds its token, under
  the lock. A worker that the runner gave up on (lost, then re-dispatched)
  finds another token and leaves its staging folder as it is: each scenario
  is completed exactly once, and a late finisher never overwrites a result.
- a refusing worker logs its one-line reason and rejects the job, so LiveKit
  may offer it to another worker; it writes nothing for a job it refuses (not
  even the refusal: the folder is the job's word, not the worker's).

A worker trusts the metadata for nothing it was not started with: the token
is `TOKEN_RE` (so ``OUT/.dispatch/<token>`` stays inside the run folder), the
run folder must lie under the worker's ``--out-root``, the suite under one of
its ``--suite`` copies (by manifest hash) and the model and its config must
hash to its own (`model_config_hash`); the settings are checked against
`job_settings`' list and bounds (no URL, no key, no variable name: the
persona's endpoint and key come from the worker's own command line); a job
that asks for anything else is refused (worker.py `Pins`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from floorbench import __version__
from floorbench.errors import FloorbenchError
from floorbench.escape import printable
from floorbench.pipelines.run.scenario_run import ScenarioSettings
from floorbench.records import FailureKind, Outcome, RunMeta, read_meta, with_run_fields, write_json_atomic
from floorbench.redact import names_a_secret
from floorbench.scenarios.interface import ScenarioRecord

DEFAULT_AGENT = "floorbench"
STAGING = ".dispatch"
"""OUT/.dispatch/<token>/: claims, heartbeats, refusals and the staged scenario folders"""
HEARTBEAT_S = 2.0
"""how often a worker touches its claim while a scenario runs"""
PROTOCOL = 1


class DispatchError(FloorbenchError):
    """A dispatch job that cannot be read, or a run folder the dispatch protocol cannot use."""


class JobSpec(BaseModel):
    """The dispatch metadata: everything a worker needs to run one attempt of one scenario."""

    protocol: int = PROTOCOL
    suite: str
    suite_hash: str
    scenario_id: str
    model: str
    config: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    """`settings_record` of the run's ScenarioSettings"""
    out: str
    """the run folder, an absolute path every worker can write"""
    run_id: str
    token: str
    attempt: int = 1

    def room_run_id(self) -> str:
        """Each attempt gets a room of its own: a lost worker's room may linger for a while."""
        return f"{self.run_id}-{self.token[:8]}"

    @classmethod
    def parse(cls, metadata: str) -> JobSpec:
        try:
            spec = cls.model_validate_json(metadata)
        except (ValidationError, ValueError) as e:
            first = str(e).splitlines()[0][:160]
            raise DispatchError(f"dispatch metadata is not a floorbench job ({first}); is another agent named the same?") from None
        if spec.protocol != PROTOCOL:
            raise DispatchError(f"dispatch protocol {spec.protocol}, this worker speaks {PROTOCOL}; update floorbench on every box")
        return spec


TOKEN_RE = re.compile(r"[0-9a-f]{16}")
"""an attempt token, as `new_token` makes them: nothing else ever names a folder"""


def new_token() -> str:
    return secrets.token_hex(8)


def is_token(token: object) -> bool:
    return isinstance(token, str) and TOKEN_RE.fullmatch(token) is not None


def model_config_hash(model: str, config: dict[str, Any]) -> str:
    """SHA-256 of the model's name and config (canonical JSON): what a worker is pinned to with
    ``--config`` or ``--config-hash``, and what the runner prints when it dispatches."""
    text = json.dumps({"model": model, "config": config}, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_and_config(model: str | None, config: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The model's name (`model`, else the config's ``adapter``/``model``, popped) and its config, as
    `run` reads them: a worker reading the same --model/--config gets the same hash."""
    cfg = dict(config)
    name = model or cfg.pop("adapter", None) or cfg.pop("model", None)
    return (str(name) if name else None), cfg


def settings_record(s: ScenarioSettings) -> dict[str, Any]:
    """The settings a worker needs, as JSON. Network impairment does not travel (not built for dispatch)."""
    if s.impair is not None and s.impair.active:
        raise DispatchError("--impair with --play-on workers is not built yet; run the impaired suite on one box")
    if s.acoustics is not None and s.acoustics.active:
        raise DispatchError("--acoustics with --play-on workers is not built yet; run the suite on one box")
    skip = ("schedule", "impair", "acoustics")
    record = {f.name: getattr(s, f.name) for f in dataclasses.fields(s) if f.name not in skip}
    record["print_join"] = False
    # the persona's endpoint and key are each worker's own (its command line), never sent in a job
    record["schedule"] = {k: v for k, v in s.schedule.items() if not str(k).startswith("persona_")}
    return record


RATES = (16000, 24000, 48000)
JOB_NUMBERS: dict[str, tuple[float, float, bool]] = {
    # setting: (lowest, highest, whole number)
    "model_out_queue_ms": (10, 2000, True),
    "playback_queue_ms": (10, 5000, True),
    "model_join_timeout_s": (1, 3600, False),
}
MAX_SCHEDULE_CHARS = 16_384
MAX_SCHEDULE_DEPTH = 6


def settings_from(record: dict[str, Any], max_room_s: float = 3600.0,
                  bound: dict[str, str] | None = None) -> ScenarioSettings:
    """A job's settings back into ScenarioSettings (the worker's side), each checked against what a worker
    allows: only `settings_record`'s names, rates from `RATES`, numbers within `JOB_NUMBERS`, a room limit
    (``timeout_s``) of at most `max_room_s`, and schedule options that name no URL, key, header or
    environment variable (the persona's binding is the worker's own: `bound`, from its command line).
    One-line `DispatchError` for anything else."""
    if not isinstance(record, dict):
        raise DispatchError("settings: not a mapping of settings")
    record = dict(record)
    sched = record.pop("schedule", {}) or {}
    if not isinstance(sched, dict):
        raise DispatchError(f"settings: schedule is {type(sched).__name__}, not a mapping of options")
    names = {"record_rate", "model_in_rate", "model_out_rate", "timeout_s", "print_join", *JOB_NUMBERS}
    unknown = sorted(str(k)[:40] for k in record if k not in names)  # a setting added later: refused until listed
    if unknown:
        raise DispatchError(f"settings: {unknown[0]!r} is no setting a worker takes from a job")
    kept: dict[str, Any] = {}
    for k, v in record.items():
        if k == "print_join":
            continue  # a worker never prints join tokens
        if k in ("record_rate", "model_in_rate", "model_out_rate"):
            if type(v) is not int or v not in RATES:
                raise DispatchError(f"settings: {k}={printable(str(v)[:20])}; a worker takes {', '.join(map(str, RATES))}")
        elif k == "timeout_s":
            if v is not None:
                _bounded(k, v, 1, max_room_s, False)
        else:
            _bounded(k, v, *JOB_NUMBERS[k])
        kept[k] = v
    _check_schedule(sched)
    return ScenarioSettings(**kept, schedule={**sched, **(bound or {})})


def _bounded(name: str, value: object, lo: float, hi: float, whole: bool) -> None:
    import math

    ok = type(value) is int or (not whole and type(value) is float and math.isfinite(value))
    if not ok or not lo <= value <= hi:  # type: ignore[operator]
        raise DispatchError(f"settings: {name}={printable(str(value)[:20])}; a worker takes {lo:g} to {hi:g}")


def _check_schedule(sched: dict[str, Any]) -> None:
    """Schedule options as data: bounded in size and depth, finite numbers, and no key that names a URL,
    a key, a header or an environment variable (`BINDING_OPTIONS` and anything like them)."""
    import math

    try:
        text = json.dumps(sched, allow_nan=False)
    except (TypeError, ValueError):
        raise DispatchError("settings: schedule holds a value that is not plain JSON (or not finite)") from None
    if len(text) > MAX_SCHEDULE_CHARS:
        raise DispatchError(f"settings: schedule is over {MAX_SCHEDULE_CHARS} characters")

    def walk(value: object, depth: int) -> None:
        if depth > MAX_SCHEDULE_DEPTH:
            raise DispatchError(f"settings: schedule is nested deeper than {MAX_SCHEDULE_DEPTH}")
        if isinstance(value, dict):
            for k, v in value.items():
                low = str(k).lower()
                if names_a_secret(low) or "url" in low or low.startswith("persona_"):
                    raise DispatchError(f"settings: schedule option {str(k)[:40]!r} is not a job's to set (URLs, keys "
                                        "and the persona's endpoint come from the worker's command line)")
                walk(v, depth + 1)
        elif isinstance(value, list):
            for v in value:
                walk(v, depth + 1)
        elif isinstance(value, float) and not math.isfinite(value):
            raise DispatchError("settings: schedule holds a number that is not finite")
        elif isinstance(value, str) and "://" in value:
            raise DispatchError("settings: schedule holds a URL; a worker takes none from a job")

    walk(sched, 0)


def staging(out: Path, token: str) -> Path:
    """OUT/.dispatch/<token>; a token that is no `TOKEN_RE` (``../x``) is refused, never joined to a path."""
    if not is_token(token):
        raise DispatchError("the job's attempt token is not 16 hexadecimal digits; refused")
    return out / STAGING / token


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on a scenario folder (flock on OUT/<id>/.dispatch.lock), across processes and boxes."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".dispatch.lock").open("a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def current(folder: Path) -> dict[str, Any]:
    """The scenario's dispatch.json ({} when none)."""
    return read_json(folder / "dispatch.json") or {}


def open_attempt(folder: Path, token: str, attempt: int) -> None:
    """The runner's side: from now on only `token`'s worker may publish into `folder`."""
    with folder_lock(folder):
        write_json_atomic(folder / "dispatch.json", {"token": token, "attempt": attempt, "state": "dispatched",
                                                     "dispatched_wall": time.time()})


def revoke(folder: Path, token: str, why: str) -> bool:
    """The runner gives up on `token` (lost or refused); False when its worker published first (then keep that)."""
    with folder_lock(folder):
        state = current(folder)
        if state.get("token") == token and state.get("state") == "published":
            return False
        write_json_atomic(folder / "dispatch.json", {**state, "token": None, "revoked": token, "state": "revoked",
                                                     "why": why})
        return True


def claim(out: Path, spec: JobSpec, worker: str) -> Path | None:
    """The worker's side, on accepting: its claim (the heartbeat file); the staging folder, or None.

    The first claim wins (created exclusively): the runner offers an unclaimed job
    again, so two workers may both be assigned the one attempt; the second plays nothing.
    """
    where = staging(out, spec.token)
    where.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(where / "claim.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"worker": worker, "scenario_id": spec.scenario_id, "attempt": spec.attempt,
                   "accepted_wall": time.time()}, f)
    return where


def beat(out: Path, token: str) -> None:
    """Touch the claim: the runner takes a claim older than its heartbeat timeout for a lost worker."""
    with contextlib.suppress(OSError):
        os.utime(staging(out, token) / "claim.json")


@dataclass(frozen=True)
class ClaimState:
    """What the runner sees of one attempt while it waits."""

    published: bool
    claimed: bool
    beat_age_s: float | None
    """seconds since the worker last touched its claim; None before a claim"""


def look(out: Path, scenario_id: str, token: str, now: float | None = None) -> ClaimState:
    state = current(out / scenario_id)
    published = state.get("token") == token and state.get("state") == "published"
    try:
        mtime = (staging(out, token) / "claim.json").stat().st_mtime
    except OSError:
        return ClaimState(published, False, None)
    return ClaimState(published, True, max(0.0, (now if now is not None else time.time()) - mtime))


def publish(out: Path, spec: JobSpec, worker: str) -> bool:
    """Move the staged scenario folder's files into OUT/<id>/ if `spec.token` is still the one awaited.

    Under the folder's lock, so a runner that revokes the token and a worker that
    publishes never both win. meta.json moves last: a reader that sees the new
    meta.json sees every file it names. False (nothing moved) for a superseded token.
    """
    folder = out / spec.scenario_id
    staged = staging(out, spec.token) / spec.scenario_id
    with folder_lock(folder):
        state = current(folder)
        if state.get("token") != spec.token or state.get("state") != "dispatched":
            return False
        for p in sorted(staged.iterdir(), key=lambda p: p.name == "meta.json"):
            if p.is_dir() and (folder / p.name).is_dir():  # an earlier attempt's tracks/
                shutil.rmtree(folder / p.name)
            os.replace(p, folder / p.name)
        write_json_atomic(folder / "dispatch.json", {**state, "state": "published", "worker": worker,
                                                     "published_wall": time.time()})
    return True


def take_over(out: Path, scenario: ScenarioRecord, suite: str, model_card: dict[str, Any]) -> RunMeta | None:
    """Before a runner dispatches a scenario: settle what an earlier runner, killed mid-attempt, left in flight.

    Under the folder's lock. A result that attempt's worker published since is kept: its meta.json is
    returned (None when the folder is not intact: it runs again). A token still awaited is revoked, so
    its worker, if it finishes, publishes nothing (its files stay in its staging folder); the attempt goes
    on record as ``interrupted`` (a stand-in meta.json, from its staged one when readable) and is archived
    like any other before the next attempt. Nothing in flight: None.
    """
    from floorbench.pipelines.run.resume import why_not_intact

    folder = out / scenario.scenario_id
    if not (folder / "dispatch.json").exists():
        return None
    with folder_lock(folder):
        state = current(folder)
        token = state.get("token")
        if not isinstance(token, str) or not token:
            return None
        if state.get("state") == "published":
            return read_meta(folder) if why_not_intact(folder) is None else None
        if state.get("state") != "dispatched":
            return None
        why = "the runner that dispatched this attempt stopped (killed) before its result came"
        write_json_atomic(folder / "dispatch.json", {**state, "token": None, "revoked": token, "state": "revoked",
                                                     "why": why})
        if not (folder / "meta.json").exists():
            staged = staging(out, token) / scenario.scenario_id
            staged_meta = read_meta(staged)
            room = staged_meta.room if staged_meta is not None else f"(dispatched with token {token[:8]})"
            meta = stand_in_meta(scenario, suite, room, model_card, int(state.get("attempt") or 1),
                                 FailureKind.interrupted, f"{why}; run again to resume", staged)
            write_json_atomic(folder / "meta.json", meta)
    return None


def stand_in_meta(
    scenario: ScenarioRecord, suite: str, room: str, model_card: dict[str, Any], attempt: int,
    kind: FailureKind, reason: str, staged: Path | None = None,
) -> RunMeta:
    """A failed meta.json for an attempt whose worker left none (lost, refused, or failed before its room).

    The staged meta.json of a lost worker, when readable, is the base: it says how far the scenario got.
    """
    from floorbench.clock import SessionClock

    meta = read_meta(staged) if staged is not None else None
    if meta is None:
        anchor = SessionClock().anchor
        meta = with_run_fields(RunMeta(
            floorbench_version=__version__, scenario_id=scenario.scenario_id, suite=suite, room=room,
            created_wall_ns=anchor.wall_ns, anchor=anchor, model=model_card,
        ), scenario.run_fields)
    meta.outcome, meta.failure_kind, meta.failure_reason, meta.attempt = Outcome.failed, kind, reason, attempt
    return meta
