"""The registry and the environment memory, kept in step: one record per registered program.

The memory is what the novelty check reads, so every registered environment must be in it
and nothing else may be: a program missing from the memory lets its copies through, and a
record the registry no longer holds refuses programs as copies of nothing. Three mechanisms
keep the two together:

- ``Registry.admit`` writes both under the memory's lock, noting its intent in the memory's
  journal first (``spadegym.memory.journal``); ``settle`` finishes the writes of a writer
  killed half way, and every writer calls it before its own.
- ``remember`` is idempotent: adding a program the registry already holds records it in the
  memory when the memory lacks it, and replaces a record left under a reused id.
- ``mirror`` runs on every open of the default memory and under the lock of every add: it
  compares what the roots register (each id and its program's sha256, read from the roots'
  indexes) with what the memory holds (read from a covering index, no vector), and records the
  programs the memory lacks from the registry, saying so. A memory whose files were lost,
  truncated or rolled back (a deleted ``-wal``) so forgets nothing the registry holds.
- ``reconcile`` compares the whole memory with the registry roots and, with ``fix``, adds what
  is missing and removes what is stale (``spadegym verify --fix``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.registry.entry import load_program
from spadegym.registry.errors import RegistryError
from spadegym.registry.index import load_index
from spadegym.registry.manifest import sha256_of

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym.memory.novelty import Embedded
    from spadegym.registry.manifest import Manifest

log = logging.getLogger("spadegym.registry")


def remember(
    memory: MemoryLike,
    env_id: str,
    program: str,
    first_observation: str | None,
    skill: str | None,
    embedding: Embedded | None = None,
) -> bool:
    """Make ``memory`` hold ``program`` under ``env_id``; hold the memory's lock.

    ``embedding`` is the one the novelty check made (``Novelty.embedding``), so that the
    program is not embedded a second time.

    Returns:
        True when the memory had to be written.
    """
    stored = memory.get(env_id)
    if stored is not None:
        if stored.source_sha256 == sha256_of(program):
            memory.clear_intent(env_id, "add")
            return False
        memory.remove(env_id)  # a record of a removed program whose id was given out again
    memory.add(
        env_id, program, first_observation=first_observation, skill=skill, embedding=embedding
    )
    return True


def settle(memory: MemoryLike) -> list[str]:
    """Finish or drop the registry writes noted in the memory's journal; hold its lock.

    An ``add`` whose folder holds the noted program is recorded in the memory; a ``remove``
    whose folder is gone is removed from it (when the memory still holds the noted program).
    Anything else did not happen in the registry, so the note is dropped.

    Returns:
        The ids whose memory record was written.
    """
    done = []
    for intent in memory.intents():
        folder = Path(intent.folder)
        loaded: tuple[str, Manifest] | None
        try:
            loaded = load_program(folder)
        except (RegistryError, OSError):
            loaded = None
        if intent.op == "add" and loaded is not None and loaded[1].sha256 == intent.sha256:
            program, manifest = loaded
            log.info("finishing the interrupted addition of %s to the memory", intent.env_id)
            remember(
                memory,
                intent.env_id,
                program,
                manifest.first_observation or None,
                manifest.skill,
            )
            done.append(intent.env_id)
        elif intent.op == "remove" and not folder.exists():
            stored = memory.get(intent.env_id)
            if stored is not None and stored.source_sha256 == intent.sha256:
                log.info("finishing the interrupted removal of %s", intent.env_id)
                memory.remove(intent.env_id)
                done.append(intent.env_id)
            else:
                memory.clear_intent(intent.env_id, "remove")
        else:
            memory.clear_intent(intent.env_id, intent.op)
    return done


def _registered(roots: Iterable[Path]) -> dict[str, list[tuple[Path, Any]]]:
    """Every id the roots register, with each root's entry of it (earliest root first)."""
    found: dict[str, list[tuple[Path, Any]]] = {}
    for root in roots:
        root = Path(root)
        if root.is_dir():
            for entry in load_index(root).entries.values():
                found.setdefault(entry.id, []).append((root, entry))
    return found


def _lacking(memory: MemoryLike, registered: dict[str, list[tuple[Path, Any]]]) -> list[str]:
    """Registered ids whose program (that of any root registering the id) the memory lacks."""
    stored = memory.digests()
    return sorted(
        env_id
        for env_id, entries in registered.items()
        if stored.get(env_id) not in {entry.sha256 for _, entry in entries}
    )


def mirrored_roots(memory: MemoryLike, roots: Iterable[Path]) -> list[Path]:
    """The roots ``memory`` must mirror: the shipped library only when it was seeded with it.

    A memory made and filled without the library (``seeded=no``, see ``memory.default``)
    stays without it; the library is the seeding's to add.
    """
    from spadegym.registry.roots import shipped_root

    roots = [Path(r) for r in roots]
    shipped = shipped_root()
    setting = getattr(memory, "setting", None)
    if shipped is None or (setting is not None and setting("seeded") == "done"):
        return roots
    return [r for r in roots if os.path.realpath(r) != os.path.realpath(shipped)]


