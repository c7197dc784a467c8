"""What one scenario's room holds while it runs: the state the parts of `ScenarioRun` share.

`ScenarioRun` (floorbench.pipelines.run.scenario_run) is split by concern into
mixins over this one state: the room's set-up and playing (scenario_run), the
model's side of joining (run_model), the watch that names why a room failed
(run_watch), and the records written after it (run_records). Each declares
here what it reads, so each module can be read, and type-checked, alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.clock import SessionClock
from floorbench.pipelines.room.playback import PlaybackParticipant
from floorbench.pipelines.room.recorder import Recorder
from floorbench.pipelines.room.schedule import LivePlan
from floorbench.pipelines.run.model_process import ModelProcess
from floorbench.processors.impair import ImpairProfile
from floorbench.processors.registry import Model
from floorbench.records import RunMeta, write_json_atomic
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.validate import LoadedSuite
from floorbench.speech.acoustics import AcousticProfile, LiveAcoustics
from floorbench.transports.server import LiveKitConnection, LiveKitServer


@dataclass
class ScenarioSettings:
    """Per-run settings shared by every scenario."""

    record_rate: int = 16000
    model_in_rate: int = 16000
    model_out_rate: int = 24000
    model_out_queue_ms: int = 100
    """the model's published audio queue (ms, a multiple of 10)"""
    playback_queue_ms: int = 200
    model_join_timeout_s: float = 60.0
    schedule: dict[str, Any] = field(default_factory=dict)
    """the suite's schedule options (JSON: each suite reads the ones it has, e.g. suite mpe's
    ``{"tail_ms": 1000, "rules": {"endpoint_ms": 1500}}``); empty: the suite's defaults"""
    timeout_s: float | None = None
    """None: derived from the scenario's audio length and its T/N4 waits"""
    print_join: bool = False
    impair: ImpairProfile | None = None
    """network impairment on the model's audio legs (docs/transport.md); None: none"""
    acoustics: AcousticProfile | None = None
    """acoustic condition of the humans' audio (docs/acoustics.md); None: clean"""


class RunState:
    """The attributes `ScenarioRun.__init__` sets, declared once for every part of it (None: not yet made)."""

    suite: LoadedSuite
    scenario: ScenarioRecord
    model: Model
    conn: LiveKitConnection
    dir: Path
    settings: ScenarioSettings
    server: LiveKitServer | None
    room: str
    clock: SessionClock
    model_identity: str
    is_model: Callable[[str], bool]
    timeout_s: float
    recorder: Recorder | None = None
    playback: PlaybackParticipant | None = None
    external_timeout_s: float
    model_proc: ModelProcess | None = None
    acoustics: LiveAcoustics | None = None
    plan: LivePlan | None = None
    meta: RunMeta

    def _write_meta(self) -> None:
        write_json_atomic(self.dir / "meta.json", self.meta)
