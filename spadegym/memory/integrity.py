"""Page damage in the memory's database: checked whenever its files changed behind its back.

SQLite finds a damaged page only when a query reads it, so a memory with a few overwritten
pages can go on answering ``add``, ``similar`` and ``stats`` from what is left. A full
``PRAGMA integrity_check`` reads every page, too slow for each open of a large memory; so the
memory keeps a stamp of its files (size and modification time of ``memory.sqlite`` and of its
``-wal``) in ``memory.stamp``, written after each of its own writes and closes, under its lock.
On open, files that no longer match the stamp were changed by something else (a copy, an
editor, a disk error, a process killed between its write and its stamp), and the database is
checked in full before it is used. A database that fails the check is refused as damaged.

The stamp is a cache: one that cannot be written (a full disk) only costs the next open a
check, and never fails the write it follows.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spadegym.memory.database import Connection, DamagedMemoryError, damaged

STAMP = "memory.stamp"
"""The stamp file, beside ``memory.sqlite``."""

log = logging.getLogger("spadegym.memory")


def _file_stamp(path: Path) -> list[int] | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return [info.st_size, info.st_mtime_ns]


def current(database: Path) -> dict[str, list[int] | None]:
    """The stamp of ``database`` and its ``-wal`` as they are on disk now."""
    return {
        "db": _file_stamp(database),
        "wal": _file_stamp(database.with_name(database.name + "-wal")),
    }


def record(database: Path) -> None:
    """Write the stamp of the files as this memory left them; hold the memory's lock."""
    path = database.with_name(STAMP)
    tmp = path.with_name(STAMP + ".tmp")
    try:
        tmp.write_text(json.dumps(current(database)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # a full disk: the next open checks the database, nothing is lost
        log.debug("could not write the memory stamp %s: %s", path, exc)
        try:
            tmp.unlink(missing_ok=True)
            path.unlink(missing_ok=True)  # an old stamp must not vouch for newer files
        except OSError:
            pass


def changed_outside(database: Path) -> bool:
    """Whether the files differ from the stamp the memory last wrote (or it wrote none)."""
    try:
        text = database.with_name(STAMP).read_text(encoding="utf-8")
        recorded = json.loads(text)
    except (OSError, ValueError, RecursionError):
        return True
    return bool(recorded != current(database))


def check(db: Connection) -> None:
    """Read every page of the database; hold the memory's lock.

    Raises:
        DamagedMemoryError: SQLite's integrity check found damage.
    """
    try:
        rows = [row[0] for row in db.execute("PRAGMA integrity_check(5)").fetchall()]
    except DamagedMemoryError as exc:  # a page it needs to start is unreadable
        rows = [str(exc.__cause__ or exc)]
    if rows != ["ok"]:
        raise damaged(db.path, f"its integrity check fails: {'; '.join(map(str, rows))[:300]}")


class StampingLock:
    """The memory's file lock; its outermost release stamps the files if the database changed.

    Every write of the memory happens under this lock, so the stamp follows every write.

    Args:
        lock: the memory's ``FileLock`` (reentrant).
        database: ``memory.sqlite``.
        connection: returns the open connection, or None before it is open and after close.
    """

    def __init__(self, lock: Any, database: Path, connection: Callable[[], Connection | None]):
        self._lock = lock
        self._database = database
        self._connection = connection
        self._changes = threading.local()

    def __enter__(self) -> StampingLock:
        self._lock.acquire()
        if self._lock.lock_counter == 1:
            db = self._connection()
            self._changes.before = None if db is None else db.total_changes
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._lock.lock_counter == 1:
                db = self._connection()
                before = getattr(self._changes, "before", None)
                if db is not None and before is not None and db.total_changes != before:
                    record(self._database)
        finally:
            self._lock.release()
