"""The offline judge never crashes on what a recogniser or a person may say.

A hidden calibration sample found a reply ("OH OH NO") that emptied a part while its opener was
stripped and raised IndexError. Replies here are drawn from the judge's own word lists (openers,
interjections, reactions, numbers) mixed with punctuation and ordinary words, so every rule's
short-part branch is reached; each must give a verdict with a reason, never an exception.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from floorbench.scoring.judges import JudgeInput, Task, Verdict, turn_grammar
from floorbench.scoring.judges.offline import OfflineJudge

_LISTED = sorted({w for pair in turn_grammar.REACTION_OPENERS for w in pair}
                 | set(turn_grammar.EXPLETIVES) | set(turn_grammar.PARTICLES) | set(turn_grammar.OPENERS)
                 | set(turn_grammar.SIDE) | set(turn_grammar.AFFECT))
_WORDS = st.sampled_from([*_LISTED, "the", "price", "is", "forty", "two", "aria", "yes", "no", "mate", "???",
                          "[laughter]", "haan", "ji", "ugh", "7:40", "$3.20", "PLATFORM", "FOR"])
_PUNCT = st.sampled_from([" ", " ", " ", " ", ", ", ". ", "! ", "? ", "... ", " - ", "; "])
_REPLY = st.lists(st.tuples(_WORDS, _PUNCT), max_size=8).map(lambda ws: "".join(w + p or " " for w, p in ws))


@pytest.fixture(scope="module")
def offline() -> OfflineJudge:
    return OfflineJudge()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=_REPLY, turn=_REPLY)
def test_any_window_reply_gets_a_verdict(offline: OfflineJudge, reply: str, turn: str) -> None:
    v = offline.judge([JudgeInput(Task.intrusion, reply, context=turn)])[0]
    assert isinstance(v.verdict, Verdict) and v.reason


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=_REPLY)
def test_any_answer_gets_a_verdict(offline: OfflineJudge, reply: str) -> None:
    v = offline.judge([JudgeInput(Task.answer, reply, gold="42 dollars", aliases=("$42",),
                                  context="Aria, what does it cost?")])[0]
    assert isinstance(v.verdict, Verdict) and v.reason


_LEADS = ("", "oh", "um", "well", "ah", "so", "mate")


@pytest.mark.parametrize("pair", sorted(turn_grammar.REACTION_OPENERS))
def test_a_part_that_ends_in_a_two_word_opener(offline: OfflineJudge, pair: tuple[str, str]) -> None:
    """Every two-word opener, alone or after any one-word opener, in any case, unpunctuated."""
    for lead in _LEADS:
        for reply in (f"{lead} {pair[0]} {pair[1]}".strip(), f"{lead} {pair[0]} {pair[1]}!".strip().upper()):
            v = offline.judge([JudgeInput(Task.intrusion, reply, context="I missed the bus again.")])[0]
            assert v.verdict is not None and v.reason, reply
