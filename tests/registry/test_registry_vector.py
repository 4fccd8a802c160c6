from __future__ import annotations

import pytest
from registry_helpers import REPO

from spadegym.errors import SpadegymError
from spadegym.vector import EnvBatch

IDS = [
    "spade/LockPick-v0",
    "spade/IceMaze-v0",
    "Nim-v0",
    "spade/SequenceStreak-v0",
    "spade/BankSettlement-v0",
    "spade/BudgetAllocation-v0",
]


def test_heterogeneous_batch_resets_deterministically(root):
    with EnvBatch(IDS, num_workers=2, seed=7) as first, EnvBatch(IDS, num_workers=2) as second:
        obs_a, _ = first.reset(seed=7)
        obs_b, _ = second.reset(seed=7)
        assert obs_a == obs_b
        assert obs_a[2].startswith("A new game of Nim")
        obs_c, _ = second.reset(seed=8)
        assert obs_c != obs_a


def test_step_truncates_and_autoresets_same_step(root):
    with EnvBatch(["spade/LockPick-v0"] * 3, num_workers=2, seed=0) as batch:
        batch.reset(seed=0)
        for turn in range(1, 9):
            obs, rewards, terminated, truncated, infos = batch.step(["\\boxed{xyz}"] * 3)
            if turn < 8:
                assert not any(truncated)
        assert truncated == [True] * 3 and terminated == [False] * 3
        for o, info in zip(obs, infos):
            assert o.startswith("A 3-digit lock")  # already the next episode
            assert info["final_info"]["episode_turns"] == 8
            assert info["episode_outcome"] == 0.0
            assert info["final_observation"].startswith("Answer with three digits")


def test_solutions_win_and_report_the_outcome(root):
    ids = ["spade/LockPick-v0", "spade/IceMaze-v0", "spade/SequenceStreak-v0"]
    with EnvBatch(ids, num_workers=2) as batch:
        batch.reset(seed=3)
        solutions = [batch._slots[k].handle.solution() for k in range(3)]
        outcomes = {}
        for turn in range(max(len(s) for s in solutions)):
            # an episode already won has been reset: its slot plays filler from then on
            actions = [
                s[turn] if turn < len(s) and k not in outcomes else "\\boxed{0}"
                for k, s in enumerate(solutions)
            ]
            _, _, terminated, _, infos = batch.step(actions)
            for k, done in enumerate(terminated):
                if done and k not in outcomes:
                    outcomes[k] = infos[k]["episode_outcome"]
        assert outcomes == {0: 1.0, 1: 1.0, 2: 1.0}


def test_programs_and_ids_mix_and_a_failing_program_is_contained(root):
    broken = (REPO / "examples" / "bad" / "raises_on_bad_action.py").read_text()
    lock = root.get("LockPick-v0").source()
    with EnvBatch([broken, lock, "spade/Nim-v0"], num_workers=2, seed=1) as batch:
        batch.reset()
        obs, rewards, terminated, _, infos = batch.step(["no number here", "hi", "\\boxed{1 1}"])
        assert terminated[0] and infos[0]["final_info"]["error"]["kind"] == "exception"
        assert rewards[0] == 0.0 and not terminated[1]
        obs, *_ = batch.step(["\\boxed{1}", "hi", "\\boxed{1 1}"])  # the reset one plays on
        assert isinstance(obs[0], str)


def test_bad_calls_say_what_to_do(root):
    with pytest.raises(SpadegymError, match="not a registered spadegym environment"):
        EnvBatch(["spade/Nope-v0"])
    with EnvBatch(["spade/LockPick-v0"], autoreset=False) as batch:
        with pytest.raises(SpadegymError, match="call reset"):
            batch.step(["x"])
        batch.reset(seed=0)
        with pytest.raises(SpadegymError, match="one reply per environment"):
            batch.step(["x", "y"])
