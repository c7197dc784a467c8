"""Judges: the offline default (rules + real MiniLM), the LLM judge protocol, the verdict cache."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from support.chat_endpoint import send_chat_reply

from floorbench.scoring.cache import JsonlCache
from floorbench.scoring.judges import (
    JudgeError,
    JudgeInput,
    JudgeVerdict,
    Task,
    Verdict,
    judge_cached,
    make_judge,
    verdict_key,
)
from floorbench.scoring.judges.llm import LLMJudge, parse_reply
from floorbench.scoring.judges.normalize import normalize_tokens
from floorbench.scoring.judges.offline import OfflineJudge


@pytest.fixture(scope="module")
def offline() -> OfflineJudge:
    return OfflineJudge()


def answer(j: OfflineJudge, transcript: str, gold: str, *aliases: str) -> Verdict:
    return j.judge([JudgeInput(Task.answer, transcript, gold=gold, aliases=tuple(aliases))])[0].verdict


def test_number_and_entity_normalisation() -> None:
    assert normalize_tokens("It's $12.00 at the taco place on Fifth") == [
        "it", "12", "at", "the", "taco", "place", "on", "5"
    ]
    assert normalize_tokens("twenty-five dollars, one hundred and twenty people") == ["25", "dollars", "120", "people"]
    assert normalize_tokens("the cheap one or one dollar") == ["the", "cheap", "one", "or", "1", "dollar"]
    assert normalize_tokens("two three, 12.50") == ["2", "3", "12.5"]
    assert normalize_tokens("two oh five, oh well") == ["2", "0", "5", "oh", "well"]


@pytest.mark.parametrize(
    ("transcript", "gold", "expected"),
    [
        ("The cheapest one is the taco of place on 5th, about $9 ahead.", "the taco place", Verdict.correct),
        ("Sure! Great question. It's the taco place.", "the taco place", Verdict.correct),
        ("I think the burger joint on Ninth is the cheapest option.", "the taco place", Verdict.wrong),
        ("It's about nine dollars a head.", "$9 per person", Verdict.correct),
        ("It's about twelve dollars a head.", "$9 per person", Verdict.wrong),
        ("Yeah, they take cards.", "yes", Verdict.correct),
        ("No, they only take cash.", "yes", Verdict.wrong),
        ("The meeting starts at three thirty.", "3:30", Verdict.correct),
        ("The answer is 205.", "2:05", Verdict.correct),
        ("It leaves at two oh five.", "2:05", Verdict.correct),
        ("It leaves at 2:15.", "2:05", Verdict.wrong),
        ("It is 41 dollars in total.", "41 dollars", Verdict.correct),
        ("It is 14 dollars in total.", "41 dollars", Verdict.wrong),
        ("Hmm, let me think about that.", "the taco place", Verdict.wrong),
    ],
)
def test_offline_answer_rules(offline: OfflineJudge, transcript: str, gold: str, expected: Verdict) -> None:
    assert answer(offline, transcript, gold) is expected


def test_offline_answer_meaning_uses_minilm(offline: OfflineJudge) -> None:
    v = offline.judge([JudgeInput(Task.answer, "You should take the subway.", gold="take the metro")])[0]
    # cosine 0.64 against 0.60: within the margin where the meaning check does not decide
    assert v.verdict is Verdict.unsure and "MiniLM" in v.reason and v.rule == "answer.meaning-close"
    v = offline.judge([JudgeInput(Task.answer, "You should walk there.", gold="take the metro")])[0]
    assert v.verdict is Verdict.wrong and "MiniLM" in v.reason


def test_offline_answer_aliases(offline: OfflineJudge) -> None:
    assert answer(offline, "Go with Luigi's.", "the Italian place", "Luigi's") is Verdict.correct


@pytest.mark.parametrize(
    ("transcript", "expected"),
    [
        ("Got it, thanks.", Verdict.backchannel),
        ("Mm-hm.", Verdict.backchannel),
        ("Okay!", Verdict.backchannel),
        ("$12.", Verdict.intrusion),
        ("Twelve dollars.", Verdict.intrusion),
        ("The bus takes about fifteen minutes.", Verdict.intrusion),
        ("Do you want me to check?", Verdict.intrusion),
        ("Okay okay okay okay okay.", Verdict.intrusion),
        ("All right.", Verdict.backchannel),
        ("No problem.", Verdict.backchannel),
    ],
)
def test_offline_intrusion_lexicon(offline: OfflineJudge, transcript: str, expected: Verdict) -> None:
    v = offline.judge([JudgeInput(Task.intrusion, transcript)])[0]
    assert v.verdict is expected, v.reason


@pytest.mark.parametrize(
    "transcript",
    ["Yes.", "No.", "Yeah.", "Nope.", "Yep!", "Nah.", "Absolutely.", "Exactly.", "Of course.", "True.",
     "False.", "Right.", "Wrong.", "Sure.", "Okay, yes.", "No, thanks."],
)
def test_offline_intrusion_a_bare_yes_or_no_after_a_yes_no_question_is_an_answer_either_way(
    offline: OfflineJudge, transcript: str
) -> None:
    """Symmetric: after a yes/no question, "Yes." and "No." both answer it (the lexicon once held
    "yes", "absolutely", "exactly", "of course", "true" but not "no"); after a statement only the
    "no" side stays an answer (tests/test_offline_judge_rules.py)."""
    v = offline.judge([JudgeInput(Task.intrusion, transcript, context="Do they take cards, do you know?")])[0]
    assert v.verdict is Verdict.intrusion, (transcript, v.reason)
    assert v.rule in ("window.assent-answers-question", "window.answer-word"), (transcript, v.reason)
    assert v.reason.startswith(v.rule + ": ")


class CountingJudge:
    name = "counting"
    prompt_version = "t1"

    def __init__(self) -> None:
        self.calls = 0
        self.endpoint = "a"

    def identity(self) -> dict[str, object]:
        return {"endpoint": self.endpoint}

    def judge(self, inputs, on_verdict=None):  # type: ignore[no-untyped-def]
        from floorbench.scoring.judges import JudgeVerdict

        self.calls += len(inputs)
        return [JudgeVerdict(Verdict.correct, "ok") for _ in inputs]


def test_cache_is_keyed_by_judge_prompt_version_and_inputs(tmp_path: Path) -> None:
    j = CountingJudge()
    inputs = [JudgeInput(Task.answer, "a", gold="a"), JudgeInput(Task.answer, "b", gold="a")]
    cache = JsonlCache(tmp_path / "judge.jsonl")
    first = judge_cached(j, inputs, cache)
    assert j.calls == 2 and not any(v.cached for v in first)
    again = judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))  # reloaded from disk
    assert j.calls == 2 and all(v.cached for v in again) and again[0].judge == "counting@t1"
    j.prompt_version = "t2"
    judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    assert j.calls == 4
    j.endpoint = "b"  # same name and prompt, another identity (an LLM judge's base_url)
    judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    assert j.calls == 6


def test_llm_judge_cache_key_includes_the_endpoint() -> None:
    inp = JudgeInput(Task.answer, "x", gold="y")
    a = LLMJudge(model="m", base_url="http://127.0.0.1:1/v1")
    b = LLMJudge(model="m", base_url="http://127.0.0.1:2/v1")
    a2 = LLMJudge(model="m", base_url="http://127.0.0.1:1/v1/")
    assert verdict_key(a, inp) != verdict_key(b, inp)
    assert verdict_key(a, inp) == verdict_key(a2, inp)
    assert a.identity() == {"base_url": "http://127.0.0.1:1/v1", "temperature": 0}


def test_parse_reply() -> None:
    assert parse_reply(Task.answer, '{"verdict": "correct", "reason": "x"}').verdict is Verdict.correct
    assert parse_reply(Task.answer, '{"verdict": "Wrong", "reason": "x"}').verdict is Verdict.wrong
    assert parse_reply(Task.answer, '```json\n{"verdict":"wrong"}\n```').verdict is Verdict.wrong
    assert parse_reply(Task.intrusion, "backchannel").verdict is Verdict.backchannel
    assert parse_reply(Task.answer, "Correct.").verdict is Verdict.correct
    assert parse_reply(Task.answer, "backchannel").verdict is Verdict.unparsable
    assert parse_reply(Task.answer, "correct or wrong, hard to say").verdict is Verdict.unparsable


@pytest.mark.parametrize(
    ("task", "reply"),
    [
        (Task.answer, "Not correct."),
        (Task.answer, '{"verdict": "not correct"}'),
        (Task.answer, '{"verdict": "incorrect", "reason": "x"}'),
        (Task.answer, "The answer is not correct"),
        (Task.answer, "It is correct."),
        (Task.answer, 'Sure:\n```json\n{"verdict":"wrong"}\n```'),
        (Task.answer, 'Not sure. {"verdict": "correct"}'),
        (Task.answer, '{"verdict": ["correct"]}'),
        (Task.answer, '["correct"]'),
        (Task.answer, '{"verdict": "correct"} {"verdict": "wrong"}'),
        (Task.answer, ""),
        (Task.intrusion, "It is NOT an intrusion"),
        (Task.intrusion, "not an intrusion"),
        (Task.intrusion, '{"verdict": "no intrusion"}'),
        (Task.intrusion, '{"verdict": "not a backchannel"}'),
    ],
)
def test_parse_reply_never_reads_a_negation_or_prose_as_a_verdict(task: Task, reply: str) -> None:
    v = parse_reply(task, reply)
    assert v.verdict is Verdict.unparsable and v.reason.startswith("unreadable reply"), reply


def test_parser_version_is_part_of_the_cache_key() -> None:
    """Verdicts cached by the old parser (which read "Not correct." as correct) are never reused."""
    j = LLMJudge(model="m", base_url="http://127.0.0.1:1/v1")
    assert j.prompt_version.endswith("-p2") and j.prompt_version.startswith("v3-")
    # prompt v2 (calibration rules, the explicit yes/no rule for intrusion) never shares v1's cache
    assert LLMJudge(model="m", base_url="http://127.0.0.1:1/v1", prompt="v1").prompt_version.startswith("v1-")


class _Endpoint(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, object]]] = []
    fail_with: ClassVar[int | None] = None
    fail_after: ClassVar[int | None] = None
    """answer this many requests, then fail every later one with HTTP 500"""
    reply: ClassVar[str | None] = None
    """when set, the model's reply to every request, verbatim"""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if type(self).fail_after is not None and len(type(self).seen) > (type(self).fail_after or 0):
            self.send_response(500)
            self.end_headers()
            return
        if type(self).fail_with:
            self.send_response(type(self).fail_with)
            self.end_headers()
            return
        prompt = body["messages"][0]["content"]
        verdict = "correct" if "taco" in prompt.split("Aria's transcript:")[-1] else "wrong"
        if "brief acknowledgement" in prompt:
            verdict = "backchannel" if "Got it" in prompt else "not-a-verdict"
        content = type(self).reply if type(self).reply is not None else json.dumps({"verdict": verdict})
        send_chat_reply(self, content)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Endpoint.seen, _Endpoint.fail_with, _Endpoint.fail_after, _Endpoint.reply = [], None, None, None
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    th = threading.Thread(target=server.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_llm_judge_on_an_openai_compatible_endpoint(endpoint: str, monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("FB_TEST_KEY", "sk-test-secret")
    j = make_judge("llm:test-model", base_url=endpoint, api_key_env="FB_TEST_KEY", concurrency=2)
    assert isinstance(j, LLMJudge) and j.prompt_version.startswith("v3-")
    inputs = [
        JudgeInput(Task.answer, "It's the taco place.", gold="the taco place", context="Which is cheapest?"),
        JudgeInput(Task.answer, "The burger joint.", gold="the taco place"),
        JudgeInput(Task.intrusion, "Got it, thanks.", context="Hey Siri, timer."),
        JudgeInput(Task.intrusion, "Twelve dollars."),
    ]
    cache = JsonlCache(tmp_path / "judge.jsonl")
    verdicts = [v.verdict for v in judge_cached(j, inputs, cache)]
    assert verdicts == [Verdict.correct, Verdict.wrong, Verdict.backchannel, Verdict.unparsable]
    assert _Endpoint.seen[0]["path"] == "/v1/chat/completions"
    assert _Endpoint.seen[0]["auth"] == "Bearer sk-test-secret"
    assert _Endpoint.seen[0]["body"]["model"] == "test-model" and _Endpoint.seen[0]["body"]["temperature"] == 0
    assert "sk-test-secret" not in (tmp_path / "judge.jsonl").read_text()
    assert "sk-test-secret" not in json.dumps(j.settings())
    n = len(_Endpoint.seen)
    judge_cached(j, inputs, cache)
    assert len(_Endpoint.seen) == n  # all cached


def test_llm_judge_raises_instead_of_inventing_verdicts(endpoint: str) -> None:
    _Endpoint.fail_with = 500
    j = LLMJudge(model="m", base_url=endpoint, retries=1)
    with pytest.raises(JudgeError, match="failed \\(HTTP 500\\)"):
        j.judge([JudgeInput(Task.answer, "x", gold="y")])


def test_llm_verdicts_are_cached_as_they_arrive_and_a_rerun_resumes(endpoint: str, tmp_path: Path) -> None:
    """The endpoint answers 3 requests, then fails: the 3 verdicts are in the cache file,
    and the re-run asks the (recovered) endpoint only for the other 3."""
    _Endpoint.fail_after = 3
    j = LLMJudge(model="m", base_url=endpoint, concurrency=1, retries=0)
    inputs = [JudgeInput(Task.answer, f"It's the taco place, number {n}.", gold="the taco place") for n in range(6)]
    with pytest.raises(JudgeError, match=r"failed \(HTTP 500\).*3 of 6 new verdicts .* are cached"):
        judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    lines = (tmp_path / "judge.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(ln)["value"]["verdict"] == "correct" for ln in lines)
    assert len(_Endpoint.seen) == 4  # 3 answered, 1 failed, none started after the failure
    _Endpoint.seen, _Endpoint.fail_after = [], None
    again = judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    assert [v.verdict for v in again] == [Verdict.correct] * 6
    assert [v.cached for v in again] == [True] * 3 + [False] * 3
    assert len(_Endpoint.seen) == 3
    assert all(f"number {n}" in str(r["body"]) for n, r in zip(range(3, 6), _Endpoint.seen, strict=True))


def test_llm_verdicts_in_flight_when_the_endpoint_fails_are_kept(endpoint: str, tmp_path: Path) -> None:
    """With 4 requests in flight, every verdict that came back before or after the failing
    one is cached; only the failed request is asked again."""
    _Endpoint.fail_after = 5
    j = LLMJudge(model="m", base_url=endpoint, concurrency=4, retries=0)
    inputs = [JudgeInput(Task.answer, f"The burger joint, {n}.", gold="the taco place") for n in range(12)]
    with pytest.raises(JudgeError, match="failed"):
        judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    cached = len((tmp_path / "judge.jsonl").read_text().splitlines())
    assert cached == 5 and len(_Endpoint.seen) < 12
    _Endpoint.seen, _Endpoint.fail_after = [], None
    judge_cached(j, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    assert len(_Endpoint.seen) == 12 - cached


def test_llm_judge_endpoint_is_part_of_the_cache_key(endpoint: str, tmp_path: Path) -> None:
    inputs = [JudgeInput(Task.answer, "It's the taco place.", gold="the taco place")]
    judge_cached(LLMJudge(model="m", base_url=endpoint), inputs, JsonlCache(tmp_path / "judge.jsonl"))
    assert len(_Endpoint.seen) == 1
    other = LLMJudge(model="m", base_url=endpoint + "/")  # the same endpoint, spelled with a slash
    assert judge_cached(other, inputs, JsonlCache(tmp_path / "judge.jsonl"))[0].cached
    moved = LLMJudge(model="m", base_url=endpoint.replace("127.0.0.1", "localhost"))
    assert not judge_cached(moved, inputs, JsonlCache(tmp_path / "judge.jsonl"))[0].cached
    assert len(_Endpoint.seen) == 2


def test_a_torn_cache_line_does_not_swallow_the_next_verdict(tmp_path: Path) -> None:
    """A run killed mid-write leaves a line without its newline; the resumed run's first
    verdict must land on a line of its own, or it is lost with the torn one."""
    path = tmp_path / "judge.jsonl"
    JsonlCache(path).put("a", {"verdict": "correct", "reason": "r"})
    with path.open("a", encoding="utf-8") as f:
        f.write('{"key": "b", "value": {"verd')  # the kill
    resumed = JsonlCache(path)
    assert len(resumed) == 1
    resumed.put("c", {"verdict": "wrong", "reason": "r"})
    again = JsonlCache(path)
    assert again.get("a") is not None and again.get("c") == {"verdict": "wrong", "reason": "r"} and len(again) == 2


@pytest.mark.parametrize(
    ("reply", "metric"),
    [("Not correct.", "conditional_accuracy"), ('{"verdict": "not correct"}', "conditional_accuracy"),
     ("It is NOT an intrusion", "silence_keeping")],
)
def test_an_unreadable_reply_is_a_failure_shown_in_the_item(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str, metric: str
) -> None:
    """Through the content stage: the LLM's negated reply becomes an `unparsable_verdict`
    item that fails and carries the reply in `judge_reason` (items.jsonl)."""
    import numpy as np

    from floorbench.records import DialogueTurn, DialogueTurns
    from floorbench.scoring.asr import Transcriber
    from floorbench.suites.mpe.content import PendingDialogue, fill_content
    from floorbench.suites.mpe.items import Item, Kind, Metric

    _Endpoint.reply = reply
    label = "T" if metric == "conditional_accuracy" else "N2"
    turns = DialogueTurns(scenario_id="s1", pair_id="p1", condition="explicit", turns=[
        DialogueTurn(turn_id=1, speaker="A", label=label, start_ms=0, end_ms=1000, text="Which is cheapest?",
                     gold="the taco place" if label == "T" else None)])
    item = Item(scenario_id="s1", pair_id="p1", condition="explicit", metric=Metric(metric), turn_id=1, label=label,
                counted=True, kind=Kind.correct, reason="", window_start_ms=1000, window_end_ms=3000,
                speech=[(1200, 2200)], speech_ms=1000, gold="the taco place" if label == "T" else None,
                needs_transcript=True)
    asr = Transcriber("tiny.en")
    monkeypatch.setattr(asr, "transcribe", lambda clips, progress=None: ["It's the taco place."] * len(clips))
    fill_content([PendingDialogue(turns=turns, items=[item], read_audio=lambda: np.zeros(48000, np.int16))],
                 asr, LLMJudge(model="m", base_url=endpoint), JsonlCache(tmp_path / "judge.jsonl"))
    assert item.passed is False and item.kind is Kind.unparsable_verdict and item.verdict == "unparsable"
    assert item.judge_reason == f"unreadable reply: {reply!r}"
    line = json.loads(item.model_dump_json())
    assert line["kind"] == "unparsable_verdict" and reply in line["judge_reason"]


@pytest.mark.parametrize(
    ("transcript", "gold", "aliases", "expected"),
    [
        # numbers said in words the v1 normaliser did not read, both ways
        ("A hundred and thirty euros.", "130 euros", (), Verdict.correct),
        ("One thirty.", "130 euros", (), Verdict.correct),
        ("It's €130.", "one hundred and thirty euros", (), Verdict.correct),
        ("Red kite seven.", "redkite7", (), Verdict.correct),
        ("Red kite eleven.", "redkite7", (), Verdict.wrong),
        ("A B one two.", "AB12", (), Verdict.correct),
        ("Forty seventy-one.", "4071", (), Verdict.correct),
        # equivalent quantities, and another unit is another answer
        ("A hundred and eighty minutes.", "3 hours", ("180 minutes",), Verdict.correct),
        ("One and a half hours.", "an hour and a half", (), Verdict.correct),
        ("Half a mile.", "0.5 miles", (), Verdict.correct),
        ("Nine thousand metres.", "9 kilometres", (), Verdict.correct),
        ("130 dollars.", "130 euros", ("€130", "130"), Verdict.wrong),
        ("35 miles.", "35 kilometres", (), Verdict.wrong),
        # times of day
        ("Twenty-five to eight.", "7:35", ("7:35 am",), Verdict.correct),
        ("Half six.", "6:30", ("6:30 pm", "18:30"), Verdict.correct),
        ("The latest you can leave is 950.", "9:50", (), Verdict.correct),
        ("6:30 am.", "6:30", ("6:30 pm",), Verdict.wrong),
        ("Eleven thirty.", "11:00", ("11:00 am", "11"), Verdict.wrong),
        ("At noon.", "12:00", ("12:00 pm",), Verdict.correct),
        # hedged, listed, contradicted, negated or corrected answers
        ("Monday or Friday.", "Monday", (), Verdict.wrong),
        ("Six thirty or seven.", "6:30", ("half past six",), Verdict.wrong),
        ("Omar and Lena both.", "Omar", (), Verdict.wrong),
        ("The pasta place, though the sushi bar is cheaper.", "the pasta place", (), Verdict.wrong),
        ("The pasta place, though it's a long walk.", "the pasta place", (), Verdict.correct),
        ("Not the taco place, the burger place.", "the taco place", (), Verdict.wrong),
        ("It's the taco place, not the burger place.", "the taco place", (), Verdict.correct),
        ("I think it's 250. No, sorry, 215 pounds.", "215 pounds", (), Verdict.correct),
        ("That was 180 dollars, not 118.", "118 dollars", (), Verdict.wrong),
        ("96 euros in total, so 24 euros each.", "24 euros", (), Verdict.correct),
        ("Another two miles or so.", "2 miles", (), Verdict.correct),
        ("Two forty each, or maybe two fifty with the tip.", "240 pounds", (), Verdict.wrong),
        # names misheard by ASR, by sound; yes/no without a yes
        ("Kenzie.", "Kenji", (), Verdict.correct),
        ("Frame is navigating.", "Freya", (), Verdict.wrong),
        ("He did.", "yes", (), Verdict.correct),
        ("It's hard to say.", "yes", (), Verdict.wrong),
    ],
)
def test_offline_answer_reads_quantities_and_commitment(
    offline: OfflineJudge, transcript: str, gold: str, aliases: tuple[str, ...], expected: Verdict
) -> None:
    v = offline.judge([JudgeInput(Task.answer, transcript, gold=gold, aliases=aliases)])[0]
    assert v.verdict is expected, v.reason


@pytest.mark.parametrize(
    ("transcript", "expected"),
    [
        ("Oh no.", Verdict.backchannel),  # a reaction, not an answer "no"
        ("Oh dear.", Verdict.backchannel),
        ("Sorry, go ahead.", Verdict.backchannel),
        ("Mm-hmm, mm-hmm.", Verdict.backchannel),
        ("M-M-H-M-M.", Verdict.backchannel),
        ("Brilliant.", Verdict.backchannel),
        ("Mm-hmm, mm-hmm, mm-hmm, mm-hmm, mm-hmm.", Verdict.intrusion),
        ("Yeah, yeah.", Verdict.intrusion),
        ("Sorry?", Verdict.intrusion),
        ("Good idea.", Verdict.intrusion),
    ],
)
def test_offline_intrusion_reactions_and_hums(offline: OfflineJudge, transcript: str, expected: Verdict) -> None:
    v = offline.judge([JudgeInput(Task.intrusion, transcript)])[0]
    assert v.verdict is expected, v.reason


def test_quantity_readings() -> None:
    from floorbench.scoring.judges.quantities import lex, mentions
    from floorbench.scoring.judges.quantity_match import Quantity, same_quantity

    assert lex("It's $42.50, at 7:35 a.m.") == ["it", "s", "42.50", "dollars", ",", "at", "7:35", "am"]
    [m] = mentions(lex("one thirty"))
    assert m.numbers == {1.0, 30.0, 130.0} and m.clock == {90}
    [m] = mentions(lex("eight hours and forty minutes"))
    assert m.duration == 520
    [m] = mentions(lex("four oh seven one"))
    assert m.digits == "4071" and 4071.0 in m.numbers
    [m] = mentions(lex("quarter to eight in the evening"))
    assert (m.clock, m.half) == ({7 * 60 + 45}, "pm")
    [m] = mentions(lex("for more miles"))  # a recogniser's "for" before a unit is the number
    assert same_quantity(Quantity("number", 4, "mile"), m)
    assert not same_quantity(Quantity("number", 96, "usd"), mentions(lex("96 cents"))[0])


def test_an_unsure_verdict_is_kept_out_of_the_rate_and_counted_beside_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the content stage and the metrics: the offline judge's unsure item is in no denominator,
    has kind `unsure`, and scores.json counts it beside the metric (the report shows it)."""
    import numpy as np

    from floorbench.records import DialogueTurn, DialogueTurns
    from floorbench.scoring.asr import Transcriber
    from floorbench.suites.mpe.content import PendingDialogue, fill_content
    from floorbench.suites.mpe.items import Item, Kind, Metric
    from floorbench.suites.mpe.metrics import condition_scores
    from floorbench.suites.mpe.report_tables import fmt_score

    turns = DialogueTurns(scenario_id="s1", pair_id="p1", condition="explicit", turns=[
        DialogueTurn(turn_id=1, speaker="A", label="N2", start_ms=0, end_ms=1000, text="Ola, the boiler broke.")])

    def window(turn_id: int) -> Item:
        return Item(scenario_id="s1", pair_id="p1", condition="explicit", metric=Metric.silence_keeping,
                    turn_id=turn_id, label="N2", counted=True, kind=Kind.intrusion, reason="", window_start_ms=1000,
                    window_end_ms=3000, speech=[(1200, 2200)], speech_ms=1000, needs_transcript=True)

    items = [window(1), window(1)]
    asr = Transcriber("tiny.en")
    said = iter(["How Tuesday!", "Oh no."])  # a part the grammar cannot type; a reaction
    monkeypatch.setattr(asr, "transcribe", lambda clips, progress=None: [next(said) for _ in clips])
    fill_content([PendingDialogue(turns=turns, items=items, read_audio=lambda: np.zeros(48000, np.int16))],
                 asr, OfflineJudge(), JsonlCache(tmp_path / "judge.jsonl"))
    unsure, kept = items
    assert (unsure.counted, unsure.passed, unsure.kind, unsure.verdict) == (False, None, Kind.unsure, "unsure")
    assert "window.untyped" in unsure.reason and kept.passed is True and kept.counted
    score = condition_scores(items, ["s1"], resamples=0).metrics[Metric.silence_keeping.value]
    assert (score.n, score.passed, score.unsure) == (1, 1, 1)
    assert "unsure 1" in fmt_score(score)
    sensitivity = condition_scores(items, ["s1"], resamples=0).silence_sensitivity["500"]
    assert sensitivity.n == 2  # the VAD-only diagnostic needs no verdict: the unsure window is in it


class _Fixed:
    """A stand-in second judge that records what it is asked."""

    name, prompt_version = "fixed", "1"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def identity(self) -> dict[str, object]:
        return {}

    def judge(self, inputs, on_verdict=None):  # type: ignore[no-untyped-def]
        out = []
        for n, inp in enumerate(inputs):
            self.asked.append(inp.transcript)
            v = JudgeVerdict(Verdict.intrusion, "fixed: says intrusion", rule="fixed")
            out.append(v)
            if on_verdict is not None:
                on_verdict(n, v)
        return out


def test_offline_plus_a_second_judge_sends_only_the_unsure_items(tmp_path: Path) -> None:
    from floorbench.scoring.judges.cascade import CascadeJudge

    second = _Fixed()
    judge = CascadeJudge(OfflineJudge(), second)  # type: ignore[arg-type]
    inputs = [JudgeInput(Task.intrusion, t, context="Ola, the boiler broke.") for t in ("Oh no.", "How Tuesday!", "9.")]
    got = judge_cached(judge, inputs, JsonlCache(tmp_path / "judge.jsonl"))
    assert second.asked == ["How Tuesday!"]
    assert [v.verdict for v in got] == [Verdict.backchannel, Verdict.intrusion, Verdict.intrusion]
    assert "offline unsure: window.untyped" in got[1].reason and judge.name == "offline+fixed"
    again = judge_cached(judge, inputs, JsonlCache(tmp_path / "judge.jsonl"))  # cached: nothing asked twice
    assert second.asked == ["How Tuesday!"] and [v.cached for v in again] == [True] * 3
    with pytest.raises(JudgeError):
        make_judge("offline+bogus")


def test_the_rules_version_hashes_every_rule_module_the_offline_judge_loads():
    """A module of rules that the version does not hash would let cached verdicts of older rules be reused."""
    import sys

    import floorbench.scoring.judges.offline as offline

    offline.OfflineJudge  # noqa: B018 (the judge's rules are imported with it)
    loaded = {
        name.rsplit(".", 1)[1] + ".py"
        for name in sys.modules
        if name.startswith("floorbench.scoring.judges.") and name.count(".") == 3
    }
    rules = set(offline.rule_modules())
    assert "number_forms.py" in rules and "answer_rules.py" in rules
    assert loaded - offline.NOT_RULES <= rules
    assert not rules & offline.NOT_RULES
