"""The languages a conversation is held in: what speaks, hears and judges each one.

One registry, so every layer asks the same question the same way: a test
file's `language:` is checked here (an unknown code is one line), a caller
voice must speak it (`check_voice`), the ASR is told it, `contains` and
`matches` read numbers in it (text2num, `numbers`; Mandarin compared by character, in simplified script), and the content judges
say whether they have rules for it (`judged`): a language without them is
refused for content metrics in one line, never scored as if it were English.

Voices: English has the packaged Piper voice and flite/festival; the others
speak through espeak-ng (Debian), the only local engine here with them — no
Piper voice for Spanish, German or Mandarin ships as a package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from text_to_num import alpha2digit

from floorbench.errors import FloorbenchError

DEFAULT = "en"
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
"""a Chinese character (CJK unified ideographs, extension A, compatibility)"""


class LanguageError(FloorbenchError, ValueError):
    """An unknown language, or a voice that does not speak the test's language."""


@dataclass(frozen=True)
class Language:
    """One language and the tools for it."""

    code: str
    name: str
    whisper: str
    """the language code Whisper is given"""
    voice: str
    """a local voice that speaks it (the default caller voice)"""
    numbers: str | None
    """text2num's language code (number words ↔ digits in `contains`); None: numbers compared as written"""
    judged: bool
    """the offline judge has rules for it (answer and window judging); else content metrics are refused"""


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", "en", "piper:joe", "en", True),
    "es": Language("es", "Spanish", "es", "espeak:es", "es", False),
    "de": Language("de", "German", "de", "espeak:de", "de", False),
    "zh": Language("zh", "Mandarin Chinese", "zh", "espeak:cmn", None, False),
}
ESPEAK_LANGUAGE = {"en": "en", "en-us": "en", "es": "es", "de": "de", "cmn": "zh"}
"""espeak-ng voice → the language it speaks (the espeak voices floorbench offers)"""


def language(code: object, where: str) -> Language:
    """The language of `code`; one-line `LanguageError` naming `where` and the choices otherwise."""
    if isinstance(code, str) and code in LANGUAGES:
        return LANGUAGES[code]
    shown = repr(code)[:30]
    raise LanguageError(f"{where}: unknown language {shown}; use one of {', '.join(LANGUAGES)} "
                        "(en English, es Spanish, de German, zh Mandarin Chinese)")


def voice_language(voice: str) -> str | None:
    """The language a local voice speaks; None for a service voice (the operator's: not known here)."""
    backend, _, name = voice.partition(":")
    if backend in ("piper", "flite", "festival"):
        return "en"
    if backend == "espeak":
        return ESPEAK_LANGUAGE.get(name.partition("?")[0])
    return None


def check_voice(voice: str, lang: Language, where: str) -> None:
    """One line when `voice` is a local voice that does not speak `lang`."""
    spoken = voice_language(voice)
    if spoken is not None and spoken != lang.code:
        raise LanguageError(f"{where}: voice {voice[:40]!r} speaks {LANGUAGES[spoken].name}, not {lang.name}; "
                            f"use {lang.voice} (or another {lang.name} voice)")


def answer_voice(code: str, configured: str) -> str | None:
    """The voice a reference agent answers a call held in `code` with, where its `configured` voice will not
    do (None: that one): the language's voice when the configured one is a local voice of another language."""
    spoken = voice_language(configured)
    return None if spoken is None or spoken == code else LANGUAGES[code].voice


def content_refused(lang: Language, judge: str) -> str | None:
    """Why content metrics cannot be judged in `lang` by `judge` (None: they can)."""
    if lang.judged or judge.startswith("llm:"):
        return None
    return (f"content metrics are not scored in {lang.name}: the offline judge has rules for English only; "
            f"use --judge llm:<model> (an LLM judge reads {lang.name})")


def refused_run(codes: set[str], judge: str) -> str | None:
    """Why a run whose calls were held in `codes` cannot have its content judged by `judge` (None: it can):
    `floorbench score`'s one line, naming the first language the judge has no rules for."""
    for code in sorted(codes):
        why = content_refused(LANGUAGES[code], judge) if code in LANGUAGES else f"unknown language {code[:20]!r}"
        if why is not None:
            return why
    return None


def comparable(text: str, code: str) -> str:
    """`text` as `contains` compares it in language `code`: number words as digits (`digits`); Mandarin in
    simplified characters (Whisper writes traditional ones as often), each character a word of its own
    (it is written without spaces, so a phrase is found as its characters in a row)."""
    if code == "zh":
        from zhconv import convert  # pyright: ignore[reportMissingTypeStubs]

        return " ".join(HAN.sub(r" \g<0> ", str(convert(text, "zh-hans"))).split())
    return digits(text, code)


def digits(text: str, code: str) -> str:
    """`text` with its number words as digits in language `code` (text2num); unchanged where it has none."""
    lang = LANGUAGES.get(code)
    if lang is None or lang.numbers is None:
        return text
    return alpha2digit(text, lang.numbers)
