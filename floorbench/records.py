"""Versioned records written to a run directory; imports nothing heavy.

One scenario run leaves a folder:

    meta.json          RunMeta: versions, clock anchors, model card, outcome
    timeline.jsonl     TimelineEvent per line: every schedule decision, live VAD
                       edge, participant event, transport stat
    turns.json         DialogueTurns: the human turns on the timing clock (each
                       track's sender clock plus its leg's median latency;
                       the recorder's clock in folders from before that),
                       t = 0 at the first sample of model.wav — the same format
                       as a plain recordings folder, so scoring reads one format
    model.wav          the model's track as the recorder heard it
    humans.wav         the humans' track as the recorder heard it
    tracks/*.frames.tsv  per received frame: cumulative sample index, arrival ns
    humans.sent.*, model.sent.*, model.heard.*  what the senders sent and the
                       model heard, on the session clock (pipelines.room.sender_log)
    humans.clean.wav   with --acoustics: the clean clips on the samples the
                       degraded ones were sent on (floorbench.speech.acoustics)

All times are integers: milliseconds (``*_ms``) or nanoseconds (``*_ns``) on
the session clock, or sample indexes. No float seconds are stored.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

RECORD_VERSION = 1


class EventKind(StrEnum):
    """What a timeline line records."""

    session_start = "session_start"
    """Clock anchors of a participant process."""
    participant = "participant"
    """A participant joined, left, published or unpublished a track."""
    preamble_start = "preamble_start"
    preamble_end = "preamble_end"
    turn_start = "turn_start"
    """A human turn's first sample leaves the playback participant."""
    turn_end = "turn_end"
    wait = "wait"
    """The schedule waits: why, until when, and how the wait ended."""
    model_vad = "model_vad"
    """Live VAD edge on the model's audio as the playback participant heard it."""
    marker = "marker"
    """A data-channel marker from a participant (carries the sender's clock)."""
    transport = "transport"
    """Transport statistics of a track (jitter buffer, concealment)."""
    underrun = "underrun"
    """The playback source ran dry (event loop stalled past its queue): the track's
    sample clock slipped by `slip_ms`; later timeline entries include the slip."""
    failure = "failure"
    """The scenario failed: a reason and a machine-readable kind."""
    branch = "branch"
    """A branching caller's decision (suite agent): the agent's words it reacted to, the rule it
    took and why, and the caller's own latency (its ASR and decision, never the agent's)."""
    persona = "persona"
    """An LLM-persona caller's line or its end (suite agent): the words it reacted to, the line the
    endpoint gave, the caller's own ASR/LLM/TTS latencies; or why the persona stopped."""
    tool = "tool"
    """A call to a test's mock tool (suite agent, floorbench.tools): the tool, its arguments, the response
    or error, and its start and end on the session clock."""
    end = "end"


class TimelineEvent(BaseModel):
    """One line of timeline.jsonl."""

    model_config = ConfigDict(extra="allow")

    t_ms: int = Field(description="session clock, ms since the run's anchor")
    kind: EventKind
    source: str = Field(description="who decided or observed it: playback, recorder, runner, model")
    turn_id: int | None = None
    sample: int | None = Field(default=None, description="sample index on the source's track")
    reason: str | None = None

    @classmethod
    def of(cls, t_ms: int, kind: EventKind, source: str, **fields: Any) -> TimelineEvent:
        """An event with fields beyond the common ones (kept flat in the JSON line)."""
        return cls.model_validate({"t_ms": t_ms, "kind": kind, "source": source, **fields})


class Outcome(StrEnum):
    """How a scenario run ended."""

    completed = "completed"
    failed = "failed"
    not_run = "not_run"
    in_progress = "in_progress"
    """Written at start; left so by a crash, which marks the scenario as lost in flight."""


