"""The user's memory, ``$SPADEGYM_HOME/memory``, holding the shipped library from its first use.

Every path that adds environments (``spadegym add``, ``generate``, the CLI's ``similar`` and
``stats``) opens this memory unless told otherwise, so a new environment is judged novel
against the library that ships with spadegym, not just against what the user added.

Seeding is one step under the memory's lock: several processes opening a new memory at once
seed it once. The memory notes when seeding starts and when it is done, so a process killed
while seeding leaves the rest to the next open, while a memory seeded before (or one made
without seeding and filled since, marked ``seeded=no``) is left as it is. The library's
summaries and embeddings ship precomputed (``precomputed``), so seeding takes a fraction of a
second and loads no model. Each open then checks that the memory knows every registered
environment, and records what it lacks from the registry, saying so (a lost or rolled-back
database forgets nothing).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from spadegym.memory.embedders import Embedder
from spadegym.memory.progress import Progress
from spadegym.memory.store import EnvironmentMemory

log = logging.getLogger("spadegym.memory")


def default_memory_path() -> Path:
    """``$SPADEGYM_HOME/memory`` (SPADEGYM_HOME defaults to the XDG data folder)."""
    from spadegym.registry.roots import spadegym_home

    return spadegym_home() / "memory"


def open_memory(
    path: str | os.PathLike[str] | None = None,
    embedder: Embedder | None = None,
    *,
    seed: bool = True,
    progress: Progress | None = None,
    roots: list[Path] | None = None,
) -> EnvironmentMemory:
    """Open (or create) a memory holding every environment of the shipped library.

    Args:
        path: the memory folder (default ``default_memory_path()``).
        embedder: the embedder of a new memory (default all-MiniLM-L6-v2); an existing memory
            keeps the one it was built with.
        seed: add the shipped library to a new memory (or finish seeding one whose seeding
            was interrupted).
        progress: receives a line when something takes more than a couple of seconds, and
            the line saying that registered environments were missing and are recorded again.
        roots: registry roots the memory must know every environment of (default: every
            root, ``default_roots()``); what it lacks is recorded from their programs
            (``spadegym.registry.memory_link.mirror``). ``[]`` checks none (``verify``
            reports the difference instead).

    Raises:
        ConfigError: the embedder does not match the memory's, or its records disagree.
        DamagedMemoryError: the memory's database is damaged.
    """
    folder = Path(path) if path is not None else default_memory_path()
    memory = EnvironmentMemory(folder, embedder, progress=progress)
    try:
        if seed and memory.setting("seeded") not in ("done", "no"):
            with memory.locked():
                state = memory.setting("seeded")
                if state == "started" or (state is None and len(memory) == 0):
                    memory.set_setting("seeded", "started")
                    seed_library(memory)
                    memory.set_setting("seeded", "done")
                elif state is None:  # made and filled without the library: left so
                    memory.set_setting("seeded", "no")
        from spadegym.registry.memory_link import mirror, mirrored_roots
        from spadegym.registry.roots import default_roots

        if roots is None:
            roots = mirrored_roots(memory, default_roots())
        mirror(memory, roots, progress)
    except BaseException:
        memory.close()
        raise
    return memory


def seed_library(memory: EnvironmentMemory, roots: list[Path] | None = None) -> int:
    """Add every environment of ``roots`` (default: the shipped library) that ``memory`` lacks.

    Under the memory's lock, after looking again under it: concurrent seeders add each
    environment once. An entry whose program fails its sha256 check is left out (the
    registry refuses to load it too).

    Returns:
        How many environments were added.
    """
    from spadegym.registry.entry import load_program
    from spadegym.registry.errors import RegistryError
    from spadegym.registry.index import load_index
    from spadegym.registry.roots import shipped_root

    if roots is None:
        shipped = shipped_root()
        roots = [shipped] if shipped is not None and shipped.is_dir() else []
    wanted: dict[str, tuple[Path, str | None]] = {}
    for root in roots:
        for entry in load_index(Path(root)).entries.values():
            wanted.setdefault(entry.id, (Path(root) / entry.folder, entry.skill))
    if all(env_id in memory for env_id in wanted):
        return 0  # the usual case: one indexed lookup each, no lock
    added = 0
    with memory.locked():
        by_skill: dict[str | None, list[tuple[str, str, str | None]]] = {}
        for env_id, (folder, skill) in wanted.items():
            if env_id in memory:
                continue
            try:
                source, manifest = load_program(folder)
            except RegistryError as exc:
                log.warning("not seeding %s: %s", env_id, exc)
                continue
            by_skill.setdefault(skill, []).append(
                (env_id, source, manifest.first_observation or None)
            )
        for skill, items in by_skill.items():
            memory.add_many(items, skill=skill)
            added += len(items)
    return added
