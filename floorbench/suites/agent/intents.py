"""Intents of the agent's turn for branch rules (docs/testing.md "Branching steps"): `intent: NAME`.

A rule that names an intent matches when the agent's turn, as the caller's
ASR heard it, reads that way to the offline judge's own lexicon and turn
reader, so a branch and the scorer's backchannel verdict agree on the same
words:

- ``yes`` / ``no``: the turn opens with an assent or acknowledgement ("Yes,
  …", "Sure.", "Of course", "Okay", "Mhm") / with a refusal or denial ("No,
  …", "Nope", "Not really", "I'm afraid not", "I don't think so"). The
  longest phrase at the opening decides, so "No problem" and "No worries"
  (reactions in the lexicon) are neither;
- ``question``: the turn ends asking the caller something: a yes/no
  question, a wh-question or a request (`turn_acts.turn_act`); each of the
  three also by its own name (``yes-no-question``, ``wh-question``,
  ``request``), and ``statement`` for a turn that asks nothing;
- ``backchannel``: the whole turn is a brief reaction, thanks or filler, as
  the offline intrusion judge reads one ("mm-hm", "oh, I see", "thanks").

English only, as the lexicon. An empty turn has no intent (the branch takes
``otherwise``, as for any rule). Where the offline judge is unsure of a turn
(`read_intent` says None, with the reason), the rule does not match: the branch
takes ``otherwise`` unless another rule matches, and the choice records the
unsure reading.
"""

from __future__ import annotations

from enum import StrEnum

from floorbench.scoring.judges import Verdict
from floorbench.scoring.judges.normalize import normalize_tokens
from floorbench.scoring.judges.offline import (
    ACKNOWLEDGEMENTS,
    ASSENTS,
    BACKCHANNEL_LEXICON,
    OfflineJudge,
)
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act


class Intent(StrEnum):
    yes = "yes"
    no = "no"
    question = "question"
    yes_no_question = TurnAct.yes_no_question.value
    wh_question = TurnAct.wh_question.value
    request = TurnAct.request.value
    statement = TurnAct.statement.value
    backchannel = "backchannel"


DENIALS = (
    "no",
    "nope",
    "nah",
    "negative",
    "not really",
    "not yet",
    "not at all",
    "not quite",
    "im afraid not",
    "afraid not",
    "unfortunately not",
    "sorry no",
    "i dont think so",
    "i cant",
    "i cannot",
    "i wont",
    "i dont",
    "we dont",
    "we cant",
    "we cannot",
    "i do not",
    "we do not",
)
"""openings that refuse or deny; a longer phrase of the lexicon at the opening ("no problem") wins"""
ASKING = frozenset({TurnAct.yes_no_question, TurnAct.wh_question, TurnAct.request})

_OPENERS = sorted(
    [(tuple(p.split()), Intent.yes) for p in (*ASSENTS, *ACKNOWLEDGEMENTS, "mhm", "mm hm", "uh huh")]
    + [(tuple(p.split()), Intent.no) for p in DENIALS]
    + [(tuple(p.split()), None) for p in BACKCHANNEL_LEXICON],
    key=lambda pk: len(pk[0]),
    reverse=True,
)
"""(phrase, the intent its opening gives; None: a reaction, neither yes nor no), longest first"""
_JUDGE = OfflineJudge()
"""the intrusion rules only (no sentence model is loaded for them)"""


def opening(text: str) -> Intent | None:
    """yes, no, or None: what the longest lexicon phrase the turn opens with says."""
    tokens = normalize_tokens(text)
    for phrase, intent in _OPENERS:
        if tuple(tokens[: len(phrase)]) == phrase:
            return intent
    return None


def read_intent(text: str, intent: Intent) -> tuple[bool | None, str]:
    """(does the agent's turn `text` read as `intent`, why); None: the offline judge is unsure."""
    if intent is Intent.backchannel and normalize_tokens(text):
        v = _JUDGE.intrusion(text)
        if v.verdict is Verdict.unsure:
            return None, f"intent {intent.value} unsure: {v.reason}"
        return v.verdict is Verdict.backchannel, v.reason
    return has_intent(text, intent), ""


def has_intent(text: str, intent: Intent) -> bool:
    """Does the agent's turn `text` read as `intent`? (An unsure reading does not.)"""
    if not normalize_tokens(text):
        return False
    if intent in (Intent.yes, Intent.no):
        return opening(text) is intent
    if intent is Intent.backchannel:
        return _JUDGE.intrusion(text).verdict is Verdict.backchannel
    act = turn_act(text)
    if intent is Intent.question:
        return act in ASKING
    return act is not None and act.value == intent.value
