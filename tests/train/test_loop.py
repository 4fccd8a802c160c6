from __future__ import annotations

import json
from pathlib import Path

import pytest

from spadegym_train.loop import train
from spadegym_train.metrics import read_metrics


def _stable(metrics):
    """Metrics that must repeat exactly (timings do not)."""
    return {k: v for k, v in metrics.items() if not k.startswith(("time/", "validate/seconds"))}


def test_spade_mode_two_iterations_end_to_end(tiny):
    # A negative reward for failed designs, so the designer's update path runs (SPADE's 0
    # gives the random model's all-failing designs no advantage at all).
    config = tiny({"rewards.invalid_reward": -1.0})
    history = train(config)
    assert len(history) == 2
    first, second = history
    # The random model's own programs fail validation, and each of its 4 slots is written
    # again twice (3 attempts); the 2 recorded ones pass and are played.
    assert first["validate/candidates"] == 4 * 3 + 2 and first["validate/accepted"] == 2
    assert first["validate/fail_extract"] == 12 and first["designer/attempts"] == 12
    assert first["designer/pool_size"] == 2
    # Hint plays at the regeneration only (2 envs x (2 plain + 2 hint)), plain ones after.
    assert first["solver/episodes"] == 8 and second["solver/episodes"] == 4
    assert first["designer/hints_asked"] == 4 and second["designer/hints_asked"] == 0
    # The window closes at iteration 1: invalid programs get their reward, centred per skill;
    # the 2 recorded programs count in the baseline but are not trained on.
    assert second["designer/candidates"] == 12
    assert second["designer/valid_rate"] == 0.0
    assert second["loss/samples"] > 0 and second["loss/designer_tokens"] > 0
    assert "loss/designer_clip_frac" in second and "loss/designer_entropy" in second
    assert any(k.startswith("designer/reward_mean/") for k in second)
    assert "solver/eval_win_rate" in second
    workspace = Path(config.workspace)
    registered = sorted(
        p.name for p in (workspace / "registry").iterdir() if not p.name.startswith(".")
    )
    assert registered == ["BankSettlement-v0", "BudgetAllocation-v0"]
    from spadegym.memory import EnvironmentMemory

    with EnvironmentMemory(workspace / "memory") as memory:
        stats = memory.stats("spade/BankSettlement-v0")  # the memory knows the registry's ids
        assert stats.n_plain == 4 and stats.n_hint == 2  # K=2 plain twice, K=2 hint once
    lines = read_metrics(workspace)
    assert [line["iteration"] for line in lines] == [0, 1]
    assert all(
        k.split("/")[0] in {"designer", "solver", "validate", "loss", "time"}
        for line in lines
        for k in line
        if k != "iteration"
    )


def test_fixed_mode_two_iterations_end_to_end(tiny):
    config = tiny({"pool.size": 6, "play.plays_per_env": 2}, mode="fixed")
    assert config.play.hint_source == "program"  # the library's own hints
    history = train(config)
    assert len(history) == 2
    first, second = history
    # Hint plays (for the library's regret) at the pool's draw only; plain plays after.
    assert first["solver/envs"] == second["solver/envs"] == 6
    assert first["solver/episodes"] == 24 and second["solver/episodes"] == 12
    for metrics in history:
        assert not any(k.startswith(("designer/", "validate/")) for k in metrics)
    assert not (Path(config.workspace) / "memory").exists()
    quiet = train(
        tiny(
            {"pool.size": 6, "play.hint_plays": "never"},
            mode="fixed",
            workspace=config.workspace + "-quiet",
        )
    )
    assert [m["solver/episodes"] for m in quiet] == [12, 12]


def test_resume_reproduces_the_next_iteration(tiny, tmp_path):
    straight = train(tiny({"pool.regen_interval": 2}, workspace=str(tmp_path / "a"), iterations=3))
    train(tiny({"pool.regen_interval": 2}, workspace=str(tmp_path / "b"), iterations=1))
    resumed = train(tiny({"pool.regen_interval": 2}, workspace=str(tmp_path / "b"), iterations=3))
    assert len(resumed) == 2  # iterations 1 and 2 only
    assert _stable(resumed[0]) == _stable(straight[1])
    assert _stable(resumed[1]) == _stable(straight[2])
    lines = read_metrics(tmp_path / "b")
    assert [line["iteration"] for line in lines] == [0, 1, 2]


@pytest.mark.parametrize("async_regeneration", [False, True], ids=["window-end", "async"])
def test_next_window_is_written_ahead_and_resumes_exactly(tiny, tmp_path, async_regeneration):
    # Windows of 2: the second window's candidates are written at iteration 1 (at iteration 0
    # with async regeneration) and validated in the background; a run stopped after
    # iteration 1 holds them in its checkpoint.
    settings = {"pool.regen_interval": 2, "design.async_regeneration": async_regeneration}
    straight = train(tiny(settings, workspace=str(tmp_path / "a"), iterations=4))
    assert straight[2]["validate/candidates"] > 0 and straight[3]["designer/candidates"] > 0
    train(tiny(settings, workspace=str(tmp_path / "b"), iterations=2))
    state = json.loads((tmp_path / "b" / "checkpoints" / "it-000002" / "state.json").read_text())
    assert state["next_candidates"]  # written ahead, not yet validated when it stopped
    resumed = train(tiny(settings, workspace=str(tmp_path / "b"), iterations=4))
    assert [_stable(m) for m in resumed] == [_stable(m) for m in straight[2:]]


