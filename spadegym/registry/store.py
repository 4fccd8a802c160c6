"""``Registry``: one root of environment folders, and what can be done with it.

Adding validates first (unless given a passing report), picks the id under the root's lock,
writes the entry atomically, updates the index, and registers the id with Gymnasium in this
process. Ids follow three rules: the same program added again gets the id it already has; a
different program whose class name is taken gets a distinct name (``LockPick2-v0``), never an
overwrite; ``version_of=`` makes the next version of an existing name (``LockPick-v1``).

With a memory, adding and removing keep the memory in step with the registry, as one step
under the memory's lock (see ``memory_link``).
"""

from __future__ import annotations

import builtins
import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.registry import ids
from spadegym.registry.admission import (
    Admitted,
    check_program,
    duplicate_error,
    is_new_version,
)
from spadegym.registry.bundle import write_bundle
from spadegym.registry.entry import (
    clean_leftovers,
    load_program,
    locked,
    read_entry,
    remove_entry,
    rewrite_manifest,
    write_entry,
)
from spadegym.registry.errors import (
    RegistryError,
)
from spadegym.registry.home import make_folder
from spadegym.registry.index import (
    Index,
    IndexEntry,
    entry_from_manifest,
    load_index,
    root_stamp,
    save_index,
)
from spadegym.registry.manifest import (
    Manifest,
    Provenance,
    build_manifest,
    now,
    sha256_of,
)
from spadegym.registry.memory_link import mirror, mirrored_roots, remember, settle
from spadegym.registry.registration import make_env, register_entry, unregister_entry
from spadegym.registry.roots import default_roots, user_root
from spadegym.registry.verification import VerifyResult, verify_root

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym.sandbox.pool import Worker


@dataclass(frozen=True)
class RegisteredEnv:
    """One environment of a registry: its id, folder and manifest."""

    id: str
    root: Path
    manifest: Manifest

    @property
    def path(self) -> Path:
        """The entry folder."""
        return self.root / self.manifest.folder

    def source(self) -> str:
        """The program text, after checking it still matches the manifest's sha256."""
        return load_program(self.path)[0]

    def make(self, **kwargs: Any) -> Any:
        """A ``ProgramEnv`` of this environment (without Gymnasium's wrappers)."""
        return make_env(str(self.path), self.manifest.sha256, **kwargs)


