"""What can go wrong with a registry: a missing id, a tampered program, a duplicate game."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from spadegym.errors import SpadegymError

if TYPE_CHECKING:
    from spadegym.memory.novelty import Novelty


class RegistryError(SpadegymError):
    """A registry operation failed (unknown id, unreadable entry, bad bundle, ...)."""


class TamperedEnvironmentError(RegistryError):
    """A program's sha256 no longer matches the one its manifest recorded at validation."""


class DuplicateEnvironmentError(RegistryError):
    """The environment memory judged a program to be a game the registry already holds.

    Attributes:
        duplicate_of: the id of the stored environment it duplicates.
        novelty: the memory's verdict (a ``Novelty``), when the memory gave one.
    """

    def __init__(self, message: str, duplicate_of: str | None, novelty: Novelty | None = None):
        self.duplicate_of = duplicate_of
        self.novelty = novelty
        super().__init__(message)


class ShadowedEnvironmentWarning(UserWarning):
    """Two registry roots hold the same id; the earlier root's environment is the one used."""


def warn_shadowed(env_id: str, used: str, hidden: str) -> None:
    """Warn that ``env_id`` of root ``hidden`` is hidden by the one of root ``used``."""
    warnings.warn(
        f"{env_id} is in two registry roots; {used} shadows {hidden}. Remove one, or "
        "re-add the hidden program to get a distinct id.",
        ShadowedEnvironmentWarning,
        stacklevel=3,
    )


class RejectedProgramError(RegistryError):
    """A program failed validation, so it was not added.

    Attributes:
        report: the ``ValidationReport`` that says why.
    """

    def __init__(self, message: str, report: object):
        self.report = report
        super().__init__(message)
