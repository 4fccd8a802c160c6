"""Benchmark of the environment memory; prints one JSON object per figure.

Figures: MiniLM embeddings per second; median query latency and recall@10 (against exact
search) of the memory's index at 10k, 100k and 1M stored vectors; dedup precision and recall
on both halves of the labelled development set (tests/data/dedup), with every signal and with
static signals only (no sandbox), and the thresholds re-tuned on the tuning half; what
cross-play adds to ``check_novelty`` (32 neighbours by meaning and 32 by code, the shipped
library stored); and a crash check (writers killed with SIGKILL, the memory reopened each
time).

Latency uses synthetic vectors: unit vectors around 1,000 random centres, which, like real
sentence embeddings, have far lower intrinsic dimension than 384 (uniform random vectors would
be a worst case no text model produces). Indexes are built exactly as the memory builds them
(``spadegym.memory.vector_index.build_index`` with the default ``IndexParams``).

    python benchmarks/bench_memory.py            # every figure (the 1M build is the slow part)
    python benchmarks/bench_memory.py --quick    # 10k and 100k only, fewer queries
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "memory"))

from spadegym.memory import DedupConfig, EnvironmentMemory, HashingEmbedder  # noqa: E402
from spadegym.memory.embedders import normalise_rows  # noqa: E402
from spadegym.memory.vector_index import IndexParams, build_index, kind_for  # noqa: E402

DIM = 384


def emit(**figure: object) -> None:
    print(json.dumps(figure), flush=True)


def synthetic(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    out = np.empty((n, centres.shape[1]), dtype=np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        labels = rng.integers(0, len(centres), stop - start)
        noise = normalise_rows(rng.standard_normal((stop - start, centres.shape[1])))
        out[start:stop] = normalise_rows(centres[labels] + 0.6 * noise)
    return out


def bench_latency(sizes: list[int], queries: int, out=emit) -> None:
    """Query latency and recall@10 at each size; each figure goes to ``out(**figure)``."""
    import faiss

    params = IndexParams()
    rng = np.random.default_rng(0)
    centres = normalise_rows(rng.standard_normal((1000, DIM)))
    for n in sizes:
        vectors = synthetic(rng, centres, n)
        probes = synthetic(rng, centres, queries)
        kind = kind_for(n, params)
        started = time.perf_counter()
        index = build_index(np.arange(n, dtype=np.int64), vectors, kind, params)
        build_s = time.perf_counter() - started
        exact = faiss.IndexFlatIP(DIM)
        exact.add(vectors)
        _, truth = exact.search(probes, 10)
        del exact
        index.search(probes[:10], 10)  # warm caches
        # Queries run one at a time on one thread, as SyncedIndex.search runs them.
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        latencies, hits = [], 0
        for probe, expected in zip(probes, truth, strict=True):
            started = time.perf_counter()
            _, found = index.search(probe[None, :], 10)
            latencies.append(time.perf_counter() - started)
            hits += len(set(found[0].tolist()) & set(expected.tolist()))
        faiss.omp_set_num_threads(threads)
        out(
            figure="memory/query_latency",
            vectors=n,
            index=kind,
            params={
                "M": params.hnsw_m,
                "ef_construction": params.ef_construction,
                "ef_search": params.ef_search,
            }
            if kind == "hnsw"
            else {},
            build_s=round(build_s, 2),
            median_ms=round(statistics.median(latencies) * 1000, 3),
            p99_ms=round(float(np.percentile(latencies, 99)) * 1000, 3),
            recall_at_10=round(hits / (10 * queries), 4),
            queries=queries,
            build_threads=threads,
            target="median <= 5 ms and recall@10 >= 0.95 at 1M",
        )
        del index, vectors


def bench_embedding(embedder) -> None:
    texts = [
        f"Environment {i}: guess the hidden code from clues about digit {i % 10} in a "
        f"{3 + i % 4}-digit lock; each reply gets feedback."
        for i in range(512)
    ]
    embedder.embed(texts[:16])
    started = time.perf_counter()
    embedder.embed(texts)
    elapsed = time.perf_counter() - started
    emit(
        figure="memory/embeddings_per_s",
        model=embedder.name,
        texts=len(texts),
        per_s=round(len(texts) / elapsed, 1),
        threads=os.cpu_count(),
    )


def bench_dedup(embedder) -> None:
    import devset

    started = time.perf_counter()
    found = devset.signals(embedder)
    seconds = time.perf_counter() - started
    config = DedupConfig()
    for split in ("tune", "heldout"):
        half = [s for s in found if s.split == split]
        for mode, signals in (("all", found), ("static", devset.static_only(found))):
            precision, recall = devset.precision_recall(signals, config, split)
            chosen = [s for s in signals if s.split == split]
            by_kind = {}
            for kind in sorted({s.kind for s in chosen if s.same}):
                same = [s for s in chosen if s.same and s.kind == kind]
                by_kind[kind] = f"{sum(devset.decide(s, config) for s in same)}/{len(same)}"
            emit(
                figure="memory/dedup",
                split=split,
                signals=mode,
                thresholds="shipped",
                precision=round(precision, 4),
                recall=round(recall, 4),
                recall_by_kind=by_kind,
                pairs=len(half),
                same_game=sum(s.same for s in half),
                same_topic=sum(s.kind == "same_topic" for s in half),
                target="precision >= 0.95 and recall >= 0.9 on heldout",
            )
    tuned = devset.tune(found)
    emit(
        figure="memory/dedup_tuning",
        tuned_on="tune",
        config={k: v for k, v in tuned.__dict__.items() if k not in ("candidates", "behaviour")},
        equals_shipped=tuned == config,
        heldout=dict(
            zip(("precision", "recall"), devset.precision_recall(found, tuned, "heldout"))
        ),
        margin=devset.MARGIN,
        seconds_to_measure=round(seconds, 1),
    )


def bench_cross_play(candidates: list[str]) -> None:
    """What a sandbox adds to check_novelty: cross-play against the stored library."""
    import devset

    from spadegym.memory import crossplay
    from spadegym.memory.default import seed_library
    from spadegym.memory.signature import Signature
    from spadegym.validation.episodes import ScriptedEpisode, play

    sources = devset.programs()
    replayed: list[int] = []
    real_run = crossplay._Replay.run

    def counting_run(self, worker, info, turns):
        replayed[-1] += len(self.pending)
        return real_run(self, worker, info, turns)

    crossplay._Replay.run = counting_run
    added, signing, episodes, compared = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        memory = EnvironmentMemory(Path(tmp) / "m", HashingEmbedder())
        seed_library(memory)
        for name in candidates:
            source = sources[name]
            with memory.sandbox() as worker:
                worker.load_cached(source)
                started = time.perf_counter()
                memory.signature_of(source, worker)
                signing.append(time.perf_counter() - started)
                memory.check_novelty(source)  # warm: summary, embedding, index
                started = time.perf_counter()
                memory.check_novelty(source)
                static = time.perf_counter() - started
                replayed.append(0)
                started = time.perf_counter()
                novelty = memory.check_novelty(source, sandbox=worker)
                added.append(time.perf_counter() - started - static)
                episodes.append(replayed[-1])
                compared.append(sum(1 for s in novelty.signals if s.cross is not None))
        # Worst case: 32 neighbours whose solutions all pass the template screen and are
        # all different (the candidate's own solutions of seeds 100..131 stand for them as
        # probe 0), so each is replayed, and loses.
        worst = []
        for name in candidates[:: max(1, len(candidates) // 12)]:
            source = sources[name]
            with memory.sandbox() as worker:
                own = memory.signature_of(source, worker)
                if own is None or own.two_player:
                    continue
                info = worker.load_cached(source)
                others = [ScriptedEpisode(seed=100 + i, use_solution=True) for i in range(32)]
                play(worker, info, others, 0)
                neighbours = {
                    f"n{i}": Signature(
                        False,
                        (dataclasses.replace(own.probes[0], solution=tuple(e.solution)),)
                        + own.probes[1:],
                    )
                    for i, e in enumerate(others)
                    if e.solution
                }
                started = time.perf_counter()
                crossplay.cross_play(worker, source, own, neighbours)
                worst.append(time.perf_counter() - started)
        memory.close()
    crossplay._Replay.run = real_run

    def ms(values: list[float], q: float) -> float:
        return round(1000 * float(np.percentile(values, q)), 1)

    emit(
        figure="memory/cross_play_added_ms",
        candidates=len(candidates),
        stored=72,
        neighbours_with_signature_median=int(statistics.median(compared)),
        episodes_replayed_median=int(statistics.median(episodes)),
        median_ms=ms(added, 50),
        p90_ms=ms(added, 90),
        max_ms=ms(added, 100),
        worst_case_32_replays_median_ms=ms(worst, 50) if worst else None,
        worst_case_32_replays_max_ms=ms(worst, 100) if worst else None,
        signature_median_ms=ms(signing, 50),
        signature_max_ms=ms(signing, 100),
        target="<= 50 ms added with 32 neighbours",
    )


WRITER = """
import sys
from spadegym.memory import EnvironmentMemory, HashingEmbedder
memory = EnvironmentMemory(sys.argv[1], HashingEmbedder())
src = open(sys.argv[2]).read()
for i in range(10**6):
    env = f"{sys.argv[3]}-{i}"
    memory.add(env, src.replace("max_turns = 8", f"max_turns = {i % 90 + 1}"))
    memory.record_plays(env, plain=[1.0], hint=[0.0], step=i)
