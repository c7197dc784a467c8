"""What a process floorbench starts may see: no import from the user's folder, only the environment it needs.

- A Python child (the model process) starts with ``-P`` (Python 3.11: the
  current folder is not put on ``sys.path``, so a stray ``loguru.py`` in the
  folder a user runs from is never executed) in a folder floorbench chose, and
  imports floorbench from where the parent did (`python_environment`).
- Its environment is an allow-list (`pipelines.scenario_run.child_environment`
  for the model); a name that looks like a secret (``HF_TOKEN``,
  ``*_API_KEY``: `floorbench.redact.is_secret_name`) never passes by a prefix
  or a default, only when the model config names it.
- A server binary (LiveKit, Redis) or a speech synthesiser gets only
  `MINIMAL_NAMES` and the locale (`minimal_environment`): none of the shell's
  keys, and none of the variables that would reconfigure the managed server
  behind its config's back (``LIVEKIT_KEYS``, ``NODE_IP``, ``UDP_PORT``, …).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from floorbench.redact import is_secret_name

MINIMAL_NAMES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "TEMP", "TMP",
})
"""what any child needs to run at all"""
MINIMAL_PREFIXES = ("LC_",)


def minimal_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """PATH, HOME, the user, the locale, the time zone, the terminal and the temp folder; nothing else."""
    environ = dict(os.environ) if environ is None else environ
    return {k: v for k, v in environ.items() if k in MINIMAL_NAMES or k.startswith(MINIMAL_PREFIXES)}


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def python_argv(module: str) -> tuple[str, ...]:
    """``python -P -m MODULE``: the current folder stays off sys.path."""
    return (sys.executable, "-P", "-m", module)


def floorbench_root() -> Path:
    """The folder this floorbench package is imported from (a checkout or site-packages)."""
    return Path(__file__).resolve().parent.parent


def python_environment(env: dict[str, str]) -> dict[str, str]:
    """`env` with this floorbench's folder first on PYTHONPATH: the child runs the parent's code, not
    another install's (``-P`` and a fixed folder take away the current folder it may have relied on)."""
    root = str(floorbench_root())
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    return {**env, "PYTHONPATH": os.pathsep.join([root, *rest])}


def absolute_paths(config: Any, base: Path) -> Any:
    """A config with every relative path that exists under `base` (the parent's folder) made absolute.

    The child runs in another folder; ``asr.model: ./whisper-base`` or ``tts.voice: voices/joe.onnx``
    must still name the same file. Text that looks like a path (a ``/``, a leading ``.``, a
    suffix such as ``.onnx``) and exists under `base` changes; URLs, plain names (``voice: alloy``,
    ``adapter: cascade``) and secret-like keys stay.
    """
    if isinstance(config, dict):
        kept = ("adapter", "class")  # names, never paths; *_env values name variables
        return {k: v if is_secret_name(str(k)) or str(k) in kept or str(k).endswith("_env")
                else absolute_paths(v, base) for k, v in config.items()}
    if isinstance(config, list):
        return [absolute_paths(v, base) for v in config]
    if not isinstance(config, str) or config in ("", ".", "..") or "://" in config or len(config) > 4096:
        return config
    p = Path(config)
    if p.is_absolute() or not ("/" in config or config.startswith(".") or p.suffix):
        return config
    try:
        return str((base / p).resolve()) if (base / p).exists() else config
    except (OSError, ValueError):
        return config
