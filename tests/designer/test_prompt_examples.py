from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from spadegym.designer.prompt_examples import EXAMPLE_CODE_CHARS, draw_context
from spadegym.memory import EnvironmentMemory, HashingEmbedder

LIBRARY = Path(__file__).resolve().parent.parent.parent / "registry"


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """Library environments with win rates spread over [0, 1]: 12 of one skill, a few others."""
    memory = EnvironmentMemory(tmp_path_factory.mktemp("memory"), HashingEmbedder())
    folders = sorted(p for p in LIBRARY.iterdir() if (p / "env.py").is_file())
    by_skill: dict[str, list[Path]] = {}
    for folder in folders:
        skill = json.loads((folder / "manifest.json").read_text())["skill"]
        by_skill.setdefault(skill, []).append(folder)
    chosen = by_skill["Logical_Deduction"][:8] + by_skill["Optimization"][:4]
    sources = {}
    for k, folder in enumerate(chosen):
        skill = "Logical_Deduction" if k < 8 else "Optimization"
        sources[folder.name] = (folder / "env.py").read_text()
        memory.add(folder.name, sources[folder.name], skill=skill)
        # Win rates 0.0, 0.125, ... so some fall outside [0.15, 0.85]; regret grows with k.
        wins = k % 9
        memory.record_plays(
            folder.name,
            plain=[1.0] * wins + [0.0] * (8 - wins),
            hint=[1.0] * min(8, wins + 1 + k % 3) + [0.0] * (8 - min(8, wins + 1 + k % 3)),
        )
    memory.sources = sources
    yield memory
    memory.close()


def test_examples_come_from_the_best_of_the_skill_in_the_band_with_their_code(memory):
    band = (0.15, 0.85)
    eligible = {s.env_id for s in memory.frontier(k=10, band=band, skill="Logical_Deduction")}
    seen = set()
    for seed in range(20):
        context = draw_context(
            memory,
            "Logical_Deduction",
            "a document",
            random.Random(seed),
            memory.sources.get,
            band=band,
        )
        assert len(context.examples) == 2
        for example in context.examples:
            assert example.env_id in eligible and example.skill == "Logical_Deduction"
            assert band[0] <= example.win_rate <= band[1]
            assert example.code == memory.sources[example.env_id][:EXAMPLE_CODE_CHARS]
            seen.add(example.env_id)
        negative = context.negative
        assert negative is not None and negative.code is None
        assert (negative.why == "too easy" and negative.win_rate > 0.9) or (
            negative.why == "too hard" and negative.win_rate < 0.1
        )
        assert context.shown["examples"] == [e.env_id for e in context.examples]
    assert len(seen) > 2  # drawn at random, not always the top two


def test_the_draw_repeats_with_its_seed(memory):
    def draw(seed):
        return draw_context(
            memory, "Logical_Deduction", "doc", random.Random(seed), memory.sources.get
        ).shown

    assert draw(7) == draw(7)
    assert any(draw(7) != draw(s) for s in range(8, 20))


def test_no_memory_no_context():
    context = draw_context(None, "Optimization", "doc", random.Random(0), lambda _: None)
    assert context.examples == [] and context.negative is None and context.nearby == []
