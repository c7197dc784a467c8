"""Suite mpe's rules of a scenario file and of a pair, and its parts `load_scenario` and `check_suite`.

The record is this suite's `floorbench.suites.mpe.schema.Scenario`; the rules are this suite's (docs/suites/mpe.md): one `T` with its
gold, every `N4Q` followed by its `N4R`, three or four humans, and the pair rules — the
explicit and implicit twins share everything but the request, and only the explicit
request names the assistant. The attribute vocabularies of its generator
(``--strict-vocab``) are checked here too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from pydantic import ValidationError

from floorbench.scenarios.info import SuiteInfo
from floorbench.scenarios.interface import ScenarioRecord
from floorbench.scenarios.schema import Suite
from floorbench.scenarios.validate import (
    LoadedSuite,
    ScenarioError,
    check_clips_audio,
    pydantic_line,
    read_yaml,
    where,
)
from floorbench.speech.languages import LANGUAGES, LanguageError, check_voice
from floorbench.suites.mpe.schema import Label, Scenario


def check_vocabulary(scenario: Scenario, path: Path) -> None:
    """The five attributes come from the generator's fixed vocabularies (docs/scenarios.md)."""
    from floorbench.suites.mpe.vocab import vocabulary

    vocab = vocabulary()
    for key, allowed in vocab.items():
        value = getattr(scenario.attributes, key)
        if value not in allowed:
            shown = ", ".join(sorted(allowed)[:6])
            raise ScenarioError(
                f"{where(path, scenario.scenario_id)}: {key} {value!r} is not in the vocabulary; "
                f"use one of {shown}, … (see docs/scenarios.md) or drop --strict-vocab"
            )


def load_scenario(
    path: Path, data: object, root: Path | None = None, audio: bool = False, strict_vocab: bool = False
) -> Scenario:
    """Suite mpe's part `load_scenario`: the schema, the constraints, and (with `audio`) the files."""
    s = parse_scenario(path, data)
    check_scenario(s, path)
    if strict_vocab:
        check_vocabulary(s, path)
    if audio:
        check_clips_audio(root, path, ((where(path, s.scenario_id, t.id), t.audio) for t in s.turns))
    return s


def pairs(scenarios: Sequence[ScenarioRecord]) -> dict[str, list[Scenario]]:
    """pair_id → its scenarios, in the order given (a loaded mpe suite's scenarios are this suite's records)."""
    out: dict[str, list[Scenario]] = {}
    for s in cast(Sequence[Scenario], scenarios):
        out.setdefault(s.pair_id, []).append(s)
    return out


