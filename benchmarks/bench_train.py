"""Where the tiny preset's iteration time goes: designer, validation, episodes, update.

Runs the tiny-cpu preset (spade mode, scripted designer) in a temporary workspace and prints
one JSON line: seconds per phase summed over the iterations, and the environment side's share
(validation plus sandbox stepping) of the whole, against the 10% target.

    python benchmarks/bench_train.py [--iterations 2] [key=value ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = ("designer", "validation", "episodes_env", "episodes_model", "update", "eval")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from spadegym_train.config import load_config
    from spadegym_train.loop import train

    with tempfile.TemporaryDirectory() as tmp:
        values = {"workspace": f"{tmp}/run", "iterations": args.iterations, "console": False,
                  "tensorboard": False, "scripted_designer": str(ROOT / "examples/good/*.py"),
                  "corpus": str(ROOT / "tests/train/data/corpus.jsonl")}
        config = load_config(preset="tiny-cpu",
                             overrides=[f"{k}={v}" for k, v in values.items()] + args.overrides)
        started = time.perf_counter()
        history = train(config)
        wall = time.perf_counter() - started
    seconds = {p: round(sum(m.get(f"time/{p}", 0.0) for m in history), 3) for p in PHASES}
    total = sum(m["time/iteration"] for m in history)
    env_side = seconds["validation"] + seconds["episodes_env"]
    print(json.dumps({
        "benchmark": "train_tiny_iteration",
        "iterations": len(history),
        "wall_seconds_with_startup": round(wall, 2),
        "iteration_seconds": round(total, 3),
        "phase_seconds": seconds,
        "env_share": round(env_side / total, 4),
        "episode_stepping_share": round(seconds["episodes_env"] / total, 4),
        "validation_share": round(seconds["validation"] / total, 4),
        "target_env_share": 0.10,
        "steps": int(sum(m["solver/episodes"] * m["solver/turns"] for m in history)),
    }))


if __name__ == "__main__":
    main()
