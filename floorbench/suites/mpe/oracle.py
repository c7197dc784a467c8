"""What the `oracle` reference agent says on suite mpe: the preamble heard, each `T` answered.

Suite mpe's part `oracle` (floorbench.plugins): the oracle listens for the duty
preamble and every turn, answers each `T` with its gold answer in the configured template,
attempts each `N4Q` (the scenario's `attempt`, or a stock sentence) and stops when the
`N4R` is due, exactly `n4_wait_ms` after the question (the schedule's fixed wait), or
as soon as the resolution is heard, whichever comes first.
"""

from __future__ import annotations

from typing import Any

from floorbench.processors.reference import DEFAULT_ATTEMPT, OracleClip, OraclePlan, OracleSettings


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    clips: list[OracleClip] = []
    if suite is not None and suite.preamble.audio:
        clips.append(OracleClip("preamble", suite.preamble.audio, None))
    for t in scenario.turns:
        text, wait = None, None
        if t.label == "T":
            text = settings.answer_template.format(gold=t.gold)
        elif t.label == "N4Q":
            text, wait = t.attempt or DEFAULT_ATTEMPT, settings.n4_wait_ms
        clips.append(OracleClip(str(t.label), t.audio, text, barges_in=t.label == "N4R", yield_after_ms=wait))
    return OraclePlan(clips)
