"""Reading conversation tests: the test file format (docs/testing.md), one line per problem.

`load_test_file` parses and checks one YAML test file into `ConversationTest`
records; every problem is one `AgentTestError` line naming the file, the test
and the step, and saying what to write instead. The suite's part
`load_scenario` checks the scenario files a test file was turned into
(`floorbench.suites.agent.importer`): floorbench/suites/agent/scenario_file.py.

A test file::

    voice: flite:slt          # the caller's voice (file default; a test or a step may set its own)
    gap_ms: 500               # optional defaults: gap_ms, timeout_s, pass_threshold, tags
    tests:
      - name: greeting
        tags: [smoke]
        steps:
          - say: Hello, who am I speaking to?
            expect: {responds_within_ms: 1500, contains: hello}
          - barge_in: Sorry, one moment.
            after_ms: 1200
            expect: {yields_within_ms: 800}
          - branch:                     # the next line depends on what the agent said
              rules:
                - {name: order, contains: order number, say: It is four two seven., goto: thanks}
              otherwise: {say: Can you help me?}
          - say: Thank you.
            label: thanks
          - hang_up
        expect: {no_overlap_ms: 200}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.paths import inside
from floorbench.scenarios.validate import (
    ScenarioError,
    check_audio,
    read_yaml,
)
from floorbench.speech.languages import LANGUAGES, Language, LanguageError, check_voice, language
from floorbench.suites.agent import dtmf_format, tool_format
from floorbench.suites.agent.format_error import AgentTestError as AgentTestError
from floorbench.suites.agent.intents import Intent
from floorbench.suites.agent.persona_format import STEP_OPTIONS as PERSONA_OPTIONS
from floorbench.suites.agent.persona_format import endpoint, persona
from floorbench.suites.agent.rules import (
    STEP_CHECKS,
    TEST_CHECKS,
    TOOL_STEP_CHECKS,
    TOOL_TEST_CHECKS,
    AgentRules,
    Check,
    StepKind,
)

# (check_agent_scenario: the part load_scenario's check, in scenario_file.py, also reached from here)
from floorbench.suites.agent.scenario_file import check_agent_scenario as check_agent_scenario
from floorbench.suites.agent.schema import (
    AgentStep,
    Branch,
    BranchRule,
    Expect,
    SilentWindow,
    continues,
)
from floorbench.tools.spec import ToolSet

RULES = AgentRules()
TOOL_KEYS = tool_format.FILE_KEYS
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
FILE_KEYS = ("voice", "gap_ms", "timeout_s", "pass_threshold", "tags", "persona_endpoint", "tests", "language",
             *TOOL_KEYS)
TEST_KEYS = ("name", "tags", "voice", "gap_ms", "timeout_s", "pass_threshold", "steps", "expect", "language",
             *TOOL_KEYS)
STEP_OPTIONS: dict[StepKind, tuple[str, ...]] = {
    StepKind.say: ("voice", "audio", "gap_ms", "wait_ms", "pause_ms", "reply", "label", "expect"),
    StepKind.barge_in: ("voice", "audio", "after_ms", "reply", "label", "expect"),
    StepKind.backchannel: ("voice", "audio", "after_ms", "label", "expect"),
    StepKind.silence: ("label", "expect"),
    StepKind.hang_up: ("gap_ms", "label"),
    StepKind.branch: ("voice", "gap_ms", "wait_ms", "label", "expect"),
    StepKind.persona: PERSONA_OPTIONS,
    StepKind.dtmf: ("duration_ms", "gap_ms", "wait_ms", "reply", "label", "expect"),
}
STEP_FORMS = ("say: TEXT, barge_in: TEXT, backchannel: TEXT, silence: MS, branch: {rules, otherwise}, "
              "persona: {goal, endpoint}, dtmf: KEYS or hang_up")
BRANCH_KEYS = ("after", "rules", "otherwise")
RULE_KEYS = ("name", "contains", "matches", "intent", "say", "voice", "audio", "reply", "goto")
OTHERWISE_KEYS = ("say", "voice", "audio", "reply", "goto")
BRANCH_AFTER = ("agent_turn",)
OTHERWISE = "otherwise"


@dataclass
class CallerLine:
    """A step's audio as the test file gives it: text in a voice, or an audio file."""

    voice: str
    text: str
    audio_file: Path | None = None


