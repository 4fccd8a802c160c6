"""The settings of ``spadegym serve``, kept apart from OpenEnv so the CLI checks them first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spadegym.errors import ConfigError

__all__ = ["SERVE_IDLE_TIMEOUT", "SERVE_MAX_SESSIONS", "ServeConfig"]

SERVE_MAX_SESSIONS = 256
"""Sessions alive at once by default."""

SERVE_IDLE_TIMEOUT = 300.0
"""Seconds without a message after which a session is closed, by default."""


@dataclass
class ServeConfig:
    """How ``spadegym serve`` runs.

    Attributes:
        ids: the environment ids served (none: every registered one).
        max_sessions: sessions alive at once; one more is refused.
        idle_timeout: seconds without a message after which a session is closed.
        workers: sandbox workers shared by the sessions (default: one per core, up to 4).
        sandbox: their ``SandboxConfig``.
    """

    ids: Sequence[str] = ()
    max_sessions: int = SERVE_MAX_SESSIONS
    idle_timeout: float = SERVE_IDLE_TIMEOUT
    workers: int | None = None
    sandbox: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.max_sessions, int) or self.max_sessions < 1:
            raise ConfigError(f"max_sessions={self.max_sessions!r}: serve at least 1 session.")
        if not self.idle_timeout > 0:
            raise ConfigError(
                f"idle_timeout={self.idle_timeout!r}: sessions need a positive idle timeout "
                "(seconds), or clients that vanish would hold their instances forever."
            )
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"workers={self.workers!r}: at least 1 sandbox worker.")
