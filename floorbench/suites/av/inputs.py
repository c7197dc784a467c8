"""What the av scorer reads of one scenario folder: the event, its window on model.wav's clock, why not.

A scenario of suite `av` leaves the usual dialogue folder (model.wav,
turns.json, meta.json, timeline.jsonl). The scorer needs one thing more than
other suites: the event window, placed on model.wav's clock (t = 0 at its first
sample). It is taken, in this order, from

1. the live schedule's **event line** in timeline.jsonl (reason
   ``event_window``: the clip, the dynamic, and ``window_start_ms`` /
   ``window_end_ms``, the window's actual session times), minus the session
   time of model.wav's first sample (meta.json ``tracks.model.start_ms``);
2. the event clip's actual start (its ``turn_start`` line) plus the scenario's
   ``event.start_ms``/``end_ms`` (the scenario file found through run.json's
   ``suite_path``, or an ``event`` object in turns.json);
3. for a recordings folder without a timeline: turns.json's clip as heard plus
   the event's offsets (``event`` in turns.json).

Times 1 and 2 are when the cue *left* the playback; where turns.json places
the event clip as the recorder *heard* it, the window is shifted by the same
lag (basis ``heard``), as the turns suite scores every clip as heard. A clip
that cannot be scored gets a reason instead (`Unscorable`), never a window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.records import DialogueTurn, read_timeline_lines
from floorbench.scoring.inputs import DialogueSource, Discovery
from floorbench.suites.av.rules import Category, category_of

AV_LABEL = "av"
"""the label every av clip carries in turns.json (the event says what it means)"""
NOT_PLAYED = ("not_run", "event_not_run")
"""timeline reasons that say a clip was not played"""


@dataclass(frozen=True)
class EventSpec:
    """The scored moment as the scenario defines it (offsets relative to the clip's start)."""

    clip: int
    dynamic: str
    category: Category
    start_ms: int
    end_ms: int
    description: str = ""


@dataclass
class AvInput:
    """One av scenario folder, ready to score or with the reason it cannot be."""

    scenario_id: str
    folder: Path
    event: EventSpec | None = None
    window: tuple[int, int] | None = None
    """[start, end] ms on model.wav's clock"""
    basis: str = ""
    """'heard' (shifted by the event clip's lag as the recorder heard it), 'sent', or 'turns.json'"""
    user: list[DialogueTurn] = field(default_factory=list)
    """the user's clips on model.wav's clock (turns.json)"""
    words: list[dict[str, Any]] = field(default_factory=list)
    """the user's words on model.wav's clock where the scenario knows them: {word, start_ms, end_ms}"""
    unscorable: str | None = None
    """why this clip is not scored (never counted as aligned)"""
    t0_ms: int | None = None
    """session time of model.wav's first sample (meta.json), to place recorded video frames"""


def is_av_source(d: DialogueSource) -> bool:
    """A scenario of suite av: the av schedule ran it (meta.json), or its clips carry the av label."""
    if d.meta is not None and (d.meta.suite == "av" or d.meta.schedule.get("policy") == "av"):
        return True
    return bool(d.turns and d.turns.turns and d.turns.turns[0].label == AV_LABEL)


def suite_kind(run_info: dict[str, Any]) -> str | None:
    """The `suite:` kind in the suite.yaml the run played (run.json's suite_path), if still there."""
    path = run_info.get("suite_path")
    if not isinstance(path, str) or not (Path(path) / "suite.yaml").is_file():
        return None
    from floorbench.readers import ReadError, load_yaml

    try:
        raw = load_yaml(Path(path) / "suite.yaml")
    except ReadError:
        return None
    return str(raw.get("suite")) if isinstance(raw, dict) and raw.get("suite") else None


def is_av(disc: Discovery) -> bool:
    """A folder of suite av: its run played an av suite, or a scenario says it is one (`is_av_source`)."""
    return suite_kind(disc.run_info) == "av" or any(is_av_source(d) for d in disc.dialogues)


def _event_from(obj: Any) -> EventSpec | None:
    if not isinstance(obj, dict):
        return None
    try:
        dynamic = str(obj["dynamic"])
        spec = EventSpec(
            clip=int(obj["clip"]),
            dynamic=dynamic,
            category=category_of(dynamic),
            start_ms=int(obj["start_ms"]),
            end_ms=int(obj["end_ms"]),
            description=str(obj.get("description", "")),
        )
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    # a window that ends before it starts (or starts before its clip) is no event: the clip is unscorable
    return spec if 0 <= spec.start_ms < spec.end_ms else None


def _event_from_line(line: dict[str, Any], raw: dict[str, Any] | None) -> EventSpec | None:
    """The event as the live schedule's line states it: its clip (``turn_id``), dynamic, and the window's
    offsets in the clip (actual window − actual clip start); the description from the scenario file."""
    described = _event_from((raw or {}).get("event"))
    try:
        clip_start = int(line["clip_start_ms"]) if "clip_start_ms" in line else None
        obj = {
            "clip": line.get("clip", line.get("turn_id")),
            "dynamic": line.get("dynamic", described.dynamic if described else None),
            "start_ms": line.get(
                "start_ms", int(line["window_start_ms"]) - clip_start if clip_start is not None else None
            ),
            "end_ms": line.get(
                "end_ms", int(line["window_end_ms"]) - clip_start if clip_start is not None else None
            ),
            "description": line.get("description", described.description if described else ""),
        }
    except (TypeError, ValueError):
        return None
    return _event_from(obj)


def event_line(lines: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The live schedule's line with the event window's actual session times (the last one wins)."""
    found = None
    for e in lines:
        if "window_start_ms" in e and "window_end_ms" in e:
            found = e
    return found


def scenario_raw(run_info: dict[str, Any], scenario_id: str) -> dict[str, Any] | None:
    """The scenario file the run played (run.json's suite_path), as parsed YAML, if still there."""
    suite = run_info.get("suite_path")
    if not isinstance(suite, str):
        return None
    path = Path(suite) / "scenarios" / f"{scenario_id}.yaml"
    if not path.is_file():
        return None
    from floorbench.readers import ReadError, load_yaml

    try:
        raw = load_yaml(path)
    except ReadError:
        return None
    return raw if isinstance(raw, dict) else None


def _clip_started(lines: list[dict[str, Any]], clip: int) -> int | None:
    start = None
    for e in lines:
        if e.get("kind") == "turn_start" and e.get("turn_id") == clip and isinstance(e.get("t_ms"), int):
            start = int(e["t_ms"])
    return start


def _not_played(lines: list[dict[str, Any]], clip: int) -> str | None:
    for e in lines:
        if e.get("turn_id") == clip and e.get("reason") in NOT_PLAYED:
            why = e.get("why") or "the schedule did not play it"
            return f"cue_not_played: clip {clip} not run ({why})"
    return None


def _heard_shift(user: list[DialogueTurn], clip: int, sent_ms: int | None) -> int | None:
    """How much later the recorder heard the event clip than it left the playback (model.wav clock)."""
    heard = next((t.start_ms for t in user if t.turn_id == clip), None)
    return None if heard is None or sent_ms is None else heard - sent_ms


def user_words(scenario: dict[str, Any] | None, user: list[DialogueTurn]) -> list[dict[str, Any]]:
    """Every scenario word placed on model.wav's clock by its clip's start as heard."""
    if not scenario:
        return []
    starts = {t.turn_id: t.start_ms for t in user}
    out: list[dict[str, Any]] = []
    for c in scenario.get("clips") or []:
        if not isinstance(c, dict) or c.get("id") not in starts:
            continue
        for w in c.get("words") or []:
            try:
                out.append(
                    {
                        "word": str(w["word"]),
                        "start_ms": starts[c["id"]] + int(w["start_ms"]),
                        "end_ms": starts[c["id"]] + int(w["end_ms"]),
                    }
                )
            except (KeyError, TypeError, ValueError):
                continue
    return out


def place(d: DialogueSource, run_info: dict[str, Any]) -> AvInput:
    """The window of one completed av folder on model.wav's clock, or why it has none."""
    assert d.turns is not None
    sid = d.turns.scenario_id
    user = [t for t in d.turns.turns if t.speaker != "model"]
    inp = AvInput(scenario_id=sid, folder=d.folder, user=user)
    lines = read_timeline_lines(d.folder / "timeline.jsonl")
    extra = d.turns.model_extra or {}
    line = event_line(lines)
    raw = scenario_raw(run_info, sid)
    inp.words = user_words(raw, user)
    inp.event = (
        (_event_from_line(line, raw) if line else None)
        or _event_from((raw or {}).get("event"))
        or _event_from(extra.get("event"))
    )
    if inp.event is None:
        skipped = [
            int(e["turn_id"])
            for e in lines
            if e.get("reason") in NOT_PLAYED and isinstance(e.get("turn_id"), int)
        ]
        if skipped:  # the event is unknown, but a clip was not played: the scenario did not run as planned
            inp.unscorable = _not_played(lines, skipped[0])
            return inp
        inp.unscorable = (
            "no_event: neither the timeline's event line, the scenario file (run.json suite_path) "
            "nor turns.json 'event' says where the window is"
        )
        return inp
    ev = inp.event
    inp.unscorable = _not_played(lines, ev.clip)
    if inp.unscorable:
        return inp
    model = d.meta.tracks.get("model") if d.meta else None
    t0 = inp.t0_ms = model.start_ms if model is not None else None
    sent: tuple[int, int] | None = None
    clip_sent = _clip_started(lines, ev.clip)
    if line is not None and t0 is not None:
        sent = (int(line["window_start_ms"]) - t0, int(line["window_end_ms"]) - t0)
    elif clip_sent is not None and t0 is not None:
        sent = (clip_sent - t0 + ev.start_ms, clip_sent - t0 + ev.end_ms)
    shift = _heard_shift(user, ev.clip, None if clip_sent is None or t0 is None else clip_sent - t0)
    if sent is not None:
        inp.window = (sent[0] + (shift or 0), sent[1] + (shift or 0))
        inp.basis = "heard" if shift is not None else "sent"
    else:
        clip = next((t for t in user if t.turn_id == ev.clip), None)
        if clip is None:
            inp.unscorable = f"cue_not_played: clip {ev.clip} is neither in the timeline nor in turns.json"
            return inp
        inp.window, inp.basis = (clip.start_ms + ev.start_ms, clip.start_ms + ev.end_ms), "turns.json"
    return inp
