"""What the `oracle` reference agent says on suite mpe: the preamble heard, each `T` answered.

Suite mpe's part `oracle` (floorbench.plugins): the oracle listens for the duty
preamble and every turn, answers each `T` with its gold answer in the configured template,
attempts each `N4Q` (the scenario's `attempt`, or a stock sentence), and lets the default
`OracleProcessor` time its speech (`N4R` exactly `n4_wait_ms` after the question).
"""

from __future__ import annotations

from typing import Any

from floorbench.processors.reference import DEFAULT_ATTEMPT, OracleClip, OraclePlan, OracleSettings


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    clips: list[OracleClip] = []
    if suite is not None and suite.preamble.audio:
        clips.append(OracleClip("preamble", suite.preamble.audio, None))
    for t in scenario.turns:
        text = None
        if t.label == "T":
            text = settings.answer_template.format(gold=t.gold)
        elif t.label == "N4Q":
            text = t.attempt or DEFAULT_ATTEMPT
        clips.append(OracleClip(str(t.label), t.audio, text))
    return OraclePlan(clips)
