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
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["use_home"]

_VARIABLES = ("SPADEGYM_HOME", "SPADEGYM_REGISTRY_PATH")


@contextlib.contextmanager
def use_home(home: str | os.PathLike) -> Iterator[Path]:
    """Make ``home`` the spadegym home for the duration (see the module).

    Yields:
        ``home`` as an absolute path.
    """
    from gymnasium.envs.registration import registry

    from spadegym.registry.registration import register_roots

    folder = Path(home).expanduser().resolve()
    saved_env = {name: os.environ.get(name) for name in _VARIABLES}
    saved_specs = {k: v for k, v in registry.items() if k.startswith("spade/")}
    os.environ["SPADEGYM_HOME"] = str(folder)
    os.environ.pop("SPADEGYM_REGISTRY_PATH", None)
    for key in saved_specs:
        del registry[key]
    try:
        register_roots()
        yield folder
    finally:
        for key in [k for k in registry if k.startswith("spade/")]:
            del registry[key]
        registry.update(saved_specs)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
