"""``spadegym.vector``'s face: what it exports, and the old module paths it replaced."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_the_package_exports_what_the_old_module_did():
    import spadegym
    from spadegym.vector import EnvBatch, resolve_program
    from spadegym.vector.batch import EnvBatch as defined

    assert EnvBatch is defined is spadegym.EnvBatch
    assert resolve_program("a\nprogram") == ("<program>", "a\nprogram")


def test_the_old_ray_path_still_imports_with_a_warning_naming_the_new_one(monkeypatch):
    from spadegym.vector import ray as moved

    # A module warns once, when first imported: drop any earlier import of the old name.
    monkeypatch.delitem(sys.modules, "spadegym.vector_ray", raising=False)
    with pytest.warns(FutureWarning, match=r"spadegym\.vector_ray moved to spadegym\.vector\.ray"):
        old = importlib.import_module("spadegym.vector_ray")
    assert old.RayEnvBatch is moved.RayEnvBatch
    assert old.RaySandboxPool is moved.RaySandboxPool
    assert old.RemoteEnvHandle is moved.RemoteEnvHandle


def test_the_old_text_memory_path_still_imports_with_a_warning_naming_the_new_one(monkeypatch):
    from spadegym.vector import text_memory as moved

    monkeypatch.delitem(sys.modules, "spadegym.text_memory", raising=False)
    with pytest.warns(
        FutureWarning, match=r"spadegym\.text_memory moved to spadegym\.vector\.text_memory"
    ):
        old = importlib.import_module("spadegym.text_memory")
    assert old.SharedTexts is moved.SharedTexts
    assert old.register is moved.register


@pytest.mark.parametrize("old", ["spadegym.vector_env", "spadegym.autoreset", "spadegym.executors"])
def test_the_internal_old_paths_are_gone(old):
    # These were never documented for users, so they moved without a shim.
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
