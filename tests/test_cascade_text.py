"""The cascade's responder rules (cascade_text): addressing, quantities, answers; and the LLM path."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from floorbench.processors.cascade_answer import answer
from floorbench.processors.cascade_llm import LLMResponder
from floorbench.processors.cascade_text import Heard, addressing, is_question, quantities


@pytest.mark.parametrize(
    ("text", "addressed", "reason"),
    [
        ("Aria, which one is the cheapest per person?", True, "named_request"),
        ("Hold on, Aria. Does the taco place take card?", True, "named_request"),
        ("Okay Aria, tell us the total.", True, "named_request"),
        ("Area, how long is the drive?", True, "named_request"),  # Whisper's usual spelling
        ("Aria booked the table for us.", False, "mention"),
        ("Aria is great at this.", False, "mention"),
        ("Hey Siri, set a timer for ten minutes.", False, "wake_word"),
        ("Alexa, what's the weather?", False, "wake_word"),
        ("Ben, can you pass the salt?", False, "vocative_other"),
        ("Where did I leave my phone?", False, "self_talk"),
        ("The bus takes twenty minutes.", False, "no_request"),
        ("So how much do we owe altogether?", True, "implicit_request"),
        ("Could we get the total for the groceries, please?", True, "implicit_request"),
        ("Did you like the film?", False, "no_request"),
        ("For this session you are Aria, please listen and answer questions.", False, "duty"),
        (
            "Stay silent when they speak to another device, or when they only mention your name.",
            False,
            "no_request",
        ),
        ("When does your train leave.", True, "implicit_request"),
    ],
)
def test_addressing(text, addressed, reason):
    a = addressing(text)
    assert (a.addressed, a.reason) == (addressed, reason)


def test_question_detection_ignores_vocative_and_fillers():
    assert is_question("So, Aria, what time is it")
    assert not is_question("Aria has been helpful")


def test_quantities_units_and_kinds():
    q = quantities("The tickets were 25 dollars each and the taxi was twelve bucks.")
    assert [(x.value, x.unit) for x in q] == [(25, "dollars"), (12, "dollars")]
    q = quantities("The show starts at seven, and it's half an hour away.")
    assert [(x.value, x.unit) for x in q] == [(420, "clock"), (30, "minutes")]
    q = quantities("Two hundred and fifty kilometres in total.")
    assert [(x.value, x.unit) for x in q] == [(250, "kilometres")]
    assert quantities("Four of them cancelled.")[0].negative


def h(*texts: str) -> list[Heard]:
    return [Heard(t, i * 1000, i * 1000 + 900) for i, t in enumerate(texts)]


def test_answers_by_rule():
    said = h("Lunch was 14 dollars.", "And the museum was 11 dollars.")
    assert answer("Aria, how much did we spend in total?", said) == ("That's 25 dollars in total.", "total")
    said = h("The hike is 12 miles.", "We've done 5 miles so far.")
    assert answer("Aria, how many miles are left?", said)[0] == "You have 7 miles left."
    said = h("Dinner is at eight.", "The restaurant is twenty minutes away.")
    assert answer("Aria, what time should we leave?", said) == (
        "You should leave at seven forty.",
        "time_minus_durations",
    )
    said = h(
        "The party starts at 3 and I want the cake here half an hour before that.", "It's 25 minutes away."
    )
    assert (
        answer("Aria, what time do I need to live for the bakery?", said)[0]
        == "You should leave at two oh five."
    )
    assert answer("Aria, when does the party start?", said[:1])[0] == "At three o'clock, I think."
    said = h("Twelve people were invited.", "Three of them declined.")
    assert answer("Could we have the head count, please?", said)[0] == "That's 9 people in total."
    said = h("Ten people signed up.", "Two of them cancelled this morning.")
    assert answer("Aria, how many people are coming?", said)[0] == "That's 8 people in total."
    said = h("The blue jacket fits better than the red one.")
    text, rule = answer("Aria, which jacket fits better?", said)
    assert rule == "extractive" and "blue jacket" in text
    assert answer("Aria, what's the capital of Peru?", said)[1] == "no_evidence"


async def test_llm_responder_against_a_local_endpoint(monkeypatch):
    """A loopback OpenAI-compatible endpoint (a fake for this one component)."""
    seen: list[dict] = []

    async def completions(request: web.Request) -> web.Response:
        seen.append({"auth": request.headers.get("Authorization"), "body": await request.json()})
        latest = seen[-1]["body"]["messages"][-1]["content"]
        content = "SILENT" if "Ben," in latest.split("Latest utterance:")[1] else "Eighteen dollars."
        return web.json_response({"choices": [{"message": {"role": "assistant", "content": content}}]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setenv("FB_LLM_KEY", "llm-secret")
    try:
        llm = LLMResponder.from_config(
            {"base_url": f"http://127.0.0.1:{port}/v1", "model": "tiny", "api_key_env": "FB_LLM_KEY"},
            "cascade",
        )
        history = h("Pizza twelve, drinks six.")
        text, _ = await llm.reply("Aria", history, [], "Aria, what do we owe?")
        assert text == "Eighteen dollars."
        assert (await llm.reply("Aria", history, [], "Ben, pass the salt."))[0] is None
        body = seen[0]["body"]
        assert seen[0]["auth"] == "Bearer llm-secret" and body["model"] == "tiny"
        assert "Pizza twelve" in body["messages"][1]["content"] and "Aria" in body["messages"][0]["content"]
        assert "llm-secret" not in json.dumps(llm.card())
    finally:
        await runner.cleanup()


def test_more_answer_rules():
    said = h(
        "The park gates are about 21 miles from here, and the bridge is 59 miles away.",
        "The harbour is 11 miles away.",
    )
    assert answer("Which is closest, the park gates, the bridge or the harbour, Aria?", said) == (
        "The harbour, at 11 miles.",
        "extreme",
    )
    said = h("Dev, the energy gels came to 18 euros.", "Tom, the running shoes cost 95 euros.")
    assert answer("Aria, how much more are the running shoes than the energy gels?", said)[0] == (
        "The difference is 77 euros."
    )
    said = h("The entry fee is 25 euros.", "The sports watch was 247 euros.", "The gels were 9 euros.")
    assert answer(
        "Aria, if the four of us split the entry fee and the sports watch, how much is that each?", said
    )[0] == ("That's 68 euros each.")
    said = h("We invited ten sponsors.", "Turns out Erin, Lucas and Carla can't make it.")
    assert answer("Aria, how many sponsors are actually coming?", said) == (
        "That's 7 sponsors.",
        "count_after_changes",
    )
    said = h("We kick off the warm-up at 10:45.", "The warm-up needs 15 minutes.")
    assert answer("Aria, what time will the warm-up be done?", said) == ("At eleven o'clock.", "end_time")


def test_a_human_giving_up_hands_the_question_to_the_assistant():
    assert addressing("How much more is the course than the coffee?").reason == "self_talk"
    cue = ["Don't ask me for the maths, I'm hopeless with numbers."]
    assert addressing("How much more is the course than the coffee?", "Aria", cue) == addressing(
        "Let's just ask. How much more is the course than the coffee?"
    )
    assert (
        addressing("How much more is the course than the coffee?", "Aria", cue).reason == "implicit_after_cue"
    )
    assert addressing("Okay okay, Peter, can you write that down?").reason == "vocative_other"
    assert not addressing("Do not ask me for the maths, Aria is better at that.").addressed


def test_an_item_misheard_by_asr_takes_the_remaining_amount():
    said = h(
        "I got the cement from the market. It was $18.",
        "The vegetables came to $9 and the bottle of wine was 14.",
    )
    assert answer("Aria, what did the salmon, the vegetables and the wine cost all together?", said)[0] == (
        "That's 41 dollars in total."
    )


@pytest.mark.parametrize("heard", [
    [],  # the opening was never heard
    ["Hi Aria. I bought three apples and two pears today."],  # heard, and said again: counted once
    ["I bought three apples"],  # heard in part
])
def test_facts_said_with_the_question_are_evidence_and_the_unit_is_the_asking_sentences(heard):
    """A caller not understood says the facts and the question in one breath: the facts count, once, and
    "how many pieces of fruit" asks for no unit heard, so the apples and the pears are summed."""
    q = "I bought three apples and two pears. How many pieces of fruit is that altogether?"
    reply, rule = answer(q, h(*heard))
    assert (reply.split()[1], rule) == ("5", "total"), reply


def test_a_statement_after_the_question_is_not_the_question():
    said = h("The taxi was 20 dollars and the tip 5 dollars.")
    assert answer("Aria, what did the taxi and the tip come to? Thanks.", said)[0] == "That's 25 dollars in total."
    # a single-sentence question is unchanged: the unit it names is the one asked for
    assert answer("Aria, how many apples did I buy?", h("I bought three apples and two pears."))[0] == (
        "That's 3 apples in total.")
