"""Helpers shared by the registry tests (a plain module: conftest.py is not importable)."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

from spadegym.validation import ValidationReport

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples" / "good").glob("*.py"))


def variant(program: str, report: ValidationReport, k: int) -> tuple[str, ValidationReport]:
    """A different program with the same class (a reworded docstring) and a report for it."""
    text = program.replace('"""', f'"""Variant {k}: ', 1)
    return text, dataclasses.replace(report, program=None)


def child_env(root: Path, home: Path) -> dict[str, str]:
    """The environment of a subprocess that should see only ``root``."""
    env = dict(os.environ)
    env.update(
        SPADEGYM_SHIPPED_REGISTRY="",
        SPADEGYM_HOME=str(home),
        SPADEGYM_REGISTRY_PATH=str(root),
        XDG_CACHE_HOME=str(home / "cache"),
        PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]),
    )
    return env
