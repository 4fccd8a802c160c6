"""Validation cost: wall time per example program, and programs per second with 2 workers.

Prints JSON lines: one {"bench": "validate_one", "file", "seconds", "ok"} per example (the
median of ``--rounds`` validations), then
{"bench": "validate_throughput", "workers": 2, "programs": N, "programs_per_s": ...}, then
the median per valid program through a ``Validator`` whose workers were started while it was
idle (the trainer's case: a pause between bursts), against ``validate``'s own start.
Targets: a typical valid program in at most 0.1 s with every check of issue 13 (issue 2 asked
for 1 s); at least 2 programs/s with 2 workers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from spadegym.validation import Validator, validate, validate_many

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="copies of the set for throughput")
    parser.add_argument(
        "--rounds", type=int, default=3, help="validations per file; each file's median counts"
    )
    args = parser.parse_args()
    files = sorted((ROOT / "examples" / "good").glob("*.py")) + sorted(
        (ROOT / "examples" / "bad").glob("*.py")
    )
    texts = [f.read_text() for f in files]
    validate(texts[0])  # warm imports (hypothesis, gymnasium checker)
    valid_times = []
    for path, text in zip(files, texts):
        rounds = []
        for _ in range(max(1, args.rounds)):
            started = time.perf_counter()
            report = validate(text)
            rounds.append(time.perf_counter() - started)
        seconds = statistics.median(rounds)
        if report.ok:
            valid_times.append(seconds)
        print(
            json.dumps(
                {
                    "bench": "validate_one",
                    "file": str(path.relative_to(ROOT)),
                    "seconds": round(seconds, 3),
                    "ok": report.ok,
                    "slowest_check": max(report.checks, key=lambda c: c.seconds).name,
                }
            )
        )
    print(
        json.dumps(
            {
                "bench": "validate_valid_median",
                "seconds": round(statistics.median(valid_times), 3),
                "target_seconds": 0.1,
            }
        )
    )
    batch = texts * args.repeat
    started = time.perf_counter()
    validate_many(batch, workers=args.workers)
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {
                "bench": "validate_throughput",
                "workers": args.workers,
                "programs": len(batch),
                "programs_per_s": round(len(batch) / elapsed, 2),
                "target_programs_per_s": 2.0,
            }
        )
    )

    valid = [text for text in texts if validate(text).ok]
    with Validator(workers=1) as validator:
        warm_times = []
        for text in valid:
            time.sleep(0.3)  # idle: the supply starts the next worker meanwhile
            started = time.perf_counter()
            validator.validate(text)
            warm_times.append(time.perf_counter() - started)
    print(
        json.dumps(
            {
                "bench": "validator_started_ahead_median",
                "seconds": round(statistics.median(warm_times), 3),
                "validate_median_seconds": round(statistics.median(valid_times), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
