"""The offline judge's rules from issue 25, each on sentences written for these tests (none is a
copy of a labelled item): a bare assent token read by the turn it follows, a paraphrased head noun,
the side a contrast commits to, and every part of a gold with several."""

from __future__ import annotations

import pytest

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act


@pytest.fixture(scope="module")
def offline() -> OfflineJudge:
    return OfflineJudge()


def window(j: OfflineJudge, turn: str, reply: str) -> tuple[Verdict, str]:
    v = j.judge([JudgeInput(Task.intrusion, reply, context=turn)])[0]
    assert v.reason.startswith(v.rule + ": "), v.reason  # the reason names the rule
    return v.verdict, v.rule


def answer(j: OfflineJudge, reply: str, gold: str, *aliases: str, question: str = "") -> tuple[Verdict, str]:
    v = j.judge([JudgeInput(Task.answer, reply, gold=gold, aliases=aliases, context=question)])[0]
    assert v.reason.startswith(v.rule + ": "), v.reason
    return v.verdict, v.rule


# -- 1. a bare acknowledgement or assent token goes by the turn it follows ---------------------------

@pytest.mark.parametrize(
    ("turn", "act"),
    [
        ("The dishwasher has finished, by the way.", TurnAct.statement),
        ("Yusuf, the plumber cancelled again.", TurnAct.statement),
        ("Wait a minute while I look for the charger.", TurnAct.statement),
        ("Hmm. So the oven needs twenty minutes... okay.", TurnAct.statement),
        ("Note to self: water the plants.", TurnAct.statement),
        ("Yusuf, have you seen my scarf?", TurnAct.yes_no_question),
        ("Did I leave the back gate open.", TurnAct.yes_no_question),
        ("The match is on Sunday, isn't it?", TurnAct.yes_no_question),
        ("Yusuf, the match is on Sunday, right?", TurnAct.yes_no_question),
        ("You're taking the car tomorrow?", TurnAct.yes_no_question),
        ("Yusuf, could you check the post?", TurnAct.request),
        ("Yusuf, let's eat outside tonight.", TurnAct.request),
        ("Shall we split a taxi home?", TurnAct.request),
        ("How about the Thai place, Yusuf?", TurnAct.request),
        ("Yusuf, bring the folding table, please.", TurnAct.request),
        ("Pour me a glass too, Yusuf.", TurnAct.request),
        ("Hey Google, remind me at five.", TurnAct.request),
        ("Yusuf, which bus goes to the stadium?", TurnAct.wh_question),
        ("Why does the printer always jam.", TurnAct.wh_question),
    ],
)
def test_the_turn_a_reply_follows_is_read_as_what_it_asks_for(turn: str, act: TurnAct) -> None:
    assert turn_act(turn) is act


@pytest.mark.parametrize("reply", ["Yeah.", "Yep, yep.", "Sure.", "True.", "Exactly.", "Of course.", "Okay.",
                                   "Right, right.", "Mm-hmm.", "Got it.", "Definitely."])
def test_a_bare_assent_token_after_a_statement_acknowledges_it(offline: OfflineJudge, reply: str) -> None:
    for turn in ("We got drenched walking back from the station.", "Yusuf, the plumber cancelled again.",
                 "Hold on while I find the receipt."):
        assert window(offline, turn, reply) == (Verdict.backchannel, "window.assent-after-statement"), (turn, reply)


@pytest.mark.parametrize("reply", ["Yeah.", "Sure.", "Okay.", "Mm-hmm.", "Got it.", "Of course.", "Yep, yep."])
def test_the_same_token_after_a_yes_no_question_or_a_request_answers_it(offline: OfflineJudge, reply: str) -> None:
    assert window(offline, "Yusuf, did you remember the tickets?", reply) == (
        Verdict.intrusion, "window.assent-answers-question")
    assert window(offline, "The tram's late again, isn't it?", reply) == (
        Verdict.intrusion, "window.assent-answers-question")
    for turn in ("Yusuf, can you ring the garage?", "Let's leave before the traffic.",
                 "Hey Siri, switch off the hall light.", "Yusuf, carry the cool box to the car."):
        if reply == "Mm-hmm." and turn.startswith("Hey Siri"):
            # issue 34, third round: a hum after a command put to a device accepts nothing (the listener
            # is not asked); a word of acceptance ("okay", "sure") still confirms it as the device would
            assert window(offline, turn, reply) == (Verdict.backchannel, "window.hum-after-device")
            continue
        assert window(offline, turn, reply) == (Verdict.intrusion, "window.assent-accepts-request"), (turn, reply)


