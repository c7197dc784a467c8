"""Suite mpe's own checks of a scenario file, and its part `load_scenario`.

The schema and the constraints every mpe scenario obeys are the engine's shared scenario
core (`floorbench.scenarios.schema`, `floorbench.scenarios.validate`: the records the other
suites extend); what only this suite adds is here: the attribute vocabularies of its
generator (``--strict-vocab``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from floorbench.scenarios.info import SuiteInfo, clip_durations_ms
from floorbench.scenarios.schema import Label, Scenario
from floorbench.scenarios.validate import (
    LoadedSuite,
    ScenarioError,
    check_clips_audio,
    check_scenario,
    parse_scenario,
    where,
)


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


def suite_info(suite: LoadedSuite, root: Path, check_audio: bool) -> SuiteInfo:
    """Suite mpe's part `suite_info`: labels, attributes, tasks, pairs and the rendered audio."""
    rendered = bool(suite.suite.preamble.audio) and all(t.audio for s in suite.scenarios for t in s.turns)
    labels = Counter(t.label.value for s in suite.scenarios for t in s.turns)
    attrs: dict[str, Counter] = {k: Counter() for k in ("location", "activity", "relationship", "device_context", "register")}
    for s in suite.scenarios:
        for k in attrs:
            attrs[k][getattr(s.attributes, k)] += 1
    tasks = Counter(str(s.meta.get("task", "(hand-written)")) for s in suite.scenarios)
    humans = Counter(len(s.speakers) for s in suite.scenarios)
    lengths = [len(s.turns) for s in suite.scenarios]
    quint = Counter(min(4, (s.request.id - 1) * 5 // len(s.turns)) for s in suite.scenarios)
    differs: Counter = Counter()
    for group in suite.pairs().values():
        s = group[0]
        rid = s.request.id
        key = "request only" if sorted(s.differs) == [rid] else (
            "request and the turn before" if sorted(s.differs) == [rid - 1, rid] else "other")
        differs[key] += 1
    info = SuiteInfo(
        name=suite.suite.name, root=str(root), pairs=len(suite.pairs()), scenarios=len(suite.scenarios),
        sample_rate=suite.suite.sample_rate, generator=suite.suite.generator,
        labels={lab.value: labels.get(lab.value, 0) for lab in Label},
        attributes={k: dict(sorted(v.items())) for k, v in attrs.items()},
        tasks=dict(tasks.most_common()), humans=dict(sorted(humans.items())),
        turns_mean_x100=round(100 * sum(lengths) / len(lengths)), turns_min=min(lengths), turns_max=max(lengths),
        request_quintiles={q: quint.get(q, 0) for q in range(5)}, differs=dict(differs), rendered=rendered,
    )
    if rendered and check_audio:
        problems: list[str] = []
        dur = clip_durations_ms(suite, problems)
        info.audio_problems = problems
        info.audio_unique_ms = sum(dur.values())
        pre = dur.get(suite.suite.preamble.audio or "", 0)
        per_scen = [sum(dur.get(t.audio or "", 0) for t in s.turns) for s in suite.scenarios]
        info.audio_playback_ms = sum(per_scen) + pre * len(suite.scenarios)
        info.dialogue_mean_ms = sum(per_scen) // max(1, len(per_scen))
    return info
