"""Bundles: environments packed as a ``.tar.gz`` to move between registries and machines.

A bundle holds ``<Name>-v<N>/env.py`` and ``<Name>-v<N>/manifest.json`` per environment and
nothing else. Importing trusts none of it: members must be regular files of those names and
sizes, each program must match its manifest's sha256, and each is validated again before any
is added. Ids are kept when free; the usual id rules apply otherwise (``Registry.import_``).

This module is the format only: it reads and writes bundles and knows nothing of a registry.
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from spadegym import contract
from spadegym.registry import ids
from spadegym.registry.entry import MAX_MANIFEST_BYTES
from spadegym.registry.errors import RegistryError
from spadegym.registry.manifest import Manifest, parse_manifest, sha256_of

MAX_MEMBERS = 20_000
"""Members a bundle may hold (two per environment)."""

_FILES = ("env.py", "manifest.json")


@dataclass(frozen=True)
class BundleItem:
    """One environment of a bundle, checked: its folder, program and manifest agree."""

    folder: str
    program: str
    manifest: Manifest


def write_bundle(path: Path, items: Iterable[tuple[str, bytes, str]]) -> Path:
    """Write ``(folder, env.py bytes, manifest JSON)`` items to a ``.tar.gz``, atomically.

    Raises:
        RegistryError: there is no item, ``path`` is a folder, or it cannot be written.
    """
    items = list(items)
    if not items:
        raise RegistryError("export needs at least one environment id.")
    if path.is_dir():
        raise RegistryError(
            f"{path} is a folder; give the bundle's file name, e.g. {path}/envs.tar.gz."
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    except OSError as exc:
        raise RegistryError(
            f"cannot write the bundle {path} ({exc.strerror or exc}); choose a folder you can "
            "write to."
        ) from None
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for folder, program, manifest_json in items:
                contents = {"env.py": program, "manifest.json": manifest_json.encode("utf-8")}
                for name, data in contents.items():
                    info = tarfile.TarInfo(f"{folder}/{name}")
                    info.size, info.mode = len(data), 0o644
                    tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # a full disk, a folder that went away
            raise RegistryError(
                f"cannot write the bundle {path} ({exc.strerror or exc}); nothing was written."
            ) from None
        raise
    return path


def read_members(path: Path) -> dict[str, dict[str, bytes]]:
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


def read_bundle(path: Path) -> list[BundleItem]:
    """Every environment of a bundle, checked, in the bundle's order; nothing is validated.

    This is cheap (no sandbox, no model), so callers run it before anything heavy.

    Raises:
        RegistryError: the file is not a bundle, holds no environment, or an environment's
            files are missing, unreadable or disagree with its manifest.
    """
    path = Path(path)
    if not path.is_file():
        what = (
            "is a folder"
            if path.is_dir()
            else "is not a regular file"
            if path.exists()
            else "does not exist"
        )
        raise RegistryError(f"{path} {what}; give a .tar.gz bundle made by `spadegym export`.")
    files = read_members(path)
    if not files:
        raise RegistryError(f"{path} holds no environment.")
    items = []
    for folder, contents in files.items():
        missing = [name for name in _FILES if name not in contents]
        if missing:
            raise RegistryError(f"{path}: {folder} has no {' or '.join(missing)}.")
        try:
            manifest = parse_manifest(contents["manifest.json"])
        except RegistryError as exc:
            raise RegistryError(f"{path}: {folder}: {exc}") from None
        if manifest.id != ids.gym_id(folder):
            raise RegistryError(
                f"{path}: {folder}/manifest.json has the id {manifest.id!r}, which is not a "
                f"valid id for that folder ({ids.gym_id(folder)}); nothing was imported."
            )
        if sha256_of(contents["env.py"]) != manifest.sha256:
            raise RegistryError(
                f"{path}: {folder}/env.py does not match the sha256 in its "
                "manifest; the bundle was altered after export. Export it again."
            )
        try:
            program = contents["env.py"].decode("utf-8")
        except UnicodeDecodeError:
            raise RegistryError(f"{path}: {folder}/env.py is not UTF-8.") from None
        items.append(BundleItem(folder, program, manifest))
    return items