class FailureKind(StrEnum):
    """Why a scenario run failed (machine-readable beside the reason text)."""

    model_never_joined = "model_never_joined"
    join_timeout = "join_timeout"
    """the harness's own participants (recorder, playback) did not join, publish or hear each other in time:
    an overloaded or unreachable server or machine, not the model"""
    model_left = "model_left"
    model_crashed = "model_crashed"
    model_error = "model_error"
    """the model's chain reported an error, or its model-server connection never came up or dropped"""
    server_died = "server_died"
    connection_lost = "connection_lost"
    """the server dropped the model participant's connection (a signal or media time-out) while floorbench's
    model process was still running: an overloaded machine or server, or the network; not the model's choice"""
    timeout = "timeout"
    playback_stalled = "playback_stalled"
    """the scenario ran out of time while the room's own playback had stalled (its audio ran dry for
    `run_watch.STALL_S` or more in all): an overloaded machine, not the model"""
    bad_input = "bad_input"
    internal = "internal"
    interrupted = "interrupted"
    """Ctrl-C or SIGTERM stopped the run mid-scenario; the next `run` with the same --out runs it again."""
    worker_lost = "worker_lost"
    """`run --play-on workers`: no worker took the job, or its worker stopped beating or finishing in time"""
    worker_refused = "worker_refused"
    """`run --play-on workers`: every worker that saw the job refused it (another suite copy); the reason says why"""


class ClockAnchor(BaseModel):
    """One process's pairing of the monotonic and the wall clock."""

    monotonic_ns: int
    wall_ns: int


class TrackInfo(BaseModel):
    """How one recorded track maps onto the session clock."""

    name: str = Field(description="track name: 'model', a configured name such as 'humans', or the identity made file-safe")
    participant: str = Field(description="LiveKit identity of the participant that published it")
    file: str = Field(description="the WAV file in the scenario folder, e.g. model.wav")
    sample_rate: int
    samples: int
    start_ms: int = Field(description="session time of sample 0 (low-percentile fit)")
    start_ns: int
    fit_residual_p50_us: int = Field(description="median arrival lateness vs the fit, µs")
    fit_residual_p99_us: int
    gaps_filled: int = Field(default=0, description="samples of silence inserted for gaps")


class TimingBounds(BaseModel):
    """What a scenario's timing must hold for its numbers to be trusted (docs/architecture.md, "Timing verdict").

    Integer µs where sub-millisecond precision matters; one frozen record, written
    beside every verdict so a reader knows which bounds judged it.
    """

    model_config = ConfigDict(frozen=True)

    onset_error_p99_max_us: int = 10_000
    """p99 of |onset error| over the found turns (a turn landing off its place)"""
    drift_max_us_per_100s: int = 5_000
    """|transport latency drift| over the scenario"""
    underruns_max: int = 0
    """playback underruns: the humans' audio ran dry and its clock slipped"""
    turns_not_found_max: int = 0
    """turns whose sent audio could not be found in the recording"""
    transport_latency_p95_max_ms: int = 1_000
    """a room this slow is overloaded, whatever its onset errors say"""
    receive_delay_max_ms: int = 250
    """mean jitter-buffer delay of any recorded track (the model's included): beyond it the recorder heard
    that track late — an overloaded receiver — and every time measured on it (a reply's latency) is late too"""
    heard_uncertain_max_us: int = 10_000
    """the sender-timed verdict: a reply the model began while it was hearing the humans speak is timed as if
    it had heard them at the median humans → model latency; how far its hearing moved around that moment (when
    exactly is unknown) is how unsure that reply's time is"""
    model_slips_max: int = 0
    """the sender-timed verdict: times the model's source ran dry inside audible audio (its clock slipped)"""
    stretch_max_us: int = 10_000
    """a track timed by a receiver's clock (an external agent's): how far that receiver's jitter buffer may
    have moved its audio over the scenario, from its counters (`floorbench.pipelines.room.neteq`)"""


