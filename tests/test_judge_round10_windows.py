"""The window rules' tenth round: a reply judged by what the turn and the reply do, as classes.

Sentences and generated inputs written for these tests (none is a labelled item): the act of the
turn read structurally (a wh-question after a stop, a wh-question with its own guess, disbelief
said with "you" however written, an imperative put to everyone at the end); a word the judge does
not know, in the slot of an answer (with a particle, doubled, or of a particle's size) after a
yes/no question or a request, and the same word after a statement or a wh-question; an echoed
interjection and a bare word in a turn that mixes languages; short clauses about what was just
said against clauses about their own subject. Each class has controls of the opposite label."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from floorbench.scoring.judges import Verdict
from floorbench.scoring.judges.interjections import interjection_like, known_words
from floorbench.scoring.judges.offline import OfflineJudge, _cover, _intrusion_tokens
from floorbench.scoring.judges.reply_acts import reacts
from floorbench.scoring.judges.turn_acts import TurnAct, turn_act

JUDGE = OfflineJudge()
BC, IN, UNSURE = Verdict.backchannel, Verdict.intrusion, Verdict.unsure

NAMES = st.sampled_from(["Ottilie", "Bongani", "Yerlan", "Saoirse", "Teodor", "Ngozi", "Rasmus", "Ifeoma"])
OBJECTS = st.sampled_from(["ladder", "blender", "parcel", "kettle", "invoice", "umbrella", "spare key", "stroller"])
VERBS = st.sampled_from(["fetch", "bring", "check", "carry", "move", "hide", "wrap", "return"])
PAST = st.sampled_from(["fixed", "moved", "found", "sold", "cleaned", "returned", "wrapped", "posted"])
AUX = st.sampled_from([("did", "you"), ("have", "you"), ("is", "the"), ("can", "we"), ("were", "they")])
REQUEST_OPENERS = st.sampled_from(["can you", "could you", "would you", "will you", "shall we"])
WH = st.sampled_from(["where", "when", "how much", "which", "who"])


@st.composite
def yes_no(draw: st.DrawFn) -> str:
    aux, subject = draw(AUX)
    return f"{draw(NAMES)}, {aux} {subject} {draw(VERBS)} the {draw(OBJECTS)}?"


@st.composite
def request(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return f"{draw(NAMES)}, {draw(REQUEST_OPENERS)} {draw(VERBS)} the {draw(OBJECTS)}?"
    return f"{draw(NAMES)}, {draw(VERBS)} the {draw(OBJECTS)} for me."


@st.composite
def statement(draw: st.DrawFn) -> str:
    return f"{draw(NAMES)}, the plumber {draw(PAST)} the {draw(OBJECTS)} this morning."


@st.composite
def wh_after_stop(draw: st.DrawFn) -> str:
    stop = draw(st.sampled_from(["wait", "hang on", "hmm", "oh"]))
    return f"Two of these, one of those... {stop}, {draw(WH)} is the {draw(OBJECTS)} now?"


def _unknown_word(length: int) -> st.SearchStrategy[str]:
    """A made-up word of consonant-vowel syllables the judge cannot know: not English to the sentence
    model, not a lexicon phrase, no reaction's shape."""
    syllable = st.tuples(st.sampled_from("bdfgklmnpstvz"), st.sampled_from("aeiou")).map("".join)
    word = st.lists(syllable, min_size=length, max_size=length).map("".join)
    return word.filter(lambda w: w not in known_words() and interjection_like(w) and not reacts(w)
                       and _cover(_intrusion_tokens(w))[1] == [w])


WORDS = _unknown_word(2)
PARTICLES = st.sampled_from(["po", "ba", "ko"])
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


# -- the turn's act, read from its structure -------------------------------------------------------


@SETTINGS
@given(turn=wh_after_stop())
def test_a_wh_word_after_a_stop_asks_a_wh_question(turn: str) -> None:
    assert turn_act(turn) is TurnAct.wh_question


@SETTINGS
@given(name=NAMES, thing=OBJECTS, hour=st.integers(1, 11))
def test_a_wh_question_with_its_own_guess_is_put_to_be_confirmed(name: str, thing: str, hour: int) -> None:
    assert turn_act(f"{name}, what time is the {thing} delivery, {hour}-ish?") is TurnAct.yes_no_question
    assert turn_act(f"{name}, what time is the {thing} delivery, {hour} or {hour + 1}?") is TurnAct.wh_question


@SETTINGS
@given(news=statement(), you=st.sampled_from(["you", "yuh", "ya"]), verb=st.sampled_from(["believe", "imagine"]))
def test_disbelief_in_any_spelling_of_you_asks_nothing(news: str, you: str, verb: str) -> None:
    assert turn_act(f"{news.rstrip('.')}, {you} {verb} it?") is TurnAct.statement
    assert turn_act(f"{news.rstrip('.')}, {you} {verb} the price of it?") is TurnAct.yes_no_question


@pytest.mark.parametrize("turn", [
    "The baby is finally asleep, so keep your voices down, everyone.",
    "Dinner is nearly ready, so wash your hands, kids.",
])
def test_an_imperative_put_to_everyone_at_the_end_is_a_request(turn: str) -> None:
    assert turn_act(turn) is TurnAct.request


# -- a word the judge does not know, in the slot of an answer ------------------------------------------


@SETTINGS
@given(turn=st.one_of(yes_no(), request()), word=WORDS, particle=PARTICLES, doubled=st.booleans())
def test_an_unknown_word_with_a_particle_or_doubled_answers_what_was_put(
        turn: str, word: str, particle: str, doubled: bool) -> None:
    reply = f"{word.capitalize()}, {word}." if doubled else f"{word.capitalize()} {particle}."
    assert JUDGE.intrusion(reply, turn).verdict is IN, (reply, turn)


