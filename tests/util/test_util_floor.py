"""spadegym.util is the lowest floor: its modules import no other spadegym package."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

UTIL = Path(__file__).resolve().parents[2] / "spadegym" / "util"
ALLOWED = {"spadegym.errors"}  # jsonl raises ConfigError


def spadegym_imports(path: Path) -> set[str]:
    """Every spadegym module a file names in an import, lazy ones inside functions included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] == "spadegym"}


def test_the_walk_sees_lazy_imports(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("def f():\n    from spadegym.registry import Registry\nimport os\n")
    assert spadegym_imports(path) == {"spadegym.registry"}


@pytest.mark.parametrize("path", sorted(UTIL.glob("*.py")), ids=lambda p: p.name)
def test_util_imports_nothing_above_it(path):
    above = {
        name
        for name in spadegym_imports(path)
        if name not in ALLOWED and not name.startswith("spadegym.util")
    }
    assert not above, f"{path.name} imports {sorted(above)}: util is the lowest floor"


@pytest.mark.parametrize("name", ["jsonl", "leftovers", "quiet", "compat"])
def test_the_helpers_moved_into_util_without_an_old_name(name):
    # Never documented for users, so they moved with no shim at the old path.
    # (A file check, not an import: an editable install of another checkout can still
    # serve the old name.)
    importlib.import_module(f"spadegym.util.{name}")
    assert not (UTIL.parent / f"{name}.py").exists()
