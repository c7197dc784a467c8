"""The offline judge's tenth round: which item of a reply's list the gold is bound to
(`judges/item_values.py`), on sentences written for these tests (none is a labelled item) and on
generated item–value lists whose right binding follows from how they were composed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.item_values import pair_clauses, question_list
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.quantities import lex

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "", aliases: tuple[str, ...] = ()) -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, aliases=aliases, context=question)])[0].verdict


@pytest.mark.parametrize(("question", "reply", "gold", "want"), [
    # a value bound to another item of the list, with or without punctuation
    ("How much is the large pizza?", "the small is 8.50 the large is 12.50", "$8.50", W),
    ("How much is the large pizza?", "the small is 8.50 the large is 12.50", "$12.50", C),
    ("What's the fare to Leeds?", "Leeds is forty-two pounds, and York is thirty-five.", "£35", W),
    ("What's the fare to Leeds?", "Leeds is forty-two pounds, and York is thirty-five.", "£42", C),
    ("How many points did the Tigers get against the Sharks?", "The Sharks got twenty-one, we only got nine.", "21", W),
    # the asked item's own value, with other items beside it, stays right
    ("How much did the ferry cost?", "The ferry was 85, and the taxi was 30.", "85", C),
    ("How much did the ferry cost?", "The taxi was 30 and the ferry was 85.", "85", C),
    ("How much did the ferry cost?", "The taxi was 30 and the ferry was 85.", "30", W),
    ("Which room is Professor Lund in?", "Room 9, Professor Aalto is in 11.", "9", C),
    ("How many did we score against Rovers?", "Four, Rovers only managed two.", "4", C),
    # a conclusion or the working behind it is no other item
    ("What do the soup and the bread come to?", "Six for the soup and three for the bread, so nine.", "9", C),
    ("How much syrup per dose?", "Ten ml only, twice a day with food.", "10 ml", C),
    # a role bound to another candidate
    ("Which van is taking the fridge?", "Bluebird has the wardrobe the fridge is with Crestline", "Bluebird", W),
    ("Which van is taking the fridge?", "Bluebird has the fridge, the wardrobe is with Crestline", "Bluebird", C),
    ("Who is the best man at the wedding?", "Omar is the usher; the best man is Declan.", "Omar", W),
    ("Who is the best man at the wedding?", "Declan is the best man; Omar is the usher.", "Declan", C),
    ("Who's the head coach this season?", "Head coach is Mr Alvarez, Mr Brandt is the assistant.", "Mr Brandt", W),
    ("Who's the head coach this season?", "Head coach is Mr Alvarez, Mr Brandt is the assistant.", "Mr Alvarez", C),
    ("Who won the final frame, us or the Pattersons?", "The Pattersons took the first frame but you took the final.",
     "the Pattersons", W),
    # a claim placed in another period, and a clause after "X, and" with its own subject, are no rivals
    ("Who is the treasurer this year?", "Marguerite, Desmond was treasurer last year.", "Marguerite", C),
    ("Who is the treasurer this year?", "Desmond was treasurer last year, Marguerite this year.", "Desmond", W),
    ("Which florist is doing the bouquets?", "Petalworks, and Bloomfield has the table flowers.", "Petalworks", C),
    ("Which florist is doing the bouquets?", "Petalworks and Bloomfield.", "Petalworks", W),
    # every option paired with a value and none picked
    ("Which bakery is cheapest for a sourdough: Hollis, Marrow or Pike?", "Hollis 4.20, Marrow 3.80, Pike 4.00.",
     "Marrow", W),
    ("Which bakery is cheapest for a sourdough: Hollis, Marrow or Pike?", "Marrow, at 3.80; Hollis 4.20, Pike 4.00.",
     "Marrow", C),
    ("Which bakery is cheapest for a sourdough: Hollis, Marrow or Pike?", "Hollis 4.20, Pike 4.00, so Marrow at 3.80.",
     "Marrow", C),
    ("Which bakery is cheapest for a sourdough: Hollis, Marrow or Pike?", "Marrow is the cheapest at 3.80.", "Marrow", C),
])
def test_binding(question: str, reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold, question) == want


def test_unmarked_clause_boundaries() -> None:
    tokens = lex("standard is 9.99 express is 14.99")
    assert [tokens[a:b] for a, b in pair_clauses(tokens)] == [["standard", "is", "9.99"], ["express", "is", "14.99"]]
    tokens = lex("Ana has the keys the car is with Ben")
    assert [tokens[a:b] for a, b in pair_clauses(tokens)] == [["ana", "has", "the", "keys"],
                                                             ["the", "car", "is", "with", "ben"]]
    assert question_list(lex("Which is nearest: the pier, the fort or the lighthouse?")) == [
        ["pier"], ["fort"], ["lighthouse"]]


NAMES = ("Halvorsen", "Okafor", "Quigley", "Marchetti", "Drummond")
ITEMS = ("kayak", "tandem", "canoe", "dinghy")


@settings(max_examples=40, deadline=None)
@given(st.permutations(NAMES), st.permutations(ITEMS), st.integers(0, 2), st.booleans())
def test_generated_roles(names: list[str], items: list[str], asked: int, commas: bool) -> None:
    """Three people each with an item ("Halvorsen has the kayak, the canoe is with Okafor …"): asked who has one
    item, the person bound to it is right and the others are wrong."""
    owners = names[:3]
    parts = [f"{owners[0]} has the {items[0]}", f"the {items[1]} is with {owners[1]}", f"{owners[2]} has the {items[2]}"]
    reply = (", " if commas else " ").join(parts)
    question = f"Who is taking the {items[asked]}?"
    assert answer(reply, owners[asked], question) == C, reply
    for k in range(3):
        if k != asked:
            assert answer(reply, owners[k], question) == W, (reply, owners[k])


PRICES = (12, 15, 19, 23, 27)


@settings(max_examples=40, deadline=None)
@given(st.permutations(NAMES), st.permutations(PRICES), st.sampled_from(("cheapest", "dearest")),
       st.booleans())
def test_generated_unpicked_lists(names: list[str], prices: list[int], which: str, picked: bool) -> None:
    """Three options each with a price and no pick is partial, unless the answer is picked or leads the list."""
    options, values = names[:3], prices[:3]
    best = options[values.index(min(values) if which == "cheapest" else max(values))]
    question = f"Which stall is {which}: {options[0]}, {options[1]} or {options[2]}?"
    listing = ", ".join(f"{o} {v} pounds" for o, v in zip(options, values, strict=True))
    reply = f"{listing}, so {best}." if picked else f"{listing}."
    want = C if picked or options[0] == best else W
    assert answer(reply, best, question) == want, reply


@settings(max_examples=40, deadline=None)
@given(st.permutations(ITEMS), st.permutations(PRICES), st.integers(0, 1), st.sampled_from((" ", ", ", "; ")))
def test_generated_item_values(items: list[str], prices: list[int], asked: int, joiner: str) -> None:
    """Two items each with a price ("the kayak is 12 pounds the canoe is 15 pounds"): asked one item's price, its
    own is right and the other's is wrong."""
    reply = joiner.join(f"the {i} is {p} pounds" for i, p in zip(items[:2], prices[:2], strict=True))
    question = f"How much is the {items[asked]} for the day?"
    assert answer(reply, f"£{prices[asked]}", question) == C, reply
    assert answer(reply, f"£{prices[1 - asked]}", question) == W, reply


