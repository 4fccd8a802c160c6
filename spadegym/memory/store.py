"""``EnvironmentMemory``: accepted environments, embeddings and play statistics in a folder.

The folder holds ``memory.sqlite`` (the source of truth: every record, every vector, every
play, the embedder's identity), ``index.faiss`` (a search index rebuilt from SQLite whenever it
is missing, stale or damaged), ``config.json`` (a copy of the embedder's name and dimension)
and a lock file. SQLite runs in WAL mode with one transaction per write, and writers take the
file lock, so several processes may share a memory, and a process killed at any point leaves
it readable: the index file is replaced atomically and carries a stamp and a checksum that are
checked against SQLite when it is read, and ``close`` leaves it level with SQLite. A damaged
database is reported as ``DamagedMemoryError`` (see ``database``).

Callers that must check and then write as one step, across processes (the registry's novelty
check and insert), hold ``locked()`` around both; ``revision()`` tells whether anything changed
since an earlier look.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
from filelock import FileLock

from spadegym.errors import ConfigError
from spadegym.memory import codekeys as ckeys
from spadegym.memory import database, identity, integrity, journal, precomputed, records
from spadegym.memory import kept_programs as stored
from spadegym.memory import stats as pstats
from spadegym.memory import vector_index as vindex
from spadegym.memory.behaviour import BehaviourMixin
from spadegym.memory.database import DamagedMemoryError
from spadegym.memory.embedders import Embedder
from spadegym.memory.fingerprint import ProgramSummary, summarize
from spadegym.memory.novelty import DedupConfig, Embedded, embedding_text
from spadegym.memory.progress import Progress, announce
from spadegym.memory.records import EnvRecord as EnvRecord
from spadegym.memory.records import Neighbour as Neighbour
from spadegym.memory.signature import Signature
from spadegym.memory.similarity import SimilarityMixin
from spadegym.util import leftovers

if TYPE_CHECKING:
    from spadegym.sandbox.pool import Worker

__all__ = ["DamagedMemoryError", "EnvironmentMemory"]

log = logging.getLogger("spadegym.memory")

_SCHEMA = (
    records.SCHEMA + pstats.SCHEMA + identity.SCHEMA + journal.SCHEMA + stored.SCHEMA + ckeys.SCHEMA
)


class EnvironmentMemory(BehaviourMixin, SimilarityMixin):
    """A folder of accepted environments: embeddings in FAISS, records and plays in SQLite.

    Args:
        path: the folder (created if missing).
        embedder: turns texts into vectors. ``None`` uses the embedder the folder's config
            names, or all-MiniLM-L6-v2 for a new folder. A different embedder than the one
            the folder was made with is refused, since its vectors would not compare.
        index_params: when to switch to HNSW and how to build it.
        dedup: thresholds of ``check_novelty``, and whether ``add`` records behavioural
            signatures (``DedupConfig.behaviour``).
        dedup: thresholds of ``check_novelty``.
        progress: receives a line when something takes more than a couple of seconds (the
            first embedding, which loads the model; rebuilding a large index); ``None`` is
            silent.

    Raises:
        ConfigError: the embedder does not match the one the memory records.
        DamagedMemoryError: ``memory.sqlite`` is not a readable database.
    """

    def __init__(
        self,
        path: str | Path,
        embedder: Embedder | None = None,
        *,
        index_params: vindex.IndexParams | None = None,
        dedup: DedupConfig | None = None,
        progress: Progress | None = None,
    ):
        from spadegym.registry.home import make_folder

        self.path = make_folder(path)  # says so when this creates the spadegym home
        self.index_params = index_params or vindex.IndexParams()
        self.dedup = dedup or DedupConfig()
        self.progress = progress
        self._connection: database.Connection | None = None
        sqlite_path = self.path / "memory.sqlite"
        self._lock = integrity.StampingLock(
            FileLock(str(self.path / ".lock")), sqlite_path, lambda: self._connection
        )
        with self._lock:
            # Temporary files of writers killed mid-write (the config's is only ever written
            # under this lock, so one found now is a leftover).
            leftovers.remove_dead(self.path, vindex.TEMP_PREFIX, ".tmp")
            (self.path / "config.json.tmp").unlink(missing_ok=True)
            # Files changed by anything but a memory's own writes may hold damaged pages that
            # SQLite would meet only when a query reads them: check them all now.
            outside = integrity.changed_outside(sqlite_path)
            self._connection = database.connect(sqlite_path)
            try:
                if outside:
                    integrity.check(self._db)
                # Programs, signatures and code keys go with their envs row (ON DELETE CASCADE).
                self._db.execute("PRAGMA foreign_keys=ON")
                self._db.executescript(_SCHEMA)
                self.embedder, self.dim = identity.resolve(self.path, self._db, embedder)
                self._init_behaviour()
            except BaseException:
                self._db.close()
                self._connection = None
                raise
            integrity.record(sqlite_path)
        self._index = vindex.SyncedIndex(self.path / "index.faiss", self.dim, self.index_params)
        # An index file written for other database files (a replaced or restored one) would
        # map row ids to another memory's vectors: it is rebuilt from SQLite instead.
        self._index.distrust_file = outside

    @property
    def _db(self) -> database.Connection:
        """The open connection; a memory used after ``close`` says so."""
        if self._connection is None:
            raise ConfigError(
                f"the memory at {self.path} is closed: open it again (EnvironmentMemory(path))"
            )
        return self._connection

    # -- one step across processes ------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[EnvironmentMemory]:
        """Hold the memory's write lock (across processes and threads) for several calls.

        Every write takes this lock itself; holding it around a read and a write makes the
        two one step that no other writer can come between. It is reentrant in a thread.
        """
        with self._lock:
            yield self

    def revision(self) -> tuple[int, int, int]:
        """A value that changes whenever an environment is added or removed."""
        return records.state(self._db)

    def setting(self, key: str) -> str | None:
        """A setting the memory keeps (``embedder``, ``dim``, ``seeded``), or None."""
        return identity.setting(self._db, key)

    def set_setting(self, key: str, value: str) -> None:
        """Keep a setting (a short text) in the memory's database."""
        with self._lock:
            identity.set_setting(self._db, key, value)

    def digests(self) -> dict[str, str]:
        """The sha256 of each stored program, by env_id."""
        return records.digests(self._db)

    def note_intent(self, op: str, env_id: str, folder: str, sha256: str) -> None:
        """Note a registry write whose memory half follows (see ``journal``); hold ``locked()``."""
        with self._lock:
            journal.note(self._db, op, env_id, folder, sha256)

    def intents(self) -> list[journal.Intent]:
        """Registry writes whose memory half may not have happened, oldest first."""
        return journal.pending(self._db)

    def clear_intent(self, env_id: str, op: str) -> None:
        """Drop a noted intent that needs no memory write after all."""
        with self._lock:
            journal.clear(self._db, [env_id], op)

    def _embed(self, texts: list[str]) -> np.ndarray:
        what = f"embedding {len(texts)} text(s) with {self.embedder.name}"
        with announce(self.progress, f"{what} (its first use loads the model)"):
            vectors = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ConfigError(
                f"embedder {self.embedder.name!r} returned shape {vectors.shape}, expected "
                f"({len(texts)}, {self.dim}); the embedder must return one {self.dim}-d row "
                "per text"
            )
        return vectors

    # -- writing ------------------------------------------------------------------------

    def add(
        self,
        env_id: str,
        source: str,
        *,
        first_observation: str | None = None,
        skill: str | None = None,
        sandbox: Worker | None = None,
        signature: Signature | None = None,
        embedding: Embedded | None = None,
    ) -> EnvRecord:
        """Store one environment. See ``add_many``."""
        return self.add_many(
            [(env_id, source, first_observation)],
            skill=skill,
            sandbox=sandbox,
            signatures=None if signature is None else [signature],
            embeddings=None if embedding is None else [embedding],
        )[0]

    def add_many(
        self,
        items: Iterable[tuple[str, str, str | None]],
        *,
        skill: str | None = None,
        sandbox: Worker | None = None,
        signatures: Sequence[Signature | None] | None = None,
        embeddings: Sequence[Embedded | None] | None = None,
    ) -> list[EnvRecord]:
        """Store environments, embedding them in one batch and writing one transaction.

        With ``DedupConfig.behaviour`` (the default) each program's behavioural signature is
        stored too: given, cached from ``check_novelty``, precomputed (shipped programs),
        played in ``sandbox``, or else played in a fresh sandbox worker per program. The
        program never runs in this process.

        Args:
            items: ``(env_id, source, first_observation)`` triples; the first observation is
                what ``reset`` showed (the registry gets it from the sandbox) or ``None``.
            skill: overrides the programs' own ``skill`` attribute.
            sandbox: a worker that holds (or may load) the program, for a single item; a
                worker serves one program only, so with several items each gets a fresh one.
            signatures: signatures already computed, aligned with ``items`` (``None``
                entries are computed).
            embeddings: embeddings ``check_novelty`` made (``Novelty.embedding``), aligned
                with ``items``; one of another text or embedder is ignored and the item
                embedded anew.

        Returns:
            The new records.

        Raises:
            ConfigError: an ``env_id`` is already stored (``remove`` it first), or
                ``signatures`` or ``embeddings`` does not match ``items``.
            ProgramError: a source does not parse or has no ``...Env`` class.
        """
        items = list(items)
        if signatures is not None and len(signatures) != len(items):
            raise ConfigError(
                f"add_many got {len(signatures)} signatures for {len(items)} items; pass one "
                "per item (None to compute it)"
            )
        if embeddings is not None and len(embeddings) != len(items):
            raise ConfigError(
                f"add_many got {len(embeddings)} embeddings for {len(items)} items; pass one "
                "per item (None to embed it)"
            )
        summaries = [_summary(source) for _, source, _ in items]
        vectors = self._vectors(
            [
                embedding_text(s.title, s.description, obs)
                for s, (_, _, obs) in zip(summaries, items, strict=True)
            ],
            summaries,
            embeddings,
        )
        now = time.time()
        new = [
            EnvRecord(
                env_id,
                skill or s.skill,
                s.kind,
                s.title,
                s.description,
                obs,
                s.source_sha256,
                s.fingerprint,
                now,
            )
            for s, (env_id, _, obs) in zip(summaries, items, strict=True)
        ]
        rows = list(zip(new, [s.shape for s in summaries], vectors, strict=True))
        sigs = list(signatures) if signatures is not None else [None] * len(items)
        if self.dedup.behaviour:
            worker = sandbox if len(items) == 1 else None
            sigs = [
                sig if sig is not None else self.signature_of(source, worker)
                for sig, (_, source, _) in zip(sigs, items, strict=True)
            ]
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                records.insert(self._db, rows)
                # The registry write these records complete is no longer pending.
                journal.clear(self._db, [r.env_id for r in new], "add")
                ids = stored.row_ids(self._db, [r.env_id for r in new])
                stored.insert(
                    self._db,
                    [
                        (ids[r.env_id], source, sig)
                        for r, (_, source, _), sig in zip(new, items, sigs, strict=True)
                    ],
                )
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                taken = [r.env_id for r in new if r.env_id in self] or [new[0].env_id]
                raise ConfigError(
                    f"env_id {taken[0]!r} is already in the memory at {self.path} (or twice in "
                    "this call); ids are unique: remove() it first or choose another id"
                ) from exc
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._sync_index()
            if self._index.unsaved >= max(1, min(1000, len(self) // 100)):
                self._save_index()
        return new

    def _vectors(
        self,
        texts: list[str],
        summaries: list[ProgramSummary],
        given: Sequence[Embedded | None] | None = None,
    ) -> np.ndarray:
        """The embeddings of ``texts``: given, precomputed (shipped programs), or made now.

        A given one counts only when it is of the same text, by this memory's embedder.
        """
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        todo = []
        given = given if given is not None else [None] * len(texts)
        for i, (text, summary, known) in enumerate(zip(texts, summaries, given, strict=True)):
            if (
                known is not None
                and known.text == text
                and known.embedder == self.embedder.name
                and len(known.vector) == self.dim
            ):
                out[i] = known.vector
                continue
            found = precomputed.vector(summary.source_sha256, self.embedder.name, text, self.dim)
            if found is None:
                todo.append(i)
            else:
                out[i] = found
        if todo:
            out[todo] = self._embed([texts[i] for i in todo])
        return out

    def remove(self, env_id: str) -> bool:
        """Forget an environment and its plays; ``False`` if it was not stored."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                gone = self._db.execute("DELETE FROM envs WHERE env_id = ?", (env_id,)).rowcount
                self._db.execute("DELETE FROM plays WHERE env_id = ?", (env_id,))
                self._db.execute("DELETE FROM stats WHERE env_id = ?", (env_id,))
                journal.clear(self._db, [env_id], "remove")
                if gone:
                    # Index files written before this removal can no longer be trusted.
                    self._db.execute("UPDATE meta SET value = value + 1 WHERE key = 'epoch'")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            if gone:
                self._sync_index()
                self._save_index()
        return bool(gone)

    def record_plays(
        self,
        env_id: str,
        plain: Sequence[float] = (),
        hint: Sequence[float] = (),
        *,
        step: int | None = None,
        floor: float | None = None,
    ) -> pstats.PlayStats:
        """Add a batch of episode outcomes and return the environment's updated statistics.

        Win rates are mean outcomes (outcomes lie in ``[-1, 1]``); regret is
        ``max(0, mean(hint) - mean(plain))`` over all recorded plays, 0 without hint plays.

        Args:
            env_id: a stored environment.
            plain: outcomes of plays without the hint.
            hint: outcomes of plays with the hint.
            step: the training step, kept in the history.
            floor: the environment's chance floor (its manifest's or validation report's), kept
                so that the frontier reads win rates against it.

        Raises:
            ConfigError: unknown ``env_id``, no outcomes, an outcome outside ``[-1, 1]``, or a
                floor outside ``[0, 1]``.
        """
        if floor is not None and not (type(floor) in (int, float) and 0.0 <= floor <= 1.0):
            raise ConfigError(
                f"floor={floor!r}: a chance floor is a mean outcome in [0, 1] (the best "
                "shortcut solver's); pass None when it is not known"
            )
        plain_values = pstats.check_outcomes("plain", plain)
        hint_values = pstats.check_outcomes("hint", hint)
        if not plain_values and not hint_values:
            raise ConfigError(f"record_plays({env_id!r}) got no outcomes; pass plain= or hint=")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if env_id not in self:
                    raise ConfigError(
                        f"env_id {env_id!r} is not in the memory at {self.path}; add() the "
                        "environment before recording its plays"
                    )
                pstats.insert_batch(
                    self._db, env_id, plain_values, hint_values, step, time.time(), floor
                )
                result = pstats.stats_of(self._db, env_id)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        # The summary row was written in this very transaction, so it exists.
        return cast(pstats.PlayStats, result)

    # -- reading records and statistics -------------------------------------------------

    def __len__(self) -> int:
        count: int = self._db.execute("SELECT COUNT(*) FROM envs").fetchone()[0]
        return count

    def __contains__(self, env_id: object) -> bool:
        return (
            self._db.execute("SELECT 1 FROM envs WHERE env_id = ?", (env_id,)).fetchone()
            is not None
        )

    def get(self, env_id: str) -> EnvRecord | None:
        """The record of ``env_id``, or ``None``."""
        row = self._db.execute(
            f"SELECT {records.COLUMNS} FROM envs WHERE env_id = ?", (env_id,)
        ).fetchone()
        return EnvRecord(*row) if row else None

    def ids(self) -> list[str]:
        """Every stored env_id, oldest first."""
        return [r[0] for r in self._db.execute("SELECT env_id FROM envs ORDER BY id")]

    def stats(self, env_id: str) -> pstats.PlayStats | None:
        """Play statistics of ``env_id``, or ``None`` before its first play."""
        return pstats.stats_of(self._db, env_id)

    def history(self, env_id: str) -> list[pstats.PlayBatch]:
        """Every batch of plays of ``env_id``, oldest first."""
        return pstats.history_of(self._db, env_id)

    def frontier(
        self, k: int = 2, band: tuple[float, float] = (0.15, 0.85), skill: str | None = None
    ) -> list[pstats.PlayStats]:
        """Highest-regret environments whose plain win rate lies in ``band`` (inclusive).

        The win rate is read against the environment's chance floor where one was recorded
        (``PlayStats.adjusted``): a game a guesser wins half the time is not at the frontier
        when the solver wins it half the time.
        """
        low, high = band
        if not low <= high:
            raise ConfigError(f"band={band} is empty; give (low, high) with low <= high")
        return pstats.select(
            self._db,
            f"{pstats.ADJUSTED} BETWEEN ? AND ?",
            (low, high),
            "s.regret DESC, s.n_plain DESC, s.env_id",
            k,
            skill,
        )

    def too_easy(
        self, k: int = 1, threshold: float = 0.9, skill: str | None = None
    ) -> list[pstats.PlayStats]:
        """Environments with plain win rate (against the floor) above ``threshold``."""
        return pstats.select(
            self._db,
            f"{pstats.ADJUSTED} > ?",
            (threshold,),
            f"{pstats.ADJUSTED} DESC, s.n_plain DESC, s.env_id",
            k,
            skill,
        )

    def too_hard(
        self, k: int = 1, threshold: float = 0.1, skill: str | None = None
    ) -> list[pstats.PlayStats]:
        """Environments with plain win rate (against the floor) below ``threshold``."""
        return pstats.select(
            self._db,
            f"{pstats.ADJUSTED} < ?",
            (threshold,),
            f"{pstats.ADJUSTED} ASC, s.n_plain DESC, s.env_id",
            k,
            skill,
        )

    # -- similarity -----------------------------------------------------------------------

    def near(self, text: str, k: int = 5) -> list[Neighbour]:
        """Stored environments closest in meaning to ``text`` (e.g. a grounding document)."""
        hits = self._search(self._embed([text])[0], k)
        titles = records.fields(self._db, [env for env, _ in hits], "title, skill")
        neighbours = []
        for env, score in hits:
            title, skill = titles[env]
            neighbours.append(Neighbour(env, title, skill, score))
        return neighbours

    def find_copy(self, source: str) -> str | None:
        """The stored environment whose normalised code equals ``source``'s, if any.

        Cheap (a parse and one indexed lookup, no embedding): callers use it to refuse a
        repeated program before paying for its validation.
        """
        return self._copy_of(summarize(source).fingerprint)

    def _copy_of(self, fingerprint: str) -> str | None:
        """The first stored environment with this fingerprint, if any."""
        row = self._db.execute(
            "SELECT env_id FROM envs WHERE fingerprint = ? ORDER BY id LIMIT 1", (fingerprint,)
        ).fetchone()
        return row[0] if row else None

    def _search(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        self._sync_index()
        found = self._index.search(vector, k)
        if not vindex.scores_are_sound([score for _, score in found]):
            # Vectors are unit length, so this index is damaged: SQLite has the true ones.
            self._index.invalidate()
            self._sync_index()
            found = self._index.search(vector, k)
        names = records.names(self._db, [i for i, _ in found])
        # A row removed by another process since our last sync is skipped, not reported.
        return [(names[i], score) for i, score in found if i in names]

    def _sync_index(self) -> None:
        """Bring the index level with SQLite; a rebuilt index is written at once."""
        state = records.state(self._db)
        checksum = None if self._index.loaded() else records.index_checksum(self._db)
        what = f"loading or rebuilding the vector index of {state[0]} environments"
        with announce(None if self._index.loaded() else self.progress, what):
            rebuilt = self._index.sync(
                state, lambda after: records.vectors(self._db, self.dim, after), checksum
            )
        if rebuilt:
            with self._lock:
                self._save_index()

    def _save_index(self) -> None:
        """Write the index file and record its checksum in SQLite; hold the lock.

        The file is a cache of SQLite: one that cannot be written (a full disk) is logged and
        left to a later save, never failing the write that SQLite has already committed.
        """
        try:
            checksum = self._index.save()
            if checksum is not None:
                records.set_index_checksum(self._db, checksum)
        except OSError as exc:
            log.warning(
                "the vector index %s was not saved (%s); it is rebuilt when read",
                self._index.path,
                exc,
            )

    def flush(self) -> None:
        """Write the index file now (it is also written on ``close`` and every ~1% growth)."""
        with self._lock:
            self._sync_index()
            if self._index.behind():
                self._save_index()

    def close(self) -> None:
        """Write pending index changes, so the file is level with SQLite, and close.

        The last connection's close folds the ``-wal`` file into the database, so the files
        are stamped again afterwards (see ``integrity``).
        """
        if self._connection is not None:
            with self._lock:
                try:
                    if self._index.loaded():  # a process that never searched has nothing to write
                        self.flush()
                except (DamagedMemoryError, OSError):
                    pass  # already reported, or a full disk: the index file is only a cache
                finally:
                    self._db.close()
                    self._connection = None
                    integrity.record(self.path / "memory.sqlite")

    def __enter__(self) -> EnvironmentMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _summary(source: str) -> ProgramSummary:
    """The summary of a program: the shipped library's precomputed one, or computed now."""
    sha = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    return precomputed.summary(sha) or summarize(source)
