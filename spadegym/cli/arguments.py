"""Argument types shared by the commands: values are checked when they are parsed.

Each is an ``argparse`` ``type=``; a bad value ends the command with a usage error (exit 2)
that names the value and the fix.
"""

from __future__ import annotations

import argparse

from spadegym import contract
from spadegym.contract import SKILLS

__all__ = ["difficulties", "difficulty", "seed", "skill"]


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def skill(value: str) -> str:
    """A skill tag: the six SPADE skills are spelled exactly (a near miss is refused).

    Skill tags are free text, so other names pass; but ``optimization`` or
    ``logical deduction`` would match nothing, so they get the right spelling instead.
    """
    if value in SKILLS:
        return value
    near = [s for s in SKILLS if _key(s) == _key(value)]
    if near:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not how the skill is spelled; did you mean {near[0]}? "
            f"(skills match exactly: {', '.join(SKILLS)})"
        )
    if not value.strip():
        raise argparse.ArgumentTypeError("the skill is empty; name one, e.g. Optimization.")
    return value


def difficulty(value: str) -> int:
    """A difficulty, an int in 1..5."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not contract.is_difficulty(number):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a difficulty; difficulties are "
            f"{contract.MIN_DIFFICULTY}..{contract.MAX_DIFFICULTY}."
        )
    return number


def difficulties(value: str) -> tuple[int, ...]:
    """One difficulty or a comma-separated list of them (``2,3,4``)."""
    parts = [part for part in value.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a difficulty or a comma-separated list of them (1..5)."
        )
    try:
        return tuple(difficulty(part.strip()) for part in parts)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a difficulty or a comma-separated list of them; difficulties "
            "are 1..5."
        ) from None


def seed(value: str) -> int:
    """A seed, an int >= 0 (the one rule of every reset: ``spadegym.env.check_seed``)."""
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a seed; a seed is an int >= 0.")
    return number
