"""The words of suite agent's content checks: how a phrase is found in what the agent said.

One definition for the content assertions (`floorbench.suites.agent.assertions`)
and the branching caller's rules (`floorbench.suites.agent.branch`), so a rule
and an assertion with the same words agree on the same transcript. Text only:
the base layer, importable by the live caller and the scorer alike.
"""

from __future__ import annotations

import re


def normalise(text: str) -> str:
    """Lower case, words only: what `contains` compares (punctuation and case do not matter)."""
    return " ".join(re.sub(r"[^\w']+", " ", text.lower()).split())


def _same_word(heard_word: str, asked: str) -> bool:
    """One word against another, a plural ending either way allowed: the ASR hears "bananas" for "banana"
    often enough that a strict match fails a good agent, and no test means one apart from the other."""
    if heard_word == asked:
        return True
    longer, shorter = (heard_word, asked) if len(heard_word) > len(asked) else (asked, heard_word)
    return longer in (shorter + "s", shorter + "es")


def says(text: str, phrase: str, language: str | None = None) -> bool:
    """The phrase's words in a row in the text: whole words, case, punctuation and a plural ending ignored;
    with a `language`, numbers also match whether written in words or digits ("veintiún" = "21"), and
    Mandarin is compared character by character in simplified script (floorbench.speech.languages.comparable)."""
    if _says(text, phrase) or language is None:
        return _says(text, phrase)
    from floorbench.speech.languages import comparable

    return _says(comparable(text, language), comparable(phrase, language))


def _says(text: str, phrase: str) -> bool:
    words, asked = normalise(text).split(), normalise(phrase).split()
    if not asked:
        return False
    return any(all(_same_word(words[i + j], a) for j, a in enumerate(asked))
               for i in range(len(words) - len(asked) + 1))
