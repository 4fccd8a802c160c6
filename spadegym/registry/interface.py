"""What ``generate`` asks of a registry: the ``RegistryLike`` protocol.

``Registry`` (``store.py``) is the registry; ``spadegym.designer.generate`` is written against
this protocol, which holds only the members it calls: ``root`` (where the run log goes),
``id_of`` (an exact copy is refused before anything else), ``admit`` (novelty and the write, as
one step) and ``get`` (a registered program, for the prompt's examples and for resuming).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym.registry.admission import Admitted
    from spadegym.registry.manifest import Provenance
    from spadegym.registry.store import RegisteredEnv
    from spadegym.sandbox.pool import Worker

__all__ = ["RegistryLike"]


class RegistryLike(Protocol):
    """A registry of environments, as ``generate`` sees it (see ``Registry``).

    Attributes:
        root: the registry's folder.
    """

    root: Path

    def get(self, env_id: str) -> RegisteredEnv:
        """The environment ``env_id``; raises ``RegistryError`` when it is not here."""
        ...

    def id_of(self, program: str) -> str | None:
        """The id ``program`` (its exact text) already has, if any."""
        ...

    def admit(
        self,
        source: str,
        report: Any = None,
        provenance: Provenance | dict[str, Any] | None = None,
        *,
        memory: MemoryLike | None = None,
        version_of: str | None = None,
        config: Any = None,
        preferred_id: str | None = None,
        sandbox: Worker | None = None,
        skill: str | None = None,
    ) -> Admitted:
        """Validate (unless given a passing report), judge novelty and store a program."""
        ...
