"""The labelled dedup development set (tests/data/dedup) and the figures computed on it.

Shared by the tests and ``benchmarks/bench_memory.py``. Programs are the fixtures of
``tests/data/dedup/programs`` and the shipped library as ``lib/<Folder>``; pairs carry a
``split`` (``tune`` or ``heldout``, fixed by game in ``make_variants.py``): thresholds are tuned
on the first half and judged on the second.

The programs are our own, so running their ``reset`` in-process for a first observation is
safe here, and their behavioural signatures come from one sandbox worker shared by all of them;
the library itself never executes a program in the host and gives each program its own worker.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from spadegym.memory import (
    DedupConfig,
    Embedder,
    Signals,
    code_similarity,
    embedding_text,
    judge,
    shingles,
    summarize,
)
from spadegym.memory.crossplay import CrossPlay, cross_play
from spadegym.memory.signature import Signature, compute_signature, observation_alignment

DEDUP_DIR = Path(__file__).resolve().parents[1] / "data" / "dedup"
REGISTRY = Path(__file__).resolve().parents[2] / "registry"


@dataclass(frozen=True)
class PairSignal:
    """A labelled pair and every signal the memory would see for it (``b`` the candidate)."""

    a: str
    b: str
    same: bool
    kind: str
    split: str
    signals: Signals


def programs() -> dict[str, str]:
    """Every program of the set by name: fixtures, then the library as ``lib/<Folder>``."""
    found = {p.stem: p.read_text() for p in sorted((DEDUP_DIR / "programs").glob("*.py"))}
    for folder in sorted(REGISTRY.glob("*-v0")):
        found["lib/" + folder.name[: -len("-v0")]] = (folder / "env.py").read_text()
    return found


def pairs(split: str | None = None) -> list[dict]:
    """The labelled pairs, all or one half."""
    rows = [json.loads(line) for line in (DEDUP_DIR / "pairs.jsonl").read_text().splitlines()]
    return [r for r in rows if split is None or r["split"] == split]


def first_observation(source: str) -> str:
    namespace: dict = {}
    exec(compile(source, "<devset>", "exec"), namespace)  # noqa: S102 - trusted fixtures
    env_class = namespace[summarize(source).class_name]
    observation, _ = env_class().reset(seed=0)
    return observation


def signatures(sources: dict[str, str], names: Iterable[str]) -> dict[str, Signature]:
    """Signatures of trusted fixtures, each computed in a fresh worker (a worker serves one
    program)."""
    from spadegym.sandbox import SandboxWorker
    from spadegym.validation import ValidationConfig

    out: dict[str, Signature] = {}
    worker = SandboxWorker(ValidationConfig().sandbox)
    try:
        for name in sorted(set(names)):
            worker.kill()  # the next call starts a fresh process for this program
            out[name] = compute_signature(worker, sources[name], name)
    finally:
        worker.kill()
    return out


def cross_plays(
    sources: dict[str, str], sigs: dict[str, Signature], rows: list[dict]
) -> dict[tuple[str, str], CrossPlay]:
    """``a``'s recorded play replayed in ``b`` for every pair, a fresh worker per ``b``."""
    from spadegym.sandbox import SandboxWorker
    from spadegym.validation import ValidationConfig

    by_candidate: dict[str, list[str]] = {}
    for row in rows:
        by_candidate.setdefault(row["b"], []).append(row["a"])
    out = {}
    worker = SandboxWorker(ValidationConfig().sandbox)
    try:
        for b, stored in sorted(by_candidate.items()):
            worker.kill()  # the next call starts a fresh process for this candidate
            found = cross_play(worker, sources[b], sigs[b], {a: sigs[a] for a in stored})
            out.update({(a, b): found[a] for a in stored})
    finally:
        worker.kill()
    return out


