"""Suite mpe's generator beyond English (`floorbench generate --suite mpe --language es|de|zh`).

The same pairs as the English generator makes — one label sequence (`generate.layout`: one `T`, never first
nor last, `N4Q`/`N4R` pairs, `N1`/`N2`/`N3` around them), the facts spread over turns before the request,
an explicit and an implicit twin that differ only in the request and perhaps the turn before it — from the
smaller hand-written banks of `floorbench.suites.mpe.lines` (one kitchen setting, three task families). Every
human speaks with the language's local voice (floorbench.speech.languages), and each scenario records its
language, so the run records it and the scorer hears and judges in it.

Deterministic like the English one: pair `i` of seed `S` in language `L` depends only on (L, S, i). The pair
ids carry the language (`mpe-es-s7-00000`), so suites in several languages can be run side by side.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from floorbench.paths import prepare_out
from floorbench.scenarios.files import write_scenario, write_suite
from floorbench.scenarios.schema import Preamble, Suite
from floorbench.scenarios.validate import ScenarioError
from floorbench.speech.languages import LANGUAGES
from floorbench.suites.mpe.generate import GENERATOR_VERSION, GenConfig, check_bounds, layout, walk_turns
from floorbench.suites.mpe.lines import FAMILIES, LINES, Lines, money_gold, said
from floorbench.suites.mpe.schema import SILENT_LABELS, Label, Scenario
from floorbench.suites.mpe.tasks import Fact, Task
from floorbench.suites.mpe.validate import check_pair, check_scenario

ATTRIBUTES = {"location": "kitchen", "activity": "cooking dinner", "device_context": "smart speaker on the counter",
              "register": "casual"}
"""the one setting of these banks (values from the English generator's vocabularies)"""
RELATIONSHIPS = ("family", "roommates", "old friends")
GENDERS = {"A": "f", "B": "m", "C": "m", "D": "m"}
"""the English generator's speaker → gender of the names drawn for it"""


def cap(text: str) -> str:
    """`text` with its first letter upper-case, past a Spanish opening mark (¿quién → ¿Quién)."""
    for k, ch in enumerate(text):
        if ch.isalpha():
            return text[:k] + ch.upper() + text[k + 1:]
    return text


def _task(rng: random.Random, family: str, lines: Lines, code: str, names: dict[str, str]) -> Task:
    """One task of `family`: its facts, questions and the gold computed from the facts."""
    if family == "sum_cost":
        (s1, o1, lo1, hi1), (s2, o2, lo2, hi2) = rng.sample(lines.prices, 2)
        n1, n2 = rng.randint(lo1, hi1), rng.randint(lo2, hi2)
        facts = [Fact(third=[f.format(s=s, o=o, p=lines.money.format(n=said(n, code))) for f in lines.price_facts],
                      order=k) for k, (s, o, n) in enumerate(((s1, o1, n1), (s2, o2, n2)))]
        gold, aliases = money_gold(n1 + n2, code)
        q, iq = (x.format(a=s1, b=s2) for x in lines.sum_question)
        return Task("sum_cost", facts, [q], [iq], gold, aliases, subject=s1)
    if family == "who_brings":
        dish, who = rng.choice(lines.dishes), rng.choice(sorted(names))
        fact = Fact(third=[lines.bring_fact.format(person=names[who], dish=dish)])
        q, iq = (x.format(dish=dish) for x in lines.bring_question)
        return Task("who_brings", [fact], [q], [iq], names[who], [], subject=dish, not_asker={who})
    (thing, verb), (place, short) = rng.choice(lines.things), rng.choice(lines.places)
    fact = Fact(third=[lines.where_fact.format(thing=thing, verb=verb, place=place)])
    q, iq = (x.format(thing=thing, verb=verb) for x in lines.where_question)
    return Task("where_is", [fact], [q], [iq], place, [short], subject=thing)


class LanguagePair:
    """Builds the two scenarios of one pair in one language from one random stream."""

    def __init__(self, rng: random.Random, pair_id: str, code: str, cfg: GenConfig) -> None:
        self.rng, self.pair_id, self.code, self.cfg = rng, pair_id, code, cfg
        self.lines = LINES[code]
        ids = list(GENDERS)[:rng.choice((3, 4))]
        female = rng.sample(self.lines.female, 1)
        male = rng.sample(self.lines.male, len(ids) - 1)
        self.names = {sid: (female.pop() if GENDERS[sid] == "f" else male.pop()) for sid in ids}
        self.used: set[str] = set()

    def pick(self, options: tuple[str, ...]) -> str:
        fresh = [o for o in options if o not in self.used] or list(options)
        choice = self.rng.choice(fresh)
        self.used.add(choice)
        return choice

    def other(self, speaker: str | None, avoid: frozenset[str] | set[str] = frozenset()) -> str:
        cands = [s for s in self.names if s != speaker and s not in avoid] or [s for s in self.names if s != speaker]
        return self.rng.choice(cands)

    def evidence(self, label: Label, facts: list[Fact], prev: str | None, task: Task) -> tuple[str, str]:
        """A turn that states `facts`, said to another person (N2), mentioning Aria (N1) or to oneself (N3)."""
        speaker = self.other(prev, task.not_asker)  # "Javier brings the bread" is not said by or to Javier
        clause = (" y " if self.code == "es" else " und " if self.code == "de" else "，").join(
            self.rng.choice(f.third) for f in facts)
        frames = {Label.N1: self.lines.fact_n1, Label.N2: self.lines.fact_n2, Label.N3: self.lines.fact_n3}[label]
        name = self.names[self.other(speaker, task.not_asker)]
        return speaker, self.rng.choice(frames).format(name=name, c=clause)

    def filler(self, label: Label, prev: str | None) -> tuple[str, str]:
        speaker = self.other(prev)
        bank = {Label.N1: self.lines.n1, Label.N2: self.lines.n2, Label.N3: self.lines.n3}[label]
        return speaker, self.pick(bank).format(name=self.names[self.other(speaker)])

    def request_speaker(self, prev: str | None, task: Task) -> str:
        return self.other(prev, task.not_asker)

    def request(self, task: Task, explicit: bool) -> str:
        frame = self.rng.choice(self.lines.explicit if explicit else self.lines.implicit)
        q, iq = task.direct[0], task.indirect[0]
        return frame.format(q=q, Q=cap(q), iq=iq)

    def side_question(self, asker: str) -> tuple[str, str, str, str]:
        """(the question, the attempt, who resolves it, the resolution)."""
        fresh = [q for q in self.lines.side_questions if q.question not in self.used] or list(self.lines.side_questions)
        sq = self.rng.choice(fresh)
        self.used.add(sq.question)
        q_text = self.rng.choice(self.lines.n4q).format(q=sq.question)
        if self.rng.random() < 0.4:
            return q_text, sq.attempt, asker, self.rng.choice(self.lines.never_mind)
        resolver = self.other(asker)
        r_text = self.rng.choice(self.lines.resolved).format(a=sq.human_answer, A=cap(sq.human_answer),
                                                             asker=self.names[asker])
        return q_text, sq.attempt, resolver, r_text

    def build(self) -> tuple[Scenario, Scenario]:
        rng = self.rng
        task = _task(rng, rng.choice(FAMILIES), self.lines, self.code, self.names)
        labels, p = layout(rng, self.cfg, len(task.facts))
        slots = [i for i in range(p) if labels[i] in SILENT_LABELS]
        k = min(len(slots), len(task.facts))
        chosen = sorted(rng.sample(slots, k))
        per_slot = {i: task.facts[j:j + 1] if j < k - 1 else task.facts[j:] for j, i in enumerate(chosen)}
        turns = walk_turns(labels, task, self, lambda i, lab, prev: (
            self.evidence(lab, per_slot[i], prev, task) if i in per_slot else self.filler(lab, prev)))
        return self._twins(turns, labels, p, task, set(per_slot))

    def _twins(self, turns: list[dict], labels: list[Label], p: int, task: Task,
               evidence: set[int]) -> tuple[Scenario, Scenario]:
        """The explicit and the implicit scenario: the request, and a cue before the implicit one (where the
        turn before states no fact: "Javier brings the salad. I lost track" would contradict itself)."""
        ex_turns, im_turns = [dict(t) for t in turns], [dict(t) for t in turns]
        ex_turns[p]["text"] = self.request(task, explicit=True)
        im_turns[p]["text"] = self.request(task, explicit=False)
        differs = [p + 1]
        if labels[p - 1] in SILENT_LABELS and p - 1 not in evidence:
            sep = "" if self.code == "zh" else " "
            im_turns[p - 1]["text"] += sep + self.rng.choice(self.lines.cues)
            differs = [p, p + 1]
        voice = LANGUAGES[self.code].voice
        speakers = {sid: {"name": name, "voice": voice} for sid, name in self.names.items()}
        attrs = ATTRIBUTES | {"relationship": self.rng.choice(RELATIONSHIPS)}
        meta = {"generator": "procedural", "generator_version": GENERATOR_VERSION, "task": task.family}
        out = [Scenario.model_validate({
            "scenario_id": f"{self.pair_id}-{cond}", "pair_id": self.pair_id, "condition": cond,
            "attributes": attrs, "speakers": speakers, "turns": tt, "differs": differs, "meta": meta,
            "language": self.code,
        }) for cond, tt in (("explicit", ex_turns), ("implicit", im_turns))]
        return out[0], out[1]


def generate_language_pairs(pairs: int, seed: int, code: str, cfg: GenConfig | None = None):
    """Yield (explicit, implicit) pairs in language `code`, each checked like the English generator's."""
    cfg = cfg or GenConfig()
    check_bounds(pairs, cfg)
    if code not in LINES:
        raise ScenarioError(f"--language {code!r}: suite mpe is generated in en, {', '.join(LINES)}")
    for i in range(pairs):
        pair_id = f"mpe-{code}-s{seed}-{i:05d}"
        rng = random.Random(f"floorbench-mpe-{code}:{GENERATOR_VERSION}:{seed}:{i}")
        ex, im = LanguagePair(rng, pair_id, code, cfg).build()
        where = Path(f"<generated {pair_id}>")
        check_scenario(ex, where)
        check_scenario(im, where)
        check_pair(ex, im, where)
        yield ex, im


def write_language_suite(out: Path, pairs: int, seed: int, code: str, cfg: GenConfig | None = None,
                         force: bool = False, progress: Callable[[int], None] | None = None) -> Path:
    """Generate `pairs` pairs in language `code` into the suite folder `out` (suite.yaml + scenarios/)."""
    check_bounds(pairs, cfg or GenConfig())  # before anything is deleted or written
    lang = LANGUAGES[code]
    (scen_dir,) = prepare_out(Path(out), ("scenarios",), force, ScenarioError)
    write_suite(Path(out), Suite(
        name=f"mpe-{code}-seed{seed}", suite="mpe",
        description=f"Procedurally generated Duplex-MPE suite: {pairs} pairs, seed {seed}, in {lang.name}.",
        preamble=Preamble(text=LINES[code].preamble, voice=lang.voice),
        generator={"name": "procedural", "version": GENERATOR_VERSION, "seed": seed, "pairs": pairs,
                   "language": code},
    ))
    for n, (ex, im) in enumerate(generate_language_pairs(pairs, seed, code, cfg), 1):
        for s in (ex, im):
            write_scenario(scen_dir / f"{s.scenario_id}.yaml", s)
        if progress:
            progress(n)
    return Path(out)
