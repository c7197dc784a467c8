"""Word banks shipped as YAML (floorbench/scenarios/banks.py): read frozen, typos refused, every bank well-formed.

The generators draw from these banks with seeded random streams, so a bank that loads differently (a
word YAML turned into a bool, an entry moved) changes every suite generated from it. The last test pins
what a few seeds generate, as digests taken when the banks were still Python tuples: the move to YAML, and
any refactor after it, must leave every generated file the same, byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

import pytest

from floorbench.readers import ReadError
from floorbench.scenarios.banks import frozen, load_bank, record
from floorbench.scenarios.files import dump_scenario
from floorbench.suites.mpe import lines, vocab
from floorbench.suites.mpe.generate import generate_pairs
from floorbench.suites.mpe.generate_languages import generate_language_pairs
from floorbench.suites.turns import phrases
from floorbench.suites.turns.generate import dump_turns_scenario, generate_dialogues

PACKAGE = Path(__file__).resolve().parents[1] / "floorbench"


def test_frozen_turns_lists_into_tuples_and_keeps_order() -> None:
    data = frozen({"b": [1, ["x", "y"]], "a": {"c": []}, "flag": True})
    assert data == {"b": (1, ("x", "y")), "a": {"c": ()}, "flag": True}
    assert list(data) == ["b", "a", "flag"]


@pytest.mark.parametrize("text, bad", [("words: [yes, maybe]\n", "True"), ("words: [Norway, no]\n", "False"),
                                       ("words:\n  - one\n  -\n", "None")])
def test_an_unquoted_yes_no_or_empty_entry_is_refused(tmp_path: Path, text: str, bad: str) -> None:
    (tmp_path / "b.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ReadError, match=f"b.yaml: the entry {bad} in a list .*quote the word"):
        load_bank(tmp_path, "b")


def test_a_bank_is_a_mapping_read_by_the_bounded_reader(tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(ReadError, match="a word bank is a mapping"):
        load_bank(tmp_path, "list")
    (tmp_path / "twice.yaml").write_text("a: [x]\na: [y]\n", encoding="utf-8")
    with pytest.raises(ReadError, match="given twice"):
        load_bank(tmp_path, "twice")


def test_record_takes_the_row_with_built_fields_in_place() -> None:
    @dataclass(frozen=True)
    class Pair:
        name: str
        parts: tuple[str, ...]

    assert record(Pair, {"name": "a", "parts": ("raw",)}, parts=("built",)) == Pair("a", ("built",))
    with pytest.raises(TypeError, match="colour"):
        record(Pair, {"name": "a", "parts": (), "colour": "red"})


def _leaves(value: object, where: str):
    """(where, leaf) of every value in a record tree."""
    if is_dataclass(value):
        for f in fields(value):
            yield from _leaves(getattr(value, f.name), f"{where}.{f.name}")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{where}[{k!r}]")
    elif isinstance(value, list | tuple):
        for n, v in enumerate(value):
            yield from _leaves(v, f"{where}[{n}]")
    else:
        yield where, value


def test_every_shipped_bank_holds_only_words_and_whole_numbers() -> None:
    banks = {"vocab.ACTIVITIES": vocab.ACTIVITIES, "vocab.DEVICES": vocab.DEVICES,
             "vocab.RELATIONSHIPS": vocab.RELATIONSHIPS, "vocab.REGISTERS": vocab.REGISTERS,
             "vocab.names": (vocab.FEMALE_NAMES, vocab.MALE_NAMES, vocab.CURRENCIES, vocab.DISTANCE_UNITS,
                             vocab.OTHER_DEVICE_COMMANDS, vocab.LOCATIONS),
             "lines.LINES": lines.LINES, "phrases.BANKS": phrases.BANKS}
    kinds: dict[str, set[str]] = {}
    for name, bank in banks.items():
        for where, leaf in _leaves(bank, name):
            assert type(leaf) in (str, int) or where.endswith(".expand_contractions"), (where, leaf)
            kinds.setdefault(type(leaf).__name__, set()).add(name)
    assert set(kinds) == {"str", "int", "bool"}
    # numbers only where a bank gives ranges: prices, distances, hours, minutes, counts
    assert kinds["int"] == {"vocab.ACTIVITIES", "lines.LINES"}


def test_the_banks_are_files_beside_their_modules() -> None:
    shipped = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.glob("suites/*/banks/*.yaml"))
    assert shipped == ["suites/mpe/banks/de.yaml", "suites/mpe/banks/es.yaml", "suites/mpe/banks/vocab.yaml",
                       "suites/mpe/banks/zh.yaml", "suites/turns/banks/de.yaml", "suites/turns/banks/es.yaml",
                       "suites/turns/banks/zh.yaml"]
    assert set(lines.LINES) == set(phrases.BANKS) == {"es", "de", "zh"}
    assert all(isinstance(q, vocab.SideQuestion) for ln in lines.LINES.values() for q in ln.side_questions)


def _digest(files: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(files).encode()).hexdigest()[:16]


def test_seeded_suites_are_the_files_they_were_when_the_banks_were_python() -> None:
    """Digests of the scenario files a few seeds give (measured on the revision before the banks became YAML,
    and again after: the same). A deliberate change of a bank or a generator moves them: raise the suite's
    GENERATOR_VERSION with it, and take the new digests."""
    got = {"en": _digest(dump_scenario(s) for pair in generate_pairs(40, seed=11) for s in pair)}
    for code in ("es", "de", "zh"):
        got[code] = _digest(dump_scenario(s) for pair in generate_language_pairs(15, 11, code) for s in pair)
    for code in ("en", "es", "de", "zh"):
        got[f"turns-{code}"] = _digest(dump_turns_scenario(s) for s in generate_dialogues(10, 11, language=code))
    assert got == {"en": "cf02bb4de4aa1e8d", "es": "2d3425a37bce000a", "de": "6a880cb0f8da8480",
                   "zh": "002712fc9dd35d64", "turns-en": "fa282628bf46b38e", "turns-es": "dccce1e83f58f1b9",
                   "turns-de": "5e462c52511781de", "turns-zh": "d39f92976d5b001b"}
