"""`floorbench judge-agreement --labels FILE --judge J`: a judge against human labels.

The question a user has before trusting a judge is "how often does it agree
with a person?", not "with another judge". A labels file answers it: JSON
Lines, one human verdict per line, for either task:

- answer:    ``{"id", "family", "question", "gold", "aliases", "reply", "label": "correct"|"wrong"}``
- intrusion: ``{"id", "family", "turn", "reply", "label": "silent"|"backchannel"|"intrusion"}``
  (``silent``: the window was kept silent, reply ``""``; it passes without a judge, as in
  scoring, where a window with no speech never reaches one)

(``kind``, ``source``, ``said`` and ``relabelled`` are kept for the report and otherwise
ignored.) The packaged calibration sets (``floorbench/data/calibration/``; names in
`PACKAGED`) hold both, written by hand to the labelling rules in docs/scoring.md. Each
judge named is run on every item (through the verdict cache), and the report gives, per
task: raw agreement, Cohen's kappa, the confusion matrix (human × judge; answers labelled
wrong broken down by their ``kind``), agreement per family, and every disagreement with
the judge's reason, grouped by the rule that decided it (the verdict's ``rule``), largest
group first. An LLM judge is reported beside the offline one, which costs nothing to run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floorbench.errors import read_utf8
from floorbench.records import write_json_atomic
from floorbench.scoring.cache import JsonlCache
from floorbench.scoring.inputs import InputError
from floorbench.scoring.judges import VERDICTS, JudgeInput, Task, judge_cached, judge_id, make_judge

CALIBRATION = Path(__file__).resolve().parent.parent / "data" / "calibration"
"""the packaged, hand-labelled calibration set (answers.jsonl, intrusions.jsonl)"""
PACKAGED = {
    "calibration": CALIBRATION,
    "calibration-holdout": CALIBRATION / "holdout",
    "calibration-blind": CALIBRATION / "blind" / "tuning",
    "calibration-blind-holdout": CALIBRATION / "blind" / "holdout",
    "calibration-varied": CALIBRATION / "varied",
    "calibration-independent": CALIBRATION / "independent",
    "calibration-independent2": CALIBRATION / "independent2",
    "calibration-independent3": CALIBRATION / "independent3",
    "calibration-independent4": CALIBRATION / "independent4",
    "calibration-independent5": CALIBRATION / "independent5",
    "calibration-independent6": CALIBRATION / "independent6",
    "calibration-independent7": CALIBRATION / "independent7",
    "calibration-independent8": CALIBRATION / "independent8",
    "calibration-independent9": CALIBRATION / "independent9",
    "calibration-independent10": CALIBRATION / "independent10",
}
"""names `--labels` takes for the packaged sets: the development set the offline judge was
improved on, a hold-out set written (and committed) before the judge was run on it, the
two halves of a set labelled blind (by people who never saw the judge): the tuning half, and
a frozen hold-out half measured once (blind/README.md), the varied set of issue 34's classes
(varied/README.md: a tuning source and a source of the same author kept out of tuning), and two
samples written by people other than the rules' author, each measured once and tuning material
after (independent/ … independent8/), or kept out of tuning so far (independent9/, independent10/)"""
ALL = ("calibration", "calibration-holdout", "calibration-blind", "calibration-varied")
"""what `--labels calibration-all` joins: the project's own packaged sets the rules may be tuned on
(not the frozen blind hold-out, not the independent samples)"""
TUNING = (*ALL, "calibration-independent", "calibration-independent2", "calibration-independent3",
          "calibration-independent4", "calibration-independent5", "calibration-independent6",
          "calibration-independent7", "calibration-independent8")
"""what `--labels calibration-tuning` joins: every packaged set the rules are tuned on, the independent
samples included once measured (a sample not yet measured is never packaged under a name here)"""
JOINED = {"calibration-all": ALL, "calibration-tuning": TUNING}
SILENT = "silent"
"""an intrusion item's label when the window was kept silent (reply ""): it passes"""
NO_SPEECH_RULE = "window.no-speech"
WINDOW_LABELS = (SILENT, "backchannel", "intrusion")


@dataclass(frozen=True)
class LabelledItem:
    """One human verdict on one reply."""

    id: str
    task: Task
    family: str
    label: str
    judge_input: JudgeInput
    kind: str = ""
    source: str = ""
    """who or what wrote the item (its ``source`` field, else the folder it came from): what
    agreement is split by, so a source can be held out entirely"""


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if pe == 1.0:
        return 1.0 if po == 1.0 else None
    return (po - pe) / (1.0 - pe)


