"""Batched stepping on Ray (a local cluster started here, ``num_cpus=2``; every test is slow).

The actors see one registry root (through Ray's ``runtime_env``); a second root exists only on
the driver, as on a node without the root.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from gymnasium.envs.registration import registry as gym_registry

from spadegym.errors import SpadegymError
from spadegym.registry import Registry
from spadegym.validation import validate_many
from spadegym.vector import EnvBatch

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::spadegym.registry.ShadowedEnvironmentWarning"),
]

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "examples" / "good"
LOCK = (GOOD / "lock_pick.py").read_text()
NIM = (GOOD / "nim.py").read_text()
MAZE = (GOOD / "ice_maze.py").read_text()
STREAK = (GOOD / "sequence_streak.py").read_text()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Ray with the actors seeing ``shared`` only; ids registered here from both roots."""
    ray = pytest.importorskip("ray")
    base = tmp_path_factory.mktemp("vector_ray")
    saved = {k: v for k, v in gym_registry.items() if k.startswith("spade/")}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPADEGYM_SHIPPED_REGISTRY", "")
        patch.setenv("SPADEGYM_HOME", str(base / "home"))
        patch.delenv("SPADEGYM_REGISTRY_PATH", raising=False)
        for key in saved:
            del gym_registry[key]
        texts = [LOCK, NIM, MAZE, STREAK]
        reports = validate_many(texts, workers=2)
        shared, driver_only = Registry(base / "shared"), Registry(base / "driver_only")
        ids = [shared.add(t, r) for t, r in zip(texts[:3], reports[:3])]
        ids.append(driver_only.add(texts[3], reports[3]))
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={
                "env_vars": {
                    "SPADEGYM_SHIPPED_REGISTRY": "",
                    "SPADEGYM_HOME": str(base / "home"),
                    "SPADEGYM_REGISTRY_PATH": str(base / "shared"),
                }
            },
        )
        try:
            yield ids
        finally:
            ray.shutdown()
            for key in [k for k in gym_registry if k.startswith("spade/")]:
                del gym_registry[key]
            gym_registry.update(saved)


def _batch(envs, **kwargs):
    from spadegym.vector.ray import RayEnvBatch

    return RayEnvBatch(envs, num_actors=2, **kwargs)


def _actor_pid(shard) -> int:
    import ray

    return ray.get(shard.actor.pid.remote())


def test_results_equal_the_local_batch(cluster):
    lock, nim, maze, streak = cluster
    envs = [lock, NIM, maze, streak, lock]
    actions = ["\\boxed{123}", "\\boxed{1 1}", "\\boxed{R}", "\\boxed{5}", "nothing"]
    with _batch(envs, seed=4) as remote, EnvBatch(envs, num_workers=2, seed=4) as local:
        assert remote.ids == local.ids and remote.num_envs == 5
        assert remote.reset(seed=11) == local.reset(seed=11)
        for _ in range(10):  # long enough for several episodes to end and autoreset
            assert remote.step(actions) == local.step(actions)
        assert remote.reset(indices=[1, 3]) == local.reset(indices=[1, 3])
        assert remote.step(actions) == local.step(actions)


def test_programs_come_from_the_node_registry_or_the_object_store(cluster):
    lock, _, maze, streak = cluster
    # Actor 0 gets instances 0 and 2, actor 1 gets 1 and 3 (the least busy first).
    with _batch([lock, streak, maze, NIM]) as batch:
        stats = batch.pool.stats()
    assert stats[0] == {"from_node": 2, "shipped": 0, "instances": 2}
    # The driver-only id and the bare text both travel through the object store.
    assert stats[1] == {"from_node": 0, "shipped": 2, "instances": 2}


