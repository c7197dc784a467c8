"""The two messages between the runner and the model child process, as typed records.

The runner sends one `ModelSpec` as a JSON line on the child's stdin — on
stdin so the room token never appears in a process listing, a file or a log
(`repr` hides it too). The child answers with one JSON line on stdout:
`ModelReady` once its pipeline is built, or `ModelFailed` with a one-line
reason. While the scenario runs it goes on reporting, one line each, what the
runner must know to trust a silent recording (docs/systems-under-test.md,
"When a model fails"): `ModelConnected` once every model-server connection of
its chain is up, `ModelDisconnected` if one drops, `ModelChainError` for any
error its chain reports; and `ModelMeasured`, what a chain measured about
itself (the `webrtc` bridge's own delay, for meta.json). Both sides import
this module, so it stays light: pydantic and floorbench.redact only, no
LiveKit, no pipecat.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from floorbench.redact import redact_text

REASON_CHARS = 400
"""a reported reason is cut to this many characters (it goes into meta.json and a log line)"""


def one_line(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` as one short line with URLs' secrets, bearer tokens and the known `secrets` redacted."""
    flat = " ".join(redact_text(str(text), secrets).split())
    return flat if len(flat) <= REASON_CHARS else flat[: REASON_CHARS - 1] + "…"


class ModelSpec(BaseModel):
    """Everything the child needs to join one scenario room as the model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str
    """LiveKit server URL (ws:// or wss://)"""
    token: str = Field(repr=False)
    """the model participant's room token; travels on stdin only"""
    room: str
    identity: str
    """the participant identity the token was minted for"""
    model: str
    """registered model name (see `floorbench models`)"""
    config: dict[str, Any] = Field(default_factory=dict)
    suite_root: Path | None = None
    scenario_file: Path | None = None
    in_sample_rate: int
    """what the model hears (Hz)"""
    out_sample_rate: int
    """what the model speaks (Hz)"""
    out_queue_ms: int
    """the model's published audio source queue (ms); a multiple of 10"""
    parent_pid: int
    """the runner: the child stops when it is re-parented"""
    max_lifetime_s: float | None
    """the child stops by itself after this, whatever happens to the runner (None: no limit)"""
    impair: dict[str, Any] | None = None
    """network impairment on the model's audio legs (floorbench.processors.impair); None: none"""
    records_dir: Path | None = None
    """where the child keeps what it sends and hears (model.sent.*, model.heard.*;
    floorbench.pipelines.room.sender_log); None: it keeps nothing"""
    clock_anchor_ns: int | None = None
    """the scenario's session clock (`time.monotonic_ns()` at its anchor) for those records"""

    def line(self) -> bytes:
        return (self.model_dump_json() + "\n").encode()


class ModelReady(BaseModel):
    """The pipeline is built and the child is joining the room."""

    model_config = ConfigDict(extra="forbid")

    ready: Literal[True] = True
    pid: int
    links: int = 0
    """model-server connections the chain opens (0: none); the runner waits for `ModelConnected`"""


class ModelFailed(BaseModel):
    """The model could not be built (bad config, missing key, bad scenario)."""

    model_config = ConfigDict(extra="forbid")

    error: str


class ModelConnected(BaseModel):
    """Every model-server connection of the chain is up: from now on the model hears the room."""

    model_config = ConfigDict(extra="forbid")

    connected: Literal[True] = True


class ModelDisconnected(BaseModel):
    """A model-server connection dropped mid-scenario; from then on the model hears nothing."""

    model_config = ConfigDict(extra="forbid")

    disconnected: str
    """the one-line reason"""


class ModelChainError(BaseModel):
    """The model's chain reported an error (pipecat ErrorFrame, fatal or not, in either direction)."""

    model_config = ConfigDict(extra="forbid")

    chain_error: str
    """the one-line reason, secrets redacted"""
    fatal: bool = False


class ModelMeasured(BaseModel):
    """What a chain measured about itself so far (the `webrtc` bridge's own delay); the latest counts."""

    model_config = ConfigDict(extra="forbid")

    measured: dict[str, Any]


_T = TypeVar("_T")
ModelAnswer = ModelReady | ModelFailed
ModelEvent = ModelConnected | ModelDisconnected | ModelChainError | ModelMeasured
_ANSWER: TypeAdapter[ModelAnswer] = TypeAdapter(ModelAnswer)
_EVENT: TypeAdapter[ModelEvent] = TypeAdapter(ModelEvent)


def answer_line(answer: ModelAnswer | ModelEvent) -> str:
    return answer.model_dump_json() + "\n"


def _parse(adapter: TypeAdapter[_T], line: bytes | str, what: str) -> _T:
    try:
        return adapter.validate_json(line)
    except ValidationError:
        text = line.decode(errors="replace") if isinstance(line, bytes) else line
        raise ValueError(f"not a {what} line: {text.strip()[:200]!r}") from None


def read_answer(line: bytes | str) -> ModelAnswer:
    """Parse the child's one answer line; ValueError naming what arrived if it is neither."""
    return _parse(_ANSWER, line, "ready/error")


def read_event(line: bytes | str) -> ModelEvent:
    """Parse one line the child wrote after its answer; ValueError if it is no event."""
    return _parse(_EVENT, line, "model event")