def label_files(spec: str | Path) -> list[Path]:
    """The JSONL files `--labels` names: a packaged set's name (`PACKAGED`, `calibration-all` or
    `calibration-tuning`),
    a folder of *.jsonl, one file, or several of these joined by '+'."""
    if "+" in str(spec) or str(spec) in JOINED:
        parts = JOINED.get(str(spec)) or [p for p in str(spec).split("+") if p]
        return [f for p in parts for f in label_files(p)]
    if str(spec) in PACKAGED:
        return sorted(PACKAGED[str(spec)].glob("*.jsonl"))
    path = Path(spec)
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise InputError(f"{path}: no *.jsonl labels files in this folder; see docs/scoring.md, Calibration")
        return files
    if not path.is_file():
        raise InputError(f"{path}: no such labels file; give a JSONL file, a folder of them, or a packaged "
                         f"set: {', '.join(PACKAGED)}")
    return [path]


TEXT_FIELDS = ("id", "family", "kind", "question", "gold", "reply", "label", "turn", "source", "said", "relabelled")
"""the fields of a labels row that hold text (``aliases`` holds a list of texts); any other field is ignored"""


def _check_types(row: dict[str, Any], where: str) -> None:
    """Every known field of a row has its type (text, or a list of texts): one line naming the field."""
    for key in TEXT_FIELDS:
        if key in row and not isinstance(row[key], str):
            raise InputError(f"{where}: {key!r} must be text, got {type(row[key]).__name__} {row[key]!r}; quote it")
    aliases = row.get("aliases")
    if aliases is not None and not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
        raise InputError(f"{where}: 'aliases' must be a list of texts, got {aliases!r}")


def _item(row: dict[str, Any], where: str, folder: str = "") -> LabelledItem:
    """A row as a LabelledItem, or a one-line InputError naming file:line and the fix."""
    _check_types(row, where)
    task = Task.answer if "gold" in row else Task.intrusion if "turn" in row else None
    if task is None:
        raise InputError(f"{where}: neither 'gold' (answer item) nor 'turn' (intrusion item); add one")
    allowed = [v.value for v in VERDICTS[task]] if task is Task.answer else list(WINDOW_LABELS)
    label, reply = row.get("label"), row.get("reply")
    if label not in allowed:
        raise InputError(f"{where}: label {label!r} is not one of {', '.join(allowed)}")
    if not isinstance(reply, str):
        raise InputError(f"{where}: 'reply' must be the reply's text")
    if task is Task.intrusion and (label == SILENT) != (not reply.strip()):
        raise InputError(f"{where}: a window labelled {label!r} with reply {reply!r}: 'silent' goes with an "
                         "empty reply, and only with one")
    if task is Task.answer:
        aliases = row.get("aliases") or []
        if not isinstance(row["gold"], str) or not all(isinstance(a, str) for a in aliases):
            raise InputError(f"{where}: 'gold' must be text and 'aliases' a list of texts")
        inp = JudgeInput(task, reply, gold=row["gold"], aliases=tuple(aliases), context=str(row.get("question", "")))
    else:
        inp = JudgeInput(task, reply, context=str(row["turn"]))
    return LabelledItem(str(row.get("id", where)), task, str(row.get("family", "")), str(label), inp,
                        str(row.get("kind", "")), str(row.get("source") or folder))


def load_labels(spec: str | Path) -> list[LabelledItem]:
    """Every labelled item of the files `spec` names, in file order; ids must be unique."""
    from floorbench.readers import parse_json

    items: list[LabelledItem] = []
    for path in label_files(spec):
        for n, line in enumerate(read_utf8(path, InputError, "save the labels as UTF-8 JSON Lines").splitlines(), 1):
            if not line.strip():
                continue
            row = parse_json(line, f"{path}:{n}", InputError, "one object per line")
            if not isinstance(row, dict):
                raise InputError(f"{path}:{n}: not a JSON object; one object per line")
            items.append(_item(row, f"{path}:{n}", path.parent.name))
    seen = Counter(i.id for i in items)
    dup = [k for k, c in seen.items() if c > 1]
    if dup:
        raise InputError(f"{spec}: item id {dup[0]!r} appears {seen[dup[0]]} times; ids must be unique")
    if not items:
        raise InputError(f"{spec}: no labelled items; see docs/scoring.md, Calibration")
    return items


@dataclass(frozen=True)
class Judged:
    """One verdict on one labelled item, as the report reads it."""

    verdict: str
    reason: str
    rule: str


def _judged(items: list[LabelledItem], judge: Any, cache: JsonlCache) -> list[Judged]:
    """A verdict per item: a silent window passes without a judge (as in scoring, where a window
    with no speech never reaches one); everything else goes to the judge, through the cache."""
    asked = [n for n, i in enumerate(items) if not (i.task is Task.intrusion and not i.judge_input.transcript.strip())]
    out = [Judged(SILENT, "no speech in the window: kept silent, passes without a judge", NO_SPEECH_RULE)
           for _ in items]
    if asked:
        for n, v in zip(asked, judge_cached(judge, [items[n].judge_input for n in asked], cache), strict=True):
            out[n] = Judged(v.verdict.value, v.reason, v.rule or "(no rule id)")
    return out