@dataclass
class ConversationTest:
    """One test of a test file, checked, before it is turned into one scenario per trial."""

    name: str
    source: Path
    steps: list[AgentStep]
    lines: dict[int, CallerLine]
    """step number → the audio it plays (steps that play audio, but branches)"""
    options: dict[int, list[CallerLine]] = field(default_factory=dict)
    """branch step number → the audio of each line it may say (its rules in order, then otherwise)"""
    expect: Expect = field(default_factory=Expect)
    tags: list[str] = field(default_factory=list)
    voice: str = "flite:slt"
    timeout_s: float | None = None
    pass_threshold: float | None = None
    tools: ToolSet | None = None
    """the mock tools served for each trial (floorbench.tools), None: none"""
    language: str = "en"
    """what the call is held in: the caller's voices speak it, ASR hears it (floorbench.speech.languages)"""


def load_test_file(path: Path) -> list[ConversationTest]:
    """Parse and check one test file; one `AgentTestError` line on the first problem."""
    try:
        data = read_yaml(path)
    except AgentTestError:
        raise
    except ScenarioError as e:
        raise AgentTestError(str(e)) from None
    if not isinstance(data, dict) or "tests" not in data:
        raise AgentTestError(f"{path}: expected a mapping with 'tests:' (a list of tests); see docs/testing.md")
    _keys(str(path), data, FILE_KEYS, "at the top of a test file")
    defaults = {
        "voice": _voice(str(path), data.get("voice", "flite:slt")),
        "gap_ms": _ms(str(path), "gap_ms", data.get("gap_ms")),
        "timeout_s": _timeout(str(path), data.get("timeout_s")),
        "pass_threshold": _threshold(str(path), data.get("pass_threshold")),
        "tags": _tags(str(path), data.get("tags")),
        "persona_endpoint": data.get("persona_endpoint"),
        "language": _language(f"{path}: language", data.get("language", "en")).code,
        **{k: data[k] for k in TOOL_KEYS if k in data},
    }
    if defaults["persona_endpoint"] is not None:
        endpoint(f"{path}: persona_endpoint", defaults["persona_endpoint"], AgentTestError)
    tests = data["tests"]
    if not isinstance(tests, list) or not tests:
        raise AgentTestError(f"{path}: 'tests' must be a non-empty list of tests (each with name and steps)")
    out: list[ConversationTest] = []
    seen: set[str] = set()
    for i, raw in enumerate(tests):
        t = _test(path, i, raw, defaults)
        if t.name in seen:
            raise AgentTestError(f"{path}: test {t.name}: the name is used twice; give each test its own name")
        seen.add(t.name)
        out.append(t)
    return out


def _keys(where: str, data: dict[Any, Any], allowed: tuple[str, ...], what: str) -> None:
    for k in data:
        if k not in allowed:
            raise AgentTestError(f"{where}: unknown key {k!r} {what}; use {', '.join(allowed)}")


