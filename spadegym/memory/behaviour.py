"""The memory's behavioural side: sandbox workers, signatures and the stored programs.

A mixin of ``EnvironmentMemory`` (``store.py``), which owns the database and the lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING

from spadegym.errors import ProgramError
from spadegym.memory import kept_programs as stored
from spadegym.memory.signature import Signature, compute_signature

if TYPE_CHECKING:
    from spadegym.memory.database import Connection
    from spadegym.sandbox.pool import Worker

SIGNATURE_CACHE = 128
"""Candidates' signatures kept between ``check_novelty`` and ``add`` (by source hash)."""


class BehaviourMixin:
    """Signatures and stored programs of an ``EnvironmentMemory``."""

    if TYPE_CHECKING:

        @property
        def _db(self) -> Connection:
            """``EnvironmentMemory``'s open connection."""

    def _init_behaviour(self) -> None:
        """Re-fingerprint what another Python stored and start the signature cache.

        The caller holds the file lock and has created the tables.
        """
        self._refingerprint()
        self._signatures: OrderedDict[str, Signature] = OrderedDict()
        self._signatures_lock = threading.Lock()

    def _refingerprint(self) -> None:
        """Recompute fingerprints stored under another Python (see ``fingerprint_version``).

        The caller holds the file lock. Rows added before programs were stored cannot be
        recomputed and keep their fingerprints (``stale_fingerprints`` counts them).
        """
        recomputable, _ = stored.stale(self._db)
        if recomputable:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                stored.refingerprint(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def stale_fingerprints(self) -> int:
        """Environments whose fingerprint cannot be recomputed under this Python.

        They were stored before the memory kept programs; if another Python computed their
        fingerprints, exact copies of them are found by code similarity only.
        """
        return stored.stale(self._db)[1]

    # -- behaviour ----------------------------------------------------------------------

    @contextlib.contextmanager
    def sandbox(self) -> Iterator[Worker]:
        """A fresh sandbox worker for one candidate, killed when the block ends.

        For callers that hold no worker with the candidate loaded: pass it to
        ``check_novelty`` and then to ``add``, and the candidate is loaded and probed once.
        """
        from spadegym.sandbox import fresh_worker
        from spadegym.validation import ValidationConfig

        with fresh_worker(ValidationConfig().sandbox) as worker:
            yield worker

    def signature_of(
        self, source: str, sandbox: Worker | None = None, *, strict: bool = False
    ) -> Signature | None:
        """The behavioural signature of ``source``, played in ``sandbox`` (or a fresh worker).

        Signatures are kept per source text for a while, so the one ``check_novelty``
        computed is reused by ``add``. Programs that ship with spadegym have theirs
        precomputed.

        Args:
            source: the program.
            sandbox: the worker to play it in; ``None`` starts a fresh one.
            strict: raise the program's failure instead of returning ``None``.

        Returns:
            The signature, or ``None`` when the program fails to load or to play.

        Raises:
            ProgramError: with ``strict``, the program failed in the sandbox.
        """
        key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        with self._signatures_lock:
            cached = self._signatures.get(key)
        if cached is not None:
            return cached
        from spadegym.memory.shipped_signatures import shipped_signature

        found = shipped_signature(key)
        if found is None:
            try:
                if sandbox is not None:
                    found = compute_signature(sandbox, source)
                else:
                    with self.sandbox() as worker:
                        found = compute_signature(worker, source)
            except ProgramError:
                if strict:
                    raise
                return None
        with self._signatures_lock:
            self._signatures[key] = found
            while len(self._signatures) > SIGNATURE_CACHE:
                self._signatures.popitem(last=False)
        return found

    def signature(self, env_id: str) -> Signature | None:
        """The stored signature of ``env_id``, or ``None``."""
        return stored.signatures(self._db, [env_id]).get(env_id)

    def source(self, env_id: str) -> str | None:
        """The stored program of ``env_id``.

        ``None`` when it is not stored, or was stored before the memory kept programs.
        """
        return stored.source(self._db, env_id)