def _labels(task: Task, human: list[str], judged: list[str]) -> list[str]:
    """The confusion matrix's labels in a fixed order, any other verdict (unparsable) last."""
    base = [v.value for v in VERDICTS[Task.answer]] if task is Task.answer else list(WINDOW_LABELS)
    return base + sorted((set(human) | set(judged)) - set(base))


def _matrix(labels: list[str], pairs: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    count = Counter(pairs)
    return {h: {j: count[(h, j)] for j in labels} for h in labels if any(count[(h, j)] for j in labels)}


def _by_rule(disagreements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The disagreements grouped by the rule that decided them, largest group first."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in disagreements:
        groups[d["rule"]].append(d)
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [{"rule": rule, "n": len(ds), "ids": [d["id"] for d in ds]} for rule, ds in ranked]


UNSURE = "unsure"


def rates(human: list[str], judged: list[str]) -> dict[str, Any]:
    """Agreement with the judge's unsure verdicts counted as disagreements (`agreement`), and
    over the items it decided only (`agreement_decided`), with the unsure count and rate."""
    n = len(human)
    unsure = sum(j == UNSURE for j in judged)
    decided = [(h, j) for h, j in zip(human, judged, strict=True) if j != UNSURE]
    return {
        "n": n,
        "agreement": round(sum(h == j for h, j in zip(human, judged, strict=True)) / n, 4) if n else None,
        "agreement_decided": round(sum(h == j for h, j in decided) / len(decided), 4) if decided else None,
        "unsure": unsure,
        "unsure_rate": round(unsure / n, 4) if n else None,
    }


def _task_report(task: Task, items: list[LabelledItem], verdicts: list[Judged]) -> dict[str, Any]:
    human = [i.label for i in items]
    judged = [v.verdict for v in verdicts]
    by_source: dict[str, list[int]] = defaultdict(list)
    for n, it in enumerate(items):
        by_source[it.source].append(n)
    kappa = cohen_kappa(human, judged)
    fam: dict[str, list[bool]] = defaultdict(list)
    for it, j in zip(items, judged, strict=True):
        fam[it.family].append(it.label == j)
    labels = _labels(task, human, judged)
    disagreements = [
        {"id": it.id, "family": it.family, "kind": it.kind, "reply": it.judge_input.transcript,
         "gold": it.judge_input.gold, "context": it.judge_input.context, "human": it.label,
         "judge": v.verdict, "reason": v.reason, "rule": v.rule}
        for it, v in zip(items, verdicts, strict=True)
        if it.label != v.verdict
    ]
    report: dict[str, Any] = {
        **rates(human, judged),
        "kappa": round(kappa, 4) if kappa is not None else None,
        "sources": {src: rates([human[n] for n in ns], [judged[n] for n in ns])
                    for src, ns in sorted(by_source.items())},
        "confusion": {f"{h}|{j}": c for (h, j), c in sorted(Counter(zip(human, judged, strict=True)).items())},
        "matrix": {"labels": labels, "rows": _matrix(labels, list(zip(human, judged, strict=True)))},
        "families": {f: {"n": len(ok), "agreement": round(sum(ok) / len(ok), 4)} for f, ok in sorted(fam.items())},
        "disagreements": disagreements,
        "disagreements_by_rule": _by_rule(disagreements),
    }
    if task is Task.answer:
        wrong = Counter((it.kind or "(no kind)", j) for it, j in zip(items, judged, strict=True)
                        if it.label == "wrong")
        report["wrong_by_kind"] = {k: {j: wrong[(k, j)] for j in labels} for k in sorted({k for k, _ in wrong})}
    return report


def _held_out(items: list[LabelledItem], verdicts: list[Judged], held: set[str]) -> dict[str, Any]:
    """Agreement on the sources held out against the rest (the tuning sources), and the gap."""
    def part(inside: bool) -> dict[str, Any]:
        pairs = [(i.label, v.verdict) for i, v in zip(items, verdicts, strict=True) if (i.source in held) == inside]
        return rates([h for h, _ in pairs], [j for _, j in pairs])

    tuning, out = part(False), part(True)
    gap = (round(tuning["agreement"] - out["agreement"], 4)
           if tuning["agreement"] is not None and out["agreement"] is not None else None)
    return {"sources": sorted(held), "tuning": tuning, "held_out": out, "gap": gap}


def calibrate(
    labels: str | Path,
    judges: list[str],
    out: Path,
    options: dict[str, dict[str, Any]] | None = None,
    hold_out: list[str] | None = None,
) -> tuple[dict[str, Any], Path]:
    """Run each judge on every labelled item; write and return the report (judge_agreement.json in `out`).
    `hold_out`: sources reported apart from the rest (agreement on each side, and the gap)."""
    items = load_labels(labels)
    known = {i.source for i in items}
    missing = [s for s in hold_out or [] if s not in known]
    if missing:
        raise InputError(f"--hold-out-source {missing[0]!r}: no item of {labels} has that source; "
                         f"its sources are {', '.join(sorted(known))}")
    cache = JsonlCache(out / "scoring-cache" / "judge.jsonl")
    result: dict[str, Any] = {"labels": str(labels), "judges": {}}
    for spec in judges:
        judge = make_judge(spec, **((options or {}).get(spec) or {}))
        tasks: dict[str, Any] = {}
        for task in Task:
            chosen = [i for i in items if i.task is task]
            if chosen:
                verdicts = _judged(chosen, judge, cache)
                tasks[task.value] = _task_report(task, chosen, verdicts)
                if hold_out:
                    tasks[task.value]["hold_out"] = _held_out(chosen, verdicts, set(hold_out))
        result["judges"][spec] = {"judge": judge_id(judge), "tasks": tasks}
    path = out / "judge_agreement.json"
    write_json_atomic(path, result)
    return result, path


def _matrix_lines(labels: list[str], rows: dict[str, dict[str, int]], indent: str) -> list[str]:
    width = max(len(x) for x in (*labels, *rows, "human \\ judge")) + 2
    head = indent + "human \\ judge".ljust(width) + "".join(x.rjust(width) for x in labels)
    return [head] + [indent + h.ljust(width) + "".join(str(row.get(j, 0)).rjust(width) for j in labels)
                     for h, row in rows.items()]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def report_lines(result: dict[str, Any], disagreements_of: str | None = None) -> list[str]:
    """The text report: per task, every judge side by side (agreement, kappa, confusion matrix),
    then families, then the disagreements grouped by the rule that decided them."""
    judges = list(result["judges"])
    lines: list[str] = []
    for task in Task:
        rows = [(j, result["judges"][j]["tasks"].get(task.value)) for j in judges]
        rows = [(j, r) for j, r in rows if r is not None]
        if not rows:
            continue
        lines.append(f"{task.value}: n={rows[0][1]['n']} (human labels, {result['labels']})")
        for j, r in rows:
            lines.append(f"  {result['judges'][j]['judge']}: agreement={r['agreement']:.4f} (unsure counted as "
                         f"disagreement) decided-only={_pct(r['agreement_decided'])} unsure={r['unsure']} "
                         f"({_pct(r['unsure_rate'])}) kappa={r['kappa']} confusion(human|judge)={r['confusion']}")
            lines.append("    by source: " + "; ".join(
                f"{src} {_pct(x['agreement'])} (decided {_pct(x['agreement_decided'])}, unsure {x['unsure']}, "
                f"n={x['n']})" for src, x in r["sources"].items()))
            if r.get("hold_out"):
                h = r["hold_out"]
                lines.append(f"    held out {', '.join(h['sources'])}: {_pct(h['held_out']['agreement'])} "
                             f"(decided {_pct(h['held_out']['agreement_decided'])}, unsure "
                             f"{h['held_out']['unsure']}, n={h['held_out']['n']}) vs the other sources "
                             f"{_pct(h['tuning']['agreement'])} (n={h['tuning']['n']}): gap {_pct(h['gap'])}")
            labels = r["matrix"]["labels"]
            lines.extend(_matrix_lines(labels, r["matrix"]["rows"], "    "))
            if r.get("wrong_by_kind"):
                lines.append("    wrong, by kind:")
                lines.extend(_matrix_lines(labels, r["wrong_by_kind"], "      "))
        families = sorted({f for _, r in rows for f in r["families"]})
        lines.append("  per family: " + "; ".join(
            f"{f} " + "/".join(f"{r['families'][f]['agreement']:.2f}" for _, r in rows if f in r["families"])
            + f" (n={rows[0][1]['families'].get(f, {}).get('n', 0)})" for f in families))
        for j, r in rows:
            if disagreements_of is not None and j != disagreements_of:
                continue
            lines.append(f"  disagreements of {j} ({len(r['disagreements'])}): by the rule that decided them, "
                         "largest group first")
            by_id = {d["id"]: d for d in r["disagreements"]}
            for group in r["disagreements_by_rule"]:
                lines.append(f"    {group['rule']} ({group['n']}):")
                lines.extend(f"      {d['id']} [{d['family']}/{d['kind']}] human={d['human']} judge={d['judge']} "
                             + (f"gold={d['gold']!r}" if task is Task.answer else f"turn={d['context']!r}")
                             + f" reply={d['reply']!r} — {d['reason']}"
                             for d in (by_id[i] for i in group["ids"]))
    return lines
