"""Validation cost: wall time per example program, and programs per second with 2 workers.

Prints JSON lines: one {"bench": "validate_one", "file", "seconds", "ok"} per example (the
median of ``--rounds`` validations), then the median over the valid programs with the whole
battery and, in the same run and interleaved with it, without the shortcut-solver probes of
validation round three (``ValidationConfig(shortcut_seeds=0)``; on a build without that field
the line says the arm is unavailable), then
{"bench": "validate_throughput", "workers": 2, "programs": N, "programs_per_s": ...}, then
the median per valid program through a ``Validator`` whose workers were started while it was
idle (the trainer's case: a pause between bursts), against ``validate``'s own start.
Targets: a typical valid program in at most 0.12 s with every check (issue 28; issue 2 asked
for 1 s); at least 2 programs/s with 2 workers.

    python benchmarks/bench_validate.py [--rounds 3] [--repeat 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from pathlib import Path

from spadegym.validation import ValidationConfig, Validator, validate, validate_many

ROOT = Path(__file__).resolve().parent.parent


def examples(limit: int | None = None) -> list[Path]:
    """The example programs, good then bad; the first ``limit`` of each kind if given."""
    good = sorted((ROOT / "examples" / "good").glob("*.py"))[:limit]
    return good + sorted((ROOT / "examples" / "bad").glob("*.py"))[:limit]


TARGET_SECONDS = 0.12


def without_shortcut_probes(config: ValidationConfig) -> ValidationConfig | None:
    """``config`` with the shortcut-solver probes off, or None on a build that lacks them."""
    names = {field.name for field in dataclasses.fields(config)}
    if "shortcut_seeds" not in names:
        return None
    return dataclasses.replace(config, shortcut_seeds=0)


def per_program(rounds: int, files: list[Path] | None = None) -> tuple[list[dict], dict]:
    """Each example's median seconds (full battery), and the valid programs' medians per arm.

    The arms alternate program by program and round by round, so that a noisy machine slows
    both alike.
    """
    full = ValidationConfig()
    arms = {"full": full, "without_shortcut_probes": without_shortcut_probes(full)}
    files = files or examples()
    texts = [path.read_text() for path in files]
    validate(texts[0])  # warm imports (hypothesis, gymnasium checker)
    lines, valid = [], {name: [] for name in arms}
    for path, text in zip(files, texts):
        times: dict[str, list[float]] = {name: [] for name in arms}
        for _ in range(max(1, rounds)):
            for name, config in arms.items():
                if config is None:
                    continue
                started = time.perf_counter()
                report = validate(text, config)
                times[name].append(time.perf_counter() - started)
                if name == "full":
                    full_report = report
        seconds = statistics.median(times["full"])
        if full_report.ok:
            for name in arms:
                if times[name]:
                    valid[name].append(statistics.median(times[name]))
        lines.append(
            {
                "bench": "validate_one",
                "file": str(path.relative_to(ROOT)),
                "seconds": round(seconds, 3),
                "ok": full_report.ok,
                "slowest_check": max(full_report.checks, key=lambda c: c.seconds).name,
            }
        )
    medians = {
        name: round(statistics.median(values), 3) if values else None
        for name, values in valid.items()
    }
    return lines, medians


def valid_median_line(medians: dict) -> dict:
    """The summary line: the valid programs' median with and without the new probes."""
    line = {
        "bench": "validate_valid_median",
        "seconds": medians["full"],
        "without_shortcut_probes_seconds": medians["without_shortcut_probes"],
        "target_seconds": TARGET_SECONDS,
    }
    if medians["without_shortcut_probes"] is None:
        line["without_shortcut_probes"] = (
            "unavailable on this build: ValidationConfig has no shortcut_seeds field"
        )
    else:
        line["shortcut_probes_cost_seconds"] = round(
            medians["full"] - medians["without_shortcut_probes"], 3
        )
    return line


def throughput(workers: int, repeat: int, files: list[Path]) -> dict:
    """Programs per second through ``validate_many`` with ``workers`` workers."""
    batch = [path.read_text() for path in files] * repeat
    started = time.perf_counter()
    validate_many(batch, workers=workers)
    elapsed = time.perf_counter() - started
    return {
        "bench": "validate_throughput",
        "workers": workers,
        "programs": len(batch),
        "programs_per_s": round(len(batch) / elapsed, 2),
        "target_programs_per_s": 2.0,
    }


def started_ahead(valid_median: float, files: list[Path]) -> dict:
    """The median per valid program when the worker was started while the validator idled."""
    valid = [text for text in (p.read_text() for p in files) if validate(text).ok]
    with Validator(workers=1) as validator:
        warm_times = []
        for text in valid:
            time.sleep(0.3)  # idle: the supply starts the next worker meanwhile
            started = time.perf_counter()
            validator.validate(text)
            warm_times.append(time.perf_counter() - started)
    return {
        "bench": "validator_started_ahead_median",
        "seconds": round(statistics.median(warm_times), 3),
        "validate_median_seconds": valid_median,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="copies of the set for throughput")
    parser.add_argument(
        "--rounds", type=int, default=3, help="validations per file; each file's median counts"
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="the first N good and N bad examples only"
    )
    args = parser.parse_args()
    files = examples(args.limit)
    lines, medians = per_program(args.rounds, files)
    for line in lines:
        print(json.dumps(line), flush=True)
    print(json.dumps(valid_median_line(medians)), flush=True)
    print(json.dumps(throughput(args.workers, args.repeat, files)), flush=True)
    print(json.dumps(started_ahead(medians["full"], files)), flush=True)


if __name__ == "__main__":
    main()