"""


def bench_crash(kills: int) -> None:
    import devset

    source = devset.programs()["lock"]
    rng = np.random.default_rng(1)
    readable = 0
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "lock.py"
        program.write_text(source)
        path = Path(tmp) / "memory"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for round_ in range(kills):
            proc = subprocess.Popen(
                [sys.executable, "-c", WRITER, str(path), str(program), f"r{round_}"], env=env
            )
            time.sleep(1.0 + float(rng.random()) * 1.5)
            proc.kill()
            proc.wait()
            with EnvironmentMemory(path, HashingEmbedder()) as memory:
                count = len(memory)
                ok = count == 0 or len(memory.similar_to(memory.ids()[-1], 3)) == min(3, count - 1)
                ok = ok and memory._index.index is not None
                ok = ok and (count == 0 or memory._index.index.ntotal == count)
                readable += bool(ok)
        emit(
            figure="memory/crash_consistency",
            kills=kills,
            reopened_consistent=readable,
            stored=count,
            target="every reopen consistent",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k and 100k only, fewer queries")
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="*",
        default=None,
        help="stored-vector counts for the latency figure",
    )
    parser.add_argument("--queries", type=int, default=None, help="latency queries per size")
    parser.add_argument("--kills", type=int, default=None, help="writers killed (crash check)")
    parser.add_argument("--no-model", action="store_true", help="skip the figures that need MiniLM")
    parser.add_argument(
        "--only",
        choices=["dedup", "cross-play", "crash", "latency"],
        default=None,
        help="run one figure only",
    )
    args = parser.parse_args()
    sizes = args.sizes or ([10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000])
    wanted = {args.only} if args.only else {"dedup", "cross-play", "crash", "latency"}
    if not args.no_model and wanted & {"dedup"}:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from spadegym.memory import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder(device="cpu")
        if args.only is None:
            bench_embedding(embedder)
        bench_dedup(embedder)
    if "cross-play" in wanted:
        import devset

        names = sorted(n for n in devset.programs() if n.startswith(("rw_", "rwd_", "st_")))
        bench_cross_play(names[:: 3 if args.quick else 1])
    if "crash" in wanted:
        bench_crash(args.kills or (3 if args.quick else 5))
    if "latency" not in wanted:
        return
    bench_latency(sizes, args.queries or (200 if args.quick else 500))


if __name__ == "__main__":
    main()