def test_after_a_wh_question_a_token_answers_nothing(offline: OfflineJudge) -> None:
    assert window(offline, "Yusuf, where did we park?", "Mm-hmm.") == (
        Verdict.backchannel, "window.assent-after-wh-question")


@pytest.mark.parametrize(
    ("turn", "reply", "rule"),
    [
        ("The dishwasher has finished, by the way.", "No.", "window.answer-word"),  # a no contradicts
        ("The dishwasher has finished, by the way.", "Nope, not yet.", "window.answer-word"),
        ("Yusuf, the plumber cancelled again.", "Yes, he rang me.", "window.content"),  # content beyond the token
        ("Yusuf, the plumber cancelled again.", "Yeah, yeah, yeah, yeah.", "window.floor-holding"),
        ("Yusuf, the plumber cancelled again.", "That's right.", "window.takes-side"),  # a clause takes a side
        ("Yusuf, the plumber cancelled again.", "Okay?", "window.counter-question"),
    ],
)
def test_more_than_a_bare_token_stays_an_intrusion(offline: OfflineJudge, turn: str, reply: str, rule: str) -> None:
    assert window(offline, turn, reply) == (Verdict.intrusion, rule)


@pytest.mark.parametrize("reply", ["Oh no.", "Aw, thanks.", "Hehehe.", "Wow, congratulations!", "Um...",
                                   "Oh, sorry about that.", "No, no, go ahead.", "Mm."])
def test_reactions_fillers_laughter_and_yielding_pass_after_any_turn(offline: OfflineJudge, reply: str) -> None:
    for turn in ("Yusuf, I've lost my wallet.", "Yusuf, are you free on Friday?"):
        assert window(offline, turn, reply)[0] is Verdict.backchannel, (turn, reply)


def test_with_no_turn_to_go_by_yes_words_answer_and_acknowledgements_pass(offline: OfflineJudge) -> None:
    assert window(offline, "", "Yeah.") == (Verdict.intrusion, "window.assent-no-turn")
    assert window(offline, "", "Okay.") == (Verdict.backchannel, "window.ack-no-turn")


# -- 2. a paraphrased head noun, with the gold's distinctive words ----------------------------------

@pytest.mark.parametrize(
    ("reply", "gold"),
    [
        ("The dumpling spot near the station.", "the dumpling place"),
        ("The curry joint, I think.", "the curry house"),
        ("Dumplings.", "the dumpling bar"),
        ("The garden place, about four miles.", "the garden centre"),
        ("The coastal route.", "the coastal path"),
        ("The bike stall on the square.", "the bike shop"),
    ],
)
def test_a_paraphrase_of_the_head_noun_names_the_gold(offline: OfflineJudge, reply: str, gold: str) -> None:
    assert answer(offline, reply, gold) == (Verdict.correct, "answer.paraphrase")


def test_a_paraphrase_that_fits_another_option_too_is_refused(offline: OfflineJudge) -> None:
    question = "Which is nearest, the dumpling place, the dumpling bar or the bakery?"
    assert answer(offline, "The dumpling spot.", "the dumpling place", question=question) == (
        Verdict.wrong, "answer.paraphrase-ambiguous")
    # the modifier must be said: the head noun alone is no paraphrase
    assert answer(offline, "The spot on the corner.", "the dumpling place")[0] is Verdict.wrong


# -- 3. a contrast commits to one side -------------------------------------------------------------

QUESTION = "Aria, which is closest, the florist, the pharmacy or the post office?"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The florist is close, but the pharmacy is closest.", Verdict.correct),
        ("Although the florist looks near, the pharmacy is closest.", Verdict.correct),
        ("The pharmacy, though it shuts early.", Verdict.correct),
        ("The pharmacy, but only just.", Verdict.correct),  # a 'but' with no answer after it is a caveat
        ("The pharmacy is closest, whereas the post office is a drive.", Verdict.correct),
        ("The pharmacy, though the florist is closer.", Verdict.wrong),  # contradicts on what was asked
        ("The pharmacy, but the florist is nearer.", Verdict.wrong),  # the clause after 'but' commits
        ("The post office, though the pharmacy is nice too.", Verdict.wrong),
    ],
)
def test_the_committed_side_of_a_contrast(offline: OfflineJudge, reply: str, expected: Verdict) -> None:
    v, rule = answer(offline, reply, "the pharmacy", "the pharmacy, 2 miles", "2 miles", question=QUESTION)
    assert v is expected, rule


