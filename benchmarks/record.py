"""Record a release's headline figures, with the machine they ran on, in benchmarks/results/.

Runs bench_step, bench_validate, bench_registry, bench_memory and bench_train (each in a
process of its own, on this checkout's code) and writes ``benchmarks/results/<version>.json``:
the version and commit, a description of the machine (processor, cores, memory, kernel,
Python, the load average before and after: a busy machine's figures say so), the arguments
each script ran with, and every JSON line it printed. An existing file is kept unless
``--force``. Compare figures across machines as ratios (``isolated_over_pipe``,
``heterogeneous_over_same_program``), not microseconds.

    python benchmarks/record.py            # the scripts' own settings (tens of minutes)
    python benchmarks/record.py --quick    # smaller settings (a few minutes), marked so
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

# script -> (full arguments, quick arguments)
SCRIPTS: dict[str, tuple[list[str], list[str]]] = {
    "bench_step.py": ([], ["--steps", "5000", "--rounds", "100", "--starts", "5"]),
    "bench_validate.py": ([], ["--rounds", "1", "--repeat", "1"]),
    "bench_registry.py": ([], ["--sizes", "0,1000", "--repeats", "3", "--steps", "200"]),
    "bench_memory.py": (["--no-model"], ["--no-model", "--only", "latency", "--quick"]),
    "bench_train.py": ([], ["--iterations", "2"]),
}


def machine() -> dict:
    """What the figures ran on: enough to tell two machines apart, nothing identifying."""
    described = {
        "processor": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "system": platform.platform(),
        "python": platform.python_version(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                described["processor"] = line.split(":", 1)[1].strip()
                break
        total = Path("/proc/meminfo").read_text().split()[1]  # "MemTotal: N kB"
        described["memory_gib"] = round(int(total) / 2**20, 1)
    except OSError:  # not Linux: platform's answer stands
        pass
    return described


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, where the system tells them."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def commit() -> str:
    """The checkout's commit, with ``+dirty`` when files differ from it."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (head or "unknown") + ("+dirty" if dirty else "")


def run(script: str, args: list[str]) -> dict:
    """One script's printed figures (its JSON lines) and how long it took."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"{script} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    figures = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {"args": args, "seconds": round(time.perf_counter() - started, 1), "figures": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller settings (marked so)")
    parser.add_argument("--force", action="store_true", help="replace an existing record")
    parser.add_argument("--version", default=None, help="default: spadegym.__version__")
    parser.add_argument("--only", choices=sorted(SCRIPTS), action="append", default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import spadegym

    version = args.version or spadegym.__version__
    path = RESULTS / f"{version}.json"
    if path.exists() and not args.force:
        raise SystemExit(f"{path} exists; pass --force to replace it, or --version to name one.")
    record = {
        "version": version,
        "commit": commit(),
        "recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "settings": "quick" if args.quick else "full",
        "machine": machine(),
        "load_average_before": load_average(),
        "benchmarks": {},
    }
    for script in args.only or SCRIPTS:
        chosen = SCRIPTS[script][1 if args.quick else 0]
        print(f"{script} {' '.join(chosen)}", file=sys.stderr, flush=True)
        record["benchmarks"][script.removesuffix(".py")] = run(script, chosen)
    record["load_average_after"] = load_average()
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(path)


if __name__ == "__main__":
    main()
