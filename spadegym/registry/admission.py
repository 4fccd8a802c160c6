"""Admitting a program: its passing report, and the memory's verdict, before it is written.

``check_program`` gives the program to store and a passing report (validating when no report
is given, and checking a given one belongs to the program); ``Admitted`` is what
``Registry.admit`` answers; ``is_new_version`` lets a new version of an environment be close to
its earlier versions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spadegym import contract
from spadegym.registry import ids
from spadegym.registry.errors import DuplicateEnvironmentError, RegistryError, RejectedProgramError
from spadegym.util import compat


@dataclass(frozen=True)
class Admitted:
    """What ``Registry.admit`` did with a program.

    Attributes:
        env_id: the program's id.
        new: False when the program was registered already (its id is returned again).
        novelty: the memory's verdict on a new program (None without a memory).
    """

    env_id: str
    new: bool = True
    novelty: Any = None


def is_new_version(verdict: Any, version_of: str | None) -> bool:
    """Whether a duplicate verdict names an earlier version of the environment being versioned."""
    if version_of is None or verdict.nearest_id is None:
        return False
    try:
        return ids.parse_id(verdict.nearest_id)[0] == ids.parse_id(version_of)[0]
    except ids.InvalidIdError:
        return False


def _class_name(program: str) -> str:
    try:
        tree = compat.parse(program)
    except (SyntaxError, ValueError) as exc:
        raise RegistryError(f"the program cannot be parsed ({exc}); validate it first.") from None
    try:
        return contract.environment_class_def(tree).name
    except ValueError as exc:
        raise RegistryError(f"{exc}. Validate it first.") from None


def check_program(source: str, report: Any = None, config: Any = None) -> tuple[str, Any]:
    """The program to store and its passing report; validates when no report is given.

    Raises:
        RejectedProgramError: validation failed (the report says why).
        RegistryError: a given report failed, or belongs to another program.
    """
    if report is None:
        from spadegym.validation import validate

        report = validate(source, config)
        if not report.ok:
            raise RejectedProgramError(
                f"{report.class_name or 'the program'} failed validation and was not added:\n"
                f"{report.feedback()}",
                report,
            )
        return report.program, report
    if not report.ok:
        raise RegistryError(
            "report= is a failing ValidationReport; only a passing report lets "
            "add() skip validation. Pass report=None to validate again."
        )
    from spadegym.extract import extract_program

    program = extract_program(source).code or source
    if report.program is not None and report.program != program:
        raise RegistryError(
            "report= was made for another program (its program text differs); "
            "pass the report of this program, or report=None."
        )
    name = _class_name(program)
    if report.class_name and report.class_name != name:
        raise RegistryError(
            f"report= is for class {report.class_name}, but the program defines "
            f"{name}; pass the report of this program, or report=None."
        )
    if report.properties.max_turns is None:
        raise RegistryError(
            "report= has no max_turns property; it is not the report of a "
            "completed validation. Pass report=None to validate."
        )
    return program, report


def duplicate_error(class_name: str | None, verdict: Any) -> DuplicateEnvironmentError:
    """The error for a program the memory judged a duplicate."""
    return DuplicateEnvironmentError(
        f"{class_name} was not added: it duplicates {verdict.nearest_id} "
        f"({verdict.reason}). Change the game, or use version_of= to make it a new "
        "version of that environment.",
        verdict.nearest_id,
        verdict,
    )