def test_actor_killed_mid_episode_reports_lost_envs_and_recovers(cluster):
    lock, nim, maze, _ = cluster
    envs = [lock, nim, maze, NIM]
    with _batch(envs, seed=0) as batch:
        batch.reset(seed=0)
        batch.step(["\\boxed{000}"] * 4)
        dead = batch.pool.workers[0]
        os.kill(_actor_pid(dead), signal.SIGKILL)
        obs, rewards, terminated, truncated, infos = batch.step(["\\boxed{111}"] * 4)
        # Instances 0 and 2 lived on the killed actor: each names its env id.
        for k, env_id in ((0, lock), (2, maze)):
            error = infos[k]["final_info"]["error"]
            assert error["kind"] == "lost" and error["message"].startswith(f"{env_id} was lost")
            assert terminated[k] and rewards[k] == 0.0
            assert infos[k]["episode_outcome"] == 0.0
            assert infos[k]["final_observation"].startswith("The environment failed")
        # Autoreset re-created them on the replacement actor within the same step.
        assert dead.generation == 1
        assert obs[0].startswith("A 3-digit lock") and "error" not in infos[0]
        for k in (1, 3):  # the other actor's instances played on
            assert "error" not in infos[k] and "error" not in infos[k].get("final_info", {})
        _, _, _, _, infos = batch.step(["\\boxed{222}"] * 4)
        assert not any("error" in info or "error" in info.get("final_info", {}) for info in infos)


def test_without_autoreset_lost_envs_wait_for_reset(cluster):
    lock, nim, _, _ = cluster
    with _batch([lock, nim], autoreset=False) as batch:
        batch.reset(seed=2)
        import ray

        ray.kill(batch.pool.workers[1].actor)
        _, _, terminated, _, infos = batch.step(["\\boxed{000}", "\\boxed{1 1}"])
        assert terminated[1] and infos[1]["error"]["kind"] == "lost"
        assert nim in infos[1]["error"]["message"]
        with pytest.raises(SpadegymError, match="no episode running"):
            batch.step(["\\boxed{000}", "\\boxed{1 1}"])
        obs, infos = batch.reset(indices=[1], seed=2)
        assert obs[0].startswith("A new game of Nim") and "error" not in infos[0]


def test_trainer_plays_episodes_on_ray_and_loses_only_the_dead_actors(cluster):
    pytest.importorskip("torch")
    from spadegym.play import EpisodeSpec, Reply, play_episodes
    from spadegym.sandbox import SandboxPool
    from spadegym.vector.ray import RaySandboxPool
    from spadegym_train.solver import open_episode_pool

    class Scripted:
        def __init__(self, on_round=None):
            self.round, self.on_round = 0, on_round

        def respond(self, requests):
            self.round += 1
            if self.on_round is not None:
                self.on_round(self.round)
            text = "\\boxed{" + "123"[self.round % 3] * 3 + "}"
            return [Reply(text) for _ in requests]

    specs = [EpisodeSpec(f"lock{k}", LOCK, seed=k, max_turns=6) for k in range(4)]

    def play(pool, on_round=None):
        return play_episodes(specs, pool, Scripted(on_round), history_turns=1)

    with SandboxPool(2) as local:
        expected = play(local)
    remote = open_episode_pool("ray", 1)
    try:
        assert isinstance(remote, RaySandboxPool)
        assert remote.describe(LOCK, "lock").max_turns == 8
        episodes = play(remote)
        assert [(e.outcome, [t.reply.text for t in e.turns]) for e in episodes] == [
            (e.outcome, [t.reply.text for t in e.turns]) for e in expected
        ]

        def kill(round_: int) -> None:
            if round_ == 3:
                os.kill(_actor_pid(remote.workers[0]), signal.SIGKILL)

        episodes = play(remote, kill)
    finally:
        remote.close()
    lost = [e for e in episodes if e.error_kind == "lost"]
    assert [e.spec.env_key for e in lost] == ["lock0", "lock2"]  # the killed actor's share
    assert all(e.error.startswith(f"{e.spec.env_key} was lost") and e.steps == 3 for e in lost)
    assert [e.error for e in episodes if e.spec.env_key in ("lock1", "lock3")] == [None, None]
