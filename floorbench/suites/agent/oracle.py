"""What the `oracle` reference agent does in a conversation test: answers each caller turn, yields
to a barge-in, talks through a backchannel, keeps quiet where a step expects silence.

Suite agent's part `oracle` (floorbench.plugins). After each `say`
that ends the caller's turn the oracle says the step's `reply`, or — a test
written for a real agent has none — the words the step's `contains` asks for (in a sentence of
their own), followed by a sentence; a reply that a backchannel or a barge-in is timed against goes on
(`MORE`, as often as needed) until the step's `after_ms`, its clip and `keeps_talking` have passed, with a
second to spare (`talking_through`: its own reply's length is known only once spoken by its voice); after
a barge-in (the stock oracle stops at its first speech: label ``interrupt``)
it says the step's reply or a short one. It says nothing after a say the
caller continues after a pause, nor after a step that expects `silent`.
Silence steps are not in its plan (there is nothing to find in a silence).

A branch step's line depends on what the agent said, and the oracle is the
agent: it walks the test as the caller will, choosing each branch's rule on its
own last reply's text (`floorbench.suites.agent.branch.choose`, the caller's
rules) and following its goto, so it listens for the line the caller will say.
It relies on the caller's ASR hearing its reply as written; a reply that ASR
mishears sends the caller elsewhere and the oracle waits for a line that never
comes (write replies in plain words).

A test held in another language (`language:`) is answered in it: its own sentences (`PHRASES`) are
translated, and its replies are spoken by that language's voice (floorbench.speech.languages) unless
the oracle's configured voice already speaks it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from pipecat.processors.frame_processor import FrameProcessor

from floorbench.audio.vad import VAD_RATE
from floorbench.processors.reference import OracleClip, OraclePlan, OracleProcessor, OracleSettings
from floorbench.speech.languages import answer_voice, voice_language
from floorbench.suites.agent.branch import choose
from floorbench.suites.agent.rules import SAYS, TIMED_TO_AGENT, TURN_ENDS, AgentRules, StepKind
from floorbench.suites.agent.schema import AgentScenario, AgentStep, continues
from floorbench.suites.agent.tool_oracle import expected_calls, factory

LONG_REPLY = "I can help with that. Let me tell you more about it."
SHORT_REPLY = "Sure, go ahead."
MORE = "There is a little more I can tell you about that, so please bear with me."
"""said after a reply, as often as needed, while a test's backchannel or barge-in needs the oracle still talking"""
HOLD_MARGIN_MS = 1000
"""a reply outlasts what the steps timed against it need by this much: the caller times them from the
reply's onset as the room hears it (transport and the live VAD), later than the oracle's first sample"""
BARGE_IN_MS = 500
"""a barge-in needs the oracle speaking this long past its `after_ms` (its pad, first consonant, and the
oracle's VAD window that hears it)"""


@dataclass(frozen=True)
class Phrases:
    """The oracle's own sentences in one language."""

    long: str
    short: str
    more: str
    word: str
    """"the word is {}": a `contains` word said in a sentence (see said_words)"""
    words: str
    """"the words are {} and {}" """


PHRASES = {
    "en": Phrases(LONG_REPLY, SHORT_REPLY, MORE, "The word is {}.", "The words are {} and {}."),
    "es": Phrases("Le puedo ayudar con eso. Le cuento un poco más.", "Claro, adelante.",
                  "Hay algo más que le puedo contar sobre eso, así que tenga un poco de paciencia.",
                  "La palabra es {}.", "Las palabras son {} y {}."),
    "de": Phrases("Dabei kann ich Ihnen helfen. Ich erzähle Ihnen gern mehr darüber.", "Gern, bitte sprechen Sie.",
                  "Dazu kann ich Ihnen noch etwas mehr erzählen, also haben Sie bitte etwas Geduld.",
                  "Das Wort ist {}.", "Die Wörter sind {} und {}."),
    "zh": Phrases("这个我可以帮您。我再多说一点。", "好的，请说。", "关于这个我还可以再多说一点，请您稍等一下。",
                  "这个词是{}。", "这些词是{}和{}。"),
}
"""per language (floorbench.speech.languages): every language there has its sentences here"""


def oracle_reply(steps: list[AgentStep], i: int, reply: str | None = None, language: str = "en") -> str | None:
    """What the oracle says after step `i` in `language` (None: nothing); `reply`: a branch rule's, which wins."""
    st = steps[i]
    if st.expect.silent is not None or st.kind in (StepKind.backchannel, StepKind.silence):
        return None
    if st.kind in SAYS and continues(steps, i):
        return None
    if reply or st.reply:
        return reply or st.reply
    words, p = said_words(st.expect.contains, language), PHRASES[language]
    return f"{words} {p.long}".strip() if st.kind in SAYS else f"{words} {p.short}".strip()


def said_words(words: list[str], language: str = "en") -> str:
    """The words a step's `contains` asks for, inside a sentence: a lone word at a reply's very start is
    the one the ASR mishears most (flite's "Banana." came back "But then"), so the oracle is not failed
    by its own phrasing."""
    w = [x.strip().rstrip(".") for x in words if x.strip()]
    if not w:
        return ""
    p = PHRASES[language]
    if len(w) == 1:
        return p.word.format(w[0])
    return p.words.format(", ".join(w[:-1]), w[-1])


LABEL = {StepKind.say: "say", StepKind.branch: "say", StepKind.barge_in: "interrupt",
         StepKind.backchannel: "backchannel"}
