"""The default memory starts with the shipped library, so novelty is judged against it."""

from __future__ import annotations

from pathlib import Path

from spadegym.memory import HashingEmbedder
from spadegym.memory.default import open_memory, seed_library
from spadegym.registry import Registry

ROOT = Path(__file__).resolve().parents[2]
GOOD = sorted((ROOT / "examples" / "good").glob("*.py"))[:3]


def test_new_memory_is_seeded_with_the_shipped_library(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped"
    registry = Registry(shipped)
    ids = [registry.add(path.read_text()) for path in GOOD]
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", str(shipped))
    memory = open_memory(tmp_path / "memory", HashingEmbedder())
    assert sorted(memory.ids()) == sorted(ids)
    verdict = memory.check_novelty(GOOD[0].read_text())
    assert not verdict.novel and verdict.nearest_id == ids[0]
    assert memory.find_copy(GOOD[0].read_text()) == ids[0]
    assert memory.find_copy(GOOD[0].read_text().replace("max_turns", "max_turns ")) == ids[0]
    assert seed_library(memory) == 0  # already there: nothing added twice
    memory.close()
    again = open_memory(tmp_path / "memory")  # reopening keeps what it has
    assert sorted(again.ids()) == sorted(ids)
    again.close()


def test_seeding_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
    memory = open_memory(tmp_path / "memory", HashingEmbedder(), seed=False)
    assert memory.ids() == []
    memory.close()
