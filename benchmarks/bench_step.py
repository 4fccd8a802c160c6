"""Step cost: the isolated round trip against the same program run plainly in-process.

Prints JSON lines:
  {"bench": "step_round_trip", "isolated_us": median, "in_process_policy_us": ..., "plain_us": ...,
   "ratio_isolated_to_plain": ...}
  {"bench": "worker_start", "median_ms": ..., "min_ms": ...}  (a worker isolated and ready)
  {"bench": "batch_throughput", "instances": 64, "workers": W, "steps_per_s": ...}
Target (issues 2 and 13): isolated median <= 100 us on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from spadegym.sandbox import EnvHandle, SandboxConfig, SandboxPool, SandboxWorker, make_worker

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = (ROOT / "examples" / "good" / "lock_pick.py").read_text()
WRONG = "\\boxed{abc}"  # a reply that keeps the episode going


def median_us(step, n: int) -> float:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        step()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def plain_step():
    namespace: dict = {}
    exec(compile(PROGRAM, "<plain>", "exec"), namespace)
    env = next(v for k, v in namespace.items() if k.endswith("Env") and isinstance(v, type))()
    env.reset(0)
    return lambda: env.step(WRONG)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--instances", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--starts", type=int, default=15)
    args = parser.parse_args()

    plain = median_us(plain_step(), args.steps)
    in_process = EnvHandle(make_worker(SandboxConfig(isolation="none")), PROGRAM)
    in_process.reset(0)
    policy = median_us(lambda: in_process.step(WRONG), args.steps)
    worker = SandboxWorker()
    isolated_handle = EnvHandle(worker, PROGRAM)
    isolated_handle.reset(0)
    median_us(lambda: isolated_handle.step(WRONG), 500)  # warm up
    isolated = median_us(lambda: isolated_handle.step(WRONG), args.steps)
    worker.close()
    print(
        json.dumps(
            {
                "bench": "step_round_trip",
                "steps": args.steps,
                "isolated_us": round(isolated, 1),
                "in_process_policy_us": round(policy, 1),
                "plain_us": round(plain, 2),
                "ratio_isolated_to_plain": round(isolated / plain, 1),
                "target_isolated_us": 100,
            }
        )
    )

    starts = []
    for _ in range(args.starts):
        worker = SandboxWorker()
        started = time.perf_counter()
        worker.start()
        starts.append(time.perf_counter() - started)
        worker.kill()
    print(
        json.dumps(
            {
                "bench": "worker_start",
                "starts": args.starts,
                "median_ms": round(statistics.median(starts) * 1000, 1),
                "min_ms": round(min(starts) * 1000, 1),
            }
        )
    )

    with SandboxPool(size=args.workers) as pool:
        handles = [pool.open(PROGRAM) for _ in range(args.instances)]
        for seed, handle in enumerate(handles):
            handle.reset(seed)
        batch = [(handle, WRONG) for handle in handles]
        pool.step_batch(batch)
        started = time.perf_counter()
        for _ in range(args.rounds):
            results = pool.step_batch(batch)
        elapsed = time.perf_counter() - started
        assert all(not isinstance(r, Exception) for r in results)
    print(
        json.dumps(
            {
                "bench": "batch_throughput",
                "instances": args.instances,
                "workers": args.workers,
                "rounds": args.rounds,
                "steps_per_s": round(args.instances * args.rounds / elapsed),
            }
        )
    )


if __name__ == "__main__":
    main()
