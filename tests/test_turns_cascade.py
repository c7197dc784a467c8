"""The cascade's turn-taking options for suite turns: Smart Turn v3 as the end-of-turn detector, dyadic mode.

`_turn_complete` is checked with a stand-in for pipecat's analyzer (its real
verdicts are measured live, docs/suites/turns.md); the bundled model file is
checked to exist, since the option loads it by default.
"""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import Any

import numpy as np

from floorbench.audio.vad import WINDOW, WINDOW_MS
from floorbench.processors.cascade import CascadeProcessor, CascadeSettings


class StandIn:
    def __init__(self, prediction: int) -> None:
        self.prediction = prediction
        self.calls = 0

    def _predict_endpoint(self, audio: np.ndarray) -> dict[str, Any]:
        self.calls += 1
        assert audio.dtype == np.float32 and len(audio) == 3 * WINDOW
        return {"prediction": self.prediction, "probability": float(self.prediction)}


def processor(prediction: int | None, silence_ms: int) -> tuple[CascadeProcessor, StandIn | None]:
    proc = CascadeProcessor(CascadeSettings(turn_detector="smart_turn_v3" if prediction is not None else "silence"))
    stand_in = StandIn(prediction) if prediction is not None else None
    proc._smart_turn = stand_in
    proc._utt = [np.zeros(WINDOW, dtype=np.int16)] * 3
    proc._silence_run = silence_ms // WINDOW_MS
    return proc, stand_in


def complete(proc: CascadeProcessor) -> bool:
    return asyncio.run(proc._turn_complete())


def test_silence_alone_ends_the_turn_without_smart_turn() -> None:
    proc, _ = processor(None, 480)
    assert complete(proc)


def test_an_incomplete_verdict_waits_for_the_longest_silence_and_is_asked_once() -> None:
    proc, st = processor(0, 480)
    assert not complete(proc) and not complete(proc)
    assert st is not None and st.calls == 1
    proc._silence_run = 3000 // WINDOW_MS + 1
    assert complete(proc) and st.calls == 1


def test_a_complete_verdict_ends_the_turn_at_the_silence() -> None:
    proc, st = processor(1, 480)
    assert complete(proc) and st is not None and st.calls == 1


def test_the_bundled_model_ships_with_pipecat_and_dyadic_is_off_by_default() -> None:
    model = resources.files("pipecat.audio.turn.smart_turn.data").joinpath("smart-turn-v3.2-cpu.onnx")
    assert model.is_file()
    s = CascadeSettings()
    assert (s.turn_detector, s.dyadic, s.smart_turn_max_wait_ms) == ("silence", False, 3000)
