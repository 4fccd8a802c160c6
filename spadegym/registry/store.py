"""``Registry``: one root of environment folders, and what can be done with it.

Adding validates first (unless given a passing report), picks the id under the root's lock,
writes the entry atomically, updates the index, and registers the id with Gymnasium in this
process. Ids follow three rules: the same program added again gets the id it already has; a
different program whose class name is taken gets a distinct name (``LockPick2-v0``), never an
overwrite; ``version_of=`` makes the next version of an existing name (``LockPick-v1``).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadegym import compat
from spadegym.registry import ids
from spadegym.registry.entry import (
    clean_leftovers,
    load_program,
    locked,
    remove_entry,
    rewrite_manifest,
    write_entry,
)
from spadegym.registry.errors import (
    DuplicateEnvironmentError,
    RegistryError,
    RejectedProgramError,
)
from spadegym.registry.index import (
    Index,
    IndexEntry,
    build_index,
    entry_from_manifest,
    load_index,
    root_stamp,
    save_index,
)
from spadegym.registry.manifest import Manifest, Provenance, build_manifest, now, sha256_of
from spadegym.registry.registration import make_env, register_entry, unregister_entry
from spadegym.registry.roots import default_roots, user_root


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


@dataclass(frozen=True)
class VerifyResult:
    """What ``Registry.verify`` found in one folder."""

    id: str
    path: Path
    ok: bool
    problem: str = ""
    fixed: bool = False


def _class_name(program: str) -> str:
    from spadegym.validation.static import env_classes

    try:
        classes = env_classes(compat.parse(program))
    except (SyntaxError, ValueError) as exc:
        raise RegistryError(f"the program cannot be parsed ({exc}); validate it first.") from None
    if len(classes) != 1:
        raise RegistryError(
            f"the program defines {len(classes)} classes ending in Env; the "
            "contract asks for exactly one. Validate it first."
        )
    return classes[0].name


def check_program(source: str, report: Any = None, config: Any = None) -> tuple[str, Any]:
    """The program to store and its passing report; validates when no report is given.

    Raises:
        RejectedProgramError: validation failed (the report says why).
        RegistryError: a given report failed, or belongs to another program.
    """
    if report is None:
        from spadegym.validation import validate

        report = validate(source, config)
        if not report.ok:
            raise RejectedProgramError(
                f"{report.class_name or 'the program'} failed validation and was not added:\n"
                f"{report.feedback()}",
                report,
            )
        return report.program, report
    if not report.ok:
        raise RegistryError(
            "report= is a failing ValidationReport; only a passing report lets "
            "add() skip validation. Pass report=None to validate again."
        )
    from spadegym.extract import extract_program

    program = extract_program(source).code or source
    if report.program is not None and report.program != program:
        raise RegistryError(
            "report= was made for another program (its program text differs); "
            "pass the report of this program, or report=None."
        )
    name = _class_name(program)
    if report.class_name and report.class_name != name:
        raise RegistryError(
            f"report= is for class {report.class_name}, but the program defines "
            f"{name}; pass the report of this program, or report=None."
        )
    if "max_turns" not in report.properties:
        raise RegistryError(
            "report= has no max_turns property; it is not the report of a "
            "completed validation. Pass report=None to validate."
        )
    return program, report


class Registry:
    """A folder of environments, ``<Name>-v<N>/{env.py, manifest.json}``.

    Args:
        root: the folder (created on the first add); ``None`` for the user's root.
        others: roots whose ids also count as taken when naming, and whose programs count as
            already added (``Registry.user()`` passes every other root, so that a new
            environment is never shadowed by a shipped one of the same name).
    """

    def __init__(
        self, root: str | os.PathLike | None = None, *, others: Iterable[str | os.PathLike] = ()
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
        versions = [e.folder for e in entries.values() if ids.parse_folder(e.folder)[0] == name]
        return max(versions, key=lambda f: ids.parse_folder(f)[1]) if versions else None

    def get(self, env_id: str) -> RegisteredEnv:
        """The environment ``env_id`` (``spade/X-vN``, ``X-vN``, or ``X`` for the latest).

        Raises:
            RegistryError: no such environment here (with the closest ids).
        """
        folder = self._folder(env_id)
        if folder is None:
            known = [e.folder for e in self.index().entries.values()]
            close = difflib.get_close_matches(ids.parse_id(env_id)[0], known, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise RegistryError(
                f"{env_id!r} is not in the registry at {self.root}.{hint} "
                "`spadegym list` shows every id."
            )
        from spadegym.registry.entry import read_entry

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

    def _find_sha(self, sha: str) -> str | None:
        for root in [self.root, *self.others]:
            if root.is_dir():
                for entry in load_index(root).entries.values():
                    if entry.sha256 == sha:
                        return entry.id
        return None

    # -- writing ------------------------------------------------------------------------------

    def add(
        self,
        source: str,
        report: Any = None,
        provenance: Provenance | dict | None = None,
        *,
        memory: Any = None,
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
                an added program is recorded in it.
            version_of: make this the next version of that environment (``X-v0`` -> ``X-v1``).
            config: the ``ValidationConfig`` when validating.
            preferred_id: keep this id when it is free (bundles keep their ids on import).

        Raises:
            RejectedProgramError: the program failed validation.
            DuplicateEnvironmentError: the memory holds the same game under another id.
            RegistryError: bad arguments, or ``version_of`` names no environment.
        """
        program, report = check_program(source, report, config)
        sha = sha256_of(program)
        existing = self._find_sha(sha)
        if existing is not None:
            return existing
        first_obs = report.properties.get("first_observation")
        if memory is not None:
            # Cross-play needs the program in a sandbox; add() reuses the signature probed here.
            with memory.sandbox() as sandbox:
                novelty = memory.check_novelty(
                    program, first_observation=first_obs, sandbox=sandbox
                )
            if not novelty.novel:
                raise DuplicateEnvironmentError(
                    f"{report.class_name} was not added: it duplicates {novelty.nearest_id} "
                    f"({novelty.reason}). Change the game, or use version_of= to make it a new "
                    "version of that environment.",
                    novelty.nearest_id,
                )
        self.root.mkdir(parents=True, exist_ok=True)
        with locked(self.root):
            clean_leftovers(self.root)
            index = load_index(self.root)
            for entry in index.entries.values():
                if entry.sha256 == sha:  # another process added it while we validated
                    return entry.id
            folder = self._choose_folder(index, report.class_name, version_of, preferred_id)
            if not isinstance(provenance, Provenance):
                provenance = Provenance.model_validate({"origin": "add", **(provenance or {})})
            manifest = build_manifest(ids.gym_id(folder), program, report, provenance=provenance)
            write_entry(self.root, folder, program, manifest.to_json())
            entry = entry_from_manifest(manifest)
            index.entries[folder] = entry
            index.skipped.pop(folder, None)
            self._save(index)
        register_entry(self.root, entry)
        if memory is not None:
            memory.add(manifest.id, program, first_observation=first_obs, skill=manifest.skill)
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

    def remove(self, env_id: str, *, memory: Any = None) -> str:
        """Remove an environment; returns its id. ``memory`` forgets it too, when given."""
        with locked(self.root):
            target = self.get(env_id)
            remove_entry(self.root, target.manifest.folder)
            index = load_index(self.root)
            index.entries.pop(target.manifest.folder, None)
            self._save(index)
        unregister_entry(self.root, target.manifest.folder)
        if memory is not None:
            memory.remove(target.id)
        return target.id

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
    ) -> list[VerifyResult]:
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
        if not self.root.is_dir():
            raise RegistryError(f"{self.root} is not a folder; nothing to verify.")
        names = sorted(
            n
            for n in os.listdir(self.root)
            if not n.startswith((".", "_")) and (self.root / n).is_dir()
        )
        results: dict[str, VerifyResult] = {}
        broken: list[str] = []
        for name in names:
            path = self.root / name
            try:
                load_program(path)
                results[name] = VerifyResult(ids.gym_id(name), path, True)
            except RegistryError as exc:
                results[name] = VerifyResult(ids.gym_id(name), path, False, str(exc))
                if ids.parse_folder(name) is not None and (path / "env.py").is_file():
                    broken.append(name)
        if fix and broken:
            results.update(self._fix(broken, config, workers))
        with locked(self.root):
            self._save(build_index(self.root))
        return [results[name] for name in names]

    def _fix(self, names: Sequence[str], config: Any, workers: int) -> dict[str, VerifyResult]:
        from spadegym.registry.entry import write_file
        from spadegym.registry.manifest import parse_manifest
        from spadegym.validation import validate_many

        texts = {name: (self.root / name / "env.py").read_bytes() for name in names}
        reports = validate_many(
            [t.decode("utf-8", "replace") for t in texts.values()], config, workers=workers
        )
        results = {}
        with locked(self.root):
            for name, report in zip(names, reports):
                path = self.root / name
                if not report.ok:
                    results[name] = VerifyResult(
                        ids.gym_id(name), path, False, f"validation failed:\n{report.feedback()}"
                    )
                    continue
                if (path / "env.py").read_bytes() != texts[name]:
                    results[name] = VerifyResult(
                        ids.gym_id(name),
                        path,
                        False,
                        "env.py changed during validation; run again.",
                    )
                    continue
                try:
                    old = parse_manifest((path / "manifest.json").read_bytes())
                    created, provenance = old.created, old.provenance
                except (OSError, RegistryError):
                    created, provenance = None, Provenance(origin="verify")
                if report.program.encode("utf-8") != texts[name]:
                    # validation normalised the text (line endings, blank edges): store what ran
                    write_file(path / ".env.py.tmp", report.program.encode("utf-8"))
                    os.replace(path / ".env.py.tmp", path / "env.py")
                manifest = build_manifest(
                    ids.gym_id(name), report.program, report, provenance=provenance, created=created
                )
                rewrite_manifest(path, manifest.to_json())
                results[name] = VerifyResult(ids.gym_id(name), path, True, fixed=True)
        return results

    # -- bundles ------------------------------------------------------------------------------

    def export(self, env_ids: Iterable[str], path: str | os.PathLike) -> Path:
        """Write the environments to a ``.tar.gz`` bundle; see ``spadegym.registry.bundle``."""
        from spadegym.registry.bundle import export_bundle

        return export_bundle(self, env_ids, Path(path))

    def import_(
        self, path: str | os.PathLike, *, config: Any = None, memory: Any = None
    ) -> list[str]:
        """Add every environment of a bundle, validated like any other; returns their ids."""
        from spadegym.registry.bundle import import_bundle

        return import_bundle(self, Path(path), config=config, memory=memory)
