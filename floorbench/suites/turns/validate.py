"""The rules of suite `turns` on one scenario file: one line per broken rule.

Called by `floorbench.scenarios.validate.load_scenario_file` for files that
say ``suite: turns``. The checks are what the live schedule and the scorer
rely on: a pause is followed by more of the same turn, clips timed against the
model follow an end of turn, every number is inside `TurnsRules`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.validate import LoadedSuite, ScenarioError, check_clips_audio, parse_record
from floorbench.suites.turns.rules import CONVERSATION_TYPES, USER_SPEECH, TurnEvent, TurnsRules
from floorbench.suites.turns.schema import TurnsScenario

if TYPE_CHECKING:
    from floorbench.scenarios.info import SuiteInfo

E = TurnEvent


def check_turns_scenario(s: TurnsScenario, path: Path, rules: TurnsRules = TurnsRules()) -> None:
    """Raise a one-line ScenarioError naming the file, scenario and clip of the first broken rule."""
    where = f"{path}: scenario {s.scenario_id}"
    if s.conversation_type not in CONVERSATION_TYPES:
        raise ScenarioError(f"{where}: conversation_type {s.conversation_type!r}; use one of {', '.join(CONVERSATION_TYPES)}")
    if not s.turns:
        raise ScenarioError(f"{where}: no clips; add at least one eot clip")
    if [c.id for c in s.turns] != list(range(1, len(s.turns) + 1)):
        raise ScenarioError(f"{where}: clip ids must be 1, 2, 3, … in order; renumber them")
    if not any(c.label is E.eot for c in s.turns):
        raise ScenarioError(f"{where}: no eot clip; a conversation needs at least one real end of turn")
    prev: TurnEvent | None = None
    for c in s.turns:
        _check_clip(s, c.id, prev, f"{where}: clip {c.id}", rules)
        prev = c.label
    if prev is E.pause:
        raise ScenarioError(f"{where}: clip {s.turns[-1].id}: the last clip is a pause; the user must go on after a pause")


def _check_clip(s: TurnsScenario, cid: int, prev: TurnEvent | None, where: str, rules: TurnsRules) -> None:
    c = s.turns[cid - 1]
    if c.speaker not in s.speakers:
        raise ScenarioError(f"{where}: speaker {c.speaker!r} is not in speakers; add it or fix the clip")
    if not c.text.strip():
        raise ScenarioError(f"{where}: empty text; write what is said")
    user = c.label in USER_SPEECH or c.label is E.backchannel
    if user and c.speaker != "U":
        raise ScenarioError(f"{where}: a {c.label} clip is the user's; set speaker: U")
    if c.label is E.pause:
        lo, hi = rules.pause_min_ms, rules.pause_max_ms
        if c.pause_ms is None or not lo <= c.pause_ms <= hi:
            raise ScenarioError(f"{where}: pause_ms={c.pause_ms}; a pause lasts {lo}–{hi} ms")
    elif c.pause_ms is not None:
        raise ScenarioError(f"{where}: pause_ms on a {c.label} clip; only pause clips have one")
    if prev is E.pause and c.label not in (E.pause, E.eot):
        raise ScenarioError(f"{where}: a {c.label} clip after a pause; the user goes on with pause or eot")
    timed = c.label in (E.interrupt, E.backchannel) or (c.label is E.noise and c.offset_ms is not None)
    if c.label in (E.interrupt, E.backchannel) and c.offset_ms is None:
        raise ScenarioError(f"{where}: a {c.label} needs offset_ms (how long after the model's onset it starts)")
    if c.label in (E.eot, E.pause) and c.offset_ms is not None:
        raise ScenarioError(f"{where}: offset_ms on a {c.label} clip; only clips timed against the model have one")
    if timed:
        lo, hi = rules.offset_min_ms, rules.offset_max_ms
        if c.offset_ms is None or not lo <= c.offset_ms <= hi:
            raise ScenarioError(f"{where}: offset_ms={c.offset_ms}; use {lo}–{hi} ms")
        if prev not in (E.eot, E.interrupt, E.backchannel, E.noise):
            raise ScenarioError(f"{where}: a clip timed against the model must follow an end of turn (eot or interrupt)")
    if c.reply is not None and c.label not in (E.eot, E.interrupt):
        raise ScenarioError(f"{where}: reply on a {c.label} clip; only eot and interrupt clips have one")


def load_turns_scenario(
    path: Path, data: object, root: Path | None = None, audio: bool = False, strict_vocab: bool = False
) -> ScenarioRecord:
    """Parse and check a turns scenario file (and, with `audio`, its clips' audio).

    Suite turns' part `load_scenario` (`strict_vocab` is suite mpe's; no vocabulary here).
    Returned as the runner's `Scenario` type: the runner, the renderer and
    turns.json use only what both schemas share (scenario_id, pair_id,
    condition, speakers, and per clip id, speaker, label, text, audio, gold).
    """
    s = parse_record(TurnsScenario, path, data)
    check_turns_scenario(s, path)
    if audio:
        check_clips_audio(root, path, ((f"{path}: scenario {s.scenario_id}: clip {c.id}", c.audio) for c in s.turns))
    return cast(ScenarioRecord, s)


def turns_suite_info(suite: LoadedSuite, root: Path, check_audio: bool) -> SuiteInfo:
    """`floorbench suite info` of a turns suite: clips per label, conversation types, audio."""
    from collections import Counter

    from floorbench.scenarios.info import SuiteInfo

    scen = [s for s in suite.scenarios if isinstance(s, TurnsScenario)]
    labels = Counter(c.label.value for s in scen for c in s.turns)
    lengths = [len(s.turns) for s in scen] or [0]
    rendered = all(c.audio for s in scen for c in s.turns)
    info = SuiteInfo(
        name=suite.suite.name, root=str(root), pairs=len(scen), scenarios=len(scen),
        sample_rate=suite.suite.sample_rate, generator=suite.suite.generator,
        labels={e.value: labels.get(e.value, 0) for e in TurnEvent},
        attributes={"conversation_type": dict(sorted(Counter(s.conversation_type for s in scen).items()))},
        tasks={}, humans=dict(sorted(Counter(len(s.speakers) for s in scen).items())),
        turns_mean_x100=round(100 * sum(lengths) / len(lengths)), turns_min=min(lengths), turns_max=max(lengths),
        request_quintiles={}, differs={}, rendered=rendered,
    )
    if rendered and check_audio:
        info.measure_audio(suite, scen, preamble=False)  # no preamble is played in this suite
    return info
