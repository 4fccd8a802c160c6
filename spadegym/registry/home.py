"""``use_home(folder)``: run with a workspace as the spadegym home, apart from the user's own.

A run that owns a workspace (``spadegym demo --workdir``, a ``spadegym-train`` run) keeps its
registry and memory there, laid out like a home (``registry/``, ``memory/``). Inside
``use_home(workspace)``:

- ``SPADEGYM_HOME`` is the workspace, so the user's root (``$SPADEGYM_HOME/registry``) and the
  default memory are the workspace's, here and in every process started meanwhile (sandbox
  workers, Ray actors, ``AsyncVectorEnv`` workers); ``SPADEGYM_REGISTRY_PATH`` is unset;
- Gymnasium's ``spade/`` ids are exactly those of the shipped library and the workspace.

So the user's own registry neither shadows the run's environments (``gymnasium.make`` would
otherwise play the user's copy of an id) nor floods the run with
``ShadowedEnvironmentWarning``. Leaving restores the variables and the registrations.

``make_folder(path)`` is how spadegym creates a folder it writes to: when that creates the
user's home (``$SPADEGYM_HOME``, by default ``~/.local/share/spadegym``), one line on stderr
says so, once per process, and how to put it elsewhere; commands that only read never call it,
so they leave no home behind. A run's own workspace (inside ``use_home``) is not announced.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["make_folder", "use_home"]

_lock = threading.Lock()
_announced = False
_quiet_depth = 0  # inside use_home: the workspace is the run's, not the user's home
_VARIABLES = ("SPADEGYM_HOME", "SPADEGYM_REGISTRY_PATH")


@contextlib.contextmanager
def use_home(home: str | os.PathLike[str]) -> Iterator[Path]:
    """Make ``home`` the spadegym home for the duration (see the module).

    Yields:
        ``home`` as an absolute path.
    """
    from gymnasium.envs.registration import registry

    from spadegym.registry.registration import register_roots

    global _quiet_depth
    folder = Path(home).expanduser().resolve()
    saved_env = {name: os.environ.get(name) for name in _VARIABLES}
    saved_specs = {k: v for k, v in registry.items() if k.startswith("spade/")}
    os.environ["SPADEGYM_HOME"] = str(folder)
    os.environ.pop("SPADEGYM_REGISTRY_PATH", None)
    for key in saved_specs:
        del registry[key]
    _quiet_depth += 1
    try:
        register_roots()
        yield folder
    finally:
        _quiet_depth -= 1
        for key in [k for k in registry if k.startswith("spade/")]:
            del registry[key]
        registry.update(saved_specs)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def make_folder(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` (and its parents); announce it when this creates the spadegym home.

    Returns:
        ``path`` as a ``Path``.
    """
    global _announced
    from spadegym.registry.roots import spadegym_home

    folder = Path(path)
    home = spadegym_home().expanduser()
    new_home = not home.exists() and _inside(folder, home)
    folder.mkdir(parents=True, exist_ok=True)
    if new_home and not _quiet_depth:
        with _lock:
            if _announced:
                return folder
            _announced = True
        print(
            f"spadegym: created {home} for your registry and memory (the first write there; "
            "set SPADEGYM_HOME to keep them elsewhere)",
            file=sys.stderr,
            flush=True,
        )
    return folder


def _inside(path: Path, home: Path) -> bool:
    try:
        path.expanduser().absolute().relative_to(home.absolute())
    except ValueError:
        return False
    return True
