"""Chance floors: the best shortcut chosen on some seeds and scored on others."""

from __future__ import annotations

import pytest

from spadegym.sandbox import SandboxPool
from spadegym.validation.shortcuts import BOXED_TEMPLATE, shortcut_family
from spadegym_train.floors import floor_measurer, measure_floors
from spadegym_train.library import describe, read_library


@pytest.fixture(scope="module")
def pool():
    sandbox = SandboxPool(2)
    sandbox.start()
    yield sandbox
    sandbox.close()


def _envs(*names):
    return [(e.env_id, e.source) for e in read_library(None) if e.env_id in names]


def test_a_three_way_choice_with_a_second_try_has_a_floor_near_one_half(pool):
    seeds = list(range(40))
    floors = measure_floors(_envs("NumberPick-v0"), seeds, seeds, pool, difficulty=1)
    floor = floors["NumberPick-v0"]
    # A random pick: 1/3 first time, then half of the rest at half the score: 0.5.
    assert 0.3 < floor.mean < 0.7
    assert floor.mean == floor.chosen_mean and len(floor.outcomes) == 40
    assert floor.shortcut in {s.name for s in shortcut_family(BOXED_TEMPLATE)}


def test_the_chosen_shortcut_is_scored_on_the_other_seeds(pool):
    floors = measure_floors(
        _envs("SumChoice-v0"), list(range(20)), list(range(100, 130)), pool, difficulty=1
    )
    floor = floors["SumChoice-v0"]
    assert len(floor.outcomes) == 30
    again = measure_floors(
        _envs("SumChoice-v0"), list(range(100, 130)), list(range(100, 130)), pool, difficulty=1
    )["SumChoice-v0"]
    # The best on the scoring seeds themselves is never below the honest estimate.
    assert again.mean >= floor.mean


def test_no_seeds_is_an_error(pool):
    with pytest.raises(ValueError, match="at least one seed"):
        measure_floors(_envs("NumberPick-v0"), [], [1], pool)


def test_the_measurer_reads_a_difficulty(pool):
    library = [e for e in read_library(None) if e.env_id == "NumberPick-v0"]
    measure = floor_measurer(describe(pool, library), pool, lambda key: range(30))
    # Difficulty 5 lists seven numbers: a random pick wins less often than among three.
    assert measure("NumberPick-v0", 5) < measure("NumberPick-v0", 1)
