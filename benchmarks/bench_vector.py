"""Gymnasium's vector API over spadegym: the pooled ``make_vec`` against ``EnvBatch``, sync, async.

Prints one JSON line per way of stepping ``--envs`` instances of one environment:
  {"bench": "vector", "mode": "envbatch" | "make_vec" | "make_vec_next_step" | "sync" | "async",
   "steps_per_s": ...}
``make_vec`` (the default, spadegym's ``vector_entry_point``) should step as fast as
``EnvBatch`` does, since it is one; ``make_vec_next_step`` is it with
``autoreset_mode="next_step"`` (a step that only hands out held resets needs no exchange, so it
may count faster); ``sync`` and ``async`` give every instance its own worker.
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium

import spadegym

ENV_ID = "spade/TankerRoute-v0"
REPLY = "\\boxed{wait}"


def rate(step, envs: int, rounds: int) -> float:
    step()  # warm up
    started = time.perf_counter()
    for _ in range(rounds):
        step()
    return round(envs * rounds / (time.perf_counter() - started), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2, help="workers of the pooled modes")
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    actions = [REPLY] * args.envs

    with spadegym.EnvBatch([ENV_ID] * args.envs, num_workers=args.workers, seed=0) as batch:
        batch.reset(seed=0)
        steps = rate(lambda: batch.step(actions), args.envs, args.rounds)
    print(json.dumps({"bench": "vector", "mode": "envbatch", "steps_per_s": steps}), flush=True)
    for mode, kwargs in (
        ("make_vec", {"num_workers": args.workers}),
        ("make_vec_next_step", {"num_workers": args.workers, "autoreset_mode": "next_step"}),
        ("sync", {"vectorization_mode": "sync"}),
        ("async", {"vectorization_mode": "async"}),
    ):
        envs = gymnasium.make_vec(ENV_ID, num_envs=args.envs, **kwargs)
        try:
            envs.reset(seed=0)
            steps = rate(lambda envs=envs: envs.step(actions), args.envs, args.rounds)
        finally:
            envs.close()
        print(json.dumps({"bench": "vector", "mode": mode, "steps_per_s": steps}), flush=True)


if __name__ == "__main__":
    main()