@pytest.mark.parametrize(("question", "reply", "gold", "want"), [
    # asked *who*: the people a reply names are candidates, not asides about others
    ("Who is the godmother of little Ines?", "Auntie Rosa, no, sorry, it's Auntie Carmen.", "Auntie Carmen", C),
    ("Who is the godmother of little Ines?", "Auntie Carmen, no, sorry, it's Auntie Rosa.", "Auntie Carmen", W),
    ("Who is the godmother of little Ines?", "Your Mum's older sister, Carmen.", "Carmen", C),
    ("Who painted the mural by the station?", "Not Okoro, it was Adaeze Nwosu.", "Adaeze Nwosu", C),
    # a name with its title or particle is still one side of an "or"
    ("Who won the spelling bee: Haru, Sora or Ren?", "Haru-kun or Sora-chan, both spelled well.", "Haru", W),
    # a question about someone keeps asides about others
    ("What did Priya order?", "Tom had the curry, but Priya went for the dosa.", "the curry", W),
])
def test_people_as_candidates(question: str, reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold, question) == want


@pytest.mark.parametrize(("question", "reply", "gold", "want"), [
    # a total after the items summed is the whole the question asks about
    ("How much is the boat tour?", "Twenty for the boat and eight for the lunch, twenty-eight all told.", "£28", C),
    ("How much is the boat tour?", "Twenty for the boat and eight for the lunch, so twenty-eight in total.", "£28", C),
    ("How much is the boat tour?", "Twenty for the boat and eight for the lunch.", "£8", W),
    # a code given to another item
    ("What's the part number of the black charger?", "PX-7710-W is the white charger the black one is PX-7720-B",
     "PX-7710-W", W),
    ("What's the part number of the black charger?", "the white one is PX-7710-W the black one is PX-7720-B",
     "PX-7720-B", C),
])
def test_totals_and_codes(question: str, reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold, question) == want


@pytest.mark.parametrize(("question", "reply", "gold", "want"), [
    # the options ruled out first, then the pick (a recogniser drops the dash)
    ("Which of the twins' friends is oldest: Bruno, Keiko or Lars?", "Not Bruno, not Keiko Lars.", "Lars", C),
    ("Which of the twins' friends is oldest: Bruno, Keiko or Lars?", "Not Bruno, not Keiko — Lars.", "Lars", C),
    ("Which of the twins' friends is oldest: Bruno, Keiko or Lars?", "Not Lars, not Keiko — Bruno.", "Lars", W),
    ("Which of the twins' friends is oldest: Bruno, Keiko or Lars?", "I don't think Lars.", "Lars", W),
])
def test_ruled_out_then_picked(question: str, reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold, question) == want
