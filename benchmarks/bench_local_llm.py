"""Episodes per second of ``spadegym eval`` with a local model: one request at a time vs batched.

Plays a few short shipped puzzles at difficulty 1 with ``spadegym.evaluation.evaluate`` and a
local model (default ``smollm2``, SmolLM2-135M-Instruct), first with ``concurrency=1`` (each
reply its own ``generate`` call), then with ``concurrency=8`` (``TransformersChat`` gathers the
requests in flight into one left-padded ``generate`` call). The model is seeded and each
completion samples from its own generator, so both runs ask for the same replies and play the
same episodes (``same_outcomes`` says whether they did; a rare float-rounding flip between batch
shapes can make them differ). Prints one JSON line: {"bench": "local_llm_eval", ...,
"episodes_per_s": {"1": ..., "8": ...}, "speedup": ...}. About 5 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENVS = ("CounterfeitScale", "SwitchboardMapping", "CurrencyRelay", "GcdArchipelago")
"""Shipped puzzles whose episodes last four or five turns at difficulty 1 whatever the replies
(others give a reply without an answer another turn, up to ten)."""


def main() -> None:
    """Load the model once, evaluate at each concurrency, print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="smollm2", help="a local model spec (default smollm2)")
    parser.add_argument("--episodes", type=int, default=4, help="plays per environment")
    parser.add_argument("--max-new-tokens", type=int, default=48, help="reply length limit")
    parser.add_argument("--concurrency", type=int, default=8, help="the batched run's setting")
    parser.add_argument("--envs", nargs="+", default=list(ENVS), help="environments to play")
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=0,
        help="torch's CPU threads (default: torch's own choice); 1 is far faster on a machine "
        "busy with other work, where threads wait on each other",
    )
    args = parser.parse_args()
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)

    from spadegym.evaluation import evaluate
    from spadegym.llm import llm_from_spec
    from spadegym.registry import shipped_root

    started = time.perf_counter()
    llm = llm_from_spec(args.llm, max_new_tokens=args.max_new_tokens, seed=0)
    load_s = time.perf_counter() - started
    runs = {}
    outcomes = {}
    for concurrency in (1, args.concurrency):
        calls = llm.generate_calls
        report = evaluate(
            llm,
            args.envs,
            episodes=args.episodes,
            hint="none",
            seed=0,
            difficulty=1,
            roots=[shipped_root()],
            concurrency=concurrency,
            progress=False,
        )
        replies = sum(e.turns for e in report.episodes)
        runs[concurrency] = {
            "seconds": round(report.seconds, 1),
            "episodes": len(report.episodes),
            "replies": replies,
            "generate_calls": llm.generate_calls - calls,
            "episodes_per_s": round(len(report.episodes) / report.seconds, 4),
            "replies_per_s": round(replies / report.seconds, 3),
            "win_rate": report.overall()["win_rate_plain"],
            "llm_errors": report.llm_errors,
        }
        outcomes[concurrency] = [(e.env_id, e.seed, e.outcome, e.turns) for e in report.episodes]
        print(f"concurrency {concurrency}: {runs[concurrency]}", file=sys.stderr, flush=True)
    llm.close()
    one, many = runs[1], runs[args.concurrency]
    print(
        json.dumps(
            {
                "bench": "local_llm_eval",
                "model": llm.name,
                "envs": args.envs,
                "difficulty": 1,
                "max_new_tokens": args.max_new_tokens,
                "torch_threads": args.torch_threads or "default",
                "load_seconds": round(load_s, 1),
                "runs": {str(c): r for c, r in runs.items()},
                "episodes_per_s": {str(c): r["episodes_per_s"] for c, r in runs.items()},
                "speedup": round(many["episodes_per_s"] / one["episodes_per_s"], 2),
                "same_outcomes": outcomes[1] == outcomes[args.concurrency],
            }
        )
    )


if __name__ == "__main__":
    main()
