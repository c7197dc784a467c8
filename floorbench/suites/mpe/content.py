"""The content stage: transcribe the speech of pending items and judge it.

Items that the timing rules marked ``needs_transcript`` (a T with response
presence, an N1-3 window with speech) get the model's speech inside their
window transcribed (all such clips of a run packed together for ASR), then
one judge call per item, cached. Empty transcripts and unparsable verdicts
are failures, never exemptions (docs/suites/mpe.md, "The metrics"). An
``unsure`` verdict (the offline rules do not decide) keeps the item out of the
rate and is counted beside it, as an unscorable item is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from floorbench.audio.time_map import TimeMap
from floorbench.records import DialogueTurns
from floorbench.scoring.asr import Transcriber, clip_audio
from floorbench.scoring.cache import JsonlCache
from floorbench.scoring.judges import Judge, JudgeInput, Task, Verdict, judge_cached
from floorbench.suites.mpe.items import Item, Kind, Metric


@dataclass
class PendingDialogue:
    """A dialogue whose items need content, with a way to read its model track."""

    turns: DialogueTurns
    items: list[Item]
    read_audio: Callable[[], np.ndarray]
    """16 kHz int16 model track"""
    time_map: TimeMap = field(default_factory=TimeMap)
    """the recording onto the items' clock (empty: the same clock)"""


def clip_for(item: Item, audio: np.ndarray, time_map: TimeMap | None = None) -> np.ndarray:
    """The speech of an item's window, cut from the recording: the window (on the turns' clock) is mapped
    back onto the recording first."""
    ws, we = item.window_start_ms, item.window_end_ms
    spans = [(max(s, ws), min(e, we)) for s, e in item.speech if s < we and e > ws]
    if time_map is not None and not time_map.is_identity:
        spans = time_map.spans_to_recording_ms(spans)
        (ws, we), = time_map.spans_to_recording_ms([(ws, we)])
    return clip_audio(audio, spans, bounds=(ws, we))


def turn_context(turns: DialogueTurns, turn_id: int) -> tuple[str, tuple[str, ...]]:
    """(what the human said, accepted gold aliases) of one turn, for the judges."""
    for t in turns.turns:
        if t.turn_id == turn_id:
            aliases = t.gold_aliases
            return t.text, tuple(str(a) for a in aliases)
    return "", ()


def fill_content(
    dialogues: Sequence[PendingDialogue],
    transcriber: Transcriber,
    judge: Judge,
    judge_cache: JsonlCache | None,
    progress: Callable[[str, int], None] | None = None,
) -> None:
    """Transcribe and judge every pending item in place."""
    pending: list[tuple[PendingDialogue, Item]] = []
    clips: list[np.ndarray] = []
    for d in dialogues:
        todo = [it for it in d.items if it.needs_transcript]
        if not todo:
            continue
        audio = d.read_audio()
        for it in todo:
            pending.append((d, it))
            clips.append(clip_for(it, audio, d.time_map))
    if not pending:
        return
    texts = transcriber.transcribe(clips, progress=(lambda n: progress("asr", n)) if progress else None)

    inputs: list[JudgeInput] = []
    judged: list[Item] = []
    for (d, it), text in zip(pending, texts, strict=True):
        it.transcript = text
        it.needs_transcript = False
        if not text.strip():
            it.passed, it.kind = False, Kind.empty_transcript
            it.reason = (
                f"speech detected ({it.speech_ms} ms) but the transcript is empty: counted as "
                + ("wrong" if it.metric is Metric.conditional_accuracy else "an intrusion (no exemption)")
            )
            continue
        context, aliases = turn_context(d.turns, it.turn_id)
        if it.metric is Metric.conditional_accuracy:
            inputs.append(JudgeInput(Task.answer, text, gold=it.gold, aliases=aliases, context=context))
        else:
            inputs.append(JudgeInput(Task.intrusion, text, context=context))
        judged.append(it)
    verdicts = judge_cached(judge, inputs, judge_cache) if inputs else []
    if progress:
        progress("judge", len(verdicts))
    for it, v in zip(judged, verdicts, strict=True):
        it.verdict, it.judge, it.judge_reason = v.verdict.value, v.judge, v.reason
        if v.verdict is Verdict.unsure:
            it.counted, it.passed, it.kind = False, None, Kind.unsure
            it.reason = f"the judge is unsure, so the item is kept out of the rate (counted beside it): {v.reason}"
        elif v.verdict is Verdict.unparsable:
            it.passed, it.kind = False, Kind.unparsable_verdict
            it.reason = "the judge's verdict could not be read: counted as a failure"
        elif it.metric is Metric.conditional_accuracy:
            it.passed = v.verdict is Verdict.correct
            it.kind = Kind.correct if it.passed else Kind.wrong
            it.reason = f"answer judged {v.verdict.value}: {v.reason}"
        else:
            it.passed = v.verdict is Verdict.backchannel
            it.kind = Kind.backchannel if it.passed else Kind.intrusion
            it.reason = f"{it.speech_ms} ms of speech judged {v.verdict.value}: {v.reason}"


def not_judged(dialogues: Sequence[PendingDialogue], why: str) -> str:
    """Mark every pending item `unsure` (out of its rate, counted beside it) without hearing or judging it:
    the judge has no rules for the dialogues' language (`why`). Returns what was left, for the one line."""
    answers = windows = 0
    for d in dialogues:
        for it in d.items:
            if not it.needs_transcript:
                continue
            it.needs_transcript, it.counted, it.passed, it.kind = False, False, None, Kind.unsure
            it.reason = f"not judged: {why}"
            if it.metric is Metric.conditional_accuracy:
                answers += 1
            else:
                windows += 1
    return f"{answers} answer(s) and {windows} speech window(s)"
