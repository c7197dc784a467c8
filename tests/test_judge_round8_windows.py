"""The window rules' eighth round of issue-34 classes (from the fifth independent sample), on sentences
written for these tests (none is a labelled item): a degree word and one judgement, a wish put to a
deity, a dismissal and a rhetorical "would you believe it", a graded phrasal participle, emotes and
named sounds, a turn that asks in disbelief, and a list repeated back. Each class has controls of the
opposite label: the same shape with content must stay an intrusion."""

from __future__ import annotations

import pytest

from floorbench.scoring.judges import Verdict
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act

JUDGE = OfflineJudge()
BC, IN = Verdict.backchannel, Verdict.intrusion
NEWS = "Dilnoza, the council is closing the swimming pool for the whole summer."
ASKED = "Dilnoza, what did the council decide about the pool?"


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # a degree word and one judgement (an abstract noun or an adjective by its ending)
    ("Sheer stupidity.", NEWS, BC),
    ("Utter farce!", NEWS, BC),
    ("Total devastation.", NEWS, BC),
    ("Pure gutted.", NEWS, BC),
    ("Oh, absolute shambolic.", NEWS, BC),
    ("Complete foolishness.", NEWS, BC),
    # controls: a concrete noun, a question, a word of the turn, an answer to a question
    ("Total cost?", NEWS, IN),
    ("Full summer?", NEWS, IN),
    ("Full closure.", ASKED, IN),
    ("Complete renovation, I heard.", NEWS, IN),
    # a wish put to a deity: a verb in the subjunctive and a pronoun
    ("God help them.", NEWS, BC),
    ("Ah, Lord preserve us.", NEWS, BC),
    ("Heaven help us all.", NEWS, BC),
    ("God forgive them.", NEWS, BC),
    # controls: a report (-s, -ed) or a name in place of the pronoun
    ("God gave them a lido once.", NEWS, IN),
    ("Lord Henley owns it.", NEWS, IN),
    # a dismissal in light words, a rhetorical "would you believe it"
    ("Get away with you!", NEWS, BC),
    ("Ah, come off it.", NEWS, BC),
    ("Could you believe it!", NEWS, BC),
    # controls: an instruction, a real request
    ("Go now!", NEWS, IN),
    ("Get the petition out.", NEWS, IN),
    ("Could you send it to me?", NEWS, IN),
    # a phrasal participle graded by a degree word, said of the news ("that")
    ("That's really stitched up.", NEWS, BC),
    ("that is so messed up", NEWS, BC),
    # control: the same form describing a thing ("it"), with information
    ("It's totally booked up in July.", NEWS, IN),
    # emotes and named sounds
    ("*sigh*", NEWS, BC),
    ("[groans]", NEWS, BC),
    ("Gasp!", NEWS, BC),
    ("(sniffs) typical.", NEWS, BC),
    # controls: content beside or after the emote
    ("*checks* it reopens on the 3rd.", NEWS, IN),
    ("Sigh, the leisure centre has one.", NEWS, IN),
])
def test_window_classes(reply: str, turn: str, want: Verdict) -> None:
    got = JUDGE.intrusion(reply, turn)
    assert got.verdict is want, got.reason


@pytest.mark.parametrize(("turn", "want"), [
    ("Ayesha, a fiver for a coffee now, can you credit it?", TurnAct.statement),
    ("Would you believe it!", TurnAct.statement),
    ("Tom, the bus broke down twice, could you imagine?", TurnAct.statement),
    # controls: what is believed or imagined is put to the listener, or a request to act
    ("Can you believe the forecast for tomorrow?", TurnAct.request),
    ("Would you believe me if I told you?", TurnAct.request),
    ("Tom, could you check the timetable?", TurnAct.request),
])
def test_a_question_of_disbelief_asks_nothing(turn: str, want: TurnAct) -> None:
    assert turn_act(turn) is want


def test_a_judgement_after_a_question_of_disbelief_reacts() -> None:
    turn = "Ayesha, a fiver for a coffee now, can you credit it?"
    assert JUDGE.intrusion("Sheer greed.", turn).verdict is BC
    assert JUDGE.intrusion("Yes, I paid it too.", turn).verdict is IN


@pytest.mark.parametrize("reply", ["Two kg rice, noted.", "Ok, one kg sugar.", "Half dozen eggs, yep."])
def test_a_list_repeated_back_is_content(reply: str) -> None:
    turn = "So, two kg rice, one kg sugar, half dozen eggs, what else."
    assert JUDGE.intrusion(reply, turn).verdict is IN


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # a feeling word denied, an understatement, after news: it contradicts nothing
    ("Not good.", NEWS, BC),
    ("Ah, that's not nice now.", NEWS, BC),
    ("Not fun, not fun at all.", NEWS, IN),  # longer than a reaction: it holds the floor
    ("Not brilliant.", NEWS, BC),
    # controls: a claim denied, a question answered, content after it
    ("That's not true.", NEWS, IN),
    ("Not right, it closes in August.", NEWS, IN),
    ("Not good.", "Dilnoza, was the meeting good?", IN),
    ("Not good, they voted it through.", NEWS, IN),
    # a feeling verb without its subject, about the news
    ("Hate that.", NEWS, BC),
    ("Adore that for you.", NEWS, BC),
    # controls: about a thing named, after a question, with a clause
    ("Love the old lido.", NEWS, IN),
    ("Love it.", "Dilnoza, do you like the new timetable?", IN),
    ("Hate to say it, the gym is shut too.", NEWS, IN),
])
def test_understatements_and_feeling_verbs(reply: str, turn: str, want: Verdict) -> None:
    got = JUDGE.intrusion(reply, turn)
    assert got.verdict is want, got.reason


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # another language's "how …!" makes the word after it that language's, even spelt like English
    ("Ai, que horrível.", NEWS, BC),
    ("Quel gâchis!", NEWS, BC),
    ("Che peccato.", NEWS, BC),
    # controls: after a question, or with the news's own word, or a clause in English after it
    ("Que pool?", ASKED, IN),
    ("Que horrible, the gym is shut too.", NEWS, IN),
    # a deity called on with a vocative or an epithet only
    ("O Lord.", NEWS, BC),
    ("Good God almighty.", NEWS, BC),
    # controls: a deity beside content
    ("Oh God, the pool in Leith is shut too.", NEWS, IN),
    ("Dear God, what did the council say?", NEWS, IN),
])
def test_foreign_exclamatives_and_deities_called_on(reply: str, turn: str, want: Verdict) -> None:
    got = JUDGE.intrusion(reply, turn)
    assert got.verdict is want, got.reason


def test_a_foreign_exclamative_of_the_news_own_word_is_no_reaction() -> None:
    # it may repeat a name or a value back: never a backchannel, at most unsure
    assert JUDGE.intrusion("Que summer!", NEWS).verdict is not BC
