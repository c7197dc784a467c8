"""The offline judge's tenth round on spoken numbers, on sentences written for these tests (none is a
labelled item): a number word's sound-alike ("tree", "tirty", "won", "for") read in a numeric context
only, one number said in two habits ("one thousand two fifty", "an' fifty", "and thirty cents", a
total in pounds for stones and pounds, minutes for hours and a fraction), and a range said another
way ("between three and five", "three too five") or said where one value is asked for. Property tests
speak generated values with num2words and change them by the class's processes; negative properties
say that another value never reads as the gold and that text with no numeric context gains no number."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words
from text_to_num import text2num

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.interjections import known_words
from floorbench.scoring.judges.mixed_numbers import read_mixed_numbers
from floorbench.scoring.judges.myriad import read_foreign_numbers, read_myriads, read_swahili
from floorbench.scoring.judges.number_sounds import HOMOPHONES, read_sound_alikes, sound_alikes
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.ranges import gold_range, read_ranges

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # a sound-alike beside a number, a unit, a clock word or "point"
    ("the ferry leave at tree tirty", "3:30 PM", "When does the ferry leave?", C),
    ("the ferry leave at tree tirty", "3:40 PM", "When does the ferry leave?", W),
    ("it cost tirty-five dollar", "$35", "", C),
    ("it cost tirty-five dollar", "$45", "", W),
    ("bout tree tousand people", "3,000", "How many people came?", C),
    ("bout tree tousand people", "4,000", "How many people came?", W),
    ("fife kilo of rice", "5 kg", "", C),
    ("fife kilo of rice", "6 kg", "", W),
    ("ate o'clock sharp", "8:00 AM", "What time?", C),
    ("ate o'clock sharp", "9:00 AM", "What time?", W),
    ("won point five litres", "1.5 L", "", C),
    ("too point five litres", "1.5 L", "", W),
    ("sebben tirty am", "7:30 AM", "", C),
    ("nine hundred an' tree", "903", "", C),
    ("tirty tree", "33", "How many?", C),
    ("it's free pounds fifty", "£3.50", "", C),
    ("the code is for for seven won ate ate to oh", "44718820", "", C),
    ("the code is for for seven won ate ate to oh", "44718821", "", W),
    # inside a spelled code: letter names and digit sound-alikes side by side
    ("see double you for ex", "CW4X", "", C),
    ("see double you five ex", "CW4X", "", W),
    ("em kay tree queue", "MK3Q", "", C),
    ("em kay ate queue", "MK3Q", "", W),
    # the counted noun of a "how many" question
    ("we need tree chairs", "3", "How many chairs do we need?", C),
    ("we need tree chairs", "4", "How many chairs do we need?", W),
    ("for chairs", "4", "How many chairs do we need?", C),
    ("for chairs", "3", "How many chairs do we need?", W),
    # no numeric context: the word stays the word
    ("we won three games", "3", "How many games did we win?", C),
    ("we won three games", "1", "How many games did we win?", W),
    ("I ate two slices", "8", "How many slices did you eat?", W),
    ("the tree fell on the car", "3", "How many cars were hit?", W),
    # one number in two habits
    ("seven hundred an' twenty dollar", "$720", "", C),
    ("seven hundred an' twenty dollar", "$700", "", W),
    ("one thousand three fifty shillings", "KSh 1,350", "", C),
    ("one thousand three fifty shillings", "KSh 1,530", "", W),
    ("two forty and thirty cents", "$240.30", "", C),
    ("two forty and thirty cents", "$240.40", "", W),
    ("one ninety and twenty-five centavos", "₱190.25", "", C),
    ("a hundred and sixty pounds", "11 st 6 lb", "", C),
    ("a hundred and sixty pounds", "11 st 8 lb", "", W),
    ("eleven stone four", "11 st 4 lb", "", C),
    ("a hundred an' thirty-five minute", "2 hours 15 minutes", "", C),
    ("a hundred an' forty minute", "2 hours 15 minutes", "", W),
    ("three hour an' a quarter", "3 hours 15 minutes", "", C),
    ("three hour an' a half", "3 hours 15 minutes", "", W),
    ("an hour and three quarters", "1 hour 45 minutes", "", C),
    ("tree point four one kilo", "7 lb 8 oz", "", C),
    ("tree point four one kilo", "7 lb 4 oz", "", W),
    ("to and a half kilos", "2.5 kg", "", C),
    ("to and a half kilos", "3.5 kg", "", W),
    ("Seven hundred and twenty dollars.", "J$720", "", C),
    ("Seven hundred and ten dollars.", "J$720", "", W),
    ("Seventy pence, not bad.", "70p", "", C),
    ("Seventy pence, not bad.", "80p", "", W),
    ("14 o'clock.", "2:00 PM", "", C),
    ("Sixteen hundred hours.", "4:00 PM", "", C),
    ("14 o'clock.", "4:00 PM", "", W),
    ("One-quarter off the price.", "25%", "", C),
    ("One-quarter off the price.", "20%", "", W),
    ("About a third.", "33%", "", C),
    ("Six and a half percent.", "6.5%", "", C),
    ("Two teaspoons.", "10 mL", "", C),
    ("Three teaspoons.", "10 mL", "", W),
    ("Twelve mile.", "20 km", "", C),
    ("Fourteen mile.", "20 km", "", W),
    ("One point six kilometres.", "1600 m", "", C),
    ("Two kilometres.", "1600 m", "", W),
    # a range said another way, and a range where one value is asked for
    ("between two and four weeks", "2 to 4 weeks", "", C),
    ("somewhere between two an' four weeks", "2 to 4 weeks", "", C),
    ("two too four weeks", "2 to 4 weeks", "", C),
    ("tree too five weeks", "3 to 5 weeks", "", C),
    ("two through four weeks", "2 to 4 weeks", "", C),
    ("2-4 weeks", "2 to 4 weeks", "", C),
    ("between 2 and 8 degrees", "2 to 8 °C", "", C),
    ("between two and five weeks", "2 to 4 weeks", "", W),
    ("between one and three weeks", "2 to 4 weeks", "", W),
    ("two to four weeks", "4 weeks", "", W),
    ("eighty to ninety dollars", "$90", "", W),
    ("a hundred to a hundred and twenty", "120", "", W),
    ("it went up from eighty to ninety dollars", "$90", "", C),
    ("ten to twelve people", "12 people", "", W),
    ("Ten mils every four to six hours.", "10 mL", "", C),
    ("twenty to five", "4:40 PM", "What time is it?", C),
])
def test_sentences(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) == want


_WORDS = ("the a we you they went park lunch game green big is was and or can tree free for to too won ate fife "
          "tin sics fore it not on in at with my your box goal").split()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8))
def test_no_numeric_context_no_number(words: list[str]) -> None:
    """English words that sound like number words, with no number, unit or clock word around them, gain no
    number."""
    text = " ".join(words)
    assert read_sound_alikes(text) == text


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_WORDS[:20]), max_size=4), st.sampled_from(["tirty", "tousand", "sebben", "twinty"]),
       st.lists(st.sampled_from(_WORDS[:20]), max_size=4))
def test_lone_soundalike_stays(before: list[str], word: str, after: list[str]) -> None:
    """A sound-alike that is no English word, with nothing numeric beside it and no quantity asked, stays."""
    text = " ".join([*before, word, *after])
    if not re.search(r"\b(?:tree|free|for|to|too|won|ate)\b", text):
        assert read_sound_alikes(text, "Who was it?") == text


def _soundalike(spoken: str, choose: int) -> str:
    """The spoken number with one of its words replaced by a sound-alike that is no English word."""
    words = spoken.replace("-", " ").split()
    options = [(k, form) for k, w in enumerate(words) for form, said in sorted(sound_alikes().items())
               if said == w and form not in HOMOPHONES and form not in ("tree", "free", "fife", "tin")]
    if not options:
        return " ".join(words)
    k, form = options[choose % len(options)]
    return " ".join([*words[:k], form, *words[k + 1:]])


def _read(text: str) -> int | None:
    said = re.sub(r"\b(?:dollars|and)\b|,", " ", text).split()
    try:
        return int(text2num(" ".join(said), "en"))
    except ValueError:
        return None


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=1, max_value=999_999), st.integers(min_value=0, max_value=50))
def test_sound_alikes_read_as_said(n: int, choose: int) -> None:
    """A number spoken with a sound-alike for one of its words, before a unit, reads as the number."""
    spoken = _soundalike(num2words(n), choose)
    assert _read(read_sound_alikes(f"{spoken} dollars")) == n


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=13, max_value=99), st.integers(min_value=1, max_value=9))
def test_another_value_never_reads_as_gold(n: int, shift: int) -> None:
    """A sound-alike of another number is read as that number: never as the gold."""
    other = n + shift
    spoken = _soundalike(num2words(other), shift)
    assert answer(f"it's {spoken} dollars", f"${n}") == W


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.integers(min_value=1, max_value=9),
       st.integers(min_value=10, max_value=99))
def test_thousand_then_price(head: int, hundreds: int, rest: int) -> None:
    """'N thousand D TT' is N*1000 + D*100 + TT, whatever the gold."""
    said = f"{num2words(head)} thousand {num2words(hundreds)} {num2words(rest)} shillings"
    assert read_mixed_numbers(said) == f"{head * 1000 + hundreds * 100 + rest} shillings"


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=999), st.integers(min_value=1, max_value=99))
def test_amount_and_cents(whole: int, cents: int) -> None:
    said = f"{num2words(whole)} and {num2words(cents)} cents"
    assert read_mixed_numbers(said) == f"{whole}.{cents:02d}"


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.integers(min_value=1, max_value=20),
       st.sampled_from(["between {a} and {b}", "anywhere from {a} to {b}", "{a} too {b}", "{a} through {b}"]))
def test_range_forms(low: int, width: int, form: str) -> None:
    """Every form of a range reads as the gold's 'X to Y'; another end stays another range."""
    gold = f"{low} to {low + width} days"
    said = form.format(a=num2words(low), b=num2words(low + width)) + " days"
    assert gold_range(gold) == (low, low + width)
    assert answer(said, gold) == C
    other = form.format(a=num2words(low), b=num2words(low + width + 1)) + " days"
    assert answer(other, gold) == W


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=500), st.integers(min_value=1, max_value=50))
def test_range_for_one_value_is_no_answer(value: int, width: int) -> None:
    """A range said where one value is gold offers two values and chooses none, even with the gold as an end."""
    said = f"{num2words(value)} to {num2words(value + width)} dollars"
    assert " or " in read_ranges(said, [f"${value + width}"])
    assert answer(said, f"${value + width}") == W
    assert answer(said, f"${value}") == W


