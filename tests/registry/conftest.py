"""Fixtures for the registry tests: validated example programs and roots built from them.

Every test builds its own roots from ``examples/good`` (never the shipped library, which is
being written) and sees only its own ids in Gymnasium's registry.
"""

from __future__ import annotations

import pytest
from gymnasium.envs.registration import registry as gym_registry
from registry_helpers import EXAMPLES

from spadegym.registry import Registry
from spadegym.validation import validate_many


@pytest.fixture(scope="session")
def programs() -> dict[str, tuple[str, object]]:
    """Each good example's stem -> (program, passing report), validated once per session."""
    texts = [path.read_text(encoding="utf-8") for path in EXAMPLES]
    reports = validate_many(texts, workers=2)
    for path, report in zip(EXAMPLES, reports):
        assert report.ok, f"{path.name}: {report.feedback()}"
    return {path.stem: (text, report) for path, text, report in zip(EXAMPLES, texts, reports)}


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
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


@pytest.fixture
def root(tmp_path, programs) -> Registry:
    """A registry holding every good example."""
    registry = Registry(tmp_path / "root")
    for program, report in programs.values():
        registry.add(program, report)
    return registry
