"""Import externally written scenarios (`floorbench suite import SRC --out DIR`).

Accepted input (docs/scenarios.md, "Import format"): a folder of `.yaml`/`.yml`/`.json`
files, one YAML/JSON file holding one scenario or a list of scenarios, or a
`.jsonl` file with one scenario per line. Each record uses the schema of
`floorbench.suites.mpe.schema.Scenario`, with three conveniences for hand- or
LLM-written files:

- turn `id`s may be left out (they are numbered 1, 2, 3 …);
- a speaker may be a bare name (`A: Maya`); it then gets the fixed voice of
  its slot (A–D) from the generator's speaker→voice map;
- `differs` may be left out; it is computed from the pair's texts.

Every scenario then goes through the same validator as generated ones; the
good ones are written in canonical form, the rejected ones are reported one
line each (file, scenario, turn, fix).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floorbench.paths import prepare_out
from floorbench.scenarios.files import write_scenario, write_suite
from floorbench.scenarios.schema import Preamble, Suite, inside
from floorbench.scenarios.validate import ScenarioError, read_yaml
from floorbench.suites.mpe.schema import Scenario
from floorbench.suites.mpe.validate import check_pair, check_scenario, check_vocabulary, parse_scenario
from floorbench.suites.mpe.vocab import PREAMBLE_VOICE, SPEAKER_VOICES

SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


@dataclass
class ImportResult:
    written: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    """one line per rejected scenario: where, what, fix"""


def _records(path: Path) -> list[tuple[str, Any]]:
    """(label for messages, record) for every scenario record in one file."""
    from floorbench.readers import json_lines, load_json

    if path.suffix == ".jsonl":
        return [(f"{path}:{n}", row) for n, row in json_lines(path, ScenarioError, "fix the line")]
    data = load_json(path, ScenarioError, "fix the JSON") if path.suffix == ".json" else read_yaml(path)
    if isinstance(data, list):
        return [(f"{path}[{i}]", d) for i, d in enumerate(data)]
    if isinstance(data, dict) and isinstance(data.get("scenarios"), list):
        return [(f"{path}[{i}]", d) for i, d in enumerate(data["scenarios"])]
    return [(str(path), data)]


def normalise_record(data: Any) -> Any:
    """Apply the import conveniences (turn ids, bare speaker names) to one raw record."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    turns = data.get("turns")
    if isinstance(turns, list) and turns and all(isinstance(t, dict) and "id" not in t for t in turns):
        data["turns"] = [{"id": i + 1, **t} for i, t in enumerate(turns)]
    speakers = data.get("speakers")
    if isinstance(speakers, dict):
        fixed = {}
        for sid, sp in speakers.items():
            if isinstance(sp, str) and sid in SPEAKER_VOICES:
                fixed[sid] = {"name": sp, "voice": SPEAKER_VOICES[sid][0]}
            elif isinstance(sp, dict) and "voice" not in sp and sid in SPEAKER_VOICES:
                fixed[sid] = {**sp, "voice": SPEAKER_VOICES[sid][0]}
            else:
                fixed[sid] = sp
        data["speakers"] = fixed
    return data


def fill_differs(a: Scenario, b: Scenario) -> None:
    """Set `differs` on both scenarios of a pair from their texts, where it was left out."""
    if len(a.turns) != len(b.turns):
        return
    diff = sorted(ta.id for ta, tb in zip(a.turns, b.turns, strict=True) if ta.text != tb.text)
    for s in (a, b):
        if not s.differs:
            s.differs = diff


def import_scenarios(
    src: Path, out: Path, name: str | None = None, preamble: str | None = None,
    strict_vocab: bool = False, force: bool = False,
) -> ImportResult:
    """Validate every scenario under `src` and write the good ones as a suite at `out`."""
    from floorbench.suites.mpe.generate import DUTY_PREAMBLE

    src, out = Path(src), Path(out)
    if not src.exists():
        raise ScenarioError(f"{src}: not found; pass a scenario file or a folder of them")
    files = sorted(p for p in src.rglob("*") if p.suffix in SUFFIXES) if src.is_dir() else [src]
    for f in files if src.is_dir() else []:  # a link to a file elsewhere is refused, like every path under a root
        inside(src, f.relative_to(src), f"{src}: scenario file", ScenarioError)
    if not files:
        raise ScenarioError(f"{src}: no {', '.join(SUFFIXES)} files; put scenarios there")
    result = ImportResult()
    parsed: list[tuple[str, Scenario]] = []
    for f in files:
        try:
            records = _records(f)
        except ScenarioError as e:
            result.rejected.append(str(e))
            continue
        for where, rec in records:
            try:
                s = parse_scenario(Path(where), normalise_record(rec))
            except ScenarioError as e:
                result.rejected.append(str(e))
                continue
            parsed.append((where, s))
    by_pair: dict[str, list[tuple[str, Scenario]]] = {}
    for where, s in parsed:
        by_pair.setdefault(s.pair_id, []).append((where, s))
    good: list[Scenario] = []
    seen_ids: set[str] = set()
    for pid, group in by_pair.items():
        if len(group) != 2:
            result.rejected.append(
                f"{group[0][0]}: pair {pid}: {len(group)} scenario(s); each pair needs an explicit and an implicit one"
            )
            continue
        (wa, a), (wb, b) = group
        fill_differs(a, b)
        try:
            for w, s in ((wa, a), (wb, b)):
                check_scenario(s, Path(w))
                if strict_vocab:
                    check_vocabulary(s, Path(w))
                if s.scenario_id in seen_ids:
                    raise ScenarioError(f"{w}: scenario {s.scenario_id}: id already used; ids must be unique")
            check_pair(a, b, Path(wa))
        except ScenarioError as e:
            result.rejected.append(str(e))
            continue
        seen_ids.update((a.scenario_id, b.scenario_id))
        good.extend((a, b))
    if not good:
        return result
    scen_dir = out / "scenarios"
    # ids obey the schema's id rule; each target is checked again before anything is written
    targets = [inside(scen_dir, f"{s.scenario_id}.yaml", f"{out}: scenario {s.scenario_id}", ScenarioError) for s in good]
    prepare_out(out, ("scenarios",), force, ScenarioError)
    suite = Suite(name=name or out.name, suite="mpe", description=f"Imported from {src.name}.",
                  preamble=Preamble(text=preamble or DUTY_PREAMBLE, voice=PREAMBLE_VOICE))
    write_suite(out, suite)
    for s, target in zip(good, targets, strict=True):
        # imported audio paths would point outside the new suite: render it afresh
        for t in s.turns:
            t.audio = None
        write_scenario(target, s)
        result.written.append(s.scenario_id)
    return result
