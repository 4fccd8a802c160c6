"""One name, one meaning: no public class name is defined in two modules of the packages, and
no module file name means two things.

Two classes called ``Episode`` (a solver's played episode, and validation's scripted one) made
every reader ask which one a signature meant. The walk reads the modules with ``ast``, without
importing anything; private names (``_Node``) are each module's own business and left out.
The classes renamed to end the clashes keep their old names for one release, with a warning.

Module files are held to the same rule: a file name used in two packages names the same kind of
thing in each (``config.py`` is each package's settings), and the few that do are listed below
with what they mean, so a new clash (a second ``report.py`` that is not the report) fails here.
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


SHARED_FILE_NAMES = {
    "base.py": "the backend protocol of its package (llm: chat backends; engines: the trainer's)",
    "config.py": "the package's settings (sandbox, validation)",
    "errors.py": "the package's errors (spadegym's root and kinds; the registry's own kinds)",
    "generate.py": "designer.generate, and cli/generate.py: the command line of that function",
    "interface.py": "the package's protocol: what the rest of spadegym asks of it",
    "static.py": "static checks, read without running the program (policy, validation)",
    "store.py": "the package's main store (the memory's folder, the registry's root)",
}
"""File names used in more than one package, each with the one thing it means in every one."""

FILE_NAME_EXEMPT = {"__init__.py", "__main__.py"}
"""Each package's own entry files: not names that carry a meaning."""

MOVED_MODULES = {"spadegym/text_memory.py", "spadegym/vector_ray.py"}
"""One-release shims at old module paths (they re-export the new module, with a warning)."""


def file_names() -> dict[str, list[str]]:
    """Every module file name of the packages, with the files of that name."""
    where: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if path.name not in FILE_NAME_EXEMPT and relative not in MOVED_MODULES:
                where.setdefault(path.name, []).append(relative)
    return where


def test_the_moved_modules_are_shims_that_name_their_new_path():
    for relative in MOVED_MODULES:
        source = (ROOT / relative).read_text(encoding="utf-8")
        assert "FutureWarning" in source and " moved to spadegym." in source, relative


def test_a_module_file_name_in_two_packages_is_one_of_the_shared_ones():
    where = file_names()
    assert len(where) > 100  # the walk found the packages
    shared = {name for name, files in where.items() if len(files) > 1}
    assert shared - SHARED_FILE_NAMES.keys() == set(), (
        "each module file name means one thing: rename the new one, or add it to "
        f"SHARED_FILE_NAMES with what it means in every package: "
        f"{ {n: where[n] for n in sorted(shared - SHARED_FILE_NAMES.keys())} }"
    )
    assert SHARED_FILE_NAMES.keys() - shared == set(), "drop names no longer shared"


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
