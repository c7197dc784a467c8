"""The live scoring tests' excuse for a misheard oracle answer, on items written here (no room).

`assert_oracle_answers_heard` lets a wrong verdict pass only where the transcript shows the ASR
misheard the gold; it must still fail where the transcript holds the gold (the judge would be wrong)
or holds something far from it.
"""

from __future__ import annotations

import pytest
from test_scoring_live import assert_oracle_answers_heard, spoken_money


def _item(transcript: str, kind: str, gold: str = "18 dollars") -> dict:  # type: ignore[type-arg]
    return {"metric": "conditional_accuracy", "counted": True, "scenario_id": "tiny01-implicit",
            "transcript": transcript, "kind": kind, "gold": gold}


@pytest.mark.parametrize("transcript", ["The answer is $8.00.", "The answer is aching dollars.", "The answer is $80."])
def test_a_sum_misheard_close_to_the_gold_is_excused(transcript: str) -> None:
    assert_oracle_answers_heard([_item(transcript, "wrong")])


@pytest.mark.parametrize("transcript", ["The answer is $18.", "The answer is $18.00.", "The answer is 18 dollars."])
def test_a_wrong_verdict_on_the_gold_itself_is_not_excused(transcript: str) -> None:
    with pytest.raises(AssertionError, match="holding the gold"):
        assert_oracle_answers_heard([_item(transcript, "wrong")])


def test_another_answer_is_not_excused() -> None:
    with pytest.raises(AssertionError, match="similarity"):
        assert_oracle_answers_heard([_item("The answer is the taco place.", "wrong")])
    with pytest.raises(AssertionError, match="another answer"):
        assert_oracle_answers_heard([_item("The answer is nine o'clock.", "wrong")], ["18 dollars", "nine o'clock"])


def test_currency_is_said_as_the_gold_says_it() -> None:
    assert spoken_money("It is $1,800, not $ 5.50.") == "It is 1,800 dollars, not 5.50 dollars."
