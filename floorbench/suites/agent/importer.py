"""Test files → a suite folder of suite `agent`: one scenario per test and trial.

The folder is an ordinary suite (``suite.yaml``, ``scenarios/*.yaml``,
``audio/``), so `floorbench render` renders its lines with the local voices
and `floorbench run` plays it. What cannot be rendered is copied in as a
*recorded* clip (``audio/recorded/``, never synthesized or rewritten by the
renderer): a line given as an audio file (resampled to the suite's rate) and
each `silence` step (digital silence of its length, so the recorder places it
on the model's clock like any clip). Recorded files are named by a hash of
their samples, so a changed file is a changed suite.

A branch step has one clip per line it may say (its rules, then `otherwise`),
so every line is rendered before the call and none waits for a voice live.
A persona step's lines are made live (docs/callers.md): it reserves one
*live* clip per line it may say (`max_turns`) and per backchannel, each a
10 ms recorded silence that the renderer leaves alone and the schedule never
plays (it plays the line it synthesized, and writes it to the run folder).

The same tests give the same bytes (file order, trials, voices), so a suite
written twice has one `suite_hash` and a run of it resumes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

import numpy as np

from floorbench.paths import inside, remove_stale
from floorbench.redact import redact_strings
from floorbench.scenarios.files import dump_yaml, write_text_atomic
from floorbench.scenarios.schema import Preamble, Speaker, Suite, check_id
from floorbench.scenarios.validate import LoadedSuite
from floorbench.suites.agent.rules import CLIP_LABELS, PERSONA_BACKCHANNEL, StepKind
from floorbench.suites.agent.schema import AgentClip, AgentScenario, AgentStep
from floorbench.suites.agent.validate import AgentTestError, CallerLine, ConversationTest

RECORDED_DIR = "audio/recorded"
MAX_TRIALS = 100


def scenario_id(test: str, trial: int) -> str:
    return f"{test}.t{trial}"


def check_unique(tests: list[ConversationTest]) -> None:
    """Test names are unique over every file given (each names its scenarios and its results)."""
    seen: dict[str, Path] = {}
    for t in tests:
        if t.name in seen:
            raise AgentTestError(f"{t.source}: test {t.name}: a test of this name is in {seen[t.name]} too; rename one")
        seen[t.name] = t.source


def write_test_suite(tests: list[ConversationTest], out: Path, trials: int, rate: int = 16000) -> list[AgentScenario]:
    """Write the suite folder `out` for `tests`, `trials` scenarios each; return the scenarios."""
    if not 1 <= trials <= MAX_TRIALS:
        raise AgentTestError(f"--trials must be 1..{MAX_TRIALS}, got {trials}")
    check_unique(tests)
    out.mkdir(parents=True, exist_ok=True)
    scenarios_dir = inside(out, "scenarios", f"{out}: scenarios/", AgentTestError)  # a link out of it: refused
    for sub in ("audio", RECORDED_DIR):
        inside(out, sub, f"{out}: {sub}", AgentTestError)
    scenarios_dir.mkdir(exist_ok=True)
    suite = Suite(
        name="tests", suite="agent", sample_rate=rate, preamble=Preamble(text="", voice="flite:slt"),
        description="conversation tests: " + ", ".join(sorted({str(t.source) for t in tests})),
    )
    write_text_atomic(out / "suite.yaml", dump_yaml(suite.model_dump(mode="json", exclude_none=True)))
    scenarios = [scenario for t in tests for scenario in _scenarios(t, out, trials, rate)]
    keep = {f"{s.scenario_id}.yaml" for s in scenarios}
    remove_stale(out, "scenarios", lambda name: name.endswith(".yaml") and name not in keep, AgentTestError)
    for s in scenarios:
        path = scenarios_dir / f"{s.scenario_id}.yaml"
        # data written under OUT/: no URL credential (user-info, query, fragment) lands there (floorbench.redact)
        write_text_atomic(path, dump_yaml(redact_strings(s.model_dump(mode="json", exclude_none=True))))
    return scenarios


def _scenarios(t: ConversationTest, out: Path, trials: int, rate: int) -> list[AgentScenario]:
    speakers: dict[str, Speaker] = {"U": Speaker(name="Caller", voice=t.voice)}
    by_voice = {t.voice: "U"}
    clips: list[AgentClip] = []
    steps = [s.model_copy(deep=True) for s in t.steps]

    def add(st: AgentStep, line: CallerLine) -> int:
        if line.voice and line.voice not in by_voice:
            by_voice[line.voice] = f"U{len(by_voice) + 1}"
            speakers[by_voice[line.voice]] = Speaker(name="Caller", voice=line.voice)
        audio: str | None = None
        if st.kind is StepKind.silence:
            audio = _recorded(out, np.zeros((st.ms or 0) * rate // 1000, dtype=np.int16), rate)
        elif line.audio_file is not None:
            audio = _recorded(out, _read(line.audio_file, rate), rate)
        clips.append(AgentClip(
            id=len(clips) + 1, speaker=by_voice.get(line.voice, "U"), label=CLIP_LABELS[st.kind], text=line.text,
            audio=audio, recorded=audio is not None, step=st.n,
        ))
        return clips[-1].id

    def placeholder(st: AgentStep, label: str, k: int) -> int:
        what = "line" if label == CLIP_LABELS[StepKind.persona] else "backchannel"
        clips.append(AgentClip(
            id=len(clips) + 1, speaker="U", label=label, text=f"(persona {what} {k}, made live)",
            audio=_recorded(out, np.zeros(rate // 100, dtype=np.int16), rate), recorded=True, live=True, step=st.n,
        ))
        return clips[-1].id

    for st in steps:
        if st.persona is not None:  # a clip id for every line it may say, filled live
            p = st.persona
            p.clips = [placeholder(st, CLIP_LABELS[StepKind.persona], k) for k in range(1, p.max_turns + 1)]
            if p.backchannel.chance > 0:
                p.backchannel_clips = [placeholder(st, PERSONA_BACKCHANNEL, k) for k in range(1, p.max_turns + 1)]
        elif st.branch is not None:  # every line it may say is a clip, rendered with the rest
            for rule, line in zip(st.branch.options, t.options[st.n], strict=True):
                rule.clip = add(st, line)
        elif (line := t.lines.get(st.n)) is not None:
            st.clip = add(st, line)
    out_list = []
    for k in range(1, trials + 1):
        sid = scenario_id(t.name, k)
        try:
            check_id(sid)
        except ValueError as e:
            raise AgentTestError(f"{t.source}: test {t.name}: {e}") from None
        out_list.append(AgentScenario(
            scenario_id=sid, test=t.name, source=str(t.source), trial=k, trials=trials, tags=t.tags, language=t.language,
            timeout_s=t.timeout_s, pass_threshold=t.pass_threshold, speakers=speakers,
            turns=[c.model_copy() for c in clips], steps=steps, expect=t.expect, tools=t.tools,
        ))
    return out_list


def _read(path: Path, rate: int) -> np.ndarray:
    import soundfile as sf
    import soxr

    x, sr = sf.read(str(path), dtype="float32", always_2d=True)
    mono = x.mean(axis=1)
    if sr != rate:
        mono = soxr.resample(mono, sr, rate)
    return (np.clip(mono, -1.0, 1.0) * 32767).astype(np.int16)


def _recorded(out: Path, pcm: np.ndarray, rate: int) -> str:
    """Write a recorded clip once, named by its samples; its path relative to the suite folder."""
    import soundfile as sf

    key = hashlib.sha256(np.ascontiguousarray(pcm).tobytes() + str(rate).encode()).hexdigest()[:20]
    rel = f"{RECORDED_DIR}/{key}.flac"
    path = out / rel
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{key}.tmp.flac")
        sf.write(str(tmp), pcm, rate, format="FLAC", subtype="PCM_16")
        tmp.replace(path)
    return rel


def agent_suite_info(suite: LoadedSuite, root: Path, check_audio: bool) -> Any:
    """`floorbench suite info` of a suite made from test files: clips per step kind, tests, trials."""
    from collections import Counter

    from floorbench.scenarios.info import SuiteInfo

    scen: list[AgentScenario] = [s for s in cast(list[Any], suite.scenarios) if isinstance(s, AgentScenario)]
    for s in scen:  # a clip that leads out of the suite is refused here as `run` refuses it
        for c in s.turns:
            if c.audio:
                suite.audio_path(c.audio)
        if check_audio:
            from floorbench.scenarios.validate import check_clips_audio

            check_clips_audio(root, suite.files.get(s.scenario_id, root),
                              ((f"scenario {s.scenario_id}: step {c.step}", c.audio) for c in s.turns if c.audio))
    labels = Counter(c.label for s in scen for c in s.turns)
    lengths = [len(s.turns) for s in scen] or [0]
    return SuiteInfo(
        name=suite.suite.name, root=str(root), pairs=len({s.test for s in scen}), scenarios=len(scen),
        sample_rate=suite.suite.sample_rate, generator=suite.suite.generator,
        labels={label: labels.get(label, 0) for label in CLIP_LABELS.values()},
        attributes={"tag": dict(sorted(Counter(t for s in scen for t in s.tags).items()))},
        tasks={}, humans=dict(sorted(Counter(len(s.speakers) for s in scen).items())),
        turns_mean_x100=round(100 * sum(lengths) / len(lengths)), turns_min=min(lengths), turns_max=max(lengths),
        request_quintiles={}, differs={}, rendered=all(c.audio for s in scen for c in s.turns),
    )
