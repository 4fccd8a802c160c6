"""What the rest of spadegym asks of a memory: the ``MemoryLike`` protocol.

``EnvironmentMemory`` (``store.py``) is the memory; the validator, the registry, ``generate``,
the evaluator, the report and the trainer are written against this protocol, which holds only
the members they call:

- judging a candidate: ``check_novelty``, ``find_copy``, ``signature_of``, ``sandbox`` and
  ``dedup`` (validation, ``Registry.admit``, the trainer);
- writing in step with the registry: ``locked``, ``revision``, the journal (``note_intent``,
  ``intents``, ``clear_intent``), ``digests``, ``get``, ``add``, ``add_many``, ``remove``
  (``spadegym.registry.memory_link``);
- plays and the design prompt's examples: ``__contains__``, ``record_plays``, ``stats``,
  ``__len__``, ``frontier``, ``too_easy``, ``too_hard``, ``near`` (evaluation, the report,
  ``spadegym.designer.prompt_examples``);
- ``path`` (named in reports) and ``flush`` (before the trainer copies the folder).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from spadegym.memory.journal import Intent
    from spadegym.memory.novelty import DedupConfig, Embedded, Novelty
    from spadegym.memory.records import EnvRecord, Neighbour
    from spadegym.memory.signature import Signature
    from spadegym.memory.stats import PlayStats
    from spadegym.sandbox.pool import Worker

__all__ = ["MemoryLike"]


class MemoryLike(Protocol):
    """An environment memory, as its users see it (see ``EnvironmentMemory`` for each member).

    Attributes:
        path: the memory's folder.
        dedup: the thresholds of ``check_novelty``, and whether signatures are kept.
    """

    path: Path
    dedup: DedupConfig

    def __len__(self) -> int:
        """How many environments are stored."""
        ...

    def __contains__(self, env_id: object) -> bool:
        """Whether ``env_id`` is stored."""
        ...

    # -- judging a candidate --------------------------------------------------------------

    def check_novelty(
        self,
        source: str,
        *,
        first_observation: str | None = None,
        sandbox: Worker | None = None,
        start_sandbox: bool = True,
    ) -> Novelty:
        """Whether ``source`` is a new game or one the memory already holds.

        Without ``sandbox`` a fresh worker is started for cross-play unless
        ``start_sandbox=False`` (static signals only).
        """
        ...

    def find_copy(self, source: str) -> str | None:
        """The stored environment whose normalised code equals ``source``'s, if any."""
        ...

    def signature_of(
        self, source: str, sandbox: Worker | None = None, *, strict: bool = False
    ) -> Signature | None:
        """The behavioural signature of ``source`` (kept for the ``add`` that follows)."""
        ...

    def sandbox(self) -> AbstractContextManager[Worker]:
        """A fresh sandbox worker for one candidate, killed when the block ends."""
        ...

    # -- writing in step with the registry ------------------------------------------------

    def locked(self) -> AbstractContextManager[object]:
        """Hold the memory's write lock (across processes) for several calls."""
        ...

    def revision(self) -> tuple[int, int, int]:
        """A value that changes whenever an environment is added or removed."""
        ...

    def note_intent(self, op: str, env_id: str, folder: str, sha256: str) -> None:
        """Note a registry write whose memory half follows."""
        ...

    def intents(self) -> list[Intent]:
        """Registry writes whose memory half may not have happened, oldest first."""
        ...

    def clear_intent(self, env_id: str, op: str) -> None:
        """Drop a noted intent that needs no memory write after all."""
        ...

    def digests(self) -> dict[str, str]:
        """The sha256 of each stored program, by env_id."""
        ...

    def get(self, env_id: str) -> EnvRecord | None:
        """The record of ``env_id``, or ``None``."""
        ...

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
        """Store one environment."""
        ...

    def add_many(
        self,
        items: Iterable[tuple[str, str, str | None]],
        *,
        skill: str | None = None,
        sandbox: Worker | None = None,
        signatures: Sequence[Signature | None] | None = None,
        embeddings: Sequence[Embedded | None] | None = None,
    ) -> list[EnvRecord]:
        """Store environments, embedding them in one batch."""
        ...

    def remove(self, env_id: str) -> bool:
        """Forget an environment and its plays; ``False`` if it was not stored."""
        ...

    # -- plays and the design prompt's examples -------------------------------------------

    def record_plays(
        self,
        env_id: str,
        plain: Sequence[float] = (),
        hint: Sequence[float] = (),
        *,
        step: int | None = None,
        floor: float | None = None,
    ) -> PlayStats:
        """Add a batch of episode outcomes (and the chance floor); the updated statistics."""
        ...

    def stats(self, env_id: str) -> PlayStats | None:
        """Play statistics of ``env_id``, or ``None`` before its first play."""
        ...

    def frontier(
        self, k: int = 2, band: tuple[float, float] = (0.15, 0.85), skill: str | None = None
    ) -> list[PlayStats]:
        """Highest-regret environments whose plain win rate lies in ``band``."""
        ...

    def too_easy(
        self, k: int = 1, threshold: float = 0.9, skill: str | None = None
    ) -> list[PlayStats]:
        """Environments with plain win rate above ``threshold``, easiest first."""
        ...

    def too_hard(
        self, k: int = 1, threshold: float = 0.1, skill: str | None = None
    ) -> list[PlayStats]:
        """Environments with plain win rate below ``threshold``, hardest first."""
        ...

    def near(self, text: str, k: int = 5) -> list[Neighbour]:
        """Stored environments closest in meaning to ``text``."""
        ...

    def flush(self) -> None:
        """Write the index file now."""
        ...