def mirror(
    memory: MemoryLike, roots: Iterable[Path], progress: Callable[[str], None] | None = None
) -> list[str]:
    """Record in ``memory`` every environment of ``roots`` it lacks, from their programs.

    Cheap when nothing is missing (one read of the roots' indexes and of the memory's ids and
    digests); takes the memory's lock only to write. Records of ids no root registers are left
    alone (``reconcile`` reports them). A missing program is announced on ``progress`` (else
    logged as a warning), since rebuilding embeds and plays each program.

    Returns:
        The ids recorded.
    """
    if memory.intents():  # writes of a writer killed (or out of disk) half way come first
        with memory.locked():
            settle(memory)
    roots = list(roots)
    registered = _registered(roots)
    if not _lacking(memory, registered):
        return []
    with memory.locked():
        settle(memory)
        missing = _lacking(memory, registered)
        if not missing:
            return []
        line = (
            f"the memory at {memory.path} lacks {len(missing)} registered environment(s) "
            f"({_few(missing)}); recording them again from the registry's programs"
        )
        if progress is not None:
            progress(line)
        else:
            log.warning("%s", line)
        by_skill: dict[str | None, list[tuple[str, str, str | None]]] = {}
        for env_id in missing:
            root, entry = registered[env_id][0]
            try:
                program, manifest = load_program(root / entry.folder)
            except RegistryError as exc:  # verify reports the entry itself
                log.warning("not recording %s in the memory: %s", env_id, exc)
                continue
            memory.remove(env_id)  # a record of another program under this id
            by_skill.setdefault(manifest.skill, []).append(
                (env_id, program, manifest.first_observation or None)
            )
        recorded = []
        for skill, items in by_skill.items():
            memory.add_many(items, skill=skill)
            recorded += [env_id for env_id, _, _ in items]
    return recorded


@dataclass
class Drift:
    """How a memory differs from the registry roots it should mirror.

    Attributes:
        missing: registered ids the memory does not hold.
        stale: ids the memory holds that no root registers.
        changed: ids whose stored program differs from the registered one.
        fixed: whether the memory was brought in line.
    """

    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    fixed: bool = False

    @property
    def clean(self) -> bool:
        """Whether the memory mirrors the roots exactly."""
        return not (self.missing or self.stale or self.changed)

    def describe(self) -> str:
        """One line: what differs, with a few ids of each kind."""
        if self.clean:
            return "in step with the registry"
        parts = []
        for name, ids in (("missing", self.missing), ("stale", self.stale)):
            if ids:
                parts.append(f"{len(ids)} {name} ({_few(ids)})")
        if self.changed:
            parts.append(f"{len(self.changed)} with another program ({_few(self.changed)})")
        return ", ".join(parts)


def _few(ids: list[str], k: int = 3) -> str:
    return ", ".join(ids[:k]) + (", ..." if len(ids) > k else "")


def reconcile(memory: MemoryLike, roots: Iterable[Path], *, fix: bool = False) -> Drift:
    """Compare ``memory`` with the environments of ``roots`` (earlier roots shadow later).

    Args:
        memory: an ``EnvironmentMemory``.
        roots: every root the memory should mirror (a record of any other id is stale).
        fix: add the missing programs, replace the changed ones, remove the stale ones.

    Returns:
        What differed (before fixing).
    """
    with memory.locked():
        if fix:
            settle(memory)
        wanted: dict[str, tuple[Path, Any]] = {}
        for root in roots:
            root = Path(root)
            if root.is_dir():
                for entry in load_index(root).entries.values():
                    wanted.setdefault(entry.id, (root, entry))
        stored = memory.digests()
        drift = Drift(
            missing=sorted(i for i in wanted if i not in stored),
            stale=sorted(i for i in stored if i not in wanted),
            changed=sorted(i for i in wanted if i in stored and stored[i] != wanted[i][1].sha256),
        )
        if not fix or drift.clean:
            return drift
        for env_id in drift.stale + drift.changed:
            memory.remove(env_id)
        by_skill: dict[str | None, list[tuple[str, str, str | None]]] = {}
        for env_id in drift.missing + drift.changed:
            root, entry = wanted[env_id]
            try:
                program, manifest = load_program(root / entry.folder)
            except RegistryError as exc:  # verify reports the entry itself
                log.warning("not recording %s in the memory: %s", env_id, exc)
                continue
            by_skill.setdefault(manifest.skill, []).append(
                (env_id, program, manifest.first_observation or None)
            )
        for skill, items in by_skill.items():
            memory.add_many(items, skill=skill)
        drift.fixed = True
    return drift
