"""Pipeline overhead of ``generate`` per candidate, the model excluded, and its throughput.

Replays the recorded designer replies of tests/data/replays (valid, broken and repaired,
duplicates, hostile, prose only, truncated), so every cost but the model's is real: prompt
building, extraction, sandboxed validation, repair turns, hint checks, novelty against a
memory (hashing embedder), registration and the run log. Prints one JSON line:
{"bench": "generate_overhead", "seconds_per_candidate": ..., "candidates_per_s": ...}.
Target: at most 1.5 s per candidate on 2 cores at concurrency 8.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPLAY = ROOT / "tests" / "data" / "replays" / "designer.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="times to replay the recorded set (each round is a fresh run)",
    )
    args = parser.parse_args()
    os.environ.setdefault("SPADEGYM_SHIPPED_REGISTRY", "")
    from spadegym.designer import generate
    from spadegym.llm import ReplayChat
    from spadegym.memory import EnvironmentMemory, HashingEmbedder
    from spadegym.registry import Registry

    designs = sum(
        json.loads(line).get("purpose", "design") == "design"
        for line in REPLAY.read_text().splitlines()
    )
    totals = {"candidates": 0, "seconds": 0.0, "llm_seconds": 0.0, "validate_seconds": 0.0}
    counts: dict[str, int] = {}
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            registry = Registry(Path(tmp) / "registry")
            memory = EnvironmentMemory(Path(tmp) / "memory", HashingEmbedder())
            started = time.perf_counter()
            report = generate(
                designs,
                ReplayChat(REPLAY),
                ["A grounding document."],
                registry=registry,
                memory=memory,
                concurrency=args.concurrency,
                progress=False,
                log=Path(tmp) / "run.jsonl",
            )
            totals["seconds"] += time.perf_counter() - started
            totals["candidates"] += len(report.candidates)
            totals["llm_seconds"] += report.timings["llm_seconds"]
            totals["validate_seconds"] += report.timings["validate_seconds"]
            for status, n in report.counts.items():
                counts[status] = counts.get(status, 0) + n
    per = totals["seconds"] / totals["candidates"]
    print(
        json.dumps(
            {
                "bench": "generate_overhead",
                "concurrency": args.concurrency,
                "cpus": os.cpu_count(),
                "candidates": totals["candidates"],
                "seconds_per_candidate": round(per, 3),
                "candidates_per_s": round(1 / per, 3),
                "llm_seconds": round(totals["llm_seconds"], 3),
                "validate_seconds_summed": round(totals["validate_seconds"], 3),
                "counts": counts,
                "target_seconds_per_candidate": 1.5,
                "meets_target": per <= 1.5,
            }
        )
    )


if __name__ == "__main__":
    main()
