"""The offline judge's fourth round of issue-34 classes, on sentences written for these tests (none is
a labelled item): values in forms other writers and recognisers use (a score with its joiner, a
digit code said in groups or digit by digit, Indian number words, "runner-up", ordinals, a tens word
split by the recogniser, "a nour", a digit's homophone after a numbered noun or inside a spelling),
apologies as self-corrections, disclaimers as no commitment; reactions of several languages,
intensified and sensory evaluations, exclamations of kindness, surprise and condolence idioms (some
with numbers), Hindi yes/no words, and turns a recogniser wrote without punctuation. Property tests
drive the generative classes (every score, every sort code in pairs or digits, every lakh figure,
every tens word split in two) with a near value beside each right one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge

JUDGE = OfflineJudge()
B, N = Verdict.backchannel, Verdict.intrusion
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


def window(reply: str, turn: str) -> Verdict:
    return JUDGE.intrusion(reply, turn).verdict


@pytest.mark.parametrize(("reply", "gold", "want"), [
    ("Leeds beat them three goals to nil.", "3-0 to Leeds", C),
    ("It ended three to nothing, Leeds on top.", "3-0 to Leeds", C),
    ("Leeds won three–one.", "3-0 to Leeds", W),
    ("Leeds won by three.", "3-0 to Leeds", W),
    ("Twenty-one.", "2-1 to Arsenal", W),
    ("Five five five, oh one four eight.", "555-0148", C),
    ("The code is twenty, forty-five, nineteen.", "20-45-19", C),
    ("Two, zero, four, five, one, nine.", "20-45-19", C),
    ("Twenty, fifty-four, nineteen.", "20-45-19", W),
    ("Two lakh fifty thousand rupees.", "250000", C),
    ("Four lakh seventy-five.", "400075", C),
    ("Four lakh seventy.", "400075", W),
    ("She was runner-up this year.", "second", C),
    ("He ended up runner-up.", "third", W),
    ("SHE CAME FIFTH", "5th", C),
    ("he FINISHED five", "5th", C),
    ("She came 6th.", "5th", W),
    ("SIX TEA", "60", C),
    ("SIXTEEN", "60", W),
    ("A NOUR", "1 hour", C),
    ("TWO OURS", "2 hours", C),
    ("GATE TOO", "gate 2", C),
    ("GATE ATE", "gate 8", C),
    ("GATE FOR", "gate 2", W),
    ("Go through the gate to the left.", "gate 2", W),
    ("BEE FOR KAY NINE", "B4K9", C),
    ("B for Bravo, four, K, nine.", "B4K9", C),
    ("BEE FOR KAY", "B4K9", W),
    ("No — forgive me, yes, it opens at nine.", "yes", C),
    ("Yes, it does — pardon me, no, it doesn't.", "yes", W),
    ("It might well be, though I couldn't be sure.", "yes", W),
    ("It was a two all draw.", "2-2", C),
    ("One all.", "1-1", C),
    ("Three point two lakh.", "320000", C),
    ("One crore twenty lakh.", "12000000", C),
    ("Two and a half lakh.", "250000", C),
    ("She got silver.", "second", C),
    ("She won gold.", "second", W),
    ("Gold, the same as the frame.", "gold", C),
    ("TWENTY FIRST", "21st", C),
    ("EIGHT TEA FIVE", "85", C),
    ("Let's go out for tea.", "40", W),
    ("NINE TEA BAGS", "90", W),
    ("AY BEE SEE ONE TWO THREE", "ABC123", C),
    ("ROOM FOR TEEN", "room 14", C),
])
def test_value_forms(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold) is want


def test_rather_as_a_degree_word_corrects_nothing() -> None:
    question = "Which bike is lighter, the Trek or the Giant?"
    assert answer("The Trek, though the Giant looks rather smarter.", "the Trek", question) is C
    assert answer("The Trek, or rather, the Giant.", "the Trek", question) is W


def test_yes_no_gold_with_an_alias_in_words() -> None:
    v = JUDGE.judge([JudgeInput(Task.answer, "Shut all day, it's a bank holiday.", gold="no",
                                aliases=("shut",), context="Is the post office open on Monday?")])[0]
    assert v.verdict is C
    v = JUDGE.judge([JudgeInput(Task.answer, "Open till five.", gold="no", aliases=("shut",),
                                context="Is the post office open on Monday?")])[0]
    assert v.verdict is W


WORDS = [num2words(n) for n in range(100)]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 9), st.integers(0, 9), st.sampled_from(["goals to", "to", "points to", "-"]))
def test_every_score_with_its_joiner(a: int, b: int, joiner: str) -> None:
    gold = f"{a}-{b} to Rovers"
    assert answer(f"Rovers won it {WORDS[a]} {joiner} {WORDS[b]}.", gold) is C
    assert answer(f"Rovers won it {WORDS[a]} {joiner} {WORDS[(b + 1) % 10]}.", gold) is W


@settings(max_examples=25, deadline=None)
@given(st.integers(10, 99), st.integers(10, 99), st.integers(10, 99), st.booleans())
def test_every_sort_code_in_pairs_or_digits(a: int, b: int, c: int, digit_by_digit: bool) -> None:
    gold = f"{a}-{b}-{c}"
    said = ", ".join(WORDS[int(d)] for d in f"{a}{b}{c}") if digit_by_digit else \
        ", ".join(WORDS[n] for n in (a, b, c))
    assert answer(f"It's {said}.", gold) is C
    near = ", ".join(WORDS[n] for n in (a, b, 10 + (c - 9) % 90))  # the last pair off by one
    assert answer(f"It's {near}.", gold) is W


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 99), st.integers(0, 99_999))
def test_every_lakh_figure(lakhs: int, rest: int) -> None:
    gold = str(lakhs * 100_000 + rest)
    said = f"{num2words(lakhs)} lakh" + (f" {num2words(rest)}" if rest else "")
    assert answer(said.replace(",", "") + ".", gold) is C
    assert answer(f"{num2words(lakhs + 1)} lakh.".replace(",", ""), gold) is W


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]),
       st.sampled_from(["TEA", "TEE", "TY"]))
def test_every_tens_word_split_in_two(tens: str, sound: str) -> None:
    value = WORDS.index(tens)
    head = {"twenty": "TWEN", "thirty": "THIR", "forty": "FOR", "fifty": "FIF", "eighty": "EIGH"}.get(
        tens, tens.removesuffix("ty").upper())
    assert answer(f"{head} {sound}", str(value)) is C
    assert answer(f"{head} {sound}", str(value + 1)) is W


@pytest.mark.parametrize(("reply", "turn", "want"), [
    ("Arre waah!", "I finally passed my driving test.", B),
    ("Shabash!", "I finally passed my driving test.", B),
    ("Zabardast.", "I finally passed my driving test.", B),
    ("Mamma mia!", "The whole kitchen flooded overnight.", B),
    ("Oy vey.", "The whole kitchen flooded overnight.", B),
    ("Arre, the plumber's number is on the fridge.", "The whole kitchen flooded overnight.", N),
    ("Jolly nice.", "We've painted the hallway yellow.", B),
    ("Awfully sad.", "The old cinema is closing down.", B),
    ("How wearisome.", "The trains are on strike again on Monday.", B),
    ("Smells delicious!", "The bread's just come out of the oven.", B),
    ("Tastes lovely.", "Try this, it's the new jam.", B),
    ("Smells like the oven's still on.", "The bread's just come out of the oven.", N),
    ("Hmm, great question.", "Tom, where do you think we should go on holiday?", B),
    ("How sweet of you!", "Aria, you always know the right song.", B),
    ("How thoughtful of you to remember.", "Aria, I remembered your favourite playlist.", B),
    ("Who would have thought!", "My quiet neighbour used to be a rock drummer.", B),
    ("Rest in peace.", "Our old dog passed away this morning.", B),
    ("Om Shanti.", "Our old dog passed away this morning.", B),
    ("Top notch!", "We've finished the treehouse.", B),
    ("First rate.", "We've finished the treehouse.", B),
    ("First, you'll want to sand the edges.", "We've finished the treehouse.", N),
    ("Haan.", "Riya, did you feed the cat?", N),
    ("Haan.", "Riya has fed the cat already.", B),
    ("Nahi.", "Riya, did you feed the cat?", N),
    ("YES", "MUM CAN YOU PASS THE SALT", N),
    ("YEAH", "TOM DID THE POST COME", N),
    ("OKAY", "OK GOOGLE SET A TIMER FOR TEN MINUTES", N),
    ("OKAY", "KIDS THE FOOD IS READY", B),
    ("MM HMM", "SAM THE BUS IS LATE AGAIN", B),
    ("Och, that's grand.", "Mairi, the boiler's fixed.", B),
    ("Alhamdulillah.", "The surgery went well.", B),
    ("OH MY DAYS", "THE CAKE FELL ON THE FLOOR", B),
    ("YEAH NO TOTALLY", "THIS WEATHER IS MISERABLE", B),
    ("WHAT A LEGEND", "MY GRANDAD RAN A 10K", B),
    ("Arre yaar, not again.", "The power's gone out again.", B),
    ("How awful for you.", "I lost my wallet on the train.", B),
    ("Quite right too.", "They've banned phones in the cinema.", B),
    ("Mm, quite.", "These prices are outrageous.", B),
    ("Quite.", "Is the shop open on Sundays, Tom?", N),
    ("No ji, it's shut.", "Is the shop open on Sundays, Tom?", N),
    ("Aye.", "Callum, did you lock the car?", N),
    ("Aww, congratulations to her!", "My sister just had twins.", B),
    ("Thanks to you both.", "Aria, we loved the recipe you found.", B),
    ("Congratulations to her, now book the hall.", "My sister just got engaged.", N),
    ("See you.", "I'm off now, see you later.", B),
    ("Wait, take your umbrella.", "I'm off now, see you later.", N),
])
def test_window_classes(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("Pakistan scored 215; Sri Lanka are still batting.", "215", "How many runs did Sri Lanka score?", W),
    ("Sri Lanka scored 215, and Pakistan are still batting.", "215", "How many runs did Sri Lanka score?", C),
    ("Gate six is for Dublin; the Paris flight boards at gate nine.", "gate 6",
     "Which gate is the Paris flight at?", W),
    ("The Paris flight is at gate six; Dublin boards from gate nine.", "gate 6",
     "Which gate is the Paris flight at?", C),
    ("He's forty this year, then forty-one next spring.", "41", "How old will Ravi be this year?", W),
    ("Three-nil, but to Celtic.", "3-0 to Rangers", "What was the score between Rangers and Celtic?", W),
    ("Three-nil to Rangers, Celtic never got going.", "3-0 to Rangers",
     "What was the score between Rangers and Celtic?", C),
    ("Kenya ran it in 27 minutes, Ethiopia is still out on the course.", "27 minutes",
     "How long did Ethiopia take?", W),
    ("Twelve boxes at two pounds each, so 24 pounds.", "24 pounds", "How much do the boxes cost in total?", C),
    ("The Bosch heats in 3 minutes, the Tefal in 5, so the Bosch.", "the Bosch",
     "Which iron heats up faster, the Bosch or the Tefal?", C),
    ("The Bosch heats in 3 minutes, the Tefal in 5, so the Tefal.", "the Bosch",
     "Which iron heats up faster, the Bosch or the Tefal?", W),
    ("It leaves from platform 4; the Oxford train is on 6.", "platform 4",
     "Which platform does the London train leave from?", C),
    ("Platform 4. The Oxford train goes from 6.", "platform 4", "Which platform does the London train leave from?", C),
    ("Tom got 45 points; Jo got 52.", "52", "How many points did Jo get?", C),
    ("Jo got 45 points; Tom got 52.", "52", "How many points did Jo get?", W),
    ("She's 34. Her brother is 38.", "34", "How old is Maya?", C),
])
def test_value_bound_to_what_was_asked(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) is want
