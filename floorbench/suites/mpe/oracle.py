"""What the `oracle` reference agent says on suite mpe: the preamble heard, each `T` answered.

Suite mpe's part `oracle` (floorbench.plugins): the oracle listens for the duty
preamble and every turn, answers each `T` with its gold answer in the configured template,
attempts each `N4Q` (the scenario's `attempt`, or a stock sentence) and stops when the
`N4R` is due, exactly `n4_wait_ms` after the question (the schedule's fixed wait), or
as soon as the resolution is heard, whichever comes first. A scenario held in another language
(`language`) is answered in it: its answer sentence (`floorbench.suites.mpe.lines`), spoken by the
language's voice where the configured one is a local voice of another
(floorbench.speech.languages.answer_voice).
"""

from __future__ import annotations

from typing import Any

from floorbench.processors.reference import DEFAULT_ATTEMPT, OracleClip, OraclePlan, OracleSettings
from floorbench.speech.languages import answer_voice


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    from floorbench.suites.mpe.lines import LINES

    lang = getattr(scenario, "language", "en")
    template = settings.answer_template if lang == "en" else LINES[lang].answer
    clips: list[OracleClip] = []
    if suite is not None and suite.preamble.audio:
        clips.append(OracleClip("preamble", suite.preamble.audio, None))
    for t in scenario.turns:
        text, wait = None, None
        if t.label == "T":
            text = template.format(gold=t.gold)
        elif t.label == "N4Q":
            text, wait = t.attempt or DEFAULT_ATTEMPT, settings.n4_wait_ms
        clips.append(OracleClip(str(t.label), t.audio, text, barges_in=t.label == "N4R", yield_after_ms=wait))
    return OraclePlan(clips, voice=None if lang == "en" else answer_voice(lang, settings.voice))
