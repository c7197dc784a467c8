"""The intents a branch rule may name, read with the offline judge's lexicon and turn reader."""

from __future__ import annotations

import pytest

from floorbench.suites.agent.intents import Intent, has_intent, opening


@pytest.mark.parametrize(
    ("turn", "intents"),
    [
        ("Yes, your order shipped.", {"yes", "statement"}),
        ("Sure thing.", {"yes", "statement"}),
        ("Okay, let me check.", {"yes", "statement"}),
        ("No, it has not shipped.", {"no", "statement"}),
        ("Nope.", {"no", "statement"}),
        ("I'm afraid not.", {"no", "statement"}),
        ("No problem, I can help.", {"statement"}),  # a reaction of the lexicon, not a refusal
        ("No worries.", {"statement", "backchannel"}),
        ("What is your order number?", {"question", "wh-question"}),
        ("Is it four two seven?", {"question", "yes-no-question"}),
        ("Could you spell that, please?", {"question", "request"}),
        ("Your order shipped yesterday. Anything else?", {"question", "yes-no-question"}),  # the last sentence
        ("Anything else, just ask.", {"statement"}),
        ("It shipped. Do you want the tracking number?", {"question", "request"}),  # the last sentence decides
        ("Oh, I see.", {"statement", "backchannel"}),
        ("mm-hm", {"yes", "statement", "backchannel"}),  # an assent hum is both
        ("Thanks!", {"statement", "backchannel"}),
        ("", set()),
    ],
)
def test_each_turn_reads_as_its_intents_and_no_other(turn: str, intents: set[str]) -> None:
    assert {i.value for i in Intent if has_intent(turn, i)} == intents


def test_the_longest_phrase_at_the_opening_decides() -> None:
    assert opening("no way") is None and opening("no") is Intent.no
    assert opening("of course not") is Intent.yes  # "of course" opens it: English only, no negation scope
    assert opening("well, yes") is None  # only the opening counts


def test_an_unsure_intent_takes_otherwise_and_says_so() -> None:
    from floorbench.suites.agent.branch import NO_MATCH, choose
    from floorbench.suites.agent.intents import read_intent
    from floorbench.suites.agent.schema import Branch

    read, why = read_intent("How Tuesday!", Intent.backchannel)  # a part the turn grammar cannot type
    assert read is None and why.startswith("intent backchannel unsure: window.untyped")
    branch = Branch.model_validate({"rules": [{"name": "reacted", "intent": "backchannel", "text": "Okay."}],
                                    "otherwise": {"name": "otherwise", "text": "Sorry?"}})
    choice = choose(branch, "How Tuesday!")
    assert choice.index == 1 and choice.why.startswith(NO_MATCH) and "unsure" in choice.why
    assert choose(branch, "Oh no.").index == 0
