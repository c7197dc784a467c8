"""Branching steps of suite agent (docs/testing.md "Branching steps"): which line the caller says next.

A branch step's lines are all rendered before the call; live, once the agent's
turn has ended, the caller transcribes that turn (`CallerEar`: the packaged
``tiny.en`` off the event loop, `floorbench.suites.agent.ear.WhisperEar`) and `choose` picks the first rule
whose words match, else ``otherwise``. The matching is the content assertions'
(`floorbench.suites.agent.words.says`: whole words, case, punctuation and a
plural ending ignored; `matches` is a case-insensitive `re.search`), so a rule
and an assertion with the same words agree on the same transcript; `intent`
is the offline judge's reading of the turn (`floorbench.suites.agent.intents`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from floorbench.readers import search
from floorbench.suites.agent.intents import Intent, read_intent
from floorbench.suites.agent.schema import Branch, BranchRule
from floorbench.suites.agent.words import says

NOTHING_SAID = "the agent said nothing"
NO_MATCH = "no rule matched"


@dataclass(frozen=True)
class Choice:
    """The line a branch takes, and why."""

    index: int
    """0-based over the branch's options (its rules, then otherwise)"""
    rule: BranchRule
    why: str


def rule_matches(rule: BranchRule, text: str) -> bool:
    """Does the transcript hold every `contains` phrase, match `matches` and read as `intent` (a rule with
    none of them never does)?"""
    if not rule.contains and rule.matches is None and rule.intent is None:
        return False
    if not all(says(text, w) for w in rule.contains):
        return False
    if rule.matches is not None and search(rule.matches, text) is not True:  # a timed-out match is no match
        return False
    return rule.intent is None or read_intent(text, Intent(rule.intent))[0] is True


def _condition(rule: BranchRule) -> str:
    parts = [f'contains "{w}"' for w in rule.contains]
    if rule.matches is not None:
        parts.append(f"matches /{rule.matches}/")
    if rule.intent is not None:
        parts.append(f"intent {rule.intent}")
    return " and ".join(parts)


def choose(branch: Branch, text: str | None) -> Choice:
    """The first rule the agent's words match, else otherwise (`text` None or blank: it said nothing)."""
    if text is None or not text.strip():
        return Choice(len(branch.rules), branch.otherwise, NOTHING_SAID)
    unsure: list[str] = []
    for i, rule in enumerate(branch.rules):
        if rule_matches(rule, text):
            return Choice(i, rule, _condition(rule))
        if rule.intent is not None:
            read, why = read_intent(text, Intent(rule.intent))
            if read is None:
                unsure.append(why)
    return Choice(len(branch.rules), branch.otherwise, NO_MATCH + (f" ({'; '.join(unsure)})" if unsure else ""))


class CallerEar(Protocol):
    """How the caller hears the agent's words live (a fake in tests)."""

    @property
    def model(self) -> str:
        """what it is, for the record"""
        ...

    async def load(self) -> None:
        """get ready (load the model) before the first branch needs it"""
        ...

    async def transcribe(self, audio: np.ndarray) -> str:
        """the words in `audio` (float32, 16 kHz); never blocks the event loop"""
        ...
