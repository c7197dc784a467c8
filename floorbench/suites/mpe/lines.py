"""Suite mpe's lines in Spanish, German and Mandarin, written by hand for `generate --suite mpe --language`.

English keeps its own, much larger generator (`generate.py`, `tasks.py`, `vocab.py`, `phrases.py`); these
banks are smaller: one setting (a kitchen, people cooking dinner, a smart speaker on the counter) and three
task families — what two things cost together (`sum_cost`), who brings a dish (`who_brings`) and where a
thing is (`where_is`). Each family states its facts in turns before the request and computes the gold from
them, so the gold is right by construction. Numbers are said as digits in Spanish and German (espeak-ng reads
them in the voice's language) and as Chinese numerals in Mandarin (its pinyin voice does not read digits).

The words are data, one file per language in `banks/` beside this module (`es.yaml`, `de.yaml`,
`zh.yaml`), read once when it is imported (`floorbench.scenarios.banks`); here is the record they fill.

Templates: `{name}` another person's name, `{c}` a fact clause, `{q}`/`{iq}` the direct and the embedded
question, `{a}`/`{A}` a person's answer to a side question, `{asker}` who asked it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from floorbench.scenarios.banks import load_bank, record
from floorbench.suites.mpe.vocab import SideQuestion


@dataclass(frozen=True)
class Lines:
    """Everything a scenario in one language says."""

    preamble: str
    """the duty preamble, short: the English one says much more, but espeak-ng at floorbench's slow rate
    would take some 45 s to say it, before every scenario"""
    answer: str
    """the oracle's answer to a request: `{gold}`"""
    female: tuple[str, ...]
    male: tuple[str, ...]
    n1: tuple[str, ...]
    """mentions Aria, asks her nothing"""
    n2: tuple[str, ...]
    """said to another person (`{name}`)"""
    n3: tuple[str, ...]
    """self-talk"""
    fact_n1: tuple[str, ...]
    fact_n2: tuple[str, ...]
    fact_n3: tuple[str, ...]
    explicit: tuple[str, ...]
    """request frames that name Aria"""
    implicit: tuple[str, ...]
    """request frames that do not"""
    cues: tuple[str, ...]
    """added to the turn before an implicit request: the speaker gives up on the question"""
    n4q: tuple[str, ...]
    never_mind: tuple[str, ...]
    resolved: tuple[str, ...]
    side_questions: tuple[SideQuestion, ...]
    # task families
    money: str
    """a price said in a turn: `{n}` (digits or numerals, see `said`)"""
    prices: tuple[tuple[str, str, int, int], ...]
    """(the item as subject, as object, cheapest, dearest)"""
    price_facts: tuple[str, ...]
    """`{s}` the item as subject, `{o}` as object, `{p}` the price"""
    sum_question: tuple[str, str]
    """(direct, embedded): `{a}`, `{b}` the two items as subjects"""
    dishes: tuple[str, ...]
    bring_fact: str
    """`{person}` brings `{dish}`"""
    bring_question: tuple[str, str]
    things: tuple[tuple[str, str], ...]
    """(the thing, its verb of place)"""
    places: tuple[tuple[str, str], ...]
    """(the place as said, a shorter form that also counts)"""
    where_fact: str
    """`{thing}` `{verb}` `{place}`"""
    where_question: tuple[str, str]


def _lines(code: str) -> Lines:
    bank = load_bank(Path(__file__).parent / "banks", code)
    return record(Lines, bank, side_questions=tuple(record(SideQuestion, q) for q in bank["side_questions"]))


LINES: dict[str, Lines] = {code: _lines(code) for code in ("es", "de", "zh")}
"""per language beyond English (floorbench.speech.languages)"""
FAMILIES = ("sum_cost", "who_brings", "where_is")
"""the task families every language here has"""

_ZH_DIGITS = "零一二三四五六七八九"


def chinese_numeral(n: int) -> str:
    """Mandarin numerals for 0 <= n < 100 (三十五)."""
    if not 0 <= n < 100:
        raise ValueError(f"{n}: only 0..99")
    tens, ones = divmod(n, 10)
    if tens == 0:
        return _ZH_DIGITS[ones]
    return ("" if tens == 1 else _ZH_DIGITS[tens]) + "十" + (_ZH_DIGITS[ones] if ones else "")


def said(n: int, code: str) -> str:
    """A number as a turn says it in language `code`."""
    return chinese_numeral(n) if code == "zh" else str(n)


def money_gold(n: int, code: str) -> tuple[str, list[str]]:
    """The gold of a sum and its other accepted forms."""
    if code == "zh":
        w = chinese_numeral(n)
        return f"{n}元", [str(n), w, f"{n}块", f"{w}块", f"{w}元", f"{w}块钱"]
    return LINES[code].money.format(n=n), [str(n), f"{n} €"]
