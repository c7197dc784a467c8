"""Scoring what the live spine records: the oracle scores ≈ 1 on every capacity, eager intrudes.

Real LiveKit server, real rooms, real model processes (the reference agents),
then `floorbench score` and `floorbench report` on the run directories.
"""

from __future__ import annotations

import json
import re
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from support.scoring_checks import assert_presence_identity
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.scoring.judges.normalize import normalize_tokens

ORACLE_PREFIX = ["the", "answer", "is"]
"""the oracle says "The answer is {gold}." (OracleSettings.answer_template)"""
MISHEARD_MIN_SIMILARITY = 0.6
"""how close a misheard gold must stay to the gold: difflib's ratio of the normalized words
(numbers as digits). "aching dollars" heard for "18 dollars" is 0.67, "knife oclock" for
"9 oclock" 0.70, "$8.00" (read as "8 dollars", `spoken_money`) 0.95; another answer of the tiny suite ("the taco place", "18 dollars") against
"9 oclock" is at most 0.36"""

pytestmark = [pytest.mark.live, pytest.mark.slow]


def spoken_money(transcript: str) -> str:
    """Whisper writes a sum as "$18" or "$8.00", which `normalize_tokens` reads as a bare number: say the
    currency as the gold says it ("18 dollars"), so the heard sum and the gold compare like with like."""
    return re.sub(r"\$\s?(\d+(?:,\d{3})*(?:\.\d+)?)", r"\1 dollars", transcript)


def assert_oracle_answers_heard(items: list[dict], other_answers: list[str] | None = None) -> None:  # type: ignore[type-arg]
    """Every oracle answer is judged correct, or is a miss of the ASR shown on the transcript itself.

    The oracle speaks "The answer is {gold}."; tiny.en over the WebRTC path can
    mishear the gold. A wrong verdict is excused only when the transcript
    shows that: it begins with the oracle's own words, holds none of the
    gold's forms (were one there, the judge would be wrong, not the ASR), and
    what it heard instead is a mishearing, not another answer: close to the
    gold, or, where `other_answers` (the suite's other golds) are given, none
    of them. The second, looser form is for rooms at once on a loaded
    machine, where CI has heard a room whose timing held far from its gold.
    """
    acc = [i for i in items if i["metric"] == "conditional_accuracy"]
    assert acc and all(i["counted"] for i in acc), acc  # the oracle answers every request in time
    for it in acc:
        heard = normalize_tokens(spoken_money(it["transcript"] or ""))
        assert heard[:3] == ORACLE_PREFIX, it  # the oracle's sentence, in the response window
        if it["kind"] == "correct":
            continue
        assert it["kind"] == "wrong", it
        said, gold = heard[3:], normalize_tokens(it["gold"])
        assert not _holds(said, gold), f"the judge rejected a transcript holding the gold: {it}"
        where = f"{it['scenario_id']}: heard {it['transcript']!r} for the gold {it['gold']!r}"
        if other_answers is not None:
            others = [normalize_tokens(a) for a in other_answers if normalize_tokens(a) != gold]
            assert not any(_holds(said, o) for o in others), f"{where}: another answer of the suite; {it}"
            continue
        similarity = SequenceMatcher(None, " ".join(said), " ".join(gold)).ratio()
        assert similarity >= MISHEARD_MIN_SIMILARITY, (
            f"{where} (similarity {similarity:.2f} < {MISHEARD_MIN_SIMILARITY}); the item: {it}")


def _holds(words: list[str], part: list[str]) -> bool:
    return any(words[k : k + len(part)] == part for k in range(len(words)))


def score_cli(run: Path, out: Path) -> dict:  # type: ignore[type-arg]
    res = CliRunner().invoke(app, ["score", str(run), "--out", str(out), "--resamples", "1000", "--quiet"])
    assert res.exit_code == 0, res.output
    return json.loads((out / "scores.json").read_text())


def test_oracle_near_one_and_eager_intrudes(
    tmp_path: Path, oracle_tiny_scores: tuple[dict, Path], eager_tiny_run: Path  # type: ignore[type-arg]
) -> None:
    oracle, scored_oracle = oracle_tiny_scores  # the session's shared oracle run of the four scenarios, scored
    eager = score_cli(eager_tiny_run.parent, tmp_path / "scored-eager")  # the session's shared eager room

    assert oracle["run"] == "oracle" and oracle["scenarios"]["scored"] == 4
    items = [json.loads(x) for x in (scored_oracle / "items.jsonl").read_text().splitlines()]
    failed = [(i["scenario_id"], i["metric"], i["kind"], i["reason"], i["transcript"]) for i in items
              if i["passed"] is False]
    for cond in ("explicit", "implicit"):
        m = oracle["conditions"][cond]["metrics"]
        # timing is the oracle's own behaviour: exact
        for key in ("fresh_onset_rate", "silence_keeping", "yield_rate"):
            assert m[key]["n"] >= 1 and m[key]["value"] == 1.0, (cond, key, failed)
        assert m["yield_rate"]["reportable"] is False  # one N4 per scenario: n < 20
        assert m["conditional_accuracy"]["n"] == 2  # one request per scenario
    assert_oracle_answers_heard(items)
    assert_presence_identity(oracle)
    assert_presence_identity(eager)
    assert oracle["mcnemar"]["n_pairs"] == 2 and oracle["mcnemar"]["p"] == 1.0

    e = eager["conditions"]["explicit"]["metrics"]
    assert e["silence_keeping"]["value"] <= 0.5, e["silence_keeping"]
    res = CliRunner().invoke(
        app, ["report", str(scored_oracle), str(tmp_path / "scored-eager"), "--out", str(tmp_path / "rep")]
    )
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| metric | oracle | eager |" in md
