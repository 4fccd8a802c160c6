"""Gymnasium registration from disk, and the entry point that ``gymnasium.make`` calls.

``import spadegym`` calls ``register_roots()``: for every root it reads the index (rebuilding
it when stale) and puts one ``EnvSpec`` per environment into Gymnasium's registry. No manifest
is parsed and no worker starts. Specs go into ``gymnasium.envs.registration.registry`` (a dict)
directly: ``gymnasium.register`` scans every registered id on each call to warn about version
clashes, which made 10,000 registrations take 21 s here, against 0.09 s for direct inserts.
Our ids cannot clash with Gymnasium's own (they live in the ``spade`` namespace) and the
registry folders already keep one program per id.

A spec holds only strings (the entry folder and the program's sha256), so it survives
``EnvSpec.to_json`` and pickling, and a spawned process that imports spadegym registers the
same ids from the same folders.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.registry import ids
from spadegym.registry.entry import load_program
from spadegym.registry.errors import warn_shadowed
from spadegym.registry.index import IndexEntry, load_index
from spadegym.registry.roots import default_roots

if TYPE_CHECKING:
    from gymnasium.envs.registration import EnvSpec

ENTRY_POINT = "spadegym.registry:make_env"
"""What every registered spec calls; the id's folder and sha256 travel in its kwargs."""

VECTOR_ENTRY_POINT = "spadegym.vector.gym:make_vector"
"""What ``gymnasium.make_vec`` calls by default: the pooled batch (``spadegym.vector.gym``)."""

log = logging.getLogger("spadegym.registry")


def _gym_registry() -> dict[str, EnvSpec]:
    from gymnasium.envs.registration import registry

    return registry


def spec_for(root: Path, entry: IndexEntry, env_id: str | None = None) -> Any:
    """The ``EnvSpec`` of one entry: ``max_episode_steps`` is the program's ``max_turns``."""
    from gymnasium.envs.registration import EnvSpec

    return EnvSpec(
        id=env_id or entry.id,
        entry_point=ENTRY_POINT,
        vector_entry_point=VECTOR_ENTRY_POINT,
        max_episode_steps=entry.max_turns,
        kwargs={"folder": os.path.join(str(root), entry.folder), "sha256": entry.sha256},
    )


def _owned_folder(spec: Any) -> str | None:
    """The entry folder of a spec we registered, else None."""
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return (spec.kwargs or {}).get("folder")


def register_roots(roots: Iterable[Path] | None = None) -> dict[str, Path]:
    """Register every environment of every root with Gymnasium; earlier roots shadow later.

    Folders without a valid manifest are skipped with a logged reason (logger
    ``spadegym.registry``); an index that fails its checks is rebuilt from the manifests (see
    ``index``); a root that cannot be read is skipped the same way. Nothing here raises, since
    it runs at ``import spadegym``.

    Args:
        roots: the roots, earliest first; ``None`` for ``default_roots()``.

    Returns:
        Each registered id and the root it came from.
    """
    registry = _gym_registry()
    origin: dict[str, Path] = {}
    for root in default_roots() if roots is None else roots:
        root = Path(root)
        if not root.is_dir():
            continue
        try:
            index = load_index(root)
        except Exception as exc:  # never break `import spadegym` over one root
            log.warning("registry root %s skipped: %s", root, exc)
            continue
        for folder, reason in index.skipped.items():
            log.warning("registry entry %s skipped: %s", root / folder, reason)
        for entry in index.entries.values():
            env_id = entry.id
            if env_id in origin:
                warn_shadowed(env_id, str(origin[env_id]), str(root))
                continue
            try:
                spec = spec_for(root, entry, env_id)
            except Exception as exc:  # one entry never costs the others their registration
                log.warning("registry entry %s skipped: %s", root / entry.folder, exc)
                continue
            origin[env_id] = root
            registry[env_id] = spec
    return origin


def register_entry(root: Path, entry: IndexEntry) -> bool:
    """Register one new entry in this process, unless another folder already has its id.

    Returns:
        True when the id now points at this entry.
    """
    registry = _gym_registry()
    folder = os.path.join(str(root), entry.folder)
    existing = _owned_folder(registry.get(entry.id))
    if (
        existing is not None
        and os.path.realpath(existing) != os.path.realpath(folder)
        and os.path.isdir(existing)
    ):
        warn_shadowed(entry.id, str(Path(existing).parent), str(root))
        return False
    registry[entry.id] = spec_for(Path(root), entry)
    return True


def unregister_entry(root: Path, folder: str) -> None:
    """Forget the registration of an entry that was removed (only if it points there)."""
    registry = _gym_registry()
    env_id = ids.gym_id(folder)
    owned = _owned_folder(registry.get(env_id))
    if owned is not None and os.path.realpath(owned) == os.path.realpath(Path(root) / folder):
        del registry[env_id]


def make_env(folder: str, sha256: str | None = None, **kwargs: Any) -> Any:
    """Gymnasium's entry point: the ``ProgramEnv`` of a registry entry.

    The program is read once and its sha256 checked against the manifest before it reaches a
    sandbox. Keyword arguments pass through to ``ProgramEnv`` (``isolation``, ``sandbox``,
    ``pool``, ``on_error``, ``max_turns``, ``render_mode``). Every environment runs in a
    sandboxed worker by default, shipped ones included.

    Args:
        folder: the entry folder (from the spec's kwargs).
        sha256: the program hash the spec was registered with. The manifest is the authority:
            a program that matches its manifest but not this hash was re-validated with
            ``verify --fix`` after this process registered it, and is used.
        **kwargs: passed to ``ProgramEnv``.

    Raises:
        TamperedEnvironmentError: the program no longer matches its manifest.
        RegistryError: the entry is missing or incomplete.
    """
    from spadegym.env import ProgramEnv

    source, manifest = load_program(Path(folder))
    if sha256 is not None and sha256 != manifest.sha256:
        log.info(
            "%s was re-validated since it was registered; using its current manifest", manifest.id
        )
    return ProgramEnv(source, **kwargs)
