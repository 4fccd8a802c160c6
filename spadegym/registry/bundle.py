"""Bundles: environments packed as a ``.tar.gz`` to move between registries and machines.

A bundle holds ``<Name>-v<N>/env.py`` and ``<Name>-v<N>/manifest.json`` per environment and
nothing else. Importing trusts none of it: members must be regular files of those names and
sizes, each program must match its manifest's sha256, and each is validated again before any
is added. Ids are kept when free; the usual id rules apply otherwise.
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym import contract
from spadegym.registry import ids
from spadegym.registry.errors import RegistryError, RejectedProgramError
from spadegym.registry.manifest import parse_manifest, sha256_of

if TYPE_CHECKING:
    from spadegym.registry.store import Registry

MAX_MEMBERS = 20_000
"""Members a bundle may hold (two per environment)."""

MAX_MANIFEST_BYTES = 1 << 20
"""Size limit of one manifest in a bundle."""

_FILES = ("env.py", "manifest.json")


def export_bundle(registry: Registry, env_ids: Iterable[str], path: Path) -> Path:
    """Write the named environments of ``registry`` to ``path`` (a ``.tar.gz``), atomically.

    Raises:
        RegistryError: an id is unknown, or a program no longer matches its manifest.
    """
    chosen = [registry.get(env_id) for env_id in env_ids]
    if not chosen:
        raise RegistryError("export needs at least one environment id.")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for env in chosen:
                contents = {
                    "env.py": env.source().encode("utf-8"),
                    "manifest.json": env.manifest.to_json().encode("utf-8"),
                }
                for name, data in contents.items():
                    info = tarfile.TarInfo(f"{env.manifest.folder}/{name}")
                    info.size, info.mode = len(data), 0o644
                    tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def read_bundle(path: Path) -> dict[str, dict[str, bytes]]:
    """The files of a bundle by folder, after checking every member's type, name and size."""
    files: dict[str, dict[str, bytes]] = {}
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for count, member in enumerate(tar):
                if count >= MAX_MEMBERS:
                    raise RegistryError(f"{path}: more than {MAX_MEMBERS} members; split it.")
                if member.isdir():
                    continue
                parts = member.name.split("/")
                if (
                    not member.isfile()
                    or len(parts) != 2
                    or parts[1] not in _FILES
                    or ids.parse_folder(parts[0]) is None
                ):
                    raise RegistryError(
                        f"{path}: member {member.name!r} is not <Name>-v<N>/env.py or "
                        "<Name>-v<N>/manifest.json as a regular file; a bundle holds nothing "
                        "else. Make bundles with `spadegym export`."
                    )
                limit = contract.MAX_PROGRAM_BYTES if parts[1] == "env.py" else MAX_MANIFEST_BYTES
                if member.size > limit:
                    raise RegistryError(
                        f"{path}: {member.name} is {member.size} bytes; the limit is {limit}."
                    )
                handle = tar.extractfile(member)
                files.setdefault(parts[0], {})[parts[1]] = handle.read() if handle else b""
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise RegistryError(f"{path} is not a readable .tar.gz bundle ({exc}).") from None
    return files


def import_bundle(
    registry: Registry, path: Path, *, config: Any = None, memory: Any = None
) -> list[str]:
    """Check, validate and add every environment of a bundle; all or none.

    Returns:
        The ids the environments have in ``registry`` (in the bundle's order).

    Raises:
        RegistryError: the bundle is malformed, or a program does not match its manifest.
        RejectedProgramError: a program fails validation (nothing is added).
    """
    from spadegym.validation import validate_many

    files = read_bundle(path)
    if not files:
        raise RegistryError(f"{path} holds no environment.")
    programs, manifests = [], []
    for folder, contents in files.items():
        missing = [name for name in _FILES if name not in contents]
        if missing:
            raise RegistryError(f"{path}: {folder} has no {' or '.join(missing)}.")
        try:
            manifest = parse_manifest(contents["manifest.json"])
        except RegistryError as exc:
            raise RegistryError(f"{path}: {folder}: {exc}") from None
        if manifest.folder != folder:
            raise RegistryError(f"{path}: {folder}/manifest.json names {manifest.id}.")
        if sha256_of(contents["env.py"]) != manifest.sha256:
            raise RegistryError(
                f"{path}: {folder}/env.py does not match the sha256 in its "
                "manifest; the bundle was altered after export. Export it again."
            )
        try:
            programs.append(contents["env.py"].decode("utf-8"))
        except UnicodeDecodeError:
            raise RegistryError(f"{path}: {folder}/env.py is not UTF-8.") from None
        manifests.append(manifest)
    reports = validate_many(programs, config)
    for manifest, report in zip(manifests, reports):
        if not report.ok:
            raise RejectedProgramError(
                f"{path}: {manifest.id} failed validation, so nothing was "
                f"imported:\n{report.feedback()}",
                report,
            )
    added = []
    for program, manifest, report in zip(programs, manifests, reports):
        provenance = {**manifest.provenance.model_dump(), "origin": "import"}
        added.append(
            registry.add(program, report, provenance, memory=memory, preferred_id=manifest.id)
        )
    return added
