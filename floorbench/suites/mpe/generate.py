"""Procedural generator of the `mpe` suite (`floorbench generate --suite mpe`).

For each pair: draw the five attributes (a plausible combination), 3 or 4
humans with names and fixed voices, a task family (its facts and gold answer),
a label sequence with exactly one `T` (never first, never last), `N4Q`/`N4R`
pairs and `N1`/`N2`/`N3` distractors; spread the facts over turns before the
request; say every turn in the register of the scenario; then derive the
`explicit` and `implicit` scenario, which differ only in the request and, where
an implicit request needs a cue, the turn before it.

Deterministic: pair `i` of seed `S` depends only on (S, i), so a larger suite
extends a smaller one and the same seed always writes byte-identical files.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from floorbench.paths import prepare_out
from floorbench.scenarios.files import write_scenario, write_suite
from floorbench.scenarios.schema import Preamble, Suite
from floorbench.scenarios.validate import ScenarioError
from floorbench.suites.mpe import phrases as P
from floorbench.suites.mpe.schema import Label, Scenario
from floorbench.suites.mpe.tasks import FAMILIES, NUMERIC_FAMILIES, Ctx, Fact, Task, cap
from floorbench.suites.mpe.validate import check_pair, check_scenario
from floorbench.suites.mpe.vocab import (
    ACTIVITIES,
    CURRENCIES,
    DISTANCE_UNITS,
    FEMALE_NAMES,
    LOCATIONS,
    MALE_NAMES,
    OTHER_DEVICE_COMMANDS,
    PREAMBLE_VOICE,
    REGISTERS,
    RELATIONSHIPS,
    SPEAKER_VOICES,
    Activity,
    Device,
    Register,
    Relationship,
    devices_for,
    locations_for,
)

GENERATOR_VERSION = 1
MAX_PAIRS = 100_000
"""pair ids carry a five-digit index (`mpe-s<seed>-00042`); more pairs would break their order"""
MIN_TURNS = 4
"""a request is never first nor last and needs a turn of evidence before it: 3 turns cannot hold one"""
MAX_TURNS = 40
DUTY_PREAMBLE = (
    "Hello. For this session you are Aria, a voice assistant in a room with several people. "
    "Please listen carefully. Answer only when someone speaks to you directly and asks you something "
    "you can answer, and keep your answers short. Stay silent when people talk to each other, "
    "when they speak to another device, when they talk to themselves, or when they only mention your name. "
    "If someone asks you a question and another person answers it first, or says never mind, "
    "stop talking at once and stay quiet. The conversation starts now."
)
_CONTRACTIONS = {
    "I'm": "I am", "it's": "it is", "It's": "It is", "don't": "do not", "Don't": "Do not", "can't": "cannot",
    "I've": "I have", "we've": "we have", "We've": "We have", "what's": "what is", "What's": "What is",
    "that's": "that is", "That's": "That is", "they'd": "they would", "I'd": "I would", "I'll": "I will",
    "we'll": "we will", "who's": "who is", "Who's": "Who is", "Let's": "Let us", "you're": "you are",
    "wasn't": "was not", "isn't": "is not", "doesn't": "does not", "haven't": "have not", "it'll": "it will",
}

# a register opener is not stacked on a turn that already opens with one of these
_DISCOURSE_MARKERS = frozenset({
    "Oh", "Okay", "So", "Quick", "Yeah", "Right", "Actually", "Hmm", "Fun", "Brace", "Just", "For", "If", "Sorry",
    "No", "Never", "Forget", "Let", "Note",
})
_KEEP_CAPITAL = frozenset({"I", "Aria", "Alexa", "Siri", "Google"})


@dataclass(frozen=True)
class GenConfig:
    min_turns: int = 6
    max_turns: int = 10
    n4_weights: tuple[int, int, int] = (35, 50, 15)
    """relative weights of 0, 1 and 2 N4Q/N4R pairs per scenario"""
    distractor_weights: tuple[int, int, int] = (25, 45, 30)
    """relative weights of N1, N2, N3 among the other turns"""


def layout(rng: random.Random, cfg: GenConfig, n_facts: int) -> tuple[list[Label], int]:
    """A scenario's label sequence and the index of its one `T`: N4Q/N4R pairs and N1-N3 around it, with
    enough plain turns before the request for `n_facts` facts (two to a turn at most)."""
    n = rng.randint(cfg.min_turns, cfg.max_turns)
    need = (n_facts + 1) // 2
    p = rng.randint(max(1, need), n - 2)
    labels: list[Label | None] = [None] * n
    labels[p] = Label.T
    k4 = rng.choices((0, 1, 2), weights=cfg.n4_weights)[0]
    for _ in range(k4):
        starts = [i for i in range(n - 1) if labels[i] is None and labels[i + 1] is None]
        # keep enough plain turns before the request for the evidence
        starts = [i for i in starts if sum(1 for j in range(p) if labels[j] is None and j not in (i, i + 1)) >= need]
        if not starts:
            break
        i = rng.choice(starts)
        labels[i], labels[i + 1] = Label.N4Q, Label.N4R
    for i in range(n):
        if labels[i] is None:
            labels[i] = rng.choices((Label.N1, Label.N2, Label.N3), weights=cfg.distractor_weights)[0]
    return [lab for lab in labels if lab is not None], p


class TurnMaker(Protocol):
    """What `walk_turns` asks of a pair builder (the English one here, `generate_languages.LanguagePair`)."""

    def other(self, speaker: str | None) -> str: ...

    def request_speaker(self, prev: str | None, task: Task) -> str: ...

    def side_question(self, asker: str) -> tuple[str, str, str, str]: ...


def walk_turns(labels: list[Label], task: Task, maker: TurnMaker,
               plain: Callable[[int, Label, str | None], tuple[str, str]]) -> list[dict]:
    """The turns of a scenario along its label sequence, each a dict of the scenario file: the request `T`
    (its text is the twins' own, filled in later), each `N4Q` with the `N4R` that settles it, and the plain
    turns, (speaker, text) from `plain(index, label, who spoke last)`."""
    turns: list[dict] = []
    prev: str | None = None
    i = 0
    while i < len(labels):
        lab = labels[i]
        if lab is Label.T:
            turns.append({"id": i + 1, "speaker": maker.request_speaker(prev, task), "label": "T", "text": "",
                          "gold": task.gold, "gold_aliases": task.aliases})
        elif lab is Label.N4Q:
            asker = maker.other(prev)
            q_text, attempt, resolver, r_text = maker.side_question(asker)
            turns.append({"id": i + 1, "speaker": asker, "label": "N4Q", "text": q_text, "attempt": attempt})
            turns.append({"id": i + 2, "speaker": resolver, "label": "N4R", "text": r_text})
            prev, i = resolver, i + 2
            continue
        else:
            speaker, text = plain(i, lab, prev)
            turns.append({"id": i + 1, "speaker": speaker, "label": lab.value, "text": text})
        prev = turns[-1]["speaker"]
        i += 1
    return turns


class GeneratedPair:
    """Builds the two scenarios of one pair from one random stream."""

    def __init__(self, rng: random.Random, pair_id: str, cfg: GenConfig, seen: set[str]) -> None:
        self.rng = rng
        self.pair_id = pair_id
        self.cfg = cfg
        self.seen = seen
        self.activity: Activity = rng.choice(ACTIVITIES)
        self.location: str = rng.choice(locations_for(self.activity))
        self.device: Device = rng.choice(devices_for(self.location))
        self.relationship: Relationship = rng.choice(RELATIONSHIPS)
        self.register: Register = rng.choice(REGISTERS)
        n = rng.choice((3, 4))
        ids = list(SPEAKER_VOICES)[:n]
        fem = rng.sample(FEMALE_NAMES, 1)
        male = rng.sample(MALE_NAMES, n - 1)
        self.names = {sid: (fem.pop() if SPEAKER_VOICES[sid][1] == "f" else male.pop()) for sid in ids}
        self.speakers = {sid: {"name": self.names[sid], "voice": SPEAKER_VOICES[sid][0]} for sid in ids}
        self.used: set[str] = set()

    # ----------------------------------------------------------------- helpers

    def pick(self, options, avoid_used: bool = True) -> str:
        opts = [o for o in options if o not in self.used] if avoid_used else list(options)
        choice = self.rng.choice(opts or list(options))
        self.used.add(choice)
        return choice

    def other(self, speaker: str | None, avoid: set[str] | None = None) -> str:
        cands = [s for s in self.names if s != speaker and s not in (avoid or set())]
        cands = cands or [s for s in self.names if s != speaker]
        return self.rng.choice(cands)

    def style(self, text: str, opener_p: float = 0.3, tail_p: float = 0.12) -> str:
        reg = self.register
        first = text.split(" ", 1)[0].strip(",.:!?").split("'")[0]
        if self.rng.random() < opener_p and first not in _DISCOURSE_MARKERS:
            op = self.rng.choice(reg.openers)
            if op:
                keep = first in self.names.values() or first in _KEEP_CAPITAL or first.isupper()
                text = op + (text if keep else text[:1].lower() + text[1:])
        if self.rng.random() < tail_p and text.endswith("."):
            text += self.rng.choice(reg.tails)
        if reg.expand_contractions:
            text = " ".join(_CONTRACTIONS.get(w, w) for w in text.split(" "))
        return text

    def fill(self, frame: str, speaker: str, **kw: str) -> str:
        addressee = kw.pop("addressee", None) or self.other(speaker)
        group = self.rng.choice(self.relationship.group)
        values = {"name": self.names[addressee], "group": group, "Group": cap(group), "thing": cap(self.device.thing)}
        values.update(kw)
        return frame.format(**values)

    # ----------------------------------------------------------------- layout

    def layout(self, n_facts: int) -> tuple[list[Label], int]:
        return layout(self.rng, self.cfg, n_facts)

    # ----------------------------------------------------------------- turns

    def evidence_turn(self, label: Label, facts: list[Fact], prev: str | None) -> tuple[str, str]:
        rng = self.rng
        persons = {f.person for f in facts if f.person}
        # First-person facts ("I'll be bringing the cake") are said to someone: only in N2 turns.
        first_person = [f for f in facts if f.person and f.first] if label is Label.N2 else []
        if first_person and rng.random() < 0.5:
            speaker = first_person[0].person
        else:
            cands = [s for s in self.names if s not in persons and s != prev] or [s for s in self.names if s not in persons]
            speaker = rng.choice(cands or [s for s in self.names if s != prev])
        assert speaker is not None
        clauses = []
        any_first = False
        for f in facts:
            if label is Label.N2 and f.first and (f.person == speaker or (f.person is None and rng.random() < 0.15)):
                clauses.append(rng.choice(f.first))
                any_first = True
            else:
                clauses.append(rng.choice(f.third))
        c = clauses[0]
        for c2 in clauses[1:]:
            c += rng.choice(P.JOIN).format(c2=c2)
        frames = {Label.N1: P.FACT_N1, Label.N2: P.FACT_N2_FIRST if any_first else P.FACT_N2, Label.N3: P.FACT_N3}[label]
        frame = rng.choice(frames)
        text = self.fill(frame, speaker, addressee=self.other(speaker, persons), c=c, C=cap(c))
        # register openers and tails are said to others, not muttered to oneself
        return speaker, (text if label is Label.N3 else self.style(text))

    def filler_turn(self, label: Label, prev: str | None, after_request: bool) -> tuple[str, str]:
        rng = self.rng
        speaker = self.other(prev) if prev else rng.choice(list(self.names))
        if label is Label.N1:
            bank = P.FILLER_N1_AFTER if after_request and rng.random() < 0.5 else P.FILLER_N1
            frame = self.pick(bank)
        elif label is Label.N2:
            r = rng.random()
            if r < 0.3 and self.activity.chatter:
                frame = self.pick(self.activity.chatter)
            elif r < 0.5:
                frame = self.pick(self.relationship.chatter)
            elif r < 0.72:
                frame = self.pick(OTHER_DEVICE_COMMANDS).replace("{n}", str(rng.choice((5, 7, 10, 12, 15, 20, 25))))
            else:
                frame = self.pick(P.FILLER_N2_AFTER if after_request and rng.random() < 0.5 else P.FILLER_N2)
        else:
            frame = self.pick(self.activity.mutter if self.activity.mutter and rng.random() < 0.55 else P.FILLER_N3)
            return speaker, self.fill(frame, speaker)
        return speaker, self.style(self.fill(frame, speaker), opener_p=0.2)

    def request_speaker(self, prev: str | None, task: Task) -> str:
        """Who says the request: not the previous speaker, and nobody the task rules out as asker."""
        cands = [s for s in self.names if s != prev and s not in task.not_asker]
        return self.rng.choice(cands or [s for s in self.names if s not in task.not_asker])

    def side_question(self, asker: str) -> tuple[str, str, str, str]:
        rng = self.rng
        bank = list(self.activity.side_questions) if rng.random() < 0.6 else []
        bank = [q for q in bank if q.question not in self.used] or [
            q for q in P.GENERIC_SIDE_QUESTIONS if q.question not in self.used
        ]
        sq = rng.choice(bank)
        self.used.add(sq.question)
        q_text = rng.choice(P.N4Q_FRAMES).format(q=sq.question)
        if rng.random() < 0.4:
            resolver = asker
            r_text = rng.choice(P.N4R_NEVER_MIND)
        else:
            resolver = self.other(asker)
            r_text = rng.choice(P.N4R_OTHER).format(a=sq.human_answer, A=cap(sq.human_answer), asker=self.names[asker])
        return self.style(q_text, opener_p=0.15, tail_p=0.0), sq.attempt, resolver, self.style(r_text, 0.1, 0.0)

    def request(self, task: Task, explicit: bool) -> tuple[str, bool]:
        """The request text, and whether the turn before needs an implicit cue."""
        rng = self.rng
        please = rng.choice(self.register.please)
        frame = text = ""
        for _ in range(12):
            frames = P.REQUEST_EXPLICIT if explicit else P.REQUEST_IMPLICIT
            frame = rng.choice(frames)
            q = rng.choice(task.direct)
            iq = rng.choice(task.indirect)
            text = frame.format(q=q, Q=cap(q), iq=iq, p=please)
            text = self.style(text, opener_p=0.25, tail_p=0.0)
            if text not in self.seen:
                break
        self.seen.add(text)
        bare = frame.startswith("{Q}") or frame.startswith(("Okay, {q}", "So, {q}", "Quick question"))
        needs_cue = (not explicit) and (bare or rng.random() < 0.3)
        return text, needs_cue

    # ----------------------------------------------------------------- the pair

    def build(self, families: list[str] | None = None) -> tuple[Scenario, Scenario]:
        rng = self.rng
        ctx = Ctx(rng=rng, activity=self.activity, currency=rng.choice(CURRENCIES), unit=rng.choice(DISTANCE_UNITS),
                  names=self.names, travelling=LOCATIONS[self.location] in ("vehicle", "outdoor"))
        names = list(families or FAMILIES)
        rng.shuffle(names)
        task = None
        for fam in names:
            task = FAMILIES[fam](ctx)
            if task is not None:
                break
        if task is None:
            raise ScenarioError(f"pair {self.pair_id}: no task family fits activity {self.activity.name!r}")
        labels, p = self.layout(len(task.facts))
        # spread the facts over the plain turns before the request, in their required order
        slots = [i for i in range(p) if labels[i] in (Label.N1, Label.N2, Label.N3)]
        facts = sorted(task.facts, key=lambda f: f.order)
        k = min(len(slots), len(facts))
        chosen = sorted(rng.sample(slots, k))
        per_slot: dict[int, list[Fact]] = {i: [] for i in chosen}
        cuts = sorted(rng.sample(range(1, len(facts)), k - 1)) if k > 1 else []
        bounds = [0, *cuts, len(facts)]
        for j, i in enumerate(chosen):
            per_slot[i] = facts[bounds[j]:bounds[j + 1]]
        turns = walk_turns(labels, task, self, lambda i, lab, prev: (
            self.evidence_turn(lab, per_slot[i], prev) if i in per_slot
            else self.filler_turn(lab, prev, after_request=i > p)))
        ex_text, _ = self.request(task, explicit=True)
        im_text, cue = self.request(task, explicit=False)
        ex_turns = [dict(t) for t in turns]
        im_turns = [dict(t) for t in turns]
        ex_turns[p]["text"] = ex_text
        im_turns[p]["text"] = im_text
        differs = [p + 1]
        if cue and labels[p - 1] in (Label.N1, Label.N2, Label.N3):
            cues = P.IMPLICIT_CUES + (P.IMPLICIT_CUES_NUMERIC if task.family in NUMERIC_FAMILIES else ())
            cue_text = rng.choice(cues)
            if self.register.expand_contractions:
                cue_text = " ".join(_CONTRACTIONS.get(w, w) for w in cue_text.split(" "))
            im_turns[p - 1]["text"] = im_turns[p - 1]["text"] + " " + cue_text
            differs = [p, p + 1]
        attrs = {"location": self.location, "activity": self.activity.name, "relationship": self.relationship.name,
                 "device_context": self.device.name, "register": self.register.name}
        meta = {"generator": "procedural", "generator_version": GENERATOR_VERSION, "task": task.family}
        out = []
        for cond, tt in (("explicit", ex_turns), ("implicit", im_turns)):
            out.append(Scenario.model_validate({
                "scenario_id": f"{self.pair_id}-{cond}", "pair_id": self.pair_id, "condition": cond,
                "attributes": attrs, "speakers": self.speakers, "turns": tt, "differs": differs, "meta": meta,
            }))
        return out[0], out[1]


def check_bounds(pairs: int, cfg: GenConfig) -> None:
    """The sizes the generator accepts, so a typo cannot write without end."""
    if not 1 <= pairs <= MAX_PAIRS:
        raise ScenarioError(f"--pairs must be 1..{MAX_PAIRS}, got {pairs}")
    if not MIN_TURNS <= cfg.min_turns <= cfg.max_turns <= MAX_TURNS:
        raise ScenarioError(
            f"turns {cfg.min_turns}-{cfg.max_turns}: need {MIN_TURNS} <= min <= max <= {MAX_TURNS}; "
            "fix --min-turns/--max-turns"
        )


def generate_pairs(
    pairs: int, seed: int, cfg: GenConfig | None = None, families: list[str] | None = None
):
    """Yield (explicit, implicit) scenario pairs; each is checked against the rules of docs/suites/mpe.md."""
    cfg = cfg or GenConfig()
    check_bounds(pairs, cfg)
    for fam in families or []:
        if fam not in FAMILIES:
            raise ScenarioError(f"task family {fam!r} unknown; use one of {', '.join(FAMILIES)}")
    seen: set[str] = set()
    for i in range(pairs):
        pair_id = f"mpe-s{seed}-{i:05d}"
        rng = random.Random(f"floorbench-mpe:{GENERATOR_VERSION}:{seed}:{i}")
        ex, im = GeneratedPair(rng, pair_id, cfg, seen).build(families)
        where = Path(f"<generated {pair_id}>")
        check_scenario(ex, where)
        check_scenario(im, where)
        check_pair(ex, im, where)
        yield ex, im


def write_generated_suite(
    out: Path,
    pairs: int,
    seed: int,
    cfg: GenConfig | None = None,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Generate `pairs` pairs into the suite folder `out` (suite.yaml + scenarios/)."""
    check_bounds(pairs, cfg or GenConfig())  # before anything is deleted or written
    out = Path(out)
    (scen_dir,) = prepare_out(out, ("scenarios",), force, ScenarioError)
    suite = Suite(
        name=f"mpe-seed{seed}", suite="mpe",
        description=f"Procedurally generated Duplex-MPE suite: {pairs} pairs, seed {seed}.",
        preamble=Preamble(text=DUTY_PREAMBLE, voice=PREAMBLE_VOICE),
        generator={"name": "procedural", "version": GENERATOR_VERSION, "seed": seed, "pairs": pairs},
    )
    write_suite(out, suite)
    for n, (ex, im) in enumerate(generate_pairs(pairs, seed, cfg), 1):
        for s in (ex, im):
            write_scenario(scen_dir / f"{s.scenario_id}.yaml", s)
        if progress:
            progress(n)
    return out
