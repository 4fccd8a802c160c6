"""The user's memory, ``$SPADEGYM_HOME/memory``, seeded with the shipped library on first use.

Every path that adds environments (``spadegym add``, ``generate``, the CLI's ``similar`` and
``stats``) opens this memory unless told otherwise, so a new environment is judged novel
against the library that ships with spadegym, not just against what the user added.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from spadegym.memory.embedders import Embedder
from spadegym.memory.store import EnvironmentMemory


def default_memory_path() -> Path:
    """``$SPADEGYM_HOME/memory`` (SPADEGYM_HOME defaults to the XDG data folder)."""
    from spadegym.registry.roots import spadegym_home

    return spadegym_home() / "memory"


def open_memory(
    path: str | os.PathLike | None = None, embedder: Embedder | None = None, *, seed: bool = True
) -> EnvironmentMemory:
    """Open (or create) a memory; a new, empty one is first seeded with the shipped library.

    Args:
        path: the memory folder (default ``default_memory_path()``).
        embedder: the embedder of a new memory (default all-MiniLM-L6-v2); an existing memory
            keeps the one it was built with.
        seed: add the shipped library's environments to a memory that holds none.
    """
    memory = EnvironmentMemory(Path(path) if path is not None else default_memory_path(), embedder)
    if seed and not memory.ids():
        seed_library(memory)
    return memory


def seed_library(memory: EnvironmentMemory, roots: list[Path] | None = None) -> int:
    """Add every environment of ``roots`` (default: the shipped library) to ``memory``.

    Returns:
        How many environments were added (those already present are skipped).
    """
    from spadegym.registry import Registry, shipped_root

    if roots is None:
        shipped = shipped_root()
        roots = [shipped] if shipped is not None else []
    known = set(memory.ids())
    items: list[tuple[str, str, str | None]] = []
    skills: dict[str, Any] = {}
    for root in roots:
        registry = Registry(root)
        for entry in registry.list():
            if entry.id in known:
                continue
            found = registry.get(entry.id)
            items.append((entry.id, found.source(), found.manifest.first_observation or None))
            skills[entry.id] = entry.skill
            known.add(entry.id)
    by_skill: dict[Any, list[tuple[str, str, str | None]]] = {}
    for item in items:
        by_skill.setdefault(skills[item[0]], []).append(item)
    for skill, group in by_skill.items():
        memory.add_many(group, skill=skill)
    return len(items)
