"""spadegym as a reasoning-gym dataset: registered once reasoning-gym is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

reasoning_gym = pytest.importorskip("reasoning_gym")

from spadegym.errors import SpadegymError  # noqa: E402
from spadegym.integrations import reasoning_gym_plugin  # noqa: E402


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout + done.stderr


def test_import_spadegym_registers_without_importing_reasoning_gym_or_printing():
    out = run(
        "import sys, spadegym\n"
        "print('before', 'reasoning_gym' in sys.modules)\n"
        "import reasoning_gym\n"
        "print('after', 'spadegym' in reasoning_gym.factory.DATASETS)\n"
    )
    assert out == "before False\nafter True\n"


def test_reasoning_gym_imported_first_is_registered_at_import_spadegym():
    out = run(
        "import reasoning_gym, spadegym\nprint('spadegym' in reasoning_gym.factory.DATASETS)\n"
    )
    assert out == "True\n"


def test_create_dataset_and_the_score_lookup(spade_ids):
    data = reasoning_gym.create_dataset("spadegym", ids=[spade_ids["clock"]], size=3, seed=2)
    try:
        assert len(data) == 3
        item = data[1]
        assert item["metadata"]["source_dataset"] == "spadegym"
        assert data.score_answer(item["answer"], item) == 1.0
        score = reasoning_gym.get_score_answer_fn("spadegym")
        assert score(item["answer"], item) == 1.0
        assert score("\\boxed{-1}", item) == 0.0
    finally:
        data.data.close()
    empty = reasoning_gym.create_dataset("spadegym")
    with pytest.raises(SpadegymError, match="made without ids, so it holds no items"):
        empty[0]


def test_a_composite_dataset_mixes_spadegym_with_a_reasoning_gym_task(spade_ids):
    from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec

    config = CompositeConfig(
        size=12,
        seed=4,
        datasets=[
            DatasetSpec("spadegym", 1.0, {"ids": [spade_ids["clock"]]}),
            DatasetSpec("basic_arithmetic", 1.0, {}),
        ],
    )
    composite = CompositeDataset(config)
    try:
        items = list(composite)
        sources = {item["metadata"]["source_dataset"] for item in items}
        assert sources == {"spadegym", "basic_arithmetic"}
        for item in items:
            assert composite.score_answer(item["answer"], item) == 1.0
    finally:
        composite.datasets["spadegym"].data.close()


def test_registration_is_idempotent_and_leaves_a_foreign_spadegym_alone(monkeypatch):
    assert reasoning_gym_plugin.register() is True
    assert reasoning_gym_plugin.register() is True
    from reasoning_gym import factory

    monkeypatch.setitem(factory.DATASETS, "spadegym", (object, object))
    assert reasoning_gym_plugin.register() is False
