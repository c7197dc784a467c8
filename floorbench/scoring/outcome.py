"""What `floorbench score` hands a suite's scorer, and what the scorer hands back to print.

Every suite's part `score` (floorbench.plugins) is called with the same
`ScoreRequest` (the command line's options) and answers with a `ScoreOutcome`; the
command prints it the same way for every suite, so a suite's scorer never prints.
A suite's own options are a `ScoreRequest` subclass that adds its rules
(`ScoreRequest.as_options` makes one from the command's request).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

R = TypeVar("R", bound="ScoreRequest")


@dataclass(frozen=True)
class ScoreRequest:
    """The options of `floorbench score`, for any suite (a suite uses those it has)."""

    asr: str = "tiny.en"
    asr_download: bool = False
    judge: str = "offline"
    judge_options: dict[str, Any] = field(default_factory=dict)
    workers: int = 2
    resamples: int = 10_000
    seed: int = 0
    out: Path | None = None
    cache_dir: Path | None = None
    exclude_degraded: bool = False
    """leave out scenarios whose meta.json timing verdict is not ok (counted as excluded_degraded)"""
    progress: Callable[[str, int, int], None] | None = None

    def as_options(self, cls: type[R]) -> R:
        """This request as a suite's own options `cls` (a subclass; what it adds stays at its defaults)."""
        return cls(**{f.name: getattr(self, f.name) for f in fields(ScoreRequest)})


@dataclass
class ScoreOutcome:
    """A suite's scores, as the command prints them."""

    scored: int
    """scenarios (dialogues, clips) scored; 0 ends the command with `nothing_scored`"""
    errors: list[str]
    """one line per scenario that could not be scored (printed as ``skipped: …``)"""
    summary: list[str]
    """the short table printed on stdout"""
    wrote: str
    """the line naming the files written"""
    nothing_scored: str = ""
    """the error line when nothing was scored"""
    excluded_degraded: int = 0
    warnings: list[str] = field(default_factory=list)
    """one line per scored scenario with a caveat (printed as ``warning: …`` on stderr)"""
    notes_to_stderr: bool = True
    """where the skipped and left-out lines go (stdout when nothing scored, so stderr holds one line)"""
