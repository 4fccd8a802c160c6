"""Registry figures, one JSON line each.

- ``import spadegym`` time with 0, 1,000 and 10,000 environments in a temporary root (index
  fresh; plus one cold import that rebuilds the 10,000-entry index);
- a cold ``gymnasium.make`` + ``reset`` (a fresh process: worker start included);
- env-steps per second of a heterogeneous ``EnvBatch`` of 64 environments (6 programs) made
  with ``num_workers=2``: one worker process per program (a worker serves one program);
  against, in the same run and interleaved with it, the same-program batch (64 LockPick on 2
  workers) and 6 copies of LockPick registered apart (one worker per copy, as heterogeneous).

Targets: import with 10,000 environments at most 0.5 s above the empty registry; the
heterogeneous batch at least half the same-program batch's rate (issue 28; the two differ in
their programs' own costs too: LockPick is the cheapest of the six).

    python benchmarks/bench_registry.py [--sizes 0,1000,10000] [--repeats 5] [--steps 200]
    python benchmarks/bench_registry.py --only batch --steps 300
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((REPO / "examples" / "good").glob("*.py"))


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def child_env(root: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        SPADEGYM_SHIPPED_REGISTRY="",
        SPADEGYM_HOME=str(home),
        SPADEGYM_REGISTRY_PATH=str(root),
        XDG_CACHE_HOME=str(home / "cache"),
        PYTHONPATH=str(REPO),
    )
    return env


def fill_root(root: Path, n: int, program: str, report) -> None:
    """Write ``n`` entries directly (distinct programs, one shared validation report)."""
    from spadegym.registry.index import build_index, save_index
    from spadegym.registry.manifest import build_manifest

    root.mkdir(parents=True)
    for k in range(n):
        folder = f"Bench{k}-v0"
        text = program.replace('"""', f'"""Bench {k}: ', 1)
        manifest = build_manifest(f"spade/{folder}", text, report)
        (root / folder).mkdir()
        (root / folder / "env.py").write_text(text, encoding="utf-8")
        (root / folder / "manifest.json").write_text(manifest.to_json(), encoding="utf-8")
    save_index(build_index(root))


def time_import(root: Path, home: Path, repeats: int) -> list[float]:
    code = (
        "import time; t = time.perf_counter(); import spadegym, gymnasium; "
        "d = time.perf_counter() - t; "
        "print(d, sum(k.startswith('spade/') for k in gymnasium.registry))"
    )
    times = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=child_env(root, home),
            check=True,
        ).stdout.split()
        times.append(float(out[0]))
    return times


def time_register(root: Path) -> float:
    """The registration step alone, in this process (best of 3): less noisy than an import."""
    from spadegym.registry import register_roots

    times = []
    for _ in range(3):
        started = time.perf_counter()
        register_roots([root])
        times.append(time.perf_counter() - started)
    return min(times)


def bench_imports(sizes: list[int], repeats: int, program: str, report, tmp: Path) -> None:
    base = None
    for n in sizes:
        root, home = tmp / f"root{n}", tmp / f"home{n}"
        fill_root(root, n, program, report)
        if n == max(sizes):  # a cold import: the index is rebuilt from 10,000 manifests
            (root / ".index" / "index.json").unlink()
            emit(bench="import_cold_index", envs=n, seconds=round(time_import(root, home, 1)[0], 4))
        times = time_import(root, home, repeats)
        median, best = statistics.median(times), min(times)
        base = (median, best) if base is None else base
        emit(
            bench="import_spadegym",
            envs=n,
            seconds=round(median, 4),
            best=round(best, 4),
            over_empty=round(median - base[0], 4),
            best_over_empty=round(best - base[1], 4),
            register_seconds=round(time_register(root), 4),
            repeats=repeats,
        )


def bench_cold_make(tmp: Path, program: str, report) -> None:
    root, home = tmp / "make_root", tmp / "make_home"
    fill_root(root, 1, program, report)
    code = (
        "import time, gymnasium, spadegym; t = time.perf_counter(); "
        "env = gymnasium.make('spade/Bench0-v0'); m = time.perf_counter() - t; "
        "env.reset(seed=0); r = time.perf_counter() - t; env.close(); print(m, r)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=child_env(root, home),
        check=True,
    ).stdout.split()
    emit(
        bench="cold_make",
        make_seconds=round(float(out[0]), 4),
        make_and_reset_seconds=round(float(out[1]), 4),
    )


# Replies that are well formed for some programs and wrong for others: every step runs the
# program's parsing and feedback, and episodes end by truncation or a decided game.
REPLIES = ["\\boxed{123}", "\\boxed{2 1}", "\\boxed{U}", "\\boxed{7}", "<answer>0</answer>"]


def batch_arms(tmp: Path, num_envs: int) -> dict[str, list[str]]:
    """The batches compared, as registered ids (``num_envs`` instances each).

    - ``same_program``: one program (LockPick) on ``workers`` workers;
    - ``copies``: the same program registered 6 times (6 digests), so one worker per copy:
      what one program per worker costs by itself;
    - ``heterogeneous``: the 6 example programs, one worker each.
    """
    from spadegym.registry import Registry
    from spadegym.validation import validate_many

    texts = [path.read_text(encoding="utf-8") for path in EXAMPLES]
    lock = next(t for p, t in zip(EXAMPLES, texts) if p.name == "lock_pick.py")
    copies = [lock.replace('"""', f'"""Copy {k}: ', 1) for k in range(len(texts))]
    registry = Registry(tmp / "batch_root")
    reports = validate_many(texts + copies)
    ids = [registry.add(text, report) for text, report in zip(texts + copies, reports)]
    mixed, copied = ids[: len(texts)], ids[len(texts) :]
    lock_id = mixed[[p.name for p in EXAMPLES].index("lock_pick.py")]
    return {
        "same_program": [lock_id] * num_envs,
        "copies": [copied[k % len(copied)] for k in range(num_envs)],
        "heterogeneous": [mixed[k % len(mixed)] for k in range(num_envs)],
    }


def interleaved_rates(
    arms: dict[str, list[str]], steps: int, chunk: int, workers: int
) -> tuple[dict[str, float], dict[str, int], dict[str, int]]:
    """Env-steps per second of each arm: chunks of ``chunk`` steps, the arms taking turns.

    Every arm's batch stays open the whole time and the arms alternate chunk by chunk, so a
    busy spell on a shared machine slows all of them; each rate is the median over chunks.

    Returns:
        The median rates, the worker processes and the episodes finished, by arm.
    """
    from spadegym.vector import EnvBatch

    batches = {name: EnvBatch(ids, num_workers=workers, seed=0) for name, ids in arms.items()}
    rates: dict[str, list[float]] = {name: [] for name in arms}
    episodes = dict.fromkeys(arms, 0)
    try:
        for batch in batches.values():
            batch.reset(seed=0)
            for t in range(5):  # warm up
                batch.step([REPLIES[(k + t) % len(REPLIES)] for k in range(len(batch))])
        for start in range(0, steps, chunk):
            for name, batch in batches.items():
                began = time.perf_counter()
                for t in range(start, min(steps, start + chunk)):
                    actions = [REPLIES[(k + t) % len(REPLIES)] for k in range(len(batch))]
                    _, _, terminated, truncated, _ = batch.step(actions)
                    episodes[name] += sum(a or b for a, b in zip(terminated, truncated))
                done = min(steps, start + chunk) - start
                rates[name].append(done * len(batch) / (time.perf_counter() - began))
        processes = {name: len(batch.pool.workers) for name, batch in batches.items()}
    finally:
        for batch in batches.values():
            batch.close()
    return {name: statistics.median(r) for name, r in rates.items()}, processes, episodes


def bench_batch(tmp: Path, steps: int, num_envs: int, workers: int, chunk: int = 10) -> dict:
    """The heterogeneous batch's env-steps/s, against the same-program batch in the same run."""
    arms = batch_arms(tmp, num_envs)
    rates, processes, episodes = interleaved_rates(arms, steps, chunk, workers)
    same = rates["same_program"]
    return dict(
        bench="heterogeneous_batch",
        envs=num_envs,
        distinct_programs=len(set(arms["heterogeneous"])),
        workers=workers,
        worker_processes=processes["heterogeneous"],
        steps=steps,
        env_steps_per_second=round(rates["heterogeneous"]),
        same_program_env_steps_per_second=round(same),
        copies_env_steps_per_second=round(rates["copies"]),
        heterogeneous_over_same_program=round(rates["heterogeneous"] / same, 3),
        copies_over_same_program=round(rates["copies"] / same, 3),
        target_over_same_program=0.5,
        episodes_finished=episodes["heterogeneous"],
        cores=os.cpu_count(),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,1000,10000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=["imports", "make", "batch"], default=None)
    args = parser.parse_args()
    wanted = {args.only} if args.only else {"imports", "make", "batch"}
    os.environ["SPADEGYM_SHIPPED_REGISTRY"] = ""
    from spadegym.validation import validate

    program = (REPO / "examples" / "good" / "lock_pick.py").read_text(encoding="utf-8")
    report = validate(program)
    with tempfile.TemporaryDirectory(prefix="bench-registry-") as name:
        tmp = Path(name)
        os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
        if "imports" in wanted:
            sizes = [int(s) for s in args.sizes.split(",")]
            bench_imports(sizes, args.repeats, program, report, tmp)
        if "make" in wanted:
            bench_cold_make(tmp, program, report)
        if "batch" in wanted:
            emit(**bench_batch(tmp, args.steps, args.num_envs, args.workers))


if __name__ == "__main__":
    main()
