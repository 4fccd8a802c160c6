"""The registry: validated environments on disk, registered with Gymnasium at ``import spadegym``.

Each environment is a folder ``<Name>-v<N>/`` holding ``env.py`` (the program, byte for byte)
and ``manifest.json`` (see ``manifest``). Roots are searched in order (see ``roots``); each
keeps an index (see ``index``) so that registering 10,000 environments reads one file.

``gymnasium.make("spade/<Name>-v<N>", **kwargs)`` calls ``make_env``, which checks the
program's sha256 against its manifest and returns a sandboxed ``ProgramEnv``.

The light names (ids, roots, registration, errors) are imported eagerly; ``Registry`` and the
manifest models load pydantic, so they are imported on first use.
"""

from __future__ import annotations

import logging
from typing import Any

from spadegym.registry.errors import (
    DuplicateEnvironmentError,
    RegistryError,
    RejectedProgramError,
    ShadowedEnvironmentWarning,
    TamperedEnvironmentError,
)
from spadegym.registry.home import use_home
from spadegym.registry.ids import NAMESPACE, InvalidIdError
from spadegym.registry.index import IndexEntry
from spadegym.registry.registration import ENTRY_POINT, make_env, register_roots
from spadegym.registry.roots import default_roots, shipped_root, user_root

# A library never prints on its own: skipped folders are logged, and shown only to a program
# that configures logging (the CLI does, for `spadegym list -v`).
logging.getLogger("spadegym.registry").addHandler(logging.NullHandler())

_LAZY = {
    "Registry": "spadegym.registry.store",
    "RegisteredEnv": "spadegym.registry.store",
    "VerifyResult": "spadegym.registry.verification",
    "Admitted": "spadegym.registry.admission",
    "Manifest": "spadegym.registry.manifest",
    "Provenance": "spadegym.registry.manifest",
    "PlayStatistics": "spadegym.registry.manifest",
    "SCHEMA_VERSION": "spadegym.registry.manifest",
}

__all__ = [
    "ENTRY_POINT",
    "Admitted",
    "NAMESPACE",
    "DuplicateEnvironmentError",
    "IndexEntry",
    "InvalidIdError",
    "Manifest",
    "PlayStatistics",
    "Provenance",
    "RegisteredEnv",
    "Registry",
    "RegistryError",
    "RejectedProgramError",
    "SCHEMA_VERSION",
    "ShadowedEnvironmentWarning",
    "TamperedEnvironmentError",
    "VerifyResult",
    "default_roots",
    "make_env",
    "register_roots",
    "shipped_root",
    "use_home",
    "user_root",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'spadegym.registry' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
