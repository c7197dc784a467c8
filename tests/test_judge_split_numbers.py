"""The offline judge on numbers a recogniser split, mis-segmented or misheard, and numbers said in
German or Dutch order ("60 8", "84 hundred", "forty too", "twenty forth", "for twenty dollars",
"six and twenty"), on sentences written for these tests (none is a labelled item). The pieces join
only to a number the gold needs: a property test drives every tens figure and unit digit with the
near values beside it (the tens alone, the digits swapped, the hundreds reading), and guards keep a
compound ("20 7-year-olds") and a list of two values apart."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.split_numbers import gold_numbers, join_split_numbers

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str) -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold)])[0].verdict


@pytest.mark.parametrize(("reply", "gold", "want"), [
    ("60 8 degrees", "68 °F", C),
    ("60 8 degrees", "86 °F", W),
    ("60 8 degrees", "60 °F", W),
    ("60 8 degrees", "608 °F", W),
    ("about 84 hundred", "84", W),
    ("It's 20 7 unread.", "27", C),
    ("It's 20 7 unread.", "207", W),
    ("it takes 1 15 total", "1 hour 15 minutes", C),
    ("it takes 1 25 total", "1 hour 15 minutes", W),
    ("starts march 20 4th", "March 24", C),
    ("it's march twenty forth", "March 24", C),
    ("starts march 20 5th", "March 24", W),
    ("84 hundred", "8,400", C),
    ("48 hundred", "8,400", W),
    ("forty too percent", "42%", C),
    ("forty too percent", "24%", W),
    ("a hundred and 87 dollars and 50 cents", "$187.50", C),
    ("a hundred and 78 dollars and 50 cents", "$187.50", W),
    ("it's for twenty dollars for the week", "$420", C),
    ("it's for twenty dollars for the week", "$42", W),
    ("It costs six and twenty euros.", "€26", C),
    ("It costs six and twenty euros.", "€62", W),
    ("He was one and ninety.", "91", C),
    ("He was one and eighty.", "91", W),
])
def test_split_and_misheard_numbers(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold) is want


@pytest.mark.parametrize(("reply", "gold"), [
    ("There were 20 7-year-olds.", "27"),
    ("There were 20 7 year olds.", "27"),
    ("The two counts were 20, 7.", "27"),
    ("Either 60 or 8.", "68"),
    ("one and twenty", "91"),
    ("20 5", "$20.05"),
    ("20 5", "20:05"),
])
def test_pieces_that_are_separate_values_stay_apart(reply: str, gold: str) -> None:
    assert join_split_numbers(reply, [gold]) == reply
    if gold not in ("$20.05", "20:05"):  # there the two are the gold's two parts
        assert answer(reply, gold) is not C


def test_gold_numbers_read_thousands_and_cents() -> None:
    assert gold_numbers(["$187.50", "8,400"]) == {187, 50, 8400}


TENS = st.sampled_from(range(20, 100, 10))
UNITS = st.integers(1, 9)


@settings(max_examples=60, deadline=None)
@given(TENS, UNITS, st.booleans(), st.booleans())
def test_tens_and_unit_in_two_tokens_join_only_to_the_gold(tens: int, unit: int, tens_words: bool,
                                                            unit_words: bool) -> None:
    said = f"{num2words(tens) if tens_words else tens} {num2words(unit) if unit_words else unit}"
    reply = f"It is {said} now."
    assert answer(reply, str(tens + unit)) is C
    assert answer(reply, str(tens * 10 + unit)) is W  # "20 7" is not 207
    if unit * 10 + tens // 10 != tens + unit:
        assert answer(reply, str(unit * 10 + tens // 10)) is W  # "60 8" is not 86
    assert answer(reply, str(tens)) is W  # nor the tens alone


@settings(max_examples=40, deadline=None)
@given(TENS, UNITS)
def test_unit_first_order_and_hundreds(tens: int, unit: int) -> None:
    assert answer(f"It was {num2words(unit)} and {num2words(tens)}.", str(tens + unit)) is C
    assert answer(f"It was {num2words(unit)} and {num2words(tens)}.", str(tens + unit + 1 if unit < 9 else tens + 1)) is W
    assert answer(f"about {tens + unit} hundred", f"{(tens + unit) * 100:,}") is C
    assert answer(f"about {tens + unit} hundred", str(tens + unit)) is W
