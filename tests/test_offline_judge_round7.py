"""The offline judge's seventh round of issue-34 classes (from the fifth independent sample), on
sentences written for these tests (none is a labelled item): Indian-English and recogniser number
forms, compound durations, and a unit that contradicts the gold's. Each right form has a near value
beside it that must stay wrong."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # figures and scale words in one number
    ("The deposit is rupees 14 hundred and 60 only.", "₹1,460", "What is the deposit?", C),
    ("The deposit is rupees 14 hundred and 70 only.", "₹1,460", "What is the deposit?", W),
    ("total is 23 thousand 4 hundred rupees ma'am", "₹23,400", "What is the total?", C),
    ("total is 23 thousand 5 hundred rupees ma'am", "₹23,400", "What is the total?", W),
    ("Sir it is 3 lakh 40 thousand on-road.", "₹3,40,000", "What is the on-road price?", C),
    ("Sir it is 3 lakh 14 thousand on-road.", "₹3,40,000", "What is the on-road price?", W),
    # a number word spelt as it is said
    ("it comes to two thousand three hundred fourty rupees", "₹2,340", "How much is it?", C),
    ("it comes to two thousand three hundred fourty five rupees", "₹2,340", "How much is it?", W),
    # a decimal and an ordinal split by the recogniser
    ("interest is 7 point 4 percent sir", "7.4%", "What is the interest rate?", C),
    ("interest is 7 point 5 percent sir", "7.4%", "What is the interest rate?", W),
    ("interest is 74 percent sir", "7.4%", "What is the interest rate?", W),
    ("delivery is on 22 nd of march", "22 March", "When is the delivery?", C),
    ("delivery is on 23 rd of march", "22 March", "When is the delivery?", W),
    # a date in figures, day first or month first
    ("Ma'am date is 22-03, Friday.", "22 March", "When is the delivery?", C),
    ("Ma'am date is 23-03, Friday.", "22 March", "When is the delivery?", W),
    ("3/22 lol", "March 22", "when is the concert", C),
    ("3/23 lol", "March 22", "when is the concert", W),
    ("22/4", "22 March", "When is the delivery?", W),
    # a digit string broken by fillers
    ("ticket number is seven three one uh uh nine zero two two", "7319022", "What is the ticket number?", C),
    ("ticket number is 7 3 1 um 9 0 2 3", "7319022", "What is the ticket number?", W),
    # a round number said as its digit and "oh"
    ("she's turning the big seven-oh", "70", "How old is grandma turning?", C),
    ("she's turning the big seven-oh", "71", "How old is grandma turning?", W),
    ("she's turning seven oh five", "70", "How old is grandma turning?", W),
])
def test_number_forms(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


@settings(max_examples=25, deadline=None)
@given(st.integers(11, 99), st.integers(1, 99), st.booleans())
def test_every_hundreds_figure_said_with_digits(hundreds: int, rest: int, joined_by_and: bool) -> None:
    gold = f"₹{hundreds * 100 + rest:,}"
    said = f"rupees {hundreds} hundred {'and ' if joined_by_and else ''}{rest} only"
    assert answer(said, gold, "What is the fare?") is C
    near = f"rupees {hundreds} hundred {'and ' if joined_by_and else ''}{rest % 99 + 1} only"
    assert answer(near, gold, "What is the fare?") is W


@pytest.mark.parametrize(("reply", "gold", "want"), [
    # a two-part duration said with its units spelt otherwise, as a fraction, or in the smaller unit
    ("about two and a quarter hours", "2 h 15 min", C),
    ("two and a half hours", "2 h 15 min", W),
    ("Three and three quarters hours, with the stop.", "3 h 45 min", C),
    ("135 minutes", "2 h 15 min", C),
    ("145 minutes", "2 h 15 min", W),
    ("2 hrs 15 min door to door", "2 h 15 min", C),
    ("2 hrs 25 min door to door", "2 h 15 min", W),
    ("2 15", "2 h 15 min", C),
    ("2 50", "2 h 15 min", W),
    ("ninety five seconds flat", "1 minute 35 seconds", C),
    ("ninety seconds flat", "1 minute 35 seconds", W),
    ("one minute and thirty-five seconds", "1 minute 35 seconds", C),
])
def test_compound_durations(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold, "How long does it take?") is want


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 9), st.sampled_from([15, 30, 45]))
def test_every_hours_and_minutes_said_as_minutes(hours: int, minutes: int) -> None:
    gold = f"{hours} h {minutes} min"
    assert answer(f"{hours * 60 + minutes} minutes", gold) is C
    assert answer(f"{hours * 60 + minutes + 10} minutes", gold) is W


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # two values, each after one of a pair of opposite labels: the gold's value goes with its own label
    ("Sir minimum 29 and maximum 36.", "29 °C", "What is the maximum temperature in Pune today?", W),
    ("Sir maximum 29 and minimum 21.", "29 °C", "What is the maximum temperature in Pune today?", C),
    ("Lowest 8, highest 15.", "8 °C", "How low will it get tonight?", C),
    ("Lowest 8, highest 15.", "15 °C", "What's the lowest it will get tonight?", W),
    ("It is arriving at 9 40 ma'am and departing at 9 55.", "09:40", "What time does the Rajdhani leave Kota?", W),
    ("It is departing at 9 40 ma'am and arriving at 14 10.", "09:40", "What time does the Rajdhani leave Kota?", C),
    ("Ex-showroom is 2.4 lakh sir, on-road will be 2.75 lakh.", "₹2,40,000", "What is the on-road price?", W),
    ("On-road is 2.4 lakh sir, ex-showroom is 2.1 lakh.", "₹2,40,000", "What is the on-road price?", C),
    ("Check-out is on 14 August, check-in is on 11 August.", "11 August", "When is check-out?", W),
    ("Check-in is on 14 August, check-out is on 11 August.", "11 August", "When is check-out?", C),
    ("The library opens at 10 and closes at 6.", "10 am", "When does the library close?", W),
    ("The library opens at 10 and closes at 6.", "6 pm", "When does the library close?", C),
    ("It departs at 9 40, platform 3.", "09:40", "What time does the train leave?", C),  # one value: nothing to bind
])
def test_value_bound_to_its_opposite_label(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


@pytest.mark.parametrize(("reply", "gold", "want"), [
    # the gold's number counting another thing of the same domain
    ("Sir Pakistan won by 61 wickets.", "61 runs", W),
    ("Sir Pakistan won by 61 runs.", "61 runs", C),
    ("They won by sixty-one runs, what a finish.", "61 runs", C),
    ("They won by 7 runs.", "7 wickets", W),
    ("seven wickets, easy chase", "7 wickets", C),
    ("She scored 12 goals this season.", "12 points", W),
    ("Twelve points, two ahead of Leeds.", "12 points", C),
    ("3 tries to 1, a bonus point", "3 goals", W),
    ("61, chasing 240", "61 runs", C),  # a bare number counts nothing else
])
def test_a_number_counting_another_thing(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold, "By how much did they win?") is want


def window(reply: str, turn: str) -> Verdict:
    return JUDGE.intrusion(reply, turn).verdict


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # a request put by name with no comma, or with "kindly": a bare assent accepts it
    ("sure", "Deepa grab me a fork", Verdict.intrusion),
    ("sure", "Deepa grabs a fork every time", Verdict.backchannel),
    ("Haan.", "Arjun, kindly see if the milkman has come.", Verdict.intrusion),
    ("Haan.", "Arjun, the milkman has come.", Verdict.backchannel),
])
def test_a_request_by_name_or_kindly(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want
