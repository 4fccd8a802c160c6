"""Shared fixtures: small programs used across the test packages."""

from __future__ import annotations

import pytest
from sample_programs import LOCK_PICK


@pytest.fixture
def lock_pick() -> str:
    return LOCK_PICK