"""the oracle's clip labels (a barge-in's clip is also marked `barges_in`: the oracle stops at its first speech)"""


def oracle_path(s: AgentScenario) -> list[tuple[int, int, str | None]]:
    """The caller's clips as they will be played to the oracle: (step index, clip id, its reply), each
    branch taken on the oracle's own last reply."""
    out: list[tuple[int, int, str | None]] = []
    said: str | None = None
    i = 0
    while i < len(s.steps):
        st, k = s.steps[i], i
        i += 1
        clip, reply = st.clip, None
        if st.branch is not None:
            rule = choose(st.branch, said).rule
            clip, reply = rule.clip, rule.reply
            if rule.goto is not None:
                i = next(j for j, x in enumerate(s.steps) if x.label == rule.goto)
        if clip is None or st.kind not in LABEL:
            continue
        text = oracle_reply(s.steps, k, reply, s.language)
        out.append((k, clip, text))
        if st.kind in TURN_ENDS:
            said = text
    return out


@dataclass(frozen=True)
class Hold:
    """A step timed against a reply of the oracle (a backchannel or a barge-in), and how long it needs the
    reply to go on: `ms` from the reply's onset, plus the timed clip's own length when `through_clip`."""

    clip: int
    """the timed step's index in the oracle's clips"""
    ms: int
    through_clip: bool


def holds(s: AgentScenario, path: list[tuple[int, int, str | None]],
          rules: AgentRules = AgentRules()) -> dict[int, list[Hold]]:
    """Per reply (its clip's index in `path`): the steps timed against it. A backchannel needs the reply
    going through it and `keeps_talking` past it; a barge-in needs it still going when it starts."""
    out: dict[int, list[Hold]] = {}
    for i, (k, _, text) in enumerate(path):
        if text is None or s.steps[k].kind not in TURN_ENDS:
            continue
        for j in range(i + 1, len(path)):
            st = s.steps[path[j][0]]
            if st.kind in TIMED_TO_AGENT:
                after = rules.after_ms if st.after_ms is None else st.after_ms
                if st.kind is StepKind.backchannel:
                    keep = st.expect.keeps_talking or rules.keep_talking_ms
                    out.setdefault(i, []).append(Hold(j, after + keep, True))
                else:
                    out.setdefault(i, []).append(Hold(j, after + BARGE_IN_MS, False))
            if st.kind in TURN_ENDS:
                break
    return out


def _more_speech(voice: str, rate: int) -> np.ndarray:
    """`MORE` in the language `voice` speaks (English where that is not known: a service voice)."""
    from floorbench.speech.tts import synthesize

    return synthesize(PHRASES[voice_language(voice) or "en"].more, voice, rate)


def reply_voice(s: AgentScenario, settings: OracleSettings) -> str | None:
    """The voice the oracle answers a test in, where its settings' voice will not do (None: that one)."""
    return answer_voice(s.language, settings.voice)


def lengthen_replies(segments: list[dict[str, Any]], settings: OracleSettings, rate: int,
                     needs: dict[int, list[Hold]],
                     more: Callable[[str, int], np.ndarray] = _more_speech) -> None:
    """Each reply in `segments` with a step timed against it made long enough for that step: `MORE` said
    after it as often as needed (`segments[i]["length"]`: a clip's length at 16 kHz)."""
    for i, hs in needs.items():
        speech = segments[i].get("speech")
        if speech is None:
            continue
        need = HOLD_MARGIN_MS + max(h.ms + (segments[h.clip]["length"] * 1000 // VAD_RATE if h.through_clip else 0)
                                    for h in hs)
        short = need - len(speech) * 1000 // rate
        if short > 0:
            extra = more(settings.voice, rate)
            times = math.ceil(short * rate / 1000 / max(1, len(extra)))
            segments[i]["speech"] = np.concatenate([speech, *([extra] * times)])


def talking_through(segments: list[dict[str, Any]], settings: OracleSettings, rate: int,
                    needs: dict[int, list[Hold]],
                    more: Callable[[str, int], np.ndarray] = _more_speech) -> FrameProcessor:
    """The stock `OracleProcessor`, its replies made long enough for the steps timed against them
    (`lengthen_replies`)."""
    lengthen_replies(segments, settings, rate, needs, more)
    return OracleProcessor(segments, settings.response_delay_ms, settings.n4_wait_ms,
                           backend=settings.shared_backend, out_rate=rate)


def oracle(scenario: Any, suite: Any, settings: OracleSettings) -> OraclePlan:
    """Suite agent's oracle: its clips in playing order; a reply that a backchannel or barge-in is timed
    against lasts long enough for it (`talking_through`), so the reference passes the tests a good agent
    passes whatever their `after_ms` and clips."""
    s: AgentScenario = scenario
    path = oracle_path(s)
    clips = [OracleClip(LABEL[s.steps[k].kind], s.clip(clip).audio, text, barges_in=s.steps[k].kind is StepKind.barge_in)
             for k, clip, text in path]
    needs, voice = holds(s, path), None if s.language == "en" else reply_voice(s, settings)
    if s.tools is not None:  # it makes the calls the test expects between a turn and its reply
        def lengthen(segs: list[dict[str, Any]], st: OracleSettings, rate: int) -> None:
            lengthen_replies(segs, st, rate, needs)

        return OraclePlan(clips, processor=factory(expected_calls(s, path), lengthen if needs else None), voice=voice)
    if not needs:
        return OraclePlan(clips, voice=voice)
    return OraclePlan(clips, processor=lambda segs, st, rate: talking_through(segs, st, rate, needs), voice=voice)
