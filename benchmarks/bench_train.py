"""Where the tiny preset's iteration time goes: designer, validation, episodes, update.

Runs the tiny-cpu preset (spade mode, scripted designer) in a temporary workspace and prints
one JSON line: seconds per phase summed over the iterations, and the environment side's share
(validation, deduplication and registration, sandbox stepping in training and evaluation
episodes) of the whole, against the 10% target. ``steady_env_share`` leaves out the first
window, which pays one-off costs (the first programs loaded, the first registry and memory
writes) and, with ``design.async_regeneration=true``, has no earlier window to validate behind.

    python benchmarks/bench_train.py [--iterations 6] [key=value ...]
    python benchmarks/bench_train.py --iterations 6 design.async_regeneration=true
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("designer", "validation", "episodes_env", "episodes_model", "update", "eval", "eval_env")
ENV_PHASES = ("validation", "episodes_env", "eval_env")


def run(iterations: int, overrides: list[str]) -> dict:
    """Train the tiny preset for ``iterations`` in a temporary workspace; the figures."""
    from spadegym_train.config import load_config
    from spadegym_train.loop import train

    with tempfile.TemporaryDirectory() as tmp:
        values = {
            "workspace": f"{tmp}/run",
            "iterations": iterations,
            "logging.console": False,
            "logging.tensorboard": False,
            "design.scripted": str(ROOT / "examples/good/*.py"),
            "design.corpus": str(ROOT / "tests/train/data/corpus.jsonl"),
        }
        config = load_config(
            preset="tiny-cpu", overrides=[f"{k}={v}" for k, v in values.items()] + overrides
        )
        started = time.perf_counter()
        history = train(config)
        wall = time.perf_counter() - started
    seconds = {p: round(sum(m.get(f"time/{p}", 0.0) for m in history), 3) for p in PHASES}
    total = sum(m["time/iteration"] for m in history)
    steady = history[config.pool.regen_interval :]
    return {
        "benchmark": "train_tiny_iteration",
        "iterations": len(history),
        "async_regeneration": config.design.async_regeneration,
        "wall_seconds_with_startup": round(wall, 2),
        "iteration_seconds": round(total, 3),
        "phase_seconds": seconds,
        "env_share": round(env_share(history), 4),
        "steady_env_share": round(env_share(steady), 4) if steady else None,
        "episode_stepping_share": round((seconds["episodes_env"] + seconds["eval_env"]) / total, 4),
        "validation_share": round(seconds["validation"] / total, 4),
        "target_env_share": 0.10,
        "steps": int(sum(m["solver/episodes"] * m["solver/turns"] for m in history)),
        # The recorded programs (examples/good, 2 a window) fill 3 windows; past 6
        # iterations the pools run empty and the figures stop meaning anything.
        "pool_sizes": [int(m["solver/envs"]) for m in history],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # this checkout's spadegym_train
    print(json.dumps(run(args.iterations, args.overrides)))


def env_share(history: list[dict[str, float]]) -> float:
    """The environment side's seconds over all seconds of these iterations."""
    env = sum(m.get(f"time/{p}", 0.0) for m in history for p in ENV_PHASES)
    return env / sum(m["time/iteration"] for m in history)


if __name__ == "__main__":
    main()
