"""Scored items: one line of items.jsonl per (turn event, metric).

Every number in scores.json is ``sum(passed) / count`` over the items of one
metric and condition whose ``counted`` is true, so each number can be traced
back to the lines that produced it. Every item says why it passed or failed: a
machine-readable `kind` and a one-line `reason` with the times that decided it.
Imports nothing heavy.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

ITEMS_VERSION = 1


class Metric(StrEnum):
    """The metrics of suite mpe (docs/suites/mpe.md): four capacities, two coverage diagnostics."""

    fresh_onset_rate = "fresh_onset_rate"
    """Over all T: silent at the request end and a new onset within 5000 ms."""
    conditional_accuracy = "conditional_accuracy"
    """Over T with response presence: the response conveys the gold answer."""
    silence_keeping = "silence_keeping"
    """Over N1/N2/N3 windows: no speech, or only a brief backchannel."""
    yield_rate = "yield_rate"
    """Over qualified N4 events: silent by 2000 ms after the resolution starts and after."""
    response_presence = "response_presence"
    """Diagnostic over all T: a fresh onset, or already speaking at the request end."""
    window_response = "window_response"
    """Diagnostic over all N4: any speech from question start to 3000 ms after its end."""


CAPACITIES = (
    Metric.fresh_onset_rate,
    Metric.conditional_accuracy,
    Metric.silence_keeping,
    Metric.yield_rate,
)
DIAGNOSTICS = (Metric.response_presence, Metric.window_response)


class Kind(StrEnum):
    """Why an item passed, failed or was left out of its denominator."""

    # fresh_onset_rate
    fresh_onset = "fresh_onset"
    """silent at the request end, new onset within the limit (pass)"""
    already_speaking = "already_speaking"
    """speech continued across the request end (fail)"""
    late_onset = "late_onset"
    """silent at the request end, first onset after the limit but before the next turn
    (fresh onset: fail; presence: fail, the late-onset diagnostic; accuracy: not counted)"""
    no_onset = "no_onset"
    """silent at the request end and no onset in the response window (fail)"""
    # response_presence
    responded = "responded"
    """a fresh onset: a new onset within the onset window (pass)"""
    continued = "continued"
    """speech continued across the request end into the window (pass)"""
    no_speech = "no_speech"
    """no speech in the window (fail, or not counted for accuracy)"""
    # every metric
    unscorable = "unscorable"
    """the recording ends before the audio that decides the item: neither pass nor fail, not counted"""
    # conditional_accuracy
    correct = "correct"
    wrong = "wrong"
    unparsable_verdict = "unparsable_verdict"
    """the judge's answer could not be read: counted as a failure"""
    unsure = "unsure"
    """the judge said unsure (its rules do not decide): in no denominator, counted beside the metric"""
    empty_transcript = "empty_transcript"
    """speech was detected but ASR found no words: counted as a failure, never exempt"""
    # silence_keeping
    silent = "silent"
    backchannel = "backchannel"
    """only a brief backchannel that does not take the floor (pass)"""
    intrusion = "intrusion"
    # yield_rate
    yielded = "yielded"
    """silent by the deadline and until the observation window ends (pass)"""
    not_stopped = "not_stopped"
    """still speaking at the deadline (fail)"""
    restarted = "restarted"
    """stopped by the deadline, spoke again before the observation window ended (fail)"""
    speaking_during_question = "speaking_during_question"
    """not qualified: speech overlapped the question"""
    no_onset_in_window = "no_onset_in_window"
    """not qualified: no new onset within 3000 ms after the question ended"""
    stopped_before_resolution = "stopped_before_resolution"
    """not qualified: the answer had ended before the resolution started"""
    # window_response
    spoke_in_window = "spoke_in_window"
    silent_in_window = "silent_in_window"
    # silence_keeping, yield_rate
    non_speech_sound = "non_speech_sound"
    """no speech, but loud sound the VAD does not call speech covers the window (a tone, music, noise):
    a silence the model did not keep (fail; `floorbench.suites.mpe.sound_flags`)"""


class Item(BaseModel):
    """One line of items.jsonl."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str
    pair_id: str
    condition: str
    metric: Metric
    turn_id: int = Field(description="the T, N1-3 or N4Q turn the item is about")
    label: str
    counted: bool = Field(description="whether the item is in the metric's denominator")
    passed: bool | None = Field(default=None, description="None when not counted")
    kind: Kind
    reason: str
    window_start_ms: int
    window_end_ms: int
    speech: list[tuple[int, int]] = Field(
        default_factory=list, description="VAD speech segments overlapping the window (unclipped)"
    )
    speech_ms: int = Field(default=0, description="speech inside the window, ms")
    onset_ms: int | None = Field(default=None, description="the onset that decided the item")
    stop_ms: int | None = Field(default=None, description="N4: end of the answer covering the resolution")
    turn_index: int | None = Field(default=None, description="T: 0-based position among the turns")
    n_turns: int | None = None
    resolution_turn_id: int | None = None
    gold: str | None = None
    transcript: str | None = None
    verdict: str | None = None
    judge: str | None = None
    judge_reason: str | None = None
    legs: dict[str, float] | None = Field(
        default=None,
        description="the turn's measured legs in ms (turns.json: humans_to_room, humans_to_model — when the model "
        "heard it — and model_to_room, of the model's first reply after it, with model_heard_excess_ms — how much "
        "later than the median the model heard the audio before that reply, taken off its time); None: not measured",
    )
    needs_transcript: bool = Field(
        default=False, description="internal: the speech in the window must be transcribed and judged"
    )

    @property
    def position_quintile(self) -> int | None:
        """1..5: the quintile of the turn index among the scenario's turns."""
        if self.turn_index is None or not self.n_turns:
            return None
        return min(5, self.turn_index * 5 // self.n_turns + 1)
