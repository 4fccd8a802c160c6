"""Fixtures of the trainer tests: the tiny preset in a temporary workspace, seeded."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "data" / "corpus.jsonl"


@pytest.fixture(autouse=True)
def _seeded():
    import torch

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


@pytest.fixture
def tiny(tmp_path):
    """``tiny(settings, **top)`` -> the tiny-cpu config in ``tmp_path``.

    ``settings`` maps dotted keys (``{"ppo.epochs": 1}``); top-level fields may come as keywords.
    """
    from spadegym_train.config import load_config

    def make(settings=None, **top):
        values = {
            "workspace": str(tmp_path / "run"),
            "design.corpus": str(CORPUS),
            "design.scripted": str(ROOT / "examples" / "good" / "*.py"),
            "logging.console": False,
            "logging.tensorboard": False,
        }
        values.update(settings or {})
        values.update(top)
        return load_config(preset="tiny-cpu", overrides=values)

    return make
