"""One name, one meaning: no public class name is defined in two modules of the packages.

Two classes called ``Episode`` (a solver's played episode, and validation's scripted one) made
every reader ask which one a signature meant. The walk reads the modules with ``ast``, without
importing anything; private names (``_Node``) are each module's own business and left out.
The classes renamed to end the clashes keep their old names for one release, with a warning.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("spadegym", "spadegym_train")


def public_classes(tree: ast.Module) -> set[str]:
    """Public classes a module defines at its top level (in module-level ``if``/``try`` too)."""
    found = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            if not node.name.startswith("_"):
                found.add(node.name)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack.extend(ast.iter_child_nodes(node))
    return found


def defined_in() -> dict[str, list[str]]:
    """Every public class name of the packages, with the files that define it."""
    where: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in public_classes(tree):
                where.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    return where


def test_the_walk_sees_classes_in_blocks_and_skips_private_and_nested_ones():
    tree = ast.parse(
        "class A: \n    class Inner: ...\n"
        "if True:\n    class B: ...\n"
        "try:\n    class C: ...\nexcept ImportError:\n    class C: ...\n"
        "class _D: ...\n"
        "def f():\n    class E: ...\n"
    )
    assert public_classes(tree) == {"A", "B", "C"}


def test_no_public_class_name_is_defined_in_two_modules():
    where = defined_in()
    assert len(where) > 100  # the walk found the packages
    clashes = {name: files for name, files in where.items() if len(files) > 1}
    assert clashes == {}, "each public class name means one thing: rename one of each pair"


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("spadegym.validation", "Novelty", "NearestMatch"),
        ("spadegym.designer", "Turn", "DesignTurn"),
        ("spadegym.integrations.trl", "SpadeEnvironment", "RolloutEnvironment"),
    ],
)
def test_a_renamed_class_still_imports_by_its_old_name_with_a_warning(module, old, new):
    imported = importlib.import_module(module)
    with pytest.warns(FutureWarning, match=rf"^{module}\.{old} is renamed {new}; import {new}"):
        value = getattr(imported, old)
    assert value is getattr(imported, new)
    assert old not in imported.__all__
    with pytest.raises(AttributeError, match=rf"module '{module}' has no attribute 'Nothing'"):
        imported.Nothing  # noqa: B018
