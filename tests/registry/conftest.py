"""Fixtures for the registry tests: validated example programs and roots built from them.

Every test builds its own roots from ``examples/good`` (never the shipped library, which is
being written) and sees only its own ids in Gymnasium's registry.
"""

from __future__ import annotations

import pytest
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
def isolated(isolated_spadegym):
    """Every registry test runs with no shipped library and only its own spade/ ids."""
    return isolated_spadegym


@pytest.fixture
def root(tmp_path, programs) -> Registry:
    """A registry holding every good example."""
    registry = Registry(tmp_path / "root")
    for program, report in programs.values():
        registry.add(program, report)
    return registry