class TimingFigures(BaseModel):
    """One scenario's measured timing; None where it could not be measured."""

    onset_error_p99_us: int | None = None
    drift_us_per_100s: int | None = None
    underruns: int | None = None
    turns_measured: int = 0
    turns_not_found: int = 0
    transport_latency_p95_ms: int | None = None
    receive_delay_ms: dict[str, int] = Field(default_factory=dict)
    """per recorded track: the receiver's mean jitter-buffer delay (WebRTC inbound-rtp stats; ≈ 40–50 ms on a
    quiet machine); a track without stats is absent"""
    model_slips: int | None = None
    """the model's source ran dry inside audible audio this often (None: no model.sent record)"""
    model_slipped_ms: float | None = None
    heard_turns: int = 0
    """turns found in what the model process received (model.heard.wav)"""
    heard_spread_us: int | None = None
    """the turn furthest from the scenario's median humans → model latency: its distance (the model's replies
    are timed with it taken out: `heard_correction_max_us`)"""
    heard_spread_turn: int | None = None
    heard_correction_max_us: int | None = None
    """the most taken off a reply's time because the model heard the audio before it later (or earlier) than the
    median humans → model latency (None: no hearing traced, or no reply)"""
    heard_uncertain_us: int | None = None
    """the largest uncertainty of that correction over the replies (`TimingBounds.heard_uncertain_max_us`)"""
    heard_latency_p95_ms: int | None = None
    model_onsets: int | None = None
    """audible runs the model sent (None: no model.sent record)"""
    model_onsets_not_found: int = 0
    receiver_stretch_us: dict[str, int] = Field(default_factory=dict)
    """per track timed by the recorder's clock: how far its jitter buffer moved it (from its counters)"""
    evidence_missing: list[str] = Field(default_factory=list)
    """what the verdict needed and did not have"""


class TimingVerdict(BaseModel):
    """meta.json `timing`: `ok` or `degraded`, why, the figures and the bounds that judged them."""

    verdict: str = Field(description="'ok' or 'degraded'")
    reasons: list[str] = Field(default_factory=list, description="one phrase per bound broken; empty when ok")
    figures: TimingFigures = Field(default_factory=TimingFigures)
    bounds: TimingBounds = Field(default_factory=TimingBounds)
    clocks: dict[str, str] = Field(
        default_factory=dict,
        description="which clock timed each track: 'sender' (its sender's record plus the leg's median latency) "
        "or 'recorder' (the recorder's copy, its jitter buffer's stretch included); empty: a verdict from before "
        "the sender records, every track on the recorder's clock",
    )


class RunMeta(BaseModel):
    """meta.json of one scenario run; beside the declared fields, the suite's own (its scenario's
    ``run_fields``, `floorbench.scenarios.interface.ScenarioRecord`)."""

    model_config = ConfigDict(extra="allow")

    record_version: int = RECORD_VERSION
    floorbench_version: str
    scenario_id: str
    suite: str
    room: str
    created_wall_ns: int
    anchor: ClockAnchor
    outcome: Outcome = Outcome.in_progress
    failure_kind: FailureKind | None = None
    failure_reason: str | None = None
    model: dict[str, Any] = Field(default_factory=dict, description="model card, secrets removed")
    schedule: dict[str, Any] = Field(default_factory=dict)
    tracks: dict[str, TrackInfo] = Field(default_factory=dict)
    transport_latency_ms: dict[str, Any] = Field(default_factory=dict)
    playback: dict[str, Any] = Field(
        default_factory=dict, description="playback clock anchors, underruns, per-turn onset errors"
    )
    versions: dict[str, str] = Field(default_factory=dict)
    duration_ms: int | None = None
    timing: TimingVerdict | None = Field(
        default=None, description="timing verdict; None when the scenario never reached its records"
    )
    timing_receiver: TimingVerdict | None = Field(
        default=None,
        description="the verdict every track's receiver-clock figures would get (the recorder's copies only, "
        "as before the sender records): kept beside `timing` for comparison; it decides nothing",
    )
    legs: list[dict[str, Any]] = Field(
        default_factory=list,
        description="per turn: humans_to_room_ms, humans_to_model_ms (when the model heard it) and "
        "model_to_room_ms (the model's first reply after it), each as measured, and model_heard_excess_ms (how "
        "much later than the median the model heard the audio before that reply: taken off its time)",
    )
    receivers: dict[str, Any] = Field(
        default_factory=dict,
        description="per recorded track: the recorder's jitter-buffer (NetEq) counters from WebRTC's inbound-rtp "
        "stats, and the stretch they bound (floorbench.pipelines.room.neteq)",
    )
    attempt: int = Field(default=1, description="1 for the first try; earlier tries are meta.attempt-N.json")
    network: dict[str, Any] | None = Field(
        default=None, description="impairment profile on the model's legs and the method used; None: unimpaired"
    )
    acoustics: dict[str, Any] | None = Field(
        default=None,
        description="acoustic condition of the humans' audio (floorbench.speech.acoustics): the profile, its seed, "
        "the room's measured RT60 and the SNR measured on the rendered audio; None: clean audio",
    )
    video: dict[str, Any] | None = Field(
        default=None,
        description="video tracks (suite av): the user camera's sent log and timing, every recorded "
        "video track's files and frame counts (floorbench.pipelines.video.timing); None: no video",
    )


