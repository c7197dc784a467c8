"""The offline judge's ninth round of issue-34 answer classes, on sentences written for these tests
(none is a labelled item): a gold of several values (a compound weight, a date with its year, a
dose with how often, a version, a flat address, a range) read as a tuple of typed values, and a
value said in another system of units (converted with pint, within the speaker's rounding). Each
class has controls of the opposite label beside it that must not move."""

from __future__ import annotations

import pytest

from floorbench.scoring.judges import JudgeInput, Task, Verdict
from floorbench.scoring.judges.offline import OfflineJudge
from floorbench.scoring.judges.several_values import several_values
from floorbench.scoring.judges.value_atoms import atoms

JUDGE = OfflineJudge()
C, W = Verdict.correct, Verdict.wrong


def answer(reply: str, gold: str, question: str = "") -> Verdict:
    return JUDGE.judge([JudgeInput(Task.answer, reply, gold=gold, context=question)])[0].verdict


@pytest.mark.parametrize(("reply", "gold", "want"), [
    # a compound quantity: each part in any form, or the total in one unit
    ("Nine pounds three ounces, healthy as anything.", "9 lb 3 oz", C),
    ("Three ounces over nine pounds.", "9 lb 3 oz", C),
    ("Eight pounds ten ounces, no, nine three, sorry.", "9 lb 3 oz", C),
    ("A hundred and forty-seven ounces.", "9 lb 3 oz", C),
    ("Nine pounds, give or take.", "9 lb 3 oz", W),
    ("Nine pounds five ounces.", "9 lb 3 oz", W),
    ("Nine pounds, three weeks early.", "9 lb 3 oz", W),
    ("Five foot ten.", "5 feet 10 inches", C),
    ("About 178 centimetres.", "5 feet 10 inches", C),
    ("Five foot eleven.", "5 feet 10 inches", W),
    # a date with its year, however written
    ("Fourteenth March twenty twenty-seven.", "14 March 2027", C),
    ("14-3-2027, the Sunday.", "14 March 2027", C),
    ("Fourteenth of April twenty twenty-seven.", "14 March 2027", W),
    ("Fourteenth March twenty twenty-eight.", "14 March 2027", W),
    # a dose with how often it is taken
    ("Two hundred and fifty milligrams every six hours.", "250 mg every 6 hours", C),
    ("Point two five grams, q6h.", "250 mg every 6 hours", C),
    ("250 mg QID.", "250 mg every 6 hours", C),
    ("250 mg every 8 hours.", "250 mg every 6 hours", W),
    ("Two fifty, three times a day.", "250 mg every 6 hours", W),
    ("Three drops twice daily.", "three drops twice daily", C),
    ("Three drops in the morning and at night, well, morning and night.", "three drops twice daily", C),
    ("One drop twice daily.", "three drops twice daily", W),
    ("Three drops when needed.", "three drops twice daily", W),
    ("One tablet a week.", "one a week", C),
    ("One a month, on the first.", "one a week", W),
    # a version said number by number
    ("Four point one point seven.", "4.1.7", C),
    ("It's on 4.1.7 now.", "4.1.7", C),
    ("Four point seven point one.", "4.1.7", W),
    # a flat address: every number in any form
    ("Block forty-one, hash zero eight dash two two six.", "Blk 41 #08-226", C),
    ("Blk 41, eighth floor, unit 226.", "Blk 41 #08-226", C),
    ("Blk 41, ninth floor, unit 226.", "Blk 41 #08-226", W),
    # a range: both ends, in either system
    ("Between fifteen and twenty-five degrees C.", "15 to 25 °C", C),
    ("59 to 77 Fahrenheit.", "15 to 25 °C", C),
    ("Between fifteen and thirty degrees.", "15 to 25 °C", W),
])
def test_several_values(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold) is want, (reply, gold)


