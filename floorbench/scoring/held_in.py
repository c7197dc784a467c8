"""The languages a run's calls were held in, and `floorbench score`'s refusal to judge their content
where the judge has no rules for one.

A suite whose content is judged by `--judge` (mpe's answers, av's rubric) reads English: the offline
judge's lexicon, number words and paraphrase rules are English. A run held in another language (each
trial's meta.json records it in its schedule, `language`) is refused in one line rather than scored
as if it were English, where a Spanish "sí" would be an unknown word and a right answer a miss
(floorbench.speech.languages.content_refused). Suite av refuses the whole run here; suite mpe scores its
timing and leaves the content it cannot judge `unsure`, per language, with the same line as a warning
(floorbench.suites.mpe.score). Suite agent's content checks are word matches read per
language (`contains`, `matches`), judged by no judge, so it never asks this.
"""

from __future__ import annotations

from pathlib import Path

from floorbench.scoring.inputs import InputError, discover
from floorbench.speech.languages import LanguageError, refused_run


def held_in(target: Path) -> set[str]:
    """The language codes the trials under `target` record (English where a trial records none); empty
    where `target` is not a run folder (the suite's scorer says why)."""
    try:
        found = discover(target)
    except InputError:
        return set()
    out = set()
    for d in found.dialogues:
        code = d.meta.schedule.get("language", "en") if d.meta is not None else "en"
        out.add(code if isinstance(code, str) else repr(code))
    return out


def refuse_content(target: Path, judge: str) -> None:
    """One-line `LanguageError` when a trial under `target` was held in a language `judge` cannot judge."""
    why = refused_run(held_in(target), judge)
    if why is not None:
        raise LanguageError(f"{target}: {why}")
