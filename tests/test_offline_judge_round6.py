"""The offline judge's sixth round of issue-34 classes, on sentences written for these tests (none is a
labelled item). Windows: reactions in other languages read by their shape, echo questions of surprise,
a bare "what", stance tags at a part's end ("o", "sha", "lah"), invocations of a deity, "typical X",
yielding the floor ("no rush"), reactions run on without a mark, assent hums said over and over, the
assent words of other languages, a question or request left open by a short reason after it, and a
turn that looks for a word. Each class has its controls beside it: content in the same shape stays an
intrusion."""

from __future__ import annotations

import pytest

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge

JUDGE = OfflineJudge()
B, N = Verdict.backchannel, Verdict.intrusion
C, W = Verdict.correct, Verdict.wrong


def window(reply: str, turn: str) -> Verdict:
    return JUDGE.intrusion(reply, turn).verdict


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


NEWS = "Marta, my grandfather fell off his bike this morning."
GOOD_NEWS = "Yusuf, we finally bought the flat in Leith!"


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # another language, read by its shape after news told in English
    ("Qué lástima.", NEWS, B),
    ("Pobre abuelo!", NEWS, B),
    ("Ach du lieber.", NEWS, B),
    ("Félicitations!", GOOD_NEWS, B),
    ("Enhorabuena, guapo!", GOOD_NEWS, B),
    ("Mazel tov!", GOOD_NEWS, B),
    ("Echt, wahnsinn?", GOOD_NEWS, B),
    ("Super schön.", GOOD_NEWS, B),
    ("Dos semanas.", "Leon, how long is the course?", N),           # after a question: may be the answer
    ("Der Kühlschrank.", "Where did I put the butter...", N),
    ("Zweiundzwanzig.", "How do you say twenty-two in German...", N),  # the turn looks for a word
    ("Grandfather?", NEWS, N),                                         # a word of the turn, asked back
    # echo questions and a bare "what"
    ("Oh, did he?", NEWS, B),
    ("Was it?", "Ife, the concert was sold out in an hour!", B),
    ("Have they now?", "Sanne, the neighbours are moving to Spain.", B),
    ("Did he what?", NEWS, N),
    ("Did he break anything?", NEWS, N),
    ("Is it?", "Kai, is the shop open?", N),
    ("what!", GOOD_NEWS, B),
    ("What?", GOOD_NEWS, N),
    ("what did you buy", GOOD_NEWS, N),
    # stance tags at a part's end
    ("Well done o!", GOOD_NEWS, B),
    ("Ah, sorry sha.", NEWS, B),
    ("Wah, so nice lah!", GOOD_NEWS, B),
    ("Shame, poor man eh.", NEWS, B),
    ("Call him now.", NEWS, N),
    ("Bring the plaster o.", NEWS, N),
    # invocations of a deity, "typical X", yielding the floor
    ("Lord have mercy!", NEWS, B),
    ("Ah, thank God.", "Dami, the surgery went fine, he is awake.", B),
    ("God is good o!", GOOD_NEWS, B),
    ("God knows where he parked it.", NEWS, N),
    ("Typical Monday.", "Abe, the coffee machine broke again.", B),
    ("Typical of him to ride in the rain.", NEWS, N),
    ("No rush.", "Hang on, I am still looking for the charger.", B),
    ("In your own time.", "Wait, let me find the receipt first.", B),
    # reactions run on without a mark
    ("oh wow that's brilliant", "ines we got the flat", B),
    ("what no way congrats", "ines we got the flat", B),
    ("no way that's too expensive", "ines the flat is two thousand a month", N),
    ("wow that is the wrong flat", "ines we got the flat", N),
    # assent hums said over and over in one part, foreign assent words
    ("Mm-hmm mm-hmm mm-hmm mm-hmm.", "So the plumber comes Tuesday.", N),
    ("Uh-huh uh-huh.", "So the plumber comes Tuesday.", B),
    ("Genau.", "Pia, can you hold the ladder?", N),
    ("Oui, oui.", "Chloé, shall we leave at six?", N),
    ("Genau.", "The plumber comes on Tuesday, I think.", B),
    # a question or request left open by a short reason after it
    ("Sure, one sec.", "Nour, could you pass me the charger? Battery's dying.", N),
    ("Yes.", "Tomás, did you feed the cat? She's meowing.", N),
    ("Yes.", "Tomás fed the cat. She's asleep now.", B),
    # a turn that looks for a word
    ("Colander!", "What's the word... the bowl with the holes for pasta...", N),
    ("Ooh, tricky.", "Nine down, a river in Egypt, four letters.", B),
])
def test_window_classes_round6(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # a duration in minutes and seconds is one value
    ("Three minutes forty-five seconds.", "3 minutes 45 seconds", "How long is the song?", C),
    ("225 seconds.", "3 minutes 45 seconds", "How long is the song?", C),
    ("three forty-five", "3 minutes 45 seconds", "How long is the song?", C),
    ("3 45 or so", "3 minutes 45 seconds", "How long is the song?", C),
    ("Three minutes.", "3 minutes 45 seconds", "How long is the song?", W),
    ("Three minutes fifty-four seconds.", "3 minutes 45 seconds", "How long is the song?", W),
    ("240 seconds.", "3 minutes 45 seconds", "How long is the song?", W),
    ("Ninety seconds.", "1.5 minutes", "How long do the eggs rest?", C),
    # "actually" closing a clause stresses it
    ("It's twelve euros, actually, no, fifteen.", "15 euros", "How much is entry?", C),
    ("Twelve euros. Actually fifteen.", "12 euros", "How much is entry?", W),
    # a value below zero needs its sign
    ("Minus twelve.", "-12 °C", "How cold is it in Oslo?", C),
    ("Twelve below zero.", "-12 °C", "How cold is it in Oslo?", C),
    ("Twelve degrees.", "-12 °C", "How cold is it in Oslo?", W),
    # a time of day said "at N hours", and N minutes before the hour
    ("The gates open at nine hours.", "9:00", "When do the gates open?", C),
    ("Boarding starts at twenty hours.", "20:00", "When does boarding start?", C),
    ("It lasts nine hours.", "9:00", "When do the gates open?", W),
    ("Twenty minutes before eight.", "7:40", "When is the ferry?", C),
    ("Twenty minutes before eight.", "8:20", "When is the ferry?", W),
    # a "but" clause about another thing takes nothing back
    ("At eight, but the ticket office opens at seven.", "8:00", "When does the museum open?", C),
    ("At eight, but the museum opens at seven on Sundays.", "8:00", "When does the museum open?", W),
    ("Four pounds, but the large one is six.", "6 pounds", "How much is the large coffee?", C),
])
def test_answer_classes_round6(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want, JUDGE.judge(
        [JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].reason


@pytest.mark.parametrize(("reply", "aliases", "question", "want"), [
    ("No worries, the lift is working again.", ("yes, it is", "it is working"), "Is the lift working?", C),
    ("No question, it will snow.", ("yes, it will", "it will snow"), "Will it snow tonight?", C),
    ("It's free actually, you just show your card.", ("yes, it is", "it is free"), "Is entry free?", C),
    ("No, it stopped again.", ("yes, it is", "it is working"), "Is the lift working?", W),
    ("No chance, it's broken.", ("yes, it is", "it is working"), "Is the lift working?", W),
])
def test_yes_after_a_no_that_is_a_determiner(reply: str, aliases: tuple[str, ...], question: str,
                                             want: Verdict) -> None:
    got = JUDGE.judge([JudgeInput(Task.answer, reply, gold="yes", aliases=aliases, context=question)])[0]
    assert got.verdict is want, got.reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # money in other currencies, written before the amount or named after it
    ("Forty-nine rand fifty.", "R49,50", "How much is the taxi to Sandton?", C),
    ("About fifty rand.", "R49,50", "How much is the taxi to Sandton?", W),
    ("Forty-nine fifty dollars.", "R49,50", "How much is the taxi to Sandton?", W),
    ("Two thousand five hundred naira.", "₦2,500", "How much is the suya platter?", C),
    ("Three hundred and twenty rupees.", "Rs. 320", "What does the auto cost to the station?", C),
    ("320 yen.", "₹320", "What does the auto cost to the station?", W),
    ("Eight hundred yen.", "¥800", "How much is the bowl of ramen?", C),
    # a value said only as one item of a list
    ("It's five, ten or fifteen percent.", "10%", "What tip is usual here?", W),
    ("Ten and fifteen percent.", "10%", "What tip is usual here?", W),
    ("Ten percent, fifteen if the service was great.", "10%", "What tip is usual here?", C),
    ("Ten, ten percent.", "10%", "What tip is usual here?", C),
    # a question about the asker, answered about someone named
    ("Priya came fourth.", "4th", "Where did I come in the quiz?", W),
    ("You came fourth.", "4th", "Where did I come in the quiz?", C),
    ("Fourth, Priya was second.", "4th", "Where did I come in the quiz?", C),
])
def test_money_lists_and_the_asker(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want, JUDGE.judge(
        [JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].reason


@pytest.mark.parametrize(("reply", "want"), [
    ("No, wait, I think you do need one.", W),       # "do need": no yes or no word, held back
    ("Yes, hang on, you need a transit visa.", W),
    ("No, wait, no, you don't.", C),                 # a no said again after the hold
    ("No, sorry, you don't need one.", C),           # an apology only softens it
])
def test_a_yes_or_no_held_back_at_once(reply: str, want: Verdict) -> None:
    got = JUDGE.judge([JudgeInput(Task.answer, reply, gold="no", aliases=("no, you don't", "not needed"),
                                  context="Do I need a visa for Kenya?")])[0]
    assert got.verdict is want, got.reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # a year by its last two digits, when a year is asked
    ("She was born in oh-four.", "2004", "What year was she born?", C),
    ("Back in seventy-one.", "1971", "What year did the bridge open?", C),
    ("Seventy-two, no, seventy-one.", "1971", "What year did the bridge open?", C),
    ("Seventy-two.", "1971", "What year did the bridge open?", W),
    ("Four.", "2004", "What year was she born?", W),
    ("Seventy-one.", "1971", "How many steps are there?", W),
    # military and other-language clock hours
    ("Fourteen hundred hours.", "14:00", "When is the briefing?", C),
    ("Fourteen hundred.", "14:00", "When is the briefing?", C),
    ("It takes fourteen hours.", "14:00", "When is the briefing?", W),
])
def test_years_and_clock_hours(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want, JUDGE.judge(
        [JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].reason


@pytest.mark.parametrize(("reply", "gold", "want"), [
    ("I reckon so, they upgraded the terminal.", "yes", C),
    ("Afraid not.", "no", C),
    ("I'd imagine so.", "no", W),
    ("I don't think so.", "yes", W),
])
def test_belief_with_so_or_not(reply: str, gold: str, want: Verdict) -> None:
    got = JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context="Do they take cards at the kiosk?")])[0]
    assert got.verdict is want, got.reason


