"""Passes earned by silence are refused where the model's track holds loud sound that is not speech.

The timing rules read VAD speech only. A model that answers with a tone, hold
music, an earcon or a broken TTS's noise is silent to them, and silence is the
easiest score to earn by accident: it keeps every N1–N3 window and yields at
once. So after the rules have run, every item that *passed by the absence of
speech* (`silent`, `yielded`) whose window a non-speech sound covers for at
least `SoundRules.min_ms` fails as `non_speech_sound`, with the sound's times in
its reason; items that *failed* for want of speech keep their verdict and say
that the model made sound there (a model that answers with a tone learns why
it scored nothing). Each dialogue with such sound gets one warning line.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.audio.sounds import SoundRules, overlap_ms
from floorbench.suites.mpe.items import Item, Kind

Segment = tuple[int, int]

SILENT_PASSES = frozenset({Kind.silent, Kind.yielded})
"""the kinds of pass the absence of speech earns"""
SILENT_FAILS = frozenset({Kind.no_onset, Kind.no_speech, Kind.silent_in_window})
"""the kinds of fail the absence of speech earns"""


def _sounds_in(sounds: Sequence[Segment], start: int, end: int) -> str:
    shown = [f"{s / 1000:.1f}–{e / 1000:.1f} s" for s, e in sounds if s < end and e > start]
    return ", ".join(shown[:3]) + (" …" if len(shown) > 3 else "")


def refuse_silent_passes(items: Sequence[Item], sounds: Sequence[Segment], rules: SoundRules = SoundRules()) -> int:
    """Apply the rule above to one dialogue's items in place; returns how many passes were refused."""
    refused = 0
    if not sounds:
        return 0
    for it in items:
        if not it.counted or it.passed is None:
            continue
        covered = overlap_ms(sounds, it.window_start_ms, it.window_end_ms)
        if covered < min(rules.min_ms, max(1, it.window_end_ms - it.window_start_ms)):
            continue
        where = _sounds_in(sounds, it.window_start_ms, it.window_end_ms)
        if it.passed and it.kind in SILENT_PASSES:
            it.passed, it.kind = False, Kind.non_speech_sound
            it.reason = (f"no speech, but {covered} ms of loud sound that is not speech in the window ({where}): "
                         f"a silence the model did not keep (was: {it.reason})")
            refused += 1
        elif not it.passed and it.kind in SILENT_FAILS:
            it.reason += f"; the model made {covered} ms of sound that is not speech here ({where})"
    return refused


def sound_warning(scenario_id: str, sounds: Sequence[Segment], refused: int) -> str | None:
    """One line for a dialogue whose model track holds non-speech sound, None when it holds none."""
    if not sounds:
        return None
    total = sum(e - s for s, e in sounds)
    return (f"{scenario_id}: {total / 1000:.1f} s of loud sound that is not speech on the model track "
            f"(first at {sounds[0][0] / 1000:.1f} s); {refused} silence pass(es) refused — "
            "the timing rules hear speech only, see items.jsonl kind non_speech_sound")