def test_a_finished_workspace_is_not_overwritten(tiny):
    from spadegym.errors import ConfigError

    train(tiny(iterations=1))
    with pytest.raises(ConfigError, match="set resume=true"):
        train(tiny(iterations=1, resume=False))
    latest = (Path(tiny().workspace) / "checkpoints" / "latest").read_text().strip()
    assert latest == "it-000001"


def test_a_run_that_fails_to_start_leaves_no_worker_processes(tiny, tmp_path):
    import psutil

    from spadegym.errors import ConfigError

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    # The corpus is read after the validator, the model, the engine and the memory exist.
    with pytest.raises(ConfigError):
        train(tiny({"design.corpus": str(tmp_path / "missing.jsonl")}))
    left = [
        p
        for p in psutil.Process().children(recursive=True)
        if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]
    assert left == []


def test_a_scripted_designer_glob_that_names_nothing_is_refused(tiny, tmp_path):
    from spadegym.errors import ConfigError

    with pytest.raises(ConfigError, match="names no file"):
        train(tiny({"design.scripted": str(tmp_path / "none" / "*.py")}))


def test_the_tiny_preset_finds_the_shipped_examples_from_any_folder(monkeypatch, tmp_path):
    from spadegym_train.config import load_config
    from spadegym_train.design import recorded_replies

    monkeypatch.chdir(tmp_path)
    assert len(recorded_replies(load_config(preset="tiny-cpu").design.scripted)) >= 6


def test_two_player_outcomes_count_as_win_rates(tiny):
    # Nim alone, played by the random model in both seats: the first mover's reply is never a
    # legal move, so every game ends [-1, 1]. The memory, the designer's reward and its
    # metrics see seat 0's win rate (-1 + 1) / 2 = 0, never a "win rate" of -1.
    nim = str(Path(__file__).resolve().parent.parent.parent / "examples" / "good" / "nim.py")
    config = tiny(
        {
            "design.scripted": nim,
            "design.scripted_per_regen": 1,
            "rewards.designer_reward": "regret",
        }
    )
    history = train(config)
    assert history[0]["designer/pool_size"] == 1
    assert history[1]["designer/solver_win_rate"] == 0.0
    from spadegym.memory import EnvironmentMemory

    with EnvironmentMemory(Path(config.workspace) / "memory") as memory:
        (env_id,) = [i for i in memory.ids() if memory.stats(i)]
        stats = memory.stats(env_id)
        assert stats.n_plain == 4 and stats.win_rate == 0.0
        assert memory.too_hard(k=5)[0].env_id == env_id  # filed too hard, at 0, not at -1


def test_episodes_log_takes_environments_in_turn(tiny, tmp_path):
    import json

    config = tiny(
        {
            "pool.size": 3,
            "play.plays_per_env": 2,
            "play.hint_plays": "never",
            "logging.log_episodes": 4,
        },
        mode="fixed",
    )
    train(config)
    lines = [json.loads(x) for x in (Path(config.workspace) / "episodes.jsonl").open()]
    assert [line["iteration"] for line in lines] == [0] * 4 + [1] * 4
    first = [line["env"] for line in lines[:4]]
    assert len(set(first[:3])) == 3 and first[3] == first[0]  # one of each, then round two
    assert all(line["turns"] and "reply" in line["turns"][0] for line in lines)
    off = tiny(
        {"pool.size": 3, "logging.log_episodes": 0}, mode="fixed", workspace=str(tmp_path / "off")
    )
    train(off)
    assert not (tmp_path / "off" / "episodes.jsonl").exists()


def test_hint_plays_are_matched_with_the_plain_plays_of_their_seeds():
    from types import SimpleNamespace

    from spadegym_train.loop import paired_plays

    def play(seed, rate):
        return SimpleNamespace(spec=SimpleNamespace(seed=seed), win_rate=rate)

    plain = [play(1, 0.0), play(2, 1.0), play(3, 0.0)]
    # Seed 2's hint was rejected (dropped, so absent); seed 9 has no plain twin.
    hinted = [play(3, 1.0), play(1, 1.0), play(9, 1.0)]
    assert paired_plays(plain, hinted) == ([1.0, 1.0], [0.0, 0.0])


def test_curriculum_mode_plays_what_its_sampler_draws(tiny, tmp_path):
    envs = ["NumberPick-v0", "SumChoice-v0"]
    values = {
        "mode": "curriculum",
        "pool.env_ids": envs,
        "pool.size": 3,
        "play.plays_per_env": 2,
        "play.hint_plays": "never",
        "curriculum.floor_plays": 4,
        "curriculum.window": 4,
        "curriculum.min_plays": 2,
        "iterations": 2,
    }
    history = train(tiny(values))
    for metrics in history:
        assert metrics["solver/episodes"] == 3 * 2  # equal compute: slots x plays
        for env in envs:
            level = int(metrics[f"curriculum/{env}/difficulty"])
            assert f"curriculum/{env}/d{level}/win_rate" in metrics
            assert 0.0 <= metrics[f"curriculum/{env}/d{level}/floor"] <= 1.0
    # Resumed from the checkpoint, the curriculum continues where it stood.
    resumed = train(tiny({**values, "workspace": str(tmp_path / "r"), "iterations": 1}))
    again = train(tiny({**values, "workspace": str(tmp_path / "r")}))
    assert _stable(again[0]) == _stable(history[1]) and len(resumed) == 1
