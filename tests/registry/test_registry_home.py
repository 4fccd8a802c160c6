"""use_home: a run's workspace as the spadegym home, the user's own registry out of sight."""

from __future__ import annotations

import os
import warnings

import gymnasium
from sample_programs import LOCK_PICK

from spadegym.registry import Registry, register_roots, use_home, user_root

# The same class name, so the same id, but another game: which one does make() play?
OTHER_LOCK = LOCK_PICK.replace("A 3-digit lock.", "Another lock.")


def first_observation(env_id: str) -> str:
    env = gymnasium.make(env_id)
    try:
        return env.reset(seed=0)[0]
    finally:
        env.close()


def test_the_workspace_replaces_the_users_registry_and_is_restored(tmp_path, isolated_spadegym):
    mine = Registry(user_root()).add(LOCK_PICK)
    register_roots()
    workspace = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ShadowedEnvironmentWarning
        with use_home(workspace) as home:
            assert home == workspace.resolve()
            assert os.environ["SPADEGYM_HOME"] == str(home)
            assert user_root() == home / "registry"
            assert "spade/LockPick-v0" not in gymnasium.registry
            theirs = Registry(user_root()).add(OTHER_LOCK)
            assert theirs == mine == "spade/LockPick-v0"
            assert first_observation(theirs).startswith("Another lock.")
    assert os.environ["SPADEGYM_HOME"] == str(isolated_spadegym)
    assert first_observation(mine).startswith("A 3-digit lock.")


def test_extra_roots_are_left_out_too(tmp_path, isolated_spadegym, monkeypatch):
    extra = Registry(tmp_path / "extra")
    extra.add(LOCK_PICK)
    monkeypatch.setenv("SPADEGYM_REGISTRY_PATH", str(extra.root))
    register_roots()
    with use_home(tmp_path / "run"):
        assert "SPADEGYM_REGISTRY_PATH" not in os.environ
        assert "spade/LockPick-v0" not in gymnasium.registry
    assert os.environ["SPADEGYM_REGISTRY_PATH"] == str(extra.root)
    assert "spade/LockPick-v0" in gymnasium.registry
