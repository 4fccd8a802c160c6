"""Where registries live: the shipped library, the user's root, and extra roots, in that order.

1. The shipped library: the repository's ``registry/`` folder, installed with the package as
   ``spadegym/library``. ``SPADEGYM_SHIPPED_REGISTRY`` overrides its location; set it to the
   empty string to leave it out (tests and benchmarks do, to measure only their own roots).
2. The user's root: ``$SPADEGYM_HOME/registry``; ``SPADEGYM_HOME`` defaults to
   ``$XDG_DATA_HOME/spadegym`` (``~/.local/share/spadegym``). ``spadegym add`` writes here.
3. Every folder of ``SPADEGYM_REGISTRY_PATH`` (separated by ``os.pathsep``).

Earlier roots shadow later ones: an id found in two roots is taken from the earlier.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def spadegym_home() -> Path:
    """``$SPADEGYM_HOME``, by default ``$XDG_DATA_HOME/spadegym`` (``~/.local/share/spadegym``)."""
    home = os.environ.get("SPADEGYM_HOME")
    if home:
        return Path(home).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "spadegym"


def shipped_root() -> Path | None:
    """The registry that ships with spadegym, or None when there is none (or it is disabled)."""
    override = os.environ.get("SPADEGYM_SHIPPED_REGISTRY")
    if override is not None:
        return Path(override).expanduser() if override else None
    return _shipped("library", "registry")


def shipped_examples() -> Path | None:
    """The example programs (``good/``, ``bad/``) that ship with spadegym, if present."""
    return _shipped("examples", "examples")


def _shipped(installed: str, checkout: str) -> Path | None:
    """A folder the wheel puts in the package as ``installed``, or a checkout's ``checkout``."""
    if (_PACKAGE / installed).is_dir():
        return _PACKAGE / installed
    folder = _PACKAGE.parent / checkout  # a source checkout or an editable install
    if folder.is_dir() and (_PACKAGE.parent / "pyproject.toml").is_file():
        return folder
    return None


def user_root() -> Path:
    """The user's registry, ``$SPADEGYM_HOME/registry`` (it may not exist yet)."""
    return spadegym_home() / "registry"


def extra_roots() -> list[Path]:
    """The folders listed in ``SPADEGYM_REGISTRY_PATH``."""
    value = os.environ.get("SPADEGYM_REGISTRY_PATH", "")
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part.strip()]


def default_roots() -> list[Path]:
    """Every root, earliest (highest precedence) first, each once."""
    roots: list[Path] = []
    seen: set[str] = set()
    for root in [shipped_root(), user_root(), *extra_roots()]:
        if root is None:
            continue
        key = os.path.realpath(root)
        if key not in seen:
            seen.add(key)
            roots.append(root)
    return roots
