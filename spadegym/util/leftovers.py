"""Temporary files named after the process that made them, and removing those of dead ones.

A process killed while writing leaves its temporary file or folder behind. Removing such a
leftover is safe only when its writer is gone: a live writer would lose the file it is about to
rename into place. So every temporary name carries its writer's pid and host,
``<prefix><pid>-<host>-<random><suffix>``, and ``remove_dead`` removes only the names whose pid
is on this host and no longer runs. A pid that was reused since keeps its leftover for now,
which errs on the safe side; a name without a pid (an older spadegym's) is never touched.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger("spadegym")


def _hostname() -> str:
    try:
        return os.uname().nodename  # no socket import: this module loads at `import spadegym`
    except AttributeError:  # not POSIX
        import socket

        return socket.gethostname()


HOST = _hostname().replace("-", "_") or "host"
"""This host's name as temporary names carry it (with "-" made "_", the separator)."""


def temp_prefix(prefix: str) -> str:
    """``prefix`` tagged with this process: ``<prefix><pid>-<host>-`` (for ``mkdtemp``)."""
    return f"{prefix}{os.getpid()}-{HOST}-"


def temp_name(prefix: str, suffix: str = "") -> str:
    """A fresh name for a temporary file of this process: ``<prefix><pid>-<host>-<hex><suffix>``."""
    return f"{temp_prefix(prefix)}{os.urandom(8).hex()}{suffix}"


def owner(name: str, prefix: str, suffix: str = "") -> tuple[int, str] | None:
    """``(pid, host)`` of a name made by ``temp_name``/``temp_prefix``, else None."""
    if not name.startswith(prefix) or not name.endswith(suffix):
        return None
    middle = name[len(prefix) : len(name) - len(suffix)]
    pid, _, rest = middle.partition("-")
    host, _, tail = rest.rpartition("-")
    if not pid.isdigit() or not host or not tail:
        return None
    return int(pid), host


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (one owned by another user counts)."""
    if pid <= 0 or os.name == "nt":
        return True  # never ours to judge (on Windows, os.kill would end the process)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_dead(folder: str | os.PathLike, prefix: str, suffix: str = "") -> list[str]:
    """Remove the temporary files and folders in ``folder`` whose writer died.

    Only names made by this module are considered, only those of this host, only those owned
    by this user, and only when their pid no longer runs. Errors are logged and skipped: a
    leftover that cannot be removed now is removed by a later writer.

    Returns:
        The names removed.
    """
    folder = Path(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    uid = os.getuid() if hasattr(os, "getuid") else None
    for name in names:
        found = owner(name, prefix, suffix)
        if found is None or found[1] != HOST or found[0] == os.getpid() or alive(found[0]):
            continue
        path = folder / name
        try:
            info = path.lstat()
            if uid is not None and info.st_uid != uid:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except FileNotFoundError:
            continue  # another process removed it first
        except OSError as exc:
            log.debug("could not remove the leftover %s: %s", path, exc)
            continue
        removed.append(name)
    if removed:
        log.info("removed %d leftover(s) of dead processes in %s", len(removed), folder)
    return removed


_SWEPT: set[tuple[str, str, str]] = set()


def remove_dead_once(folder: str | os.PathLike, prefix: str, suffix: str = "") -> list[str]:
    """``remove_dead``, the first time this process asks for this folder and prefix only.

    For folders shared by many programs (the system's temporary folder), where a sweep per
    process is enough and a sweep per call would cost a listing of the whole folder.
    """
    key = (os.fspath(folder), prefix, suffix)
    if key in _SWEPT:
        return []
    _SWEPT.add(key)
    return remove_dead(folder, prefix, suffix)
