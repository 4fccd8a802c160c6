"""``benchmarks/bench_learning.py``'s verdict: floors, the best rival, curriculum and transfer."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from spadegym_train.floors import Floor

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_learning.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_learning", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


CONFIG = SimpleNamespace(
    seed=1,
    model=SimpleNamespace(name="smollm2"),
    iterations=12,
    ppo=SimpleNamespace(learning_rate=1e-3),
)
BEFORE = {"A-v0": [0.0] * 8, "B-v0": [0.0] * 8}


def _floors(a, b):
    return {
        "A-v0": Floor("A-v0", 1, "a random listed option", a, (a,) * 8),
        "B-v0": Floor("B-v0", 1, "the first number of the observation", b, (b,) * 8),
    }


def test_the_floor_is_the_rival_when_it_beats_the_control(bench):
    finals = {
        "trained": {"A-v0": [1.0] * 8, "B-v0": [1.0, 0.0] * 4},
        "control": {"A-v0": [0.0] * 8, "B-v0": [0.0] * 8},
    }
    result = bench.report(CONFIG, ["trained", "control"], BEFORE, finals, _floors(0.5, 0.5), {})
    assert result["win_rate_floor"] == 0.5 and result["per_env_floor"] == {"A-v0": 0.5, "B-v0": 0.5}
    assert result["best_rival"] == "floor"
    assert result["difference_vs_best_rival"] == 0.25
    assert result["above_floor_everywhere"] is True
    assert result["per_env_trained_adjusted"] == {"A-v0": 1.0, "B-v0": 0.0}
    assert result["difference"] == 0.75 and result["stderr_paired"] > 0


def test_below_the_floor_on_one_environment_misses_the_target(bench):
    finals = {
        "trained": {"A-v0": [1.0] * 8, "B-v0": [0.0] * 8},
        "control": {"A-v0": [0.0] * 8, "B-v0": [0.0] * 8},
    }
    result = bench.report(CONFIG, ["trained", "control"], BEFORE, finals, _floors(0.1, 0.1), {})
    assert result["above_floor_everywhere"] is False
    assert result["target_met"] is False


def test_curriculum_and_transfer_differences(bench):
    finals = {
        "trained": {"A-v0": [0.5] * 8, "B-v0": [0.5] * 8},
        "control": {"A-v0": [0.0] * 8, "B-v0": [0.0] * 8},
        "curriculum": {"A-v0": [1.0] * 8, "B-v0": [0.5] * 8},
    }
    moved = {
        arm: {"NextInLine-v0": [value, 0.0], "reasoning_gym/chain_sum": [value, value]}
        for arm, value in (("base", 0.0), ("trained", 1.0), ("control", 0.0), ("curriculum", 1.0))
    }
    result = bench.report(CONFIG, list(finals), BEFORE, finals, _floors(0.2, 0.2), moved)
    assert result["curriculum_minus_fixed"] == 0.25
    assert result["transfer"]["reasoning_gym/chain_sum"]["trained"] == [1.0, 0.0]
    assert result["transfer_trained_minus_control"]["NextInLine-v0"][0] == 0.5


def test_the_figure_draws_every_arm_and_the_floor(bench, tmp_path):
    pytest.importorskip("matplotlib")
    import json

    finals = {
        "trained": {"A-v0": [1.0] * 8, "B-v0": [0.5] * 8},
        "curriculum": {"A-v0": [0.5] * 8, "B-v0": [0.5] * 8},
    }
    result = bench.report(CONFIG, list(finals), BEFORE, finals, _floors(0.5, 0.5), {})
    workspaces = {}
    for arm in finals:
        workspace = tmp_path / arm
        workspace.mkdir()
        lines = [
            {"iteration": k, "solver/win_rate": 0.1 * k, "solver/eval_win_rate": 0.2}
            for k in range(3)
        ]
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (workspace / "metrics.jsonl").write_text(text, encoding="utf-8")
        workspaces[arm] = workspace
    bench.plot_learning(tmp_path / "curve.png", workspaces, result)
    assert (tmp_path / "curve.png").stat().st_size > 10_000


def test_reasoning_gym_replies_are_scored_by_the_task_itself(bench):
    pytest.importorskip("reasoning_gym")
    import re

    from spadegym.play import Reply

    class Solver:
        """Works each sum out and boxes it, except for the first question."""

        def respond(self, requests):
            replies = []
            for k, messages in enumerate(requests):
                a, sign, b = re.search(r"(-?\d+) ([+-]) (\d+) =", messages[-1]["content"]).groups()
                value = int(a) + int(b) if sign == "+" else int(a) - int(b)
                replies.append(Reply(f"So \\boxed{{{value + (k == 0)}}}"))
            return replies

    outcomes = bench.reasoning_gym_outcomes(SimpleNamespace(eval_solver=Solver()), 6, seed=1)
    assert outcomes == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("arms", [["trained"], ["control"], ["curriculum", "control"]])
def test_the_figure_draws_only_the_arms_that_ran(bench, tmp_path, arms):
    """``--arms trained`` alone once failed at the figure, asking for the control's rate."""
    finals = {arm: {"A-v0": [1.0] * 8, "B-v0": [0.5] * 8} for arm in arms}
    result = bench.report(CONFIG, arms, BEFORE, finals, _floors(0.5, 0.5), {})
    runs = bench.arm_runs(tmp_path, arms)
    assert list(runs) == arms and ("control" not in runs or runs["control"] is None)
    for workspace in runs.values():
        if workspace is not None:
            workspace.mkdir()
            (workspace / "metrics.jsonl").write_text("", encoding="utf-8")
    bench.plot_learning(tmp_path / "curve.png", runs, result)
    assert (tmp_path / "curve.png").stat().st_size > 10_000


