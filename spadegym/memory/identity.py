"""Which embedder a memory was built with: kept in SQLite, mirrored in ``config.json``.

Vectors of two models do not compare, so a memory must always be opened with the embedder it
was built with. The database is the record (its ``config`` table), since it is the file that
holds the vectors; ``config.json`` is a copy for people and older spadegyms, rewritten from the
database when it is lost. A memory whose files disagree, or that holds vectors but records no
embedder anywhere, is refused with the way out rather than opened with a guess.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from pathlib import Path

from spadegym.errors import ConfigError
from spadegym.memory.embedders import (
    DEFAULT_MODEL,
    Embedder,
    SentenceTransformerEmbedder,
    embedder_from_name,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS config (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
"""Settings of the memory as text (``embedder``, ``dim``, ``seeded``); added after the first
release, so a memory made before it gets the rows from its ``config.json`` on first open."""

CONFIG_VERSION = 1

log = logging.getLogger("spadegym.memory")


def _read_table(db: sqlite3.Connection) -> tuple[str, int] | None:
    rows = dict(db.execute("SELECT key, value FROM config WHERE key IN ('embedder', 'dim')"))
    if "embedder" not in rows or "dim" not in rows:
        return None
    return rows["embedder"], int(rows["dim"])


def _read_file(path: Path) -> tuple[str, int] | None | str:
    """``(name, dim)`` from config.json, None when there is none, or why it cannot be read."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
        return str(config["embedder"]), int(config["dim"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, RecursionError) as exc:
        return f"{type(exc).__name__}: {exc}"


def _write_file(path: Path, name: str, dim: int) -> None:
    tmp = path.with_name(path.name + ".tmp")  # written under the memory's lock only
    tmp.write_text(
        json.dumps({"embedder": name, "dim": dim, "version": CONFIG_VERSION}, indent=2) + "\n"
    )
    os.replace(tmp, path)


def _stored_dim(db: sqlite3.Connection) -> int | None:
    """The length of the stored vectors, if any is stored."""
    row = db.execute("SELECT length(vector) FROM envs LIMIT 1").fetchone()
    return None if row is None else int(row[0]) // 4


def resolve(
    folder: Path, db: sqlite3.Connection, embedder: Embedder | None
) -> tuple[Embedder, int]:
    """The embedder to open the memory in ``folder`` with, after recording it in both places.

    Call with the memory's lock held and the schema created.

    Args:
        folder: the memory folder (its ``config.json`` is read and written).
        db: the open database.
        embedder: the embedder asked for, or ``None`` for the one the memory records (the
            default model for a new memory).

    Raises:
        ConfigError: the embedder asked for differs from the recorded one, the two records
            disagree, or the memory holds vectors but records no embedder.
    """
    config_path = folder / "config.json"
    stored = _read_table(db)
    on_file = _read_file(config_path)
    if isinstance(on_file, str):
        if stored is None:
            raise ConfigError(
                f"the memory at {folder} cannot read its config.json ({on_file}) and its "
                "database records no embedder; restore config.json, or open the memory with "
                "the embedder it was built with (embedder=...)"
            )
        log.warning("%s is unreadable (%s); rewriting it from the database", config_path, on_file)
        on_file = None
    if stored is not None and on_file is not None and stored != on_file:
        raise ConfigError(
            f"the memory at {folder} records embedder {stored[0]!r} ({stored[1]}-d) in "
            f"memory.sqlite but {on_file[0]!r} ({on_file[1]}-d) in config.json; the database "
            "holds the vectors, so it is the record: delete config.json to have it rewritten "
            "from the database"
        )
    if stored is None:
        stored = on_file or _adopt(folder, db, embedder)
        db.execute(
            "INSERT OR REPLACE INTO config VALUES ('embedder', ?), ('dim', ?)",
            (stored[0], str(stored[1])),
        )
    name, dim = stored
    if embedder is not None and (embedder.name != name or int(embedder.dim) != dim):
        raise ConfigError(
            f"the memory at {folder} was built with embedder {name!r} ({dim}-d) but "
            f"was opened with {embedder.name!r} ({embedder.dim}-d); vectors of two models "
            "do not compare. Open it with embedder=None (or the same model), or use "
            "another folder"
        )
    if on_file is None:
        _write_file(config_path, name, dim)
    return embedder or embedder_from_name(name), dim


def _adopt(folder: Path, db: sqlite3.Connection, embedder: Embedder | None) -> tuple[str, int]:
    """The identity of a memory that records none: a new memory, or one that lost config.json."""
    vectors_dim = _stored_dim(db)
    if vectors_dim is None:
        chosen = embedder or SentenceTransformerEmbedder(DEFAULT_MODEL)
        return chosen.name, int(chosen.dim)
    if embedder is None:
        raise ConfigError(
            f"the memory at {folder} holds {vectors_dim}-d vectors but records no embedder "
            "(its config.json is missing); opening it with the default model could compare "
            "vectors of two models. Open it with the embedder it was built with "
            "(embedder=...), or restore config.json"
        )
    if int(embedder.dim) != vectors_dim:
        raise ConfigError(
            f"the memory at {folder} holds {vectors_dim}-d vectors, but embedder "
            f"{embedder.name!r} makes {embedder.dim}-d ones; open it with the embedder it was "
            "built with"
        )
    log.warning("the memory at %s records no embedder; recording %r", folder, embedder.name)
    return embedder.name, int(embedder.dim)


def setting(db: sqlite3.Connection, key: str) -> str | None:
    """A value of the ``config`` table, or None."""
    row = db.execute("SELECT value FROM config WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_setting(db: sqlite3.Connection, key: str, value: str) -> None:
    """Write a value of the ``config`` table."""
    db.execute("INSERT OR REPLACE INTO config VALUES (?, ?)", (key, value))