@pytest.mark.parametrize(("reply", "gold", "question", "want"), [
    # myriad counting, before a currency of the countries that count so or with another of its words
    ("It is four man yen per night.", "¥40,000", "", C),
    ("It is four man yen per night.", "¥4,000", "", W),
    ("One man two sen yen, with breakfast.", "¥12,000", "", C),
    ("One man two sen yen, with breakfast.", "¥12,200", "", W),
    ("Fifteen man three sen yen.", "¥153,000", "", C),
    ("Six man two thousand won.", "₩62,000", "", C),
    ("Six man two thousand won.", "₩26,000", "", W),
    ("We sent a three man team.", "3", "How many people did you send?", C),
    # the Swahili clock (hours from six) and Swahili numbers
    ("Saa nne asubuhi.", "10:00 AM", "What time does it open?", C),
    ("Saa nne asubuhi.", "4:00 AM", "What time does it open?", W),
    ("Saa mbili na nusu usiku.", "8:30 PM", "What time?", C),
    ("Saa kumi na moja jioni.", "5:00 PM", "What time?", C),
    ("Ishirini na tatu.", "23", "How many?", C),
    ("Ishirini na tatu.", "32", "How many?", W),
    ("Give Mia the syrup.", "5 mL", "", W),
])
def test_other_counting_systems(reply: str, gold: str, question: str, want: Verdict) -> None:
    assert answer(reply, gold, question) == want


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.integers(min_value=0, max_value=9),
       st.sampled_from([("man", "sen", "yen"), ("man", "cheon", "won"), ("wan", "qian", "yuan")]))
