"""The environment table of the memory's SQLite database, and the rows it hands out."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from spadegym.memory.crossplay import CrossPlay
from spadegym.memory.database import Connection, damaged

SCHEMA = """
CREATE TABLE IF NOT EXISTS envs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    env_id TEXT NOT NULL UNIQUE,
    skill TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    first_observation TEXT,
    source_sha256 TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    shape TEXT NOT NULL,
    created REAL NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS envs_fingerprint ON envs(fingerprint);
CREATE INDEX IF NOT EXISTS envs_digest ON envs(env_id, source_sha256);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('epoch', 0);
"""
"""``id`` is AUTOINCREMENT so that ids are never reused: an index file that holds every id up
to N then holds exactly the rows with id <= N, unless a removal (``epoch``) came since.
``envs_digest`` covers ``digests()``, which each open reads to compare the memory with the
registry, so that it reads no vector."""

COLUMNS = (
    "env_id, skill, kind, title, description, first_observation, source_sha256, fingerprint, "
    "created"
)


@dataclass(frozen=True)
class EnvRecord:
    """What the memory knows about one environment (its vector aside)."""

    env_id: str
    skill: str
    kind: str
    title: str
    description: str
    first_observation: str | None
    source_sha256: str
    fingerprint: str
    created: float


@dataclass(frozen=True)
class Neighbour:
    """A stored environment close to a query.

    Attributes:
        env_id: the stored environment.
        title: its title.
        skill: its skill.
        similarity: semantic cosine to the query.
        code_similarity: code shingle overlap, when the query was a program.
        fingerprint_match: equal normalised code (an exact copy), when the query was a program.
        cross_play: its recorded play replayed in the query program, when a sandbox was given
            and it has a signature.
        verdict: the signal that makes it the same game (``Verdict.signal``), or ``None``.
    """

    env_id: str
    title: str
    skill: str
    similarity: float
    code_similarity: float | None = None
    fingerprint_match: bool = False
    cross_play: CrossPlay | None = None
    verdict: str | None = None


def insert(db: sqlite3.Connection, rows: list[tuple[EnvRecord, str, np.ndarray]]) -> None:
    """Insert ``(record, shape, vector)`` rows; the caller holds the transaction."""
    db.executemany(
        f"INSERT INTO envs ({COLUMNS}, shape, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                r.env_id,
                r.skill,
                r.kind,
                r.title,
                r.description,
                r.first_observation,
                r.source_sha256,
                r.fingerprint,
                r.created,
                shape,
                vector.astype(np.float32).tobytes(),
            )
            for r, shape, vector in rows
        ],
    )


def fields(db: sqlite3.Connection, env_ids: list[str], columns: str) -> dict[str, tuple[Any, ...]]:
    """``columns`` of each of ``env_ids`` that is stored, by env_id."""
    if not env_ids:
        return {}
    marks = ",".join("?" * len(env_ids))
    rows = db.execute(f"SELECT env_id, {columns} FROM envs WHERE env_id IN ({marks})", env_ids)
    return {row[0]: row[1:] for row in rows}


def names(db: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """env_id of each row id that is still stored."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return dict(db.execute(f"SELECT id, env_id FROM envs WHERE id IN ({marks})", ids))


def state(db: sqlite3.Connection) -> tuple[int, int, int]:
    """``(count, largest id, removal epoch)``: what an index must match to be trusted."""
    count, max_id = db.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM envs").fetchone()
    epoch = db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()[0]
    return count, max_id, epoch


def vectors(db: Connection, dim: int, after: int) -> tuple[np.ndarray, np.ndarray]:
    """Row ids and vectors of every row with ``id > after``, in id order."""
    rows = db.execute("SELECT id, vector FROM envs WHERE id > ? ORDER BY id", (after,)).fetchall()
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    out = np.empty((len(rows), dim), dtype=np.float32)
    for i, (_, blob) in enumerate(rows):
        if not isinstance(blob, bytes) or len(blob) != 4 * dim:
            raise damaged(db.path, f"a stored vector has {len(blob or b'')} bytes, not {4 * dim}")
        out[i] = np.frombuffer(blob, dtype=np.float32)
    return ids, out


def index_checksum(db: sqlite3.Connection) -> int | None:
    """The checksum of the index file as last written, or None before the first write."""
    row = db.execute("SELECT value FROM meta WHERE key = 'index_checksum'").fetchone()
    return None if row is None else int(row[0])


def set_index_checksum(db: sqlite3.Connection, checksum: int) -> None:
    """Record the checksum of the index file just written (under the memory's lock)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES ('index_checksum', ?)", (checksum,))


def digests(db: sqlite3.Connection) -> dict[str, str]:
    """The sha256 of each stored program, by env_id."""
    return dict(db.execute("SELECT env_id, source_sha256 FROM envs"))
