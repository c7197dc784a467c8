"""`floorbench report`: scored runs → report.md and report.html (side by side).

Which pages a run gets is its suite's: `write_report` finds the suite that reports the runs and calls its
plug-in part `report`, which draws its own tables and writes them with `write_pages`.
"""

from __future__ import annotations

from pathlib import Path

from floorbench.errors import FloorbenchError
from floorbench.paths import outputs
from floorbench.scoring.inputs import InputError


def write_report(paths: list[Path], out: Path, title: str = "floorbench report",
                 max_timelines: int = 12) -> tuple[Path, Path]:
    """report.md and report.html of `paths`, in the shape of the suite they all belong to."""
    from floorbench.plugins import suite_reporting

    report = suite_reporting(paths).part("report")
    try:
        return report(paths, out, title, max_timelines)
    except FloorbenchError:
        raise  # already one line naming the file
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, ZeroDivisionError) as e:
        # a scores file that passed its reader's version check but holds a value of the wrong type or shape
        # (hand-edited, or from another tool): the user's file, named in one line, nothing written yet
        from floorbench.escape import excerpt

        files = [q for p in paths for q in ([p] if p.is_file() else sorted(p.glob("*scores.json")) or [p])]
        names = ", ".join(excerpt(p, 160) for p in files[:3])
        raise InputError(f"{names}: a scores file holds a value of the wrong type or shape ({type(e).__name__}: "
                         f"{excerpt(str(e), 80)}); re-run `floorbench score` on the recordings") from None


def write_pages(out: Path, markdown: str, html: str) -> tuple[Path, Path]:
    """Write a report's two pages into `out` (made if need be): report.md and report.html."""
    md, page = outputs(out, ("report.md", "report.html"), InputError)  # never through a link out of OUT
    md.write_text(markdown, encoding="utf-8")
    page.write_text(html, encoding="utf-8")
    return md, page
