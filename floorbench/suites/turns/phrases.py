"""Suite turns' phrase banks beyond English (`floorbench generate --suite turns --language es|de|zh`).

The same conversations as the English banks in `floorbench.suites.turns.generate`, translated: per
conversation type three turns (first part, second part, the oracle's reply), and the backchannels,
barge-ins, background lines and the reply to a barge-in. What the suite measures is timing (end of turn,
pauses, barge-ins, backchannels, a second voice), so the words matter only as speech in the language
of the call; they are spoken by the language's espeak-ng voice (floorbench.speech.languages), the
background voice too (the only local voice of each), so `noise` is the same voice at the same level.

The lines are data, one file per language in `banks/` beside this module (`es.yaml`, `de.yaml`, `zh.yaml`),
read once when it is imported (`floorbench.scenarios.banks`); here is the record they fill.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from floorbench.scenarios.banks import load_bank, record


@dataclass(frozen=True)
class Bank:
    """One language's lines for the turns generator."""

    turns: dict[str, list[tuple[str, str, str]]]
    backchannels: tuple[str, ...]
    interrupts: tuple[str, ...]
    background: tuple[str, ...]
    go_ahead: str
    """the oracle's reply to a barge-in"""
    hello: str
    """the suite's preamble line"""


def _bank(code: str) -> Bank:
    bank = load_bank(Path(__file__).parent / "banks", code)
    turns = {kind: [(first, second, reply) for first, second, reply in rows] for kind, rows in bank["turns"].items()}
    return record(Bank, bank, turns=turns)


BANKS: dict[str, Bank] = {code: _bank(code) for code in ("es", "de", "zh")}
"""language code → its bank (English's are the generator's own)"""
