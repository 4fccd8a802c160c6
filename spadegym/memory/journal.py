"""Registry writes in flight, noted in the memory's database so that a killed writer is finished.

Adding an environment writes two stores: its registry folder, then its memory record. A writer
killed between the two would leave an environment the memory never learns about, so copies of
it would pass the novelty check. So the writer first notes its intent here (``add`` or
``remove``, the entry folder and the program's sha256), then writes the registry, then writes
the memory; the memory write deletes the note in the same transaction. Whoever holds the
memory's lock next finds any note left behind and finishes or drops it by looking at the
registry folder (``spadegym.registry.memory_link.settle``).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    env_id TEXT NOT NULL,
    op TEXT NOT NULL CHECK (op IN ('add', 'remove')),
    folder TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (env_id, op)
);
"""

OPS = ("add", "remove")


@dataclass(frozen=True)
class Intent:
    """A registry write whose memory half may not have happened.

    Attributes:
        env_id: the environment.
        op: ``"add"`` or ``"remove"``.
        folder: the absolute path of the registry entry folder.
        sha256: the program's sha256 as the registry holds it.
        created: when the intent was noted (seconds since the epoch).
    """

    env_id: str
    op: str
    folder: str
    sha256: str
    created: float


def note(db: sqlite3.Connection, op: str, env_id: str, folder: str, sha256: str) -> None:
    """Record an intent (replacing an older one of the same id and op)."""
    if op not in OPS:
        raise ValueError(f"op={op!r} is not one of {OPS}")
    db.execute(
        "INSERT OR REPLACE INTO pending VALUES (?, ?, ?, ?, ?)",
        (env_id, op, folder, sha256, time.time()),
    )


def pending(db: sqlite3.Connection) -> list[Intent]:
    """Every intent left, oldest first."""
    rows = db.execute(
        "SELECT env_id, op, folder, sha256, created FROM pending ORDER BY created"
    ).fetchall()
    return [Intent(*row) for row in rows]


def clear(db: sqlite3.Connection, env_ids: list[str], op: str) -> None:
    """Forget the intents ``op`` of ``env_ids``; call inside the write that fulfils them."""
    db.executemany("DELETE FROM pending WHERE env_id = ? AND op = ?", [(e, op) for e in env_ids])
