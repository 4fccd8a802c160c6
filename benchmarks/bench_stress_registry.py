"""Stress: writers adding copies of games with a shared memory while being SIGKILLed at random.

Each writer process loops: pick a game and a copy of it (the program with its docstring
reworded, so a different file of the same game), add it to one registry root with one memory,
and log the answer once ``add`` returned. A controller SIGKILLs each writer at a random moment
once its imports are done (after ``--life`` seconds on average, exponentially distributed, so
kills land anywhere in an add) and starts a new one. At the end, what the next writer would do
first is done (settle the journal of writes in flight), and then:

- every acknowledged id is registered;
- the registry and the memory hold the same ids (``reconcile`` finds no drift);
- ``verify`` finds every entry valid;
- no game is registered twice;
- no leftover of a dead writer remains after the next write.

Prints one JSON line with the figures and ``"ok"``; exits 1 when a check fails.

    python benchmarks/bench_stress_registry.py [--writers 8] [--seconds 60] [--games 24]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WRITER = """
import json, logging, os, random, sys
from spadegym.memory import EnvironmentMemory, HashingEmbedder
from spadegym.registry import DuplicateEnvironmentError, Registry
from spadegym.validation import ValidationReport
root, memory_path, items_file, log_file, seed = sys.argv[1:6]
logging.basicConfig(filename=log_file + ".log", level=logging.INFO)  # settled intents
items = json.load(open(items_file))
reports = [ValidationReport.from_dict(r) for _, r in items]
rng = random.Random(int(seed))
memory = EnvironmentMemory(memory_path, HashingEmbedder())
registry = Registry(root)
log = open(log_file, "a")
open(log_file + f".ready-{os.getpid()}", "w").close()
while True:
    game = rng.randrange(len(items))
    copy = rng.randrange(1, 1_000_000)
    text = items[game][0].replace('\"\"\"', f'\"\"\"Copy {copy}: ', 1)
    report = ValidationReport.from_dict({**items[game][1], "program": None})
    try:
        answer = registry.add(text, report, memory=memory)
    except DuplicateEnvironmentError as exc:
        answer = "duplicate:" + str(exc.duplicate_of)
    log.write(json.dumps([game, answer]) + "\\n")
    log.flush()
    os.fsync(log.fileno())
"""


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def games(count: int) -> list[tuple[str, dict]]:
    """Validated programs of distinct games: the good examples, then the shipped library."""
    from spadegym.validation import validate_many

    paths = sorted((REPO / "examples" / "good").glob("*.py"))
    paths += sorted((REPO / "registry").glob("*/env.py"))
    texts = [p.read_text(encoding="utf-8") for p in paths[:count]]
    reports = validate_many(texts, workers=2)
    return [(t, r.to_dict()) for t, r in zip(texts, reports) if r.ok]


def start(work: Path, env: dict, k: int, seed: int) -> subprocess.Popen:
    args = [str(work / "root"), str(work / "memory"), str(work / "items.json")]
    args += [str(work / f"acks-{k}.jsonl"), str(seed)]
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(work / f"writer-{k}.err", "ab"),
    )


def run(writers: int, seconds: float, count: int, seed: int, life: float = 3.0) -> dict:
    from spadegym.memory import EnvironmentMemory, HashingEmbedder
    from spadegym.registry import Registry
    from spadegym.registry.memory_link import reconcile, settle

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="spadegym-stress-") as tmp:
        work = Path(tmp)
        items = games(count)
        (work / "items.json").write_text(json.dumps(items))
        EnvironmentMemory(work / "memory", HashingEmbedder()).close()
        env = dict(os.environ)
        env.update(
            SPADEGYM_SHIPPED_REGISTRY="",
            SPADEGYM_HOME=str(work / "home"),
            XDG_CACHE_HOME=str(work / "cache"),
            PYTHONPATH=str(REPO),
        )
        procs = {k: start(work, env, k, rng.randrange(1 << 30)) for k in range(writers)}
        death: dict[int, float] = {}
        kills, started = 0, time.monotonic()
        while time.monotonic() - started < seconds:
            time.sleep(0.05)
            now = time.monotonic()
            for k, proc in procs.items():  # ready once its imports are done; dies at random
                if k not in death and (work / f"acks-{k}.jsonl.ready-{proc.pid}").exists():
                    death[k] = now + rng.expovariate(1 / life)
            for k in [k for k, when in death.items() if now >= when]:
                procs[k].send_signal(signal.SIGKILL)
                procs[k].wait()
                kills += 1
                del death[k]
                procs[k] = start(work, env, k, rng.randrange(1 << 30))
        for proc in procs.values():
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        elapsed = time.monotonic() - started

        acks = []
        for path in work.glob("acks-*.jsonl"):
            for line in path.read_text().splitlines():
                try:
                    acks.append(json.loads(line))
                except ValueError:
                    pass  # a line cut by the kill was never acknowledged
        finished = sum(
            path.read_text().count("finishing the interrupted") for path in work.glob("*.log")
        )
        registry = Registry(work / "root")
        memory = EnvironmentMemory(work / "memory")
        pending = len(memory.intents())
        with memory.locked():  # what the next writer does before its own write
            settled = settle(memory)
        drift = reconcile(memory, [registry.root])
        registered = {e.id: e for e in registry.list()}
        added = {a for _, a in acks if not a.startswith("duplicate:")}
        by_game: dict[int, set[str]] = {}
        for game, answer in acks:
            if not answer.startswith("duplicate:"):
                by_game.setdefault(game, set()).add(answer)
        fingerprints: dict[str, list[str]] = {}
        for env_id in registered:
            record = memory.get(env_id)
            if record is not None:
                fingerprints.setdefault(record.fingerprint, []).append(env_id)
        results = registry.verify()  # also removes the leftovers a killed writer left
        memory.close()
        leftover = [n for n in os.listdir(registry.root) if n.startswith((".tmp-", ".trash-"))]
        leftover += [n for n in os.listdir(work / "memory") if n.endswith(".tmp")]
        checks = {
            "acknowledged_registered": added <= set(registered),
            "registry_equals_memory": drift.clean,
            "verify_clean": all(r.ok for r in results) and not registry.skipped(),
            "one_entry_per_game": all(len(v) == 1 for v in fingerprints.values())
            and all(len(v) == 1 for v in by_game.values()),
            "no_leftovers": not leftover,
        }
        return {
            "bench": "stress_registry",
            "writers": writers,
            "seconds": round(elapsed, 1),
            "games": len(items),
            "kills": kills,
            "answers_acknowledged": len(acks),
            "adds_acknowledged": sum(not a.startswith("duplicate:") for _, a in acks),
            "duplicates_refused": sum(a.startswith("duplicate:") for _, a in acks),
            "registered": len(registered),
            "registered_unacknowledged": len(set(registered) - added),
            "intents_finished_by_next_writer": finished,
            "intents_pending_at_end": pending,
            "intents_settled_at_end": len(settled),
            "drift": drift.describe(),
            "answers_per_s": round(len(acks) / elapsed, 1),
            **checks,
            "ok": all(checks.values()),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=24, help="distinct games to draw from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--life", type=float, default=3.0, help="mean seconds to a kill")
    args = parser.parse_args()
    figures = run(args.writers, args.seconds, args.games, args.seed, args.life)
    emit(**figures)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
