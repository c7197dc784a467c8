"""What the `oracle` reference agent says on suite turns: each clip's `reply`, no preamble.

Suite turns' part `oracle` (floorbench.plugins): the suite plays no preamble; after
each clip whose turn ends (`eot`, `interrupt`) the oracle says the clip's `reply`, and it
stays silent through pauses, backchannels and noise; a barge-in (`interrupt`) heard while it
speaks stops it. A conversation held in another language (`language`) is answered with that
language's voice where the configured one is a local voice of another
(floorbench.speech.languages.answer_voice).
"""

from __future__ import annotations

from typing import Any

from floorbench.processors.reference import OracleClip, OraclePlan, OracleSettings
from floorbench.speech.languages import answer_voice


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    lang = getattr(scenario, "language", "en")
    return OraclePlan([OracleClip(str(t.label), t.audio, getattr(t, "reply", None), barges_in=t.label == "interrupt")
                       for t in scenario.turns], voice=None if lang == "en" else answer_voice(lang, settings.voice))
