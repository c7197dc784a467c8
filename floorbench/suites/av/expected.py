"""What the reference systems `silent` and `eager` must score on an av scenario, derived from the rules.

The reference agents' behaviour is simple enough to simulate exactly on a
scenario's timing (`floorbench.processors.reference`):

- `silent` never speaks;
- `eager` hears the user with the benchmark's VAD and, `end_silence_ms` +
  `pause_ms` after every end of user speech (of at least 200 ms) that no new
  speech follows in that time, says its next canned reply in full — unless it
  is still talking — and never stops for the user.

`simulate` places the clips as the live schedule does (one after another; a
clip with `offset_ms` that long after the model's speech onset, and *not run*
when the model never started), builds the model's speech segments, and scores
them with the same rules as recordings (`av_rules`). So the values a live run
of `silent` or `eager` must reach follow from the rules and the scenario, not
from numbers written down: for `silent`, takeover 0 everywhere it is
scorable, hence aligned exactly where ``EXPECTED_TAKEOVER`` is 0 (stay_silent,
backchannel), not on smooth_handoff, and its keep_talking / must_yield cues are
never played (unscorable, never aligned).

The words `eager` says inside a window are estimated from the reply's length
(words spread evenly over its duration), which decides only takeovers shorter
than `takeover_min_ms`; such clips, and clips whose speech in the window is
within `BORDER_MS` of that threshold, are marked `borderline`: a live run may
honestly land on either side of them (seen live: the end of a reply, "anything
else.", is 2 words in 881 ms where the even spread estimated 4 in 910 ms).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.suites.av.rules import AvRules, Category
from floorbench.suites.av.verdicts import Segment, is_aligned, is_takeover, latency, split_speech


@dataclass(frozen=True)
class ClipTiming:
    """One clip as the schedule plays it: its length and the user's speech in it (ms from its start)."""

    duration_ms: int
    speech: tuple[Segment, ...] = ()
    offset_ms: int | None = None
    """timed to the model's speech onset (a cue during the model's speech)"""


@dataclass(frozen=True)
class ScenarioTiming:
    """A scenario's clips and its event: the event's clip index (0-based) and window within that clip."""

    category: Category
    clips: tuple[ClipTiming, ...]
    event_clip: int
    window: Segment
    gap_ms: int = 0
    """silence the schedule leaves between clips that are not timed to the model"""


@dataclass(frozen=True)
class EagerModel:
    """The eager agent's settings (`EagerSettings`) and its replies' lengths and word counts."""

    end_silence_ms: int = 300
    pause_ms: int = 200
    min_speech_ms: int = 200
    replies: tuple[tuple[int, int], ...] = ((3600, 13),)
    """(duration ms, words) of each canned reply, said in turn"""


@dataclass
class Expected:
    """What a system must score on one scenario: unscorable, or its takeover and alignment."""

    unscorable: str | None
    takeover: bool | None = None
    aligned: bool | None = None
    latency_ms: int | None = None
    segments: list[Segment] = field(default_factory=list)
    window: Segment | None = None
    borderline: str | None = None
    """why a live run may honestly differ: 'words' (under `takeover_min_ms` of speech in the window, so the
    ASR's word count decides, which the simulation only estimates) or 'timing' (the speech in the window is
    within `BORDER_MS` of `takeover_min_ms`); None when the rules decide with margin"""


BORDER_MS = 200
"""in-window speech this close to `takeover_min_ms` is within a live room's timing spread (the agent's VAD,
transport, the recorder's VAD): the simulated takeover is then not a firm expectation"""


def _borderline(inside_ms: int, rules: AvRules) -> str | None:
    if abs(inside_ms - rules.takeover_min_ms) < BORDER_MS:
        return "timing"
    if 0 < inside_ms < rules.takeover_min_ms:
        return "words"
    return None


def _eager_replies(user: Sequence[Segment], eager: EagerModel, until_ms: int) -> list[tuple[int, int, int]]:
    """(start, end, words) of every reply eager says to `user` speech, firing before `until_ms`."""
    out: list[tuple[int, int, int]] = []
    speaking_until = -1
    runs = sorted(s for s in user if s[1] - s[0] >= eager.min_speech_ms)
    for _, end in runs:
        fire = end + eager.end_silence_ms + eager.pause_ms
        nxt = min((s for s, _ in sorted(user) if s > end), default=None)
        if (nxt is not None and nxt < fire) or fire >= until_ms or fire < speaking_until:
            continue
        dur, words = eager.replies[len(out) % len(eager.replies)]
        out.append((fire, fire + dur, words))
        speaking_until = fire + dur
    return out


