"""The labelled dedup development set (tests/data/dedup) and the figures computed on it.

Shared by the tests and ``benchmarks/bench_memory.py``. The programs are our own fixtures, so
running their ``reset`` in-process to get a first observation is safe here; the library never
executes a program (the registry passes first observations in from the sandbox).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spadegym.memory import (
    DedupConfig,
    Embedder,
    code_similarity,
    embedding_text,
    judge,
    shingles,
    summarize,
)

DEDUP_DIR = Path(__file__).resolve().parents[1] / "data" / "dedup"
REGISTRY = Path(__file__).resolve().parents[2] / "registry"

# Games of the shipped library that look alike but play differently, read from registry/ so the
# development set follows the library: the rule must tell them apart.
LIBRARY = {
    "lib_connect_four": "ConnectFourDuel",
    "lib_tic_tac_toe": "TicTacToeDuel",
    "lib_input_finder": "InputFinder",
    "lib_loop_trace": "LoopTrace",
    "lib_function_repair": "FunctionRepair",
    "lib_trace_oracle": "TraceOracle",
    "lib_stack_machine": "StackMachineEval",
    "lib_register_bugfix": "RegisterBugfix",
}


@dataclass(frozen=True)
class PairSignal:
    a: str
    b: str
    same: bool
    kind: str
    exact: bool
    code: float
    semantic: float


def programs() -> dict[str, str]:
    found = {p.stem: p.read_text() for p in sorted((DEDUP_DIR / "programs").glob("*.py"))}
    for name, folder in LIBRARY.items():
        found[name] = (REGISTRY / f"{folder}-v0" / "env.py").read_text()
    return found


def pairs() -> list[dict]:
    return [json.loads(line) for line in (DEDUP_DIR / "pairs.jsonl").read_text().splitlines()]


def first_observation(source: str) -> str:
    namespace: dict = {}
    exec(compile(source, "<devset>", "exec"), namespace)  # noqa: S102 - trusted fixtures
    env_class = namespace[summarize(source).class_name]
    observation, _ = env_class().reset(seed=0)
    return observation


def signals(embedder: Embedder) -> list[PairSignal]:
    sources = programs()
    summaries = {name: summarize(src) for name, src in sources.items()}
    names = sorted(sources)
    texts = [
        embedding_text(summaries[n].title, summaries[n].description, first_observation(sources[n]))
        for n in names
    ]
    vectors = dict(zip(names, embedder.embed(texts), strict=True))
    sets = {n: shingles(s.shape) for n, s in summaries.items()}
    out = []
    for pair in pairs():
        a, b = pair["a"], pair["b"]
        out.append(
            PairSignal(
                a,
                b,
                pair["same"],
                pair["kind"],
                summaries[a].fingerprint == summaries[b].fingerprint,
                code_similarity(sets[a], sets[b]),
                float(vectors[a] @ vectors[b]),
            )
        )
    return out


def decide(signal: PairSignal, config: DedupConfig) -> bool:
    return signal.exact or judge(signal.code, signal.semantic, config) is not None


def precision_recall(found: list[PairSignal], config: DedupConfig) -> tuple[float, float]:
    tp = sum(1 for s in found if s.same and decide(s, config))
    fp = sum(1 for s in found if not s.same and decide(s, config))
    fn = sum(1 for s in found if s.same and not decide(s, config))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


MARGIN = 0.05
"""How far every different-game pair must stay from firing a rule when thresholds are tuned."""


def tune(found: list[PairSignal]) -> tuple[DedupConfig, float, float]:
    """Grid search for the thresholds with the best recall and no false positive, with margin.

    A setting is admissible only if no different-game pair would fire a rule even with every
    threshold lowered by ``MARGIN``: the tuned rule then does not thread the needle between
    pairs of this small set. Of the admissible settings with the best recall, the one nearest
    the per-threshold median is chosen, which keeps it away from every labelled pair.
    """
    same = np.array([s.same for s in found])
    exact = np.array([s.exact for s in found])
    code = np.array([s.code for s in found])
    sem = np.array([s.semantic for s in found])
    grid = [x / 50 for x in range(10, 50)]
    best_recall, optimal = -1.0, []
    for code_copy, sem_copy, sem_near, code_near in itertools.product(grid, repeat=4):
        if sem_near > sem_copy or code_near > code_copy:
            continue

        def fires(shift: float, t: tuple = (code_copy, sem_copy, sem_near, code_near)):
            return (
                exact
                | (code >= t[0] - shift)
                | (sem >= t[1] - shift)
                | ((sem >= t[2] - shift) & (code >= t[3] - shift))
            )

        if (fires(MARGIN) & ~same).any():
            continue
        recall = float((fires(0.0) & same).sum() / same.sum())
        config = (code_copy, sem_copy, sem_near, code_near)
        if recall > best_recall:
            best_recall, optimal = recall, [config]
        elif recall == best_recall:
            optimal.append(config)
    middle = [sorted(column)[len(column) // 2] for column in zip(*optimal, strict=True)]
    chosen = min(optimal, key=lambda c: sum(abs(a - b) for a, b in zip(c, middle, strict=True)))
    config = DedupConfig(*chosen)
    return config, *precision_recall(found, config)