def signals(embedder: Embedder, *, behaviour: bool = True) -> list[PairSignal]:
    """Every pair's signals; without ``behaviour`` only the static ones (no sandbox)."""
    sources = programs()
    rows = pairs()
    names = sorted({r["a"] for r in rows} | {r["b"] for r in rows})
    summaries = {n: summarize(sources[n]) for n in names}
    texts = [
        embedding_text(summaries[n].title, summaries[n].description, first_observation(sources[n]))
        for n in names
    ]
    vectors = dict(zip(names, embedder.embed(texts), strict=True))
    sets = {n: shingles(summaries[n].shape) for n in names}
    sigs = signatures(sources, names) if behaviour else {}
    plays = cross_plays(sources, sigs, rows) if behaviour else {}
    out = []
    for row in rows:
        a, b = row["a"], row["b"]
        found = Signals(
            env_id=a,
            semantic=float(vectors[a] @ vectors[b]),
            code=code_similarity(sets[a], sets[b]),
            exact=summaries[a].fingerprint == summaries[b].fingerprint,
            cross=plays.get((a, b)),
            numbers=observation_alignment(sigs[b], sigs[a]) if behaviour else None,
        )
        out.append(PairSignal(a, b, row["same"], row["kind"], row["split"], found))
    return out


def static_only(found: list[PairSignal]) -> list[PairSignal]:
    """The same pairs as a memory without a sandbox handle sees them."""
    return [replace(s, signals=replace(s.signals, cross=None, numbers=None)) for s in found]


def decide(signal: PairSignal, config: DedupConfig) -> bool:
    return judge(signal.signals, config) is not None


def precision_recall(
    found: list[PairSignal], config: DedupConfig, split: str | None = None
) -> tuple[float, float]:
    chosen = [s for s in found if split is None or s.split == split]
    tp = sum(1 for s in chosen if s.same and decide(s, config))
    fp = sum(1 for s in chosen if not s.same and decide(s, config))
    fn = sum(1 for s in chosen if s.same and not decide(s, config))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


MARGIN = 0.05
"""How far every different-game pair must stay from firing a rule when thresholds are tuned."""


def tune(found: list[PairSignal], base: DedupConfig | None = None) -> DedupConfig:
    """Grid search of the static thresholds on the ``tune`` half: best recall, no false positive.

    The behavioural rules (cross-play, aligned first observations) are fixed by their own
    meaning and are part of the decision while the static thresholds are searched. A setting
    is admissible only if no different-game pair of the tuning half would fire a static rule
    even with every threshold lowered by ``MARGIN``, so the rule does not thread the needle
    between pairs of a small set. Of the admissible settings with the best recall, the one
    nearest the per-threshold median is chosen, which keeps it away from every labelled pair.
    """
    base = base or DedupConfig()
    chosen = [s for s in found if s.split == "tune"]
    same = np.array([s.same for s in chosen])
    behaviour = np.array(
        [judge(replace(s.signals, code=0.0, semantic=0.0), base) is not None for s in chosen]
    )
    code = np.array([s.signals.code for s in chosen])
    sem = np.array([s.signals.semantic for s in chosen])
    grid = [x / 50 for x in range(10, 50)]
    best_recall, optimal = -1.0, []
    for code_copy, sem_copy, sem_near, code_near in itertools.product(grid, repeat=4):
        if sem_near > sem_copy or code_near > code_copy:
            continue

        def fires(shift: float, t: tuple = (code_copy, sem_copy, sem_near, code_near)):
            return (
                (code >= t[0] - shift)
                | (sem >= t[1] - shift)
                | ((sem >= t[2] - shift) & (code >= t[3] - shift))
            )

        if (fires(MARGIN) & ~same).any():
            continue
        recall = float(((fires(0.0) | behaviour) & same).sum() / same.sum())
        config = (code_copy, sem_copy, sem_near, code_near)
        if recall > best_recall:
            best_recall, optimal = recall, [config]
        elif recall == best_recall:
            optimal.append(config)
    middle = [sorted(column)[len(column) // 2] for column in zip(*optimal, strict=True)]
    picked = min(optimal, key=lambda c: sum(abs(a - b) for a, b in zip(c, middle, strict=True)))
    return replace(
        base,
        code_copy=picked[0],
        semantic_copy=picked[1],
        semantic_near=picked[2],
        code_near=picked[3],
    )
