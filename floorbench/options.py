"""Checks of command-line options that name files, models and lists, made before a command does anything.

A typo in an option used to surface only at the end of a run — a `--junit`
naming a folder failed after every trial was played, `--junit OUT/results.json`
silently overwrote the results, an `--asr` folder that does not exist fell
back to a model download, ``--sessions 1,,2`` was read as 1,2. Every command
calls these first, so a bad option is one `OptionError` line before anything is
rendered, written or connected.
"""

from __future__ import annotations

from pathlib import Path

from floorbench.errors import OptionError

WHISPER_NAMES = frozenset({
    "tiny", "tiny.en", "base", "base.en", "small", "small.en", "distil-small.en", "medium", "medium.en",
    "distil-medium.en", "large-v1", "large-v2", "large-v3", "large", "distil-large-v2", "distil-large-v3",
    "large-v3-turbo", "turbo",
})
"""the model names faster-whisper knows (a cached one loads without a folder)"""

OUT_NAMES = ("results.json", "report.html", "report.md", "run", "suite", "scoring-cache")
"""what `floorbench test` writes in its --out folder (another output may not take one of these places)"""


def check_output_file(option: str, path: Path | None, out: Path | None = None,
                      taken: tuple[str, ...] = OUT_NAMES) -> None:
    """An output file option (``--junit FILE``): not a folder, its folder exists (or is `out`, made by the
    command), and not one of the files or folders the command itself writes in `out`."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise OptionError(f"{option} {p}: is a folder; give a file name, e.g. {p / 'junit.xml'}")
    if not p.name or str(path).endswith(("/", "\\")):
        raise OptionError(f"{option} {path}: give a file name, e.g. junit.xml")
    parent = p.parent.resolve()
    if out is not None:
        root = Path(out).resolve()
        for name in taken:
            place = root / name
            if p.resolve() == place or place in p.resolve().parents:
                raise OptionError(f"{option} {p}: floorbench writes {place} itself; give another file name")
        if parent == root or root in parent.parents:
            return  # inside --out: made by the command
    if not parent.is_dir():
        raise OptionError(f"{option} {p}: the folder {parent} does not exist; make it or give another path")


def check_asr(option: str, value: str) -> None:
    """An ASR model: an existing model folder, or a name faster-whisper knows (``tiny.en``) or a hub id
    (``org/name``); a path to nowhere is refused here, not at the first transcript."""
    p = Path(value).expanduser()
    if p.is_dir():
        return
    looks_like_path = value.startswith(("/", ".", "~")) or value.count("/") > 1 or "\\" in value
    hub_id = value.count("/") == 1 and all(part.strip() for part in value.split("/"))
    if looks_like_path or p.exists():
        raise OptionError(f"{option} {value}: no model folder there; give a folder holding model.bin, or a model "
                          f"name ({', '.join(sorted(WHISPER_NAMES)[:4])}, …)")
    if value not in WHISPER_NAMES and not hub_id:
        raise OptionError(f"{option} {value!r}: not a model folder or a known model name; use one of "
                          f"{', '.join(sorted(WHISPER_NAMES))} or a folder")


def check_number_list(option: str, text: str) -> None:
    """A comma-separated list of whole numbers with no empty item (``1,,2`` is a typo, not 1,2)."""
    items = text.split(",")
    if any(not x.strip() for x in items):
        raise OptionError(f"{option} {text!r}: an empty item between commas; give numbers like 1,2,4,8")