def test_myriads(myriads: int, thousands: int, words: tuple[str, str, str]) -> None:
    """N myriads and M thousands, said in English numbers with the myriad words, are N*10000 + M*1000."""
    ten_thousand, thousand, currency = words
    said = f"{num2words(myriads)} {ten_thousand}" + (f" {num2words(thousands)} {thousand}" if thousands else "")
    assert read_myriads(f"{said} {currency}") == f"{myriads * 10_000 + thousands * 1000} {currency}"
    assert read_myriads(f"a {num2words(myriads)} {ten_thousand} crew") == f"a {num2words(myriads)} {ten_thousand} crew"


_SW_UNITS = ["moja", "mbili", "tatu", "nne", "tano", "sita", "saba", "nane", "tisa"]
_SW_TENS = ["kumi", "ishirini", "thelathini", "arobaini", "hamsini", "sitini", "sabini", "themanini", "tisini"]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=12))
def test_swahili(tens: int, unit: int, hour: int) -> None:
    """'kumi na nane' is 18; 'saa X' is the clock's hour X + 6."""
    assert read_swahili(f"{_SW_TENS[tens - 1]} na {_SW_UNITS[unit - 1]}") == str(tens * 10 + unit)
    said = _SW_UNITS[hour - 1] if hour < 10 else ["kumi", "kumi na moja", "kumi na mbili"][hour - 10]
    assert read_swahili(f"saa {said} asubuhi") == f"{(hour + 5) % 12 + 1} am"


@pytest.mark.parametrize(("reply", "gold", "want"), [
    ("Son cuarenta y cinco pesos.", "45 pesos", C),
    ("Son cuarenta y seis pesos.", "45 pesos", W),
    ("Vingt-deux euros, merci.", "€22", C),
    ("Dreiundzwanzig Euro.", "€23", C),
    ("Dreiundzwanzig Euro.", "€32", W),
    ("It's once a week.", "11", W),
    ("Not a cent more.", "100", W),
])
def test_numbers_of_other_languages(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold) == want


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=0, max_value=99_999), st.sampled_from(["es", "fr", "de", "it", "pt"]))
def test_foreign_numbers(n: int, lang: str) -> None:
    """A number spoken in another language text2num reads is its figure or, all its words also English words
    ("trois cents", "dos", "mil": the sentence model knows them) or one short word,
    is left as said: never another value. An English number is left as said."""
    said = f"it costs {num2words(n, lang=lang)} today"
    assert read_foreign_numbers(said) in (f"it costs {n} today", said)
    parts = re.split(r"[\s-]+", num2words(n, lang=lang))
    if len(parts) >= 2 and lang in ("es", "fr", "pt") and not set(parts) <= known_words():  # one-word it/de: few read
        assert read_foreign_numbers(said) == f"it costs {n} today"
    english = f"it costs {num2words(n)} today"
    assert read_foreign_numbers(english) == english
