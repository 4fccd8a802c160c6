"""Shared fixtures: small programs, and a Gymnasium registry private to each test.

In CI, a security-layer test that skips while its layer is active here fails (``layer_skips``).

The whole session runs with ``SPADEGYM_HOME`` in a temporary folder (set here, before any test
module imports spadegym), so no test writes into the real home, and every test gets back the
``spade/`` registrations it started with, so none leaks its ids into the next.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from gymnasium.envs.registration import registry as gym_registry
from layer_skips import (  # noqa: F401  (the hooks: CI skips of security layers fail)
    pytest_collection_modifyitems,
    pytest_runtest_makereport,
)
from sample_programs import LOCK_PICK

_HOME = tempfile.mkdtemp(prefix="spadegym-tests-home-")
os.environ["SPADEGYM_HOME"] = _HOME


def pytest_unconfigure(config):
    shutil.rmtree(_HOME, ignore_errors=True)


def _restoring_spade_ids():
    saved = {k: v for k, v in gym_registry.items() if k.startswith("spade/")}
    yield
    for key in [k for k in gym_registry if k.startswith("spade/")]:
        del gym_registry[key]
    gym_registry.update(saved)


# Tests register their own roots. Each test gets back the spade/ ids it started with, and each
# module those it started with: a module-scoped fixture that registers (a registry shared by a
# module's tests) runs before any function fixture saves, so only the module's own snapshot,
# taken first, removes what it registered.
_own_gym_registrations = pytest.fixture(autouse=True)(_restoring_spade_ids)
_own_gym_registrations_per_module = pytest.fixture(autouse=True, scope="module")(
    _restoring_spade_ids
)


@pytest.fixture
def lock_pick() -> str:
    return LOCK_PICK


@pytest.fixture
def isolated_spadegym(tmp_path_factory, monkeypatch):
    """No shipped library, a private home and cache, and only this test's spade/ ids."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    monkeypatch.setenv("SPADEGYM_HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.delenv("SPADEGYM_REGISTRY_PATH", raising=False)
    saved = {k: v for k, v in gym_registry.items() if k.startswith("spade/")}
    for key in saved:
        del gym_registry[key]
    yield home
    for key in [k for k in gym_registry if k.startswith("spade/")]:
        del gym_registry[key]
    gym_registry.update(saved)
