"""The offline judge's tenth round: a yes/no answer said as a statement about the question's predicate
(`judges/predicates.py`), on sentences written for these tests (none is a labelled item), and on
generated question/reply pairs whose polarity follows from their parts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.predicates import stated_answer

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


@pytest.mark.parametrize(("question", "reply", "want"), [
    # the predicate asserted, negated, or its opposite asserted
    ("Is the library open on Thursday?", "They're open till nine on Thursdays.", "yes"),
    ("Is the library open on Thursday?", "It ain't open Thursdays, love.", "no"),
    ("Is the library open on Thursday?", "They shut the doors on a Thursday.", "no"),
    ("Is the swimming pool closed on Friday?", "It's not open on Friday, they clean it.", "yes"),
    ("Is the swimming pool closed on Friday?", "They're open as usual on Friday.", "no"),
    ("Is the swimming pool closed on Friday?", "Friday is their day off, so you can't get in.", "yes"),
    ("Is the bakery shut today?", "Nope, it's open.", "no"),
    # permission, by a modal question with "I", "we" or "you"
    ("Can we take photos inside the chapel?", "Photography is permitted without flash.", "yes"),
    ("Can we take photos inside the chapel?", "Cameras are forbidden in there.", "no"),
    ("May I park on the verge?", "Parking there is not allowed.", "no"),
    # other classes of opposites
    ("Is lunch included in the ticket?", "Lunch is extra, eight euros.", "no"),
    ("Is lunch included in the ticket?", "It's complimentary with every ticket.", "yes"),
    ("Is the blue jumper available in medium?", "Medium has sold out, sorry.", "no"),
    ("Did I lock the shed?", "The shed's unlocked, the padlock's on the bench.", "no"),
    ("Is the 9:40 ferry on time?", "It's delayed by twenty minutes.", "no"),
    # a carve-out of the asked case
    ("Is the library open on Thursday?", "Open every day apart from Thursdays.", "no"),
    ("Is the library closed on Thursday?", "They're open all week except Thursday.", "yes"),
    ("Is the library open on Thursday?", "Open every day except Mondays.", "yes"),
    # a restriction that excludes the asked case answers the opposite
    ("Is the clinic open on Sunday morning?", "Only on weekdays.", "no"),
    ("Is the clinic open on Wednesday evening?", "Just in the mornings.", "no"),
    ("Is the clinic closed on Wednesday evening?", "It's only open in the mornings.", "yes"),
])
def test_statement_answers_by_predicate(question: str, reply: str, want: str) -> None:
    assert answer(reply, want, question) == C
    assert answer(reply, "no" if want == "yes" else "yes", question) == W


@pytest.mark.parametrize(("question", "reply", "want"), [
    ("Does the campsite allow dogs?", "No dogs, I'm afraid.", "no"),  # "no" before the question's own noun answers
    ("Is the matinee sold out?", "Yep, not a seat left.", "yes"),  # "yep, not …" is no "yeah nah"
    ("Is the matinee sold out?", "Yeah nah, plenty of seats.", "no"),
])
def test_answer_words(question: str, reply: str, want: str) -> None:
    assert answer(reply, want, question) == C


@pytest.mark.parametrize(("question", "reply"), [
    ("Is the museum open on Easter Monday?", "They were closed on Good Friday, I know that."),  # another occasion
    ("Do I need a visa for Ghana?", "Just your passport."),  # no predicate of the classes
    ("Is the market open on Sunday?", "Is it the covered market you mean?"),  # asks back
    ("Is the market open on Saturday?", "Only on weekends."),  # the restriction keeps the asked case
    ("Do you take cheques?", "We only accept cards."),  # a restriction to another thing: not read
    ("Can I swap a worn jacket?", "You can only swap unworn ones."),
])
def test_no_statement_reading(question: str, reply: str) -> None:
    assert stated_answer(question, reply) is None


@pytest.mark.parametrize("reply", [
    "Maybe open, maybe not, ring them first.",
    "Perhaps yes, perhaps no, it changes weekly.",
    "I wouldn't like to say.",
])
def test_both_possibilities_commit_to_neither(reply: str) -> None:
    assert answer(reply, "yes", "Is the bank open on Saturday?") == W
    assert answer(reply, "no", "Is the bank open on Saturday?") == W


SIDES = {"open": ("open", "closed"), "included": ("included", "extra"), "available": ("available", "sold out")}
THINGS = ("the gallery", "the spa", "breakfast", "the red model", "the rooftop bar")
DAYS = ("Monday", "Tuesday", "Friday", "Sunday")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(SIDES)), st.booleans(), st.booleans(), st.booleans(), st.sampled_from(THINGS),
       st.sampled_from(DAYS), st.sampled_from(("not", "isn't", "nuh", "never")))
def test_generated_polarity(kind: str, ask_positive: bool, say_positive: bool, negate: bool, thing: str, day: str,
                            negator: str) -> None:
    """Whatever side the question asks and the reply says, negated or not, the answer is yes exactly
    when the side the reply asserts is the side the question asks."""
    pos, neg = SIDES[kind]
    question = f"Is {thing} {pos if ask_positive else neg} on {day}?"
    verb = "is" if negator in ("not", "never") else ""
    said = pos if say_positive else neg
    reply = f"{thing.capitalize()} {verb} {negator if negate else ''} {said} on {day}.".replace("  ", " ")
    asserted = say_positive != negate
    want = "yes" if asserted == ask_positive else "no"
    assert stated_answer(question, reply) == want, (question, reply)
