"""The offline judge's typed values, claim binding and turn grammar (issue 34), each on sentences
written for these tests (none is a labelled item), and property tests: a number rendered by
num2words in words, digits or as money judges equal to its gold, and a different number does not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.turn_grammar import Part, interjection_like, type_part
from floorbench.scoring.judges.values import (
    date_at,
    gold_code,
    join_split_words,
    spelled_tokens,
    spelled_word,
)

JUDGE = OfflineJudge()


def answer(reply: str, gold: str, question: str = "") -> tuple[Verdict, str]:
    v = JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0]
    assert v.reason.startswith(v.rule + ": "), v.reason
    return v.verdict, v.rule


def window(reply: str, turn: str = "Ines, the boiler broke down again.") -> tuple[Verdict, str]:
    v = JUDGE.judge([JudgeInput(Task.intrusion, reply, context=turn)])[0]
    assert v.reason.startswith(v.rule + ": "), v.reason
    return v.verdict, v.rule


# -- 1. typed values ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("gold", "reply", "verdict"),
    [
        ("1.8 m", "One hundred and eighty centimetres.", Verdict.correct),  # pint: another unit, same length
        ("1.8 m", "Eighteen centimetres.", Verdict.wrong),
        ("750 g", "Three quarters of a kilogram, so 0.75 kg.", Verdict.correct),
        ("2 litres", "Two thousand millilitres.", Verdict.correct),
        ("3 feet", "Thirty-six inches.", Verdict.correct),
        ("$36.80", "Thirty-six eighty.", Verdict.correct),  # money said as two numbers
        ("$36.80", "Thirty-six eighteen.", Verdict.wrong),
        ("£7.25", "Seven pounds twenty-five.", Verdict.correct),
        ("€1.90", "One ninety.", Verdict.correct),
        ("October 17", "The seventeenth of October.", Verdict.correct),  # dates in any order
        ("October 17", "October seventh.", Verdict.wrong),  # a near date is another date
        ("December 31", "December the thirty-first.", Verdict.correct),
    ],
)
def test_a_value_said_in_another_form_is_the_same_value(gold: str, reply: str, verdict: Verdict) -> None:
    assert answer(reply, gold)[0] is verdict


@pytest.mark.parametrize(
    ("gold", "reply", "verdict", "rule"),
    [
        ("QJ48", "Quebec Juliet four eight.", Verdict.correct, "answer.code"),  # the spelling alphabet
        ("QJ48", "Q as in queen, J, four, eight.", Verdict.correct, "answer.code"),  # "as in"
        ("QJ48", "Q J four nine.", Verdict.wrong, "answer.code-other"),  # a near spelling is another code
        ("HP7 3LW", "H P seven, three L W.", Verdict.correct, "answer.code"),  # a code in two pieces
        ("Delacroix", "D E L A C R O I X.", Verdict.correct, "answer.spelled"),  # a name spelled out
        ("Delacroix", "D E L A C R O I S.", Verdict.wrong, "answer.spelled-other"),
        ("Hoffmann", "It's Hoff Mann.", Verdict.correct, "answer.entity"),  # a name split by the recogniser
        ("bay 6", "Bay sixteen.", Verdict.wrong, "answer.value-other"),  # a near number is never a meaning match
        ("bay 6", "Bay six.", Verdict.correct, "answer.numbered"),
        ("locker 305", "Locker three oh five.", Verdict.correct, "answer.numbered"),
        ("locker 305", "Locker three fifty.", Verdict.wrong, "answer.value-other"),
    ],
)
def test_codes_spellings_split_words_and_numbered_names(gold: str, reply: str, verdict: Verdict, rule: str) -> None:
    assert answer(reply, gold) == (verdict, rule)


def test_value_readers() -> None:
    assert date_at("the 9 of march".split(), 0) == (3, 9, 4)
    assert date_at("may one ask".split(), 0) is None  # "may" is a verb here
    assert spelled_tokens("k as in kilo x ray 2".split()) == ["k", "x", "2"]
    assert spelled_tokens("the echo was loud".split()) == "the echo was loud".split()  # no spelling: words
    assert spelled_word("o t t o".split()) == "otto"
    assert gold_code("AB 12") == "ab12" and gold_code("Main Street") is None
    assert join_split_words("Ask Van Dyke.", ["vandyke"]) == "Ask Vandyke."


# -- 2. the claim the question asks for -----------------------------------------------------------------

@pytest.mark.parametrize(
    ("question", "gold", "reply", "verdict"),
    [
        ("Who won the spelling bee?", "Ruth", "Ruth won, and Sami came second.", Verdict.correct),
        ("Who won the spelling bee?", "Ruth", "Sami won it, Ruth came second.", Verdict.wrong),
        ("Who won the spelling bee?", "Ruth", "Sami took first place, ahead of Ruth.", Verdict.wrong),
        ("Which car uses less fuel, the hatchback or the estate?", "the estate",
         "The hatchback uses less fuel, but the estate has the bigger boot.", Verdict.wrong),
        ("Which car uses less fuel, the hatchback or the estate?", "the estate",
         "The estate uses less fuel, and the hatchback has the bigger boot.", Verdict.correct),
        ("Which car uses less fuel, the hatchback or the estate?", "the estate",
         "The estate doesn't use less fuel, the hatchback does.", Verdict.wrong),
    ],
)
def test_the_gold_is_bound_to_the_claim_the_question_asks(question: str, gold: str, reply: str,
                                                          verdict: Verdict) -> None:
    assert answer(reply, gold, question)[0] is verdict


@pytest.mark.parametrize(
    ("question", "gold", "reply", "verdict"),
    [
        ("Which day is the recycling?", "Tuesday", "Monday, no hang on, Tuesday.", Verdict.correct),
        ("Which day is the recycling?", "Tuesday", "Tuesday. Scratch that, Wednesday.", Verdict.wrong),
        ("Which day is the recycling?", "Tuesday", "Tuesday. Make that Wednesday.", Verdict.wrong),
        ("Is the ferry running?", "yes", "No. Wait, yes, it's back on.", Verdict.correct),  # the last word holds
        ("Is the ferry running?", "no, not until May", "Nope, it isn't.", Verdict.correct),  # detail not needed
        ("Is the ferry running?", "no, not until May", "Yes, it is.", Verdict.wrong),
        ("Where are the spare bulbs?", "the hall cupboard",
         "In the hall cupboard, and take a ladder.", Verdict.correct),  # a new clause, no second answer
        ("Where are the spare bulbs?", "the hall cupboard", "The hall cupboard or the garage.", Verdict.wrong),
    ],
)
def test_corrections_details_and_extra_clauses(question: str, gold: str, reply: str, verdict: Verdict) -> None:
    assert answer(reply, gold, question)[0] is verdict


# -- 3. windows by what the words do --------------------------------------------------------------------

@pytest.mark.parametrize(
    "reply",
    ["Ugh, how dreadful.", "Aw, what a shame.", "Oof.", "Uff, na ja.", "Ojalá.", "Heh heh.",
     "(chuckles)", "Come on, you're joking!", "Holy moly.", "Oh, that's so sad.", "Ach, poor you.", "Bah."],
)
def test_reactions_outside_the_lexicon_are_backchannels(reply: str) -> None:
    assert window(reply)[0] is Verdict.backchannel


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("Oof, I can fix it tonight.", "window.content"),  # content after a backchannel opener
        ("Ugh, the plumber is on holiday.", "window.content"),
        ("Tuesday.", "window.content"),  # a bare value adds information
        ("Nine.", "window.number"),
        ("That's expensive.", "window.content"),  # a comment on the content
        ("Sensible plan.", "window.takes-side"),
        ("What a clever idea!", "window.takes-side"),
    ],
)
def test_content_after_any_opener_is_an_intrusion(reply: str, rule: str) -> None:
    assert window(reply) == (Verdict.intrusion, rule)


def test_a_part_the_grammar_cannot_type_is_unsure() -> None:
    verdict, rule = window("How Tuesday!")  # an exclamation whose head is neither feeling nor judgement
    assert (verdict, rule) == (Verdict.unsure, "window.untyped")


def test_the_grammar_types_parts() -> None:
    assert type_part("what a pain").kind is Part.evaluation
    assert type_part("get out of here!").kind is Part.surprise
    assert type_part("the bus is late").kind is Part.content
    assert interjection_like("yikes") and interjection_like("ja") and not interjection_like("bus")
    assert not interjection_like("im")  # a contraction is a word


# -- 4. properties: num2words renderings ------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=9999), st.sampled_from(["words", "digits", "money"]))
def test_a_number_in_any_rendering_judges_equal_to_its_gold(n: int, form: str) -> None:
    said = {"words": num2words(n), "digits": str(n), "money": num2words(n) + " dollars"}[form]
    assert answer(f"It's {said}.", f"{n} dollars")[0] is Verdict.correct


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=9999), st.integers(min_value=1, max_value=500))
def test_a_different_number_judges_wrong(n: int, delta: int) -> None:
    assert answer(f"It's {num2words(n + delta)} dollars.", f"{n} dollars")[0] is Verdict.wrong


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.integers(min_value=10, max_value=99))
def test_money_in_two_numbers_is_its_amount(units: int, cents: int) -> None:
    gold = f"${units}.{cents:02d}"
    assert answer(f"{num2words(units)} {num2words(cents)}.", gold)[0] is Verdict.correct
    other = cents + 1 if cents < 99 else cents - 1
    assert answer(f"{num2words(units)} {num2words(other)}.", gold)[0] is Verdict.wrong
