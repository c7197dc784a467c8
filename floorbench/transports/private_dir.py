"""A private folder per user for the files a managed server needs that hold a secret (or may log one).

The managed LiveKit server's ``livekit.yaml`` carries its API secret; a Redis
log may carry what clients sent. They go to ``$XDG_RUNTIME_DIR/floorbench/``
(else ``<tmp>/floorbench-<uid>/``), a folder only this user can enter (0700,
owned by the user, not a link: anything else there is refused and a fresh
`tempfile.mkdtemp` folder used instead), each server in a folder of its own
named after the process that started it (``livekit-<pid>-<random>``). A run
that was killed (SIGKILL leaves no time to clean up) leaves its folder behind;
the next start removes every folder whose process is gone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from floorbench.child_env import pid_alive


def _usable(root: Path) -> bool:
    """Create `root` 0700 or accept it if it is this user's own folder (then made 0700)."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(root, 0o700)
    try:
        st = os.lstat(root)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        return False  # a link, a file, or another user's folder: never write a secret there
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(root, 0o700)
    return True


def private_root() -> Path | None:
    """This user's private folder for server files; None when neither place can be one."""
    places = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime) and os.access(runtime, os.W_OK | os.X_OK):
        places.append(Path(runtime) / "floorbench")
    places.append(Path(tempfile.gettempdir()) / f"floorbench-{os.getuid()}")
    for root in places:
        with contextlib.suppress(OSError):
            if _usable(root):
                return root
    return None


def sweep(root: Path) -> list[Path]:
    """Remove the folders under `root` whose starting process is gone; the folders removed."""
    gone: list[Path] = []
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            parts = entry.name.split("-")
            if len(parts) < 3 or not parts[1].isdigit() or not entry.is_dir() or entry.is_symlink():
                continue
            pid = int(parts[1])
            if pid != os.getpid() and not pid_alive(pid):
                shutil.rmtree(entry, ignore_errors=True)
                gone.append(entry)
    return gone


def private_dir(kind: str) -> Path:
    """A new folder only this user can read (0700) for one server's files: ``<root>/<kind>-<pid>-<random>``.

    Leftovers of killed runs are removed first.
    """
    root = private_root()
    if root is None:
        return Path(tempfile.mkdtemp(prefix=f"floorbench-{kind}-"))
    sweep(root)
    return Path(tempfile.mkdtemp(prefix=f"{kind}-{os.getpid()}-", dir=root))
