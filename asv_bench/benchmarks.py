"""The headline figures of ``benchmarks/bench_*.py`` as asv ``track_`` benchmarks.

Each class measures once per run in ``setup_cache`` with the scripts' own functions (imported
from ``benchmarks/``, never copied) and reports its figures as costs, where lower is better,
so that ``asv continuous main HEAD`` flags whatever got slower. The workloads (programs,
replies) come from this checkout; the spadegym measured is the commit asv installed.
Ratios against the machine's limit (``Step.track_isolated_over_pipe``) travel between
machines; microseconds do not.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

# The commit asv installed, imported before any script can put this checkout first on
# sys.path (bench_memory does, for the tests' helpers): later imports find these modules.
import spadegym  # noqa: E402

_ENV = os.environ.get("ASV_ENV_DIR")
if os.environ.get("ASV_ENV_TYPE") == "virtualenv" and _ENV:
    if not Path(spadegym.__file__).resolve().is_relative_to(Path(_ENV).resolve()):
        raise ImportError(
            f"asv would measure {spadegym.__file__}, not the commit it installed in {_ENV}; "
            "run asv from the repository root without PYTHONPATH set."
        )

SCRIPTS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(SCRIPTS))


class Step:
    """bench_step: the isolated round trip, against the pipe's; a worker's start; a batch."""

    timeout = 600

    def setup_cache(self) -> dict:
        import bench_step

        return {
            **bench_step.round_trip(5000),
            "worker_start_ms": bench_step.worker_start(5)["median_ms"],
            "batch_steps_per_s": bench_step.batch_throughput(64, 2, 100)["steps_per_s"],
        }

    def track_isolated_over_pipe(self, figures: dict) -> float:
        return figures["isolated_over_pipe"]

    track_isolated_over_pipe.unit = "pipe round trips"

    def track_isolated_us(self, figures: dict) -> float:
        return figures["isolated_us"]

    track_isolated_us.unit = "us"

    def track_pipe_round_trip_us(self, figures: dict) -> float:
        return figures["pipe_round_trip_us"]

    track_pipe_round_trip_us.unit = "us"

    def track_worker_start_ms(self, figures: dict) -> float:
        return figures["worker_start_ms"]

    track_worker_start_ms.unit = "ms"

    def track_batch_us_per_step(self, figures: dict) -> float:
        return 1e6 / figures["batch_steps_per_s"]

    track_batch_us_per_step.unit = "us"


class Validate:
    """bench_validate: the valid examples' median, with and without the shortcut probes."""

    timeout = 600

    def setup_cache(self) -> dict:
        import bench_validate

        _, medians = bench_validate.per_program(rounds=1)
        return medians

    def track_valid_median_seconds(self, medians: dict) -> float:
        return medians["full"]

    track_valid_median_seconds.unit = "s"

    def track_valid_median_without_shortcut_probes_seconds(self, medians: dict) -> float:
        # NaN where the build has no shortcut_seeds field: asv records it as failed.
        value = medians["without_shortcut_probes"]
        return float("nan") if value is None else value

    track_valid_median_without_shortcut_probes_seconds.unit = "s"


class Registry:
    """bench_registry: the heterogeneous batch, against the same-program batch in one run."""

    timeout = 600

    def setup_cache(self) -> dict:
        import bench_registry

        os.environ["SPADEGYM_SHIPPED_REGISTRY"] = ""
        with tempfile.TemporaryDirectory(prefix="asv-registry-") as name:
            return bench_registry.bench_batch(Path(name), steps=100, num_envs=64, workers=2)

    def track_heterogeneous_us_per_env_step(self, figures: dict) -> float:
        return 1e6 / figures["env_steps_per_second"]

    track_heterogeneous_us_per_env_step.unit = "us"

    def track_heterogeneous_slowdown(self, figures: dict) -> float:
        """The same-program batch's rate over the heterogeneous one's (target <= 2)."""
        return 1 / figures["heterogeneous_over_same_program"]

    track_heterogeneous_slowdown.unit = "x"


class Memory:
    """bench_memory: a query's median latency in the memory's index of 100,000 vectors."""

    timeout = 600

    def setup_cache(self) -> dict:
        import bench_memory

        figures: list[dict] = []
        bench_memory.bench_latency([100_000], 200, out=lambda **f: figures.append(f))
        return figures[0]

    def track_query_median_ms_100k(self, figure: dict) -> float:
        return figure["median_ms"]

    track_query_median_ms_100k.unit = "ms"

    def track_query_recall_miss_100k(self, figure: dict) -> float:
        """1 - recall@10 (lower is better, as asv reads every figure)."""
        return round(1 - figure["recall_at_10"], 4)

    track_query_recall_miss_100k.unit = "fraction"


class Train:
    """bench_train: the tiny preset's iteration, and the environment side's share of it."""

    timeout = 900

    def setup_cache(self) -> dict:
        import bench_train

        return bench_train.run(2, [])

    def track_iteration_seconds(self, figures: dict) -> float:
        return figures["iteration_seconds"] / figures["iterations"]

    track_iteration_seconds.unit = "s"

    def track_env_share(self, figures: dict) -> float:
        return figures["env_share"]

    track_env_share.unit = "fraction"