@pytest.mark.parametrize(("reply", "turn", "want"), [
    ("Rip.", "My phone fell in the canal.", B),
    ("Aw, bless.", "Jo, the puppy fell asleep on my feet.", B),
    ("Big up yourself!", "Tunde, I got the apprenticeship.", B),
    ("Pfft, printers.", "Sam, the printer's jammed again.", B),
    ("Hmm, printers.", "Sam, which printer should we buy?", N),
    ("Oof, that's rough, buddy.", "Dev, I failed my driving test.", B),
    ("Is that so?", "Dev, they've closed the old cinema.", B),
    ("Is that so?", "Dev, is the cinema still open?", N),
])
def test_window_probes_round6(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason


@pytest.mark.parametrize(("reply", "turn", "want"), [
    ("wait what", "bro they moved the exam to monday", B),
    ("Wait, what time?", "Bro, they moved the exam to Monday.", N),
    ("Oh, how lovely for you both!", "Ana, we're getting a puppy!", B),
    ("Oh, how lovely for your mum.", "Ana, we're getting a puppy!", N),
    ("Ooh, tough call.", "Ahmed, should we book the coast or the mountains?", B),
    ("Ooh, good call.", "Ahmed, should we book the coast or the mountains?", N),
    ("Fair play to you.", "I told the landlord I'm not paying for his broken boiler.", B),
    ("kinda sad tho", "they closed the skate park", B),
])
def test_window_probes_round6_more(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("Quarter of a kilo.", "250 g", "How much butter?", C),
    ("Half of a litre.", "500 ml", "How much stock?", C),
    ("Three quarters of a kilo.", "250 g", "How much butter?", W),
    ("Quarter of a mile.", "0.25 miles", "How far is the bakery?", C),
    ("It's 89p.", "£0.89", "How much is the stamp?", C),
    ("It's 98p.", "£0.89", "How much is the stamp?", W),
])
def test_fractions_of_a_unit_and_pence(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want, JUDGE.judge(
        [JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].reason


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # content in the shapes of this round stays content
    ("Nein.", "Jonas, is the bakery open?", N),
    ("Non, merci.", "Luc, more coffee?", N),
    ("Vielleicht.", "Jonas, are you coming to the match?", N),
    ("God knows, ask Tunde.", "Uche, where's the charger?", N),
    ("Thank God.", "Uche, the charger turned up in the car.", B),
    ("Call the landlord o.", "Bisi, the tap is leaking again.", N),
    ("Is it at six?", "Sipho, the braai is this evening.", N),
    ("Congrats o, which date?", "Lena, we're getting married in June!", N),
    ("Lekker, I'll bring the meat.", "Thabo, we're having a braai Saturday.", N),
])
def test_content_in_the_new_shapes_stays_content(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # a value bound to another thing by commas only, when that clause names its thing
    ("Nine pounds for the lamp, twelve for the rug.", "12 pounds", "How much is the rug?", C),
    ("Nine pounds for the rug, twelve for the lamp.", "12 pounds", "How much is the rug?", W),
    ("The rug closes at six, the lamp shop at seven.", "7:00", "When does the rug shop close?", W),
    ("Seven in the evening, the shop being an hour ahead.", "7 pm", "When does the shop close?", C),
    ("Twelve, the rug.", "12 pounds", "How much is the rug?", C),
])
def test_a_value_bound_by_commas(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want, JUDGE.judge(
        [JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].reason