def read_meta(folder: Path) -> RunMeta | None:
    """The folder's meta.json, None when missing or unreadable (a torn file from a kill)."""
    try:
        return RunMeta.model_validate_json((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError):
        return None


class DialogueTurn(BaseModel):
    """A human turn on the recorder's clock (t = 0 at model.wav's first sample)."""

    model_config = ConfigDict(extra="allow")

    turn_id: int
    speaker: str
    label: str
    start_ms: int
    end_ms: int
    text: str = ""
    gold: str | None = None
    gold_aliases: list[str] = Field(default_factory=list, description="other phrasings of the gold answer")


class DialogueTurns(BaseModel):
    """turns.json: what scoring needs besides model.wav; beside the declared fields, the suite's own (its
    scenario's ``run_fields``: `run_field` reads one, the suite plug-in's ``turns_fields`` says which are required)."""

    model_config = ConfigDict(extra="allow")

    scenario_id: str
    turns: list[DialogueTurn]
    model_wav_end_ms: int | None = Field(
        default=None, description="length of model.wav; the last turn's window ends here"
    )
    clock: str | None = Field(
        default=None,
        description="the clock the turns (and, through model_time_map, model.wav's speech) are on: 'timing' "
        "(each track's sender clock plus its leg's median latency, docs/transport.md) or None: the recorder's",
    )
    model_time_map: list[list[int]] | None = Field(
        default=None,
        description="[[model.wav µs, timing-clock µs], ...]: model.wav onto the timing clock (linear between "
        "points, slope one beyond them); None: model.wav's own clock",
    )

    def run_field(self, name: str) -> str:
        """One of the suite's own fields (as its scenario's ``run_fields`` wrote it); a KeyError if absent
        (the scoring inputs check that the fields the suite needs are there)."""
        value = (self.model_extra or {})[name]
        return value if isinstance(value, str) else str(value)


Record = TypeVar("Record", bound=BaseModel)


def with_run_fields(record: Record, fields: Mapping[str, str]) -> Record:
    """`record` (meta.json's, turns.json's) with a suite's own fields beside the declared ones (its scenario's
    ``run_fields``); a ValueError if one would take a declared field's name."""
    clash = sorted(fields.keys() & type(record).model_fields.keys())
    if clash:
        raise ValueError(f"run_fields {', '.join(clash)}: taken by the record's own fields; name them otherwise")
    return record.model_copy(update=dict(fields))


def write_json_atomic(path: Path, data: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Write JSON via a temporary file and rename, so readers never see half a file."""
    if isinstance(data, BaseModel):
        text = data.model_dump_json(indent=2)
    else:
        text = json.dumps(data, indent=2, ensure_ascii=False)
    write_text_atomic(path, text + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` via a temporary file in the same folder, synced, then renamed (readable by all, as any file
    written directly), so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class TimelineWriter:
    """Appends TimelineEvents to timeline.jsonl, flushed line by line."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._f = path.open("a", encoding="utf-8")

    def write(self, event: TimelineEvent) -> None:
        if self._f.closed:
            return
        self._f.write(event.model_dump_json(exclude_none=True))
        self._f.write("\n")
        self._f.flush()

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()


def read_timeline(path: Path) -> list[TimelineEvent]:
    """Read timeline.jsonl, skipping a torn last line left by a crash."""
    events: list[TimelineEvent] = []
    if not path.exists():
        return events
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            events.append(TimelineEvent.model_validate_json(line))
        except ValueError:
            continue
    return events


def read_timeline_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of timeline.jsonl as written, unvalidated; [] when there is no file.

    For scorers: they read suite-specific fields (a skipped clip's label, an event's
    window) and pass over any line they cannot parse rather than lose the whole folder.
    """
    out: list[dict[str, Any]] = []
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            e = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(e, dict):
            out.append(e)
    return out