@pytest.mark.parametrize(("reply", "gold", "want"), [
    # another system, within the speaker's rounding (half the last place said, plus 1 %)
    ("About 66 pounds.", "30 kg", C),
    ("Sixty pounds.", "30 kg", W),
    ("Seventy-seven Fahrenheit.", "25 °C", C),
    ("Eighty Fahrenheit.", "25 °C", W),
    ("Two hundred and five Celsius, about.", "400°F", C),
    ("Two hundred Celsius.", "400°F", W),
    ("Four hundred Celsius.", "400°F", W),
    ("About 59 foot-pounds.", "80 N·m", C),
    ("Eighty foot-pounds.", "80 N·m", W),
    ("One inch.", "25.4 mm", C),
    ("One and a half inches.", "25.4 mm", W),
    ("Three in four.", "75%", C),
    ("Three in five.", "75%", W),
    ("Four pounds fourteen ounces.", "2.2 kg", C),
    ("Five pounds fourteen ounces.", "2.2 kg", W),
    # a tolerance after the value is detail; the value must still be the gold one
    ("9.5 mm, plus or minus 0.1.", "9.5 mm", C),
    ("9.4 mm, plus or minus 0.1.", "9.5 mm", W),
    ("Sixty percent, plus or minus three.", "60%", C),
])
def test_another_system(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold) is want, (reply, gold)


def test_values_read_one_by_one() -> None:
    said = atoms("Block forty-one, hash zero eight dash two two six, point six five grams, three in four")
    assert [a.value for a in said][:1] == [41.0]
    assert any(a.unit == "gram" and abs(a.value - 0.65) < 1e-9 for a in said)
    assert any(a.kind == "ratio" and a.value == 75.0 for a in said)


def test_left_to_the_other_rules() -> None:
    """Durations, signed values and a value in the gold's own unit are the quantity rules' to judge."""
    assert several_values("70 minutes", "An hour and ten minutes.") is None
    assert several_values("-5 °C", "Twenty-three Fahrenheit.") is None
    assert several_values("12.7 mm", "Thirteen millimetres.") is None


@pytest.mark.parametrize(("reply", "want"), [
    ("Plus or minus five hundredths of a millimetre.", C),
    ("Give or take 0.05 mm.", C),
    ("Minus 0.05.", W),
    ("Plus five hundredths.", W),
])
def test_tolerance_gold_is_two_values(reply: str, want: Verdict) -> None:
    """A gold tolerance ("±0.05 mm") is a value above and one below: said one way only, it is wrong."""
    assert answer(reply, "±0.05 mm") is want, reply


@pytest.mark.parametrize(("reply", "want"), [
    ("Seven per mille.", C),
    ("Point seven percent.", C),
    ("Seven percent.", W),
])
def test_alias_in_another_unit_is_no_escape(reply: str, want: Verdict) -> None:
    """An alias in another unit ("seven per mille" for 0.7 %) does not accept its number said in the
    gold's own unit ("seven percent" is ten times the gold)."""
    inp = JudgeInput(Task.answer, reply, gold="0.7%", aliases=["seven per mille"])
    assert JUDGE.judge([inp])[0].verdict is want, reply


@pytest.mark.parametrize(("text", "value"), [
    ("three thousand four hundred metres", 3400.0), ("a thousand two hundred", 1200.0),
    ("two thousand and nine", 2009.0), ("forty thousand six hundred and ten", 40610.0),
])
def test_a_number_said_across_thousand_is_one_value(text: str, value: float) -> None:
    assert [a.value for a in atoms(text)] == [value]


@pytest.mark.parametrize(("reply", "gold", "want"), [
    ("Nine pound two — no, ten pound two.", "9 lb 2 oz", "wrong"),  # corrected after a dash: the last claim
    ("Ten pound two - sorry, nine pound two.", "9 lb 2 oz", "correct"),
    ("The 3rd or the 4th of May, 2031.", "May 4, 2031", "wrong"),  # two days left open
    ("The 4th of May, 2031.", "May 4, 2031", "correct"),
    ("Three or four kilos.", "3.5 kg", "wrong"),
    ("Three thousand five hundred grams.", "3.5 kg", "correct"),
    ("Six thousand grams.", "3.5 kg", "wrong"),
])
def test_the_last_correction_and_left_open_options_of_several_values(reply: str, gold: str, want: Verdict) -> None:
    assert answer(reply, gold) == want
