"""spadegym.dataset: single-turn items in reasoning-gym's shape, scored in the sandbox."""

from __future__ import annotations

import pytest

import spadegym
from spadegym.errors import ConfigError, SpadegymError
from spadegym.integrations.dataset import score_answer


def test_items_have_reasoning_gym_shape_and_their_answers_score_one(spade_ids):
    with spadegym.dataset([spade_ids["clock"]], size=6, seed=3) as data:
        assert len(data) == 6
        items = list(data)
        assert all(set(item) == {"question", "answer", "metadata"} for item in items)
        assert "clock face" in items[0]["question"]
        meta = items[0]["metadata"]
        assert meta["source_dataset"] == "spadegym" and meta["source_index"] == 0
        assert meta["env_id"] == "spade/ClockShift-v0"
        assert len({item["metadata"]["seed"] for item in items}) == 6
        for item in items:
            assert data.score_answer(item["answer"], item) == 1.0
            assert data.score_answer("I think it is " + item["answer"], item) == 1.0
            assert data.score_answer("\\boxed{-1}", item) == 0.0
            assert data.score_answer(None, item) == 0.0
        # The module-level function replays from the item alone.
        assert score_answer(items[1]["answer"], items[1]) == 1.0


def test_the_same_seed_gives_the_same_items_and_another_seed_others(spade_ids):
    ids = [spade_ids["clock"]]
    with spadegym.dataset(ids, size=4, seed=0) as a, spadegym.dataset(ids, 4, 0) as b:
        assert list(a) == list(b)
    with spadegym.dataset(ids, size=4, seed=1) as c:
        assert [i["question"] for i in c] != [i["question"] for i in a]


def test_difficulty_and_hint_reach_the_instances(spade_ids):
    with spadegym.dataset([spade_ids["clock"]], 2, 0, difficulty=5, hint=True) as data:
        item = data[1]
        assert item["metadata"]["difficulty"] == 5
        assert "\n\nHINT: Add the shifts up first" in item["question"]
        assert data.score_answer(item["answer"], item) == 1.0
        assert data[-1] == item
        with pytest.raises(IndexError, match="index 2 is out of range for a dataset of 2 items"):
            data[2]


def test_multi_turn_and_two_player_environments_are_refused(spade_ids):
    with pytest.raises(SpadegymError) as err:
        spadegym.dataset([spade_ids["clock"], spade_ids["lock"]], size=4)
    assert str(err.value).startswith(
        "spade/LockPick-v0 is not a single-turn environment: a first reply that is no answer "
        "(the empty reply) does not end the episode."
    )
    with pytest.raises(SpadegymError, match="spade/Nim-v0 is a two-player game"):
        spadegym.dataset([spade_ids["nim"]])


def test_bad_arguments_are_refused(spade_ids):
    with pytest.raises(SpadegymError, match="'spade/Clock-v0' is not a registered spadegym"):
        spadegym.dataset(["spade/Clock-v0"])
    with pytest.raises(ConfigError, match="size=0: a dataset holds at least 1 item"):
        spadegym.dataset([spade_ids["clock"]], size=0)
    with pytest.raises(ConfigError, match="difficulty=9: difficulties are ints in 1..5"):
        spadegym.dataset([spade_ids["clock"]], difficulty=9)


def test_a_foreign_or_stale_entry_is_refused(spade_ids):
    with spadegym.dataset([spade_ids["clock"]], 1) as data:
        item = data[0]
        with pytest.raises(SpadegymError, match="score_answer takes an item of a spadegym"):
            data.score_answer("x", {"question": "q", "answer": "a", "metadata": {}})
        stale = {**item, "metadata": {**item["metadata"], "sha256": "0" * 64}}
        with pytest.raises(SpadegymError, match="is not the program this item was made from"):
            data.score_answer(item["answer"], stale)