def suite_info(suite: LoadedSuite, root: Path, check_audio: bool) -> SuiteInfo:
    """Suite mpe's part `suite_info`: labels, attributes, tasks, pairs and the rendered audio."""
    scenarios = cast(list[Scenario], suite.scenarios)  # loaded by this suite's load_scenario
    by_pair = pairs(scenarios)
    rendered = bool(suite.suite.preamble.audio) and all(t.audio for s in scenarios for t in s.turns)
    labels = Counter(t.label.value for s in scenarios for t in s.turns)
    attrs: dict[str, Counter] = {k: Counter() for k in ("location", "activity", "relationship", "device_context", "register")}
    for s in scenarios:
        for k in attrs:
            attrs[k][getattr(s.attributes, k)] += 1
    tasks = Counter(str(s.meta.get("task", "(hand-written)")) for s in scenarios)
    humans = Counter(len(s.speakers) for s in scenarios)
    lengths = [len(s.turns) for s in scenarios]
    quint = Counter(min(4, (s.request.id - 1) * 5 // len(s.turns)) for s in scenarios)
    differs: Counter = Counter()
    for group in by_pair.values():
        s = group[0]
        rid = s.request.id
        key = "request only" if sorted(s.differs) == [rid] else (
            "request and the turn before" if sorted(s.differs) == [rid - 1, rid] else "other")
        differs[key] += 1
    info = SuiteInfo(
        name=suite.suite.name, root=str(root), pairs=len(by_pair), scenarios=len(suite.scenarios),
        sample_rate=suite.suite.sample_rate, generator=suite.suite.generator,
        labels={lab.value: labels.get(lab.value, 0) for lab in Label},
        attributes={k: dict(sorted(v.items())) for k, v in attrs.items()},
        tasks=dict(tasks.most_common()), humans=dict(sorted(humans.items())),
        turns_mean_x100=round(100 * sum(lengths) / len(lengths)), turns_min=min(lengths), turns_max=max(lengths),
        request_quintiles={q: quint.get(q, 0) for q in range(5)}, differs=dict(differs), rendered=rendered,
    )
    if rendered and check_audio:
        info.measure_audio(suite, suite.scenarios, preamble=True)
    return info


def parse_scenario(path: Path, data: object | None = None) -> Scenario:
    """Parse (not yet check constraints of) one scenario file."""
    if data is None:
        data = read_yaml(path)
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a mapping with scenario fields; got {type(data).__name__}")
    sid = data.get("scenario_id")
    sid = str(sid) if sid is not None else None
    try:
        return Scenario.model_validate(data)
    except ValidationError as err:
        raise ScenarioError(pydantic_line(path, sid, data, err)) from None


def check_scenario(scenario: Scenario, path: Path) -> None:
    """Enforce the mpe scenario rules (docs/suites/mpe.md) on one scenario; raise on the first broken rule."""
    sid = scenario.scenario_id
    turns = scenario.turns
    if not turns:
        raise ScenarioError(f"{where(path, sid)}: no turns; a scenario needs at least 3")
    n_speakers = len(scenario.speakers)
    if not 3 <= n_speakers <= 4:
        raise ScenarioError(
            f"{where(path, sid)}: {n_speakers} speakers; the mpe suite needs 3 or 4 humans"
        )
    for sp_id, sp in scenario.speakers.items():
        if sp_id not in ("A", "B", "C", "D"):
            raise ScenarioError(f"{where(path, sid)}: speaker id {sp_id!r}; use A, B, C or D")
        try:
            check_voice(sp.voice, LANGUAGES[scenario.language], f"{where(path, sid)}: speaker {sp_id}")
        except LanguageError as e:
            raise ScenarioError(str(e)) from None
    seen_ids: set[int] = set()
    for i, t in enumerate(turns):
        if t.id != i + 1:
            raise ScenarioError(
                f"{where(path, sid, t.id)}: turn ids must run 1, 2, 3 … in order; expected {i + 1}"
            )
        seen_ids.add(t.id)
        if t.speaker not in scenario.speakers:
            raise ScenarioError(
                f"{where(path, sid, t.id)}: unknown speaker {t.speaker!r}; "
                f"declare it under speakers (have {', '.join(sorted(scenario.speakers))})"
            )
        if not t.text.strip():
            raise ScenarioError(f"{where(path, sid, t.id)}: empty text; write what is said")
    requests = [t for t in turns if t.label is Label.T]
    if len(requests) != 1:
        ids = ", ".join(str(t.id) for t in requests) or "none"
        raise ScenarioError(
            f"{where(path, sid)}: {len(requests)} T turns (ids {ids}); exactly one T per scenario"
        )
    t_req = requests[0]
    if t_req.id == turns[0].id:
        raise ScenarioError(
            f"{where(path, sid, t_req.id)}: T is the first turn; the evidence must come first"
        )
    if t_req.id == turns[-1].id:
        raise ScenarioError(
            f"{where(path, sid, t_req.id)}: T is the last turn; at least one turn must follow it"
        )
    if not (t_req.gold and t_req.gold.strip()):
        raise ScenarioError(f"{where(path, sid, t_req.id)}: T has no gold answer; add 'gold:'")
    for i, t in enumerate(turns):
        nxt = turns[i + 1] if i + 1 < len(turns) else None
        if t.label is Label.N4Q and (nxt is None or nxt.label is not Label.N4R):
            raise ScenarioError(
                f"{where(path, sid, t.id)}: N4Q is not immediately followed by an N4R; "
                "add the resolution turn right after it"
            )
        if t.label is Label.N4R:
            prev = turns[i - 1] if i > 0 else None
            if prev is None or prev.label is not Label.N4Q:
                raise ScenarioError(
                    f"{where(path, sid, t.id)}: N4R without an N4Q right before it; "
                    "put the question turn before it or relabel"
                )
        if t.gold and t.label is not Label.T:
            raise ScenarioError(
                f"{where(path, sid, t.id)}: gold answer on a {t.label} turn; only T carries gold"
            )
    for d in scenario.differs:
        if d not in seen_ids:
            raise ScenarioError(f"{where(path, sid)}: differs lists turn {d}, which does not exist")


def check_pair(a: Scenario, b: Scenario, path: Path, assistant: str = "Aria") -> None:
    """The two conditions of a pair share task, gold, turn count and labels; only the explicit request names the assistant."""
    where = f"{path}: pair {a.pair_id}"
    if {a.condition, b.condition} != {"explicit", "implicit"}:
        raise ScenarioError(f"{where}: conditions {a.condition}/{b.condition}; need one explicit and one implicit")
    name = re.compile(rf"\b{re.escape(assistant)}\b", re.IGNORECASE)
    for s in (a, b):
        req = next((t for t in s.turns if t.label is Label.T), None)
        if req is None:
            continue
        if s.condition == "explicit" and not name.search(req.text):
            raise ScenarioError(
                f"{path}: scenario {s.scenario_id}: turn {req.id}: the explicit request does not name {assistant}; name her"
            )
        if s.condition == "implicit" and name.search(req.text):
            raise ScenarioError(
                f"{path}: scenario {s.scenario_id}: turn {req.id}: the implicit request names {assistant}; drop the name"
            )
    if len(a.turns) != len(b.turns):
        raise ScenarioError(f"{where}: {len(a.turns)} vs {len(b.turns)} turns; paired scenarios have equal turn counts")
    if [t.label for t in a.turns] != [t.label for t in b.turns]:
        raise ScenarioError(f"{where}: label sequences differ; paired scenarios share one label sequence")
    if a.request.gold != b.request.gold:
        raise ScenarioError(f"{where}: gold answers differ; paired scenarios share one gold answer")
    diff = sorted(ta.id for ta, tb in zip(a.turns, b.turns, strict=True) if ta.text != tb.text)
    allowed = {a.request.id, a.request.id - 1}
    extra = [d for d in diff if d not in allowed]
    if extra:
        raise ScenarioError(
            f"{where}: turns {extra} differ; only the request and the turn before it may differ"
        )
    for s in (a, b):
        if sorted(s.differs) != diff:
            raise ScenarioError(
                f"{path}: scenario {s.scenario_id}: differs={sorted(s.differs)} but the texts differ at {diff}; fix 'differs'"
            )


def check_suite(scenarios: list[Scenario], files: dict[str, Path], suite: Suite) -> list[str]:
    """Suite mpe's part `check_suite`: every pair has its explicit and implicit twin, and they obey
    `check_pair`; one problem line each (`load_suite` lists them all)."""
    problems: list[str] = []
    for pid, group in pairs(scenarios).items():
        if len(group) != 2:
            problems.append(
                f"{files[group[0].scenario_id]}: pair {pid}: {len(group)} scenario(s); each pair needs an explicit and an implicit one"
            )
            continue
        try:
            check_pair(group[0], group[1], files[group[0].scenario_id], assistant=suite.assistant_name)
        except ScenarioError as e:
            problems.append(str(e))
    return problems
