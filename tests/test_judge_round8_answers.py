"""The offline judge's eighth round of issue-34 answer classes, on sentences written for these tests
(none is a labelled item): answers said by the converse (the other side of won/lost, longer/shorter),
values anchored to another time or another item than the one asked, "min" beside "max" as the minimum,
and days and address words that are nobody asked about. Each class has controls of the opposite label
beside it that must not move."""

from __future__ import annotations

import pytest

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


WHO_WON = "Who won the final on Sunday?"
LONGER = "Which is longer, the Shannon or the Severn?"
OLDER = "Who is older, Ana or Ben?"
DEARER = "Which is more expensive, the Dell or the HP?"
STORAGE = "Which has more storage, the blue one or the grey one?"


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # the other side with the opposite pole names the gold
    ("The Severn is shorter.", "the Shannon", LONGER, C),
    ("The Severn isn't longer, no.", "the Shannon", LONGER, C),
    ("Ben is younger.", "Ana", OLDER, C),
    ("The cheaper one is the Dell.", "the HP", DEARER, C),
    ("Dell's cheaper, so go HP if you want pricey.", "the HP", DEARER, C),
    ("celtics lost lol", "Lakers", "yo Aria who won last night, Lakers or Celtics", C),
    ("Kilkenny lost against Limerick, sadly.", "Limerick", WHO_WON, C),
    # the gold's words on the wrong side
    ("The Shannon is the shorter of the two.", "the Shannon", LONGER, W),
    ("The Severn is longer than the Shannon.", "the Shannon", LONGER, W),
    ("Ana is younger than Ben.", "Ana", OLDER, W),
    ("lakers lost lol", "Lakers", "yo Aria who won last night, Lakers or Celtics", W),
    ("Lena beat Theo by a second.", "Theo", "Who won the race?", W),
    ("Theo lost to Lena in the final.", "Theo", "Who won the race?", W),
    ("The blue one has more storage, but the grey one has the bigger screen.", "the grey one", STORAGE, W),
    # controls in the question's own words
    ("The Shannon is longer than the Severn.", "the Shannon", LONGER, C),
    ("Theo beat Lena by a second.", "Theo", "Who won the race?", C),
    ("The grey one has more storage, but the blue one has the bigger screen.", "the grey one", STORAGE, C),
    ("The winner was Limerick.", "Limerick", WHO_WON, C),
    ("The red one, it's cheaper than the blue.", "the red one", "Which is cheaper, the red one or the blue one?", C),
    ("The blue one, it's cheaper than the red.", "the red one", "Which is cheaper, the red one or the blue one?", W),
    ("Limerick beat Kilkenny.", "Limerick", WHO_WON, C),
    # both sides of a match named, no winner
    ("It was Limerick against Kilkenny, a great game.", "Limerick", WHO_WON, W),
    ("Limerick versus Kilkenny, and what a match.", "Limerick", WHO_WON, W),
])
def test_converse_answers(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # the value of the time asked, and the other time's value beside it
    ("It used to open at ten, now it opens at nine.", "10 am", "What time does the pool open?", W),
    ("It used to open at nine, now it opens at ten.", "10 am", "What time does the pool open?", C),
    ("Rent was 900 last year, this year it's 950.", "900", "How much is the rent?", W),
    ("Rent was 900 last year, this year it's 950.", "950", "How much is the rent?", C),
    ("Rent was 900 last year, this year it's 950.", "900", "How much was the rent last year?", C),
    ("He's forty-one now, he'll be forty-two in May.", "42", "How old is Dad?", W),
    ("He's forty-two now, he'll be forty-three in May.", "42", "How old is Dad?", C),
    ("The twelfth, no wait, the twelfth was last year, this year it's the fourteenth.", "12 May",
     "What date is the parade?", W),
    ("It's the twelfth, the fourteenth was last year.", "12 May", "What date is the parade?", C),
    # the value of the item or count asked
    ("For six months it's 5.9, for twelve months it's 6.4.", "6.4%", "What's the rate for six months?", W),
    ("For six months it's 6.4, for twelve months it's 6.9.", "6.4%", "What's the rate for six months?", C),
    ("The deposit for six months is 6.4 and for twelve months 5.9.", "6.4%", "What's the rate for twelve months?", W),
    ("Frame warranty is 5 years and battery 2 years.", "5 years", "How long is the warranty on the bike's battery?", W),
    ("Frame warranty is 2 years and battery 5 years.", "5 years", "How long is the warranty on the bike's battery?", C),
    ("Breakfast is 25 euros, dinner is 8.", "25 euros", "How much is dinner?", W),
    ("Breakfast is 8 euros, dinner is 25.", "25 euros", "How much is dinner?", C),
    # working shown: the terms before the result are no rival values
    ("Fourteen for the pizza plus nine for the drinks, so twenty-three euros.", "23 euros", "What's the total?", C),
    ("The train leaves at 7:10 and arrives at 9:40.", "7:10", "When does the train leave?", C),
])
def test_values_anchored_to_what_is_asked(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("madam max 39 min 27", "39 °C", "What is the maximum temperature in Chennai today?", C),
    ("madam max 27 min 39", "39 °C", "What is the maximum temperature in Chennai today?", W),
    ("min 27 max 39", "27 °C", "What is the lowest it will go tonight, the minimum?", C),
    ("min 27 max 39", "39 °C", "What is the minimum temperature tonight?", W),
    ("about 39 min by bus", "39 minutes", "How long is the bus ride?", C),  # no 'max': minutes
])
def test_min_beside_max_is_the_minimum(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # a day in the question is nobody asked about; "Sir" opens a reply and is nobody's name
    ("Galway, and they deserved it, the Mayo lads were flat.", "Galway", "Who won the match on Saturday?", C),
    ("Mayo, and they deserved it, the Galway lads were flat.", "Galway", "Who won the match on Saturday?", W),
    ("Sir plumber will come Friday morning 10 o'clock.", "Friday, 10:00 am", "When is the plumber coming?", C),
    ("Sir plumber will come Friday morning 11 o'clock.", "Friday, 10:00 am", "When is the plumber coming?", W),
    # the winners' side of a margin said by the losers
    ("England lost by 12 runs sir, India fielded well.", "12 runs", "By how many runs did India win?", C),
    ("England won by 12 runs sir, India batted badly.", "12 runs", "By how many runs did India win?", W),
])
def test_names_bound_to_the_claim(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


VISA = "Do I need a visa to visit?"


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # an alternative put as a question and left open hedges; settled after it, it does not
    ("Two-nil, I think, or was it three-nil? I wasn't really watching.", "2-0", "What was the score?", W),
    ("Two-nil, I think, or was it three-nil? No, two-nil, definitely.", "2-0", "What was the score?", C),
    ("Platform six or is it seven, I always mix them up.", "platform 6", "Which platform for Cork?", W),
    # a value after 'sorry' that is the subject of a 'would' comments; it corrects nothing
    ("Seventy, no, seventeen, sorry, seventy would be far too old.", "17", "How old was she?", C),
    ("Seventeen, no, sorry, seventy, she was a pensioner.", "17", "How old was she?", W),
    ("Seventeen, no wait, it would be seventy.", "17", "How old was she?", W),
    # the last correction decides a yes or no, said with the asked verb again
    ("No, you'd be fine without it... oh, I tell a lie, they changed the rules, you need it now.", "no", VISA, W),
    ("No, you'd be fine without it... oh, I tell a lie, they changed the rules, you need it now.", "yes", VISA, C),
    ("Yes, you need one... oh wait, I tell a lie, they dropped that, you don't need it now.", "no", VISA, C),
    # a negation of 'without' says the thing is needed; "no need" says it is not
    ("Well, I wouldn't go without it, would you?", "no", VISA, W),
    ("Never leave home without it.", "yes", "Should I bring an umbrella?", C),
    ("No need at all, sure it's the same country.", "no", "Do I need a passport for Belfast?", C),
    ("No need at all, sure it's the same country.", "yes", "Do I need a passport for Belfast?", W),
    ("No stress, they're open till six.", "yes", "Is the chemist open on Sunday?", C),
])
def test_hedges_and_corrections_in_long_turns(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


def test_a_gold_named_subject_is_no_other_person() -> None:
    """'Gas mark six' opens on a capital, but 'gas' is the alias's own word, not somebody's value."""
    verdict = JUDGE.judge([JudgeInput(Task.answer, "Gas mark six, nice and hot.", gold="200 °C",
                                      aliases=("gas mark 6", "200 degrees"),
                                      context="What temperature do I set the oven to?")])[0]
    assert verdict.verdict is C, verdict.reason
    verdict = JUDGE.judge([JudgeInput(Task.answer, "Gas mark four, nice and low.", gold="200 °C",
                                      aliases=("gas mark 6", "200 degrees"),
                                      context="What temperature do I set the oven to?")])[0]
    assert verdict.verdict is W, verdict.reason


@pytest.mark.parametrize(("reply", "want"), [
    ("Galway, and didn't they earn it, the Mayo lads were flat.", C),
    ("Mayo, and didn't they earn it, the Galway lads were flat.", W),
])
def test_an_opening_answer_with_a_negated_question_after_it(reply: str, want: Verdict) -> None:
    assert answer(reply, "Galway", "Who won the league?") is want


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # a dose said as a count of tablets of a strength, a pair of them as two
    ("Take two of the 500 milligram tablets.", "1000 mg", "How much paracetamol is one dose?", C),
    ("Take three of the 500 milligram tablets.", "1000 mg", "How much paracetamol is one dose?", W),
    ("one of the 200 mg ones", "400 mg", "How much ibuprofen can I take at once?", W),
    ("A pair of them, with water.", "2", "How many tablets do I take?", C),
    ("A pair of them, with water.", "3", "How many tablets do I take?", W),
])
def test_multiples_read_as_one_value(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want


@pytest.mark.parametrize(("reply", "question", "want"), [
    ("21", "What's the high in Rome today, in Fahrenheit?", W),  # the alias in Celsius is not what was asked
    ("70", "What's the high in Rome today, in Fahrenheit?", C),
    ("21", "What's the high in Rome today?", C),
])
def test_an_alias_in_a_unit_the_question_did_not_ask(reply: str, question: str, want: Verdict) -> None:
    verdict = JUDGE.judge([JudgeInput(Task.answer, reply, gold="70 °F", aliases=("70 degrees", "21 °C"),
                                      context=question)])[0]
    assert verdict.verdict is want, verdict.reason


@pytest.mark.parametrize(("reply", "want"), [
    ("madam bee kay are 9 0 2", C),  # letter names after an address word: still a spelling
    ("madam bee kay you 9 0 2", W),
    ("sir it is B K R 9 0 3", W),
])
def test_letter_names_spelling_a_code_after_an_ordinary_word(reply: str, want: Verdict) -> None:
    assert answer(reply, "BKR902", "What is my booking code?") is want


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # the opposite pole said of the value itself counts the other side; a margin is the same from either
    ("Two thirds failed, sadly.", "two thirds", "What fraction of the class passed?", W),
    ("Two thirds passed, a third failed.", "two thirds", "What fraction of the class passed?", C),
    ("12 were absent today.", "12", "How many pupils were present?", W),
    ("12 were present today.", "12", "How many pupils were present?", C),
    ("Kerry lost by 4 points.", "4 points", "By how many points did Dublin win?", C),
])
def test_a_value_said_of_the_other_side(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want