def _int(where: str, name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AgentTestError(f"{where}: {name} must be a whole number of ms ({lo}–{hi}), got {value!r}")
    if not lo <= value <= hi:
        raise AgentTestError(f"{where}: {name}={value}; use {lo}–{hi}")
    return value


def _ms(where: str, name: str, value: object, lo: int = 0) -> int | None:
    return None if value is None else _int(where, name, value, lo, RULES.max_ms)


def _timeout(where: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= RULES.max_timeout_s:
        raise AgentTestError(f"{where}: timeout_s={value!r}; use a number of seconds, 1–{RULES.max_timeout_s}")
    return float(value)


def _threshold(where: str, value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise AgentTestError(f"{where}: pass_threshold={value!r}; use a pass rate above 0 and at most 1 (1.0: every trial)")
    return float(value)


def _tags(where: str, value: object) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(t, str) and TAG.fullmatch(t) for t in items):
        raise AgentTestError(f"{where}: tags must be a list of words (letters, digits, _ . -), got {value!r}")
    return list(items)


def _voice(where: str, value: object) -> str:
    from floorbench.speech.tts import TTSError, parse_voice

    if not isinstance(value, str):
        raise AgentTestError(f"{where}: voice must be a voice id such as flite:slt or piper:joe, got {value!r}")
    try:
        parse_voice(value)
    except TTSError as e:
        raise AgentTestError(f"{where}: {e}") from None
    return value


def _language(where: str, value: object) -> Language:
    try:
        return language(value, where)
    except LanguageError as e:
        raise AgentTestError(str(e)) from None


def _test(path: Path, i: int, raw: object, defaults: dict[str, Any]) -> ConversationTest:
    if not isinstance(raw, dict):
        raise AgentTestError(f"{path}: test {i + 1}: expected a mapping with name and steps, got {type(raw).__name__}")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AgentTestError(
            f"{path}: test {i + 1}: name {name!r}; give a name of 1–100 letters, digits, _ or -, starting with a letter or digit"
        )
    where = f"{path}: test {name}"
    _keys(where, raw, TEST_KEYS, "in a test")
    voice = _voice(where, raw["voice"]) if "voice" in raw else defaults["voice"]
    gap = _ms(where, "gap_ms", raw.get("gap_ms"))
    gap = (RULES.gap_ms if defaults["gap_ms"] is None else defaults["gap_ms"]) if gap is None else gap
    steps_raw = raw.get("steps")
    if not isinstance(steps_raw, list) or not steps_raw:
        raise AgentTestError(f"{where}: no steps; add a list under 'steps:' ({STEP_FORMS})")
    if len(steps_raw) > RULES.max_steps:
        raise AgentTestError(f"{where}: {len(steps_raw)} steps; a test has at most {RULES.max_steps}")
    steps: list[AgentStep] = []
    lines: dict[int, CallerLine] = {}
    options: dict[int, list[CallerLine]] = {}
    for n, s in enumerate(steps_raw, 1):
        step, line, said = _step(path, f"{where}: step {n}", n, s, voice, gap, defaults["persona_endpoint"])
        steps.append(step)
        if line is not None:
            lines[n] = line
        if said:
            options[n] = said
    _check_order(where, steps)
    _check_labels(where, steps)
    expect = _expect(f"{where}: expect", raw.get("expect"), TEST_CHECKS, "a test", len(steps))
    tools = tool_format.test_tools(where, raw, defaults, AgentTestError)
    tool_format.check_names(where, steps, expect, tools, AgentTestError)
    timeout = _timeout(where, raw.get("timeout_s"))
    threshold = _threshold(where, raw.get("pass_threshold"))
    lang = _language(f"{where}: language", raw["language"]) if "language" in raw else LANGUAGES[defaults["language"]]
    for n, said in [(0, [CallerLine(voice, "")]), *lines.items(), *((k, v) for k, vs in options.items() for v in vs)]:
        for one in said if isinstance(said, list) else [said]:
            try:
                check_voice(one.voice, lang, f"{where}" + (f": step {n}" if n else ""))
            except LanguageError as e:
                raise AgentTestError(str(e)) from None
    for n, st in enumerate(steps, 1):  # an intent is read by the offline judge's English lexicon
        if st.branch is not None and not lang.judged and any(r.intent for r in st.branch.options):
            raise AgentTestError(f"{where}: step {n}: intent rules read English only, not {lang.name}; "
                                 "use contains: or matches: in this test")
    return ConversationTest(
        language=lang.code,
        name=name, source=path, steps=steps, lines=lines, options=options, expect=expect,
        tags=sorted(set(defaults["tags"]) | set(_tags(where, raw.get("tags")))), voice=voice,
        timeout_s=defaults["timeout_s"] if timeout is None else timeout,
        pass_threshold=defaults["pass_threshold"] if threshold is None else threshold, tools=tools,
    )


def _kind(where: str, raw: object) -> tuple[StepKind, object, dict[str, Any]]:
    """(kind, its value, the other keys) of one step as written."""
    if isinstance(raw, str):
        if raw == StepKind.hang_up:
            return StepKind.hang_up, None, {}
        raise AgentTestError(f"{where}: {raw!r} is not a step; write {STEP_FORMS}")
    if not isinstance(raw, dict):
        raise AgentTestError(f"{where}: expected a step ({STEP_FORMS}), got {type(raw).__name__}")
    kinds = [k for k in raw if k in StepKind.__members__]
    if len(kinds) != 1:
        found = ", ".join(map(str, kinds)) or "none of them"
        raise AgentTestError(
            f"{where}: a step has exactly one of {', '.join(StepKind)} ({found} given)"
        )
    kind = StepKind(kinds[0])
    where = f"{where} ({kind})"
    options = {k: v for k, v in raw.items() if k != kind}
    _keys(where, options, STEP_OPTIONS[kind], f"on a {kind} step")
    return kind, raw[kind], options


def _step(path: Path, where: str, n: int, raw: object, voice: str,
          gap: int, persona_endpoint: object = None) -> tuple[AgentStep, CallerLine | None, list[CallerLine]]:
    """The step, the audio it plays (None: none, or a branch's), and a branch's lines."""
    kind, value, opt = _kind(where, raw)
    where = f"{where} ({kind})"
    step = AgentStep(n=n, kind=kind, expect=_expect(f"{where}: expect", opt.get("expect"), STEP_CHECKS[kind], f"a {kind} step"))
    if "label" in opt:
        step.label = _name(where, "label", opt["label"])
    if kind is StepKind.hang_up:
        if value not in (None, True, {}):
            raise AgentTestError(f"{where}: write just 'hang_up' (options such as gap_ms go beside it)")
        step.gap_ms = _ms(where, "gap_ms", opt.get("gap_ms"))
        step.gap_ms = gap if step.gap_ms is None else step.gap_ms
        return step, None, []
    if kind is StepKind.dtmf:
        step.gap_ms, step.wait_ms = _ms(where, "gap_ms", opt.get("gap_ms")), _ms(where, "wait_ms", opt.get("wait_ms"))
        step.gap_ms = gap if step.gap_ms is None else step.gap_ms
        return dtmf_format.keys(where, step, value, opt), None, []
    if kind is StepKind.silence:
        step.ms = _int(where, "silence", value, 1, RULES.max_ms)
        return step, CallerLine(voice="", text=f"(silence {step.ms} ms)"), []
    if kind is StepKind.persona:  # its lines are made live: no audio here (floorbench.suites.agent.persona_format)
        step.gap_ms, step.wait_ms = _ms(where, "gap_ms", opt.get("gap_ms")), _ms(where, "wait_ms", opt.get("wait_ms"))
        step.gap_ms = gap if step.gap_ms is None else step.gap_ms
        v = _voice(where, opt["voice"]) if "voice" in opt else voice
        step.persona = persona(where, value, persona_endpoint, v, AgentTestError)
        return step, None, []
    if kind is StepKind.branch:
        step.gap_ms = _ms(where, "gap_ms", opt.get("gap_ms"))
        step.gap_ms = gap if step.gap_ms is None else step.gap_ms
        step.wait_ms = _ms(where, "wait_ms", opt.get("wait_ms"))
        v = _voice(where, opt["voice"]) if "voice" in opt else voice
        step.branch, said = _branch(path, where, value, v)
        names = [r.name for r in step.branch.options]
        unknown = [b for b in step.expect.took_branch if b not in names]
        if unknown:
            raise AgentTestError(f"{where}: expect: took_branch {unknown[0]!r} is none of this branch's rules; "
                                 f"use one of {', '.join(names)}")
        return step, None, said
    line = _line(path, where, value, opt, voice)
    if kind is StepKind.say:
        step.gap_ms = _ms(where, "gap_ms", opt.get("gap_ms"))
        step.gap_ms = gap if step.gap_ms is None else step.gap_ms
        step.wait_ms = _ms(where, "wait_ms", opt.get("wait_ms"))
        step.pause_ms = _ms(where, "pause_ms", opt.get("pause_ms"), lo=1)
        if step.pause_ms is not None and ("gap_ms" in opt or "wait_ms" in opt):
            raise AgentTestError(f"{where}: pause_ms continues the caller's turn whatever the agent does; drop gap_ms/wait_ms")
    else:
        after = _ms(where, "after_ms", opt.get("after_ms"))
        step.after_ms = RULES.after_ms if after is None else after
    if "reply" in opt:
        if not isinstance(opt["reply"], str) or not opt["reply"].strip():
            raise AgentTestError(f"{where}: reply must be the text the oracle says; write it or drop it")
        step.reply = opt["reply"]
    step.text = line.text
    return step, line, []


def _name(where: str, what: str, value: object) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise AgentTestError(f"{where}: {what} {value!r}; give a name of letters, digits, _ or -, starting with a letter or digit")
    return value


def _branch(path: Path, where: str, value: object, voice: str) -> tuple[Branch, list[CallerLine]]:
    """A branch's rules and otherwise, and the audio of each line it may say (rules in order, then otherwise)."""
    if not isinstance(value, dict):
        raise AgentTestError(f"{where}: write branch: {{rules: [{{contains: WORDS, say: TEXT}}, …], otherwise: {{say: TEXT}}}}")
    _keys(where, value, BRANCH_KEYS, "in a branch")
    after = value.get("after", BRANCH_AFTER[0])
    if after not in BRANCH_AFTER:
        raise AgentTestError(f"{where}: after {after!r}; a branch reacts to the agent's last turn: write after: agent_turn, "
                             "or drop it")
    rules_raw = value.get("rules")
    if not isinstance(rules_raw, list) or not rules_raw:
        raise AgentTestError(f"{where}: no rules; give rules: a list of {{contains: WORDS or matches: REGEX, say: TEXT}}")
    if "otherwise" not in value:
        raise AgentTestError(f"{where}: no otherwise; add otherwise: {{say: TEXT}}, the line when no rule matches "
                             "(or the agent said nothing)")
    rules: list[BranchRule] = []
    lines: list[CallerLine] = []
    for i, raw in enumerate(rules_raw, 1):
        rule, line = _rule(path, f"{where}: rule {i}", raw, voice, f"rule{i}", RULE_KEYS)
        if rule.name in [r.name for r in rules] or rule.name == OTHERWISE:
            raise AgentTestError(f"{where}: rule {i}: the name {rule.name!r} is taken; give each rule its own name "
                                 f"({OTHERWISE!r} is the fallback's)")
        rules.append(rule)
        lines.append(line)
    otherwise, line = _rule(path, f"{where}: otherwise", value["otherwise"], voice, OTHERWISE, OTHERWISE_KEYS)
    return Branch(after=after, rules=rules, otherwise=otherwise), [*lines, line]


def _intent(where: str, value: object) -> str:
    """An intent's name; YAML's bare yes and no (booleans) are the intents of those names."""
    names = ", ".join(i.value for i in Intent)
    if isinstance(value, bool):
        value = Intent.yes.value if value else Intent.no.value
    if not isinstance(value, str) or value not in {i.value for i in Intent}:
        raise AgentTestError(f"{where}: {value!r} is no intent; write one of {names}")
    return value


def _rule(path: Path, where: str, raw: object, voice: str, name: str,
          keys: tuple[str, ...]) -> tuple[BranchRule, CallerLine]:
    """One rule of a branch (or its otherwise): what the agent's turn must say, and the line said then."""
    if not isinstance(raw, dict):
        raise AgentTestError(f"{where}: expected a mapping such as {{contains: WORDS, say: TEXT}}, got {raw!r}")
    _keys(where, raw, keys, "of a branch rule" if "name" in keys else "in otherwise (it has no condition)")
    if "say" not in raw and "audio" not in raw:
        raise AgentTestError(f"{where}: no line; write say: TEXT (what the caller says then), or audio: FILE")
    line = _line(path, where, raw.get("say"), raw, voice)
    rule = BranchRule(name=_name(where, "name", raw["name"]) if "name" in raw else name, text=line.text)
    if "contains" in raw:
        rule.contains = _words(f"{where}: contains", raw["contains"])
    if "matches" in raw:
        rule.matches = _regex(f"{where}: matches", raw["matches"])
    if "intent" in raw:
        rule.intent = _intent(f"{where}: intent", raw["intent"])
    if "name" in keys and not rule.contains and rule.matches is None and rule.intent is None:
        raise AgentTestError(f"{where}: no condition; give contains: WORDS, matches: REGEX or intent: NAME "
                             "(a line for any other answer goes in otherwise)")
    if "goto" in raw:
        rule.goto = _name(where, "goto", raw["goto"])
    if "reply" in raw:
        if not isinstance(raw["reply"], str) or not raw["reply"].strip():
            raise AgentTestError(f"{where}: reply must be the text the oracle says; write it or drop it")
        rule.reply = raw["reply"]
    return rule, line


def _regex(where: str, value: object) -> str:
    """A `matches:` pattern, compiled with bounded size, groups and repeats (`floorbench.readers`)."""
    from floorbench.readers import compile_regex

    compile_regex(where, value, AgentTestError)
    return str(value)


def _line(path: Path, where: str, value: object, opt: dict[str, Any], voice: str) -> CallerLine:
    """The audio a say/barge_in/backchannel plays: its text in its voice, or its `audio` file."""
    v = _voice(where, opt["voice"]) if "voice" in opt else voice
    audio = opt.get("audio")
    if value is not None and not isinstance(value, str):
        raise AgentTestError(f"{where}: the text must be a string (quote it), got {value!r}")
    text = (value or "").strip()
    if audio is None:
        if not text:
            raise AgentTestError(f"{where}: empty line; write what the caller says, or give an audio file with audio: FILE")
        return CallerLine(voice=v, text=text)
    if not isinstance(audio, str) or not audio.strip():
        raise AgentTestError(f"{where}: audio must be a file path (relative to the test file), got {audio!r}")
    file = inside(path.parent, audio, f"{where}: audio", AgentTestError)  # next to the test file, like every path in a file
    try:
        check_audio(file.parent, file.name, where, required=True)
    except ScenarioError as e:
        raise AgentTestError(str(e).replace("run `floorbench render` on the suite", "check the path")) from None
    return CallerLine(voice=v, text=text or f"(audio {Path(audio).name})", audio_file=file)


def _expect(where: str, raw: object, allowed: frozenset[Check], what: str, steps: int | None = None) -> Expect:
    if raw is None:
        return Expect()
    if not isinstance(raw, dict):
        raise AgentTestError(f"{where}: expected a mapping of assertions (e.g. responds_within_ms: 1500)")
    out = Expect()
    for key, value in raw.items():
        if tool_format.is_tool_check(key):
            tools = TOOL_TEST_CHECKS if steps is not None else TOOL_STEP_CHECKS if allowed & STEP_CHECKS[StepKind.say] else frozenset()
            tool_format.set_tool_check(out, f"{where}: {key}", key, value, tools, what, steps, AgentTestError)
            continue
        if key not in Check.__members__:
            raise AgentTestError(f"{where}: unknown assertion {key!r}; use one of {', '.join(sorted(c.value for c in allowed))}")
        check = Check(key)
        if check not in allowed:
            raise AgentTestError(f"{where}: {key} does not apply to {what}; there use {', '.join(sorted(c.value for c in allowed))}")
        _set(out, f"{where}: {key}", check, value)
    if out.silent is not None and (out.responds_within_ms is not None or out.contains or out.matches):
        raise AgentTestError(f"{where}: silent with responds_within_ms/contains/matches on one step contradicts itself; keep one")
    return out


def _words(where: str, value: object) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(w, str) and w.strip() for w in items):
        raise AgentTestError(f"{where}: give a word or phrase, or a list of them")
    return [str(w).strip() for w in items]


def _set(out: Expect, where: str, check: Check, value: object) -> None:
    if check in (Check.contains, Check.not_contains):
        setattr(out, check.value, _words(where, value))
    elif check is Check.matches:
        out.matches = _regex(where, value)
    elif check is Check.took_branch:
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(isinstance(b, str) and NAME.fullmatch(b) for b in names):
            raise AgentTestError(f"{where}: give the name of a rule (or otherwise), or a list of them (any of)")
        out.took_branch = [str(b) for b in names]
    elif check is Check.goal_reached:
        if value is not True:
            raise AgentTestError(f"{where}: write goal_reached: true (the persona said it was done), or drop it")
        out.goal_reached = True
    elif check is Check.keeps_talking:
        if value is True:
            out.keeps_talking = RULES.keep_talking_ms
        elif value is False:
            raise AgentTestError(f"{where}: false is not an assertion; write true (or ms to keep talking after it), or drop it")
        else:
            out.keeps_talking = _int(where, "keeps_talking", value, 0, RULES.max_ms)
    elif check is Check.silent:
        out.silent = _silent(where, value)
    elif check in (Check.mos_min, Check.mos_p10_min):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 1.0 <= value <= 5.0:
            raise AgentTestError(f"{where}: {check.value} is a MOS, a number from 1 to 5 (e.g. 3.0), got {value!r}")
        setattr(out, check.value, float(value))
    else:
        setattr(out, check.value, _int(where, check.value, value, 0, RULES.max_ms))


def _silent(where: str, value: object) -> SilentWindow:
    if value is True:
        return SilentWindow()
    if not isinstance(value, dict):
        raise AgentTestError(f"{where}: write true, or {{after_ms: MS, for_ms: MS}} for part of the step's window")
    _keys(where, value, ("after_ms", "for_ms"), "in silent")
    return SilentWindow(
        after_ms=_int(where, "after_ms", value.get("after_ms", 0), 0, RULES.max_ms),
        for_ms=None if value.get("for_ms") is None else _int(where, "for_ms", value.get("for_ms"), 1, RULES.max_ms),
    )


def _check_order(where: str, steps: list[AgentStep]) -> None:
    """The rules that hold between steps: a pause continues a say, hang_up ends the call."""
    for i, s in enumerate(steps):
        at = f"{where}: step {s.n} ({s.kind})"
        if s.kind is StepKind.hang_up and i != len(steps) - 1:
            raise AgentTestError(f"{at}: hang_up ends the call; make it the last step")
        if s.kind is StepKind.say and s.pause_ms is not None and (i == 0 or steps[i - 1].kind is not StepKind.say):
            raise AgentTestError(f"{at}: pause_ms goes on with the caller's turn, so it must follow a say step")
        if continues(steps, i) and s.expect.responds_within_ms is not None:
            raise AgentTestError(
                f"{at}: the caller goes on after a pause (step {s.n + 1} has pause_ms), so the agent has no turn "
                "here; put responds_within_ms on the last part (silent here checks the pause)"
            )


def _check_labels(where: str, steps: list[AgentStep]) -> None:
    """Labels are unique; a goto names a label of a later step that starts a caller turn (each step plays
    at most once, so a test always ends)."""
    at_label: dict[str, AgentStep] = {}
    for s in steps:
        if s.label is None:
            continue
        if s.label in at_label:
            raise AgentTestError(f"{where}: step {s.n} ({s.kind}): label {s.label!r} is step {at_label[s.label].n}'s too; "
                                 "give each step its own label")
        at_label[s.label] = s
    for s in steps:
        for r in s.branch.options if s.branch is not None else []:
            if r.goto is None:
                continue
            at = f"{where}: step {s.n} ({s.kind}): {'otherwise' if r.name == OTHERWISE else 'rule ' + r.name}"
            target = at_label.get(r.goto)
            if target is None:
                known = ", ".join(at_label) or "none"
                raise AgentTestError(f"{at}: goto {r.goto!r}: no step has that label (labels here: {known}); "
                                     "add label: NAME to the step to go to")
            if target.n <= s.n:
                raise AgentTestError(f"{at}: goto {r.goto!r} is step {target.n}, not after this one; a goto jumps "
                                     "forward (each step plays at most once)")
            if target.pause_ms is not None:
                raise AgentTestError(f"{at}: goto {r.goto!r} lands on a say with pause_ms, which continues a turn "
                                     "the caller is not in; jump to the step that starts it")
