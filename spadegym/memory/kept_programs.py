"""What the memory keeps of each program beyond its record: its source and its behaviour.

Two tables beside ``envs``, keyed by its row id and removed with it (``ON DELETE CASCADE``):

- ``programs``: the source (compressed), the ``fingerprint_version`` its fingerprint and
  shape were computed under, and its shingle hashes (``codekeys.shingle_hashes``). A memory
  opened under another Python recomputes them from the source, so exact copies are still
  recognised after an upgrade.
- ``signatures``: the behavioural signature (``signature.Signature``), compressed.

Memories written before these tables existed have rows without a stored source: their
fingerprints stay as they were (``stale`` counts them).
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable

import numpy as np

from spadegym.errors import ConfigError, ProgramError
from spadegym.memory import codekeys
from spadegym.memory.database import Connection, damaged
from spadegym.memory.fingerprint import fingerprint_version, summarize
from spadegym.memory.signature import Signature

SCHEMA = """
CREATE TABLE IF NOT EXISTS programs (
    env INTEGER PRIMARY KEY REFERENCES envs(id) ON DELETE CASCADE,
    source BLOB NOT NULL,
    fingerprint_version TEXT NOT NULL,
    shingles BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS signatures (
    env INTEGER PRIMARY KEY REFERENCES envs(id) ON DELETE CASCADE,
    data BLOB NOT NULL
);
"""


def row_ids(db: sqlite3.Connection, env_ids: list[str]) -> dict[str, int]:
    """The row id of each stored env_id."""
    if not env_ids:
        return {}
    marks = ",".join("?" * len(env_ids))
    return dict(db.execute(f"SELECT env_id, id FROM envs WHERE env_id IN ({marks})", env_ids))


def insert(
    db: sqlite3.Connection,
    rows: Iterable[tuple[int, str, Signature | None]],
) -> None:
    """Store ``(row id, source, signature)`` triples and the code keys of the sources.

    The caller holds the transaction.
    """
    rows = list(rows)
    version = fingerprint_version()
    hashes = [codekeys.shingle_hashes(summarize(source).shape) for _, source, _ in rows]
    db.executemany(
        "INSERT INTO programs (env, source, fingerprint_version, shingles) VALUES (?, ?, ?, ?)",
        [
            (env, _pack(source), version, h.tobytes())
            for (env, source, _), h in zip(rows, hashes, strict=True)
        ],
    )
    db.executemany(
        "INSERT INTO signatures (env, data) VALUES (?, ?)",
        [(env, sig.to_bytes()) for env, _, sig in rows if sig is not None],
    )
    codekeys.insert(
        db, [(env, codekeys.code_keys(h)) for (env, _, _), h in zip(rows, hashes, strict=True)]
    )


def set_signature(db: sqlite3.Connection, env: int, signature: Signature) -> None:
    """Store or replace one row's signature; the caller holds the transaction."""
    db.execute(
        "INSERT OR REPLACE INTO signatures (env, data) VALUES (?, ?)", (env, signature.to_bytes())
    )


def signatures(db: sqlite3.Connection, env_ids: list[str]) -> dict[str, Signature]:
    """The stored signatures of ``env_ids`` (those that have one and can be read)."""
    if not env_ids:
        return {}
    marks = ",".join("?" * len(env_ids))
    found = {}
    rows = db.execute(
        f"SELECT e.env_id, s.data FROM signatures s JOIN envs e ON e.id = s.env "
        f"WHERE e.env_id IN ({marks})",
        env_ids,
    )
    for env_id, blob in rows:
        try:
            found[env_id] = Signature.from_bytes(blob)
        except (ConfigError, ValueError, KeyError, TypeError, zlib.error):
            # An older or damaged signature only costs cross-play against this one env.
            continue
    return found


def source(db: Connection, env_id: str) -> str | None:
    """The stored source of ``env_id``, or ``None``."""
    row = db.execute(
        "SELECT p.source FROM programs p JOIN envs e ON e.id = p.env WHERE e.env_id = ?",
        (env_id,),
    ).fetchone()
    return _unpack(row[0], db) if row else None


def stale(db: Connection) -> tuple[int, int]:
    """Rows that need recomputing: ``(recomputable, unrecoverable)``.

    The first are fingerprinted under another version; the second have no stored source.
    """
    version = fingerprint_version()
    other = db.execute(
        "SELECT COUNT(*) FROM programs WHERE fingerprint_version != ?", (version,)
    ).fetchone()[0]
    missing = db.execute(
        "SELECT COUNT(*) FROM envs WHERE id NOT IN (SELECT env FROM programs)"
    ).fetchone()[0]
    return other, missing


def refingerprint(db: Connection) -> int:
    """Recompute fingerprints, shapes and code keys computed under another version.

    The caller holds the memory's lock and the transaction.

    Returns:
        How many rows were recomputed.
    """
    version = fingerprint_version()
    rows = db.execute(
        "SELECT env, source FROM programs WHERE fingerprint_version != ?", (version,)
    ).fetchall()
    for env, blob in rows:
        try:
            summary = summarize(_unpack(blob, db))
        except ProgramError:
            # Syntax this Python cannot parse: a candidate identical to it cannot parse here
            # either, so the old fingerprint can never be matched wrongly. Do not retry.
            db.execute("UPDATE programs SET fingerprint_version = ? WHERE env = ?", (version, env))
            continue
        hashes = codekeys.shingle_hashes(summary.shape)
        db.execute(
            "UPDATE envs SET fingerprint = ?, shape = ? WHERE id = ?",
            (summary.fingerprint, summary.shape, env),
        )
        codekeys.replace(db, env, codekeys.code_keys(hashes))
        db.execute(
            "UPDATE programs SET fingerprint_version = ?, shingles = ? WHERE env = ?",
            (version, hashes.tobytes(), env),
        )
    return len(rows)


def _pack(source: str) -> bytes:
    return zlib.compress(source.encode("utf-8", "surrogatepass"), 6)


def _unpack(blob: bytes, db: Connection) -> str:
    try:
        return zlib.decompress(blob).decode("utf-8", "surrogatepass")
    except (zlib.error, UnicodeDecodeError, TypeError) as exc:  # damaged bytes in a cell
        raise damaged(db.path, f"a stored program cannot be read ({exc})") from None


def shingle_sets(db: Connection, env_ids: list[str]) -> dict[str, np.ndarray]:
    """The stored shingle hashes of ``env_ids`` (rows stored before they were kept have none)."""
    if not env_ids:
        return {}
    marks = ",".join("?" * len(env_ids))
    rows = db.execute(
        f"SELECT e.env_id, p.shingles FROM programs p JOIN envs e ON e.id = p.env "
        f"WHERE e.env_id IN ({marks})",
        env_ids,
    )
    found = {}
    for env_id, blob in rows:
        if not isinstance(blob, bytes) or len(blob) % 4:
            raise damaged(db.path, f"the stored code keys of {env_id} are cut short")
        found[env_id] = np.frombuffer(blob, dtype=np.uint32)
    return found
