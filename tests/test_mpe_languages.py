"""Suite mpe beyond English: the generator per language, the oracle and schedule that carry the language, and
the scorer's content stage, which leaves content it cannot judge `unsure` instead of judging it in English.

Fast: nothing is spoken or heard (the live Spanish case is in tests/test_languages_live.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from floorbench.scenarios.files import dump_scenario
from floorbench.speech.languages import LANGUAGES
from floorbench.suites.mpe.generate import generate_pairs
from floorbench.suites.mpe.generate_languages import generate_language_pairs, write_language_suite
from floorbench.suites.mpe.lines import FAMILIES, LINES, chinese_numeral
from floorbench.suites.mpe.schema import Label, Scenario

CODES = ("es", "de", "zh")
_ZH_NUMBER = re.compile(r"([零一二三四五六七八九十]+)块钱")


def _prices(text: str, code: str) -> list[int]:
    """The prices a turn says (digits, or Mandarin numerals before 块钱)."""
    if code == "zh":
        table = {chinese_numeral(n): n for n in range(100)}
        return [table[m] for m in _ZH_NUMBER.findall(text)]
    return [int(m) for m in re.findall(r"\b(\d+) euro", text, re.IGNORECASE)]


@pytest.mark.parametrize("code", CODES)
def test_the_generator_writes_valid_pairs_in_the_language_with_a_gold_computed_from_the_facts(code: str) -> None:
    families: set[str] = set()
    bank = LINES[code]
    for ex, im in generate_language_pairs(40, seed=5, code=code):
        for s in (ex, im):
            assert s.language == code and {sp.voice for sp in s.speakers.values()} == {LANGUAGES[code].voice}
            assert len(s.speakers) in (3, 4) and all(sp.name in bank.female + bank.male for sp in s.speakers.values())
        req, before = ex.request, [t.text for t in ex.turns if t.id < ex.request.id]
        family = str(ex.meta["task"])
        families.add(family)
        if family == "sum_cost":
            said = [n for text in before for n in _prices(text, code)]
            assert len(said) == 2 and req.gold is not None
            assert str(sum(said)) in req.gold and str(sum(said)) in req.gold_aliases, (said, req.gold)
        else:  # who brings it, where it is: the gold is said before the request
            assert req.gold is not None and any(req.gold in text for text in before), (req.gold, before)
        assert "Aria" in req.text and "Aria" not in im.request.text
        for t in ex.turns:
            if t.label is Label.N4Q:
                assert t.attempt and "Aria" in t.text
    assert families == set(FAMILIES)


@pytest.mark.parametrize("code", CODES)
def test_the_same_seed_writes_the_same_files_and_english_files_record_no_language(tmp_path: Path, code: str) -> None:
    a = write_language_suite(tmp_path / "a", 3, seed=9, code=code)
    b = write_language_suite(tmp_path / "b", 3, seed=9, code=code)
    files = sorted(p.relative_to(a) for p in a.rglob("*.yaml"))
    assert len(files) == 7 and files == sorted(p.relative_to(b) for p in b.rglob("*.yaml"))
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    assert f"language: {code}" in (a / files[1]).read_text()
    ex, _ = next(generate_pairs(1, seed=9))
    assert ex.language == "en" and "language" not in dump_scenario(ex)  # English files as before


def test_a_scenario_with_a_voice_of_another_language_or_an_unknown_language_is_refused(tmp_path: Path) -> None:
    from floorbench.scenarios.validate import ScenarioError
    from floorbench.suites.mpe.validate import load_scenario, parse_scenario

    ex, _ = next(generate_language_pairs(1, seed=1, code="de"))
    data = ex.model_dump(mode="json")
    data["speakers"]["A"]["voice"] = "piper:joe"
    with pytest.raises(ScenarioError, match="speaker A: voice 'piper:joe' speaks English, not German; use espeak:de"):
        load_scenario(tmp_path / "x.yaml", data)
    with pytest.raises(ScenarioError, match="unknown language 'fr'") as e:
        parse_scenario(tmp_path / "x.yaml", ex.model_dump(mode="json") | {"language": "fr"})
    assert "\n" not in str(e.value)


def test_generate_with_an_unknown_language_or_with_llm_is_one_line(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.cli_lines import one_error_line

    line = one_error_line(capsys, ["generate", "--suite", "mpe", "--language", "fr", "--out", str(tmp_path / "x")])
    assert line.startswith("error: --language: unknown language 'fr'; use one of en, es, de, zh")
    line = one_error_line(capsys, ["generate", "--suite", "mpe", "--language", "zh", "--llm", str(tmp_path / "c.yaml"),
                                   "--out", str(tmp_path / "y")])
    assert line == "error: --llm writes English turns only; drop --llm or --language zh"


@pytest.mark.parametrize("code", CODES)
def test_the_oracle_answers_in_the_language_with_its_voice_and_the_schedule_records_it(code: str) -> None:
    from floorbench.processors.reference import OracleSettings
    from floorbench.suites.mpe.oracle import oracle
    from floorbench.suites.mpe.schedule import MpeSchedule

    ex, _ = next(generate_language_pairs(1, seed=2, code=code))
    plan = oracle(ex, None, OracleSettings(voice="flite:kal16"))  # an English voice: the language's is used
    assert plan.voice == LANGUAGES[code].voice
    (answer,) = [c.text for c in plan.clips if c.label == "T"]
    assert answer == LINES[code].answer.format(gold=ex.request.gold)
    assert MpeSchedule(ex, None, {}, 16000).describe()["language"] == code
    en, _ = next(generate_pairs(1, seed=2))
    assert oracle(en, None, OracleSettings()).voice is None
    assert "language" not in MpeSchedule(en, None, {}, 16000).describe()


def test_content_the_judge_cannot_judge_is_left_unsure_with_one_line() -> None:
    import numpy as np

    from floorbench.records import DialogueTurns
    from floorbench.speech.languages import content_refused
    from floorbench.suites.mpe.content import PendingDialogue, not_judged
    from floorbench.suites.mpe.items import Item, Kind, Metric

    def item(metric: Metric, needs: bool) -> Item:
        return Item(scenario_id="s", pair_id="p", condition="explicit", metric=metric, turn_id=1, label="T",
                    counted=True, kind=Kind.responded, reason="", window_start_ms=0, window_end_ms=1,
                    needs_transcript=needs)

    items = [item(Metric.conditional_accuracy, True), item(Metric.silence_keeping, True),
             item(Metric.fresh_onset_rate, False)]
    turns = DialogueTurns.model_validate({"scenario_id": "s", "turns": []})
    why = content_refused(LANGUAGES["es"], "offline")
    assert why is not None and content_refused(LANGUAGES["es"], "llm:gpt-4o-mini") is None
    left = not_judged([PendingDialogue(turns=turns, items=items, read_audio=lambda: np.zeros(1, np.int16))], why)
    assert left == "1 answer(s) and 1 speech window(s)"
    assert [(i.kind, i.counted, i.needs_transcript) for i in items[:2]] == [(Kind.unsure, False, False)] * 2
    assert items[0].reason.startswith("not judged: content metrics are not scored in Spanish")
    assert items[2].kind is Kind.responded and items[2].counted  # timing items untouched


def test_every_scenario_field_round_trips_through_yaml() -> None:
    import yaml

    ex, _ = next(generate_language_pairs(1, seed=4, code="zh"))
    back = Scenario.model_validate(yaml.safe_load(dump_scenario(ex)))
    assert back == ex and back.language == "zh"


@pytest.mark.parametrize(("code", "judge", "heard_with"), [("de", "llm:some-model", ("base", "de")),
                                                           ("en", "offline", ("tiny.en", "en"))])
def test_the_content_stage_hears_each_language_in_it_and_judges_it_where_the_judge_can(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, code: str, judge: str, heard_with: tuple[str, str]) -> None:
    """A German run with an LLM judge is heard by the multilingual `base` told German, then judged; an English
    one as before (stand-ins for the transcriber and the judge: what is asked of them is checked)."""
    from types import SimpleNamespace

    import floorbench.scoring.asr as asr
    import floorbench.scoring.judges as judges
    import floorbench.suites.mpe.content as content
    from floorbench.suites.mpe.items import Item, Kind, Metric
    from floorbench.suites.mpe.score import ScoreOptions, _content_stage

    made: list[tuple[str, str]] = []
    judged: list[int] = []
    monkeypatch.setattr(asr, "Transcriber", lambda model, **kw: made.append((model, kw["language"])) or model)
    monkeypatch.setattr(judges, "make_judge", lambda spec, **kw: spec)
    monkeypatch.setattr(content, "fill_content", lambda pending, tr, j, cache, progress: judged.append(len(pending)))
    it = Item(scenario_id="s", pair_id="p", condition="explicit", metric=Metric.conditional_accuracy, turn_id=2,
              label="T", counted=True, kind=Kind.responded, reason="", window_start_ms=0, window_end_ms=1,
              needs_transcript=True)
    src = SimpleNamespace(turns=object(), model_wav=tmp_path / "model.wav", time_map=None, folder=tmp_path,
                          meta=SimpleNamespace(schedule={"language": code} if code != "en" else {}))
    models, used, lines = _content_stage([(src, [it])], ScoreOptions(judge=judge), tmp_path, None)  # type: ignore[list-item]
    assert made == [heard_with] and judged == [1] and used == judge and lines == []
    assert models == ({"en": "tiny.en", code: "base"} if code != "en" else {"en": "tiny.en"})
