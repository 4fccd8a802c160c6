"""Validation throughput of the local executor and of Ray on the same machine.

Prints JSON lines: {"bench": "executor_throughput", "executor": ..., "programs_per_s": ...} for
each, then {"bench": "executor_overhead", "ray_over_local": ratio} (target: Ray's throughput
within 1.5x of the local executor's, i.e. ratio >= 0.67). Needs `pip install 'spadegym[ray]'`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from spadegym.validation import validate_many
from spadegym.validation.executors import LocalExecutor, RayExecutor

ROOT = Path(__file__).resolve().parent.parent


def throughput(executor, texts: list[str]) -> float:
    validate_many(texts[:2], executor=executor)  # warm up (imports in the actors)
    started = time.perf_counter()
    reports = validate_many(texts, executor=executor)
    elapsed = time.perf_counter() - started
    assert all(r.ok for r in reports), [r.feedback() for r in reports if not r.ok]
    return len(texts) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=4)
    args = parser.parse_args()
    texts = [p.read_text() for p in sorted((ROOT / "examples" / "good").glob("*.py"))]
    texts *= args.repeat
    local = throughput(LocalExecutor(args.workers), texts)
    print(
        json.dumps(
            {
                "bench": "executor_throughput",
                "executor": "local",
                "workers": args.workers,
                "programs": len(texts),
                "programs_per_s": round(local, 2),
            }
        )
    )
    ray_executor = RayExecutor(
        num_actors=args.workers, init_kwargs={"num_cpus": args.workers, "include_dashboard": False}
    )
    try:
        remote = throughput(ray_executor, texts)
    finally:
        ray_executor.close()
    print(
        json.dumps(
            {
                "bench": "executor_throughput",
                "executor": "ray",
                "workers": args.workers,
                "programs": len(texts),
                "programs_per_s": round(remote, 2),
            }
        )
    )
    print(
        json.dumps(
            {
                "bench": "executor_overhead",
                "ray_over_local": round(remote / local, 2),
                "target_min": 0.67,
            }
        )
    )


if __name__ == "__main__":
    main()
