"""Every path a command reads or writes stays inside the folder it was given: the one confinement rule.

A suite folder, a run folder, a recordings folder, a scored run, the folder of
an importer's clips, the ``--out`` of a writer: whatever a command was given
is its root, and every path under it — named in a file (an audio path, a track
file, a video), made from an id, or found by listing — goes through `inside`:
the path is resolved (symbolic links followed) and must stay under the
resolved root. A link whose target stays inside is followed like the file it
names; a link to elsewhere, a ``..`` part and an absolute path are refused
alike, with one line naming the path and the fix. The root itself may be a
link: it is the folder the user named.

Writers go through `prepare_out` (a suite's folders) or `outputs` (scores,
reports): every folder or file they replace is confined the same way and
checked before anything is deleted or written; a folder that
already holds a suite (or files in the folders it replaces) is refused
without ``--force``, and with it is emptied entry by entry, a link removed as
a link, never followed.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from floorbench.errors import FloorbenchError


class PathEscapeError(FloorbenchError, ValueError):
    """A path given in a file or on the command line leads outside the folder it must stay in."""


def inside(root: Path, rel: str | Path, what: str, error: type[FloorbenchError] = PathEscapeError) -> Path:
    """`root / rel`, resolved (symlinks followed); one `error` line if it leaves `root`.

    Catches a `..` part, an absolute `rel` (which would replace `root`) and a
    symlink pointing elsewhere alike, because all three show in the resolved path;
    a NUL byte (which no file name holds) is refused before the path is looked at.
    """
    if "\x00" in str(rel):
        raise error(f"{what}: {str(rel)!r} holds a NUL byte; give a plain file name")
    base = Path(root).resolve()
    path = (base / rel).resolve()
    if not path.is_relative_to(base):
        raise error(f"{what}: {rel} leads outside {base} (to {path}); keep it inside that folder")
    return path


def inside_each(root: Path, names: Sequence[str | Path], what: str, error: type[FloorbenchError] = PathEscapeError) -> None:
    """`inside` for every name that exists (or is a dangling link) under `root`."""
    for name in names:
        p = Path(root) / name
        if p.exists() or p.is_symlink():
            inside(root, name, f"{what}: {name}", error)


def outputs(
    out: Path, names: Sequence[str], error: type[FloorbenchError] = PathEscapeError, create: bool = True
) -> list[Path]:
    """The files a command writes under `out`, each confined (a link leading out of `out` is refused, so
    nothing is ever written through it) before any is written; `out` is created unless `create` is off
    (a check made before the work, so a refusal leaves no folder behind)."""
    paths = [inside(out, name, f"{out}: output", error) for name in names]
    if create:
        Path(out).mkdir(parents=True, exist_ok=True)
    return paths


def prepare_out(
    out: Path, replaced: Sequence[str], force: bool, error: type[FloorbenchError] = PathEscapeError,
    marker: str = "suite.yaml",
) -> list[Path]:
    """The folders a writer replaces under `out`, confined, checked, then (with `force`) emptied; created.

    Refused without `force` when `out` already holds `marker` (it is a suite) or any of
    the `replaced` folders holds a file. Every check comes before the first deletion, so
    a refusal leaves everything as it was. Returns the resolved folders, in order.
    """
    dirs = check_out(out, replaced, force, error, marker)
    for d in (d for d in dirs if d.is_dir() and any(d.iterdir())):
        empty_folder(d)
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def check_out(
    out: Path, replaced: Sequence[str], force: bool, error: type[FloorbenchError] = PathEscapeError,
    marker: str = "suite.yaml",
) -> list[Path]:
    """`prepare_out`'s checks alone (nothing deleted or created): a writer that works before it writes
    calls this first, so a refused --out costs no work. Returns the resolved folders, in order."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise error(f"{out}: not a folder; choose another --out")
    dirs = [inside(out, sub, f"{out}: {sub}/", error) for sub in replaced]
    for d in dirs:
        if d.exists() and not d.is_dir():
            raise error(f"{d}: not a folder; remove it or choose another --out")
    full = [d for d in dirs if d.is_dir() and any(d.iterdir())]
    if not force:
        if full:
            raise error(f"{full[0]}: not empty; pass --force to replace it or choose another --out")
        if marker and ((out / marker).exists() or (out / marker).is_symlink()):
            raise error(f"{out}: already holds a suite ({marker}); pass --force to replace it or choose another --out")
    return dirs


def remove_stale(root: Path, sub: str | Path, stale: Callable[[str], bool],
                 error: type[FloorbenchError] = PathEscapeError) -> int:
    """Delete the files of ``root/sub`` whose names `stale` picks; how many. The one cleaner of a folder's
    leftovers (render's unused clips, a test suite's old scenarios, a scenario's stale logs): ``root/sub``
    is confined to `root` first (`inside`: a link leading out of it is refused before anything is
    deleted), then only files and links go, a link as a link (what it points at is never touched);
    sub-folders stay."""
    folder = inside(root, sub, f"{root}: {sub}/", error)
    if not folder.is_dir():
        return 0
    gone = 0
    for p in folder.iterdir():
        if stale(p.name) and (p.is_symlink() or p.is_file()):
            p.unlink()
            gone += 1
    return gone


def empty_folder(folder: Path) -> None:
    """Remove everything in `folder` (a link as a link: what it points at is never touched)."""
    for p in folder.iterdir():
        if p.is_symlink() or not p.is_dir():
            p.unlink()
        else:
            shutil.rmtree(p)
