"""The offline judge's second round of issue-34 classes, each on sentences written for these tests
(none is a labelled item): minor reactions typed by structure (not by word list), terms of address,
thanks by the turn; times with am/pm, joined number words, measures in two units, fractions of a
unit, "the one" as a pronoun, date-and-time golds, letter names in codes; a rank below first, a
swapped modifier, a breakdown instead of the total, a yes narrowed beyond the gold's detail; and
`unsure` where the signal is weak (a lone untypeable word, a near spelling). Property tests cover the
generative classes (every joined tens-and-units word, every measure in metres and centimetres)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge

JUDGE = OfflineJudge()
B, N, U = Verdict.backchannel, Verdict.intrusion, Verdict.unsure


def answer(reply: str, gold: str, question: str = "") -> tuple[Verdict, str]:
    v = JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0]
    assert v.reason.startswith(v.rule + ": "), v.reason
    return v.verdict, v.rule


def window(reply: str, turn: str) -> Verdict:
    return JUDGE.intrusion(reply, turn).verdict


@pytest.mark.parametrize(("reply", "turn", "want"), [
    ("Ooh, daring.", "Sam, I'm dyeing my hair blue.", B),  # a lone word after a reaction evaluates
    ("Oh, bless.", "Sam, the puppy fell asleep in my shoe.", B),
    ("Naturally.", "Sam, the cat found the warmest spot again.", B),  # an -ly adverb alone comments
    ("Ah, not before time!", "Sam, the council fixed the pothole.", B),
    ("Glad to hear it.", "Sam, the operation went fine.", B),
    ("Pleased to help.", "Aria, you were a great help with the recipe.", B),  # thanks after praise
    ("Pleased to help.", "Aria told me the train is at six.", N),  # thanks nobody gave: an offer
    ("Oh, you're too kind.", "Aria, that was really clever.", B),
    ("Aw, ta ever so much.", "Aria, you're a star.", B),
    ("pal, no way", "Sam, I won the raffle!", B),  # a term of address says nothing about the world
    ("No way, buddy!", "Sam, I won the raffle!", B),
    ("Ohh, Friday.", "Sam, the party moved.", N),  # a day is a value, whatever opens the reply
    ("Behind the sofa.", "Where's the remote gone...", N),  # a preposition opens a place
    ("The green one.", "Sam, which mug is mine?", N),  # an article opens a noun phrase
    ("Garage maybe.", "Where did I put the ladder...", N),  # a hedge proposes
    ("I disagree.", "Sam, I think the blue is nicer.", N),  # a subject makes a clause
    ("Biscuits.", "Note to self: buy biscuits.", N),  # it repeats the turn's word
    ("Fetch it for me!", "Sam, the post has come.", N),  # an instruction
    ("Playing now.", "Alexa, play the news.", N),
    ("Which one?", "Sam, I bought a new car.", N),
    ("Umbrella.", "Sam, the taxi is outside.", U),  # one bare word the rules cannot type: unsure
])
def test_window_reactions_are_typed_by_structure(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("Nineteen hundred.", "7 pm", "When does the shop shut?", Verdict.correct),
    ("Seven fifteen.", "7 pm", "When does the shop shut?", Verdict.wrong),  # am/pm golds are times
    ("One metre forty.", "1.4 m", "How wide is the desk?", Verdict.correct),
    ("One metre four.", "1.4 m", "How wide is the desk?", Verdict.wrong),
    ("Five foot six.", "66 inches", "How tall is Jo?", Verdict.correct),
    ("A third of an hour.", "20 minutes", "How long is the bus ride?", Verdict.correct),
    ("Three quarters of a mile.", "0.75 miles", "How far is the shop?", Verdict.correct),
    ("fortyseven pounds", "£47", "What did it cost?", Verdict.correct),
    ("The one on Hill Road.", "the one on Hill Road", "Which bakery is nearest?", Verdict.correct),
    ("Monday the third of June, ten past nine.", "Monday 3 June at 9:10", "When is the interview?",
     Verdict.correct),
    ("Monday the third of June.", "Monday 3 June at 9:10", "When is the interview?", Verdict.wrong),
    ("Nine, jay, kay, four, bee.", "9JK4B", "What's the code?", Verdict.correct),
    ("Nine jay kay four dee.", "9JK4B", "What's the code?", Verdict.wrong),
    ("It's R for Romeo, Q, six, dash, red.", "RQ6-RED", "What's the locker code?", Verdict.correct),
    ("R Q six dash green.", "RQ6-RED", "What's the locker code?", Verdict.wrong),
])
def test_value_forms(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question)[0] is want, answer(reply, gold, question)


@pytest.mark.parametrize(("reply", "gold", "question", "want", "rule"), [
    ("Omar came third, behind Lise.", "Omar", "Who won the quiz?", Verdict.wrong, "answer.claim-other"),
    ("Omar, he won it easily.", "Omar", "Who won the quiz?", Verdict.correct, "answer.entity"),
    ("On the yellow shelf.", "on the grey shelf", "Where's the torch?", Verdict.wrong, "answer.substituted"),
    ("On the gray shelf.", "on the grey shelf", "Where's the torch?", Verdict.correct, None),
    ("The one on Mason Lane.", "the one on Masson Lane", "Which gym?", Verdict.correct, None),
    ("The one on Maddock Lane.", "the one on Maddox Lane", "Which gym?", Verdict.unsure, "answer.near-word"),
    ("The one on Madison Lane.", "the one on Maddox Lane", "Which gym?", Verdict.wrong, "answer.substituted"),
    ("Two hundred on Monday and ninety on Tuesday.", "200", "How many parcels came in all?", Verdict.wrong,
     "answer.breakdown"),
    ("Two hundred on Monday and ninety on Tuesday.", "200", "How many parcels came on Monday?", Verdict.correct,
     None),
    ("Yes, but only on weekdays.", "yes, every evening including weekends", "Does the gym open late?",
     Verdict.wrong, "answer.detail-contradicted"),
    ("Yes, only in the evening.", "yes, every evening including weekends", "Does the gym open late?",
     Verdict.correct, None),
])
def test_claims_and_near_names(reply: str, gold: str, question: str, want: Verdict, rule: str | None) -> None:
    got = answer(reply, gold, question)
    assert got[0] is want, got
    if rule is not None:
        assert got[1] == rule, got


def test_a_name_spelled_close_to_the_gold_is_unsure() -> None:
    assert answer("aubree anne", "Aubrianne", "Who is the new tenant?") == (Verdict.unsure, "answer.spelled-near")
    assert answer("Marcus.", "Aubrianne", "Who is the new tenant?")[0] is Verdict.wrong


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=21, max_value=99).filter(lambda n: n % 10))
def test_joined_tens_and_units_read_as_the_number(n: int) -> None:
    joined = num2words(n).replace("-", "")
    assert answer(f"{joined} miles", f"{n} miles")[0] is Verdict.correct
    assert answer(f"{joined} miles", f"{n + 1} miles")[0] is Verdict.wrong


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=3), st.integers(min_value=11, max_value=99))
def test_a_measure_in_metres_and_centimetres(metres: int, cm: int) -> None:
    said = f"{num2words(metres)} metre{'s' if metres > 1 else ''} {num2words(cm)}"
    assert answer(said, f"{metres + cm / 100:g} m")[0] is Verdict.correct
    assert answer(said, f"{metres + (cm + 1) / 100:g} m")[0] is Verdict.wrong


@pytest.mark.parametrize(("reply", "turn", "want"), [
    ("Oh, already?", "Sam, the kettle's boiled.", B),  # an adverb questioned alone reacts
    ("Honestly?", "Sam, they cancelled the match.", B),
    ("Tuesday?", "Sam, the match moved.", N),  # a value questioned asks for it
    ("Rotten luck.", "Sam, my bike got nicked.", B),  # two feeling words
])
def test_window_surprise_and_feeling_pairs(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("The Greek cafe, not the French one.", "the French cafe", "Where did we meet?", Verdict.wrong),
    ("The French cafe, not the Greek one.", "the French cafe", "Where did we meet?", Verdict.correct),
    ("Half a dozen.", "6", "How many scones?", Verdict.correct),
    ("A dozen.", "6", "How many scones?", Verdict.wrong),
    ("Twenty grand.", "$20,000", "What did the boat cost?", Verdict.correct),
    ("The Grand Hotel.", "the Grand Hotel", "Where are we staying?", Verdict.correct),
    ("A fortnight.", "14 days", "How long is the course?", Verdict.correct),
    ("A brace of them.", "2", "How many pheasants?", Verdict.unsure),  # a value form it does not read
])
def test_negation_inside_a_mention_and_set_phrases(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question)[0] is want, answer(reply, gold, question)


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("The grey one, it sleeps four.", "the grey van", "Which van is roomier?", Verdict.correct),  # "one" = van
    ("The white one's roomier, the grey one's cheaper.", "the grey van", "Which van is roomier?", Verdict.wrong),
    ("A tenner.", "£10", "What did the taxi cost?", Verdict.correct),
])
def test_one_stands_for_the_asked_noun(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question)[0] is want, answer(reply, gold, question)


# --- the third round (issue 34, after the second independent sample): new sentences of its classes ---

DIGIT_SAID = "zero one two three four five six seven eight nine".split()


def _said_digit_by_digit(digits: str, zero: str) -> str:
    """A digit string as a person reads it out: 'oh' (or 'zero') for 0, 'double'/'triple' for runs."""
    words, i = [], 0
    while i < len(digits):
        run = len(digits[i:]) - len(digits[i:].lstrip(digits[i]))
        word = zero if digits[i] == "0" else DIGIT_SAID[int(digits[i])]
        if run >= 3:
            words.append(f"triple {word}")
            i += 3
        elif run == 2:
            words.append(f"double {word}")
            i += 2
        else:
            words.append(word)
            i += 1
    return " ".join(words)


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="0123456789", min_size=7, max_size=10), st.sampled_from(["oh", "zero"]))
def test_a_number_said_digit_by_digit_in_groups(digits: str, zero: str) -> None:
    gold = f"{digits[:3]} {digits[3:]}"
    said = f"{_said_digit_by_digit(digits[:3], zero)}, {_said_digit_by_digit(digits[3:], zero)}."
    assert answer(said, gold, "What's the number?")[0] is Verdict.correct, said
    other = digits[:-1] + str((int(digits[-1]) + 1) % 10)
    assert answer(said, f"{other[:3]} {other[3:]}", "What's the number?")[0] is Verdict.wrong, said


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=2, max_value=60), st.integers(min_value=1, max_value=9))
def test_a_sum_said_with_plus(a: int, b: int) -> None:
    said = f"{num2words(a)} plus {num2words(b)}."
    assert answer(said, str(a + b), "How many are coming?")[0] is Verdict.correct
    assert answer(said, str(a + b + 1), "How many are coming?")[0] is Verdict.wrong


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=3, max_value=400), st.sampled_from([95, 98, 99]), st.integers(min_value=1, max_value=94))
def test_a_charm_price_said_whole_but_no_other_rounding(dollars: int, charm: int, cents: int) -> None:
    whole = f"{num2words(dollars + 1)} bucks."
    assert answer(whole, f"${dollars}.{charm}", "What does it cost?")[0] is Verdict.correct
    assert answer(whole, f"${dollars}.{cents:02d}", "What does it cost?")[0] is Verdict.wrong


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("Four hours, fifty minutes, if the roads are clear.", "4 hours 50 minutes", "How long is the drive?",
     Verdict.correct),  # a duration split by a comma
    ("Four hours, fifteen minutes.", "4 hours 50 minutes", "How long is the drive?", Verdict.wrong),
    ("Just over an hour, seventy minutes.", "70 minutes", "How long is the drive?", Verdict.correct),
    ("Hundred and forty grams.", "140 g", "How much flour?", Verdict.correct),  # "a" left out
    ("ten m l", "10 millilitres", "How much syrup?", Verdict.correct),  # a unit as its letters
    ("A teaspoon and a half.", "1.5 teaspoons", "How much salt?", Verdict.correct),
    ("Three cups and a half.", "3.5 cups", "How much stock?", Verdict.correct),
    ("Three tablespoons and a half.", "3.5 cups", "How much stock?", Verdict.wrong),  # another unit
    ("Two tablets twice a day.", "4 tablets a day", "How many tablets a day?", Verdict.correct),  # a rate
    ("Two tablets a day.", "4 tablets a day", "How many tablets a day?", Verdict.wrong),
    ("A couple of weeks.", "2 weeks", "How long is the loan?", Verdict.correct),
    ("the ninth of march a thursday", "Thursday 9 March", "When's the hearing?", Verdict.correct),
    ("It's the Thursday, the ninth, of March.", "Thursday 9 March", "When's the hearing?", Verdict.correct),
    ("the ninth of march no wait the tenth", "Thursday 9 March", "When's the hearing?", Verdict.wrong),
    ("Friday.", "Monday", "What day is bin collection?", Verdict.wrong),  # a closed class: another value
    ("A dozen and a half.", "18", "How many bread rolls?", Verdict.correct),
    ("Two dozen minus one.", "23", "How many bread rolls?", Verdict.correct),
    ("Two dozen minus one.", "25", "How many bread rolls?", Verdict.wrong),
    ("Half past six. In the evening, actually.", "6:30 am", "When's the alarm set for?", Verdict.wrong),
    ("Half past six in the morning.", "6:30 am", "When's the alarm set for?", Verdict.correct),
])
def test_third_round_value_forms(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question)[0] is want, answer(reply, gold, question)


@pytest.mark.parametrize(("reply", "gold", "question", "want", "rule"), [
    # values bound to candidates decide a comparison
    ("The Kia does fifty-two, the Skoda forty-eight.", "the Kia", "Which car does more miles to the gallon?",
     Verdict.correct, None),
    ("The Kia tops out at ninety, the Skoda at eighty.", "the Skoda", "Which car has the higher top speed?",
     Verdict.wrong, "answer.claim-other"),
    ("The Skoda tops out at ninety, the Kia at eighty.", "the Skoda", "Which car has the higher top speed?",
     Verdict.correct, None),
    ("northside charges twelve riverside nine", "Riverside", "which pool has the cheaper entry",
     Verdict.correct, None),
    ("northside charges nine riverside twelve", "Riverside", "which pool has the cheaper entry",
     Verdict.wrong, "answer.claim-other"),
    ("The coach takes three hours, the train two.", "the coach", "Which is faster to Leeds?", Verdict.wrong,
     "answer.claim-other"),  # faster: less time (a bare number after a duration is in its unit)
    # a gold said only as the landmark another is placed against
    ("Harriet, straight after Bo.", "Bo", "Who got off the bus second?", Verdict.wrong, "answer.claim-other"),
    ("Bo, straight after Harriet.", "Bo", "Who got off the bus second?", Verdict.correct, None),
    # alternatives, caveats, names and parts
    ("Mr Patel or Mr Price, one of the two.", "Mr Patel", "Who marks the exams?", Verdict.wrong, "answer.hedged"),
    ("Mr Patel, I think, or maybe Mr Price.", "Mr Patel", "Who marks the exams?", Verdict.wrong, "answer.hedged"),
    ("Mr Patel, with Mr Price helping.", "Mr Patel", "Who marks the exams?", Verdict.correct, None),
    ("its patel or price one of the two", "Mr Patel", "who marks the exams", Verdict.wrong, "answer.hedged"),
    ("nine or ten something like that", "9", "how many came", Verdict.wrong, "answer.hedged"),
    ("harriet straight after bo", "Bo", "who got off the bus second", Verdict.wrong, "answer.claim-other"),
    ("The oak one's taller, mind you the pine one's wider.", "the oak tree", "Which tree is taller?",
     Verdict.correct, None),
    ("gemma whitlow", "Gemma Whitlock", "Who's the new coach?", Verdict.unsure, "answer.name-other"),
    ("gemma harrington", "Gemma Whitlock", "Who's the new coach?", Verdict.wrong, "answer.name-other"),
    ("The library.", "the side door of the library", "Where's the book drop?", Verdict.wrong,
     "answer.whole-for-part"),
    ("The library's side door.", "the side door of the library", "Where's the book drop?", Verdict.correct, None),
])
def test_third_round_claims(reply: str, gold: str, question: str, want: Verdict, rule: str | None) -> None:
    got = answer(reply, gold, question)
    assert got[0] is want, got
    if rule is not None:
        assert got[1] == rule, got


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    ("Nah yeah, they take cards now.", "yes", "Do they take cards?", Verdict.correct),
    ("Yeah nah, cash only.", "yes", "Do they take cards?", Verdict.wrong),
    ("Yeah, all week, just not on Fridays.", "no", "Is the market on Fridays?", Verdict.correct),
    ("Yeah, all week, just not on Mondays.", "no", "Is the market on Fridays?", Verdict.wrong),
])
def test_third_round_yes_no(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question)[0] is want, answer(reply, gold, question)


@pytest.mark.parametrize(("reply", "turn", "want"), [
    # formulas of function words: nothing bound to the turn
    ("You're telling me.", "Sam, this wind is brutal.", B),
    ("I know, right?", "Sam, these prices are mad.", N),  # a question mark: it asks back
    ("I know right.", "Sam, these prices are mad.", B),
    ("Been there.", "Sam, I locked myself out again.", B),
    ("Tell me about it.", "Sam, can you tell me about the trip?", N),  # a request: it accepts
    ("I do.", "Sam, the shop shuts at five.", N),  # ends on an auxiliary: it asserts
    ("There you go.", "Sam, pass the butter please.", N),  # hands over
    # idioms whose words are not the turn's
    ("Chin up, mate.", "Sam, I failed the driving test.", B),
    ("Chin up.", "Sam, my chin's still bruised from the fall.", N),  # literal: the turn has its word
    ("Blow me down!", "Sam, Dad's taken up salsa.", B),
    ("Amen to that.", "Sam, we need a longer weekend.", B),
    # epithets after an affect interjection
    ("Ugh, invoices.", "Sam, I've got forty invoices to send.", B),
    ("Ugh, these wasps.", "Sam, the wasps are back at the bin.", B),
    ("Ugh, Thursday.", "Sam, the invoices are due.", N),  # a day is a value
    ("Ugh, which ones?", "Sam, the invoices are due.", N),
    # device commands and dismay
    ("Mm-hmm.", "Alexa, set an alarm for six.", B),
    ("Mm-hmm.", "Sam, can you google the times?", N),  # a device named later is no addressee
    ("Sure.", "Alexa, set an alarm for six.", N),  # confirms it as the device would
    ("Great choice.", "Hey Siri, play Fleetwood Mac.", B),
    ("Great choice.", "Sam, I'm going with the red one.", N),  # takes a side with a person
    ("Ay no.", "Sam, the dog's eaten the cake.", B),
    ("Ay no.", "Sam, is the cake still there?", N),  # answers a yes/no question
    ("I hear you.", "Sam, this commute is killing me.", B),
    ("Been there, mate.", "Sam, I locked my keys in the car again.", B),
    ("Been there, it's great.", "Sam, I'm going to the new cafe.", N),  # 'there' is the turn's place
    ("Chin up, I'll drive you.", "Sam, I missed the bus.", N),  # an offer after the idiom
    ("Ha, I did see it.", "Sam, you saw the fox too.", N),  # a tensed clause asserts
    ("Happens to us all.", "Why does the bus never come on time.", N),  # after "why" it gives the reason
    ("Happens to everyone.", "Sam, I've spilt coffee on my shirt.", B),
    ("Me too.", "I'm starving.", B),
    ("Me too.", "Who wants a cuppa?", N),  # after a wh-question no formula, and no reaction's shape: it answers (sixth round: content, no longer unsure)
    ("I know it is.", "Sam, the shop shuts at five.", N),  # ends on an auxiliary
    ("You said it would rain.", "Sam, it's pouring.", N),  # content words
    ("Story of my life.", "Sam, the printer jammed again.", B),
    ("Ugh, the printer.", "Sam, the printer jammed again.", B),  # the turn's own noun exclaimed
    ("Ugh, the boss.", "Sam, the printer jammed again.", N),  # a new noun: content
    ("Oh no no no.", "Sam, the dog got out.", B),
    ("blow me down congrats", "sam i got the job", B),  # an idiom run on into another reaction (no marks)
    ("blow me down the windows open", "sam its freezing in here", N),  # run on into content
    ("Oh no no no.", "Sam, did you lock the gate?", N),
    # an opening particle is no phrase of its own when counting repetition
    ("Oh, marvellous, just marvellous.", "Sam, the boiler's broken again.", B),
    ("Okay, okay, okay, okay.", "Sam, the boiler's broken again.", N),  # the same token four times
])
def test_third_round_windows(reply: str, turn: str, want: Verdict) -> None:
    assert window(reply, turn) is want, JUDGE.intrusion(reply, turn).reason
