"""Random legal moves for an arbitrary two-player game, drawn from what the observation offers."""

from __future__ import annotations

import random

from spadegym.validation.random_play import candidate_moves, shape


def test_shape_groups_moves_that_look_alike():
    assert shape("a1") == shape("b12") == "a9"
    assert shape("bid 3 4") == shape("bid 1 1") == "a 9 9"
    assert shape("Check") != shape("check")


def test_listed_moves_that_look_like_the_examples_come_first():
    observation = (
        "You are Player 0. Your card: Q. Pot: 2.\n"
        "Legal moves: check, bet\n"
        "Answer with \\boxed{check} or \\boxed{bet}. Turn 1 of 30."
    )
    doc = "Answer with \\boxed{check}, \\boxed{bet}, \\boxed{call} or \\boxed{fold}."
    moves = candidate_moves(observation, doc, random.Random(0))
    assert set(moves[:4]) == {f"\\boxed{{{m}}}" for m in ("check", "bet", "call", "fold")}
    assert "\\boxed{Q}" in moves[4:]


def test_templates_are_filled_with_the_numbers_on_show():
    observation = "Heaps: 3, 5 and 7. Take stones with \\boxed{take H N}."
    moves = candidate_moves(observation, "", random.Random(1))
    filled = [m for m in moves if m.startswith("\\boxed{take ") and m != "\\boxed{take H N}"]
    assert filled and all(set(m[12:-1].split()) <= {"3", "5", "7"} for m in filled)


def test_the_same_rng_gives_the_same_moves():
    observation = "Legal moves: a1, b2, c3. Answer with one cell, e.g. \\boxed{a1}."
    first = candidate_moves(observation, "", random.Random(5))
    assert first == candidate_moves(observation, "", random.Random(5))
    assert set(first[:3]) == {"\\boxed{a1}", "\\boxed{b2}", "\\boxed{c3}"}