SETTINGS = {
    "seed": 2,
    "model": "smollm2",
    "envs": ["A-v0", "B-v0"],
    "difficulty": 1,
    "eval_plays": 8,
    "transfer_plays": 2,
    "floor_seeds": 96,
    "eval_temperature": 0.1,
    "max_new_tokens": 40,
    "max_turns": 3,
    "history_turns": 1,
}


def _saved(tmp_path, settings=None):
    import dataclasses
    import json

    plays = {
        "before": BEFORE,
        "finals": {},
        "transfer": {"base": {"OddWordOut-v0": [1.0, 0.0]}},
        "floors": {key: dataclasses.asdict(f) for key, f in _floors(0.5, 0.25).items()},
    }
    if settings is not None:
        plays["settings"] = settings
    path = tmp_path / "plays.json"
    path.write_text(json.dumps(plays), encoding="utf-8")
    return path


def test_an_earlier_runs_base_plays_and_floors_are_reused(bench, tmp_path):
    earlier = bench.load_earlier(_saved(tmp_path, SETTINGS), SETTINGS, ["trained"])
    assert earlier.before == BEFORE and earlier.transfer == {"OddWordOut-v0": [1.0, 0.0]}
    floor = earlier.floors["B-v0"]
    assert floor.mean == 0.25 and floor.shortcut.startswith("the first")
    assert earlier.arms == {}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"seed": 1}, "seed=2 (this run: 1)"),
        ({"eval_plays": 72}, "eval_plays=8 (this run: 72)"),
        ({"eval_temperature": 0.5}, "eval_temperature=0.1 (this run: 0.5)"),
    ],
)
def test_base_plays_of_other_settings_are_refused_by_name(bench, tmp_path, change, named):
    with pytest.raises(SystemExit, match=re.escape(named)):
        bench.load_earlier(_saved(tmp_path, SETTINGS), {**SETTINGS, **change}, ["trained"])


def test_an_older_file_is_checked_on_what_it_holds(bench, tmp_path, capsys):
    bench.load_earlier(_saved(tmp_path), SETTINGS, ["trained"])  # no settings: plays counts match
    assert "no settings recorded" in capsys.readouterr().out
    with pytest.raises(SystemExit, match=re.escape("transfer_plays=2 (this run: 16)")):
        bench.load_earlier(_saved(tmp_path), {**SETTINGS, "transfer_plays": 16}, ["trained"])


def test_settings_recorded_before_they_were_checked_are_taken_on_trust(bench, tmp_path, capsys):
    older = {key: SETTINGS[key] for key in list(SETTINGS)[:7]}  # without the generation's
    bench.load_earlier(_saved(tmp_path, older), SETTINGS, ["trained"])
    said = capsys.readouterr().out
    assert "eval_temperature, max_new_tokens, max_turns, history_turns not recorded" in said
    with pytest.raises(SystemExit, match=re.escape("seed=2 (this run: 3)")):
        bench.load_earlier(_saved(tmp_path, older), {**SETTINGS, "seed": 3}, ["trained"])


def test_a_file_that_is_not_a_run_is_named(bench, tmp_path):
    path = tmp_path / "plays.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit, match="not a bench_learning plays.json"):
        bench.load_earlier(path, SETTINGS, ["trained"])


def test_the_arms_not_run_again_come_from_the_earlier_run(bench, tmp_path):
    import json

    path = _saved(tmp_path, SETTINGS)
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["finals"] = {"trained": {"A-v0": [1.0]}, "control": BEFORE, "curriculum": {}}
    saved["transfer"]["trained"] = {"OddWordOut-v0": [1.0, 1.0]}
    path.write_text(json.dumps(saved), encoding="utf-8")
    (tmp_path / "trained").mkdir()
    (tmp_path / "trained" / "metrics.jsonl").write_text("{}\n", encoding="utf-8")
    found = bench.load_earlier(path, SETTINGS, ["curriculum"]).arms
    assert sorted(found) == ["control", "trained"]  # the arm being run is not taken
    assert found["trained"] == (
        {"A-v0": [1.0]},
        {"OddWordOut-v0": [1.0, 1.0]},
        tmp_path / "trained",
    )
    assert found["control"][2] is None  # no workspace beside the file
