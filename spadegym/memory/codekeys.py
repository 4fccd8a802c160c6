"""Neighbours by code: MinHash band keys of a program's shingles, found with one indexed query.

Neighbours by meaning come from the vector index; a rewording can move a copy far from its
original there while its code stays close. Each program's shingle set (``fingerprint.shingles``,
hashed by ``shingle_hashes``) gets ``BANDS`` keys, each the hash of ``ROWS`` MinHash values;
two programs share a key with probability ``1 - (1 - J**ROWS)**BANDS`` for code similarity
``J``: about 1% at 0.3 (the overlap the contract's boilerplate gives unrelated programs), 27%
at 0.5, 92% at 0.7 and 99.8% at 0.8. Candidates sharing keys are then compared exactly.
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
import zlib
from collections.abc import Iterable

import numpy as np

from spadegym.memory.fingerprint import shingles

BANDS = 20
ROWS = 6

SCHEMA = """
CREATE TABLE IF NOT EXISTS code_keys (
    key INTEGER NOT NULL,
    env INTEGER NOT NULL REFERENCES envs(id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS code_keys_key ON code_keys(key);
CREATE INDEX IF NOT EXISTS code_keys_env ON code_keys(env);
"""

_MASK = (1 << 64) - 1
_rng = np.random.default_rng(20260101)
# Odd multipliers and xor masks of the hash family, fixed so keys compare across processes.
_MULTIPLIERS = (_rng.integers(0, 1 << 62, BANDS * ROWS, dtype=np.uint64) << np.uint64(1)) | 1
_XORS = _rng.integers(0, 1 << 62, BANDS * ROWS, dtype=np.uint64)


@functools.lru_cache(maxsize=64)
def shingle_hashes(shape: str) -> np.ndarray:
    """The shingles of a normalised program as sorted, unique 32-bit hashes.

    Stored with each program, so comparing two programs' code costs an intersection of two
    sorted arrays rather than re-tokenising the stored one. CRC-32 is stable across
    processes; a collision between two programs' shingles is rare enough (about one in 2**32
    per pair of shingles) to leave the similarity unchanged in practice.
    """
    hashes = np.unique(
        np.fromiter((zlib.crc32(s.encode()) for s in shingles(shape)), dtype=np.uint32)
    )
    hashes.flags.writeable = False  # cached: shared by every caller
    return hashes


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two sorted unique hash arrays, in ``[0, 1]``."""
    if not len(a) or not len(b):
        return 0.0
    common = len(np.intersect1d(a, b, assume_unique=True))
    return common / (len(a) + len(b) - common)


def code_keys(hashes: np.ndarray) -> list[int]:
    """The ``BANDS`` keys of a program's shingle hashes (signed 64-bit, as SQLite stores)."""
    hashes = hashes.astype(np.uint64)
    if not len(hashes):
        hashes = np.zeros(1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = (hashes[None, :] ^ _XORS[:, None]) * _MULTIPLIERS[:, None]
        mixed ^= mixed >> np.uint64(29)
    minima = mixed.min(axis=1).reshape(BANDS, ROWS)
    keys = []
    for band, row in enumerate(minima):
        digest = hashlib.blake2b(row.tobytes(), digest_size=8, person=b"band%04d" % band).digest()
        keys.append(int.from_bytes(digest, "little", signed=True))
    return keys


def insert(db: sqlite3.Connection, rows: Iterable[tuple[int, list[int]]]) -> None:
    """Store ``(row id, keys)`` pairs; the caller holds the transaction."""
    db.executemany(
        "INSERT INTO code_keys (key, env) VALUES (?, ?)",
        [(key, env) for env, keys in rows for key in keys],
    )


def replace(db: sqlite3.Connection, env: int, keys: list[int]) -> None:
    """Swap the keys of one row (after re-fingerprinting); the caller holds the transaction."""
    db.execute("DELETE FROM code_keys WHERE env = ?", (env,))
    insert(db, [(env, keys)])


def nearest(db: sqlite3.Connection, keys: list[int], k: int) -> list[str]:
    """The env_ids of up to ``k`` stored programs sharing the most keys with ``keys``."""
    marks = ",".join("?" * len(keys))
    rows = db.execute(
        f"SELECT e.env_id, COUNT(*) AS shared FROM code_keys c JOIN envs e ON e.id = c.env "
        f"WHERE c.key IN ({marks}) GROUP BY c.env ORDER BY shared DESC, c.env LIMIT ?",
        (*keys, k),
    )
    return [row[0] for row in rows]
