"""The plan of a design round: skills per block, retries, difficulties."""

from __future__ import annotations

import random

import pytest

from spadegym.designer import Candidate
from spadegym.designer.slots import pick_difficulty, retry_requests, round_requests

SKILLS = ["logic", "math", "words"]


def _cand(index: int, skill: str, attempt: int = 1, **fields) -> Candidate:
    return Candidate(index, skill, "puzzle", 3, "doc", "corpus", attempt=attempt, **fields)


def test_a_round_rotates_skills_per_block_and_prompts_share_a_skill():
    requests = round_requests(SKILLS, 2, prompts=2, per_prompt=2, block=0)
    assert requests == [(0, "logic"), (1, "logic"), (2, "math"), (3, "math")]
    assert [s for _, s in round_requests(SKILLS, 2, 2, 1, block=1)] == ["words", "logic"]


def test_retries_take_failed_model_slots_with_attempts_left():
    requests = round_requests(SKILLS, 2, prompts=2, per_prompt=2, block=0)
    cands = [_cand(i, s) for i, s in requests]
    cands[1].status = "accepted"
    cands.append(_cand(9, "x", scripted=True))  # recorded: never retried
    assert [i for i, _ in retry_requests(cands, 3)] == [0, 2, 3]
    cands.append(_cand(0, "logic", attempt=3))
    assert [i for i, _ in retry_requests(cands, 3)] == [2, 3]  # slot 0 used its 3 attempts


@pytest.mark.parametrize(
    ("setting", "expected"), [(3, [3, 3, 3]), ([1, 4], [1, 4, 1]), ("random", None)]
)
def test_pick_difficulty(setting, expected):
    rng = random.Random(0)
    levels = [pick_difficulty(setting, rng, slot) for slot in range(3)]
    if expected is None:
        assert all(1 <= d <= 5 for d in levels)
        again = random.Random(0)
        assert levels == [pick_difficulty(setting, again, slot) for slot in range(3)]
    else:
        assert levels == expected
