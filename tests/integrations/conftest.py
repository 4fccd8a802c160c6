"""Fixtures of the integration tests: a private registry of a few validated programs."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = {
    "clock": ROOT / "examples" / "single_turn" / "clock_shift.py",
    "lock": ROOT / "examples" / "good" / "lock_pick.py",
    "nim": ROOT / "examples" / "good" / "nim.py",
}


@pytest.fixture(scope="session")
def validated() -> dict[str, tuple[str, object]]:
    """Each program's key -> (text, passing report), validated once per session."""
    from spadegym.validation import validate_many

    texts = {key: path.read_text(encoding="utf-8") for key, path in PROGRAMS.items()}
    reports = validate_many(list(texts.values()), workers=2)
    for key, report in zip(texts, reports):
        assert report.ok, f"{key}: {report.feedback()}"
    return {key: (text, report) for (key, text), report in zip(texts.items(), reports)}


@pytest.fixture
def spade_ids(isolated_spadegym, tmp_path, validated) -> dict[str, str]:
    """A registry of the programs, registered with Gymnasium; key -> env id."""
    from spadegym.registry import Registry

    registry = Registry(tmp_path / "registry")
    return {key: registry.add(text, report) for key, (text, report) in validated.items()}
