"""`floorbench report`: scored runs side by side, as Markdown and self-contained HTML.

One error line and exit 2 on any expected failure; the suite of the runs decides the
report's shape (its part `report`, floorbench.plugins).
"""

from __future__ import annotations

from pathlib import Path

import typer

from floorbench.errors import FloorbenchError, check_range, exit_with, exit_with_os, first_line


def report_cmd(
    runs: list[Path] = typer.Argument(..., help="scored run folders (or their scores.json), side by side"),
    out: Path = typer.Option(Path("report"), help="folder for report.md and report.html"),
    title: str = typer.Option("floorbench report", help="report title"),
    timelines: int = typer.Option(12, help="dialogues per run drawn as timelines (failures first; 0..1000)"),
) -> None:
    """Render a Markdown and a self-contained HTML report comparing runs."""
    from floorbench.report.render import write_report

    try:
        check_range("--timelines", timelines, 0, 1000)
        md, html = write_report(runs, out, title=title, max_timelines=timelines)
    except FloorbenchError as e:
        exit_with(first_line(e))
    except OSError as e:
        exit_with_os(e)
    typer.echo(f"wrote {md} and {html}")


def register(app: typer.Typer) -> None:
    """Add this area's command to the `floorbench` app."""
    app.command("report")(report_cmd)
