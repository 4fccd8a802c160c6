"""Comparing a candidate with stored environments: who, by which signals, and the verdict.

Candidates are the stored environments nearest by meaning (the vector index) and nearest by
code (``codekeys``). Each gets static signals (cosine, code overlap, fingerprint) and, when the
caller passes a sandbox worker holding the candidate, behavioural ones: the stored
environment's recorded play replayed in the candidate (``crossplay``) and how the numbers of
the first observations align. ``novelty.judge`` turns each neighbour's signals into a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from spadegym.memory import codekeys, records
from spadegym.memory import kept_programs as stored
from spadegym.memory.crossplay import cross_play
from spadegym.memory.database import Connection
from spadegym.memory.novelty import DedupConfig, Novelty, Signals, Verdict, judge
from spadegym.memory.signature import PROBES, Signature, observation_alignment
from spadegym.sandbox.pool import Worker

SIGNAL_RANK = ("fingerprint", "cross-play", "code", "description and code", "description")
"""Verdicts from strongest to weakest evidence: among duplicates the strongest is named."""

Search = Callable[[np.ndarray, int], list[tuple[str, float]]]


def static_signals(
    db: Connection,
    search: Search,
    vector: np.ndarray,
    shape: str,
    fingerprint: str,
    k: int,
    exclude: str | None = None,
) -> list[Signals]:
    """Signals of the ``k`` nearest by meaning and the ``k`` nearest by code, nearest first.

    Args:
        db: the memory's database.
        search: the vector index's search (``(vector, k) -> [(env_id, cosine)]``).
        vector: the candidate's embedding.
        shape: the candidate's normalised code (``ProgramSummary.shape``).
        fingerprint: the candidate's fingerprint.
        k: neighbours of each kind.
        exclude: an env_id to leave out (the candidate itself, when it is stored).
    """
    by_meaning = [hit for hit in search(vector, k + 1) if hit[0] != exclude][:k]
    mine = codekeys.shingle_hashes(shape)
    by_code = [e for e in codekeys.nearest(db, codekeys.code_keys(mine), k + 1) if e != exclude]
    ids = [env for env, _ in by_meaning] + [e for e in by_code[:k] if e not in dict(by_meaning)]
    found = records.fields(db, ids, "fingerprint, vector")
    hashes = stored.shingle_sets(db, ids)
    out = []
    for env in ids:
        if env not in found:  # removed by another process meanwhile
            continue
        stored_fingerprint, blob = found[env]
        theirs = hashes.get(env)
        if theirs is None:  # stored before shingle hashes were kept
            theirs = codekeys.shingle_hashes(records.fields(db, [env], "shape")[env][0])
        out.append(
            Signals(
                env_id=env,
                semantic=float(np.frombuffer(blob, dtype=np.float32) @ vector),
                code=codekeys.jaccard(mine, theirs),
                exact=stored_fingerprint == fingerprint,
            )
        )
    return out


def with_behaviour(
    db: Connection,
    worker: Worker,
    source: str,
    own: Signature,
    signals: list[Signals],
    observations: bool = False,
) -> list[Signals]:
    """Add cross-play to each neighbour that has a signature.

    Args:
        db: the memory's database.
        worker: a worker holding (or able to load) the candidate.
        source: the candidate.
        own: the candidate's signature.
        signals: the neighbours' static signals.
        observations: also measure how the numbers of the first observations align (shown
            by ``similar``; no rule decides by it).
    """
    theirs = stored.signatures(db, [s.env_id for s in signals])
    plays = cross_play(worker, source, own, theirs)
    return [
        replace(
            s,
            cross=plays.get(s.env_id),
            numbers=(
                observation_alignment(own, theirs[s.env_id])
                if observations and s.env_id in theirs
                else None
            ),
        )
        for s in signals
    ]


def verdicts(signals: list[Signals], config: DedupConfig) -> list[tuple[Signals, Verdict]]:
    """The neighbours judged to be the same game, strongest evidence first."""
    found = [(s, judge(s, config)) for s in signals]
    dupes = [(s, v) for s, v in found if v is not None]
    dupes.sort(key=lambda d: (SIGNAL_RANK.index(d[1].signal), -(d[0].code + d[0].semantic)))
    return dupes


def novelty(signals: list[Signals], config: DedupConfig, behaviour: bool) -> Novelty:
    """The answer of ``check_novelty`` from every neighbour's signals.

    Args:
        signals: the neighbours compared.
        config: the thresholds.
        behaviour: whether behavioural signals were measured (named in a ``new`` reason).
    """
    if not signals:
        return Novelty(True, None, 0.0, "the memory is empty")
    ordered = tuple(sorted(signals, key=lambda s: -s.semantic))
    dupes = verdicts(signals, config)
    if dupes:
        s, verdict = dupes[0]
        similarity = 1.0 if verdict.signal == "fingerprint" else s.semantic
        return Novelty(False, s.env_id, similarity, verdict.reason, s.code, verdict.signal, ordered)
    n = ordered[0]
    played = max((s.cross.wins for s in signals if s.cross is not None), default=0)
    tail = (
        f"; no stored solution won it (best {played} of {len(PROBES)} probes)" if behaviour else ""
    )
    return Novelty(
        True,
        n.env_id,
        n.semantic,
        f"new: nearest is {n.env_id} (cosine {n.semantic:.2f}, code overlap {n.code:.2f}){tail}",
        n.code,
        None,
        ordered,
    )
