from __future__ import annotations

import pytest
from devset import decide, first_observation, precision_recall, programs, signals

from spadegym.memory import DedupConfig, EnvironmentMemory

SOURCES = programs()
BASES = ["lock", "nim", "maze", "wordle", "countdown", "hanoi", "knapsack", "sequence"]
SIBLINGS = [
    "safe_dial",
    "stone_scale",
    "maze_count",
    "anagram",
    "sum_quiz",
    "pancakes",
    "coins",
    "odd_one",
]
FIXED_COPIES = [
    f"{b}_{v}"
    for b in ("lock", "wordle", "maze", "countdown")
    for v in ("renamed", "reformatted", "reworded", "combo")
]
# Of the hand-written rewrites only wordle's is caught: lock_rewrite (cosine 0.81) and
# hanoi_rewrite (0.59) sit in the range of the library's look-alike different games (up to
# 0.77), and the tuned rule keeps a margin from those.
FIXED_COPIES += ["wordle_rewrite"]


@pytest.fixture(scope="module")
def bases_memory(tmp_path_factory, minilm):
    memory = EnvironmentMemory(tmp_path_factory.mktemp("dedup") / "m", minilm)
    memory.add_many([(b, SOURCES[b], first_observation(SOURCES[b])) for b in BASES])
    yield memory
    memory.close()


@pytest.mark.parametrize("name", FIXED_COPIES)
def test_copies_are_not_novel(bases_memory, name):
    novelty = bases_memory.check_novelty(
        SOURCES[name], first_observation=first_observation(SOURCES[name])
    )
    assert not novelty.novel, novelty
    assert novelty.nearest_id == name.split("_")[0]


@pytest.mark.parametrize("name", SIBLINGS)
def test_same_topic_different_games_are_novel(bases_memory, name):
    novelty = bases_memory.check_novelty(
        SOURCES[name], first_observation=first_observation(SOURCES[name])
    )
    assert novelty.novel, novelty
    assert novelty.reason.startswith("new: nearest is")


def test_near_finds_a_grounding_topic(bases_memory):
    hits = bases_memory.near("The Tower of Hanoi puzzle: discs stacked on three rods.", 2)
    assert hits[0].env_id == "hanoi"


def test_default_thresholds_meet_the_targets_on_the_development_set(minilm):
    found = signals(minilm)
    precision, recall = precision_recall(found, DedupConfig())
    assert precision >= 0.95 and recall >= 0.9
    assert all(decide(s, DedupConfig()) for s in found if s.same and s.kind != "rewrite")
