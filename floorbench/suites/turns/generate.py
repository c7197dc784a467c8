"""Procedural generator of suite `turns` (docs/suites/turns.md): dyadic scenarios with labelled clips.

Each scenario is one conversation of one type (casual, task-oriented,
instructional, storytelling, argument) between a simulated user and the
model. The user's turns come from small per-type phrase banks; a turn is one
clip ending in `eot`, or two clips with a mid-turn `pause` (400–1500 ms) between
them. After an end of turn the generator may add, timed against the model's
reply, a backchannel ("mm-hm"), a background voice (`noise`) or a barge-in
(`interrupt`, which is itself the user's next turn). The same seed gives the
same files, byte for byte.

Limitation, said where it matters: `noise` is a second voice at the same level
(the render path only speaks text); non-speech sounds are not generated.

`language` (es, de, zh) takes the lines from `floorbench.suites.turns.phrases` and the
language's voice; English keeps its banks and voices here, and the same seed gives the same
English files as before languages existed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from floorbench.paths import prepare_out
from floorbench.scenarios.files import dump_yaml, write_suite, write_text_atomic
from floorbench.scenarios.schema import Preamble, Speaker, Suite
from floorbench.scenarios.validate import ScenarioError
from floorbench.speech.languages import LANGUAGES
from floorbench.suites.turns.phrases import BANKS, Bank
from floorbench.suites.turns.rules import CONVERSATION_TYPES, TurnEvent, TurnsRules
from floorbench.suites.turns.schema import SUITE_KIND, TurnsClip, TurnsScenario

GENERATOR_VERSION = 1
USER_VOICES = ("piper:joe", "festival:slt_hts", "flite:awb", "flite:kal16")
BACKGROUND_VOICE = "flite:rms"
MAX_DIALOGUES = 10_000
E = TurnEvent

# (first part, second part, the oracle's reply); a turn is said whole or split at the pause
TURNS: dict[str, list[tuple[str, str, str]]] = {
    "casual": [
        ("So I finally went to that new bakery,", "and the bread was still warm.",
         "That sounds lovely. Warm bread is hard to beat, especially in the morning."),
        ("My neighbour got a puppy last week,", "and it barks at every single bird.",
         "Puppies are like that at first. It will probably calm down in a few weeks."),
        ("I watched a film about the ocean,", "and now I want to learn to dive.",
         "Diving is a great idea. A beginner course near the coast would be a good start."),
    ],
    "task-oriented": [
        ("I need to book a table for four,", "somewhere quiet on Friday evening.",
         "I can help with that. A quiet place on Friday evening for four people, noted."),
        ("Can you move my dentist appointment,", "maybe to next Tuesday afternoon?",
         "Sure. I will look for a free slot on Tuesday afternoon and move it there."),
        ("I want to send a parcel to my sister,", "it is small but quite heavy.",
         "For a small heavy parcel a tracked postal service is usually the cheapest option."),
    ],
    "instructional": [
        ("How do I repot a plant,", "without hurting the roots?",
         "Water it the day before, loosen the soil gently, and lift the whole root ball at once."),
        ("What is the best way to clean a cast iron pan,", "after cooking eggs?",
         "Rinse it with hot water, scrub gently, dry it on the stove and wipe on a little oil."),
        ("Can you explain how to change a bike tyre,", "step by step?",
         "First release the brake, then take off the wheel and lever the tyre off the rim."),
    ],
    "storytelling": [
        ("Tell me a story about a lighthouse keeper,", "who finds a message in a bottle.",
         "Once there was a keeper named Ada who found a bottle on the rocks one stormy night."),
        ("Can you tell me a story about a dragon,", "who is afraid of the dark?",
         "There once was a little dragon who slept with a glowing stone beside his bed."),
        ("I would love a short story about a fox,", "set in a snowy city.",
         "In a city covered with snow, a clever fox learned to ride the morning tram."),
    ],
    "argument": [
        ("I think cities should ban cars downtown,", "because the air is terrible.",
         "Cleaner air matters, but shops and deliveries still need a way into the centre."),
        ("Honestly, homework is a waste of time,", "kids should just play after school.",
         "Play is important, yet a little practice at home helps many children remember."),
        ("Remote work is simply better,", "nobody needs an office anymore.",
         "Many people like it, though some teams say they miss talking face to face."),
    ],
}
BACKCHANNELS = ("Mm-hm.", "Right.", "Yeah.", "Okay.", "I see.")
INTERRUPTS = (
    "Wait, sorry, can I ask something first?",
    "Hold on, that is not what I meant.",
    "Sorry to cut in, can you make it shorter?",
)
BACKGROUND = ("Did anyone see my keys?", "The bus is late again.", "Turn the music down, please.")


def _pause_ms(rng: random.Random, rules: TurnsRules) -> int:
    return rng.randrange(rules.pause_min_ms, rules.pause_max_ms + 1, 50)


def build_scenario(rng: random.Random, scenario_id: str, kind: str, user_turns: int,
                   language: str = "en") -> TurnsScenario:
    """One conversation of `kind` in `language`: `user_turns` turns, each with a chance of a pause, a
    backchannel, a background voice or a barge-in."""
    rules = TurnsRules()
    lines = _bank(language)
    bank = rng.sample(lines.turns[kind], k=min(user_turns, len(lines.turns[kind])))
    clips: list[dict[str, Any]] = []
    for n, (first, second, reply) in enumerate(bank):
        if rng.random() < 0.6:
            clips.append({"label": E.pause, "text": first, "pause_ms": _pause_ms(rng, rules)})
            clips.append({"label": E.eot, "text": second, "reply": reply})
        else:
            clips.append({"label": E.eot, "text": f"{first} {second}", "reply": reply})
        if n == len(bank) - 1:
            break
        extra = rng.random()
        if extra < 0.35:
            clips.append({"label": E.backchannel, "text": rng.choice(lines.backchannels),
                          "offset_ms": rng.randrange(1200, 2001, 100)})
        elif extra < 0.5:
            clips.append({"label": E.noise, "text": rng.choice(lines.background), "speaker": "B",
                          "offset_ms": rng.randrange(1200, 2001, 100)})
        elif extra < 0.8:
            clips.append({"label": E.interrupt, "text": rng.choice(lines.interrupts),
                          "offset_ms": rng.randrange(1200, 2001, 100),
                          "reply": lines.go_ahead})
    own = LANGUAGES[language].voice  # beyond English: the language's one local voice, for both speakers
    speakers = {"U": Speaker(name="User", voice=rng.choice(USER_VOICES) if language == "en" else own)}
    if any(c.get("speaker") == "B" for c in clips):
        speakers["B"] = Speaker(name="Background", voice=BACKGROUND_VOICE if language == "en" else own)
    turns = [TurnsClip.model_validate({"id": i, "speaker": "U"} | c) for i, c in enumerate(clips, 1)]
    return TurnsScenario(
        scenario_id=scenario_id, conversation_type=kind, speakers=speakers, turns=turns, language=language,
        meta={"generator": "turns-procedural", "version": GENERATOR_VERSION},
    )


def _bank(language: str) -> Bank:
    """The lines of `language`: English's from this module, the others' from `phrases`."""
    if language == "en":
        return Bank(TURNS, BACKCHANNELS, INTERRUPTS, BACKGROUND, "Of course, go ahead.", "Hello.")
    return BANKS[language]


def dump_turns_scenario(s: TurnsScenario) -> str:
    """Canonical YAML: unset optional fields left out, so hand-written and generated files look alike."""
    d = s.model_dump(mode="json")
    d["turns"] = [{k: v for k, v in t.items() if v is not None} for t in d["turns"]]
    if d.get("language") == "en":
        d.pop("language")  # the default: English files as before languages existed
    if not d.get("meta"):
        d.pop("meta", None)
    return dump_yaml(d)


def generate_dialogues(n: int, seed: int, user_turns: int = 3, language: str = "en") -> list[TurnsScenario]:
    """`n` scenarios in `language`, conversation types in turn, deterministic for `seed`."""
    if not 1 <= n <= MAX_DIALOGUES:
        raise ScenarioError(f"--pairs {n}: the turns generator makes 1..{MAX_DIALOGUES} dialogues")
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = CONVERSATION_TYPES[i % len(CONVERSATION_TYPES)]
        out.append(build_scenario(rng, f"turns{i + 1:04d}-{kind}", kind, user_turns, language))
    return out


def write_turns_suite(
    out: Path, n: int, seed: int, force: bool = False, progress: Callable[[int], None] | None = None,
    language: str = "en",
) -> Path:
    """Generate `n` dialogues in `language` into the suite folder `out` (suite.yaml + scenarios/)."""
    scenarios = generate_dialogues(n, seed, language=language)
    tag = "" if language == "en" else f", in {LANGUAGES[language].name}"
    (scen_dir,) = prepare_out(Path(out), ("scenarios",), force, ScenarioError)
    write_suite(Path(out), Suite(
        name=f"turns-seed{seed}", suite=SUITE_KIND,
        description=f"Procedurally generated turns suite: {n} dialogues, seed {seed}{tag}.",
        preamble=Preamble(text=_bank(language).hello, voice="piper:joe" if language == "en" else LANGUAGES[language].voice),
        generator={"name": "turns-procedural", "version": GENERATOR_VERSION, "seed": seed, "pairs": n},
    ))
    for k, s in enumerate(scenarios, 1):
        write_text_atomic(scen_dir / f"{s.scenario_id}.yaml", dump_turns_scenario(s))
        if progress:
            progress(k)
    return Path(out)
