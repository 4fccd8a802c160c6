"""Metrics: one JSON line per iteration, TensorBoard events, W&B when asked, a console line.

Names carry the prefixes of STYLE.md: ``designer/``, ``solver/``, ``validate/``, ``loss/``, and
``time/`` for where an iteration's seconds went.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

PREFIXES = ("designer/", "solver/", "validate/", "loss/", "time/", "curriculum/")


class MetricsLogger:
    """Writes each iteration's metrics to ``metrics.jsonl`` and the enabled sinks.

    Args:
        workspace: the run folder.
        config: the run's ``TrainConfig`` (``tensorboard``, ``wandb``, ``console``).
    """

    def __init__(self, workspace: str | Path, config: TrainConfig):
        self.path = Path(workspace) / "metrics.jsonl"
        self.console = config.logging.console
        self.tensorboard = None
        self.wandb = None
        if config.logging.tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.tensorboard = SummaryWriter(str(Path(workspace) / "tb"))
            except ImportError:
                print(
                    "tensorboard is not installed; metrics go to metrics.jsonl only.",
                    file=sys.stderr,
                )
        if config.logging.wandb:
            try:
                import wandb
            except ImportError:
                print("wandb=True but wandb is not installed; pip install wandb.", file=sys.stderr)
            else:
                from spadegym_train.config import to_dict

                self.wandb = wandb.init(
                    project=config.logging.wandb_project, config=to_dict(config), dir=str(workspace)
                )

    def log(self, iteration: int, metrics: dict[str, float]) -> None:
        """Record one iteration's metrics (non-finite values are written as null)."""
        for name in metrics:
            if not name.startswith(PREFIXES):
                raise ValueError(f"metric {name!r} lacks one of the prefixes {PREFIXES}.")
        clean = {k: (float(v) if math.isfinite(float(v)) else None) for k, v in metrics.items()}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"iteration": iteration, **clean}, sort_keys=True) + "\n")
        if self.tensorboard is not None:
            for name, value in clean.items():
                if value is not None:
                    self.tensorboard.add_scalar(name, value, iteration)
            self.tensorboard.flush()
        if self.wandb is not None:
            self.wandb.log(clean, step=iteration)
        if self.console:
            print(summary_line(iteration, metrics), flush=True)

    def truncate(self, iterations: int) -> None:
        """Drop lines of iterations at or past ``iterations`` (written after the checkpoint)."""
        truncate_jsonl(self.path, iterations)

    def close(self) -> None:
        """Flush and close the sinks."""
        if self.tensorboard is not None:
            self.tensorboard.close()
        if self.wandb is not None:
            self.wandb.finish()


def truncate_jsonl(path: Path, iterations: int) -> None:
    """Drop a run log's lines of iterations at or past ``iterations``.

    A resumed run redoes those iterations; a half-written last line is dropped too.
    """
    if not path.exists():
        return
    kept = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            if json.loads(line)["iteration"] < iterations:
                kept.append(line)
        except (ValueError, KeyError, TypeError):
            continue
    path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")


class Stopwatch:
    """Seconds per step of one iteration: ``with watch("update"): ...`` or ``watch.add``."""

    ENV_SIDE = ("validation", "episodes_env", "eval_env")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        """Time the block as part of ``step``."""
        clock = time.perf_counter()
        try:
            yield
        finally:
            self.add(step, time.perf_counter() - clock)

    def add(self, step: str, seconds: float) -> None:
        """Count ``seconds`` towards ``step``."""
        self.seconds[step] = self.seconds.get(step, 0.0) + seconds

    def metrics(self) -> dict[str, float]:
        """``time/<step>``, the iteration's total, and the environment side's share of it."""
        total = time.perf_counter() - self.started
        env_side = sum(self.seconds.get(k, 0.0) for k in self.ENV_SIDE)
        return {
            **{f"time/{k}": v for k, v in self.seconds.items()},
            "time/iteration": total,
            "time/env_share": env_side / total,
        }


def summary_line(iteration: int, metrics: dict[str, float]) -> str:
    """The one-line console summary of an iteration."""

    def get(name: str, fmt: str = ".3f") -> str:
        value = metrics.get(name)
        return "-" if value is None else format(value, fmt)

    return (
        f"it {iteration:4d} | envs {get('solver/envs', '.0f')} "
        f"win {get('solver/win_rate')} hint {get('solver/hint_win_rate')} "
        f"| designer R {get('designer/reward')} valid {get('validate/accept_rate', '.2f')} "
        f"| loss {get('loss/policy', '.4f')} kl {get('loss/kl', '.4f')} "
        f"| {get('time/iteration', '.1f')}s (env {get('time/env_share', '.0%')})"
    )


def read_metrics(workspace: str | Path) -> list[dict[str, Any]]:
    """Every line of a run's ``metrics.jsonl``."""
    path = Path(workspace) / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
