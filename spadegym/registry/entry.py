"""One entry on disk: ``<Name>-v<N>/env.py`` and ``manifest.json``, read, checked and written.

Writes are atomic: an entry is written into a temporary folder in the root (``.tmp-*``) and
renamed into place, so a reader sees all of it or none of it; a writer killed half way leaves
only a temporary folder, which readers ignore and the next writer removes. Writers hold the
root's file lock, which is also what makes removing those leftovers safe.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout

from spadegym.registry import ids
from spadegym.registry.errors import RegistryError, TamperedEnvironmentError

if TYPE_CHECKING:
    from spadegym.registry.manifest import Manifest

LOCK_NAME = ".lock"
"""The file lock of a root, in the root."""

LOCK_TIMEOUT = 120.0
"""Seconds a writer waits for a root's lock before giving up."""

MAX_MANIFEST_BYTES = 1 << 20
"""Size limit of one ``manifest.json`` (a real one is a few KB)."""

_TEMP_PREFIXES = (".tmp-", ".trash-")
_FOLDER_TEMPS = (".manifest-", ".env.py")  # files rewritten inside an entry folder


def fix_command(root: Path) -> str:
    """The command that re-validates a root's programs and rewrites their manifests."""
    return f"spadegym verify --fix --root {root}"


def read_entry(folder: Path) -> tuple[Manifest | None, str]:
    """``(manifest, "")`` for a complete entry, else ``(None, reason it is skipped)``."""
    from spadegym.registry.manifest import parse_manifest

    name = folder.name
    if ids.parse_folder(name) is None:
        return None, (
            f"the folder name {name!r} is not <Name>-v<N> (an ASCII identifier, then "
            "-v and a version); rename it, e.g. LockPick-v0."
        )
    if not (folder / "env.py").is_file():
        return None, "it has no env.py; put the program there or remove the folder."
    path = folder / "manifest.json"
    if not path.is_file():
        return None, (
            f"it has no manifest.json (not validated yet); run "
            f"`{fix_command(folder.parent)}` to validate env.py and write one."
        )
    try:
        size = path.stat().st_size
        if size > MAX_MANIFEST_BYTES:
            raise RegistryError(
                f"manifest.json is {size} bytes; the limit is {MAX_MANIFEST_BYTES} (a real one "
                "is a few KB)."
            )
        manifest = parse_manifest(path.read_bytes())
    except (RegistryError, OSError) as exc:
        return None, f"{exc} Run `{fix_command(folder.parent)}` to rewrite it."
    if manifest.id != ids.gym_id(name):
        return None, (
            f"its manifest says id {manifest.id!r} but the folder is {name!r}; run "
            f"`{fix_command(folder.parent)}` to rewrite the manifest."
        )
    return manifest, ""


def load_program(folder: Path) -> tuple[str, Manifest]:
    """The program of an entry and its manifest, after checking the program's sha256.

    Raises:
        RegistryError: the entry is incomplete or its manifest unreadable.
        TamperedEnvironmentError: ``env.py`` changed since its manifest was written.
    """
    from spadegym.registry.manifest import sha256_of

    folder = Path(folder)
    manifest, problem = read_entry(folder)
    if manifest is None:
        raise RegistryError(f"{ids.gym_id(folder.name)} at {folder} cannot be loaded: {problem}")
    try:
        data = (folder / "env.py").read_bytes()
    except OSError as exc:
        raise RegistryError(f"{manifest.id}: cannot read {folder / 'env.py'}: {exc}") from None
    digest = sha256_of(data)
    if digest != manifest.sha256:
        raise TamperedEnvironmentError(
            f"{manifest.id}: {folder / 'env.py'} has sha256 {digest[:12]}..., but its manifest "
            f"records {manifest.sha256[:12]}...: the program changed after it was validated, so "
            f"it is refused. If the change is intended, run `{fix_command(folder.parent)}` to "
            "re-validate it and rewrite the manifest; otherwise restore the original program."
        )
    try:
        return data.decode("utf-8"), manifest
    except UnicodeDecodeError as exc:
        raise RegistryError(f"{manifest.id}: env.py is not UTF-8 ({exc}).") from None


def root_lock(root: Path) -> FileLock:
    """The file lock every writer of ``root`` holds."""
    return FileLock(str(Path(root) / LOCK_NAME), timeout=LOCK_TIMEOUT)


class locked:
    """Context manager: hold ``root``'s lock, with a clear error when it cannot be had."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.lock = root_lock(self.root)

    def __enter__(self) -> locked:
        try:
            self.lock.acquire()
        except Timeout:
            raise RegistryError(
                f"could not lock {self.root / LOCK_NAME} within {LOCK_TIMEOUT:g} s; another "
                "process is writing this registry. Retry when it has finished."
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` and flush it to disk."""
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def clean_leftovers(root: Path) -> list[str]:
    """Remove temporary folders of writers that died; call with the lock held.

    Every writer makes its ``.tmp-*`` and ``.trash-*`` folders while holding the lock, so the
    lock holder knows that any it finds belong to a writer that is gone.
    """
    removed = []
    for name in os.listdir(root):
        if name.startswith(_TEMP_PREFIXES):
            shutil.rmtree(root / name, ignore_errors=True)
            removed.append(name)
    return removed


def clean_folder_leftovers(folder: Path) -> list[str]:
    """Remove temporary files left in an entry folder by a killed rewrite; call with the lock."""
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if name.startswith(_FOLDER_TEMPS) and name.endswith(".tmp"):
            try:
                (folder / name).unlink()
                removed.append(name)
            except OSError:
                pass
    return removed


def write_entry(root: Path, folder: str, program: str, manifest_json: str) -> Path:
    """Write a new entry atomically; call with the lock held.

    Raises:
        RegistryError: ``folder`` already exists (entries are never overwritten).
    """
    root = Path(root)
    final = root / folder
    if final.exists():
        raise RegistryError(f"{final} already exists; an entry is never overwritten.")
    temp = root / f".tmp-{uuid.uuid4().hex}"
    temp.mkdir()
    try:
        write_file(temp / "env.py", program.encode("utf-8", "surrogatepass"))
        write_file(temp / "manifest.json", manifest_json.encode("utf-8"))
        os.rename(temp, final)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    _fsync_dir(root)
    return final


def rewrite_manifest(folder: Path, manifest_json: str) -> None:
    """Replace an entry's manifest atomically; call with the lock held."""
    temp = folder / f".manifest-{uuid.uuid4().hex}.tmp"
    try:
        write_file(temp, manifest_json.encode("utf-8"))
        os.replace(temp, folder / "manifest.json")
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(folder)


def remove_entry(root: Path, folder: str) -> None:
    """Remove an entry: renamed out of sight first, so no reader sees half of it."""
    trash = Path(root) / f".trash-{uuid.uuid4().hex}"
    os.rename(Path(root) / folder, trash)
    shutil.rmtree(trash, ignore_errors=True)
