"""Conversations beyond English: the language registry, voices, numbers, ASR and the bad inputs.

Fast: espeak-ng speaks a few words; one German sentence goes through the packaged multilingual
Whisper `base` (joined from its two packages on first use, ~1 s; then ~3 s to transcribe).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from floorbench.scoring.asr import AsrError, Transcriber
from floorbench.speech.languages import (
    LANGUAGES,
    LanguageError,
    check_voice,
    content_refused,
    digits,
    language,
    voice_language,
)
from floorbench.suites.agent.score import asr_for
from floorbench.suites.agent.validate import AgentTestError, load_test_file
from floorbench.suites.agent.words import says


def test_an_unknown_language_is_one_line() -> None:
    with pytest.raises(LanguageError) as e:
        language("fr", "tests/a.yaml: language")
    msg = str(e.value)
    assert msg.startswith("tests/a.yaml: language: unknown language 'fr'; use one of en, es, de, zh") and "\n" not in msg
    assert language("de", "x").whisper == "de" and language("zh", "x").voice == "espeak:cmn"


def test_a_voice_must_speak_the_language() -> None:
    assert voice_language("piper:joe") == "en" and voice_language("espeak:cmn") == "zh"
    assert voice_language("service:alloy") is None  # the operator's voice: not known here, accepted
    check_voice("espeak:es", LANGUAGES["es"], "x")
    check_voice("service:alloy", LANGUAGES["es"], "x")
    with pytest.raises(LanguageError) as e:
        check_voice("piper:joe", LANGUAGES["es"], "t.yaml: test greet")
    assert str(e.value) == ("t.yaml: test greet: voice 'piper:joe' speaks English, not Spanish; use espeak:es "
                            "(or another Spanish voice)")


def write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "t.yaml"
    f.write_text(text, encoding="utf-8")
    return f


def test_a_test_file_names_its_language(tmp_path: Path) -> None:
    tests = load_test_file(write(tmp_path, "language: es\nvoice: espeak:es\ntests:\n  - name: hola\n    steps:\n"
                                           "      - say: Hola, ¿a qué hora sale el tren?\n        expect:\n"
                                           "          contains: nueve\n"))
    assert tests[0].language == "es"
    de = load_test_file(write(tmp_path, "voice: espeak:de\ntests:\n  - name: hallo\n    language: de\n    steps:\n"
                                        "      - say: Hallo\n"))
    assert de[0].language == "de"


@pytest.mark.parametrize(("yaml", "why"), [
    ("language: fr\ntests:\n  - name: a\n    steps:\n      - say: Bonjour\n", "language: unknown language 'fr'"),
    ("language: es\nvoice: piper:joe\ntests:\n  - name: a\n    steps:\n      - say: Hola\n",
     "test a: voice 'piper:joe' speaks English, not Spanish; use espeak:es"),
    ("language: de\nvoice: espeak:de\ntests:\n  - name: a\n    steps:\n      - say: Hallo\n        voice: flite:slt\n",
     "test a: step 1: voice 'flite:slt' speaks English, not German"),
    ("language: es\nvoice: espeak:es\ntests:\n  - name: a\n    steps:\n      - say: Hola\n      - branch:\n"
     "          rules:\n            - intent: yes\n              say: Bien\n          otherwise:\n            say: Vale\n",
     "test a: step 2: intent rules read English only, not Spanish; use contains: or matches: in this test"),
])
def test_bad_languages_in_a_test_file_are_one_line(tmp_path: Path, yaml: str, why: str) -> None:
    with pytest.raises(AgentTestError) as e:
        load_test_file(write(tmp_path, yaml))
    assert why in str(e.value) and "\n" not in str(e.value)


def test_numbers_match_in_words_or_digits_per_language() -> None:
    assert says("el total son cuarenta y dos euros", "42 euros", "es")  # ("veintiún", apocopated, stays a word)
    assert says("der Zug fährt um 9 Uhr 15", "neun Uhr fünfzehn", "de")
    assert not says("der Zug fährt um 9 Uhr 15", "zehn Uhr", "de")
    assert says("twenty one dollars", "21", "en") and not says("twenty one dollars", "21")  # English: asked for
    assert digits("九点十五分", "zh") == "九点十五分"  # no number rules for Mandarin: compared as written
    assert says("我們星期一到星期五營業。", "星期一", "zh")  # Whisper's traditional characters, a simplified phrase
    assert not says("我们先提到", "星期", "zh") and not says("星期", "星期一", "zh")


def test_content_judging_is_refused_where_the_offline_judge_has_no_rules() -> None:
    assert content_refused(LANGUAGES["en"], "offline") is None
    assert content_refused(LANGUAGES["es"], "llm:gpt-4o-mini") is None
    why = content_refused(LANGUAGES["de"], "offline")
    assert why is not None and why.startswith("content metrics are not scored in German") and "\n" not in why


def test_an_english_only_asr_is_refused_for_another_language() -> None:
    with pytest.raises(AsrError) as e:
        Transcriber("tiny.en", language="es")
    assert "hears English only, not 'es'; use --asr base" in str(e.value) and "\n" not in str(e.value)
    assert asr_for("tiny.en", "de") == "base" and asr_for("tiny.en", "en") == "tiny.en"
    assert asr_for("small", "es") == "small"


def test_a_german_caller_line_is_heard_in_german() -> None:
    from floorbench.speech.tts import synthesize

    x = synthesize("Wir haben von Montag bis Freitag geöffnet.", "espeak:de", 16000).astype(np.float32) / 32768
    text = Transcriber("base", language="de").transcribe([x])[0]
    assert says(text, "Montag bis Freitag", "de"), text  # measured: heard word for word


def test_the_oracle_answers_in_the_tests_language_with_a_voice_that_speaks_it(tmp_path: Path) -> None:
    from floorbench.processors.reference import OracleSettings
    from floorbench.suites.agent.oracle import PHRASES, reply_voice, said_words

    assert set(PHRASES) == set(LANGUAGES)  # every language the registry offers has the oracle's sentences
    assert said_words(["tomate"], "es") == "La palabra es tomate."
    assert said_words(["Montag", "Freitag"], "de") == "Die Wörter sind Montag und Freitag."
    (test,) = load_test_file(write(tmp_path, "language: es\nvoice: espeak:es\ntests:\n  - name: hola\n    steps:\n"
                                             "      - say: Hola.\n        expect:\n          contains: tomate\n"))
    s: Any = test  # reply_voice reads the scenario's language only
    assert reply_voice(s, OracleSettings(voice="flite:kal16")) == "espeak:es"  # English voice: the test's is used
    assert reply_voice(s, OracleSettings(voice="espeak:es")) is None  # already speaks it


def test_espeak_speaks_mandarin_through_its_pinyin_voice_and_slower_beyond_english() -> None:
    from floorbench.speech.tts_espeak import espeak_args

    assert espeak_args("cmn")[:2] == ["-v", "cmn-latn-pinyin"]  # `cmn` reads its pinyin as English
    assert espeak_args("es") == ["-v", "es", "-s", "110", "-g", "8"] and espeak_args("en-us") == ["-v", "en-us"]


def _run_held_in(root: Path, code: str) -> Path:
    """A run folder of one trial whose meta.json records the language it was held in (nothing else scored)."""
    import json

    d = root / "q1"
    d.mkdir(parents=True)
    (root / "run.json").write_text("{}")
    (d / "meta.json").write_text(json.dumps({
        "floorbench_version": "test", "scenario_id": "q1", "pair_id": "q1", "condition": "explicit", "suite": "av",
        "room": "r", "created_wall_ns": 0, "anchor": {"monotonic_ns": 0, "wall_ns": 0}, "outcome": "completed",
        "schedule": {"policy": "av", "language": code}}))
    return root


def test_floorbench_score_refuses_to_judge_content_in_a_language_without_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from floorbench.scoring.held_in import held_in, refuse_content
    from tests.support.cli_lines import one_error_line

    run = _run_held_in(tmp_path / "run", "de")
    assert held_in(run) == {"de"} and held_in(tmp_path / "nowhere") == set()
    refuse_content(run, "llm:gpt-4o-mini")  # an LLM judge reads German: not refused
    line = one_error_line(capsys, ["score", str(run), "--out", str(tmp_path / "scored")])
    assert line == (f"error: {run}: content metrics are not scored in German: the offline judge has rules for "
                    "English only; use --judge llm:<model> (an LLM judge reads German)")
    assert not (tmp_path / "scored").exists()  # refused before anything was written


@pytest.mark.parametrize("code", ["es", "de", "zh"])
def test_the_turns_generator_writes_conversations_in_a_language_the_oracle_answers_in(code: str) -> None:
    from floorbench.processors.reference import OracleSettings
    from floorbench.suites.turns.generate import TURNS, generate_dialogues
    from floorbench.suites.turns.oracle import oracle
    from floorbench.suites.turns.phrases import BANKS

    assert all(len(BANKS[code].turns[k]) == len(v) for k, v in TURNS.items())  # the English banks, translated
    scenarios = generate_dialogues(5, seed=3, language=code)
    own = {t for lines in BANKS[code].turns.values() for line in lines for t in line}
    own |= {*BANKS[code].backchannels, *BANKS[code].interrupts, *BANKS[code].background, BANKS[code].go_ahead}
    for s in scenarios:
        assert s.language == code and {sp.voice for sp in s.speakers.values()} == {LANGUAGES[code].voice}
        for t in s.turns:  # every line from the language's bank (a turn said whole is its two parts joined)
            assert t.text in own or any(t.text == f"{a} {b}" for a, b, _ in BANKS[code].turns[s.conversation_type])
            assert t.reply is None or t.reply in own
    plan = oracle(scenarios[0], None, OracleSettings(voice="flite:kal16"))
    assert plan.voice == LANGUAGES[code].voice  # an English voice answers in the conversation's own
    assert oracle(generate_dialogues(1, seed=3)[0], None, OracleSettings()).voice is None  # English: as before