def _place(sc: ScenarioTiming, system: str, eager: EagerModel) -> tuple[list[int], list[Segment]] | None:
    """Each clip's start and the user's speech, as the schedule plays them; None when the cue is not run."""
    starts: list[int] = []
    user: list[Segment] = []
    t = 0
    for clip in sc.clips:
        if clip.offset_ms is not None:
            replies = [] if system == "silent" else _eager_replies(user, eager, 10**12)
            onsets = [r[0] for r in replies if r[0] >= t]
            if not onsets:
                return None
            start = onsets[0] + clip.offset_ms
        else:
            start = t + (sc.gap_ms if starts else 0)
        starts.append(start)
        user += [(start + a, start + b) for a, b in clip.speech]
        t = start + clip.duration_ms
    return starts, user


def simulate(
    sc: ScenarioTiming, system: str, rules: AvRules = AvRules(), eager: EagerModel = EagerModel()
) -> Expected:
    """Score `system` ('silent' or 'eager') on the scenario with the av rules."""
    if system not in ("silent", "eager"):
        raise ValueError(f"no behaviour model for {system!r}; use 'silent' or 'eager'")
    placed = _place(sc, system, eager)
    if placed is None:
        return Expected("cue_not_played: the model never started speaking, so the cue was not run")
    starts, user = placed
    end = starts[-1] + sc.clips[-1].duration_ms + 10_000
    replies = [] if system == "silent" else _eager_replies(user, eager, end)
    segs = [(s, e) for s, e, _ in replies]
    ws = starts[sc.event_clip] + sc.window[0]
    window = (ws, starts[sc.event_clip] + sc.window[1])
    inside = split_speech(segs, window, end).inside
    words = 0
    for (s, e, w), part in ((r, p) for r in replies for p in inside if r[0] <= p[0] and p[1] <= r[1]):
        words += round(w * (part[1] - part[0]) / max(1, e - s))
    inside_ms = sum(b - a for a, b in inside)
    took = is_takeover(inside_ms, words, rules)
    lat = latency(sc.category, segs, window)
    return Expected(
        None, took, is_aligned(sc.category, took), lat.ms, segs, window, _borderline(inside_ms, rules)
    )


def timing_of(scenario: Any, suite_dir: Path) -> ScenarioTiming:
    """A scenario file's timing: clip lengths from their audio, the user's speech from the clips' words
    (a clip with text but no word times counts as speech throughout; a wordless cue as silence)."""
    import soundfile as sf

    clips: list[ClipTiming] = []
    for c in scenario.clips:
        info = sf.info(str(suite_dir / c.audio))
        dur = int(info.frames * 1000 // info.samplerate)
        if c.words:
            speech = tuple((w.start_ms, w.end_ms) for w in c.words)
        else:
            speech = ((0, dur),) if c.text.strip() else ()
        clips.append(ClipTiming(dur, _merged(speech), c.offset_ms))
    ev = scenario.event
    index = next(i for i, c in enumerate(scenario.clips) if c.id == ev.clip)
    return ScenarioTiming(Category(ev.category), tuple(clips), index, (ev.start_ms, ev.end_ms))


def _merged(speech: Sequence[Segment], gap_ms: int = 250) -> tuple[Segment, ...]:
    """Word spans joined across the short gaps between words (the agent's VAD hears a phrase)."""
    out: list[Segment] = []
    for s, e in sorted(speech):
        if out and s - out[-1][1] <= gap_ms:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return tuple(out)


def eager_from_tts(replies: Sequence[str], voice: str) -> EagerModel:
    """The eager agent's real replies: each canned reply rendered with its voice (duration, words).

    Pass the agent's own settings (``floorbench.processors.reference``: DEFAULT_REPLIES, DEFAULT_VOICE);
    scoring does not import the agents."""
    from floorbench.speech.tts import synthesize

    rate = 16000
    return EagerModel(
        replies=tuple((len(synthesize(r, voice, rate)) * 1000 // rate, len(r.split())) for r in replies)
    )


def expected_for_suite(
    scenarios: Sequence[Any], suite_dir: Path, system: str, eager: EagerModel | None = None
) -> dict[str, Expected]:
    """Every scenario of an av suite folder (loaded `AvScenario`s): what `system` must score on it, by id."""
    return {
        sc.scenario_id: simulate(timing_of(sc, suite_dir), system, AvRules(), eager or EagerModel())
        for sc in scenarios
    }


def by_category(expected: dict[str, Expected], categories: dict[str, Category]) -> dict[str, dict[str, int]]:
    """Per category: clips, aligned, unscorable (the shape to compare with av_scores.json's tor_alignment)."""
    out: dict[str, dict[str, int]] = {}
    for sid, e in expected.items():
        row = out.setdefault(categories[sid].value, {"clips": 0, "aligned": 0, "unscorable": 0})
        row["clips"] += 1
        row["aligned"] += int(bool(e.aligned))
        row["unscorable"] += int(e.unscorable is not None)
    return out
