"""What every pool of sandbox workers offers: the ``Pool`` protocol and the ``Handle`` it opens.

``SandboxPool`` (worker processes on this machine) and ``spadegym.vector.ray.RaySandboxPool``
(the same over Ray actors) both implement it; ``EnvBatch``, ``ProgramEnv(pool=...)`` and the
trainer are written against it. Batched operations report each item's failure in its place, as
a ``ProgramError`` value; single operations raise it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, Self, TypeVar, runtime_checkable

from spadegym.errors import ProgramError
from spadegym.sandbox.client import ProgramInfo, StepResult
from spadegym.sandbox.config import SandboxConfig


@runtime_checkable
class Handle(Protocol):
    """One environment instance held by a pool."""

    info: ProgramInfo
    """The program's class facts."""
    source: str
    filename: str

    @property
    def lost(self) -> bool:
        """Whether the instance died with its worker (``reset`` re-creates it)."""
        ...

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode; returns ``(observation, info)``."""
        ...

    def step(self, action: str) -> StepResult:
        """Play one action."""
        ...

    def solution(self) -> list[str]:
        """The program's winning actions for the current instance."""
        ...

    def hint(self) -> str:
        """The program's hint for the current instance."""
        ...

    def close(self) -> None:
        """Release the instance (prefer the pool's ``release``, which also counts it)."""
        ...


H = TypeVar("H", bound=Handle)
"""The handles a pool opens, and the only ones it takes back."""


@runtime_checkable
class Pool(Protocol[H]):
    """Workers that host environment instances, one program per worker process.

    Generic in its handle type: a pool accepts back only the handles it opened (``Pool[Any]``
    where any pool will do).
    """

    config: SandboxConfig

    def start(self) -> None:
        """Start workers now instead of at first use."""
        ...

    def describe(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """Load a program (on a worker of its own) and return its class facts."""
        ...

    def open(self, source: str, filename: str = "<program>") -> H:
        """Create an instance of ``source``."""
        ...

    def open_many(self, items: Sequence[tuple[str, str]]) -> list[H | ProgramError]:
        """``open`` for many ``(source, filename)`` pairs; failures as values."""
        ...

    def reset_batch(
        self, batch: Sequence[tuple[H, int | None, dict[str, Any] | None]]
    ) -> list[tuple[str, dict[str, Any]] | ProgramError]:
        """Reset many ``(handle, seed, options)`` at once; failures as values."""
        ...

    def step_batch(self, batch: Sequence[tuple[H, str]]) -> list[StepResult | ProgramError]:
        """Step many ``(handle, action)`` at once; failures as values."""
        ...

    def release(self, handle: H) -> None:
        """Close one instance opened by this pool."""
        ...

    def release_many(self, handles: Sequence[H]) -> None:
        """Close instances opened by this pool."""
        ...

    def close(self) -> None:
        """Stop every worker."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...
