"""The rules of suite `av` (audio-visual dynamics, docs/suites/av.md), declared once.

VideoFDB asks whether a system that sees as well as hears handles the moments
where what the person *does* matters. Each clip has one event window and one
*dynamic*; each dynamic maps to one expected timing *category*, and each
category to the takeover the model should (1) or should not (0) make inside
the window. TOR alignment is 1 when the model's takeover matches.

The clip's schedule (`floorbench.suites.av.schedule`), the scorer and the
generator all read these tables; changing an entry is a different benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Category(StrEnum):
    """What the model should do in the event window (VideoFDB's five timing categories)."""

    stay_silent = "stay_silent"
    """the user holds the floor without speaking (thinking, a hand up): do not start"""
    keep_talking = "keep_talking"
    """the model has the floor and the user's cue supports it (a nod, a laugh): carry on"""
    must_yield = "must_yield"
    """the user wants the floor while the model talks (a raised hand, a head shake): stop"""
    smooth_handoff = "smooth_handoff"
    """the user is done and hands the floor over (a look to camera, an open hand): take it promptly"""
    backchannel = "backchannel"
    """the user pauses inviting an acknowledgement: a short "mm-hm", not a takeover"""


EXPECTED_TAKEOVER: dict[Category, int] = {
    Category.stay_silent: 0,
    Category.keep_talking: 1,
    Category.must_yield: 0,
    Category.smooth_handoff: 1,
    Category.backchannel: 0,
}
"""the model's takeover in the window that TOR alignment counts as right (1 = takes or holds the floor)"""


class Dynamic(StrEnum):
    """The eleven conversational dynamics of the suite (VideoFDB's taxonomy, in our words)."""

    thinking_pause = "thinking_pause"
    """a pause for thought mid-turn, eyes up and away, then the user goes on"""
    gaze_aversion = "gaze_aversion"
    """the user looks away while searching for a word, mid-turn"""
    hand_hold = "hand_hold"
    """a hand held up ("one second") during a pause to keep the floor"""
    nod = "nod"
    """the user nods while the model speaks"""
    laughter = "laughter"
    """the user laughs (audible) at what the model says, while it speaks"""
    smile = "smile"
    """the user smiles at what the model says, without a sound"""
    raised_hand = "raised_hand"
    """the user raises a hand while the model speaks, wanting the floor (no words)"""
    head_shake = "head_shake"
    """the user shakes their head while the model speaks, disagreeing"""
    handoff_gaze = "handoff_gaze"
    """the user ends a question and looks straight at the camera, waiting"""
    open_palm = "open_palm"
    """the user ends a turn with an open-palm gesture offering the floor"""
    backchannel_invite = "backchannel_invite"
    """mid-story the user pauses with raised brows and a nod, inviting an "mm-hm"""


CATEGORY: dict[Dynamic, Category] = {
    Dynamic.thinking_pause: Category.stay_silent,
    Dynamic.gaze_aversion: Category.stay_silent,
    Dynamic.hand_hold: Category.stay_silent,
    Dynamic.nod: Category.keep_talking,
    Dynamic.laughter: Category.keep_talking,
    Dynamic.smile: Category.keep_talking,
    Dynamic.raised_hand: Category.must_yield,
    Dynamic.head_shake: Category.must_yield,
    Dynamic.handoff_gaze: Category.smooth_handoff,
    Dynamic.open_palm: Category.smooth_handoff,
    Dynamic.backchannel_invite: Category.backchannel,
}
"""each dynamic's expected timing category; a clip's category must be this one"""

DURING_MODEL_SPEECH = frozenset(
    d for d, c in CATEGORY.items() if c in (Category.keep_talking, Category.must_yield)
)
"""dynamics whose cue happens while the model speaks: live, they are timed against
the model's speech onset as heard in the room (like the turns suite's barge-ins)"""


@dataclass(frozen=True)
class AvRules:
    """The numbers of suite av (docs/suites/av.md); defaults are the benchmark's."""

    takeover_min_ms: int = 1000
    """Full-Duplex-Bench's takeover: model speech in the window at least this long ..."""
    takeover_min_words: int = 4
    """... or shorter speech with at least this many words (more than three)"""
    window_min_ms: int = 500
    window_max_ms: int = 10000
    """an event window lasts 0.5–10 s"""
    offset_min_ms: int = 500
    offset_max_ms: int = 10000
    """a cue during the model's speech starts this long after its onset, as heard"""
    onset_wait_ms: int = 8000
    """live: how long the schedule waits for the model's onset before a during-speech cue
    is played anyway (and the clip is marked: the model never spoke)"""
    fps_min: int = 5
    fps_max: int = 60
    """video frame rates the suite accepts"""

    def __post_init__(self) -> None:
        if not 0 < self.window_min_ms <= self.window_max_ms:
            raise ValueError(
                f"window range {self.window_min_ms}–{self.window_max_ms} ms: needs 0 < min ≤ max"
            )
        if not 0 < self.fps_min <= self.fps_max:
            raise ValueError(f"fps range {self.fps_min}–{self.fps_max}: needs 0 < min ≤ max")


def category_of(dynamic: str) -> Category:
    """The category a dynamic maps to; an unknown dynamic is a one-line error listing the known ones."""
    try:
        return CATEGORY[Dynamic(dynamic)]
    except ValueError:
        known = ", ".join(d.value for d in Dynamic)
        raise ValueError(f"unknown dynamic {dynamic!r}; known dynamics: {known}") from None