class Registry:
    """A folder of environments, ``<Name>-v<N>/{env.py, manifest.json}``.

    Args:
        root: the folder (created on the first add); ``None`` for the user's root.
        others: roots whose ids also count as taken when naming, and whose programs count as
            already added (``Registry.user()`` passes every other root, so that a new
            environment is never shadowed by a shipped one of the same name).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        others: Iterable[str | os.PathLike[str]] = (),
    ):
        self.root = Path(root) if root is not None else user_root()
        mine = os.path.realpath(self.root)
        self.others = [Path(o) for o in others if os.path.realpath(o) != mine]

    @classmethod
    def user(cls) -> Registry:
        """The user's root, aware of the shipped library and the extra roots."""
        return cls(user_root(), others=default_roots())

    def __repr__(self) -> str:
        return f"Registry({str(self.root)!r})"

    # -- reading ------------------------------------------------------------------------------

    def index(self) -> Index:
        """The root's index (empty when the root does not exist yet)."""
        if not self.root.is_dir():
            return Index(self.root, [0, 0])
        return load_index(self.root)

    def list(self, skill: str | None = None, kind: str | None = None) -> list[IndexEntry]:
        """The environments of this root, by id; optionally only one skill or kind."""
        entries = sorted(self.index().entries.values(), key=lambda e: e.folder)
        return [
            e
            for e in entries
            if (skill is None or e.skill == skill) and (kind is None or e.kind == kind)
        ]

    def skipped(self) -> dict[str, str]:
        """Folders that are not environments (yet), with the reason for each."""
        return dict(self.index().skipped)

    def __len__(self) -> int:
        return len(self.index().entries)

    def __contains__(self, env_id: object) -> bool:
        try:
            return self._folder(str(env_id)) is not None
        except RegistryError:
            return False

    def _folder(self, env_id: str) -> str | None:
        name, version = ids.parse_id(env_id)
        entries = self.index().entries
        if version is not None:
            folder = ids.folder_name(name, version)
            return folder if folder in entries else None
        versions = [
            (parsed[1], e.folder)
            for e in entries.values()
            if (parsed := ids.parse_folder(e.folder)) and parsed[0] == name
        ]
        return max(versions)[1] if versions else None

    def _unknown(self, env_id: str) -> RegistryError:
        """The error for an id this registry does not hold, with the closest ids."""
        known = [e.folder for e in self.index().entries.values()]
        close = difflib.get_close_matches(ids.parse_id(env_id)[0], known, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return RegistryError(
            f"{env_id!r} is not in the registry at {self.root}.{hint} "
            f"`spadegym list` shows every id ({ids.MAKE_HINT})."
        )

    def get(self, env_id: str) -> RegisteredEnv:
        """The environment ``env_id`` (``spade/X-vN``, ``X-vN``, or ``X`` for the latest).

        Raises:
            RegistryError: no such environment here (with the closest ids).
        """
        folder = self._folder(env_id)
        if folder is None:
            raise self._unknown(env_id)
        manifest, problem = read_entry(self.root / folder)
        if manifest is None:
            raise RegistryError(f"{env_id}: {problem}")
        return RegisteredEnv(manifest.id, self.root, manifest)

    def _taken(self, index: Index) -> dict[str, set[int]]:
        taken: dict[str, set[int]] = {}
        folders = list(index.entries) + list(index.skipped)
        for other in self.others:
            if other.is_dir():
                other_index = load_index(other)
                folders += list(other_index.entries) + list(other_index.skipped)
        for folder in folders:
            parsed = ids.parse_folder(folder)
            if parsed is not None:
                taken.setdefault(parsed[0], set()).add(parsed[1])
        return taken

    def _find_entry(self, sha: str) -> IndexEntry | None:
        for root in [self.root, *self.others]:
            if root.is_dir():
                for entry in load_index(root).entries.values():
                    if entry.sha256 == sha:
                        return entry
        return None

    def _find_sha(self, sha: str) -> str | None:
        entry = self._find_entry(sha)
        return None if entry is None else entry.id

    def id_of(self, program: str) -> str | None:
        """The id ``program`` (its exact text) already has here or in the other roots."""
        return self._find_sha(sha256_of(program))

    # -- writing ------------------------------------------------------------------------------

    def add(
        self,
        source: str,
        report: Any = None,
        provenance: Provenance | dict[str, Any] | None = None,
        *,
        memory: MemoryLike | None = None,
        version_of: str | None = None,
        config: Any = None,
        preferred_id: str | None = None,
    ) -> str:
        """Validate and store a program; returns its Gymnasium id (``spade/<Name>-v<N>``).

        Args:
            source: the program, or a designer's raw reply holding one.
            report: a passing ``ValidationReport`` of this program, to skip validation.
            provenance: designer model, grounding document id, parents (a dict or
                ``Provenance``).
            memory: an ``EnvironmentMemory``: a program it judges a duplicate is refused, and
                an added program is recorded in it (see ``admit``).
            version_of: make this the next version of that environment (``X-v0`` -> ``X-v1``);
                the memory then accepts a program close to an earlier version of X.
            config: the ``ValidationConfig`` when validating.
            preferred_id: keep this id when it is free (bundles keep their ids on import).

        Raises:
            RejectedProgramError: the program failed validation.
            DuplicateEnvironmentError: the memory holds the same game under another id.
            DamagedMemoryError: the memory's files are damaged (nothing was added).
            RegistryError: bad arguments, or ``version_of`` names no environment.
        """
        return self.admit(
            source,
            report,
            provenance,
            memory=memory,
            version_of=version_of,
            config=config,
            preferred_id=preferred_id,
        ).env_id

    def admit(
        self,
        source: str,
        report: Any = None,
        provenance: Provenance | dict[str, Any] | None = None,
        *,
        memory: MemoryLike | None = None,
        version_of: str | None = None,
        config: Any = None,
        preferred_id: str | None = None,
        sandbox: Worker | None = None,
        skill: str | None = None,
    ) -> Admitted:
        """``add``, answering also whether the program was new and the memory's verdict.

        ``sandbox`` is a worker that already has the program loaded (a trainer keeps the one
        that computed its signature), used for the first novelty check instead of a fresh
        one; its owner kills it. ``skill`` is the skill the memory records (``None``: the
        program's own tag; a trainer records the skill it asked for).

        With a memory, the novelty check and both writes are one step across processes:
        they run under the memory's lock, so two writers of copies of one game cannot both
        pass the check. The check runs once before the lock (it loads the model and embeds)
        and again under it only when the memory changed in between; the memory stores the
        embedding and the signature the check made, so the program is embedded and played
        once. A program already
        registered gets its id back, and is recorded in the memory when the memory lacks it.
        """
        program, report = check_program(source, report, config)
        sha = sha256_of(program)
        first_obs = report.properties.first_observation
        if memory is None:
            existing = self._find_sha(sha)
            if existing is not None:
                return Admitted(existing, False)
            return Admitted(self._write(program, report, provenance, version_of, preferred_id))
        seen = memory.revision()
        # Cross-play needs the program in a sandbox; the memory keeps the signature probed
        # here for the add that follows.
        if sandbox is not None:
            verdict = memory.check_novelty(program, first_observation=first_obs, sandbox=sandbox)
        else:
            with memory.sandbox() as fresh:
                verdict = memory.check_novelty(program, first_observation=first_obs, sandbox=fresh)
        with memory.locked():
            settle(memory)  # writes of a writer killed half way come first
            # A memory that lost records (a deleted or rolled-back database) gets them back
            # from the programs before it judges: it must know every registered game.
            roots = mirrored_roots(memory, [self.root, *self.others])
            mirror(memory, roots, getattr(memory, "progress", None))
            found = self._find_entry(sha)
            if found is not None:
                remember(memory, found.id, program, first_obs, found.skill, verdict.embedding)
                return Admitted(found.id, False)
            if memory.revision() != seen:  # another writer came between the check and now
                with memory.sandbox() as fresh:
                    verdict = memory.check_novelty(
                        program, first_observation=first_obs, sandbox=fresh
                    )
            if not verdict.novel and not is_new_version(verdict, version_of):
                raise duplicate_error(report.class_name, verdict)
            novelty = {"nearest_id": verdict.nearest_id, "similarity": float(verdict.similarity)}
            env_id = self._write(
                program, report, provenance, version_of, preferred_id, novelty, memory
            )
            own_skill = skill if skill is not None else report.properties.skill
            remember(memory, env_id, program, first_obs, own_skill, verdict.embedding)
        return Admitted(env_id, True, verdict)

    def _write(
        self,
        program: str,
        report: Any,
        provenance: Provenance | dict[str, Any] | None,
        version_of: str | None,
        preferred_id: str | None,
        novelty: dict[str, Any] | None = None,
        memory: MemoryLike | None = None,
    ) -> str:
        """Write a new entry under the root's lock; returns its id (or the id it already has).

        With ``memory``, the addition is noted in its journal before the folder appears.
        """
        sha = sha256_of(program)
        make_folder(self.root)  # says so when this creates the spadegym home
        with locked(self.root):
            clean_leftovers(self.root)
            index = load_index(self.root)
            for entry in index.entries.values():
                if entry.sha256 == sha:  # another process added it while we validated
                    return entry.id
            folder = self._choose_folder(index, report.class_name, version_of, preferred_id)
            if not isinstance(provenance, Provenance):
                provenance = Provenance.model_validate({"origin": "add", **(provenance or {})})
            manifest = build_manifest(
                ids.gym_id(folder), program, report, provenance=provenance, novelty=novelty
            )
            if memory is not None:
                memory.note_intent("add", manifest.id, str(self.root / folder), sha)
            try:
                write_entry(self.root, folder, program, manifest.to_json())
            except BaseException:
                if memory is not None:
                    try:
                        memory.clear_intent(manifest.id, "add")
                    except OSError:  # a full disk: ``settle`` drops the note (no folder)
                        pass
                raise
            entry = entry_from_manifest(manifest)
            index.entries[folder] = entry
            index.skipped.pop(folder, None)
            self._save(index)
        register_entry(self.root, entry)
        return manifest.id

    def _choose_folder(
        self, index: Index, class_name: str, version_of: str | None, preferred_id: str | None
    ) -> str:
        taken = self._taken(index)
        if version_of is not None:
            name, _ = ids.parse_id(version_of)
            if name not in taken:
                raise RegistryError(
                    f"version_of={version_of!r}: no environment named {name} in "
                    f"{self.root} or the other roots; add it without version_of."
                )
            return ids.folder_name(name, max(taken[name]) + 1)
        if preferred_id is not None:
            name, version = ids.parse_id(preferred_id)
            version = version or 0
            if version not in taken.get(name, set()):
                return ids.folder_name(name, version)
            return ids.folder_name(ids.free_name(name, taken), version)
        return ids.folder_name(ids.free_name(ids.base_name(class_name), taken), 0)

    def _save(self, index: Index) -> None:
        """Save an index updated under the lock, stamped with the root as it is now."""
        save_index(Index(self.root, root_stamp(self.root), index.entries, index.skipped))

    def remove(self, env_id: str, *, memory: MemoryLike | None = None) -> str:
        """Remove an environment (a broken one too); returns its id.

        Args:
            env_id: the environment (``spade/X-vN``, ``X-vN``, or ``X`` for the latest).
            memory: an ``EnvironmentMemory`` that forgets it too, in the same step (so that
                the same game can be added again).

        Raises:
            RegistryError: no such environment in this root.
        """
        if memory is None:
            return self._remove(env_id, None)
        with memory.locked():
            settle(memory)
            return self._remove(env_id, memory)

    def _remove(self, env_id: str, memory: MemoryLike | None) -> str:
        with locked(self.root):
            folder = self._folder(env_id) or self._broken_folder(env_id)
            if folder is None:
                raise self._unknown(env_id)
            gym_id = ids.gym_id(folder)
            if memory is not None:  # the record this removal will delete, if any
                stored = memory.get(gym_id)
                entry = self.index().entries.get(folder)
                digest = stored.source_sha256 if stored else entry.sha256 if entry else ""
                memory.note_intent("remove", gym_id, str(self.root / folder), digest)
            remove_entry(self.root, folder)
            index = load_index(self.root)
            index.entries.pop(folder, None)
            index.skipped.pop(folder, None)
            self._save(index)
        unregister_entry(self.root, folder)
        if memory is not None:
            memory.remove(gym_id)
        return gym_id

    def _broken_folder(self, env_id: str) -> str | None:
        """The folder of ``env_id`` among the folders skipped as broken, if it is one."""
        name, version = ids.parse_id(env_id)
        folders = [
            (parsed[1], f)
            for f in self.index().skipped
            if (parsed := ids.parse_folder(f))
            and parsed[0] == name
            and (version is None or parsed[1] == version)
        ]
        return max(folders)[1] if folders else None

    def update_stats(self, env_id: str, **values: Any) -> Manifest:
        """Merge play statistics (``plays``, ``win_rate_plain``, ``regret``, ...) into a manifest.

        Returns:
            The updated manifest.
        """
        with locked(self.root):
            target = self.get(env_id)
            stats = {**target.manifest.stats.model_dump(), **values, "updated": now()}
            manifest = target.manifest.model_copy(
                update={"stats": type(target.manifest.stats).model_validate(stats)}
            )
            rewrite_manifest(target.path, manifest.to_json())
        return manifest

    # -- checking -----------------------------------------------------------------------------

    def verify(
        self, *, fix: bool = False, config: Any = None, workers: int = 2
    ) -> builtins.list[VerifyResult]:
        """Check every folder: manifest valid, program matching its sha256; rebuild the index.

        Args:
            fix: re-validate each failing folder's ``env.py`` and, when it passes, rewrite its
                manifest (keeping creation time and provenance); this is also how folders that
                hold only ``env.py`` get their first manifest.
            config: the ``ValidationConfig`` for ``fix``.
            workers: validations at once for ``fix``.

        Returns:
            One result per folder, by name.
        """
        return verify_root(self.root, fix=fix, config=config, workers=workers)

    # -- bundles ------------------------------------------------------------------------------

    def export(self, env_ids: Iterable[str], path: str | os.PathLike[str]) -> Path:
        """Write the environments to a ``.tar.gz`` bundle; see ``spadegym.registry.bundle``.

        Raises:
            RegistryError: an id is unknown, or a program no longer matches its manifest.
        """
        chosen = [self.get(env_id) for env_id in env_ids]
        items = [
            (env.manifest.folder, env.source().encode("utf-8"), env.manifest.to_json())
            for env in chosen
        ]
        return write_bundle(Path(path), items)

    def import_(
        self, path: str | os.PathLike[str], *, config: Any = None, memory: MemoryLike | None = None
    ) -> builtins.list[str]:
        """Add every environment of a bundle, validated like any other; all or none.

        Every item is checked (ids, validation, copies within the bundle, novelty against the
        memory) before any is written; see ``spadegym.registry.importing``. Ids are kept when
        free.

        Returns:
            The ids the environments have here, in the bundle's order.

        Raises:
            RegistryError: the bundle is malformed (an invalid id included), a program does
                not match its manifest, or the bundle holds one game twice.
            RejectedProgramError: a program fails validation (nothing is added).
            DuplicateEnvironmentError: the memory holds one of the games already (nothing is
                added).
        """
        from spadegym.registry.importing import import_bundle

        return import_bundle(self, Path(path), config, memory)
