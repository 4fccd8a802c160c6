"""The exceptions spadegym raises: one root, a few kinds, each message naming the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spadegym.contract import ProgramErrorKind


class SpadegymError(Exception):
    """Root of every error spadegym raises on purpose."""


class PolicyError(SpadegymError):
    """A program breaks the restricted policy; ``errors`` holds the "Line N: ..." sentences."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("; ".join(self.errors) if self.errors else "the program was refused")


class ProgramError(SpadegymError):
    """An environment program failed at run time (raised, broke the contract, or timed out).

    Attributes:
        kind: a short stable tag, one of ``spadegym.contract.ProgramErrorKind``
            (``PROGRAM_ERROR_KINDS`` says what each means).
    """

    def __init__(self, message: str, kind: ProgramErrorKind = "exception"):
        self.kind = kind
        super().__init__(message)


class SandboxError(SpadegymError):
    """The sandbox itself failed (a worker could not start, or the protocol broke)."""


class ConfigError(SpadegymError, ValueError):
    """A configuration value is out of range or inconsistent with another one."""
