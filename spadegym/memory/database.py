"""The memory's SQLite connection, which reports a damaged database file as one clear error.

SQLite finds damage lazily: a file with a broken header fails at the first statement, a broken
page only when a query reads it, possibly while rows are being iterated. Every statement and
every row fetch of this connection turns those errors into ``DamagedMemoryError``, which names
the file and the fix, so that no command shows a traceback over a damaged memory and no
caller goes on as if the memory had answered. A full disk is raised as ``OSError`` with
``errno.ENOSPC`` (the transaction is rolled back by SQLite), like any other full-disk write.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from spadegym.errors import ConfigError

_DAMAGE = ("malformed", "not a database", "file is encrypted", "corrupt", "could not decode")


class DamagedMemoryError(ConfigError):
    """The memory's files are damaged: the database cannot be read, or disagrees with itself."""


def damaged(path: Path, problem: str) -> DamagedMemoryError:
    """The error for a damaged memory database at ``path``, with the ways out."""
    return DamagedMemoryError(
        f"the memory database {path} is damaged ({problem}). Move the folder {path.parent} "
        "away and run `spadegym verify --fix` to rebuild the memory from the registry (play "
        "statistics are lost), or restore the folder from a backup"
    )


def _is_damage(exc: sqlite3.Error) -> bool:
    if isinstance(exc, sqlite3.IntegrityError):
        return False  # a constraint (a duplicate id) is an answer, not damage
    text = str(exc).lower()
    return type(exc) is sqlite3.DatabaseError or any(word in text for word in _DAMAGE)


class _Cursor(sqlite3.Cursor):
    path: Path

    def execute(self, sql: str, parameters: Any = ()) -> _Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            raise _translate(self.path, exc) from exc
        except UnicodeDecodeError as exc:  # a damaged byte inside a stored text
            raise damaged(self.path, f"a stored text is not UTF-8 ({exc.reason})") from exc

    def executemany(self, sql: str, parameters: Any) -> _Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.DatabaseError as exc:
            raise _translate(self.path, exc) from exc
        except UnicodeDecodeError as exc:  # a damaged byte inside a stored text
            raise damaged(self.path, f"a stored text is not UTF-8 ({exc.reason})") from exc

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:
            raise _translate(self.path, exc) from exc
        except UnicodeDecodeError as exc:  # a damaged byte inside a stored text
            raise damaged(self.path, f"a stored text is not UTF-8 ({exc.reason})") from exc

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            raise _translate(self.path, exc) from exc
        except UnicodeDecodeError as exc:  # a damaged byte inside a stored text
            raise damaged(self.path, f"a stored text is not UTF-8 ({exc.reason})") from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            raise _translate(self.path, exc) from exc
        except UnicodeDecodeError as exc:  # a damaged byte inside a stored text
            raise damaged(self.path, f"a stored text is not UTF-8 ({exc.reason})") from exc


def _full(path: Path) -> bool:
    """Whether the disk holding ``path`` has (almost) no room left."""
    try:
        return shutil.disk_usage(path.parent).free < _ROOM
    except OSError:
        return False


_ROOM = 64 * 1024
"""Free bytes under which an I/O error of SQLite is taken for a full disk (on a full tmpfs,
growing the WAL or its shared-memory file fails as "disk I/O error", not "disk is full")."""


def _translate(path: Path, exc: sqlite3.DatabaseError) -> Exception:
    code = getattr(exc, "sqlite_errorcode", None)
    io_error = code is not None and code & 0xFF == sqlite3.SQLITE_IOERR
    if code == sqlite3.SQLITE_FULL or "disk is full" in str(exc) or (io_error and _full(path)):
        # Said as the operating system says it, so one handler serves every full-disk write.
        return OSError(errno.ENOSPC, f"No space left on device (the memory database {path})")
    if io_error:
        return OSError(errno.EIO, f"{exc} (the memory database {path})")
    return damaged(path, str(exc)) if _is_damage(exc) else exc


class Connection(sqlite3.Connection):
    """A connection whose statements and fetches raise ``DamagedMemoryError`` on damage."""

    path: Path

    def _cursor(self) -> _Cursor:
        cursor = super().cursor(_Cursor)
        cursor.path = self.path
        return cursor

    def execute(self, sql: str, parameters: Any = ()) -> _Cursor:
        """Run one statement."""
        return self._cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any) -> _Cursor:
        """Run one statement over many parameter rows."""
        return self._cursor().executemany(sql, parameters)

    def executescript(self, script: str) -> sqlite3.Cursor:
        """Run several statements."""
        try:
            return super().executescript(script)
        except sqlite3.DatabaseError as exc:
            raise _translate(self.path, exc) from exc
        except UnicodeDecodeError as exc:  # a damaged byte inside a stored text
            raise damaged(self.path, f"a stored text is not UTF-8 ({exc.reason})") from exc


def connect(path: Path) -> Connection:
    """Open the memory database in WAL mode, each statement its own transaction unless begun.

    Raises:
        DamagedMemoryError: the file is not a readable SQLite database.
    """
    db = sqlite3.connect(
        path, timeout=60, isolation_level=None, check_same_thread=False, factory=Connection
    )
    db.path = Path(path)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        db.close()
        raise
    return db
