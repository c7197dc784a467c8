"""Fixed vocabularies of the procedural `mpe` generator (documented in docs/scenarios.md).

The five scenario attributes — location, shared activity, relationship, device
context, register — each come from one list. Each activity carries its own
lexicon (things with prices, places with distances, events with times,
countable things, choices, jobs, chatter and side questions), which the task
families in `tasks.py` draw their evidence from. An activity lists the
locations it can happen in, and a device context the kinds of location it fits,
so a combination is always plausible (nobody cooks dinner on a motorway).

The words are data: they are in `banks/vocab.yaml` beside this module, read once
when it is imported (`floorbench.scenarios.banks`); here are the records they
fill, what each field means, and the speakers' voices.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from floorbench.scenarios.banks import load_bank, record

# --------------------------------------------------------------------------- records

@dataclass(frozen=True)
class Device:
    """Where Aria runs, and what people call the device itself."""

    name: str
    kinds: tuple[str, ...]
    thing: str
    """how a human refers to the device, e.g. 'the speaker'"""


@dataclass(frozen=True)
class Relationship:
    name: str
    group: tuple[str, ...]
    """ways to address the whole group"""
    chatter: tuple[str, ...]
    """relationship small talk addressed to one person ({name} is the addressee)"""


@dataclass(frozen=True)
class Register:
    """How people talk: openers before statements, tails after them, politeness in requests."""

    name: str
    openers: tuple[str, ...]
    tails: tuple[str, ...]
    please: tuple[str, ...]
    expand_contractions: bool = False


@dataclass(frozen=True)
class SideQuestion:
    """An N4 question to Aria that a human resolves."""

    question: str
    """the question core, no name, ends with '?'"""
    attempt: str
    """what an eager assistant starts to say (long enough to take > 3.5 s)"""
    human_answer: str
    """another human's answer"""


@dataclass(frozen=True)
class Activity:
    name: str
    locations: tuple[str, ...]
    """where it can plausibly happen (each one a key of LOCATIONS)"""
    items: tuple[tuple[str, int, int], ...] = ()
    """things paid for: (noun phrase, lowest price, highest price)"""
    places: tuple[tuple[str, int, int], ...] = ()
    """places travelled to: (noun phrase, km low, km high)"""
    events: tuple[tuple[str, int, int], ...] = ()
    """things happening at a clock time: (noun phrase, earliest hour, latest hour)"""
    spans: tuple[tuple[str, int, int], ...] = ()
    """things that take time: (noun phrase, min minutes, max minutes)"""
    countables: tuple[tuple[str, int, int], ...] = ()
    """things people bring/count: (plural noun, low, high)"""
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(what is chosen, options), e.g. ('to eat', ('the curry', ...))"""
    jobs: tuple[str, ...] = ()
    """things someone will do, as '-ing' phrases: 'bringing the cake'"""
    chatter: tuple[str, ...] = ()
    """lines to one person ({name} is the addressee)"""
    mutter: tuple[str, ...] = ()
    """self-talk"""
    side_questions: tuple[SideQuestion, ...] = ()


# --------------------------------------------------------------------------- the words

_BANK = load_bank(Path(__file__).parent / "banks", "vocab")

LOCATIONS: dict[str, str] = _BANK["locations"]
"""name -> kind (home, vehicle, work, public, outdoor)"""
DEVICES: tuple[Device, ...] = tuple(record(Device, d) for d in _BANK["devices"])
OTHER_DEVICE_COMMANDS: tuple[str, ...] = _BANK["other_device_commands"]
RELATIONSHIPS: tuple[Relationship, ...] = tuple(record(Relationship, r) for r in _BANK["relationships"])
REGISTERS: tuple[Register, ...] = tuple(record(Register, r) for r in _BANK["registers"])
FEMALE_NAMES: tuple[str, ...] = _BANK["female_names"]
MALE_NAMES: tuple[str, ...] = _BANK["male_names"]
CURRENCIES: tuple[str, ...] = _BANK["currencies"]
DISTANCE_UNITS: tuple[str, ...] = _BANK["distance_units"]
ACTIVITIES: tuple[Activity, ...] = tuple(
    record(Activity, a, side_questions=tuple(record(SideQuestion, q) for q in a.get("side_questions", ())))
    for a in _BANK["activities"]
)

# --------------------------------------------------------------------------- voices

SPEAKER_VOICES: dict[str, tuple[str, str]] = {
    # speaker id -> (voice id, gender of the names drawn for it): a fixed speaker→voice map
    "A": ("festival:slt_hts", "f"),
    "B": ("flite:awb", "m"),
    "C": ("flite:kal16", "m"),
    "D": ("flite:rms", "m"),
}
PREAMBLE_VOICE = "piper:joe"


def locations_for(activity: Activity) -> list[str]:
    return list(activity.locations)


def devices_for(location: str) -> list[Device]:
    kind = LOCATIONS[location]
    return [d for d in DEVICES if kind in d.kinds]


def vocabulary() -> dict[str, set[str]]:
    """The allowed values of each scenario attribute."""
    return {
        "location": set(LOCATIONS),
        "activity": {a.name for a in ACTIVITIES},
        "relationship": {r.name for r in RELATIONSHIPS},
        "device_context": {d.name for d in DEVICES},
        "register": {r.name for r in REGISTERS},
    }
