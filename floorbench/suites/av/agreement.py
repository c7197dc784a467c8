"""`floorbench judge-agreement --labels FILE --judge llm:M` for the av rubric: the judge against people.

A rubric labels file is JSON Lines, one clip a person scored per line:
``{"id", "payload", "fluency", "flow", "grounding"}`` (``family`` optional),
where ``payload`` is the judge's payload for the clip — exactly what
av_scores.json stores as each clip's ``rubric_payload`` — and the three
scores are the person's integers 0–5. The judge is run on every payload
(through the rubric's verdict cache, text only) and the report gives, per
dimension: exact agreement, agreement within one point, mean absolute
difference, Spearman's rho and Cohen's kappa with quadratic weights (the
usual measure for ordinal scores), plus every clip where judge and person
differ by two points or more. Unparsable replies are counted, never scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from floorbench.errors import read_utf8
from floorbench.records import write_json_atomic
from floorbench.scoring.cache import JsonlCache
from floorbench.scoring.inputs import InputError
from floorbench.scoring.stats import spearman
from floorbench.suites.av.judge import DIMENSIONS, judge_rubric, make_rubric_judge

SCALE = range(6)


def is_rubric_labels(path: Path) -> bool:
    """A labels file (or folder of them) whose first row carries a rubric payload."""
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path] if path.is_file() else []
    from floorbench.readers import ReadError, parse_json

    for f in files:
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.strip():
                try:
                    row = parse_json(line, str(f))
                except ReadError:
                    return False
                return isinstance(row, dict) and "payload" in row
    return False


def load_rubric_labels(path: Path) -> list[dict[str, Any]]:
    """Every labelled clip; a one-line InputError naming file:line and the fix for a bad row."""
    from floorbench.readers import parse_json

    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    rows: list[dict[str, Any]] = []
    for f in files:
        for n, line in enumerate(read_utf8(f, InputError, "save the labels as UTF-8 JSON Lines").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{f}:{n}"
            row = parse_json(line, where, InputError, "one object per line")
            if not isinstance(row, dict) or not isinstance(row.get("payload"), dict):
                raise InputError(
                    f"{where}: needs a 'payload' object (a clip's rubric_payload from av_scores.json)"
                )
            for d in DIMENSIONS:
                v = row.get(d)
                if isinstance(v, bool) or not isinstance(v, int) or v not in SCALE:
                    raise InputError(f"{where}: '{d}' must be the person's integer score 0–5, got {v!r}")
            rows.append(row | {"id": str(row.get("id", where))})
    if not rows:
        raise InputError(f"{path}: no labelled clips; see docs/suites/av.md, Scoring")
    return rows


def weighted_kappa(a: list[int], b: list[int]) -> float | None:
    """Cohen's kappa with quadratic weights on the 0–5 scale; None when undefined."""
    n = len(a)
    if n == 0:
        return None
    k = len(SCALE)
    obs = [[0.0] * k for _ in range(k)]
    for x, y in zip(a, b, strict=True):
        obs[x][y] += 1.0 / n
    pa = [sum(obs[i]) for i in range(k)]
    pb = [sum(obs[i][j] for i in range(k)) for j in range(k)]
    num = sum((i - j) ** 2 * obs[i][j] for i in range(k) for j in range(k))
    den = sum((i - j) ** 2 * pa[i] * pb[j] for i in range(k) for j in range(k))
    return None if den == 0 else 1.0 - num / den


def dimension_report(human: list[int], judged: list[int]) -> dict[str, Any]:
    n = len(human)
    diffs = [abs(h - j) for h, j in zip(human, judged, strict=True)]
    rho = spearman([float(h) for h in human], [float(j) for j in judged])
    kappa = weighted_kappa(human, judged)
    return {
        "n": n,
        "exact": round(sum(d == 0 for d in diffs) / n, 4) if n else None,
        "within_1": round(sum(d <= 1 for d in diffs) / n, 4) if n else None,
        "mae": round(sum(diffs) / n, 4) if n else None,
        "spearman": None if rho is None else round(rho, 4),
        "kappa_quadratic": None if kappa is None else round(kappa, 4),
    }


def calibrate_rubric(
    labels: Path, judge: str, out: Path, options: dict[str, Any]
) -> tuple[dict[str, Any], Path]:
    """Run the rubric judge on every labelled payload; write and return av_rubric_agreement.json."""
    rows = load_rubric_labels(labels)
    rj = make_rubric_judge(judge, options)
    if rj is None:
        raise InputError(
            "the av rubric has no offline judge; give --judge llm:<model> (and --judge-base-url)"
        )
    verdicts = judge_rubric(
        rj, [(r["payload"], []) for r in rows], JsonlCache(out / "scoring-cache" / "av_rubric.jsonl")
    )
    scored = [(r, v) for r, v in zip(rows, verdicts, strict=True) if v.scores is not None]
    result: dict[str, Any] = {
        "labels": str(labels),
        "judge": rj.id,
        "n": len(rows),
        "unparsable": len(rows) - len(scored),
        "dimensions": {
            d: dimension_report(
                [int(r[d]) for r, _ in scored], [int(v.scores[d]) for _, v in scored if v.scores]
            )
            for d in DIMENSIONS
        },
        "disagreements": [
            {
                "id": r["id"],
                "family": r.get("family", ""),
                "dimension": d,
                "human": r[d],
                "judge": v.scores[d],
                "reason": v.reason,
            }
            for r, v in scored
            if v.scores
            for d in DIMENSIONS
            if abs(int(r[d]) - v.scores[d]) >= 2
        ],
    }
    path = out / "av_rubric_agreement.json"
    write_json_atomic(path, result)
    return result, path


def report_lines(result: dict[str, Any]) -> list[str]:
    lines = [
        f"av rubric: n={result['n']} (human labels, {result['labels']}), judge {result['judge']}, "
        f"unparsable {result['unparsable']}"
    ]
    for d, r in result["dimensions"].items():
        lines.append(
            f"  {d}: exact={r['exact']} within_1={r['within_1']} mae={r['mae']} "
            f"spearman={r['spearman']} kappa_quadratic={r['kappa_quadratic']}"
        )
    lines.append(f"  disagreements by 2+ points ({len(result['disagreements'])}):")
    lines += [
        f"    {x['id']} {x['dimension']}: human={x['human']} judge={x['judge']} — {x['reason']}"
        for x in result["disagreements"]
    ]
    return lines