def test_a_comparison_on_another_dimension_does_not_contradict_a_choice(offline: OfflineJudge) -> None:
    question = "Aria, what did Wanda order for dessert?"
    assert answer(offline, "The pavlova, though the crumble is cheaper.", "the pavlova", "pavlova",
                  question=question)[0] is Verdict.correct
    assert answer(offline, "The pavlova, though the crumble is more her kind of thing.", "the pavlova", "pavlova",
                  question=question) == (Verdict.wrong, "answer.contradicted")


def test_a_clause_about_somebody_else_is_an_aside(offline: OfflineJudge) -> None:
    question = "Aria, what did Wanda order for dessert?"
    assert answer(offline, "Ruth had the crumble, but Wanda went for the pavlova.", "the pavlova", "pavlova",
                  question=question)[0] is Verdict.correct
    assert answer(offline, "Wanda had the crumble, but Ruth went for the pavlova.", "the pavlova", "pavlova",
                  question=question) == (Verdict.wrong, "answer.other-person")


# -- 4. every part of a gold with several must be said ---------------------------------------------

@pytest.mark.parametrize(
    ("reply", "expected", "rule"),
    [
        ("Thursday at 3.", Verdict.correct, "answer.all-parts"),
        ("On Thursday, at three in the afternoon.", Verdict.correct, "answer.all-parts"),
        ("Thursday at 15:00.", Verdict.correct, "answer.all-parts"),
        ("Thursday.", Verdict.wrong, "answer.incomplete"),
        ("At three.", Verdict.wrong, "answer.incomplete"),
        ("Thursday at 4.", Verdict.wrong, "answer.incomplete"),
        ("Not Thursday, Friday at 3.", Verdict.wrong, "answer.negated"),
    ],
)
def test_a_day_and_a_time_are_two_parts(offline: OfflineJudge, reply: str, expected: Verdict, rule: str) -> None:
    assert answer(offline, reply, "Thursday at 3") == (expected, rule)


def test_two_items_are_two_parts_and_a_duration_needs_its_unit(offline: OfflineJudge) -> None:
    assert answer(offline, "The soup and the flatbread.", "the soup and the flatbread")[0] is Verdict.correct
    assert answer(offline, "The soup.", "the soup and the flatbread") == (Verdict.wrong, "answer.incomplete")
    assert answer(offline, "Seventy.", "70 minutes", "1 hour 10 minutes") == (Verdict.wrong, "answer.incomplete")
    assert answer(offline, "Seventy minutes.", "70 minutes")[0] is Verdict.correct
    # money keeps its bare-number form (docs/scoring.md: "one thirty" for 130 euros)
    assert answer(offline, "Eighty-five.", "85 euros")[0] is Verdict.correct


# -- found on the same data: withdrawals, second guesses, scopes, reversed relations ----------------

@pytest.mark.parametrize(
    ("reply", "gold", "aliases", "question", "expected"),
    [
        ("Nine pounds each. Hmm, actually, I'm not sure about the wine.", "9 pounds", ("9",), "", Verdict.wrong),
        ("Thirteen, or maybe fourteen.", "13 guests", ("13",), "", Verdict.wrong),
        ("Yusuf. Hmm, or was it Dev?", "Yusuf", (), "Aria, who's bringing the chairs?", Verdict.wrong),
        ("Thirteen, or fourteen if Dev comes.", "13 guests", ("13",), "", Verdict.correct),
        ("Ninety pounds, or 104 with the parking.", "90 pounds", ("90",), "", Verdict.correct),
        ("Eight fifteen, or thereabouts.", "8:15", ("8:15 am",), "", Verdict.correct),
        ("A tenner each.", "10 euros", ("10",), "", Verdict.correct),
        ("Thirty ate chairs.", "38 chairs", ("38",), "", Verdict.correct),
        ("About 16 kilometres.", "10 miles", ("10",), "", Verdict.correct),
        ("The rugs were 40 pounds more.", "40 pounds", ("40",), "How much more were the lamps than the rugs?",
         Verdict.wrong),
        ("The lamps were 40 pounds more.", "40 pounds", ("40",), "How much more were the lamps than the rugs?",
         Verdict.correct),
        ("We've cycled 12 miles.", "12 miles", ("12",), "How much further to the bay?", Verdict.wrong),
        ("You'd be 60 dollars over budget.", "60 dollars", ("60",), "What's left of the budget?", Verdict.wrong),
    ],
)
def test_commitment_found_on_the_blind_set(offline: OfflineJudge, reply: str, gold: str,
                                          aliases: tuple[str, ...], question: str, expected: Verdict) -> None:
    v, rule = answer(offline, reply, gold, *aliases, question=question)
    assert v is expected, rule