@SETTINGS
@given(turn=st.one_of(statement(), wh_after_stop()), word=WORDS, particle=PARTICLES, doubled=st.booleans())
def test_the_same_word_after_a_statement_or_a_wh_question_answers_nothing(
        turn: str, word: str, particle: str, doubled: bool) -> None:
    reply = f"{word.capitalize()}, {word}." if doubled else f"{word.capitalize()} {particle}."
    assert JUDGE.intrusion(reply, turn).verdict is BC, (reply, turn)


@SETTINGS
@given(turn=st.one_of(yes_no(), request()), word=_unknown_word(1).filter(lambda w: len(w) == 2))
def test_a_particle_sized_word_alone_answers_a_yes_no_question_or_a_request(turn: str, word: str) -> None:
    assert JUDGE.intrusion(f"{word.capitalize()}.", turn).verdict is IN
    assert JUDGE.intrusion(f"{word.capitalize()}.", "The plumber fixed the boiler this morning.").verdict is BC


@pytest.mark.parametrize("reply", ["Hahaha.", "Ooh.", "Hmm.", "Pfft.", "Ughhh.", "Oy vey.", "Teehee!"])
@pytest.mark.parametrize("turn", ["Mireille, did you water the ferns?", "Mireille, could you water the ferns?"])
def test_a_reaction_shape_after_a_question_or_request_stays_a_reaction(reply: str, turn: str) -> None:
    assert JUDGE.intrusion(reply, turn).verdict is BC


def test_the_turns_own_opening_word_said_back_is_no_answer() -> None:
    assert JUDGE.intrusion("Ey.", "Ey Kasia, did you feed the cat?").verdict is BC


def test_words_the_question_offers_said_back_pick_one() -> None:
    assert JUDGE.intrusion("Chai masala.", "Tomasz, you want chai masala or lassi?").verdict is IN


@pytest.mark.parametrize("reply", ["Bellissimo~", "Sugoooi~", "Lekker~!"])
def test_one_word_drawn_out_with_a_tilde_exclaims(reply: str) -> None:
    assert JUDGE.intrusion(reply, "Kwame, shall we order the fish stew?").verdict is BC


# -- a bare word after a statement ---------------------------------------------------------------------


MIXED = "Yaar, the landlord phir se raised the rent, bilkul pagal hai woh."
ENGLISH = "The landlord raised the rent again this month."


def test_a_bare_word_in_a_turn_that_mixes_languages_reacts() -> None:
    assert JUDGE.intrusion("Karma.", MIXED).verdict is BC  # an English word, said as the other language's


def test_a_bare_word_after_an_english_turn_stays_unsure() -> None:
    assert JUDGE.intrusion("Karma.", ENGLISH).verdict is UNSURE


def test_an_interjection_the_turn_breaks_on_said_back_reacts() -> None:
    assert JUDGE.intrusion("Gah.", "The printer jammed again, gah.").verdict is BC
    assert JUDGE.intrusion("Toner.", "The printer needs toner.").verdict is IN  # a word of its content


# -- short clauses about what was just said, or about their own subject ------------------------------------


CROSSWORD = "Nine across, 'capital of Mongolia', eleven letters."


@pytest.mark.parametrize(("reply", "turn", "want"), [
    ("Ooh, that's a nasty one.", CROSSWORD, BC),
    ("That's a hard one.", CROSSWORD, BC),
    ("Long week.", "Three deadlines, two site visits and the audit on Friday.", BC),
    ("Dis lovely.", "Mi daughter cook curry goat fi mi birthday.", BC),
    ("Yuh sweet too, man.", "Mi neighbour seh mi garden prettiest on di road.", BC),
    ("You dance so beautifully!", "I have been taking salsa lessons for a year now.", BC),
    ("You cook really well.", "I made the whole dinner myself tonight.", BC),
    ("Poor lad.", "The goalkeeper broke his finger in the warm-up.", BC),
    ("Aw, poor Biscuit.", "The vet says Biscuit has to wear the cone for a week.", BC),
    ("Superb effort.", "The team cleared the whole backlog before lunch.", BC),
    # controls: a choice picked, a claim granted, a subject of its own, the speaker's own fact, a
    # proposal or a value judged, the same words after a question
    ("Good plan.", "I think we should leave before the traffic.", IN),
    ("Friday night.", "We should have the neighbours round for dinner.", IN),
    ("Early morning.", "The removal van is booked for the move.", IN),
    ("Superb effort.", "Which team cleared the backlog?", IN),
    ("The other one.", CROSSWORD, IN),
    ("You're right.", "The museum is closed on Mondays.", IN),
    ("Cats are clever.", "My neighbour says her cat opens doors.", IN),
    ("Mi know di answer.", CROSSWORD, IN),
    ("Ulaanbaatar hai na yaar.", CROSSWORD, IN),
    ("That's a tricky one.", "Which clue should we do next?", IN),
])
def test_a_clause_is_typed_by_what_it_is_about(reply: str, turn: str, want: Verdict) -> None:
    assert JUDGE.intrusion(reply, turn).verdict is want


def test_a_plea_to_a_deity_after_a_question_exclaims() -> None:
    asked = "Hortense, did you see what the electricity bill came to?"
    assert JUDGE.intrusion("Lawd have mercy!", asked).verdict is BC
    assert JUDGE.intrusion("Lord help us.", asked).verdict is BC
    assert JUDGE.intrusion("God knows, Hortense.", "Hortense, where did the scissors go?").verdict is not BC
